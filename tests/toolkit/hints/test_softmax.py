"""grader.hints.softmax: the one-hot term of the softmax gradient."""

from __future__ import annotations

import numpy as np
import pytest

from grader import diagnose
from tests.toolkit.hints.fixtures import (
    DX,
    RNG2,
    SM_DX,
    SM_ONEHOT,
    SM_P,
    SM_Y,
    M,
    N,
    codes_of,
    fires,
    softmax_dx_columns,
    softmax_dx_rows,
)

#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "one-hot-index",
        softmax_dx_columns(SM_P, SM_Y),
        SM_DX,
        {"batch_size": N},
        [r"one-hot term \(−1/5\) in the wrong places", r"dx\[:, y\] -= 1", r"np\.arange\(N\), y"],
    ),
    ("one-hot-index", softmax_dx_rows(SM_P, SM_Y), SM_DX, {}, [r"dx\[y\] -= 1", r"whole rows"]),
    ("one-hot-index", (SM_P - 1) / N, SM_DX, {}, [r"subtracted from every entry", r"dx -= 1"]),
    (
        "one-hot-term",
        SM_P / N,
        SM_DX,
        {"batch_size": N},
        [r"except at the label entry of each row", r"\+0\.2 \(1/N with N = 5\)", r"missing"],
    ),
    ("one-hot-term", SM_DX - SM_ONEHOT / N, SM_DX, {}, [r"off by -0\.2", r"too much"]),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_one_hot_rules_need_a_softmax_gradient():
    # the same differences on a non-softmax gradient say nothing specific
    not_softmax = DX.copy()
    labels = np.argmin(not_softmax, axis=1)
    bumped = not_softmax.copy()
    bumped[np.arange(N), labels] += 0.2
    assert codes_of(diagnose(bumped, not_softmax)) not in ("one-hot-term", "one-hot-index")
    # a softmax gradient with unrelated errors
    assert codes_of(diagnose(RNG2.standard_normal(SM_DX.shape), SM_DX)) is None
    off = SM_DX.copy()
    off[np.arange(N), SM_Y] += np.linspace(0.1, 0.5, N)  # different amounts per row
    assert codes_of(diagnose(off, SM_DX)) != "one-hot-term"


def test_one_hot_columns_with_a_single_label_is_correct():
    y = np.full(N, 2)
    expected = (SM_P - np.eye(M)[y]) / N
    assert diagnose(softmax_dx_columns(SM_P, y), expected) is None


def test_one_hot_columns_in_a_loop_counts_repeated_labels():
    dx = SM_P.copy()
    for label in SM_Y:
        dx[:, label] -= 1
    assert codes_of(diagnose(dx / N, SM_DX)) == "one-hot-index"
