"""Static checks of every graded cell of every lesson (fast: no kernel).

The dynamic proof that hidden tests convert before they compare is tests/grading/test_liars.py; these
checks keep the conventions it relies on (docs/authoring.md, "Hidden tests: convert first"):

- every graded cell makes at least one call into the toolkit, directly or through a helper that
  the lesson's locked cells define, so `verify_environment` runs in every graded cell;
- the setup cell imports the toolkit names the graded cells use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

import grader
from grader.instructor.build import assignments
from grader.instructor.grading.cell_names import python_source
from grader.lessons import attention_checks

REPO = Path(__file__).resolve().parents[2]
# The toolkit's checks, and the lessons' own checkers built on them.
LESSON_CHECKS = {name for name in attention_checks.__all__ if name.startswith("check_")}
TOOLKIT = {"check_dropout", "check_init_variance", *LESSON_CHECKS} | set(grader.__all__) - {
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
