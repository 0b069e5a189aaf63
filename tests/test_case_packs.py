"""tests/case_packs.py packs grading cases only where they cannot reach each other's cells."""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from tests.case_packs import Case, dependencies, pack
from tests.nbgrader_harness import REPO, load_cases


def _cell(source: str, **meta) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    base = {"schema_version": 3, "locked": False, "solution": False, "grade": False}
    cell.metadata["nbgrader"] = {**base, **meta}
    return cell


def _notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _cell("import numpy as np\ndef helper(v):\n    return g(v)\nx = 3", locked=True, grade_id="setup"),
        _cell("def f(v):\n    return v", solution=True, grade_id="f"),
        _cell("def g(v):\n    return 2 * v", solution=True, grade_id="g"),
        _cell("def h(v):\n    return f(v) + 1", solution=True, grade_id="h"),
        _cell("assert f(x) == 3", grade=True, locked=True, points=1, grade_id="test_f"),
        _cell("assert helper(1) == 2", grade=True, locked=True, points=1, grade_id="test_g"),
        _cell("assert h(1) == 2", grade=True, locked=True, points=1, grade_id="test_h"),
    ]
    return nb


def test_reach_follows_helpers_and_solution_calls() -> None:
    reach = dependencies(_notebook(), [])
    assert reach == {"test_f": {"f"}, "test_g": {"g"}, "test_h": {"h", "f"}}


def test_cases_that_could_meet_are_never_packed_together() -> None:
    nb = _notebook()
    cases = [
        Case("mistake", "f wrong", {"f": "def f(v):\n    return 0"}, frozenset({"test_f", "test_h"})),
        Case("mistake", "g wrong", {"g": "def g(v):\n    return 0"}, frozenset({"test_g"})),
        Case("mistake", "h wrong", {"h": "def h(v):\n    return 0"}, frozenset({"test_h"})),
        Case("mistake", "claims a cell it cannot reach", {"g": "def g(v):\n    return 1"},
             frozenset({"test_f"})),
    ]
    packs = pack(nb, cases)
    labels = [[c.label for c in p.cases] for p in packs]
    # f reaches test_h too, so "h wrong" cannot join it; g is independent of both
    assert labels == [["f wrong", "g wrong"], ["h wrong"], ["claims a cell it cannot reach"]]
    assert packs[0].must_fail == {"test_f", "test_g", "test_h"}
    assert packs[2].alone


@pytest.mark.parametrize("name", assignments())
def test_every_case_is_graded_once_and_packs_never_share_a_cell(name: str) -> None:
    alternatives, mistakes = load_cases(name)
    cases = [Case("alternative", f"alternative {g}", {g: s}, frozenset()) for g, s in alternatives.items()]
    cases += [Case("mistake", m["name"], m["cells"], frozenset(m["must_fail"])) for m in mistakes]
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    reach = dependencies(nb, cases)
    packs = pack(nb, cases)
    assert sorted(c.label for p in packs for c in p.cases) == sorted(c.label for c in cases)
    for p in packs:
        seen_cells: set[str] = set()
        seen_tests: set[str] = set()
        for case in p.cases:
            affected = {t for t, cells in reach.items() if cells & set(case.cells)}
            assert not seen_cells & set(case.cells) and not seen_tests & affected, p.label
            assert case.must_fail <= affected | (case.must_fail if p.alone else set()), case.label
            seen_cells |= set(case.cells)
            seen_tests |= affected
