"""Tests of the lesson helpers (grader/lessons/).

A test module that shows a lesson checker's named mistakes exports them as `POSITIVE`: a list of
(hint code, a function that fails with that code's hint). `lesson_positives()` gathers them for
the tests that need one example per code (tests/toolkit/hints/test_engine.py: every code is
tested; tests/lessons/test_lesson_messages_pt.py: every code speaks Portuguese).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path


def lesson_positives() -> list[tuple[str, Callable[[], object]]]:
    """(code, failing example) from the POSITIVE list of every tests/lessons/test_*.py."""
    found = []
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        module = importlib.import_module(f"tests.lessons.{path.stem}")
        found += [(code, example) for code, example in getattr(module, "POSITIVE", [])]
    return found
