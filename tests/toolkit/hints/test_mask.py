"""grader.hints.mask: masks and elementwise slopes."""

from __future__ import annotations

import numpy as np
import pytest

from grader import diagnose
from tests.toolkit.hints.fixtures import (
    DOUT,
    DX,
    RELU_DX,
    RELU_LAYER,
    RELU_MASK,
    RELU_SLOPE,
    RELU_X,
    RNG,
    SIG,
    SIG_LAYER,
    SIG_SLOPE,
    TANH_LAYER,
    TANH_SLOPE,
    TX,
    D,
    N,
    X,
    codes_of,
    fires,
)

#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "mask",
        DOUT[:, :D] * 1.0,
        DOUT[:, :D] * RELU_MASK,
        {"mask": RELU_MASK},
        [
            r"right where the mask is True",
            r"wrong at \d+ of the \d+ entries where it is False",
            r"apply the mask",
        ],
    ),
    (
        "mask",
        X * RELU_MASK,
        DOUT[:, :D] * RELU_MASK,
        {"mask": RELU_MASK},
        [r"right where the mask is False", r"wrong only where the mask applies"],
    ),
    (
        "mask",
        np.where(RELU_MASK, DX, 0.1 * DX),
        np.where(RELU_MASK, DX, 0.01 * DX),
        {"mask": RELU_MASK},
        [r"there it is 10 times", r"slope"],
    ),
    (
        "mask",
        DOUT[:, :D] * 1.0,
        DOUT[:, :D] * RELU_MASK,
        {},
        [r"right wherever the expected one is non-zero", r"not blocked"],
    ),
    (
        "mask",
        X * RELU_MASK,
        DOUT[:, :D] * RELU_MASK,
        {},
        [r"0 exactly where the expected one is", r"dout, not x"],
    ),
    (
        "slope-from-input",
        DOUT[:, :D] * (1 - X**2),
        DOUT[:, :D] * (1 - np.tanh(X) ** 2),
        {"upstream": DOUT[:, :D], "layer_input": X, "layer_output": np.tanh(X)},
        [r"tanh slope from the layer's input, 1 − x²", r"1 − out²"],
    ),
    (
        "slope-from-input",
        DOUT[:, :D] * X * (1 - X),
        DOUT[:, :D] * SIG * (1 - SIG),
        {"upstream": DOUT[:, :D], "layer_input": X, "layer_output": SIG},
        [r"sigmoid slope", r"out·\(1 − out\)"],
    ),
    (
        "mask-from-dout",
        DOUT * (DOUT > 0),
        RELU_DX,
        {"upstream": DOUT},
        [r"0 wherever dout is negative", r"your mask comes from dout", r"x > 0"],
    ),
    ("mask-from-dout", np.maximum(DOUT, 0), RELU_DX, {"mask": RELU_X > 0}, [r"mask comes from dout"]),
    (
        "forgot-dout",
        TANH_SLOPE,
        DOUT * TANH_SLOPE,
        TANH_LAYER,
        [r"tanh's local slope, 1 − out², alone", r"dout is missing", r"dx = dout \* \(1 - out\*\*2\)"],
    ),
    ("forgot-dout", SIG_SLOPE, DOUT * SIG_SLOPE, SIG_LAYER, [r"sigmoid's local slope", r"dout \* out"]),
    ("forgot-dout", RELU_SLOPE, DOUT * RELU_SLOPE, {"mask": TX > 0}, [r"ReLU's local slope, the mask"]),
    (
        "inverted-mask",
        DOUT * (TX <= 0),
        DOUT * (TX > 0),
        RELU_LAYER,
        [r"0 exactly where the expected one lets dout through", r"mask is inverted", r"x > 0"],
    ),
    ("inverted-mask", DOUT * (TX <= 0), DOUT * (TX > 0), {}, [r"mask is inverted"]),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_mask_rule_needs_one_side_fully_right():
    actual = np.where(RELU_MASK, DX + 1, DX - 1)
    assert codes_of(diagnose(actual, DX, mask=RELU_MASK)) != "mask"


def test_mask_all_true_is_ignored():
    assert codes_of(diagnose(DX**2, DX, mask=np.ones_like(RELU_MASK))) is None


def test_slope_from_input_needs_the_layer_to_match_a_known_slope():
    up = DOUT[:, :D]
    layer = {"upstream": up, "layer_input": X, "layer_output": X**3}  # not tanh, not sigmoid
    assert codes_of(diagnose(up * (1 - X**2), up * 3 * X**2, **layer)) != "slope-from-input"
    tanh = {"upstream": up, "layer_input": X, "layer_output": np.tanh(X)}
    expected = up * (1 - np.tanh(X) ** 2)
    assert diagnose(expected.copy(), expected, **tanh) is None
    assert codes_of(diagnose(RNG.standard_normal((N, D)), expected, **tanh)) is None
    assert codes_of(diagnose(up * (1 - X**2), expected)) != "slope-from-input"  # no context


def test_mask_from_dout_precision():
    up = DOUT
    assert diagnose(RELU_DX.copy(), RELU_DX, upstream=up) is None
    leaky = np.where(RELU_X > 0, up, 0.1 * up)
    assert codes_of(diagnose(np.maximum(up, 0), leaky, upstream=up)) != "mask-from-dout"
    assert codes_of(diagnose(np.maximum(up, 0), RELU_DX)) != "mask-from-dout"  # no context
    mask = RELU_X > 0
    assert codes_of(diagnose(up.copy(), RELU_DX, mask=mask)) == "mask"  # mask not applied
    assert codes_of(diagnose(np.abs(up) * mask, RELU_DX, mask=mask)) != "mask-from-dout"
    tanh = {"upstream": up, "layer_input": RELU_X, "layer_output": np.tanh(RELU_X)}
    assert codes_of(diagnose(np.maximum(up, 0), up * (1 - np.tanh(RELU_X) ** 2), **tanh)) is None


def test_forgot_dout_needs_a_recognised_layer():
    not_a_layer = {"upstream": DOUT, "layer_input": TX, "layer_output": TX**3}
    assert codes_of(diagnose(TANH_SLOPE, DOUT * TANH_SLOPE, **not_a_layer)) != "forgot-dout"
    assert codes_of(diagnose(TANH_SLOPE, DOUT * TANH_SLOPE)) != "forgot-dout"  # no context
    # the expected one must be dout times that slope when dout is given
    assert codes_of(diagnose(TANH_SLOPE, DOUT * SIG_SLOPE, **TANH_LAYER)) != "forgot-dout"
    # a slope from the input keeps its own hint
    wrong = DOUT * (1 - TX**2)
    assert codes_of(diagnose(wrong, DOUT * TANH_SLOPE, **TANH_LAYER)) == "slope-from-input"


def test_inverted_mask_needs_complementary_zeros():
    right = DOUT * (TX > 0)
    assert codes_of(diagnose(DOUT.copy(), right, **RELU_LAYER)) != "inverted-mask"  # mask not applied
    assert codes_of(diagnose(np.maximum(DOUT, 0), right, upstream=DOUT)) == "mask-from-dout"
    half = DOUT * (TX <= 0)
    half[0] = 0.0  # one blocked row not let through: not the exact pattern
    assert codes_of(diagnose(half, right, **RELU_LAYER)) != "inverted-mask"
    assert codes_of(diagnose(-DOUT * (TX <= 0), right, **RELU_LAYER)) != "inverted-mask"  # not dout there
