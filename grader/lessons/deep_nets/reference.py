"""Lesson 08's references for its visible checks, and its whole backward pass chained.

A visible check cell must not show the formula its exercise asks the student to derive, so the
values it compares with come from here:

- `optimiser_reference`: the weights and the state of `sgd_momentum`, `rmsprop` or `adam` after
  some steps, taken by PyTorch's own optimisers (their state translated to CS231n's names);
- `running_averages`: batch norm's running mean and variance after a sequence of training
  batches, by PyTorch;
- `dropout_dx`: the gradient of inverted dropout, read off the forward pass's own output;
- `chained_backward`: every gradient of the lesson's two-layer batch-norm net from the student's
  step functions, for the comparison with PyTorch;
- `layernorm_problems`: the layer-norm batches of the hidden checks (kept here, not in the
  notebook, so that the student does not read the hidden tests' inputs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import torch

from ...referees import referee, referee_all

__all__ = [
    "OPTIMISER_DEFAULTS",
    "chained_backward",
    "dropout_dx",
    "layernorm_problems",
    "optimiser_reference",
    "running_averages",
]

#: The hyper-parameters of the lesson's update rules when a config leaves them out.
OPTIMISER_DEFAULTS = {
    "sgd_momentum": {"learning_rate": 1e-2, "momentum": 0.9},
    "rmsprop": {"learning_rate": 1e-2, "decay_rate": 0.99, "epsilon": 1e-8},
    "adam": {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
}


def _optimiser(rule: str, p: torch.Tensor, h: Mapping) -> torch.optim.Optimizer:
    """PyTorch's optimiser for `rule`, its state set from CS231n's config keys. CS231n's momentum
    v <- mu v - lr g; w <- w + v is PyTorch's buf <- mu buf + g; w <- w - lr buf with v = -lr buf;
    RMSprop and Adam (eps added after the square root, bias-corrected moments) are the same rules."""
    lr = h["learning_rate"]
    if rule == "sgd_momentum":
        opt = torch.optim.SGD([p], lr=lr, momentum=h["momentum"])
        if "velocity" in h:
            opt.state[p]["momentum_buffer"] = torch.tensor(h["velocity"], dtype=torch.float64) / -lr
        return opt
    if rule == "rmsprop":
        opt = torch.optim.RMSprop([p], lr=lr, alpha=h["decay_rate"], eps=h["epsilon"])
        cache = torch.tensor(h["cache"], dtype=torch.float64) if "cache" in h else torch.zeros_like(p)
        opt.state[p].update(step=torch.tensor(0.0), square_avg=cache)
        return opt
    opt = torch.optim.Adam([p], lr=lr, betas=(h["beta1"], h["beta2"]), eps=h["epsilon"])
    opt.state[p].update(
        step=torch.tensor(float(h.get("t", 0))),
        exp_avg=torch.tensor(h["m"], dtype=torch.float64) if "m" in h else torch.zeros_like(p),
        exp_avg_sq=torch.tensor(h["v"], dtype=torch.float64) if "v" in h else torch.zeros_like(p),
    )
    return opt


def _state(rule: str, opt: torch.optim.Optimizer, p: torch.Tensor, lr: float) -> dict[str, np.ndarray]:
    """The optimiser's state under CS231n's names."""
    state = opt.state[p]
    if rule == "sgd_momentum":
        return {"velocity": -lr * state["momentum_buffer"].numpy()}
    if rule == "rmsprop":
        return {"cache": state["square_avg"].numpy().copy()}
    return {"m": state["exp_avg"].numpy().copy(), "v": state["exp_avg_sq"].numpy().copy(),
            "t": np.float64(state["step"].item())}


@referee
def optimiser_reference(rule: str, w: np.ndarray, grads: Sequence[np.ndarray],
                        config: Mapping | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The K successive weights of `rule` fed `grads` from `w`, and its state after the last step,
    taken by PyTorch's own optimiser (torch.optim.SGD with momentum, RMSprop, Adam) in float64.

    Inputs: rule — "sgd_momentum", "rmsprop" or "adam"; w — any shape; grads — K arrays shaped
    like w; config — hyper-parameters (defaults: OPTIMISER_DEFAULTS) and optionally a starting
    state ("velocity"; "cache"; "m", "v", "t").
    Returns (trajectory (K, *w.shape), state): state holds "velocity", "cache", or "m", "v", "t".
    """
    h = {**OPTIMISER_DEFAULTS[rule], **(config or {})}
    p = torch.tensor(np.array(w, dtype=np.float64), requires_grad=True)
    opt = _optimiser(rule, p, h)
    trajectory = []
    for g in grads:
        p.grad = torch.tensor(np.array(g, dtype=np.float64).reshape(p.shape))
        opt.step()
        trajectory.append(p.detach().numpy().copy())
    return np.array(trajectory), _state(rule, opt, p, h["learning_rate"])


@referee
def running_averages(batches: Sequence[np.ndarray], momentum: float = 0.9,
                     mean: np.ndarray | None = None, var: np.ndarray | None = None
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Batch norm's (running_mean, running_var), each (D,), after every batch (N, D) of `batches`.

    The old value keeps the weight `momentum`; the batch's mean and biased variance (divided by
    N) get 1 - momentum. `mean` and `var` are the starting values (zeros when None). Computed with
    PyTorch's exponential moving average (`torch.lerp`) of its batch statistics.
    """
    out = []
    dim = np.shape(batches[0])[1:]

    def start(value: np.ndarray | None) -> torch.Tensor:
        return torch.zeros(dim, dtype=torch.float64) if value is None else torch.as_tensor(
            np.array(value, dtype=np.float64))

    running_mean, running_var = start(mean), start(var)
    for batch in batches:
        x = torch.tensor(np.asarray(batch, dtype=np.float64))
        batch_var, batch_mean = torch.var_mean(x, dim=0, correction=0)
        running_mean = torch.lerp(running_mean, batch_mean, 1.0 - momentum)
        running_var = torch.lerp(running_var, batch_var, 1.0 - momentum)
        out.append((running_mean.numpy().copy(), running_var.numpy().copy()))
    return out


@referee
def dropout_dx(out: np.ndarray, dout: np.ndarray, p: float) -> np.ndarray:
    """dL/dx of train-mode inverted dropout with keep probability p, given its output `out` (a unit
    was dropped where out is 0; the lesson's inputs are never 0) and the upstream gradient dout:
    PyTorch's autograd through the same dropout, its mask read off `out`."""
    x = torch.ones(np.shape(out), dtype=torch.float64, requires_grad=True)
    kept = torch.as_tensor(np.asarray(out) != 0)
    (x * kept / p).backward(torch.as_tensor(np.asarray(dout, dtype=np.float64)))
    return x.grad.numpy()


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


_LayerNormProblem = tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float | None]


def layernorm_problems(seed: int) -> list[_LayerNormProblem]:
    """Fresh layer-norm problems for the hidden checks: (label, x, gamma, beta, dout, eps), eps None
    for the default. Batches of several sizes (one of a single example), examples far from 0 and
    of very different widths, and an example whose features are all equal."""
    rng = np.random.default_rng(seed)
    problems = []
    for N, D, eps in [(5, 4, None), (1, 6, 1e-3), (3, 3, 1e-5), (20, 7, 0.1)]:
        x = rng.normal(loc=rng.normal(size=(N, 1)) * 5, size=(N, D)) * rng.uniform(0.1, 10, size=(N, 1))
        if N > 1:
            x[1] = 2.5                                   # an example whose features are all equal
        gamma, beta, dout = rng.normal(size=D), rng.normal(size=D) + 1.0, rng.normal(size=(N, D))
        problems.append((f"N={N}, D={D}, eps={'default' if eps is None else eps}", x, gamma, beta, dout, eps))
    return problems


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
