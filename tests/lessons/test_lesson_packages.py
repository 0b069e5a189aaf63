"""grader/lessons/ has one package per lesson (the course folder's name without its number) and a
few modules several lessons share; a lesson imports its own package and the shared modules only;
every function and class a lesson module defines is a referee; and the mistakes a lesson's checker
names are declared once, beside the checker that detects them (`HINT_CODES`)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from grader.hints import HINT_CODES
from grader.instructor.build import REPO, assignments, lesson_modules
from grader.lessons import all_modules, hint_codes
from grader.referees import codes_of, referee_name

LESSONS = REPO / "grader" / "lessons"
#: The modules several lessons share (top level of grader/lessons/, not a lesson's package).
SHARED = {p.stem for p in LESSONS.glob("*.py") if p.stem != "__init__"}


def _topic(lesson: str) -> str:
    return lesson.split("_", 1)[1]


def test_every_package_belongs_to_a_lesson() -> None:
    packages = {p.name for p in LESSONS.iterdir() if (p / "__init__.py").is_file()}
    topics = {_topic(name) for name in assignments()}
    assert packages <= topics, f"packages that are no lesson's: {sorted(packages - topics)}"


@pytest.mark.parametrize("lesson", assignments())
def test_a_lesson_imports_its_own_package_and_the_shared_modules_only(lesson: str) -> None:
    topic = _topic(lesson)
    others = [m for m in lesson_modules(lesson)
              if m.split(".")[0] != topic and m not in SHARED]
    assert not others, (f"{lesson} imports another lesson's helpers {others}: move what both use to a "
                        "shared module of grader/lessons/")


@pytest.mark.parametrize("module", all_modules())
def test_everything_a_lesson_module_defines_is_a_referee(module: str) -> None:
    namespace = vars(importlib.import_module(module))
    own = [obj for obj in namespace.values()
           if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module]
    missing = [obj.__name__ for obj in own if any(referee_name(code) is None for code in codes_of(obj))]
    assert not missing, f"{module}: not referees {missing}; end the module with referee_all(globals())"


def _strings_used(tree: ast.Module, constants: dict[str, str]) -> set[str]:
    """The strings a module's code uses outside its HINT_CODES table and its docstrings: literals,
    and the module's string constants read by name (`HINT_CODE`)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if isinstance(node, ast.Assign | ast.AnnAssign) and getattr(target, "id", "") == "HINT_CODES":
            skipped |= {id(part) for part in ast.walk(node)}
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):   # a docstring
            skipped.add(id(node.value))
    literals = {node.value for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped}
    named = {constants[node.id] for node in ast.walk(tree)
             if isinstance(node, ast.Name) and node.id in constants and id(node) not in skipped}
    return literals | named


#: Module tables of functions that are not referees on purpose: the operations of lesson 03's random
#: expressions, which the student's graded engine runs.
NOT_REFEREES = {("grader.lessons.autograd.programs", "UNARY"), ("grader.lessons.autograd.programs", "BINARY")}


def _functions_in(value: object, depth: int = 2) -> list:
    if inspect.isfunction(value):
        return [value]
    if depth and isinstance(value, dict):
        value = list(value.values())
    if depth and isinstance(value, list | tuple):
        return [fn for item in value for fn in _functions_in(item, depth - 1)]
    return []


@pytest.mark.parametrize("module", all_modules())
def test_the_functions_in_a_lesson_modules_tables_are_referees_too(module: str) -> None:
    for name, value in vars(importlib.import_module(module)).items():
        if (module, name) in NOT_REFEREES or inspect.isfunction(value):
            continue
        loose = [fn.__qualname__ for fn in _functions_in(value) if fn.__module__ == module
                 and referee_name(fn.__code__) is None]
        assert not loose, f"{module}.{name} holds functions that are not referees: {loose}"


def test_a_named_mistake_is_declared_beside_its_detector() -> None:
    """Every code a lesson module declares is printed by that module's own code."""
    codes = hint_codes()
    assert codes and not set(codes) & set(HINT_CODES)
    for module in all_modules():
        loaded = importlib.import_module(module)
        declared = getattr(loaded, "HINT_CODES", {})
        if declared:
            tree = ast.parse(Path(inspect.getfile(loaded)).read_text(encoding="utf-8"))
            constants = {name: value for name, value in vars(loaded).items() if isinstance(value, str)}
            never = sorted(set(declared) - _strings_used(tree, constants))
            assert not never, f"{module} declares {never} but never prints them"
