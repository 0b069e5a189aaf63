"""Tests for grader.hints: every rule fires on its pattern and never on right or random answers."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from grader import HINT_CODES, Hint, ToolkitInputError, diagnose

RNG = np.random.default_rng(42)
N, D, M = 5, 3, 4
X = RNG.standard_normal((N, D))
W = RNG.standard_normal((D, M))
DOUT = RNG.standard_normal((N, M))
DW = X.T @ DOUT  # (D, M)
DB = DOUT.sum(axis=0)  # (M,)
DX = DOUT @ W.T  # (N, D)
SQUARE = RNG.standard_normal((4, 4))
RELU_MASK = X > 0
SIG = 1 / (1 + np.exp(-X))


def codes_of(hint: Hint | None) -> str | None:
    return None if hint is None else hint.code


# One positive example per code: (code, actual, expected, keyword arguments, words in message)
POSITIVE = [
    ("none", None, DX, {}, [r"is None", r"forget `return`"]),
    ("type", (DX, {"x": X}), DX, {}, [r"tuple of 2 items", r"first item has the expected shape"]),
    ("type", "dx", DX, {}, [r"a str"]),
    ("shape", np.ones((2, 7)), DX, {}, [r"\(2, 7\)", r"\(5, 3\)"]),
    ("shape", np.ones((3, 5)), DX, {}, [r"\(3, 5\)", r"\(5, 3\)", r"transpose"]),
    ("shape", np.ones((1, M)), DB, {}, [r"\(1, 4\)", r"axis of length 1"]),
    ("transpose", DW.T, DW, {}, [r"\(4, 3\)", r"\(3, 4\)", r"transposed"]),
    ("transpose", SQUARE.T, SQUARE, {}, [r"transposed", r"square"]),
    ("reshape", DX.reshape(D, N), DX, {}, [r"reshape", r"\(3, 5\)"]),
    ("not-summed-over-batch", DOUT, DB, {}, [r"\(5, 4\)", r"\(4,\)", r"sum over the batch"]),
    ("not-summed-over-batch", DOUT[-1], DB, {"upstream": DOUT}, [r"row 4 of the upstream", r"`\+=`"]),
    ("not-summed-over-batch", DOUT[1], DB, {"upstream": DOUT}, [r"row 1 of the upstream"]),
    ("summed-over-batch", DOUT.sum(0), DOUT, {}, [r"summed over axis 0"]),
    ("dtype", DX.astype(np.float32), DX, {}, [r"float32", r"float64"]),
    ("dtype", np.zeros((N, D), dtype=int), DX, {}, [r"integer dtype int64"]),
    ("dtype", RELU_MASK, DX, {}, [r"bool"]),
    ("nan", np.where(RELU_MASK, np.nan, DX), DX, {}, [r"NaN", r"subtract the max"]),
    ("nan", np.where(RELU_MASK, np.inf, DX), DX, {}, [r"inf", r"overflow", r"subtract the max"]),
    ("zero", np.zeros_like(DX), DX, {}, [r"all zeros", r"`=`"]),
    ("should-be-zero", DX, np.zeros_like(DX), {}, [r"zero everywhere"]),
    ("sign", -DX, DX, {}, [r"opposite sign"]),
    (
        "sum-vs-mean",
        DB / N,
        DB,
        {"batch_size": N},
        [
            r"1/5 of the expected",
            r"5 is the batch size",
            r"sum over the batch instead of averaging",
            r"divided by N twice",
        ],
    ),
    ("sum-vs-mean", DX * N, DX, {"batch_size": N}, [r"5 times", r"batch size", r"divide by N"]),
    ("scale", 2 * DW, DW, {}, [r"2 times", r"twice", r"0\.5"]),
    ("scale", 0.5 * DW, DW, {}, [r"1/2 of the expected", r"path"]),
    ("scale", 3.7 * DW, DW, {}, [r"3\.7 times"]),
    ("scale", DB / N, DB, {}, [r"1/5 times"]),  # no batch size given: only the factor
    ("scale", -3 * DW, DW, {}, [r"-3 times", r"sign flipped"]),
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
        "first-example-only",
        np.vstack([DX[:1], np.zeros((N - 1, D))]),
        DX,
        {},
        [r"first example \(row 0\)", r"zero in the other 4 rows"],
    ),
    (
        "first-example-only",
        np.vstack([DX[:1], -DX[1:]]),
        DX,
        {"batch_size": N},
        [r"wrong in every other row"],
    ),
    ("last-example-only", np.vstack([np.zeros((N - 1, D)), DX[-1:]]), DX, {}, [r"last example \(row 4\)"]),
    ("almost", DX + 1e-4, DX, {}, [r"close but not within tolerance", r"0\.0001"]),
    (
        "partial",
        np.where(RELU_MASK, DX, DX + 1),
        DX,
        {},
        [r"matches the expected one at \d+ of 15", r"the first at \["],
    ),
]


@pytest.mark.parametrize(
    ("code", "actual", "expected", "kwargs", "words"),
    POSITIVE,
    ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)],
)
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    hint = diagnose(actual, expected, name="dx", **kwargs)
    assert hint is not None and hint.code == code, hint
    for pattern in words:
        assert re.search(pattern, hint.message), (pattern, hint.message)
    assert "your dx" in hint.message or "expected value is zero" in hint.message


def test_every_code_is_documented_and_tested():
    assert {p[0] for p in POSITIVE} == set(HINT_CODES)
    for code, description in HINT_CODES.items():
        assert code == code.lower() and " " not in code
        assert description and "\n" not in description


def test_hint_is_a_frozen_dataclass():
    hint = Hint("sign", "flip it")
    assert str(hint) == "flip it  [sign]"
    with pytest.raises(dataclasses.FrozenInstanceError):
        hint.code = "scale"  # type: ignore[misc]


def test_default_name():
    assert diagnose(-DX, DX).message.startswith("your answer has")


# ----------------------------------------------------------------------------- no false alarms


CASES = [(), (1,), (2,), (3,), (2, 2), (3, 3), (4,), (3, 4), (5, 3), (2, 3, 4), (2, 1)]


@pytest.mark.parametrize("shape", CASES)
def test_correct_answers_give_none(shape):
    rng = np.random.default_rng(len(shape))
    for _ in range(20):
        expected = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6)
        noise = 1e-9 * np.max(np.abs(expected)) * rng.standard_normal(shape)
        mask = rng.random(shape) > 0.5
        batch = shape[0] if shape else None
        for actual in (expected.copy(), expected + noise):
            assert diagnose(actual, expected) is None
            assert diagnose(actual, expected, batch_size=batch, mask=mask, upstream=DOUT) is None


def test_zero_expected_and_zero_actual_is_correct():
    assert diagnose(np.zeros(3), np.zeros(3)) is None
    assert diagnose(0.0, 0.0) is None


@pytest.mark.parametrize("shape", CASES)
def test_random_arrays_get_no_confident_diagnosis(shape):
    rng = np.random.default_rng(100 + len(shape))
    for trial in range(150):
        expected = rng.standard_normal(shape)
        actual = rng.standard_normal(shape)
        kwargs = {}
        if shape and trial % 2:
            kwargs["batch_size"] = shape[0]
        if trial % 3 == 0:
            kwargs["mask"] = rng.random(shape) > 0.5
        assert diagnose(actual, expected, **kwargs) is None


def test_relu_like_random_gradient_only_gets_factual_hints():
    """Same zeros as expected, random elsewhere: at most 'right on this side of the mask'."""
    rng = np.random.default_rng(7)
    for _ in range(100):
        mask = rng.random((4, 5)) > 0.5
        expected = rng.standard_normal((4, 5)) * mask
        actual = rng.standard_normal((4, 5)) * mask
        assert codes_of(diagnose(actual, expected)) in (None, "partial", "mask")
        assert codes_of(diagnose(actual, expected, mask=mask)) in (None, "partial", "mask")


# ----------------------------------------------------------------------------- rule precision


def test_generic_scale_needs_two_entries_of_evidence():
    assert diagnose(np.array([3.7]), np.array([1.0])) is None
    assert diagnose(3.7, 1.0) is None
    assert codes_of(diagnose(np.array([3.7, 0.0]), np.array([1.0, 0.0]))) == "partial"


def test_named_factors_work_on_scalars():
    assert codes_of(diagnose(-2.5, 2.5)) == "sign"
    assert codes_of(diagnose(0.5, 2.5, batch_size=5)) == "sum-vs-mean"


def test_factor_close_to_one_is_almost_not_scale():
    assert codes_of(diagnose(DW * (1 + 1e-4), DW)) == "almost"


def test_batch_of_one_gives_no_sum_vs_mean():
    assert codes_of(diagnose(DB * 1.0005, DB, batch_size=1)) == "almost"


def test_batch_of_two_mentions_both_causes():
    message = diagnose(2 * DW, DW, batch_size=2).message
    assert "batch size" in message and "path counted twice" in message


def test_transpose_not_claimed_for_symmetric_expected():
    sym = SQUARE + SQUARE.T
    assert codes_of(diagnose(sym * 1.5 + 1.0, sym)) != "transpose"


def test_transpose_of_batched_square_matrices():
    stack = RNG.standard_normal((2, 3, 3))
    assert codes_of(diagnose(np.swapaxes(stack, -1, -2), stack)) == "transpose"


def test_one_example_needs_the_other_rows_fully_wrong():
    actual = DX.copy()
    actual[1:, 0] += 1.0  # rows 1.. are wrong in one column only
    assert codes_of(diagnose(actual, DX)) == "partial"


def test_mask_rule_needs_one_side_fully_right():
    actual = np.where(RELU_MASK, DX + 1, DX - 1)
    assert codes_of(diagnose(actual, DX, mask=RELU_MASK)) != "mask"


def test_mask_all_true_is_ignored():
    assert codes_of(diagnose(DX + 1, DX, mask=np.ones_like(RELU_MASK))) is None


def test_first_example_not_claimed_for_a_vector_without_batch():
    db = np.array([1.0, 2.0, 3.0])
    assert codes_of(diagnose(np.array([1.0, 0.0, 0.0]), db)) == "partial"
    assert codes_of(diagnose(np.array([1.0, 0.0, 0.0]), db, batch_size=3)) == "first-example-only"


def test_first_example_not_claimed_when_axis_0_is_not_the_batch():
    actual = np.vstack([DW[:1], np.zeros((D - 1, M))])
    assert codes_of(diagnose(actual, DW, batch_size=N)) == "partial"


def test_first_example_needs_a_nonzero_first_row():
    expected = DX.copy()
    expected[0] = 0
    assert codes_of(diagnose(np.zeros_like(DX), expected)) == "zero"
    actual = np.vstack([np.zeros((1, D)), -expected[1:]])
    assert codes_of(diagnose(actual, expected)) != "first-example-only"


def test_first_example_defers_to_a_mask_that_explains_it():
    mask = np.ones((N, D), dtype=bool)
    mask[1:] = False  # row 0 lies entirely on the True side
    expected = DX * mask
    actual = DX.copy()  # mask not applied: wrong exactly where mask is False
    assert codes_of(diagnose(actual, expected, mask=mask)) == "mask"
    assert codes_of(diagnose(actual, expected)) == "first-example-only"


def test_slope_from_input_needs_the_layer_to_match_a_known_slope():
    up = DOUT[:, :D]
    layer = {"upstream": up, "layer_input": X, "layer_output": X**3}  # not tanh, not sigmoid
    assert codes_of(diagnose(up * (1 - X**2), up * 3 * X**2, **layer)) != "slope-from-input"
    tanh = {"upstream": up, "layer_input": X, "layer_output": np.tanh(X)}
    expected = up * (1 - np.tanh(X) ** 2)
    assert diagnose(expected.copy(), expected, **tanh) is None
    assert codes_of(diagnose(RNG.standard_normal((N, D)), expected, **tanh)) is None
    assert codes_of(diagnose(up * (1 - X**2), expected)) != "slope-from-input"  # no context


def test_upstream_row_requires_a_matching_row():
    assert codes_of(diagnose(DB + 1, DB, upstream=DOUT)) is None


def test_shape_rules_on_scalars():
    assert codes_of(diagnose(np.array([2.0]), 2.0)) == "shape"
    loss_per_example = RNG.random(N)
    hint = diagnose(loss_per_example, loss_per_example.mean())
    assert hint.code == "not-summed-over-batch" and "mean" in hint.message


def test_tolerance_is_relative_to_scale():
    for scale in (1e-12, 1.0, 1e12):
        assert codes_of(diagnose(-DX * scale, DX * scale)) == "sign"
        assert diagnose(DX * scale * (1 + 1e-9), DX * scale) is None


# ----------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"expected": np.ones(3, dtype=int)}, r"expected must be a float64 array.*integer"),
        ({"expected": np.ones(3, dtype=np.float32)}, r"expected must be a float64.*float32"),
        ({"expected": None}, r"expected must be a float64 array, but got None"),
        ({"expected": np.array([1.0, np.nan, 0.0])}, r"expected must hold finite numbers"),
        ({"mask": np.ones(3, dtype=int)}, r"mask must be a boolean array.*x > 0"),
        ({"mask": np.ones((3, 1), dtype=bool)}, r"mask must have the shape of expected, \(3,\).*\(3, 1\)"),
        ({"batch_size": 0}, r"batch_size must be None or a positive int"),
        ({"batch_size": 2.0}, r"batch_size must be None or a positive int"),
        ({"batch_size": True}, r"batch_size"),
        ({"upstream": np.ones(3, dtype=np.float32)}, r"upstream must be a float64"),
        ({"layer_input": np.ones(2), "layer_output": np.ones(3)}, r"layer_input must have the shape"),
        ({"layer_input": np.ones(3)}, r"layer_output must be a float64 array, but got None"),
    ],
)
def test_bad_arguments(kwargs, words):
    args = {"expected": np.ones(3)} | kwargs
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(np.zeros(3), **args)


def test_expected_may_be_a_python_number_or_list():
    assert codes_of(diagnose(-1.0, 1.0)) == "sign"
    assert codes_of(diagnose([-1.0, -2.0], [1.0, 2])) == "sign"
