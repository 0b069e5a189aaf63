"""Arrays the hint tests share (one generator per family, so that adding one leaves the others
unchanged), and `fires`, the check of a positive example."""

from __future__ import annotations

import re

import numpy as np

from grader import Hint, diagnose

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

# fixtures of the newer rules, from a generator of their own (the arrays above stay the same)
RNG2 = np.random.default_rng(2024)
X3 = RNG2.standard_normal((N, 2, 3))  # a batch of 2x3 "images", D = 6
W6 = RNG2.standard_normal((6, M))
DX3 = (DOUT @ W6.T).reshape(X3.shape)  # affine dx for a reshaped input
DX3_SCRAMBLED = (W6 @ DOUT.T).reshape(X3.shape)  # the transposed product reshaped to fit
DSQ = RNG2.standard_normal((4, 4))  # a square upstream gradient: db has the shape of its row sums
RELU_X = RNG2.standard_normal((N, M))
RELU_DX = DOUT * (RELU_X > 0)
B4 = RNG2.standard_normal(M)
SCORES = X @ W  # (N, M) forward scores
SM_Y = np.array([0, 2, 2, 1, 3])  # labels of N = 5 examples over M = 4 classes
_E = np.exp(DOUT - DOUT.max(axis=1, keepdims=True))
SM_P = _E / _E.sum(axis=1, keepdims=True)
SM_ONEHOT = np.eye(M)[SM_Y]
SM_DX = (SM_P - SM_ONEHOT) / N  # softmax cross-entropy gradient, mean over the batch

# fixtures of the rules that name a backward mistake (issue 13), from a generator of their own
RNG3 = np.random.default_rng(1313)
TX = RNG3.standard_normal((N, M))  # input of an elementwise layer, shaped like DOUT
TANH_OUT, SIG_OUT, RELU_OUT = np.tanh(TX), 1 / (1 + np.exp(-TX)), np.maximum(TX, 0)
TANH_SLOPE, SIG_SLOPE, RELU_SLOPE = 1 - TANH_OUT**2, SIG_OUT * (1 - SIG_OUT), (TX > 0) * 1.0
TANH_LAYER = {"upstream": DOUT, "layer_input": TX, "layer_output": TANH_OUT}
SIG_LAYER = {"upstream": DOUT, "layer_input": TX, "layer_output": SIG_OUT}
RELU_LAYER = {"upstream": DOUT, "layer_input": TX, "layer_output": RELU_OUT}
WSQ = RNG3.standard_normal((M, M))  # a square weight matrix: dx = dout @ WSQ.T has DOUT's shape
DX_SQ = DOUT @ WSQ.T
W_REG = RNG3.standard_normal((D, M))  # the weights of DW, for the L2 term
REG = 0.3


def softmax_dx_columns(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    dx = p.copy()
    dx[:, y] -= 1  # the bug: whole columns
    return dx / len(y)


def softmax_dx_rows(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    dx = p.copy()
    dx[y] -= 1  # the bug: whole rows
    return dx / len(y)


def codes_of(hint: Hint | None) -> str | None:
    return None if hint is None else hint.code


def fires(code: str, actual, expected, kwargs: dict, words: list[str]) -> None:
    """diagnose(actual, expected, name="dx", **kwargs) gives `code`, with every pattern of `words`."""
    hint = diagnose(actual, expected, name="dx", **kwargs)
    assert hint is not None and hint.code == code, hint
    for pattern in words:
        assert re.search(pattern, hint.message), (pattern, hint.message)
    assert "your dx" in hint.message or "expected value is zero" in hint.message
