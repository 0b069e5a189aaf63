"""Helpers of individual lessons: one package per lesson, named as its folder without the number
(`course/07_gradient_flow` -> `grader.lessons.gradient_flow`), holding its references, checks,
experiments and views; beside them, the few modules several lessons share (datasets, the widget
bases, student_calls). A lesson imports its own package (`from grader.lessons.gradient_flow import
...`); the toolkit (`grader`: checks, numerical gradients, hints, the trusted path) never imports
from here.

Every function here is a referee (`referee_all` at the end of each module): refused inside a graded
call, so that nothing a lesson ships answers an exercise.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["all_modules", "hint_codes"]


def all_modules() -> list[str]:
    """The dotted names of every module under grader.lessons, packages included."""
    return sorted(info.name for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."))


def hint_codes() -> dict[str, str]:
    """Every hint code a lesson's own checker prints, and what it means: the `HINT_CODES` dicts of
    the lesson modules (imports them all: for the instructor's report and the tests)."""
    found: dict[str, str] = {}
    for name in all_modules():
        codes = getattr(importlib.import_module(name), "HINT_CODES", {})
        twice = set(codes) & set(found)
        if twice:
            raise ValueError(f"{name} declares hint codes another lesson module declares: {sorted(twice)}")
        found.update(codes)
    return found
