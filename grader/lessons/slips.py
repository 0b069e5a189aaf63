"""Which named slip a wrong answer is: shared by the lesson checkers that name their mistakes.

A checker computes, for the inputs it gave, what each classic slip would return ([(key, value)],
a key being a hint code, optionally followed by ":detail"), and asks which one the student's
answer equals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..numgrad import rel_error
from ..referees import referee_all
from ..trusted import plain_ndarray

__all__ = ["matching_slip"]


def matching_slip(actual: Any, slips: Sequence[tuple[str, Any]]) -> str | None:
    """The key of the first slip (key, the value that slip gives) that `actual` equals: finite numbers
    of the same shape, relative error below 1e-8. None when it equals none (or is not numbers)."""
    arr = plain_ndarray(actual)
    if arr is None or arr.dtype.kind not in "biuf":
        return None
    mine = np.array(arr, dtype=np.float64)
    if not np.all(np.isfinite(mine)):
        return None
    for key, wrong in slips:
        wrong = np.asarray(wrong, dtype=np.float64)
        if wrong.shape == mine.shape and np.all(np.isfinite(wrong)) and rel_error(mine, wrong) < 1e-8:
            return key
    return None


referee_all(globals())
