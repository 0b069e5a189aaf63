"""How numbers and positions appear in hint messages (factors, expected/got pairs, indices)."""

from __future__ import annotations

import numpy as np

from .._validate import fmt_index
from ..i18n import _
from .context import FACTOR_RTOL

__all__ = ["at_index", "first_index", "fmt_factor", "fmt_pair"]


def fmt_factor(c: float) -> str:
    """`5`, `1/5`, `-2`, `3.27` or `0.314`: the nicest exact-looking form of c."""
    sign = "-" if c < 0 else ""
    m = abs(c)
    if m >= 1:
        k = round(m)
        return f"{sign}{k}" if abs(m - k) <= FACTOR_RTOL * m else f"{c:.3g}"
    k = round(1 / m)
    return f"{sign}1/{k}" if k > 1 and abs(1 / m - k) <= FACTOR_RTOL * k else f"{c:.3g}"


def fmt_pair(expected: float, got: float) -> str:
    """`2.0001, got 2.0002`: both with the fewest significant digits (3 to 12) that tell them apart."""
    for digits in range(3, 13):
        e, g = f"{float(expected):.{digits}g}", f"{float(got):.{digits}g}"
        if e != g:
            break
    return _("{expected}, got {got}").format(expected=e, got=g)


def first_index(mask: np.ndarray) -> tuple[int, ...]:
    """The index of the first True entry of a boolean array (at least one must be True)."""
    return tuple(int(i) for i in np.argwhere(mask)[0])


def at_index(index: tuple[int, ...]) -> str:
    """' at [1, 2]', or '' for the (only) entry of a 0-d array."""
    return _(" at {index}").format(index=fmt_index(index)) if index else ""
