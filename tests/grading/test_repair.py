"""grader/instructor/grading/repair.py aligns a damaged submission with its release.

The correct solution of 04_layers in every damaged form of tests/grading/damage.py (and some
combined): after `align`, every cell nbgrader grades by is there once, with the release's
metadata, every line the student wrote is still there, and every repair is listed. A notebook of
another assignment is not taken for this one. That the aligned notebooks then score full marks
through backprop-grade, the self-grader and plain nbgrader is tests/grading/pipeline/test_repaired.py.
"""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.grading.repair import NotThisNotebook, align
from tests.grading import damage
from tests.nbgrader_harness import REPO, fill_release, solution_sources

NAME = "04_layers"


def _release(name: str = NAME):
    return nbformat.read(REPO / "exercises" / name / f"{name}.ipynb", as_version=4)


def _solved():
    source = nbformat.read(REPO / "course" / NAME / f"{NAME}.ipynb", as_version=4)
    return fill_release(_release(), solution_sources(source))


def _graded_cells(nb) -> list[tuple[str, dict, str]]:
    """(grade_id, nbgrader metadata, cell type) of every nbgrader cell, in order."""
    return [(c.metadata["nbgrader"]["grade_id"], c.metadata["nbgrader"], c.cell_type)
            for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")]


def _student_code(nb) -> list[str]:
    return sorted(c.source for c in nb.cells if c.cell_type == "code")


def test_an_intact_submission_is_left_as_it_is() -> None:
    solved = _solved()
    done = align(solved, _release())
    assert done.repairs == [] and not done.reordered
    assert nbformat.writes(done.notebook) == nbformat.writes(solved)


@pytest.mark.parametrize("damaged", [
    damage.colab_download,
    damage.pasted_into_a_fresh_notebook,
    lambda nb: damage.colab_download(damage.pasted_into_a_fresh_notebook(nb)),
    damage.duplicated_test_cell,
    damage.deleted_test_cell,
    damage.own_cells_added,
    lambda nb: damage.pasted_into_a_fresh_notebook(damage.own_cells_added(nb)),
], ids=["colab download", "metadata gone", "metadata gone, then colab", "test cell duplicated",
        "test cell deleted", "own cells added", "own cells added, metadata gone"])
def test_every_graded_cell_is_back_once_and_no_student_line_is_lost(damaged) -> None:
    release, solved = _release(), _solved()
    submitted = damaged(solved)
    released = nbformat.writes(release)
    done = align(submitted, release)
    assert nbformat.writes(release) == released, "align changed the release (backprop-grade shares it)"
    assert _graded_cells(done.notebook) == _graded_cells(release)  # same cells, same order
    ours = set(_student_code(done.notebook))
    lost = [s for s in _student_code(submitted) if s not in ours and s not in _student_code(release)]
    assert not lost, f"student code dropped: {lost[:2]}"
    changed = nbformat.writes(submitted) != nbformat.writes(done.notebook)
    assert bool(done.repairs) == changed, done.repairs


def test_the_repairs_say_what_was_done() -> None:
    release, solved = _release(), _solved()
    first_test = next(c.metadata["nbgrader"]["grade_id"] for c in release.cells
                      if c.metadata.get("nbgrader", {}).get("grade"))
    assert align(damage.deleted_test_cell(solved), release).repairs == [
        f"missing cell {first_test} put back from the release"]
    assert align(damage.duplicated_test_cell(solved), release).repairs == [
        f"a duplicated copy of {first_test} dropped"]
    gone = align(damage.pasted_into_a_fresh_notebook(solved), release).repairs
    restored = f"nbgrader metadata restored on {len(_graded_cells(release))} cell(s)"
    assert len(gone) == 1 and gone[0].startswith(restored), gone


def test_swapped_solutions_are_found_by_their_names_and_graded_as_written() -> None:
    release, solved = _release(), _solved()
    swapped = damage.pasted_into_a_fresh_notebook(damage.solutions_swapped(solved))
    done = align(swapped, release)
    assert done.reordered
    assert "solution cells in another order than the release's (graded as written)" in done.repairs
    by_id = {c.metadata["nbgrader"]["grade_id"]: c.source for c in done.notebook.cells
             if c.metadata.get("nbgrader", {}).get("solution")}
    source = nbformat.read(REPO / "course" / NAME / f"{NAME}.ipynb", as_version=4)
    assert by_id == {gid: src for gid, src in solution_sources(source).items() if gid in by_id}
    assert sorted(by_id) == sorted(g for g, m, _ in _graded_cells(release) if m.get("solution"))


def test_a_solution_made_markdown_is_graded_as_written_and_listed() -> None:
    release = _release()
    submitted = damage.solution_made_markdown(_solved())
    done = align(submitted, release)
    last = [g for g, m, _ in _graded_cells(release) if m.get("solution")][-1]
    assert done.repairs == [f"solution cell {last} is markdown: graded as written (its code does not run; "
                            "the release's stub is put back below it)"]
    assert _graded_cells(done.notebook) == _graded_cells(release)  # the stub holds the exercise's place
    text = [c for c in submitted.cells if c.metadata.get("nbgrader", {}).get("grade_id") == last][0].source
    (kept,) = [c for c in done.notebook.cells if c.cell_type == "markdown" and c.source == text]
    assert "nbgrader" not in kept.metadata  # the student's text, kept as they wrote it


def test_another_assignments_notebook_is_not_taken_for_this_one() -> None:
    with pytest.raises(NotThisNotebook, match="is it this assignment's notebook"):
        align(_release("05_softmax"), _release())
    with pytest.raises(NotThisNotebook):
        align(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('hello')")]), _release())


def _cell(kind: str, source: str, gid: str, **flags):
    maker = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
    meta = {"grade_id": gid, "grade": False, "locked": False, "solution": False, "schema_version": 3, **flags}
    return maker(source, metadata={"nbgrader": meta})


def test_a_solution_that_defines_no_function_is_found_by_its_place() -> None:
    release = nbformat.v4.new_notebook(cells=[
        _cell("code", "import math", "setup", locked=True),
        _cell("code", "# YOUR CODE HERE\nlearning_rate = None", "choose_lr", solution=True),
        _cell("code", "assert learning_rate > 0", "test_lr", grade=True, locked=True, points=1),
    ])
    mine = damage.pasted_into_a_fresh_notebook(release)
    mine.cells[1].source = "learning_rate = 0.1  # mine"
    done = align(mine, release)
    assert [c.source for c in done.notebook.cells] == ["import math", "learning_rate = 0.1  # mine",
                                                       "assert learning_rate > 0"]
    assert _graded_cells(done.notebook) == _graded_cells(release)
    mine.cells.insert(2, nbformat.v4.new_code_cell("print(learning_rate)"))  # two candidates: no guess
    done = align(mine, release)
    assert done.repairs[-1] == "missing stub of solution cell choose_lr put back from the release"
    assert "learning_rate = 0.1  # mine" in [c.source for c in done.notebook.cells]
