"""Lesson 08's numerical experiments, without any widget: a deep MLP on the digits, with and
without the student's BatchNorm.

The network: h_0 = x (N, 64 pixels); for i = 1..L, z_i = h_{i-1} W_i + b_i, then (with
BatchNorm) a_i = batchnorm(z_i; γ_i, β_i) or a_i = z_i, then h_i = act(a_i) (sigmoid or tanh);
logits = h_L W_out + b_out, softmax cross-entropy averaged over the batch. Weights are Xavier
normal (variance 2 / (fan_in + fan_out)) from one seed, so the nets with and without BatchNorm
start from the same weights; biases and β are 0, γ is 1.

The backward pass is written here in NumPy, except BatchNorm's, which is the student's
``batchnorm_forward`` / ``batchnorm_backward``, called through `grader.lessons.student_calls`:
while they are unfinished or broken, the BatchNorm half raises `NotReady` saying which.

- `deep_net_gradients`: per-layer ‖dW‖ and update-to-data ratios at initialisation;
- `train_deep_net`: minibatch SGD for a few steps; training loss and validation accuracy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._validate import describe
from ...i18n import lesson_text as _
from ...i18n import returned_by
from ...referees import referee_all
from ..student_calls import NotReady, call_student, for_cell, student_array

__all__ = ["ACTIVATIONS", "DeepNetRun", "StudentBatchNorm", "deep_net_gradients", "forward_backward",
           "init_params", "train_deep_net"]


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _sigmoid_slope(h: np.ndarray) -> np.ndarray:
    return h * (1.0 - h)


def _tanh_slope(h: np.ndarray) -> np.ndarray:
    return 1.0 - h * h


#: name -> (activation, its slope written as a function of the activation's output h).
ACTIVATIONS: dict[str, tuple[Callable, Callable]] = {
    "sigmoid": (_sigmoid, _sigmoid_slope),
    "tanh": (np.tanh, _tanh_slope),
}


@dataclass
class StudentBatchNorm:
    """The student's batchnorm_forward(x, gamma, beta, bn_param) and batchnorm_backward(dout, cache)."""

    forward: Callable
    backward: Callable
    in_view: bool = False  # messages for a widget ("move a control") or for a cell ("run it again")

    def _call(self, func: Callable, name: str, *args: Any) -> Any:
        try:
            return call_student(func, name, *args)
        except NotReady as why:
            text = str(why)
            if not self.in_view:
                text = for_cell(text)
            raise NotReady(text) from None

    def fwd(self, x: np.ndarray, gamma: np.ndarray, beta: np.ndarray,
            bn_param: dict) -> tuple[np.ndarray, Any]:
        """(out (N, D), cache) from the student's forward; NotReady when it fails or returns junk."""
        result = self._call(self.forward, "batchnorm_forward", x, gamma, beta, bn_param)
        if not isinstance(result, tuple) or len(result) != 2:
            raise NotReady(_("batchnorm_forward returned {got}; expected a pair (out, cache).").format(
                got=describe(result)))
        return student_array(result[0], x.shape, "batchnorm_forward", verb="returned"), result[1]

    def bwd(self, dout: np.ndarray, cache: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(dx (N, D), dgamma (D,), dbeta (D,)) from the student's backward; NotReady on junk."""
        result = self._call(self.backward, "batchnorm_backward", dout, cache)
        if not isinstance(result, tuple) or len(result) != 3:
            raise NotReady(_("batchnorm_backward returned {got}; expected (dx, dgamma, dbeta).").format(
                got=describe(result)))
        d = dout.shape[1]
        return (student_array(result[0], dout.shape, returned_by("batchnorm_backward", "dx"),
                              verb="returned"),
                student_array(result[1], (d,), returned_by("batchnorm_backward", "dgamma"), verb="returned"),
                student_array(result[2], (d,), returned_by("batchnorm_backward", "dbeta"), verb="returned"))


def init_params(depth: int, width: int, n_in: int = 64, n_out: int = 10, seed: int = 0) -> dict[str, list]:
    """Xavier-normal weights, zero biases, γ = 1, β = 0 for `depth` hidden layers of `width`.

    Returns {"W": [W_1 (n_in, width), ..., W_L, W_out (width, n_out)], "b": [...], "gamma":
    [(width,)] * depth, "beta": [...]}; the same seed gives the same weights at any depth's prefix.
    """
    rng = np.random.default_rng([seed, 8])
    sizes = [n_in] + [width] * depth + [n_out]
    pairs = zip(sizes[:-1], sizes[1:], strict=True)
    W = [rng.normal(0.0, np.sqrt(2.0 / (a + b)), size=(a, b)) for a, b in pairs]
    return {"W": W, "b": [np.zeros(b) for b in sizes[1:]],
            "gamma": [np.ones(width) for _ in range(depth)], "beta": [np.zeros(width) for _ in range(depth)]}


def _softmax_loss(logits: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    n = len(y)
    dlogits = np.exp(log_p)
    dlogits[np.arange(n), y] -= 1.0
    return float(-log_p[np.arange(n), y].mean()), dlogits / n


def forward_backward(params: dict, X: np.ndarray, y: np.ndarray, activation: str,
                     bn: StudentBatchNorm | None, bn_params: list[dict] | None) -> tuple[float, dict]:
    """Loss and gradients (same keys and shapes as params) of one batch, in train mode.

    bn: the student's BatchNorm, or None for the plain net; bn_params: one bn_param dict per
    hidden layer (mode "train"; the running averages are updated in them).
    """
    act, slope = ACTIVATIONS[activation]
    depth = len(params["gamma"])
    hs, caches = [X], []
    for i in range(depth):
        z = hs[-1] @ params["W"][i] + params["b"][i]
        if bn is not None:
            z, cache = bn.fwd(z, params["gamma"][i], params["beta"][i], bn_params[i])
            caches.append(cache)
        hs.append(act(z))
    loss, dout = _softmax_loss(hs[-1] @ params["W"][-1] + params["b"][-1], y)
    grads = {"W": [None] * (depth + 1), "b": [None] * (depth + 1),
             "gamma": [np.zeros_like(g) for g in params["gamma"]],
             "beta": [np.zeros_like(b) for b in params["beta"]]}
    for i in reversed(range(depth + 1)):
        grads["W"][i] = hs[i].T @ dout
        grads["b"][i] = dout.sum(axis=0)
        if i == 0:
            break
        dout = (dout @ params["W"][i].T) * slope(hs[i])
        if bn is not None:
            dout, grads["gamma"][i - 1], grads["beta"][i - 1] = bn.bwd(dout, caches[i - 1])
    return loss, grads


def predict(params: dict, X: np.ndarray, activation: str, bn: StudentBatchNorm | None,
            bn_params: list[dict] | None) -> np.ndarray:
    """Predicted digits (N,); BatchNorm in test mode (the running averages of bn_params)."""
    act, _ = ACTIVATIONS[activation]
    h = X
    for i in range(len(params["gamma"])):
        z = h @ params["W"][i] + params["b"][i]
        if bn is not None:
            z = bn.fwd(z, params["gamma"][i], params["beta"][i], {**bn_params[i], "mode": "test"})[0]
        h = act(z)
    return (h @ params["W"][-1] + params["b"][-1]).argmax(axis=1)


def _ratios(params: dict, grads: dict, lr: float) -> np.ndarray:
    """log10(lr ‖dW_i‖ / ‖W_i‖) per weight matrix (-inf where the gradient is 0)."""
    with np.errstate(divide="ignore"):
        return np.array([np.log10(lr * np.linalg.norm(g) / np.linalg.norm(w))
                         for w, g in zip(params["W"], grads["W"], strict=True)])


def deep_net_gradients(batchnorm_forward: Callable, batchnorm_backward: Callable, X: np.ndarray,
                       y: np.ndarray, *, depth: int, width: int = 64, activation: str = "sigmoid",
                       lr: float = 0.1, weight_scale: float = 1.0, seed: int = 0,
                       in_view: bool = False) -> dict[str, Any]:
    """Per-layer gradients of one batch at initialisation, without and with BatchNorm.

    weight_scale multiplies every Xavier weight matrix (1: Xavier itself); in_view words the
    messages of an unfinished BatchNorm for a widget ("move a control") instead of a cell.
    Returns {"plain": {"norms", "ratios"}, "bn": {...} or None, "bn_error": str or None}: norms
    is ‖dW_i‖ for the depth + 1 weight matrices (the last is the output layer), ratios
    log10(lr ‖dW_i‖ / ‖W_i‖), both shape (depth + 1,).
    """
    params = init_params(depth, width, X.shape[1], int(y.max()) + 1, seed)
    params["W"] = [weight_scale * w for w in params["W"]]
    out: dict[str, Any] = {"plain": None, "bn": None, "bn_error": None}
    student = StudentBatchNorm(batchnorm_forward, batchnorm_backward, in_view)
    for key, bn in (("plain", None), ("bn", student)):
        try:
            with np.errstate(all="ignore"):
                bn_params = [{"mode": "train"} for _ in range(depth)]
                _, grads = forward_backward(params, X, y, activation, bn, bn_params)
        except NotReady as why:
            out["bn_error"] = str(why)
            continue
        norms = np.array([np.linalg.norm(g) for g in grads["W"]])
        out[key] = {"norms": norms, "ratios": _ratios(params, grads, lr)}
    return out


@dataclass
class DeepNetRun:
    """A training run: losses (steps + 1,), the loss of each minibatch before its step (the
    last one after training, on the next batch); train_acc, val_acc — accuracies at the end;
    ratios — log10 update-to-data ratios of the first step, (depth + 1,)."""

    losses: np.ndarray
    train_acc: float
    val_acc: float
    ratios: np.ndarray = field(repr=False)


def train_deep_net(batchnorm_forward: Callable, batchnorm_backward: Callable,
                   data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], *, depth: int,
                   use_bn: bool, width: int = 64, activation: str = "sigmoid", lr: float = 0.1,
                   steps: int = 100, batch: int = 100, seed: int = 0, in_view: bool = False) -> DeepNetRun:
    """Minibatch SGD (plain: w -= lr * dw) on the digits; the same batches with and without BN.

    Inputs: data — (X_train, y_train, X_val, y_val); in_view — as in `deep_net_gradients`;
    the rest as in the module docstring.
    Raises NotReady (use_bn) while the student's BatchNorm is unfinished or broken. A loss
    that overflows ends the run early: losses holds inf from there on.
    """
    X, y, X_val, y_val = data
    params = init_params(depth, width, X.shape[1], int(y.max()) + 1, seed)
    bn = StudentBatchNorm(batchnorm_forward, batchnorm_backward, in_view) if use_bn else None
    bn_params = [{"mode": "train"} for _ in range(depth)]
    order = np.random.default_rng([seed, 9]).integers(0, len(y), size=(steps + 1, batch))
    losses, ratios = np.full(steps + 1, np.inf), None
    with np.errstate(all="ignore"):
        for step in range(steps + 1):
            loss, grads = forward_backward(params, X[order[step]], y[order[step]], activation, bn, bn_params)
            if not np.isfinite(loss):
                break
            losses[step] = loss
            if step == steps:
                break
            if ratios is None:
                ratios = _ratios(params, grads, lr)
            for key in params:
                for p, g in zip(params[key], grads[key], strict=True):
                    p -= lr * g
        train_acc = float(np.mean(predict(params, X, activation, bn, bn_params) == y))
        val_acc = float(np.mean(predict(params, X_val, activation, bn, bn_params) == y_val))
    if ratios is None:  # the first loss overflowed
        ratios = np.full(depth + 1, np.nan)
    return DeepNetRun(losses, train_acc, val_acc, ratios)


referee_all(globals())
