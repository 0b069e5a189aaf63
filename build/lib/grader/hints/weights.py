"""Weight-matrix rules: a missing transpose of a square W, and a missing (or extra) L2 term.

Both need `weights`: a square W (K, K) with expected of shape (..., K) for `no-transpose`, a W
shaped like expected (the parameter of this gradient) for `l2-term`. Each rule takes (actual,
ctx) with actual float64, finite, shaped like expected and not close to it, and returns a Hint
or None.
"""

from __future__ import annotations

import numpy as np

from .._validate import max_abs
from ..i18n import _
from .context import ALMOST_RTOL, FACTOR_RTOL, Hint, HintContext, Rule, close, pair_tol
from .format import fmt_factor

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "no-transpose": "G @ W where G @ W.T was expected (dx = dout @ W with a square W; needs weights).",
    "l2-term": "off by exactly k·W: the L2 term reg·W (or 2·reg·W) missing or counted twice (needs "
    "weights shaped like expected; reg names the multiple).",
}

__all__ = [
    "RULES",
    "CODES",
    "l2_term",
    "no_transpose",
]

#: Largest condition number of W for which expected @ inv(W.T) is trusted.
_MAX_COND = 1e6


def no_transpose(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """expected == G @ W.T for some G (the gradient arriving at the product), actual == G @ W.

    G is recovered from expected (W square and well conditioned); a symmetric W gives nothing
    to see. The trailing axes of expected of total size K are the ones W acts on.
    """
    w, e = ctx.weights, ctx.expected
    if w is None or w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 2 or e.size % w.shape[0]:
        return None
    if np.linalg.cond(w) > _MAX_COND:
        return None
    k = w.shape[0]
    g = np.linalg.solve(w, e.reshape(-1, k).T).T  # e = G @ W.T  <=>  e.T = W @ G.T
    used = (g @ w).reshape(e.shape)
    if close(used, e, 10 * pair_tol(used, e)) or not close(a, used, pair_tol(a, used)):
        return None
    return Hint(
        "no-transpose",
        _("{who} is G @ W where the expected one is G @ W.T (G the gradient arriving at the "
          "product, e.g. dout): the transpose of W is missing — the shapes only fit because W is "
          "square: dx = dout @ W.T.").format(who=ctx.who),
    )


def l2_term(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual − expected == k · W for one constant k ≠ 0, W (weights) shaped like expected.

    With reg, the message says which multiple of reg·W it is (the L2 term missing, counted
    twice, or 2·reg·W where reg·W was meant).
    """
    w, e = ctx.weights, ctx.expected
    if w is None or w.shape != e.shape or int(np.sum(np.abs(w) > ALMOST_RTOL * max_abs(w))) < 2:
        return None
    d = a - e
    k = float(np.vdot(d, w) / np.vdot(w, w))
    tol = pair_tol(a, e)
    if max_abs(k * w) <= 10 * tol or not close(d, k * w, tol):
        return None
    cause = _l2_cause(k, ctx.reg)
    end = "" if cause.endswith("?") else "."
    return Hint(
        "l2-term",
        _("{who} differs from the expected one by exactly {k}·W (W the weights): {cause}{end}").format(
            who=ctx.who, k=f"{k:.3g}", cause=cause, end=end),
    )


def _l2_cause(k: float, reg: float | None) -> str:
    """What a difference of k·W means, in terms of reg when it is known."""
    if reg is not None and reg > 0:
        m = k / reg
        if abs(m + 1) <= FACTOR_RTOL:
            return _(
                "that is −reg·W, the L2 term is missing — the gradient of ½·reg·‖W‖² is reg·W, add "
                "it to the data term (dW += reg * W)"
            )
        if abs(m + 2) <= FACTOR_RTOL:
            return _("that is −2·reg·W, the L2 term is missing — the gradient of reg·‖W‖² is 2·reg·W: add it")
        if abs(m - 1) <= FACTOR_RTOL:
            return _(
                "that is one reg·W too many — the L2 term added twice, or 2·reg·W where the loss's "
                "½·reg·‖W‖² gives reg·W"
            )
        return _("that is {factor}·reg·W — the L2 term has the wrong factor (½·reg·‖W‖² gives reg·W)").format(
            factor=fmt_factor(m))
    if k < 0:
        return _("a term proportional to W is missing — is it the L2 regularisation term reg·W "
                 "(dW += reg * W)?")
    return _("a term proportional to W is too much — is the L2 term counted twice, or 2·reg·W "
             "for ½·reg·‖W‖²?")


#: This module's value rules with their rank among all the generic ones (grader.hints asks
#: them in rank order, most specific first; leave gaps for new rules).
RULES: tuple[tuple[int, Rule], ...] = (
    (90, l2_term),
    (120, no_transpose),
)
