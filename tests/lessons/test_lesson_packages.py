"""grader/lessons/ has one package per lesson (the course folder's name without its number) and a
few modules several lessons share; a lesson imports its own package and the shared modules only;
every function and class a lesson module defines is a referee; and the mistakes a lesson's checker
names are declared once, beside the checker that detects them (`HINT_CODES`)."""

from __future__ import annotations

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
    if module == "grader.lessons":
        return  # hint_codes and all_modules: for the instructor's tools
    namespace = vars(importlib.import_module(module))
    own = [obj for obj in namespace.values()
           if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module]
    missing = [obj.__name__ for obj in own if any(referee_name(code) is None for code in codes_of(obj))]
    assert not missing, f"{module}: not referees {missing}; end the module with referee_all(globals())"


def test_a_named_mistake_is_declared_beside_its_detector() -> None:
    codes = hint_codes()
    assert codes and not set(codes) & set(HINT_CODES)
    for module in all_modules():
        declared = getattr(importlib.import_module(module), "HINT_CODES", {})
        source = Path(inspect.getfile(importlib.import_module(module))).read_text(encoding="utf-8")
        for code in declared:
            uses = source.count(f'"{code}"') + (source.count("HINT_CODE,") if "HINT_CODE =" in source else 0)
            assert uses >= 2, f"{module} declares {code} but never prints it"
