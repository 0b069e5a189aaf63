"""grader.lessons.layers.checks: lesson 04's visible ReLU and sandwich checks pass a right layer,
name a gate taken from dout, and draw sandwich problems away from the ReLU's kink."""

from __future__ import annotations

import numpy as np
import pytest

from grader.errors import CheckFailed
from grader.lessons.layers.checks import affine_relu_problem, check_relu_backward, check_relu_layer


def _relu_forward(x):
    return np.maximum(0.0, x), x


def _relu_backward(dout, cache):
    return dout * (cache > 0)


def _gate_from_dout(dout, cache):
    return dout * (dout > 0)


def test_a_right_relu_passes_both_checks() -> None:
    rng = np.random.default_rng(0)
    x, dout = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    copies = x.copy(), dout.copy()
    check_relu_layer(_relu_forward, _relu_backward, x)
    check_relu_backward(_relu_forward, _relu_backward, x, dout)
    assert np.array_equal(x, copies[0]) and np.array_equal(dout, copies[1])


def test_a_gate_taken_from_dout_is_named(capsys) -> None:
    rng = np.random.default_rng(1)
    x, dout = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    with pytest.raises(CheckFailed, match="mask comes from dout"):
        check_relu_backward(_relu_forward, _gate_from_dout, x, dout)
    with pytest.raises(CheckFailed, match="mask comes from dout"):
        check_relu_layer(_relu_forward, _gate_from_dout, x)


def test_sandwich_problems_stay_away_from_the_kink() -> None:
    rng = np.random.default_rng(2)
    for shape, M in [((3, 2, 4), 6), ((1, 5), 3)]:
        x, w, b, dout = affine_relu_problem(rng, shape, M)
        N, D = shape[0], int(np.prod(shape[1:]))
        assert x.shape == shape and w.shape == (D, M) and b.shape == (M,) and dout.shape == (N, M)
        assert np.abs(x.reshape(N, D) @ w + b).min() > 0.05
