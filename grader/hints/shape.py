"""Shape rules: a wrong shape explained, or the right shape holding the numbers out of order.

`wrong_shape` explains an actual of another shape (transposed, reshaped, a batch axis too many
or too few); `transposed` and `transpose_reshaped` are value rules: (actual, ctx) with actual
float64, finite, shaped like expected and not close to it, returning a Hint or None.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validate import fmt_shape
from ..i18n import _
from .batch import wrong_axis_hint
from .context import Hint, HintContext, Rule, close, pair_tol

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "shape": "wrong shape; names both shapes and says 'transpose' when one is the other reversed.",
    "transpose": "equals the expected array transposed (with the same or the reversed shape).",
    "reshape": "the right numbers in a different shape with the same number of entries.",
    "not-summed-over-batch": "one row per example where their sum was expected, or one row "
    "of the upstream gradient instead of the sum of all rows.",
    "summed-over-batch": "summed over the batch axis where one row per example was expected.",
    "transpose-reshape": "the expected values read from a transposed matrix and reshaped back, "
    "e.g. (w @ dout.T).reshape(x.shape) instead of (dout @ w.T).reshape(x.shape).",
}

__all__ = [
    "RULES",
    "CODES",
    "SHAPE_RULES",
    "transpose_reshaped",
    "transposed",
    "wrong_shape",
]


# ----------------------------------------------------------------------------- wrong shape


def wrong_shape(a: np.ndarray, ctx: HintContext) -> Hint:
    """The hint for an actual (float64) whose shape is not expected's: never None."""
    e = ctx.expected
    got, want = fmt_shape(a.shape), fmt_shape(e.shape)
    head = _("{who} has shape {got}, but the expected one has shape {want}").format(
        who=ctx.who, got=got, want=want)
    hint = wrong_axis_hint(a, ctx, head)
    if hint is not None:
        return hint
    hint = _shape_hint(a, ctx, head)
    if hint.code == "shape":
        return Hint("shape", hint.message[:-1] + _batch_note(a.shape, ctx) + ".")
    return hint


def _batch_note(shape: tuple[int, ...], ctx: HintContext) -> str:
    """' (... 5 is the batch size ...)' when actual has a batch-sized axis that expected lacks."""
    n, e = ctx.batch, ctx.expected
    if n is None or n < 2 or shape.count(n) <= e.shape.count(n):
        return ""
    axis = shape.index(n)
    if len(shape) == e.ndim:
        return _(
            " (its axis {axis} has length {n}, the batch size, which the expected shape lacks: "
            "the batch axis is summed away in the expected one — did you reduce over the wrong "
            "axis? A parameter gradient sums over the batch axis 0, e.g. db = dout.sum(axis=0))"
        ).format(axis=axis, n=n)
    return _(
        " (its axis {axis} has length {n}, the batch size, which the expected shape lacks: "
        "reduce over the batch axis, e.g. dout.sum(axis=0))"
    ).format(axis=axis, n=n)


def _shape_hint(a: np.ndarray, ctx: HintContext, head: str) -> Hint:
    """The first of _SHAPE_RULES that recognises the shapes, else the plain `shape` hint."""
    for rule in _SHAPE_RULES:
        hint = rule(a, ctx, head)
        if hint is not None:
            return hint
    return Hint("shape", f"{head}.")


def _reversed_shape(a: np.ndarray, ctx: HintContext, head: str) -> Hint | None:
    """actual has expected's shape reversed: transposed, or (unless merely reshaped) `shape`."""
    e = ctx.expected
    if a.ndim < 2 or a.shape != e.shape[::-1]:
        return None
    tol = pair_tol(a, e)
    if close(a.T, e, tol):
        return Hint(
            "transpose",
            _("{head}, and it equals the expected one transposed: transpose it, or check the "
              "order of the operands in your matrix product (which order gives the gradient the "
              "shape of the value it is the gradient of?).").format(
                  head=head),
        )
    if not close(a.reshape(e.shape), e, tol):
        return Hint(
            "shape",
            _("{head}: the expected shape reversed — a missing transpose, or the operands of "
              "a matrix product in the wrong order?").format(head=head),
        )
    return None  # the right numbers reshaped: `reshape` below


def _extra_leading_axis(a: np.ndarray, ctx: HintContext, head: str) -> Hint | None:
    """actual is (N, *S) where S was expected."""
    if a.ndim != ctx.expected.ndim + 1 or a.shape[1:] != ctx.expected.shape:
        return None
    n = a.shape[0]
    if n == 1:
        return Hint("shape", _("{head}: drop the extra axis of length 1 (keepdims=True?).").format(head=head))
    tol = pair_tol(a.sum(axis=0), ctx.expected)
    if close(a.sum(axis=0), ctx.expected, tol):
        return Hint(
            "not-summed-over-batch",
            _("{head}: it has an extra leading axis, and its sum over that axis is exactly the "
              "expected one — sum over the batch, and over the time steps or positions too where "
              "there are some (db = dout.sum(axis=0) for a 2-D dout, dout.sum(axis=(0, 1)) for a 3-D "
              "one).").format(head=head),
        )
    if close(a.mean(axis=0), ctx.expected, pair_tol(a.mean(axis=0), ctx.expected)):
        return Hint(
            "not-summed-over-batch",
            _("{head}: it holds one row per example, and their mean over axis 0 is the expected "
              "one — reduce over the batch axis (with the mean here).").format(head=head),
        )
    return Hint(
        "shape",
        _("{head}: it has an extra leading axis of length {n} — reduce over it "
          "(sum over the batch axis?).").format(head=head, n=n),
    )


def _missing_leading_axis(a: np.ndarray, ctx: HintContext, head: str) -> Hint | None:
    """actual is S where (N, *S) was expected: summed over the batch, or just an axis short."""
    e = ctx.expected
    if e.ndim != a.ndim + 1 or e.shape[1:] != a.shape or e.shape[0] <= 1:
        return None
    if close(a, e.sum(axis=0), pair_tol(a, e)):
        return Hint(
            "summed-over-batch",
            _("{head}, and it equals the expected one summed over axis 0: keep one row per "
              "example instead of summing over the batch.").format(head=head),
        )
    return Hint("shape", _("{head}: it is missing the leading axis of length {n}.").format(
        head=head, n=e.shape[0]))


def _same_size(a: np.ndarray, ctx: HintContext, head: str) -> Hint | None:
    """As many entries as expected: reshaped, scrambled by a transpose, or axes of length 1."""
    e = ctx.expected
    if a.size != e.size:
        return None
    tol = pair_tol(a, e)
    if close(a.reshape(e.shape), e, tol):
        return Hint(
            "reshape",
            _("{head}; the numbers are right, only their shape is not: reshape it "
              "(e.g. dx.reshape(x.shape)).").format(head=head),
        )
    split = _transposed_split(a.reshape(e.shape), e, tol)
    if split is not None:
        return _transpose_reshape_hint(_("{head}:").format(head=head), split)
    if np.squeeze(a).shape == np.squeeze(e).shape:
        return Hint("shape", _("{head}: add or drop the axes of length 1 (keepdims?).").format(head=head))
    return None


#: The wrong-shape rules, in order; each takes (actual, ctx, head of the message).
_SHAPE_RULES: tuple[Callable[[np.ndarray, HintContext, str], Hint | None], ...] = (
    _reversed_shape,
    _extra_leading_axis,
    _missing_leading_axis,
    _same_size,
)


# ----------------------------------------------------------------------------- right shape, wrong order


def _transposed_split(a: np.ndarray, e: np.ndarray, tol: float) -> tuple[int, int] | None:
    """(R, C) when a == e.reshape(R, C).T.reshape(e.shape) for a split of e's axes, else None."""
    for k in range(1, e.ndim):
        rows, cols = int(np.prod(e.shape[:k])), int(np.prod(e.shape[k:]))
        if rows < 2 or cols < 2:
            continue
        t = e.reshape(rows, cols).T.reshape(e.shape)
        if close(a, t, tol) and not close(e, t, 10 * tol):
            return rows, cols
    return None


def _transpose_reshape_hint(lead: str, split: tuple[int, int]) -> Hint:
    """lead: "your dx has shape (6, 5), but ...:" or "your dx has the right shape, but"."""
    rows, cols = split
    return Hint(
        "transpose-reshape",
        _("{lead} it holds the expected numbers in a scrambled order — the expected one as a "
          "({rows}, {cols}) matrix, transposed to ({cols}, {rows}), then reshaped back. reshape "
          "does not transpose: compute the product in the right order, e.g. "
          "(dout @ w.T).reshape(x.shape), not (w @ dout.T).reshape(x.shape).").format(
            lead=lead, rows=rows, cols=cols),
    )


def transposed(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """A square expected (or a stack of square matrices), and actual is it transposed."""
    e = ctx.expected
    if e.ndim < 2 or e.shape[-1] != e.shape[-2]:
        return None
    candidates = [e.T] if e.shape == e.shape[::-1] else []
    candidates.append(np.swapaxes(e, -1, -2))
    tol = pair_tol(a, e)
    for t in candidates:
        if close(a, t, tol) and not close(e, t, 10 * tol):
            return Hint(
                "transpose",
                _("{who} equals the expected one transposed (it only has the right shape "
                  "because it is square): transpose it, or swap the operands of the matrix "
                  "product.").format(who=ctx.who),
            )
    return None


def transpose_reshaped(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """The right shape, but the expected numbers read from a transposed matrix and reshaped."""
    split = _transposed_split(a, ctx.expected, pair_tol(a, ctx.expected))
    if split is None:
        return None
    return _transpose_reshape_hint(_("{who} has the right shape, but").format(who=ctx.who), split)


def summed_over_too_few_axes(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """A shape rule without context: expected (F,), and actual (≥ 2 axes, one of length F) summed
    over all its other axes is expected (a convolution's db of shape (N, F, H', W') or (F, H', W'))."""
    e = ctx.expected
    if e.ndim != 1 or e.shape[0] < 2 or a.ndim < 2 or a.shape[1:] == e.shape or a.size == e.size:
        return None  # (N, F) and (1, F, 1, 1): the generic rules' not-summed-over-batch and reshape
    for axis in (ax for ax in range(a.ndim) if a.shape[ax] == e.shape[0]):
        total = a.sum(axis=tuple(ax for ax in range(a.ndim) if ax != axis))
        if close(total, e, pair_tol(total, e)):
            return Hint(
                "not-summed-over-batch",
                _("{who} has shape {got}, but the expected one has shape {want}: summed over every axis "
                  "but axis {axis} it is exactly the expected one. A bias gradient sums the upstream "
                  "gradient over every axis the bias is broadcast along (for a convolution's db: the "
                  "batch and every output position).").format(
                    who=ctx.who, got=fmt_shape(a.shape), want=fmt_shape(e.shape), axis=axis),
            )
    return None



#: The shape rules asked before `wrong_shape` (after the problem's own).
SHAPE_RULES: tuple[Rule, ...] = (summed_over_too_few_axes,)


#: This module's value rules with their rank among all the generic ones (grader.hints asks
#: them in rank order, most specific first; leave gaps for new rules).
RULES: tuple[tuple[int, Rule], ...] = (
    (100, transposed),
    (110, transpose_reshaped),
)
