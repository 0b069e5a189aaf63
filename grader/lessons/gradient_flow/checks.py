"""Lesson 07's checks: the student's functions against PyTorch or numerical gradients, and the
mistakes named.

Every check prints the toolkit's ✓/✗ line (`grader.checks.compare` and `report`, as `check_close`
does). When a wrong value equals, to 1e-8, what a known mistake gives (each recomputed here in
NumPy with that one mistake), the hint for that mistake (`SLIPS`, code in `HINT_CODES`) replaces the
toolkit's generic one, and the CheckFailed names it. So a check cell in the notebook shows what it
checks, and the rules of the answers stay here, out of the student's sight until a mistake calls
for them.

The notebook passes the student's functions in as its declaration calls them
(`check_norms(label, graded.layer_gradient_norms, ...)`: NumPy only, every argument left
unchanged, which the declaration checks). What a function returned goes through the toolkit's
trusted path (`compare`, as_array, as_float) before anything else touches it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...checks import compare, report
from ...errors import CheckFailed
from ...hints import Hint, hint_args
from ...i18n import N_
from ...i18n import lesson_text as _
from ...numgrad import eval_numerical_gradient, rel_error
from ...referees import referee_all
from ...report_lines import fail_line, pass_line
from ...trusted import as_array, as_float, as_items, plain_ndarray

__all__ = [
    "HINT_CODES",
    "SLIPS",
    "carried_reference",
    "check_carried",
    "check_centring_biases",
    "check_dead",
    "check_norms",
    "check_norms_value",
    "check_residual_layer",
    "numerical_norms",
    "torch_norms",
]

#: How far the norms may be from PyTorch's (relative error): a right backward pass is within
#: rounding (about 1e-15); a slope taken at the wrong place is off by far more.
NORMS_RTOL = 1e-7
#: How far a dead fraction may be from its value (a share of units: an exact ratio).
DEAD_ATOL = 1e-12
#: A wrong value "is" a known mistake when it equals what that mistake gives to this relative error.
SLIP_RTOL = 1e-8

#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "residual-no-skip": "a residual layer's (or network's) input gradient without the skip path, which "
    "hands the gradient down unchanged (lesson 07).",
    "residual-skip-slope": "a residual layer's (or network's) skip path multiplied by the activation's "
    "slope (lesson 07).",
    "residual-skip-twice": "a residual layer's (or network's) skip path counted twice (lesson 07).",
    "norms-reversed": "layer gradient norms returned last layer first (lesson 07).",
    "norms-slope-at-output": "a deep network's backward pass with the slope taken at the layer's output h "
    "instead of its pre-activation z (lesson 07).",
    "norms-dw-from-output": "a weight gradient computed from the layer's output instead of its input "
    "(lesson 07).",
    "norms-plain-network": "residual=True ignored: the norms of the network without skip connections "
    "(lesson 07).",
    "dead-per-input": "a dead-unit share computed per input (row) instead of per unit (column) (lesson 07).",
    "dead-alive-share": "the share of alive ReLU units where the dead ones were asked (lesson 07).",
    "dead-entry-share": "the share of non-positive entries instead of units never positive (lesson 07).",
    "dead-count": "the number of dead units instead of their share (lesson 07).",
    "dead-zero-alive": "a pre-activation of exactly 0 counted as alive (lesson 07).",
    "carried-no-transpose": "a gradient carried back through a column recurrence by W_hh instead of its "
    "transpose (lesson 07).",
    "centring-row-sums": "centring biases from the rows of W instead of its columns (lesson 07).",
}

#: code -> the hint shown when a value equals what that mistake gives.
SLIPS: dict[str, str] = {
    "residual-no-skip": N_(
        "your gradient lacks the skip path: in h_out = h_in + φ(h_in W), h_in also reaches h_out directly, "
        "and the gradients along the two paths add."),
    "residual-skip-slope": N_(
        "the gradient of your skip path went through the activation's slope: the term h_in of "
        "h_out = h_in + φ(h_in W) has no φ on it."),
    "residual-skip-twice": N_(
        "your gradient holds the skip path twice: h_in reaches h_out directly along one path only."),
    "norms-reversed": N_(
        "your norms come in reverse order: norms[0] belongs to the first layer, next to the input."),
    "norms-slope-at-output": N_(
        "your slopes are taken at each layer's output h: φ' belongs at the layer's pre-activation z, "
        "the value φ was applied to."),
    "norms-dw-from-output": N_(
        "your weight gradients use each layer's output: z = h_in W, so dL/dW is built from the "
        "layer's input."),
    "norms-plain-network": N_(
        "these are the norms of the network *without* skip connections: use residual."),
    "dead-per-input": N_(
        "this is the share of inputs (rows) on which every unit is off; a unit is a column."),
    "dead-alive-share": N_("this is the share of units that are alive; the dead ones were asked for."),
    "dead-entry-share": N_(
        "this is the share of all entries whose slope is 0; a unit is dead only if no input at all "
        "gives it a gradient."),
    "dead-count": N_("this is the number of dead units; the share was asked for."),
    "dead-zero-alive": N_(
        "you count a pre-activation of exactly 0 as alive: what is ReLU's slope there, in "
        "ACTIVATIONS['relu']?"),
    "carried-no-transpose": N_(
        "these are the norms of W_hh^k g: with the state as a column, h_t = W_hh h_(t-1), what does the "
        "chain rule make of one step back?"),
    "centring-row-sums": N_(
        "your biases add up the rows of W: entry j of h @ W sums column j of W, times the entries of h."),
}

LEAK = 0.01


def _slope(activation: str, z: np.ndarray) -> np.ndarray:
    if activation == "sigmoid":
        s = 0.5 * (1.0 + np.tanh(0.5 * z))
        return s * (1.0 - s)
    if activation == "tanh":
        return 1.0 - np.tanh(z) ** 2
    if activation == "relu":
        return (z > 0).astype(np.float64)
    return np.where(z > 0, 1.0, LEAK)


def _act(activation: str, z: np.ndarray) -> np.ndarray:
    if activation == "sigmoid":
        return 0.5 * (1.0 + np.tanh(0.5 * z))
    if activation == "tanh":
        return np.tanh(z)
    if activation == "relu":
        return np.maximum(z, 0.0)
    return np.where(z > 0, z, LEAK * z)


def _forward(weights: Sequence[np.ndarray], x: np.ndarray, activation: str, residual: bool):
    zs, hs = [], [x]
    for w in weights:
        z = hs[-1] @ w
        zs.append(z)
        hs.append(_act(activation, z) + hs[-1] if residual else _act(activation, z))
    return zs, hs


def _norms(weights: Sequence[np.ndarray], x: np.ndarray, dout: np.ndarray, activation: str, residual: bool,
           slip: str = "") -> np.ndarray:
    """The layer gradient norms, right (`slip` "") or with one mistake (a key of SLIPS)."""
    zs, hs = _forward(weights, x, activation, residual)
    norms = np.zeros(len(weights))
    dh = dout
    for i in reversed(range(len(weights))):
        at = hs[i + 1] if slip == "norms-slope-at-output" else zs[i]
        dz = dh * _slope(activation, at)
        h_in = hs[i + 1] if slip == "norms-dw-from-output" else hs[i]
        norms[i] = np.linalg.norm(h_in.T @ dz)
        below = dz @ weights[i].T
        if not residual or slip == "residual-no-skip":
            dh = below
        elif slip == "residual-skip-slope":
            dh = below + dz
        elif slip == "residual-skip-twice":
            dh = below + 2 * dh
        else:
            dh = below + dh
    return norms


def torch_norms(weights: Sequence[np.ndarray], x: np.ndarray, dout: np.ndarray, activation: str,
                residual: bool = False) -> np.ndarray:
    """‖dL/dW_i‖ for every layer i from PyTorch's autograd in float64, L = sum(h_L * dout), where
    h_{i+1} = f(h_i @ W_i) (+ h_i with `residual`). weights: L arrays (D_i, D_{i+1}); x: (N, D_0);
    dout: (N, D_L). Returns an (L,) array."""
    import torch

    act = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu,
           "leaky_relu": lambda t: torch.nn.functional.leaky_relu(t, LEAK)}[activation]
    ws = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in weights]
    h = torch.tensor(x, dtype=torch.float64)
    for w in ws:
        a = act(h @ w)
        h = h + a if residual else a
    (h * torch.tensor(dout, dtype=torch.float64)).sum().backward()
    return np.array([w.grad.norm().item() for w in ws])


def numerical_norms(weights: Sequence[np.ndarray], x: np.ndarray, dout: np.ndarray, activation: str,
                    residual: bool = False) -> np.ndarray:
    """‖dL/dW_i‖ for every layer from centred differences (`eval_numerical_gradient` nudges every
    weight), L = sum(h_L * dout). For ReLU and leaky ReLU it holds only when no pre-activation sits
    within the nudge of a kink: CheckFailed says so otherwise."""
    weights = [np.array(w, dtype=np.float64) for w in weights]
    zs, _hs = _forward(weights, x, activation, residual)
    if activation in ("relu", "leaky_relu") and min(np.abs(z).min() for z in zs) <= 1e-4:
        raise CheckFailed(_("a pre-activation sits at a kink: the numerical gradient cannot be trusted here"))

    def loss(_nudged):   # reads the weights by reference; eval_numerical_gradient nudges them in place
        return float(np.sum(_forward(weights, x, activation, residual)[1][-1] * dout))

    return np.array([np.linalg.norm(eval_numerical_gradient(loss, w)) for w in weights])


def _named(result, actual: Any, slips: Sequence[tuple[str, Callable[[], Any]]]):
    """`result` with the hint of the first slip whose value `actual` equals (SLIP_RTOL), if any."""
    if result.passed:
        return result
    mine = plain_ndarray(actual)
    if mine is None or mine.dtype.kind not in "biuf":
        return result
    mine = mine.astype(np.float64)
    for code, value in slips:
        with np.errstate(all="ignore"):
            wrong = np.asarray(value(), dtype=np.float64)
        if wrong.shape == mine.shape and np.isfinite(wrong).all() and rel_error(mine, wrong) < SLIP_RTOL:
            return replace(result, hint=Hint(code, _(SLIPS[code])))
    return result


def _compare(name: str, actual: Any, expected: Any, slips: Sequence[tuple[str, Callable[[], Any]]],
             tol: float, **hints: Any) -> None:
    """check_close, with a known mistake's hint in place of the toolkit's generic one."""
    __tracebackhide__ = True
    expected = np.asarray(expected, dtype=np.float64)
    args = hint_args(expected.shape, **hints) if hints else None
    result, line = compare(name, actual, expected, tol=tol, args=args)
    report([(_named(result, actual, slips), line)])


def _norm_slips(weights, x, dout, activation, residual) -> list[tuple[str, Callable[[], Any]]]:
    slips = [("norms-reversed", lambda: _norms(weights, x, dout, activation, residual)[::-1]
              if len(weights) > 1 else np.full(1, np.nan))]
    if residual:
        slips += [(code, lambda code=code: _norms(weights, x, dout, activation, True, code))
                  for code in ("residual-no-skip", "residual-skip-slope", "residual-skip-twice")]
        slips.append(("norms-plain-network", lambda: _norms(weights, x, dout, activation, False)))
    slips += [(code, lambda code=code: _norms(weights, x, dout, activation, residual, code))
              for code in ("norms-slope-at-output", "norms-dw-from-output")]
    return slips


def check_norms_value(label: str, norms: Any, expected: np.ndarray, weights: Sequence[np.ndarray],
                      x: np.ndarray, dout: np.ndarray, activation: str, residual: bool = False,
                      tol: float = 1e-6) -> None:
    """The norms `layer_gradient_norms` returned against `expected` (numerical or PyTorch's), with a
    hint when they are what a known mistake gives; CheckFailed when they differ."""
    __tracebackhide__ = True
    _compare(label, norms, expected, _norm_slips(weights, x, dout, activation, residual), tol)


def check_norms(label: str, layer_gradient_norms: Callable[..., Any], weights: Sequence[np.ndarray],
                x: np.ndarray, dout: np.ndarray, activation: str, residual: bool = False,
                keywords: bool = False) -> None:
    """Call `layer_gradient_norms(weights, x, dout, activation, residual)` (by keyword, with
    residual left at its default, when `keywords`) and compare its norms with `torch_norms`.
    Raises CheckFailed naming `label` (and a known mistake) when they differ."""
    __tracebackhide__ = True
    want = torch_norms(weights, x, dout, activation, residual)
    if keywords:
        got = layer_gradient_norms(weights=weights, x=x, dout=dout, activation=activation)
    else:
        got = layer_gradient_norms(weights, x, dout, activation, residual)
    got = as_array(got, _("{label}: the norms (one per layer) that layer_gradient_norms returned").format(
        label=label), shape=want.shape, float64=True)
    check_norms_value(label, got, want, weights, x, dout, activation, residual, tol=NORMS_RTOL)


def _torch_layer(dout, h_in, w, activation):
    """(dh_in, dw) of the residual layer h_out = h_in + act(h_in @ w), L = sum(h_out * dout), from
    PyTorch's autograd in float64."""
    import torch

    act = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu,
           "leaky_relu": lambda t: torch.nn.functional.leaky_relu(t, LEAK)}[activation]
    h = torch.tensor(h_in, dtype=torch.float64, requires_grad=True)
    wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    ((act(h @ wt) + h) * torch.tensor(dout, dtype=torch.float64)).sum().backward()
    return h.grad.numpy(), wt.grad.numpy()


def check_residual_layer(label: str, residual_layer_backward: Callable[..., Any], dout: np.ndarray,
                         h_in: np.ndarray, w: np.ndarray, activation: str) -> None:
    """Call `residual_layer_backward(dout, h_in @ w, h_in, w, activation)` and compare its dh_in and
    dw with PyTorch's; a dh_in without the skip path, with the skip path through the slope or with
    it twice is named. Raises CheckFailed when either differs."""
    __tracebackhide__ = True
    z = h_in @ w
    want_dh, want_dw = _torch_layer(dout, h_in, w, activation)
    returned = residual_layer_backward(dout, z, h_in, w, activation)
    dh, dw = as_items(returned, _("residual_layer_backward's result ({label})").format(label=label), 2,
                      ("dh_in", "dw"))
    through = (dout * _slope(activation, z)) @ w.T
    slips = [("residual-no-skip", lambda: through),
             ("residual-skip-slope", lambda: through + dout * _slope(activation, z)),
             ("residual-skip-twice", lambda: through + 2 * dout)]
    n = dout.shape[0]
    rows = []
    quantities = [(f"dh_in ({label})", dh, want_dh, slips), (f"dw ({label})", dw, want_dw, [])]
    for name, actual, expected, named in quantities:
        result, line = compare(name, actual, expected, tol=1e-7, args=hint_args(expected.shape, batch_size=n))
        rows.append((_named(result, actual, named), line))
    report(rows)


def check_dead(label: str, dead_fraction: Callable[[np.ndarray], Any], pre: np.ndarray,
               expected: float | None = None) -> None:
    """Call `dead_fraction(pre)` (pre: (N, H) pre-activations) and compare it with `expected` (by
    default the share of the H units that are never positive, computed here), naming the usual
    mistakes (a share per input, of alive units, of entries, a count, exact zeros counted as
    alive) and no generic guess beside them. Raises CheckFailed."""
    __tracebackhide__ = True
    off = np.asarray(pre) <= 0
    if expected is None:
        expected = float(np.mean(np.all(off, axis=0)))
    value = as_float(dead_fraction(pre), _("{label}: dead_fraction's result").format(label=label))
    units = off.shape[1]
    slips = [
        ("dead-zero-alive", lambda: np.mean(np.all(np.asarray(pre) < 0, axis=0))),
        ("dead-per-input", lambda: np.mean(np.all(off, axis=1))),
        ("dead-alive-share", lambda: 1.0 - expected),
        ("dead-entry-share", lambda: np.mean(off)),
        ("dead-count", lambda: expected * units if units > 1 else np.nan),
    ]
    slips = [(code, fn) for code, fn in slips if not abs(fn() - expected) <= DEAD_ATOL]
    result, line = compare(label, value, np.float64(expected), tol=DEAD_ATOL)
    if result.passed:
        line = pass_line(label, f"{value}")
    else:
        line = fail_line(label, _("{value}, expected {expected}").format(value=value, expected=expected))
        result = _named(result, value, slips)
        if result.hint is not None and result.hint.code not in HINT_CODES:   # no generic guess beside ours
            result = replace(result, hint=None)
    report([(result, line)])


def carried_reference(W_hh: np.ndarray, g: np.ndarray, steps: int, transpose: bool = True) -> np.ndarray:
    """‖dL/dh_(T-k)‖ / ‖g‖ for k = 1..steps, for the column recurrence h_t = W_hh h_(t-1) and
    g = dL/dh_T, by matrix powers (`transpose` False: the norms of W_hh^k g instead)."""
    m = W_hh.T if transpose else W_hh
    norms = [np.linalg.norm(np.linalg.matrix_power(m, k) @ g) for k in range(1, steps + 1)]
    return np.array(norms) / np.linalg.norm(g)


def check_carried(label: str, carried_gradient_norms: Callable[..., Any], W_hh: np.ndarray, g: np.ndarray,
                  steps: int) -> None:
    """Call `carried_gradient_norms(W_hh, g, steps)` and compare its ratios with `carried_reference`,
    naming the norms of W_hh^k g. Raises CheckFailed when they differ."""
    __tracebackhide__ = True
    want = carried_reference(W_hh, g, steps)
    wrong = carried_reference(W_hh, g, steps, transpose=False)
    got = carried_gradient_norms(W_hh, g, steps)
    _compare(label, got, want, [("carried-no-transpose", lambda: wrong)], tol=1e-9)


def check_centring_biases(label: str, biases: Any, i: int, weights: Sequence[np.ndarray],
                          h: np.ndarray) -> None:
    """biases[i] (i >= 1) against the centring condition h @ W_i + b_i == (h - 1/2) @ W_i for the rows
    of h; a bias from the rows of W_i is named. Raises CheckFailed when it fails."""
    __tracebackhide__ = True
    w = np.asarray(weights[i], dtype=np.float64)
    b = as_array(biases[i], f"biases[{i}]", shape=(w.shape[1],))
    _compare(label, h @ w + b, (h - 0.5) @ w, [("centring-row-sums", lambda: h @ w - 0.5 * w.sum(axis=1))],
             tol=1e-7)


referee_all(globals())
