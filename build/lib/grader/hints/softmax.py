"""Softmax rules: the one-hot term of a softmax cross-entropy gradient misplaced or off.

The gradient (p − onehot(y)) / N is recognised from expected alone (`_softmax_labels`). Each
rule takes (actual, ctx) with actual float64, finite, shaped like expected and not close to
it, and returns a Hint or None.
"""

from __future__ import annotations

import numpy as np

from .._validate import max_abs
from ..i18n import N_, _
from .context import FACTOR_RTOL, Hint, HintContext, Rule, close, pair_tol
from .format import fmt_factor

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "one-hot-index": "softmax gradient with the one-hot term subtracted at the wrong entries: "
    "whole columns (dx[:, y] -= 1), whole rows (dx[y] -= 1) or every entry.",
    "one-hot-term": "softmax gradient right except at each row's label entry, where it is off "
    "by one constant: the one-hot term missing (dx = p / N), doubled or not divided by N.",
}

__all__ = [
    "RULES",
    "CODES",
    "one_hot_index",
    "one_hot_term",
]

#: What each wrong place of the subtraction comes from (keys: the `where` of _subtractions).
_WRONG_PLACES = {
    "columns": N_("dx[:, y] -= 1 (or a loop over the labels) subtracts from whole columns "
                  "(in every row, at every label of the batch)"),
    "rows": N_("dx[y] -= 1 subtracts from whole rows (the rows numbered like the labels)"),
    "every entry": N_("it is subtracted from every entry (dx -= 1, or dx[:, y] -= 1 "
                      "when every class is among the labels)"),
}


def _softmax_labels(e: np.ndarray, tol: float) -> np.ndarray | None:
    """The labels y of a softmax cross-entropy gradient (p − onehot(y)) / N, or None.

    Such a gradient is 2-D (N, C) with C ≥ 2; every row sums to 0 and has exactly one
    negative entry (p − 1 < 0 at the label, p > 0 elsewhere), which gives y.
    """
    if e.ndim != 2 or e.shape[1] < 2 or e.shape[0] < 1:
        return None
    y = np.argmin(e, axis=1)
    rows = np.arange(e.shape[0])
    lowest = e[rows, y]
    others = e.copy()
    others[rows, y] = np.inf
    if (lowest >= -tol).any() or (others.min(axis=1) < -tol).any():
        return None
    if (np.abs(e.sum(axis=1)) > e.shape[1] * tol).any():
        return None
    return y


def _subtractions(shape: tuple[int, int], y: np.ndarray) -> tuple[tuple[str, np.ndarray], ...]:
    """(where, S): the entries a wrong one-hot subtraction hits (with multiplicity), shape (N, C)."""
    n, c = shape
    col_counts = np.bincount(y, minlength=c).astype(np.float64)
    row_counts = np.bincount(y[y < n], minlength=n)[:n].astype(np.float64)
    return (
        ("every entry", np.ones(shape)),
        ("columns", np.broadcast_to(col_counts > 0, shape).astype(np.float64)),
        ("columns", np.broadcast_to(col_counts, shape)),
        ("rows", np.broadcast_to((row_counts > 0)[:, None], shape).astype(np.float64)),
        ("rows", np.broadcast_to(row_counts[:, None], shape)),
    )


def one_hot_index(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """Softmax gradient with the one-hot term subtracted from the wrong entries.

    actual − expected == k · (onehot − S) with k > 0, where S marks what the student
    subtracted k from instead of the label entries: whole columns y (dx[:, y] -= 1, once or
    once per occurrence), whole rows y (dx[y] -= 1) or every entry (dx -= 1).
    """
    e = ctx.expected
    y = _softmax_labels(e, ctx.tol)
    if y is None:
        return None
    onehot = np.zeros(e.shape)
    onehot[np.arange(e.shape[0]), y] = 1.0
    d = a - e
    tol = pair_tol(a, e)
    for where, subtracted in _subtractions(e.shape, y):
        pattern = onehot - subtracted
        pp = float(np.vdot(pattern, pattern))
        if pp == 0:
            continue
        k = float(np.vdot(d, pattern)) / pp
        if k <= 0 or not close(d, k * pattern, tol):
            continue
        return Hint(
            "one-hot-index",
            _("{who} has the one-hot term (−{factor}) in the wrong places: "
              "{where}; it belongs at one entry per row, the label: "
              "dx[np.arange(N), y] -= 1.").format(
                  who=ctx.who, factor=fmt_factor(k), where=_(_WRONG_PLACES[where])),
        )
    return None


def one_hot_term(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """Softmax gradient off by one constant at each row's label entry and right elsewhere."""
    e = ctx.expected
    y = _softmax_labels(e, ctx.tol)
    if y is None:
        return None
    rows = np.arange(e.shape[0])
    d = a - e
    off = d[rows, y]
    c = float(off.mean())
    rest = d.copy()
    rest[rows, y] = 0.0
    tol = pair_tol(a, e)
    if abs(c) <= 10 * tol or not close(off, np.full(off.shape, c), tol) or max_abs(rest) > tol:
        return None
    n = e.shape[0]
    per_n = _(" (1/N with N = {n})").format(n=n) if abs(abs(c) * n - 1) <= FACTOR_RTOL else ""
    if c > 0:
        cause = _(
            "the one-hot term is missing: subtract 1 at the label of each row, "
            "dx[np.arange(N), y] -= 1, before dividing by N (dx = p / N alone is not enough)"
        )
    else:
        cause = _(
            "the one-hot term is subtracted too much — twice, or without the division by N "
            "(subtract 1 at dx[np.arange(N), y] once, then divide everything by N)"
        )
    return Hint(
        "one-hot-term",
        _("{who} is right everywhere except at the label entry of each row (the one "
          "negative entry of the expected row), where it is off by {offset}{per_n}: {cause}.").format(
            who=ctx.who, offset=f"{c:+.3g}", per_n=per_n, cause=cause),
    )


#: This module's value rules with their rank among all the generic ones (grader.hints asks
#: them in rank order, most specific first; leave gaps for new rules).
RULES: tuple[tuple[int, Rule], ...] = (
    (210, one_hot_index),
    (220, one_hot_term),
)
