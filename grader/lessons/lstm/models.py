"""Small NumPy models for lesson 11's experiments: a vanilla tanh RNN written here, the LSTM
through the student's functions (a `StudentLSTM`) and a read-out layer (trained with
`grader.lessons.adam`).

Both recurrent models have the same interface:
- `params` (dict name -> float64 array), `forward(x, h0) -> (h (N, T, H), cache)`,
- `backward(dh, cache) -> grads`, a dict with one entry per parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...i18n import lesson_text as _
from ...i18n import returned_by
from ...referees import referee_all
from ..student_calls import NotReady, call_student

__all__ = ["StudentLSTM", "VanillaRNN", "init_lstm", "init_rnn", "softmax_readout"]


def init_rnn(D: int, H: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Wx (D, H), Wh (H, H) with entries of variance 1/fan-in, b zeros."""
    return {"Wx": rng.normal(size=(D, H)) / np.sqrt(D), "Wh": rng.normal(size=(H, H)) / np.sqrt(H),
            "b": np.zeros(H)}


def init_lstm(D: int, H: int, rng: np.random.Generator, forget_bias: float = 1.0) -> dict[str, np.ndarray]:
    """Wx (D, 4H), Wh (H, 4H) initialised like init_rnn's, block by block; b zeros except the
    forget gate's block, b[H:2H] = forget_bias."""
    b = np.zeros(4 * H)
    b[H:2 * H] = forget_bias
    return {"Wx": rng.normal(size=(D, 4 * H)) / np.sqrt(D), "Wh": rng.normal(size=(H, 4 * H)) / np.sqrt(H),
            "b": b}


class VanillaRNN:
    """h_t = tanh(x_t Wx + h_{t-1} Wh + b), forward and backward through time."""

    def __init__(self, params: dict[str, np.ndarray]):
        self.params = params

    def forward(self, x: np.ndarray, h0: np.ndarray) -> tuple[np.ndarray, Any]:
        p, states = self.params, [h0]
        for t in range(x.shape[1]):
            states.append(np.tanh(x[:, t] @ p["Wx"] + states[-1] @ p["Wh"] + p["b"]))
        return np.stack(states[1:], axis=1), (x, states)

    def backward(self, dh: np.ndarray, cache: Any) -> dict[str, np.ndarray]:
        x, states = cache
        p = self.params
        grads = {k: np.zeros_like(v) for k, v in p.items()}
        carry = np.zeros_like(states[0])
        dx = np.zeros(x.shape)
        for t in reversed(range(x.shape[1])):
            da = (dh[:, t] + carry) * (1 - states[t + 1] ** 2)
            dx[:, t] = da @ p["Wx"].T
            grads["Wx"] += x[:, t].T @ da
            grads["Wh"] += states[t].T @ da
            grads["b"] += da.sum(axis=0)
            carry = da @ p["Wh"].T
        grads["h0"], grads["x"] = carry, dx
        return grads


class StudentLSTM:
    """The LSTM of the student's lstm_forward / lstm_backward (NotReady when unfinished)."""

    def __init__(self, params: dict[str, np.ndarray], forward: Callable, backward: Callable):
        self.params, self._forward, self._backward = params, forward, backward

    def forward(self, x: np.ndarray, h0: np.ndarray) -> tuple[np.ndarray, Any]:
        p = self.params
        out = call_student(self._forward, "lstm_forward", x, h0, p["Wx"], p["Wh"], p["b"])
        h, cache = _two(out, "lstm_forward", "(h, cache)")
        h = _array(h, returned_by("lstm_forward", "h"), (x.shape[0], x.shape[1], p["Wh"].shape[0]))
        return h, cache

    def backward(self, dh: np.ndarray, cache: Any) -> dict[str, np.ndarray]:
        out = call_student(self._backward, "lstm_backward", dh, cache)
        if not isinstance(out, tuple) or len(out) != 5:
            raise NotReady(_("lstm_backward should return (dx, dh0, dWx, dWh, db)."))
        dx, dh0, dWx, dWh, db = out
        grads = {"Wx": dWx, "Wh": dWh, "b": db}
        grads = {k: _array(v, f"lstm_backward's d{k}", self.params[k].shape) for k, v in grads.items()}
        grads["h0"] = _array(dh0, returned_by("lstm_backward", "dh0"), dh.shape[::2])
        grads["x"] = dx
        return grads


def _two(out: Any, name: str, what: str) -> tuple[Any, Any]:
    if not isinstance(out, tuple) or len(out) != 2:
        raise NotReady(_("{name} should return {what}.").format(name=name, what=what))
    return out


def _array(value: Any, what: str, shape: tuple[int, ...]) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.shape != tuple(shape):
        raise NotReady(_("{what} should be an array of shape {shape}.").format(what=what, shape=tuple(shape)))
    value = value.astype(np.float64)
    if not np.all(np.isfinite(value)):
        raise NotReady(_("{what} holds NaN or inf.").format(what=what))
    return value


def softmax_readout(h_last: np.ndarray, W: np.ndarray, c: np.ndarray, y: np.ndarray):
    """Mean softmax cross-entropy of scores h_last W + c against labels y.

    Returns (loss, accuracy, dh_last, dW, dc)."""
    scores = h_last @ W + c
    scores = scores - scores.max(axis=1, keepdims=True)
    p = np.exp(scores)
    p /= p.sum(axis=1, keepdims=True)
    n = len(y)
    loss = -np.mean(np.log(p[np.arange(n), y] + 1e-300))
    accuracy = float(np.mean(p.argmax(axis=1) == y))
    dscores = p
    dscores[np.arange(n), y] -= 1
    dscores /= n
    return loss, accuracy, dscores @ W.T, h_last.T @ dscores, dscores.sum(axis=0)


referee_all(globals())
