"""RNN rules: backpropagation through time with the carry, the `+=` or the slope misplaced.

They need `rnn` (the problem of a vanilla tanh RNN: see `hint_context.checked_rnn`). The rules
run a small reference BPTT with one mistake switched on and compare: a rule fires only when
expected is the correct gradient of that problem (which also tells which gradient it is: dx,
dh0 or dprev_h, dWx, dWh, db) and actual is exactly the mistaken one. Each rule takes (actual,
ctx) with actual float64, finite, shaped like expected and not close to it, and returns a Hint
or None.
"""

from __future__ import annotations

import numpy as np

from .hint_context import Hint, HintContext, RnnProblem, close, pair_tol

__all__ = ["no_carry", "one_step_share", "slope_after_matmul"]

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
    """(name, the correct gradients) when expected is one of the correct gradients of ctx.rnn."""
    if ctx.rnn is None:
        return None
    right = _bptt(ctx.rnn)
    e = ctx.expected
    for name, (total, *_) in right.items():
        if total.shape == e.shape and close(total, e, pair_tol(total, e)):
            return name, right
    return None


def _matches(a: np.ndarray, right: np.ndarray, wrong: np.ndarray) -> bool:
    """actual equals the mistaken gradient, which differs from the right one."""
    return not close(wrong, right, 10 * pair_tol(wrong, right)) and close(a, wrong, pair_tol(a, wrong))


def no_carry(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the BPTT gradient where step t receives only dh[:, t], not step t+1's dprev_h."""
    found = _which(ctx)
    if found is None or ctx.rnn.x.shape[1] < 2:
        return None
    name, right = found
    if not _matches(a, right[name][0], _bptt(ctx.rnn, carry=False)[name][0]):
        return None
    return Hint(
        "rnn-no-carry",
        f"{ctx.who} is what you get when each step only receives dh[:, t]: the gradient reaching "
        "h_t also comes from step t+1 — feed step t with dh[:, t] plus the dprev_h that step t+1 "
        "returned (nothing comes after the last step).",
    )


def one_step_share(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is one time step's share (the first or the last) of a parameter gradient."""
    found = _which(ctx)
    if found is None or found[0] not in _SHARED or ctx.rnn.x.shape[1] < 2:
        return None
    name, right = found
    total, *shares = right[name]
    for t in (0, len(shares) - 1):
        if _matches(a, total, shares[t]):
            return Hint(
                "rnn-one-step",
                f"{ctx.who} is the share of time step t = {t} alone (of {len(shares)} steps): the "
                "same weights are used at every step, so add (+=) every step's share instead of "
                "overwriting it (=).",
            )
    return None


def slope_after_matmul(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual comes from passing back (g @ Wh.T) * (1 − h²) instead of (g * (1 − h²)) @ Wh.T."""
    found = _which(ctx)
    if found is None:
        return None
    name, right = found
    if not _matches(a, right[name][0], _bptt(ctx.rnn, slope_after=True)[name][0]):
        return None
    via = "" if name in ("dprev_h", "dh0") else " (it reaches this gradient through the dprev_h passed back)"
    return Hint(
        "rnn-slope-after-matmul",
        f"{ctx.who} applies tanh's slope after the product with Wh{via}: (dnext_h @ Wh.T) * "
        "(1 − next_h²) instead of first da = dnext_h * (1 − next_h²), then dprev_h = da @ Wh.T — "
        "the slope belongs to this step's own tanh, before the weights.",
    )
