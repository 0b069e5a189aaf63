"""Exceptions raised by the toolkit.

- `CheckFailed` (an `AssertionError`): a student's value is wrong. Raised by the `check_*`
  functions after they printed one line per quantity.
- `ToolkitInputError` (a `ValueError`): a toolkit function was called with something it
  cannot use (wrong shapes, integer or float32 arrays, a function that returns None). The
  message says what was expected and what was received.
- `BadReturnValue`: both at once, for a student's function whose return value cannot even be
  checked (`backward` returned None, or 2 arrays where 3 were expected). `except CheckFailed`
  and `except ToolkitInputError` both catch it.
"""

from __future__ import annotations

from typing import Any


class ToolkitInputError(ValueError):
    """A toolkit function got an argument it cannot use; the message says what and why."""


class CheckFailed(AssertionError):
    """A check found a wrong value.

    `results` holds the `CheckResult` of every quantity the failed call checked (empty when
    the check stopped before comparing anything).
    """

    def __init__(self, message: str = "", results: list[Any] | None = None) -> None:
        super().__init__(message)
        self.results: list[Any] = list(results or [])


class BadReturnValue(CheckFailed, ToolkitInputError):
    """A student's function returned something that cannot be checked (None, too few arrays)."""
