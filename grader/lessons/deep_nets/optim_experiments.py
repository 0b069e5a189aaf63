"""Lesson 08's optimiser and dropout experiments: what the plots of those sections show.

- `quadratic_paths`: the path of each update rule on an ill-conditioned 2-D quadratic bowl;
- `init_mlp`, `mlp_loss`: a 64 → H → 10 ReLU network with softmax cross-entropy on the digits,
  in NumPy (the forward and backward passes are lessons 04–06's work), optionally with the
  student's dropout on its input and hidden layer;
- `train_mlp`: minibatch training of that network with one update rule, one config per
  parameter (as CS231n's Solver keeps them), recording the loss of every step and, on request,
  train and validation accuracy and loss along the way;
- `compare_rules`, `learning_rate_sweep`, `trainable_range`: the same network trained by several
  rules, and the final loss of each over a range of learning rates;
- `dropout_comparison`: the same network trained with and without dropout.

Update rules and dropout functions are the student's, called through
`grader.lessons.student_calls`: an unfinished or broken one raises `NotReady`, and the
comparisons turn that into a message in their `missing` dict instead, so the lesson runs to the
end in the untouched release. A rule that diverges (non-finite weights) is a result, not an error.
Sizes are chosen for one CPU: a few hundred steps of batches of 50–64 take milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._validate import describe
from ...errors import ToolkitInputError
from ...i18n import lesson_text as _
from ...i18n import returned_by
from ...referees import referee_all
from ..student_calls import NotReady, call_student, for_cell, numeric

__all__ = ["DropoutSpec", "NotReady", "Run", "compare_rules", "dropout_comparison", "init_mlp",
           "learning_rate_sweep", "mlp_loss", "quadratic_paths", "step_sizes", "student_step",
           "train_mlp", "trainable_range"]

Data = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # X_train, y_train, X_val, y_val


def _name(rule: Callable, fallback: str) -> str:
    """The name the student gave the function (for messages), else `fallback`."""
    name = getattr(rule, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else fallback


def _why(err: NotReady) -> str:
    """NotReady's message, told to re-run the cell (student_calls speaks of a widget's controls)."""
    return for_cell(str(err))


def student_step(rule: Callable, name: str, w: np.ndarray, dw: np.ndarray,
                 config: dict | None) -> tuple[np.ndarray, dict]:
    """rule(copy of w, copy of dw, config) checked: (next_w float64 shaped like w, a dict).

    next_w may hold inf or nan (a diverging run); anything else unusable raises NotReady.
    """
    result = call_student(rule, name, w.copy(), dw.copy(), config)
    if not isinstance(result, tuple | list) or len(result) != 2:
        raise NotReady(_("{name} returned {got}; expected a pair (next_w, config).").format(
            name=name, got=describe(result)))
    next_w, new_config = result
    if not numeric(next_w) or np.shape(next_w) != w.shape:
        raise NotReady(_("{name} returned next_w = {got}; expected an array of shape {shape}.").format(
            name=name, got=describe(next_w), shape=w.shape))
    if not isinstance(new_config, dict):
        raise NotReady(_("{name} returned config = {got}; expected a dict.").format(
            name=name, got=describe(new_config)))
    return np.array(next_w, dtype=np.float64), new_config


# ----------------------------------------------------------------------------- the quadratic bowl


def quadratic_paths(rules: Mapping[str, tuple[Callable, dict]], start: tuple[float, float],
                    curvatures: tuple[float, float], steps: int
                    ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Paths of each rule on f(w) = ½ (c₁ w₁² + c₂ w₂²), whose gradient is (c₁ w₁, c₂ w₂).

    Inputs: rules — label -> (update rule, its config: the hyper-parameters); start — w at step 0;
    curvatures — (c₁, c₂), both > 0; steps — how many updates.
    Returns (paths, missing): paths — label -> array (steps + 1, 2), the weights after every
    step (a diverging path stops early); missing — label -> why that rule could not run.
    """
    c = np.asarray(curvatures, dtype=np.float64)
    if c.shape != (2,) or not np.all(c > 0):
        message = _("curvatures must be two positive numbers, got {got}.")
        raise ToolkitInputError(message.format(got=repr(curvatures)))
    paths, missing = {}, {}
    for label, (rule, config) in rules.items():
        w, cfg, path = np.array(start, dtype=np.float64), dict(config), []
        path.append(w)
        try:
            for _step in range(steps):
                with np.errstate(all="ignore"):
                    grad = c * w
                w, cfg = student_step(rule, _name(rule, label), w, grad, cfg)
                path.append(w)
                if not np.all(np.isfinite(w)):
                    break
        except NotReady as why:
            missing[label] = _why(why)
            continue
        paths[label] = np.array(path)
    return paths, missing


# ----------------------------------------------------------------------------- the digits network


@dataclass
class DropoutSpec:
    """The student's dropout, applied to the input (keep probability p_input, None: off) and to
    the hidden ReLU layer (p_hidden) of the network in training. Every call gets its own seed."""

    forward: Callable
    backward: Callable
    p_input: float | None = 0.8
    p_hidden: float | None = 0.5
    calls: int = 0

    def apply(self, x: np.ndarray, p: float | None) -> tuple[np.ndarray, Any]:
        """(dropout_forward(x) in train mode, its cache), checked; (x, None) when p is None."""
        if p is None:
            return x, None
        self.calls += 1
        param = {"p": p, "mode": "train", "seed": self.calls}
        result = call_student(self.forward, "dropout_forward", x.copy(), param)
        if not isinstance(result, tuple | list) or len(result) != 2:
            raise NotReady(_("dropout_forward returned {got}; expected a pair (out, cache).").format(
                got=describe(result)))
        return _checked(result[0], x.shape, returned_by("dropout_forward", "out")), result[1]

    def back(self, dout: np.ndarray, cache: Any, p: float | None) -> np.ndarray:
        """dropout_backward(dout, cache), checked; dout itself when p is None."""
        if p is None:
            return dout
        dx = call_student(self.backward, "dropout_backward", dout.copy(), cache)
        return _checked(dx, dout.shape, returned_by("dropout_backward", "dx"))


def _checked(value: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    if not numeric(value) or np.shape(value) != shape:
        raise NotReady(_("{what} is {value}; expected an array of shape {shape}.").format(
            what=what, value=describe(value), shape=shape))
    return np.array(value, dtype=np.float64)


def init_mlp(input_dim: int, hidden: int, classes: int, seed: int) -> dict[str, np.ndarray]:
    """He-initialised W1 (input_dim, hidden), W2 (hidden, classes), zero biases b1, b2."""
    rng = np.random.default_rng(seed)
    return {"W1": rng.normal(0.0, np.sqrt(2.0 / input_dim), (input_dim, hidden)),
            "b1": np.zeros(hidden),
            "W2": rng.normal(0.0, np.sqrt(2.0 / hidden), (hidden, classes)),
            "b2": np.zeros(classes)}


def mlp_loss(params: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray,
             dropout: DropoutSpec | None = None) -> tuple[float, dict[str, np.ndarray]]:
    """(mean softmax cross-entropy, gradients) of affine → ReLU → affine on X (N, D), y (N,).

    With `dropout`, the input and the ReLU output go through the student's dropout (train mode).
    """
    n = X.shape[0]
    x_in, cache_in = dropout.apply(X, dropout.p_input) if dropout else (X, None)
    z = x_in @ params["W1"] + params["b1"]
    h = np.maximum(z, 0.0)
    h_out, cache_h = dropout.apply(h, dropout.p_hidden) if dropout else (h, None)
    scores = h_out @ params["W2"] + params["b2"]
    shifted = scores - scores.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = float(-log_p[np.arange(n), y].mean())
    dscores = np.exp(log_p)
    dscores[np.arange(n), y] -= 1.0
    dscores /= n
    grads = {"W2": h_out.T @ dscores, "b2": dscores.sum(axis=0)}
    dh = dscores @ params["W2"].T
    if dropout:
        dh = dropout.back(dh, cache_h, dropout.p_hidden)
    dz = dh * (z > 0)
    grads["W1"] = x_in.T @ dz
    grads["b1"] = dz.sum(axis=0)
    return loss, grads


def evaluate(params: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(accuracy, mean cross-entropy) of the network without dropout (test time) on X, y."""
    scores = np.maximum(X @ params["W1"] + params["b1"], 0.0) @ params["W2"] + params["b2"]
    shifted = scores - scores.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(np.mean(scores.argmax(axis=1) == y)), float(-log_p[np.arange(len(y)), y].mean())


@dataclass
class Run:
    """One training run: losses — the minibatch loss of every step (nan after a divergence);
    diverged_at — the step whose weights were no longer finite (None: never); history — rows
    (step, train accuracy, validation accuracy, train loss, validation loss), when recorded."""

    losses: np.ndarray
    diverged_at: int | None
    history: np.ndarray = field(default_factory=lambda: np.empty((0, 5)))

    def final_loss(self, last: int = 10) -> float:
        """Mean minibatch loss of the last `last` steps; inf for a run that diverged."""
        return float("inf") if self.diverged_at is not None else float(np.mean(self.losses[-last:]))


def train_mlp(rule: Callable, name: str, config: dict, data: Data, *, hidden: int = 64,
              steps: int = 200, batch: int = 64, seed: int = 0,
              dropout: DropoutSpec | None = None, eval_every: int | None = None) -> Run:
    """Minibatch training of the 64 → hidden → 10 network with `rule` (the student's `name`).

    Every parameter starts from a copy of `config` and keeps the config its last update
    returned. Batches are drawn with replacement from a generator seeded by `seed`, which also
    seeds the weights. Raises NotReady when the rule or the dropout is unusable.
    """
    X, y, X_val, y_val = data
    params = init_mlp(X.shape[1], hidden, int(y.max()) + 1, seed)
    configs = {key: dict(config) for key in params}
    rng = np.random.default_rng([seed, 1])
    losses, history, diverged = np.full(steps, np.nan), [], None
    with np.errstate(all="ignore"):
        for step in range(steps):
            idx = rng.integers(0, len(y), batch)
            losses[step], grads = mlp_loss(params, X[idx], y[idx], dropout)
            for key in params:
                params[key], configs[key] = student_step(rule, name, params[key], grads[key], configs[key])
            if not all(np.all(np.isfinite(p)) for p in params.values()):
                diverged = step
                break
            if eval_every and (step + 1) % eval_every == 0:
                history.append((step + 1, *_accuracies(params, data)))
    return Run(losses, diverged, np.array(history).reshape(-1, 5))


def _accuracies(params: dict[str, np.ndarray], data: Data) -> tuple[float, float, float, float]:
    X, y, X_val, y_val = data
    (acc, loss), (val_acc, val_loss) = evaluate(params, X, y), evaluate(params, X_val, y_val)
    return acc, val_acc, loss, val_loss


def compare_rules(rules: Mapping[str, tuple[Callable, dict]], data: Data, **train: Any
                  ) -> tuple[dict[str, Run], dict[str, str]]:
    """(runs, missing): label -> Run of train_mlp(rule, label, config, data, **train) for every
    label -> (rule, config) of `rules`; missing — label -> why that rule could not run."""
    runs, missing = {}, {}
    for label, (rule, config) in rules.items():
        try:
            runs[label] = train_mlp(rule, _name(rule, label), config, data, **train)
        except NotReady as why:
            missing[label] = _why(why)
    return runs, missing


def learning_rate_sweep(rules: Mapping[str, tuple[Callable, dict]], learning_rates: np.ndarray,
                        data: Data, **train: Any) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """(finals, missing): label -> the final loss (Run.final_loss) at every learning rate, the
    config's other hyper-parameters kept; missing — label -> why that rule could not run."""
    finals, missing = {}, {}
    for label, (rule, config) in rules.items():
        try:
            finals[label] = np.array([
                train_mlp(rule, _name(rule, label), {**config, "learning_rate": float(lr)}, data,
                          **train).final_loss()
                for lr in learning_rates])
        except NotReady as why:
            missing[label] = _why(why)
    return finals, missing


def step_sizes(rules: Mapping[str, tuple[Callable, dict]], data: Data, **train: Any
               ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """(sizes, missing): label -> array (steps,), at every step of train_mlp(rule, ..., **train)
    the mean over every weight and bias of |next_w - w| / learning_rate (the step in units of
    the rule's learning rate); missing — label -> why that rule could not run."""
    sizes, missing = {}, {}
    for label, (rule, config) in rules.items():
        name, moved = _name(rule, label), []

        def recording(w, dw, cfg, rule=rule, name=name, moved=moved):
            next_w, cfg = student_step(rule, name, w, dw, cfg)
            with np.errstate(all="ignore"):
                moved.append((float(np.abs(next_w - w).sum()), w.size, float(cfg.get("learning_rate", 1.0))))
            return next_w, cfg

        try:
            run = train_mlp(recording, name, config, data, **train)
        except NotReady as why:
            missing[label] = _why(why)
            continue
        per_param = len(init_mlp(1, 1, 1, 0))
        rows = np.array(moved).reshape(-1, per_param, 3)
        steps = len(rows) if run.diverged_at is None else run.diverged_at + 1
        rows = rows[:steps]
        sizes[label] = rows[:, :, 0].sum(axis=1) / rows[:, :, 1].sum(axis=1) / rows[:, 0, 2]
    return sizes, missing


def trainable_range(learning_rates: np.ndarray, finals: np.ndarray, threshold: float
                    ) -> tuple[float, float] | None:
    """(smallest, largest) learning rate whose final loss is below `threshold`; None if none is."""
    good = np.asarray(learning_rates)[np.asarray(finals) < threshold]
    return (float(good.min()), float(good.max())) if good.size else None


def dropout_comparison(dropout_forward: Callable, dropout_backward: Callable, rule: Callable,
                       config: dict, data: Data, *, p_input: float | None = 0.8,
                       p_hidden: float | None = 0.5, **train: Any
                       ) -> tuple[dict[str, Run], dict[str, str]]:
    """(runs, missing): "without dropout" and "with dropout" (in the student's language) -> Run
    (history recorded, pass eval_every); the same weights, batches and rule; missing says why a
    run could not be made."""
    runs, missing = {}, {}
    spec = DropoutSpec(dropout_forward, dropout_backward, p_input, p_hidden)
    for label, dropout in [(_("without dropout"), None), (_("with dropout"), spec)]:
        try:
            runs[label] = train_mlp(rule, _name(rule, "the update rule"), config, data, dropout=dropout,
                                    **train)
        except NotReady as why:
            missing[label] = _why(why)
    return runs, missing


referee_all(globals())
