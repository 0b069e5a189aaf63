"""Each exercise declared once (grader.exercise): every lesson's setup cell declares its exercises in
`graded = Exercises(globals(), Exercise("name", ...), ...)`, every function or class a solution cell
defines and a check uses is declared, and no locked or graded cell calls a declared exercise except
through `graded.<name>` (or inside `with graded.running(...)`), so that a rule the brief states is
enforced wherever a grade is given."""

from __future__ import annotations

import ast

import nbformat
import pytest
from nbgrader.utils import is_grade, is_locked, is_solution

from grader.instructor.build import assignments
from grader.instructor.grading.cell_names import parse
from tests.nbgrader_harness import REPO


def _parse(source: str) -> ast.Module:
    tree = parse(source)          # a cell as IPython runs it (magics commented out)
    assert tree is not None, f"a cell does not parse:\n{source[:200]}"
    return tree


def _declared(setup_source: str) -> list[str]:
    """The names of `Exercise("name", ...)` in the `graded = Exercises(...)` of a setup cell."""
    tree = _parse(setup_source)
    for node in ast.walk(tree):
        named_graded = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "graded" for t in node.targets)
        call = node.value if named_graded else None
        if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Exercises":
            return [arg.args[0].value for arg in node.value.args
                    if isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "Exercise"]
    return []


def _defined(source: str) -> set[str]:
    return {node.name for node in _parse(source).body
            if isinstance(node, ast.FunctionDef | ast.ClassDef)}


def _guarded_lines(tree: ast.AST) -> set[int]:
    """Lines inside a `with graded.running(...)` block."""
    lines = set()
    for node in ast.walk(tree):
        calls = [item.context_expr for item in getattr(node, "items", [])
                 if isinstance(item.context_expr, ast.Call)]
        if isinstance(node, ast.With) and any(
                isinstance(c.func, ast.Attribute) and c.func.attr == "running" for c in calls):
            lines |= set(range(node.lineno, node.end_lineno + 1))
    return lines


def direct_calls(source: str, declared: set[str]) -> list[str]:
    """`name(` calls of declared exercises outside `graded.` and outside `with graded.running(...)`."""
    tree = _parse(source)
    guarded = _guarded_lines(tree)
    return [f"line {node.lineno}: {node.func.id}(...)" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in declared
            and node.lineno not in guarded]


@pytest.mark.parametrize("name", assignments())
def test_every_exercise_is_declared_once_and_called_through_the_declaration(name: str) -> None:
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    setup = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "setup")
    declared = _declared(setup.source)
    assert declared, f"{name}: the setup cell declares no exercise (graded = Exercises(globals(), ...))"
    assert len(declared) == len(set(declared)), f"{name}: an exercise is declared twice: {declared}"
    checks = [c for c in nb.cells
              if c.cell_type == "code" and (is_grade(c) or is_locked(c)) and c is not setup]
    used = set()          # names the checks use outside `with graded.running(...)`
    for c in checks:
        tree = _parse(c.source)
        guarded = _guarded_lines(tree)
        own = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        used |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.lineno not in guarded} - own
    answers = {d for c in nb.cells if c.cell_type == "code" and is_solution(c) for d in _defined(c.source)}
    undeclared = sorted((answers & used) - set(declared))
    assert not undeclared, (f"{name}: checks use these answers, which the setup cell does not "
                            f"declare: {undeclared}")
    # the graded cells, and the locked cells that define what they use (a demo's locked helper, which
    # no graded cell uses, may call the student's functions as it likes)
    graded_names = {n.id for c in checks if is_grade(c) for n in ast.walk(_parse(c.source))
                    if isinstance(n, ast.Name)}
    helpers = [c for c in checks if is_grade(c) or _defined(c.source) & graded_names]
    # a class's constructor may be called outside the rules (building the objects a check then runs
    # its methods on, inside `with graded.running(...)`); a function may not
    classes = {n.name for c in nb.cells if c.cell_type == "code" and is_solution(c)
               for n in _parse(c.source).body if isinstance(n, ast.ClassDef)}
    direct = {c.metadata["nbgrader"]["grade_id"]: found for c in helpers
              if (found := direct_calls(c.source, set(declared) - classes))}
    assert not direct, f"{name}: call these through graded.<name> (the declaration's rules): {direct}"


def test_a_direct_call_is_found_and_a_graded_one_is_not() -> None:
    source = ("out = graded.f(x)\nwith graded.running('F'):\n    F().loss(x)\n    f(x)\ny = f(x)\n")
    assert direct_calls(source, {"f", "F"}) == ["line 5: f(...)"]
    setup = 'graded = Exercises(globals(), Exercise("f"), Exercise("F", uses="torch"))'
    assert _declared(setup) == ["f", "F"]
