"""Batch-axis rules: dout reduced over the wrong axis, one row of dout, one example handled.

Each rule takes (actual, ctx) with actual float64, finite, shaped like expected and not close
to it (`wrong_axis_hint` also serves answers of another shape), and returns a Hint or None.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .._validate import max_abs
from ..i18n import N_, _
from .context import Hint, HintContext, Rule, close, pair_tol

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "wrong-axis": "equals the upstream gradient reduced over another axis (or over every axis) "
    "than the one the expected value reduces (needs upstream).",
    "first-example-only": "right for the first example (row 0) only; the other rows are wrong.",
    "last-example-only": "right for the last example only; the other rows are wrong.",
    "unmasked-upstream": "exactly dout summed over the batch axis where something else was "
    "expected: a mask or slope skipped between dout and this gradient (needs upstream).",
    "one-example-product": "a weight gradient from one example: x[i]ᵀ·dout[i] for the first or last "
    "example instead of x.T @ dout (needs upstream).",
}

__all__ = [
    "RULES",
    "CODES",
    "one_example",
    "one_example_product",
    "unmasked_upstream",
    "upstream_row",
    "wrong_axis",
    "wrong_axis_hint",
]


# ----------------------------------------------------------------------------- wrong axis


def _reductions(up: np.ndarray) -> Iterator[tuple[str, int | None, np.ndarray]]:
    """(how, axis, up reduced): the sum and the mean of up over each axis and over all axes."""
    for axis in [*range(up.ndim), None]:
        for how, reduce in ((N_("summed"), np.sum), (N_("averaged"), np.mean)):
            yield how, axis, reduce(up, axis=axis)


def _matching_reduction(a: np.ndarray, up: np.ndarray) -> tuple[str, int | None] | None:
    """(how, axis) of the first non-zero reduction of up that equals a (up to axes of length 1)."""
    for how, axis, r in _reductions(up):
        if r.size != a.size or np.squeeze(r).shape != np.squeeze(a).shape or max_abs(r) == 0:
            continue
        if close(a.reshape(r.shape), r, pair_tol(a, r)):
            return how, axis
    return None


def _over(axis: int | None) -> str:
    return _("every axis") if axis is None else _("axis {axis}").format(axis=axis)


def wrong_axis_hint(a: np.ndarray, ctx: HintContext, head: str) -> Hint | None:
    """`wrong-axis`: actual (of any shape) is dout reduced over another axis than expected is.

    head starts the message ("your db has shape (5,), but the expected one has shape (4,)");
    it is replaced when the shapes agree only by coincidence of dout's axis lengths.
    """
    up, e = ctx.upstream, ctx.expected
    if up is None or up.ndim < 2:
        return None
    got = _matching_reduction(a, up)
    if got is None:
        return None
    right = _matching_reduction(e, up)
    example = _(", e.g. db = dout.sum(axis=0)")
    if right is None:
        if a.shape == e.shape or e.shape != up.shape[1:]:
            return None
        fix = _("the expected shape is dout's without its batch axis 0: reduce over axis 0 only")
    elif right[1] == got[1]:
        return None
    else:
        batch = _(" (the batch axis)") if right[1] == 0 else ""
        fix = _("the expected one is dout {how} over {over}{batch}").format(
            how=_(right[0]), over=_over(right[1]), batch=batch)
        example = example if right[1] == 0 else ""
        axes = sorted(axis for axis in (got[1], right[1]) if axis is not None)
        if a.shape == e.shape and len(axes) == 2:
            head = _("{who} has the expected shape only because axes {first} and {second} of "
                     "dout have the same length").format(who=ctx.who, first=axes[0], second=axes[1])
        elif a.shape == e.shape:
            head = _("{who} has the expected shape").format(who=ctx.who)
    return Hint(
        "wrong-axis",
        _("{head}, and it equals the upstream gradient dout {how} over {over}: {fix}{example}.").format(
            head=head, how=_(got[0]), over=_over(got[1]), fix=fix, example=example),
    )


def wrong_axis(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """Same shape, but a reduction of dout over another axis (dout with equal axis lengths)."""
    return wrong_axis_hint(a, ctx, ctx.who)


# ----------------------------------------------------------------------------- dout and its rows


def unmasked_upstream(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == dout.sum(axis=0) exactly, but expected is something else of that shape.

    Typical for db1 of a two-layer net checked with the gradient that reaches the hidden ReLU
    as upstream (check_gradient's dout): the mask between dout and the bias was skipped.
    """
    up = ctx.upstream
    if up is None or up.ndim < 2 or up.shape[0] < 2 or up.shape[1:] != a.shape:
        return None
    total = up.sum(axis=0)
    if max_abs(total) == 0 or not close(a, total, pair_tol(a, total)):
        return None
    return Hint(
        "unmasked-upstream",
        _("{who} is exactly dout summed over the batch axis, but the expected one is not: "
          "dout has to be changed before that sum — a ReLU mask (dout * (h > 0)) or an "
          "activation's slope not applied on the way back — or a term is missing (a second "
          "path, a regularisation term).").format(who=ctx.who),
    )


def upstream_row(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual equals one row of the upstream gradient (e.g. db = dout[-1])."""
    up = ctx.upstream
    if up is None or up.ndim != a.ndim + 1 or up.shape[1:] != a.shape or up.shape[0] < 2:
        return None
    if max_abs(a) == 0:
        return None
    tol = pair_tol(a, up)
    for i in range(up.shape[0]):
        if close(a, up[i], tol):
            last = i == up.shape[0] - 1
            why = _(" (a loop that overwrites with `=` instead of adding with `+=`?)") if last else ""
            return Hint(
                "not-summed-over-batch",
                _("{who} equals row {i} of the upstream gradient dout (one example only): "
                  "sum over all {n} rows of the batch axis{why}.").format(
                      who=ctx.who, i=i, n=up.shape[0], why=why),
            )
    return None


def one_example_product(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """A weight gradient from one example: actual == outer(u, dout[i]) for i the first or last row.

    dW = x.T @ dout sums one outer product x[n] ⊗ dout[n] per example; with only example i
    every row of actual is a multiple of dout[i]. Needs upstream dout of shape (N, M), N ≥ 2,
    M ≥ 2, actual of shape (D, M), and an expected that is not of that form itself.
    """
    up, e = ctx.upstream, ctx.expected
    if up is None or up.ndim != 2 or min(up.shape) < 2 or a.ndim != 2 or a.shape[1] != up.shape[1]:
        return None
    for i in (0, up.shape[0] - 1):
        r = up[i]
        rr = float(np.vdot(r, r))
        if rr == 0:
            continue
        guess, same_form = np.outer(a @ r / rr, r), np.outer(e @ r / rr, r)
        if max_abs(guess) == 0 or close(e, same_form, 10 * pair_tol(e, same_form)):
            continue
        if close(a, guess, pair_tol(a, guess)):
            which = _("{who} comes from the first example alone") if i == 0 else _(
                "{who} comes from the last example alone")
            return Hint(
                "one-example-product",
                _("{which}: every row of it is a multiple of row {i} of dout, as in x[{i}]ᵀ·dout[{i}] "
                  "(np.outer(x[{i}], dout[{i}])); a weight gradient adds one such product per example, "
                  "over all {n}: which single matrix product sums them?").format(
                      which=which.format(who=ctx.who), i=i, n=up.shape[0]),
            )
    return None


# ----------------------------------------------------------------------------- one example


def one_example(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """Only row 0 (or only the last row) along axis 0 is right."""
    e = ctx.expected
    if not _batch_axis_first(e.shape, ctx.batch):
        return None
    wrong = np.abs(a - e) > ctx.tol
    # in the other rows, no entry that carries a value may be right by accident
    matters = np.abs(e) > ctx.tol
    rows_wrong = wrong.reshape(e.shape[0], -1)
    rows_fully_wrong = (wrong | ~matters).reshape(e.shape[0], -1).all(axis=1)
    row_wrong = rows_wrong.any(axis=1) & rows_fully_wrong
    for row, code, label in ((0, "first-example-only", "first"), (-1, "last-example-only", "last")):
        others = np.delete(row_wrong, row)
        if rows_wrong[row].any() or not others.all() or max_abs(e[row]) <= ctx.tol:
            continue
        if _mask_explains(wrong, row, ctx):
            continue
        return _one_example_hint(a, ctx, row, code, label)
    return None


def _one_example_hint(a: np.ndarray, ctx: HintContext, row: int, code: str, label: str) -> Hint:
    """The message of `one_example` for row 0 ("first") or row -1 ("last")."""
    rest = np.delete(a, row, axis=0)
    n_rows = ctx.expected.shape[0]
    index = 0 if row == 0 else n_rows - 1
    if max_abs(rest) <= ctx.tol:
        detail = _("zero in the other {n} rows").format(n=n_rows - 1)
    else:
        detail = _("wrong in every other row ({n} rows)").format(n=n_rows - 1)
    cause = (
        _("a loop that overwrites instead of accumulating, or that keeps only its last step?")
        if row == -1
        else _("loop over all N examples or vectorise over the batch axis (x[0] used?).")
    )
    right = (_("{who} is right for the first example (row {index})") if label == "first"
             else _("{who} is right for the last example (row {index})"))
    return Hint(
        code,
        _("{right} but {detail}: only one example is handled — {cause}").format(
            right=right.format(who=ctx.who, index=index), detail=detail, cause=cause),
    )


def _batch_axis_first(shape: tuple[int, ...], batch: int | None) -> bool:
    """Is axis 0 plausibly the batch axis? (N >= 2 rows; N == batch_size when it is known.)"""
    if len(shape) == 0 or shape[0] < 2:
        return False
    if batch is not None:
        return shape[0] == batch
    return len(shape) >= 2


def _mask_explains(wrong: np.ndarray, row: int, ctx: HintContext) -> bool:
    """With a mask, are all wrong entries on one side of it, a side row `row` lacks?"""
    if ctx.mask is None:
        return False
    sides = set(np.unique(ctx.mask[wrong]).tolist())
    return len(sides) == 1 and not (ctx.mask[row] == sides.pop()).any()


#: This module's value rules with their rank among all the generic ones (grader.hints asks
#: them in rank order, most specific first; leave gaps for new rules).
RULES: tuple[tuple[int, Rule], ...] = (
    (130, wrong_axis),
    (140, unmasked_upstream),
    (150, upstream_row),
    (160, one_example_product),
    (230, one_example),
)
