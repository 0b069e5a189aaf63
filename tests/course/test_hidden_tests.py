"""Static checks of every graded cell of every lesson (fast: no kernel).

The dynamic proof that hidden tests convert before they compare is tests/grading/test_liars.py; these
checks keep the conventions it relies on (docs/authoring.md, "Hidden tests: convert first"):

- every graded cell makes at least one call into the toolkit, directly or through a helper that
  the lesson's locked cells define, so `verify_environment` runs in every graded cell;
- the setup cell imports the toolkit names the graded cells use;
- hidden tests keep their secret inputs and call a kit: no function defined at the top level of two
  graded cells of a lesson, no hidden-test region longer than HIDDEN_LINES lines of code.
"""

from __future__ import annotations

import ast
import importlib
from collections import defaultdict
from pathlib import Path

import nbformat
import pytest

import grader
from grader.instructor.build import assignments
from grader.instructor.grading.cell_names import python_source
from grader.lessons import all_modules

REPO = Path(__file__).resolve().parents[2]
# The toolkit's checks, and the lessons' own checkers built on them (every check_* a lesson module
# exports).
EXPORTED = [name for module in all_modules()
            for name in vars(importlib.import_module(module)).get("__all__", ())]
LESSON_CHECKS = {name for name in EXPORTED if name.startswith("check_")}
#: The most lines of code (comments and blank lines aside) one hidden-test region may hold: more is
#: logic that belongs in the lesson's kit (grader/lessons/<topic>/), where it is linted and tested.
HIDDEN_LINES = 60
TOOLKIT = {*LESSON_CHECKS} | set(grader.__all__) - {
    "BadReturnValue", "CheckFailed", "CheckResult", "Hint", "HINT_CODES", "ToolkitInputError", "show_hint"}


def _parse(source: str) -> ast.Module:
    return ast.parse(python_source(source))  # as IPython runs it: magics become calls


def _called(tree: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _trusted_helpers(cells) -> set[str]:
    """Toolkit functions, plus functions of locked cells that (transitively) call one."""
    helpers = {}
    for cell in cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("locked") and not meta.get("grade"):
            for node in _parse(cell.source).body:
                if isinstance(node, ast.FunctionDef):
                    helpers[node.name] = _called(node)
    trusted = set(TOOLKIT)
    while True:
        more = {name for name, calls in helpers.items() if calls & trusted} - trusted
        if not more:
            return trusted
        trusted |= more


@pytest.mark.parametrize("name", assignments())
def test_every_graded_cell_calls_the_toolkit(name: str) -> None:
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    trusted = _trusted_helpers(nb.cells)
    silent = [
        cell.metadata["nbgrader"]["grade_id"]
        for cell in nb.cells
        if cell.metadata.get("nbgrader", {}).get("grade") and not (_called(_parse(cell.source)) & trusted)
    ]
    assert not silent, f"{name}: graded cells that never call the toolkit: {silent}"


@pytest.mark.parametrize("name", assignments())
def test_the_setup_cell_imports_what_the_tests_use(name: str) -> None:
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    imported = set()
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("locked"):
            for node in ast.walk(_parse(cell.source)):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("grader"):
                    imported |= {a.asname or a.name for a in node.names}
    used = set()
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            used |= _called(_parse(cell.source)) & TOOLKIT
    assert used <= imported, f"{name}: graded cells call {sorted(used - imported)} without importing them"


def _graded_cells(name: str) -> list:
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    return [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
            and not c.metadata["nbgrader"].get("solution")]


@pytest.mark.parametrize("name", assignments())
def test_hidden_tests_call_a_kit_instead_of_repeating_its_logic(name: str) -> None:
    defined: dict[str, list[str]] = defaultdict(list)
    for cell in _graded_cells(name):
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        for node in _parse(cell.source).body:
            if isinstance(node, ast.FunctionDef):
                defined[node.name].append(grade_id)
        if "### BEGIN HIDDEN TESTS" in cell.source:
            hidden = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            code = [line for line in hidden.splitlines() if line.strip() and not line.strip().startswith("#")]
            assert len(code) <= HIDDEN_LINES, (
                f"{name}, {grade_id}: {len(code)} lines of hidden tests; move their logic to the lesson's kit"
            )
    twice = {fn: cells for fn, cells in defined.items() if len(cells) > 1}
    assert not twice, f"{name}: functions defined in several graded cells {twice}; put them in the kit"
