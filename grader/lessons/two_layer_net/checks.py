"""Lesson 06's checks: the network's gradients against PyTorch, with the usual slips named, and the
replay of a training loop that drove a stand-in network.

- `check_net_gradient(name, got, X, y, params, reg=0.0)`: one gradient (W1, b1, W2 or b2) that the
  student's `TwoLayerNet.loss` returned for the batch X, y and the weights params, against PyTorch's
  autograd of the lesson's network (float64). When it is wrong and equals, to 1e-8, what a known
  slip gives (`SLIPS`, each computed here by autograd of the network with that one slip), the hint
  names it (codes `two-layer-...`).
- `RecordingNet(params, reg)`: a stand-in for `TwoLayerNet` that the student's `train` drives. Its
  `loss(X, y)` returns the loss and gradients of the lesson's network by PyTorch's autograd and
  records every call (the weights it saw, the batch, the loss, the gradients). The lesson declares
  `train` with `may_call=("RecordingNet",)`: the stand-in's methods are referees that `train` may
  call, trusted (PyTorch runs inside `refereeing()`).
- `replay_training(net, X, y, learning_rate, num_iters, batch_size)`: checks the calls a training
  loop made of a RecordingNet (one per step, each on `batch_size` different examples with their
  labels) and every parameter after every step against what that step's gradient asks, naming a
  step that goes uphill, ignores the learning rate, or leaves a parameter where it was
  (codes `train-...`). The rule itself lives here, not in the notebook's check cell.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from ...checks import compare, report
from ...errors import CheckFailed
from ...hints import Hint, hint_args
from ...i18n import N_
from ...i18n import lesson_text as _
from ...numgrad import rel_error
from ...referees import referee_all, refereeing
from ...trusted import as_array, as_dict, verify_environment

__all__ = ["HINT_CODES", "SLIPS", "RecordingNet", "check_net_gradient", "replay_training"]

#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "two-layer-ds-no-onehot": "a two-layer net's gradients computed from ds = p / N: the −1 at each "
    "example's own class missing from the scores' gradient (lesson 06).",
    "two-layer-no-relu-mask": "a two-layer net's dW1 with dh passed through the ReLU everywhere, "
    "unmasked (lesson 06).",
    "two-layer-dw2-from-z1": "a two-layer net's dW2 built from the ReLU's input z1 instead of its "
    "output h (lesson 06).",
    "train-uphill": "a training step that moves every parameter along its gradient, "
    "+learning_rate × gradient (lesson 06's train).",
    "train-no-learning-rate": "a training step of a whole gradient, not scaled by the learning rate "
    "(lesson 06's train).",
    "train-parameter-not-updated": "a training loop that never moves one of net.params, e.g. a bias "
    "(lesson 06's train).",
}

#: code -> the hint shown when a value equals what that mistake gives.
SLIPS: dict[str, str] = {
    "two-layer-ds-no-onehot": N_(
        "your gradients are those of ds = p / N: the scores' gradient misses a term at each "
        "example's own class. −log p_y depends on s_y twice, through the softmax's sum and through "
        "its numerator (lesson 5)."
    ),
    "two-layer-no-relu-mask": N_(
        "your dW1 lets dh through the ReLU everywhere: a unit with z1 ≤ 0 outputs 0 whatever z1 "
        "is, so no gradient reaches its z1."
    ),
    "two-layer-dw2-from-z1": N_(
        "your dW2 is built from z1, the ReLU's input: the second layer multiplies h = max(0, z1) "
        "by W2, so h is what W2's gradient sees."
    ),
    "train-uphill": N_(
        "every step moved params['{name}'] by +learning_rate × its gradient. To first order, does "
        "the loss go up or down that way? (Hint 1 of train.)"
    ),
    "train-no-learning-rate": N_(
        "every step moved params['{name}'] by a whole gradient: the step is scaled by the learning rate."
    ),
    "train-parameter-not-updated": N_(
        "params['{name}'] never moved: every parameter in net.params takes a step, the biases too."
    ),
}


# ----------------------------------------------------------------------------- the network, by autograd


def _torch_net(params: Mapping[str, Any], X: Any, y: Any, reg: float = 0.0, slip: str = "") -> dict[str, Any]:
    """Loss, gradients and intermediate values of the lesson's network (affine - ReLU - affine -
    softmax cross-entropy + ½·reg·(‖W1‖² + ‖W2‖²)) by PyTorch's autograd, in float64; with `slip`,
    the gradients of one known mistake: "no-onehot" (the data loss's gradient taken as if it were
    the mean log-sum-exp of the scores), "no-mask" (the ReLU passes every gradient back)."""
    with refereeing():
        p = {name: torch.tensor(np.asarray(value, dtype=np.float64), requires_grad=True)
             for name, value in params.items()}
        x = torch.as_tensor(np.asarray(X, dtype=np.float64))
        z1 = x @ p["W1"] + p["b1"]
        h = torch.relu(z1)
        if slip == "no-mask":
            h = z1 + (h - z1).detach()          # the ReLU's values, the identity's gradient
        h.retain_grad()
        s = h @ p["W2"] + p["b2"]
        s.retain_grad()
        if slip == "no-onehot":
            data = torch.logsumexp(s, dim=1).mean()
        else:
            data = F.cross_entropy(s, torch.as_tensor(np.asarray(y), dtype=torch.int64))
        loss = data + 0.5 * reg * (torch.sum(p["W1"] ** 2) + torch.sum(p["W2"] ** 2))
        loss.backward()
        return {"loss": float(loss.item()), "grads": {name: t.grad.numpy() for name, t in p.items()},
                "z1": z1.detach().numpy(), "ds": s.grad.numpy(), "dh": h.grad.numpy()}


def _slip(got: Any, shape: tuple[int, ...], slips: Sequence[tuple[str, Callable[[], Any]]]) -> str | None:
    """The code of the first slip (code, what that mistake gives) that `got` equals, or None."""
    try:
        mine = as_array(got, "your value", shape=shape)
    except CheckFailed:
        return None
    for code, value in slips:
        wrong = np.asarray(value(), dtype=np.float64)
        if wrong.shape == mine.shape and np.isfinite(wrong).all() and rel_error(mine, wrong) < 1e-8:
            return code
    return None


def _check(label: str, got: Any, expected: np.ndarray, slips: Sequence[tuple[str, Callable[[], Any]]],
           tol: float = 1e-7, fields: Mapping[str, Any] | None = None, **context: Any) -> None:
    """check_close's ✓/✗ line for `got` against `expected`; when it fails and `got` equals a slip, the
    line's hint is that slip's (formatted with `fields`), not the toolkit's generic one. Raises
    CheckFailed."""
    __tracebackhide__ = True
    result, line = compare(label, got, expected, tol=tol, args=hint_args(expected.shape, **context))
    if not result.passed:
        code = _slip(got, expected.shape, slips)
        if code is not None:
            result = replace(result, hint=Hint(code, _(SLIPS[code]).format(**(fields or {}))))
    report([(result, line)])


def check_net_gradient(name: str, got: Any, X: np.ndarray, y: np.ndarray, params: Mapping[str, np.ndarray],
                       reg: float = 0.0) -> None:
    """Your grads[name] (name: W1, b1, W2 or b2) for the batch X, y and the weights params, against
    PyTorch's autograd of the lesson's network; prints ✓/✗ (and a hint); raises CheckFailed."""
    __tracebackhide__ = True
    parts = _torch_net(params, X, y, reg)
    expected = parts["grads"][name]
    context: dict[str, Any] = {"batch_size": len(X)}
    if name == "b1":
        context["upstream"] = parts["dh"]        # names a skipped ReLU mask (the hint engine's rule)
    slips: list[tuple[str, Callable[[], Any]]] = [
        ("two-layer-ds-no-onehot", lambda: _torch_net(params, X, y, reg, "no-onehot")["grads"][name])]
    if name == "W1":
        slips.append(("two-layer-no-relu-mask",
                      lambda: _torch_net(params, X, y, reg, "no-mask")["grads"]["W1"]))
    if name == "W2":
        slips.append(("two-layer-dw2-from-z1", lambda: parts["z1"].T @ parts["ds"] + reg * params["W2"]))
    _check(f"d{name}", got, expected, slips, **context)


# ----------------------------------------------------------------------------- the training loop


def _entries(mapping: Any, what: str) -> dict[str, Any]:
    """The entries of a dict of parameters, exactly as stored (read with dict.items, never the
    dict's own methods); the keys become plain str. Not a dict: a BadReturnValue saying what it is."""
    verify_environment()
    if not issubclass(type(mapping), dict):
        as_dict(mapping, what)          # raises: "... must be a dict of name → array, but it is ..."
    return {str.__str__(key): value for key, value in dict.items(mapping) if issubclass(type(key), str)}


class RecordingNet:
    """A stand-in for TwoLayerNet that a training loop can drive: params, and loss(X, y) -> (loss, grads)
    of the lesson's network by PyTorch's autograd. Every call is recorded in self.calls: the weights it
    saw, the batch, the loss and the gradients."""

    def __init__(self, params: Mapping[str, np.ndarray], reg: float = 0.0) -> None:
        self.params = {name: np.array(value, dtype=np.float64) for name, value in params.items()}
        self.reg = float(reg)
        self.calls: list[dict[str, Any]] = []

    def loss(self, X: Any, y: Any = None) -> tuple[float, dict[str, np.ndarray]]:
        seen = {name: as_array(value, f"net.params['{name}'] when train called net.loss", float64=True)
                for name, value in _entries(self.params, "net.params").items()}
        X_batch = as_array(X, "the X batch that train passed to net.loss")
        y_batch = as_array(y, "the y batch that train passed to net.loss").astype(int)
        parts = _torch_net(seen, X_batch, y_batch, self.reg)
        self.calls.append({"params": seen, "X": X_batch, "y": y_batch, "loss": parts["loss"],
                           "grads": parts["grads"]})
        return parts["loss"], {name: value.copy() for name, value in parts["grads"].items()}


def _fail(message: str) -> None:
    __tracebackhide__ = True
    print(f"✗ {message}")
    raise CheckFailed(message)


def replay_training(net: RecordingNet, X: np.ndarray, y: np.ndarray, learning_rate: float, num_iters: int,
                    batch_size: int) -> list[tuple[int, ...]]:
    """Check the calls a training loop made of net.loss (a RecordingNet): one per step, each on
    batch_size different training examples with their labels; and every parameter after every step.
    Prints ✓/✗ lines (a hint names a known mistake); raises CheckFailed. Returns the (sorted) indices
    of the examples of every batch."""
    __tracebackhide__ = True
    calls = net.calls
    if len(calls) != num_iters:
        _fail(_("train called net.loss {calls} times for num_iters={num_iters}: once per step").format(
            calls=len(calls), num_iters=num_iters))
    where = {row.tobytes(): index for index, row in enumerate(X)}
    batches = []
    for step, call in enumerate(calls):
        if call["X"].shape != (batch_size, X.shape[1]):
            _fail(_("step {step}: the batch has shape {shape}, expected ({batch_size}, {features})").format(
                step=step, shape=call["X"].shape, batch_size=batch_size, features=X.shape[1]))
        rows = [where.get(row.tobytes()) for row in call["X"]]
        if None in rows:
            _fail(_("step {step}: the batch holds rows that are not rows of X").format(step=step))
        if len(set(rows)) != batch_size:
            _fail(_("step {step}: the batch repeats an example (draw without replacement)").format(step=step))
        if call["y"].shape != (batch_size,) or not np.array_equal(call["y"], y[rows]):
            _fail(_("step {step}: the labels passed do not belong to the examples").format(step=step))
        batches.append(tuple(sorted(rows)))
    print(_("✓ {calls} calls of net.loss, each on {size} different examples with their labels").format(
        calls=num_iters, size=batch_size))
    final = {name: as_array(value, f"net.params['{name}'] after train", float64=True)
             for name, value in _entries(net.params, "net.params").items()}
    seen = [call["params"] for call in calls[1:]] + [final]
    for name in calls[0]["params"]:
        # every step at once: the parameter each step left, against what that step's gradient asks
        after = np.stack([as_array(params.get(name), f"params['{name}'] after a step",
                                   shape=calls[0]["params"][name].shape) for params in seen])
        before = np.stack([call["params"][name] for call in calls])
        grads = np.stack([call["grads"][name] for call in calls])
        label = _("params['{name}'] after each of the {num_iters} steps").format(
            name=name, num_iters=num_iters)
        # the known mistakes, all steps stacked: uphill, a parameter left where it was, no learning rate
        slips = [("train-uphill", lambda b=before, g=grads: b + learning_rate * g)]
        if np.any(grads):
            slips.append(("train-parameter-not-updated", lambda b=before: b))
        if learning_rate != 1.0:
            slips.append(("train-no-learning-rate", lambda b=before, g=grads: b - g))
        _check(label, after, before - learning_rate * grads, slips, tol=1e-9, fields={"name": name})
    return batches


referee_all(globals())
