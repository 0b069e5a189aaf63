"""RNN rules: backpropagation through time with the carry, the `+=` or the slope misplaced.

The problem `rnn` (`problem={"rnn": {...}}`): a vanilla tanh RNN, h_t = tanh(x_t Wx + h_(t−1) Wh
+ b), given as a sequence {"x": (N, T, D), "h0": (N, H), "Wx": (D, H), "Wh": (H, H), "b": (H,),
"dh": (N, T, H)} or one step {"x": (N, D), "prev_h", "Wx", "Wh", "b", "dnext_h": (N, H)}; expected
is one of its gradients. The rules run a small reference BPTT with one mistake switched on and
compare: a rule fires only when expected is the correct gradient of that problem (which also
tells which gradient it is: dx, dh0 or dprev_h, dWx, dWh, db) and actual is exactly the mistaken
one. Each rule takes (actual, ctx) with actual float64, finite, shaped like expected and not
close to it, and returns a Hint or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import describe, float64_array, fmt_shape, require_finite
from ..errors import ToolkitInputError
from ..i18n import _
from .context import Hint, HintContext, close, pair_tol, problem_of
from .problem import Problem


@dataclass(frozen=True)
class RnnProblem:
    """A vanilla tanh RNN, h_t = tanh(x_t Wx + h_(t−1) Wh + b), and the upstream gradient dh of
    every state: x (N, T, D), h0 (N, H), wx (D, H), wh (H, H), b (H,), dh (N, T, H); step — the
    problem was given as one step (x (N, D), prev_h, dnext_h), its gradients named dx, dprev_h."""

    x: np.ndarray
    h0: np.ndarray
    wx: np.ndarray
    wh: np.ndarray
    b: np.ndarray
    dh: np.ndarray
    step: bool


#: The arrays of an RNN problem: a sequence (x (N, T, D), h0, dh (N, T, H)) or one step
#: (x (N, D), prev_h, dnext_h (N, H)); both with Wx (D, H), Wh (H, H) and b (H,).
RNN_KEYS = (("x", "h0", "Wx", "Wh", "b", "dh"), ("x", "prev_h", "Wx", "Wh", "b", "dnext_h"))


def checked_rnn(rnn: Any, shape: tuple[int, ...] | None = None) -> RnnProblem | None:
    """None, or the RNN problem as a sequence (an RnnProblem).

    Accepts a mapping with the keys of either line of RNN_KEYS (extra keys are ignored); one
    step becomes a sequence of length T = 1. Raises ToolkitInputError on missing keys or shapes
    that do not fit together. shape (expected's) is not checked: the rules find which gradient
    expected is by its values.
    """
    __tracebackhide__ = True
    if rnn is None:
        return None
    if not hasattr(rnn, "keys") or not any(all(k in rnn for k in keys) for keys in RNN_KEYS):
        raise ToolkitInputError(
            _("rnn must be a dict with x, h0, Wx, Wh, b, dh (a sequence) or x, prev_h, Wx, Wh, b, "
              "dnext_h (one step), but got {got}.").format(got=describe(rnn))
        )
    keys = RNN_KEYS[0] if all(k in rnn for k in RNN_KEYS[0]) else RNN_KEYS[1]
    arrays = []
    for key in keys:
        arr = float64_array(rnn[key], f"rnn['{key}']")
        require_finite(arr, f"rnn['{key}']")
        arrays.append(arr)
    x, h0, wx, wh, b, dh = arrays
    if keys is RNN_KEYS[1]:
        x, dh = x[:, None, :], dh[:, None, :]
    ok = x.ndim == 3 and h0.ndim == 2 and wx.ndim == 2 and b.ndim == 1
    if ok:
        (n, t, d), h = x.shape, b.shape[0]
        ok = h0.shape == (n, h) and wx.shape == (d, h) and wh.shape == (h, h) and dh.shape == (n, t, h)
    if not ok:
        shapes = ", ".join(f"{k} {fmt_shape(np.shape(rnn[k]))}" for k in keys)
        raise ToolkitInputError(
            _("the arrays of rnn do not fit together ({shapes}); expected x (N, T, D), h0 (N, H), "
              "Wx (D, H), Wh (H, H), b (H,), dh (N, T, H) (or x (N, D), prev_h, dnext_h (N, H)).").format(
                shapes=shapes)
        )
    return RnnProblem(x, h0, wx, wh, b, dh, step=keys is RNN_KEYS[1])


#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "rnn-no-carry": "backprop through time where step t receives only dh[:, t], not the gradient "
    "from step t+1 (needs rnn).",
    "rnn-one-step": "a shared weight's gradient holding one time step's share (first or last): `=` "
    "instead of `+=` across the steps (needs rnn).",
    "rnn-slope-after-matmul": "tanh's slope applied after the product with Wh, (dnext_h @ Wh.T) * "
    "(1 − h²), instead of before it (needs rnn).",
}

__all__ = [
    "CODES",
    "PROBLEMS",
    "RNN_KEYS",
    "checked_rnn",
    "no_carry",
    "one_step_share",
    "RnnProblem",
    "slope_after_matmul",
]

#: The parameter gradients, summed over the time steps.
_SHARED = ("dWx", "dWh", "db")


def _bptt(p: RnnProblem, *, carry: bool = True, slope_after: bool = False) -> dict[str, list[np.ndarray]]:
    """The gradients of sum(h * dh) for the RNN p: name -> [the total, then one share per step].

    carry=False: step t receives only dh[:, t] (nothing from step t+1); slope_after=True: the
    gradient passed back is (g @ Wh.T) * (1 − h_t²) instead of (g * (1 − h_t²)) @ Wh.T.
    Totals only for dx (N, T, D) and dh0 (N, H).
    """
    n, steps, _ = p.x.shape
    states = [p.h0]
    for t in range(steps):
        states.append(np.tanh(p.x[:, t] @ p.wx + states[-1] @ p.wh + p.b))
    dx = np.zeros(p.x.shape)
    shares: dict[str, list[np.ndarray]] = {k: [np.zeros(0)] * steps for k in _SHARED}
    back = np.zeros_like(p.h0)
    for t in reversed(range(steps)):
        g = p.dh[:, t] + (back if carry else 0.0)
        slope = 1 - states[t + 1] ** 2
        da = g * slope
        dx[:, t] = da @ p.wx.T
        back = (g @ p.wh.T) * slope if slope_after else da @ p.wh.T
        shares["dWx"][t], shares["dWh"][t], shares["db"][t] = p.x[:, t].T @ da, states[t].T @ da, da.sum(0)
    grads = {"dx": [dx[:, 0] if p.step else dx], ("dprev_h" if p.step else "dh0"): [back]}
    return grads | {k: [sum(v[1:], v[0]), *v] for k, v in shares.items()}


def _which(ctx: HintContext) -> tuple[str, dict[str, list[np.ndarray]]] | None:
    """(name, the correct gradients) when expected is one of the correct gradients of ctx's RNN."""
    if problem_of(ctx, RnnProblem) is None:
        return None
    right = _bptt(problem_of(ctx, RnnProblem))
    e = ctx.expected
    for name, (total, *_shares) in right.items():
        if total.shape == e.shape and close(total, e, pair_tol(total, e)):
            return name, right
    return None


def _matches(a: np.ndarray, right: np.ndarray, wrong: np.ndarray) -> bool:
    """actual equals the mistaken gradient, which differs from the right one."""
    return not close(wrong, right, 10 * pair_tol(wrong, right)) and close(a, wrong, pair_tol(a, wrong))


def no_carry(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the BPTT gradient where step t receives only dh[:, t], not step t+1's dprev_h."""
    found = _which(ctx)
    if found is None or problem_of(ctx, RnnProblem).x.shape[1] < 2:
        return None
    name, right = found
    if not _matches(a, right[name][0], _bptt(problem_of(ctx, RnnProblem), carry=False)[name][0]):
        return None
    return Hint(
        "rnn-no-carry",
        _("{who} is what you get when each step only receives dh[:, t]: the gradient reaching "
          "h_t also comes from step t+1 — feed step t with dh[:, t] plus the dprev_h that step t+1 "
          "returned (nothing comes after the last step).").format(who=ctx.who),
    )


def one_step_share(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is one time step's share (the first or the last) of a parameter gradient."""
    found = _which(ctx)
    if found is None or found[0] not in _SHARED or problem_of(ctx, RnnProblem).x.shape[1] < 2:
        return None
    name, right = found
    total, *shares = right[name]
    for t in (0, len(shares) - 1):
        if _matches(a, total, shares[t]):
            return Hint(
                "rnn-one-step",
                _("{who} is the share of time step t = {t} alone (of {steps} steps): the "
                  "same weights are used at every step, so add (+=) every step's share instead of "
                  "overwriting it (=).").format(who=ctx.who, t=t, steps=len(shares)),
            )
    return None


def slope_after_matmul(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual comes from passing back (g @ Wh.T) * (1 − h²) instead of (g * (1 − h²)) @ Wh.T."""
    found = _which(ctx)
    if found is None:
        return None
    name, right = found
    if not _matches(a, right[name][0], _bptt(problem_of(ctx, RnnProblem), slope_after=True)[name][0]):
        return None
    via = "" if name in ("dprev_h", "dh0") else _(
        " (it reaches this gradient through the dprev_h passed back)")
    return Hint(
        "rnn-slope-after-matmul",
        _("{who} applies tanh's slope after the product with Wh{via}: (dnext_h @ Wh.T) * "
          "(1 − next_h²) instead of first da = dnext_h * (1 − next_h²), then dprev_h = da @ Wh.T — "
          "the slope belongs to this step's own tanh, before the weights.").format(who=ctx.who, via=via),
    )


PROBLEMS = (Problem("rnn", checked_rnn, (no_carry, one_step_share, slope_after_matmul)),)
