"""Unit tests of the build pipeline's transformations (no kernels, no nbgrader)."""

from __future__ import annotations

import nbformat

from grader.instructor import build

SOURCE = """def f(x):
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION
assert f(1) == 2
### BEGIN HIDDEN TESTS
assert f(3) == 6
### END HIDDEN TESTS
"""


def test_clean_source_drops_markers_and_hidden_tests() -> None:
    assert build.clean_source(SOURCE) == "def f(x):\n    return 2 * x\nassert f(1) == 2"


def test_clean_source_drops_mark_schemes() -> None:
    text = "Answer.\n=== BEGIN MARK SCHEME ===\nGive 2 points.\n=== END MARK SCHEME ==="
    assert build.clean_source(text) == "Answer."


def test_skeleton_removes_hidden_only_cells_and_nbgrader_metadata() -> None:
    nb = nbformat.v4.new_notebook()
    hidden_only = nbformat.v4.new_code_cell("### BEGIN HIDDEN TESTS\nassert True\n### END HIDDEN TESTS")
    graded = nbformat.v4.new_code_cell(SOURCE)
    graded.metadata["nbgrader"] = {"grade": True, "points": 1, "grade_id": "t", "schema_version": 3}
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), hidden_only, graded]
    skeleton = build.solution_skeleton(nb)
    assert [c.cell_type for c in skeleton.cells] == ["markdown", "code"]
    assert all("nbgrader" not in c.metadata for c in skeleton.cells)
    assert [c.id for c in skeleton.cells] == ["cell-000", "cell-001"]


def _stream(name: str, text: str) -> dict:
    return nbformat.v4.new_output("stream", name=name, text=text)


def test_streams_are_coalesced_whatever_the_chunking() -> None:
    one = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print")])
    two = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print")])
    one.cells[0].outputs = [_stream("stdout", "a\nb\n"), _stream("stderr", "w\n")]
    two.cells[0].outputs = [_stream("stdout", "a\n"), _stream("stdout", "b\n"), _stream("stderr", "w\n")]
    build._coalesce_streams(one)
    build._coalesce_streams(two)
    assert one.cells[0].outputs == two.cells[0].outputs
    assert len(two.cells[0].outputs) == 2


def _widget_notebook(ids: list[str]) -> nbformat.NotebookNode:
    """A notebook showing a box (ids[0]) that holds a slider (ids[1]) and an output (ids[2])."""
    box, slider, out = ids
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("display(box)")])
    nb.cells[0].outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={"application/vnd.jupyter.widget-view+json": {"model_id": box, "version_major": 2}},
        )
    ]
    state = {
        box: {"model_name": "VBoxModel", "state": {"children": [f"IPY_MODEL_{slider}", f"IPY_MODEL_{out}"]}},
        slider: {"model_name": "FloatSliderModel", "state": {"value": 0.1}},
        out: {"model_name": "OutputModel", "state": {"outputs": []}},
    }
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state}}
    return nb


def test_widget_ids_are_stable_across_runs() -> None:
    run_a = _widget_notebook(["a" * 32, "b" * 32, "c" * 32])
    run_b = _widget_notebook(["f" * 32, "0" * 32, "9" * 32])  # same widgets, other random ids
    build._normalise_widget_ids(run_a, "demo")
    build._normalise_widget_ids(run_b, "demo")
    assert run_a.cells[0].outputs == run_b.cells[0].outputs
    assert run_a.metadata == run_b.metadata
    text = nbformat.writes(run_a)
    assert "a" * 32 not in text and "IPY_MODEL_" in text


def test_kernel_paths_are_normalised() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("warn")])
    nb.cells[0].outputs = [_stream("stderr", "/tmp/ipykernel_1234/567.py:1: UserWarning: hi\n")]
    build._normalise_kernel_paths(nb)
    assert nb.cells[0].outputs[0]["text"] == "<cell>:1: UserWarning: hi\n"


def test_a_lesson_helper_is_an_input_of_the_lessons_that_import_it_only(tmp_path) -> None:
    import shutil

    from grader.instructor.build import REPO, assignments, inputs_hash, lesson_modules

    root = tmp_path / "repo"
    shutil.copytree(REPO / "course", root / "course")
    shutil.copytree(REPO / "grader", root / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    names = assignments(root)
    before = {n: inputs_hash(n, root) for n in names}
    helpers_of_07 = lesson_modules("07_gradient_flow", root)
    assert {"datasets", "gradient_flow", "widget_base"} <= set(helpers_of_07)
    assert "live_plot" not in helpers_of_07

    helper = root / "grader" / "lessons" / "gradient_flow" / "views.py"
    helper.write_text(helper.read_text() + "\n# edited\n")
    changed = {n for n in names if inputs_hash(n, root) != before[n]}
    assert changed == {"07_gradient_flow"}

    users_of_data = {n for n in names if "datasets" in lesson_modules(n, root)}
    assert "10_rnn" in users_of_data and "01_derivatives" not in users_of_data
    before_data = {n: inputs_hash(n, root) for n in names}
    poem = root / "grader" / "lessons" / "data" / "the_long_way_back.txt"
    poem.write_text(poem.read_text() + "\nedited\n")
    assert {n for n in names if inputs_hash(n, root) != before_data[n]} == users_of_data

    toolkit = root / "grader" / "checks.py"
    toolkit.write_text(toolkit.read_text() + "\n# edited\n")
    assert all(inputs_hash(n, root) != before[n] for n in names), "the toolkit is an input of every lesson"

    instructor = root / "grader" / "instructor" / "build.py"
    after_toolkit = {n: inputs_hash(n, root) for n in names}
    instructor.write_text(instructor.read_text() + "\n# edited\n")
    assert {n: inputs_hash(n, root) for n in names} == after_toolkit, "instructor tools are no input"
