"""grader.hints.shape: wrong shapes, transposes, reshapes, sums over the batch."""

from __future__ import annotations

import numpy as np
import pytest

from grader import diagnose
from tests.toolkit.hints.fixtures import (
    DB,
    DOUT,
    DW,
    DX,
    DX3,
    DX3_SCRAMBLED,
    RNG,
    RNG2,
    SQUARE,
    W6,
    X3,
    D,
    M,
    N,
    W,
    codes_of,
    fires,
)

#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
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
    (
        "transpose-reshape",
        DX3_SCRAMBLED,
        DX3,
        {},
        [r"right shape, but", r"\(5, 6\) matrix, transposed to \(6, 5\)", r"reshape does not transpose"],
    ),
    ("transpose-reshape", W6 @ DOUT.T, DX3, {}, [r"shape \(6, 5\)", r"scrambled order"]),
    ("transpose-reshape", (W @ DOUT.T).reshape(N, D), DX, {}, [r"\(5, 3\) matrix"]),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_transpose_not_claimed_for_symmetric_expected():
    sym = SQUARE + SQUARE.T
    assert codes_of(diagnose(sym * 1.5 + 1.0, sym)) != "transpose"


def test_transpose_of_batched_square_matrices():
    stack = RNG.standard_normal((2, 3, 3))
    assert codes_of(diagnose(np.swapaxes(stack, -1, -2), stack)) == "transpose"


def test_shape_rules_on_scalars():
    assert codes_of(diagnose(np.array([2.0]), 2.0)) == "shape"
    loss_per_example = RNG.random(N)
    hint = diagnose(loss_per_example, loss_per_example.mean())
    assert hint.code == "not-summed-over-batch" and "mean" in hint.message


def test_transpose_reshape_needs_a_real_scramble():
    ones = np.ones((N, D))
    assert diagnose(ones.T.reshape(N, D), ones) is None  # same numbers: nothing to see
    column = RNG2.standard_normal((N, 1))
    assert codes_of(diagnose(column.T.reshape(N, 1), column)) is None  # a 1-column split is no transpose
    assert codes_of(diagnose(DX3_SCRAMBLED + 0.1 * RNG2.standard_normal(X3.shape), DX3)) is None


def test_shape_hint_names_a_batch_sized_axis():
    hint = diagnose(DOUT.sum(axis=1), DB, batch_size=N, name="db")
    assert hint.code == "shape" and "length 5, the batch size" in hint.message
    assert "sum(axis=0)" in hint.message
    assert "batch size" not in diagnose(DOUT.sum(axis=1), DB, name="db").message
    assert "batch size" not in diagnose(np.ones(7), DB, batch_size=N).message
    assert "batch size" not in diagnose(np.ones((N, 2)), np.ones((N, 3)), batch_size=N).message
