"""grader.hints.input: None, not an array, the wrong dtype, NaN or inf."""

from __future__ import annotations

import numpy as np
import pytest

from grader import diagnose
from tests.toolkit.hints.fixtures import DX, RELU_MASK, D, N, X, fires

#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    ("none", None, DX, {}, [r"is None", r"forget `return`"]),
    ("type", (DX, {"x": X}), DX, {}, [r"tuple of 2 items", r"first item has the expected shape"]),
    ("type", "dx", DX, {}, [r"a str"]),
    ("dtype", DX.astype(np.float32), DX, {}, [r"float32", r"float64"]),
    ("dtype", np.zeros((N, D), dtype=int), DX, {}, [r"integer dtype int64"]),
    ("dtype", RELU_MASK, DX, {}, [r"bool"]),
    ("nan", np.where(RELU_MASK, np.nan, DX), DX, {}, [r"NaN", r"subtract the max"]),
    ("nan", np.where(RELU_MASK, np.inf, DX), DX, {}, [r"inf", r"overflow", r"subtract the max"]),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_nan_hint_names_the_general_causes():
    nan = diagnose(np.array([np.nan, 1.0]), np.ones(2)).message
    inf = diagnose(np.array([np.inf, 1.0]), np.ones(2)).message
    for message in (nan, inf):
        assert "exp(−|x|)" in message and "subtract the max" in message and "log(0)" in message
    assert "0·inf" in nan and "overflow" in inf
