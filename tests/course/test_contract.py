"""The graded-cell contract (tests/graded_cells.py), statically, on every lesson: a setup, locked,
solution or graded cell never reads a name whose value a demonstration cell bound."""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from tests.graded_cells import contract_cut, leaks, reads
from tests.nbgrader_harness import REPO


@pytest.mark.parametrize("name", assignments())
def test_graded_cells_read_no_demonstration(name: str) -> None:
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    found = leaks(nb)
    assert not found, (f"{name}: lock the demonstration cells these read (nbgrader metadata "
                       "locked: true), or bind the names in the graded cell:\n"
                       + "\n".join(f"  {leak}" for leak in found))


def _nb(*cells):
    """A notebook of (source, nbgrader metadata or None) code cells."""
    nb = nbformat.v4.new_notebook()
    for source, meta in cells:
        cell = nbformat.v4.new_code_cell(source)
        if meta is not None:
            cell.metadata["nbgrader"] = {"schema_version": 3, "grade": False, "solution": False,
                                         "locked": False, **meta}
        nb.cells.append(cell)
    return nb


SETUP = {"grade_id": "setup", "locked": True}
GRADED = {"grade_id": "test_f", "grade": True, "locked": True, "points": 1}
SOLUTION = {"grade_id": "f", "solution": True}


def test_a_demo_variable_read_by_a_graded_cell_is_a_leak() -> None:
    nb = _nb(("import numpy as np", SETUP), ("x = np.ones(3)", None),
             ("def f(v):\n    return v", SOLUTION), ("assert f(x).sum() == 3", GRADED))
    assert [(leak.grade_id, leak.name, leak.bound_by) for leak in leaks(nb)] == [("test_f", "x", 1)]


def test_a_demo_rebinding_a_setup_name_is_a_leak() -> None:
    nb = _nb(("x = 1", SETUP), ("x = 2", None), ("assert x == 1", GRADED))
    assert [leak.name for leak in leaks(nb)] == ["x"]


def test_a_solution_body_reading_a_demo_global_is_a_leak() -> None:
    nb = _nb(("scale = 2", None), ("def f(v):\n    return scale * v", SOLUTION), ("f(1)", GRADED))
    assert [(leak.grade_id, leak.name) for leak in leaks(nb)] == [("f", "scale"), ("test_f", "scale")]


def test_a_solution_calling_a_global_a_demo_rebinds_is_a_leak_where_it_is_called() -> None:
    nb = _nb(("W = 1", SETUP), ("def predict(v):\n    return W * v", SOLUTION), ("W = 0", None),
             ("assert predict(2) == 2", GRADED))
    assert [(leak.grade_id, leak.name) for leak in leaks(nb)] == [("test_f", "W")]


def test_a_builtin_a_demo_rebinds_is_a_leak() -> None:
    nb = _nb(("import numpy as np", SETUP), ("max = 0", None), ("assert max(1, 2) == 2", GRADED))
    assert [leak.name for leak in leaks(nb)] == ["max"]
    assert leaks(_nb(("import numpy as np", SETUP), ("assert max(1, 2) == 2", GRADED))) == []


def test_names_bound_in_the_cell_or_by_locked_cells_are_not_leaks() -> None:
    nb = _nb(("x = 1", None), ("x = 5", {"grade_id": "data", "locked": True}),
             ("for name in ['a']:\n    print(name)\nx2 = x\n[x2 for _ in range(2)]", GRADED),
             ("y = 3\nassert y == 3", GRADED | {"grade_id": "test_g"}))
    assert leaks(nb) == []


def test_reads_follow_statement_order_and_nested_scopes() -> None:
    assert reads("y = x + 1\nx = 2") == {"x"}
    assert reads("x = 2\ny = x + 1") == set()
    assert reads("def g():\n    return h()\n") == {"h"}
    assert reads("[v * k for v in items]") == {"items", "k"}
    assert reads("%matplotlib inline\nz += 1") == {"z"}


def test_the_cut_keeps_the_contract_cells_in_order() -> None:
    nb = _nb(("import numpy as np", SETUP), ("plot()", None), ("def f(v):\n    return v", SOLUTION),
             ("assert f(1) == 1", GRADED))
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("text"))
    assert [c.source for c in contract_cut(nb).cells] == [
        "import numpy as np", "def f(v):\n    return v", "assert f(1) == 1"]
