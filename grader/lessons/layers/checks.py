"""Lesson 04's visible checks of the ReLU and of the sandwich, kept out of the notebook.

A check cell that spelled out what the hints compare with (the ReLU's gate `x > 0`, or the
sandwich's forward formula) would show the student the answer of the exercise right above it.
The cells call these functions instead: each says WHAT it checks, and its body, HOW. The student's
functions come in as graded calls of the lesson's declaration (`graded.relu_forward`, ...), and
what they return goes through the toolkit's trusted path before anything reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...checks import check_close, check_layer
from ...i18n import returned_by
from ...numgrad import eval_numerical_gradient_array
from ...referees import referee_all
from ...trusted import as_items
from .references import reference_relu

__all__ = ["affine_relu_problem", "check_relu_backward", "check_relu_layer"]


def _gate(x: np.ndarray) -> np.ndarray:
    """Where the ReLU passes its upstream gradient: the hints name a gate taken from dout."""
    return np.asarray(x) > 0


def check_relu_layer(relu_forward: Callable[..., Any], relu_backward: Callable[..., Any],
                     x: np.ndarray) -> None:
    """check_layer on the ReLU at x (any shape, no entry at 0): dx against the numerical gradient
    of relu_forward, with the hints told where the gate is open."""
    __tracebackhide__ = True
    check_layer(relu_forward, relu_backward, {"x": x}, masks={"x": _gate(x)})


def check_relu_backward(relu_forward: Callable[..., Any], relu_backward: Callable[..., Any],
                        x: np.ndarray, dout: np.ndarray, label: str = "dx") -> None:
    """relu_backward(dout, cache), with the cache of relu_forward(x), against the numerical
    gradient of PyTorch's relu at x (no entry of x within 1e-5 of 0). Prints ✓ or raises
    CheckFailed with the hints' diagnosis."""
    __tracebackhide__ = True
    x, dout = np.array(x, dtype=np.float64), np.array(dout, dtype=np.float64)
    dx_num = eval_numerical_gradient_array(reference_relu, x.copy(), dout)
    _, cache = as_items(relu_forward(x), returned_by("relu_forward"), 2, ("out", "cache"))
    check_close(label, relu_backward(dout, cache), dx_num, mask=_gate(x))


def affine_relu_problem(rng: np.random.Generator, x_shape: tuple[int, ...],
                        M: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x (x_shape), w (D, M), b (M,) drawn from rng, with every pre-activation at least 0.05 away
    from the ReLU's kink (so that a numerical gradient is exact there), and a dout (N, M)."""
    N, D = x_shape[0], int(np.prod(x_shape[1:]))
    while True:
        x, w, b = rng.normal(size=x_shape), rng.normal(size=(D, M)), rng.normal(size=M)
        if np.abs(x.reshape(N, D) @ w + b).min() > 0.05:
            return x, w, b, rng.normal(size=(N, M))


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
