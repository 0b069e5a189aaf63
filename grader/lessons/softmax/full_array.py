"""`check_full_array` (lesson 05): a step's gradient must be a full array of its own.

`np.broadcast_to(dout, e.shape)` has the right shape and values, but it is a read-only view of
`dout` with stride 0 along the copied axis: a later `de += ...` on it (adding the gradients of
two paths in place) raises "output array is read-only". The brief of sum_backward asks for a full
array; this check refuses a read-only one with a message naming the view.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import CheckFailed
from ...i18n import lesson_text as _
from ...referees import referee_all

__all__ = ["check_full_array"]


def check_full_array(value: Any, what: str) -> Any:
    """value itself, unless it is a read-only NumPy array (a broadcast view): then CheckFailed
    naming `what`. Other problems (None, a wrong shape) are left to the checks that follow."""
    __tracebackhide__ = True
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        raise CheckFailed(_(
            "{what} is a read-only view (such as np.broadcast_to returns), not a full array of its "
            "own: a later += on it would fail. Return a full array of shape {shape}, for example a "
            "copy of the view."
        ).format(what=what, shape=tuple(value.shape)))
    return value


# Everything above is a referee: refused inside a graded call.
referee_all(globals())
