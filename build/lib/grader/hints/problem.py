"""What a problem module registers, and the checkers every problem's validation shares.

A *problem* is the computation of which a check's `expected` is the right answer (a batchnorm, an
LSTM step, K steps of Adam, ...), passed as `check_close(..., problem={"lstm": {...}})`. Its
module (grader/hints/lstm.py, say) holds everything about it: the frozen dataclass of its checked
arrays, the function that checks the caller's dict (`check(value, shape)`, shape being
expected's, ToolkitInputError on anything else), the rules that recompute it with one mistake
switched on, and their hint codes (`CODES`). It lists its problems in `PROBLEMS`;
grader/hints/__init__.py gathers them once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import describe, float64_array, fmt_shape, require_finite
from ..errors import ToolkitInputError
from ..i18n import _
from .context import Rule

__all__ = ["Problem", "checked_mapping", "expected_shape_in", "finite_array", "int_at_least", "number_in"]


@dataclass(frozen=True)
class Problem:
    """One kind of problem: `name` is its key in `problem={name: {...}}`; `check(value, shape)`
    turns the caller's dict into the checked dataclass the rules read (`context.problem_of`);
    `rules` are asked before the generic value rules (each fires only on the exact recomputation
    of one mistake), and also when actual is within the global tolerance of expected if
    `when_close` (problems whose independent parts have scales far apart: a batchnorm's
    features, an optimiser's steps); `shape_rules` before the generic shape hints, for an actual
    of another shape; `non_finite_rules` before the generic `nan` hint."""

    name: str
    check: Callable[[Any, tuple[int, ...] | None], Any]
    rules: tuple[Rule, ...]
    when_close: bool = False
    shape_rules: tuple[Rule, ...] = ()
    non_finite_rules: tuple[Rule, ...] = ()


def checked_mapping(value: Any, what: str, required: tuple[str, ...], optional: tuple[str, ...]) -> Mapping:
    """value as a mapping with every required key and no unknown one, or ToolkitInputError."""
    __tracebackhide__ = True
    keys = ", ".join(required) + (_(" (and optionally {keys})").format(
        keys=", ".join(optional)) if optional else "")
    if not isinstance(value, Mapping):
        raise ToolkitInputError(_("{what} must be a dict with {keys}, but got {got}.").format(
            what=what, keys=keys, got=describe(value)))
    missing = [k for k in required if k not in value]
    unknown = sorted(str(k) for k in value if k not in required + optional)
    if missing or unknown:
        problem = (
            _("it lacks {keys}").format(keys=", ".join(missing)) if missing
            else _("it has the unknown key(s) {keys}").format(keys=", ".join(unknown))
        )
        raise ToolkitInputError(_("{what} must be a dict with {keys}, but {problem}.").format(
            what=what, keys=keys, problem=problem))
    return value


def finite_array(value: Any, what: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """A finite float64 array (of `shape`, when given), or ToolkitInputError."""
    __tracebackhide__ = True
    arr = float64_array(value, what)
    require_finite(arr, what)
    if shape is not None and arr.shape != tuple(shape):
        raise ToolkitInputError(
            _("{what} must have shape {shape}, but it has shape {got}.").format(
                what=what, shape=fmt_shape(shape), got=fmt_shape(arr.shape))
        )
    return arr


def number_in(value: Any, what: str, low: float, high: float = np.inf) -> float:
    """A real number in [low, high], or ToolkitInputError."""
    __tracebackhide__ = True
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_)
    if not ok or not np.isfinite(float(value)) or not low <= float(value) <= high:
        span = (_("≥ {low}").format(low=f"{low:g}") if high == np.inf
                else _("in [{low}, {high}]").format(low=f"{low:g}", high=f"{high:g}"))
        raise ToolkitInputError(_("{what} must be a number {span}, but got {got}.").format(
            what=what, span=span, got=describe(value)))
    return float(value)


def expected_shape_in(
    shape: tuple[int, ...] | None, allowed: list[tuple[int, ...]], what: str, of: str
) -> None:
    """Raise when expected's shape (None: not known yet) is none of `allowed`."""
    __tracebackhide__ = True
    if shape is not None and tuple(shape) not in allowed:
        shapes = _(" or ").join(fmt_shape(s) for s in allowed)
        raise ToolkitInputError(
            _("with {what}, expected must be {of}, of shape {shapes}, but it has shape {got}.").format(
                what=what, of=of, shapes=shapes, got=fmt_shape(tuple(shape)))
        )


def int_at_least(value: Any, what: str, low: int) -> int:
    """An int ≥ low (NumPy ints accepted, bools refused), or ToolkitInputError."""
    __tracebackhide__ = True
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or value < low:
        raise ToolkitInputError(_("{what} must be an int ≥ {low}, but got {got}.").format(
            what=what, low=low, got=describe(value)))
    return int(value)

