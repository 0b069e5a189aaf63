"""grader.lessons.softmax.full_array: a read-only view (np.broadcast_to) is refused by name; a full
array of its own, or something for the later checks to judge (None, a list), passes through."""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed
from grader.lessons.softmax.full_array import check_full_array


def test_a_broadcast_view_is_refused_and_a_full_array_passes() -> None:
    dout = np.arange(3.0).reshape(3, 1)
    with pytest.raises(CheckFailed, match=r"de is a read-only view .*np\.broadcast_to.*shape \(3, 4\)"):
        check_full_array(np.broadcast_to(dout, (3, 4)), "de")
    full = dout * np.ones((3, 4))
    assert check_full_array(full, "de") is full
    assert check_full_array(None, "de") is None
