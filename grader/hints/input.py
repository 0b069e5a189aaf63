"""Hints about what the answer is before its values are compared: None, no array, NaN or inf."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .._validate import describe, fmt_index, fmt_num, fmt_shape, to_numpy
from ..i18n import _
from .context import Hint, HintContext
from .format import first_index

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "none": "the value is None — usually a missing `return`.",
    "type": "the value is not a numeric array (a tuple, a string...); says what it is instead.",
    "dtype": "not float64 (float32, integer, bool or complex).",
    "nan": "contains NaN or inf: an overflow in exp (subtract the max, use exp(−|x|)), 0·inf, 0/0 or log(0).",
}

__all__ = [
    "CODES",
    "non_finite",
    "not_an_array",
]


def not_an_array(actual: Any, arr: np.ndarray | None, ctx: HintContext) -> Hint:
    """`none` or `type`: actual (arr is to_numpy(actual)) is None or not a numeric array."""
    shape = fmt_shape(ctx.expected.shape)
    if actual is None and re.search(r"\w\[['\"]", ctx.who):  # an entry of a dict: never stored?
        return Hint(
            "none",
            _("{who} is None, not an array of shape {shape} — was it stored in the dict, under that "
              "key?").format(who=ctx.who, shape=shape),
        )
    if actual is None:
        return Hint(
            "none",
            _("{who} is None, not an array of shape {shape} — did you forget `return`?").format(
                who=ctx.who, shape=shape),
        )
    if isinstance(actual, tuple | list):
        first = to_numpy(actual[0]) if len(actual) else None
        extra = ""
        if first is not None and first.shape == ctx.expected.shape:
            extra = _(
                "; its first item has the expected shape — return that array alone (e.g. "
                "`out, cache = ...` then `return out` where one array is expected)"
            )
        return Hint(
            "type",
            _("{who} is {what}, not an array of shape {shape}{extra}.").format(
                who=ctx.who, what=describe(actual), shape=shape, extra=extra),
        )
    what = describe(actual) if arr is None else _("an array of dtype {dtype}").format(dtype=arr.dtype)
    return Hint("type", _("{who} is {what}, not a float64 array of shape {shape}.").format(
        who=ctx.who, what=what, shape=shape))


def non_finite(a: np.ndarray, ctx: HintContext) -> Hint:
    """`nan`: a (float64, shaped like expected) holds NaN or inf; names the usual causes."""
    nans, infs = int(np.isnan(a).sum()), int(np.isinf(a).sum())
    if a.ndim == 0:
        where = "NaN" if nans else f"{fmt_num(float(a))}"
        where = _("is {value}").format(value=where)
    else:
        first = fmt_index(first_index(~np.isfinite(a)))
        counts = _(" and ").join(f"{n} {kind}" for n, kind in ((nans, "NaN"), (infs, "inf")) if n)
        where = _("has {counts} among its {size} entries (the first at {first})").format(
            counts=counts, size=a.size, first=first)
    stable = _(
        "use a stable formula (subtract the max before exp, as in softmax; exp(−|x|) rather "
        "than exp(−x), as in sigmoid)"
    )
    if infs:
        cause = _(
            "an overflow in exp (exp(710) is already inf), a division by zero or log(0) = −inf: "
            "{stable} and check the divisions and logs"
        ).format(stable=stable)
    else:
        cause = _(
            "0·inf, 0/0, inf − inf, or log or sqrt of a negative number, often after an overflow "
            "in exp (exp → inf) or a log(0) = −inf somewhere before: {stable} and check the "
            "divisions and logs"
        ).format(stable=stable)
    return Hint("nan", _("{who} {where}: {cause}.").format(who=ctx.who, where=where, cause=cause))
