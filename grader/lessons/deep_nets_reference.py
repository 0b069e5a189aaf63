"""Lesson 08's references for its visible checks, and its whole backward pass chained.

A visible check cell must not show the formula its exercise asks the student to derive, so the
values it compares with come from here:

- `optimiser_reference`: the weights and the state of `sgd_momentum`, `rmsprop` or `adam` after
  some steps, computed from the rules' unrolled definitions (every average written as a sum over
  all past gradients), not from the one-step recursions the exercises ask for;
- `running_averages`: batch norm's running mean and variance after a sequence of training
  batches, also from the unrolled sum;
- `one_path_hint`: the hint for a `centred_backward` that followed only the path through x-hat;
- `dropout_dx`: the gradient of inverted dropout, read off the forward pass's own output;
- `chained_backward`: every gradient of the lesson's two-layer batch-norm net from the student's
  step functions, for the comparison with PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..referees import referee
from ..report_lines import show_hint

__all__ = ["OPTIMISER_DEFAULTS", "chained_backward", "dropout_dx", "one_path_hint", "optimiser_reference",
           "running_averages"]

#: The hyper-parameters of the lesson's update rules when a config leaves them out.
OPTIMISER_DEFAULTS = {
    "sgd_momentum": {"learning_rate": 1e-2, "momentum": 0.9},
    "rmsprop": {"learning_rate": 1e-2, "decay_rate": 0.99, "epsilon": 1e-8},
    "adam": {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
}


def _average(grads: np.ndarray, decay: float, start: np.ndarray, t: int) -> np.ndarray:
    """(1 - decay) * sum_{s <= t} decay**(t - s) * grads[s - 1] + decay**t * start."""
    weights = (1.0 - decay) * decay ** np.arange(t - 1, -1, -1, dtype=np.float64)
    return np.tensordot(weights, grads[:t], axes=1) + decay ** t * start


@referee
def optimiser_reference(rule: str, w: np.ndarray, grads: Sequence[np.ndarray],
                        config: Mapping | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The K successive weights of `rule` fed `grads` from `w`, and its state after the last step.

    Inputs: rule — "sgd_momentum", "rmsprop" or "adam"; w — any shape; grads — K arrays shaped
    like w; config — hyper-parameters (defaults: OPTIMISER_DEFAULTS) and optionally a starting
    state ("velocity"; "cache"; "m", "v", "t").
    Returns (trajectory (K, *w.shape), state): state holds "velocity", "cache", or "m", "v", "t".
    """
    h = {**OPTIMISER_DEFAULTS[rule], **(config or {})}
    g = np.array(grads, dtype=np.float64).reshape(len(grads), *np.shape(w))
    w = np.array(w, dtype=np.float64)
    zeros, lr = np.zeros_like(w), h["learning_rate"]
    trajectory, state = [], {}
    for t in range(1, len(g) + 1):
        if rule == "sgd_momentum":
            mu, v0 = h["momentum"], h.get("velocity", zeros)
            # v_t = mu^t v_0 - lr * sum_{s <= t} mu^(t - s) g_s
            weights = mu ** np.arange(t - 1, -1, -1, dtype=np.float64)
            state = {"velocity": mu ** t * v0 - lr * np.tensordot(weights, g[:t], axes=1)}
            w = w + state["velocity"]
        elif rule == "rmsprop":
            state = {"cache": _average(g ** 2, h["decay_rate"], h.get("cache", zeros), t)}
            w = w - lr * g[t - 1] / (np.sqrt(state["cache"]) + h["epsilon"])
        else:
            count = h.get("t", 0) + t
            m = _average(g, h["beta1"], h.get("m", zeros), t)
            v = _average(g ** 2, h["beta2"], h.get("v", zeros), t)
            m_hat, v_hat = m / (1.0 - h["beta1"] ** count), v / (1.0 - h["beta2"] ** count)
            w = w - lr * m_hat / (np.sqrt(v_hat) + h["epsilon"])
            state = {"m": m, "v": v, "t": np.float64(count)}
        trajectory.append(w.copy())
    return np.array(trajectory), state


@referee
def running_averages(batches: Sequence[np.ndarray], momentum: float = 0.9,
                     mean: np.ndarray | None = None, var: np.ndarray | None = None
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Batch norm's (running_mean, running_var), each (D,), after every batch (N, D) of `batches`.

    The old value keeps the weight `momentum`; the batch's mean and biased variance (divided by
    N) get 1 - momentum. `mean` and `var` are the starting values (zeros when None).
    """
    stats = [(np.mean(b, axis=0), np.var(b, axis=0)) for b in batches]
    dim = stats[0][0].shape
    mean0 = np.zeros(dim) if mean is None else np.asarray(mean, dtype=np.float64)
    var0 = np.zeros(dim) if var is None else np.asarray(var, dtype=np.float64)
    means, variances = np.array([s[0] for s in stats]), np.array([s[1] for s in stats])
    return [(_average(means, momentum, mean0, k), _average(variances, momentum, var0, k))
            for k in range(1, len(batches) + 1)]


def one_path_hint(dxc: np.ndarray, dxhat: np.ndarray, inv_std: np.ndarray) -> None:
    """A hint when centred_backward's dxc (plain float64, from as_array) is the x-hat path alone."""
    alone = dxhat * inv_std
    if dxc.shape == alone.shape and np.allclose(dxc, alone, rtol=1e-9, atol=0):
        show_hint("your dxc is the path through x-hat alone; x_c also feeds the variance, and that path "
                  "adds a term.")


@referee
def dropout_dx(out: np.ndarray, dout: np.ndarray, p: float) -> np.ndarray:
    """dL/dx of train-mode inverted dropout with keep probability p, given its output `out` (a unit
    was dropped where out is 0; the lesson's inputs are never 0) and the upstream gradient dout."""
    return np.where(np.asarray(out) != 0, np.asarray(dout, dtype=np.float64) / p, 0.0)


@referee
def chained_backward(values: Mapping[str, np.ndarray], X: np.ndarray, y: np.ndarray,
                     steps: Mapping[str, Callable]) -> dict[str, np.ndarray]:
    """Every gradient of the lesson's net (names as in its ninja_forward) from the functions `steps`.

    steps: name -> function, for softmax_loss_backward, affine_backward, tanh_backward,
    scale_shift_backward, variance_backward, centred_backward and mean_backward (the student's
    where the lesson asks for them). values: name -> array of every intermediate and parameter.
    """
    s, v, d = steps, values, {}
    d["logits"] = s["softmax_loss_backward"](v["logits"], y)
    d["h2"], d["W3"], d["b3"] = s["affine_backward"](d["logits"], v["h2"], v["W3"])
    for layer in (2, 1):
        a, xhat, xc, inv_std = (f"{n}{layer}" for n in ("a", "xhat", "xc", "inv_std"))
        d[a] = s["tanh_backward"](d[f"h{layer}"], v[f"h{layer}"])
        gamma = f"gamma{layer}"
        d[xhat], d[gamma], d[f"beta{layer}"] = s["scale_shift_backward"](d[a], v[xhat], v[gamma])
        d[inv_std], d[f"var{layer}"] = s["variance_backward"](d[xhat], v[xc], v[inv_std])
        d[xc] = s["centred_backward"](d[xhat], d[f"var{layer}"], v[xc], v[inv_std])
        d[f"z{layer}"], d[f"mu{layer}"] = s["mean_backward"](d[xc])
        h_in = v["h1"] if layer == 2 else X
        dh_in, d[f"W{layer}"], d[f"b{layer}"] = s["affine_backward"](d[f"z{layer}"], h_in, v[f"W{layer}"])
        if layer == 2:
            d["h1"] = dh_in
    return d
