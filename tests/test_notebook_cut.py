"""tests/notebook_cut.py keeps what graded cells need and drops the rest (no kernels: fast)."""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from tests.nbgrader_harness import REPO, case_sources, graded_cells
from tests.notebook_cut import cut, suspects

SETUP = "import numpy as np"


def _cell(source: str, kind: str = "") -> nbformat.NotebookNode:
    """A code cell; kind "setup", "solution:<id>", "graded:<id>" or "" (a plain cell)."""
    cell = nbformat.v4.new_code_cell(source)
    role, _, grade_id = kind.partition(":")
    if role:
        meta = {"schema_version": 3, "locked": role != "solution", "solution": role == "solution",
                "grade": role == "graded", "grade_id": grade_id or role}
        if role == "graded":
            meta["points"] = 1
        cell.metadata["nbgrader"] = meta
    return cell


def _notebook(*cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [_cell(SETUP, "setup"), *cells]
    return nb


def _kept(nb, **kwargs) -> list[str]:
    """The sources of the plain (non-nbgrader) code cells the cut keeps."""
    result = cut(nb, **kwargs)
    return [c.source for c in result.notebook.cells if "nbgrader" not in c.metadata]


def _scores(nb) -> dict[str, bool]:
    """Execute a notebook's code in one namespace, as a kernel would: graded cell -> it passed."""
    namespace: dict = {}
    passed = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            exec(cell.source, namespace)
            ok = True
        except Exception:
            ok = False
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            passed[meta["grade_id"]] = ok
    return passed


SOLUTION = _cell("def double(v):\n    return 2 * v", "solution:double")


def test_a_demo_no_graded_cell_reads_is_dropped_and_markdown_too() -> None:
    demo = "curve = [double(v) for v in range(1000)]\nprint(curve[-1])"
    nb = _notebook(SOLUTION, nbformat.v4.new_markdown_cell("## Words"), _cell(demo),
                   _cell("assert double(3) == 6", "graded:test_double"))
    result = cut(nb)
    assert [c.source for c in result.notebook.cells] == [SETUP, SOLUTION.source, "assert double(3) == 6"]
    assert result.dropped == [2, 3]


def test_a_cell_defining_what_a_graded_cell_reads_is_kept() -> None:
    nb = _notebook(SOLUTION, _cell("X = np.arange(3.0)"), _cell("unused = 5"),
                   _cell("assert (double(X) == 2 * X).all()", "graded:test_double"))
    assert _kept(nb) == ["X = np.arange(3.0)"]


def test_cells_that_change_what_a_graded_cell_reads_are_kept() -> None:
    changes = ["params['W'] *= 2", "params.update(b=1)", "stretch(params)", "for k in params:\n    pass"]
    nb = _notebook(SOLUTION, _cell("params = {'W': 1.0}"), _cell("def stretch(p):\n    p['W'] = 3"),
                   *[_cell(c) for c in changes], _cell("W = 7"),
                   _cell("assert double(params['W']) == 6", "graded:test_double"))
    assert _kept(nb) == ["params = {'W': 1.0}", "def stretch(p):\n    p['W'] = 3", *changes]
    assert _scores(cut(nb).notebook) == _scores(nb) == {"test_double": True}


def test_a_function_looks_its_globals_up_when_called() -> None:
    helper = _cell("def scaled(v):\n    return SCALE * double(v)")
    nb = _notebook(SOLUTION, helper, _cell("SCALE = 3"), _cell("print(scaled(1))"),
                   _cell("assert scaled(1) == 6", "graded:test_scaled"), _cell("SCALE = 4"))
    assert _kept(nb) == [helper.source, "SCALE = 3"]


def test_an_object_looks_up_its_class_globals_when_used() -> None:
    cls = _cell("class Net:\n    def out(self):\n        return GAIN")
    nb = _notebook(SOLUTION, cls, _cell("net = Net()"), _cell("GAIN = 2"), _cell("print(GAIN)"),
                   _cell("assert double(net.out()) == 4", "graded:test_net"))
    assert _kept(nb) == [cls.source, "net = Net()", "GAIN = 2"]


def test_a_global_assigned_through_a_function_is_a_change() -> None:
    bump = _cell("def bump():\n    global count\n    count += 1")
    nb = _notebook(SOLUTION, _cell("count = 0"), bump, _cell("bump()"), _cell("print(count)"),
                   _cell("assert double(count) == 2", "graded:test_count"))
    assert _kept(nb) == ["count = 0", bump.source, "bump()"]
    assert _scores(cut(nb).notebook) == _scores(nb) == {"test_count": True}


def test_the_global_random_generator_is_state_until_seeded_again() -> None:
    draw = _cell("noise = np.random.randn(3)")
    unseeded = _notebook(SOLUTION, draw, _cell("v = np.random.rand()\nassert double(v) < 2", "graded:t"))
    seeded = _notebook(SOLUTION, draw, _cell("np.random.seed(0)\nassert double(np.random.rand()) < 2",
                                             "graded:t"))
    assert _kept(unseeded) == [draw.source]
    assert _kept(seeded) == []


def test_torch_layers_draw_from_torch_generator_but_a_generator_of_its_own_does_not() -> None:
    layer = _cell("layer = torch.nn.Linear(2, 2)")
    nb = _notebook(SOLUTION, _cell("import torch"), layer, _cell("assert torch.rand(1) < 1", "graded:t"))
    seeded = "g = torch.Generator().manual_seed(0)\nassert torch.rand(1, generator=g) < 1"
    own = _notebook(SOLUTION, _cell("import torch"), layer, _cell(seeded, "graded:t"))
    assert _kept(nb) == ["import torch", layer.source]
    assert _kept(own) == ["import torch"]


def test_a_loop_variable_read_inside_a_lambda_is_the_loop_s() -> None:
    graded = "for k in [1, 2]:\n    f = lambda: double(k) + OFFSET\n    assert f() == 2 * k + 1"
    nb = _notebook(SOLUTION, _cell("k = 5"), _cell("OFFSET = 1"), _cell(graded, "graded:t"))
    assert _kept(nb) == ["OFFSET = 1"]
    assert _scores(cut(nb).notebook) == _scores(nb) == {"t": True}


@pytest.mark.parametrize("source", ["%load_ext autoreload", "exec('y = 1')", "from os.path import *",
                                    "np.set_printoptions(precision=3)", "import grader.lessons.plots",
                                    "open('out.txt', 'w').write('x')"])
def test_what_the_analysis_cannot_see_through_is_kept_before_a_kept_cell(source: str) -> None:
    nb = _notebook(SOLUTION, _cell(source), _cell("assert double(1) == 2", "graded:t"), _cell(source))
    assert _kept(nb) == [source]


def test_a_kept_cell_reaching_globals_keeps_everything_before_it() -> None:
    dynamic = _cell("def double(v):\n    return 2 * globals()['v0']", "solution:double")
    nb = _notebook(_cell("v0 = 1"), _cell("other = 2"), dynamic, _cell("after = 3"),
                   _cell("assert double(0) == 2", "graded:t"), _cell("later = 4"))
    assert _kept(nb) == ["v0 = 1", "other = 2", "after = 3"]


def test_what_a_case_reads_counts_as_the_solution_reads() -> None:
    nb = _notebook(_cell("OFFSET = 1"), SOLUTION, _cell("assert double(1) == 2", "graded:t"))
    mistake = "def double(v):\n    return 2 * v + OFFSET"
    assert _kept(nb) == []
    assert _kept(nb, extra={"double": [mistake]}) == ["OFFSET = 1"]


def test_reading_is_not_changing() -> None:
    """Printing, reading attributes and passing constants or functions keep nothing."""
    demo = ("print(X.shape, X[0])\nTOL = 1e-6\ncheck(double, TOL)\n"
            "for x in [1, 2]:\n    print(double(x), len(X))\nwith np.errstate(all='ignore'):\n    y = X * 2")
    nb = _notebook(SOLUTION, _cell("X = np.ones(3)\ndef check(f, tol):\n    return tol"), _cell(demo),
                   _cell("assert (double(X) == 2).all() and check(double, 0) == 0", "graded:t"))
    assert _kept(nb) == ["X = np.ones(3)\ndef check(f, tol):\n    return tol"]


def test_suspects_name_the_dropped_cells_a_failing_cell_reads() -> None:
    nb = _notebook(SOLUTION, _cell("def helper():\n    return 2"), _cell("print(LIMIT)"), _cell("plot = 1"),
                   _cell("assert double(LIMIT) == helper() + 2", "graded:test_limit"))
    result = cut(nb)
    result.dropped.append(2)  # as if the cut had dropped the helper
    message = suspects(nb, result, "test_limit")
    assert "cell 3 (mentions LIMIT)" in message and "cell 2 (binds helper)" in message


@pytest.mark.parametrize("name", assignments())
def test_every_lesson_cut_keeps_its_nbgrader_cells_and_drops_demonstrations(name: str) -> None:
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    result = cut(nb, extra=case_sources(name))
    def graded(notebook) -> list:
        return [c for c in notebook.cells if any(c.metadata.get("nbgrader", {}).get(k) for k in
                                                 ("solution", "grade", "task"))]

    assert graded(result.notebook) == graded(nb) and graded_cells(result.notebook) == graded_cells(nb)
    setup = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    assert setup in result.notebook.cells
    code = sum(c.cell_type == "code" for c in nb.cells)
    assert sum(c.cell_type == "code" for c in result.notebook.cells) < code, f"{name}: nothing dropped"
