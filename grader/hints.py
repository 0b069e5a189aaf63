"""The hint engine: why does a student's array differ from the reference?

`diagnose(actual, expected)` looks only at the numbers and returns a `Hint` (a stable `code`
and a message a student can act on) or None. Rules run from the most specific to the least;
each one only fires on an exact pattern (equality up to a tolerance relative to the scale of
the arrays), so a correct answer gives None and an unrelated array gives None or the purely
factual `partial` hint, never a confident wrong story.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import (
    describe,
    dtype_problem,
    float64_array,
    fmt_index,
    fmt_num,
    fmt_shape,
    max_abs,
    optional_batch_size,
    optional_kind,
    optional_mask,
    require_finite,
    short_traceback,
    to_numpy,
)
from .errors import ToolkitInputError

__all__ = ["HINT_CODES", "Hint", "diagnose", "is_gradient_name"]

#: Two arrays "match" when every entry differs by at most RTOL × (largest |entry| of either).
RTOL = 1e-5
#: `almost` fires when the largest difference is below this fraction of the scale.
ALMOST_RTOL = 1e-3
#: A factor c is shown as an integer k (or 1/k) when it is within this relative distance.
FACTOR_RTOL = 1e-4

HINT_CODES: dict[str, str] = {
    "none": "the value is None — usually a missing `return`.",
    "type": "the value is not a numeric array (a tuple, a string...); says what it is instead.",
    "shape": "wrong shape; names both shapes and says 'transpose' when one is the other reversed.",
    "transpose": "equals the expected array transposed (with the same or the reversed shape).",
    "reshape": "the right numbers in a different shape with the same number of entries.",
    "not-summed-over-batch": "one row per example where their sum was expected, or one row "
    "of the upstream gradient instead of the sum of all rows.",
    "summed-over-batch": "summed over the batch axis where one row per example was expected.",
    "dtype": "not float64 (float32, integer, bool or complex).",
    "wrong-axis": "equals the upstream gradient reduced over another axis (or over every axis) "
    "than the one the expected value reduces (needs upstream).",
    "transpose-reshape": "the expected values read from a transposed matrix and reshaped back, "
    "e.g. (w @ dout.T).reshape(x.shape) instead of (dout @ w.T).reshape(x.shape).",
    "nan": "contains NaN or inf: an overflow in exp (subtract the max, use exp(−|x|)), 0·inf, 0/0 or log(0).",
    "zero": "all zeros (or nearly) where a non-zero value was expected: for a gradient a blocked "
    "or unpropagated path; for a value (kind='value') a result never computed or kept.",
    "should-be-zero": "non-zero although the expected value is zero everywhere.",
    "sign": "the right magnitude with the opposite sign.",
    "sum-vs-mean": "off by the batch size N: averaged where a sum was needed (or the reverse).",
    "scale": "off by one constant factor c in every entry (c is reported; 2 and 1/2 explained).",
    "offset": "off by the same constant in every entry (or by the same row in every row): a "
    "term added or left out that does not depend on the entry (a bias, a scalar, a constant).",
    "mask": "right on one side of the mask (given, or the zeros of expected) and wrong on the "
    "other: mask not applied, or wrong values where it applies.",
    "first-example-only": "right for the first example (row 0) only; the other rows are wrong.",
    "last-example-only": "right for the last example only; the other rows are wrong.",
    "slope-from-input": "an elementwise slope (tanh, sigmoid) computed from the layer's input "
    "instead of its output (needs upstream, layer_input and layer_output).",
    "unmasked-upstream": "exactly dout summed over the batch axis where something else was "
    "expected: a mask or slope skipped between dout and this gradient (needs upstream).",
    "mask-from-dout": "a ReLU mask taken from the upstream gradient (dout > 0) instead of the "
    "forward input (x > 0) (needs upstream, or a mask).",
    "one-hot-index": "softmax gradient with the one-hot term subtracted at the wrong entries: "
    "whole columns (dx[:, y] -= 1), whole rows (dx[y] -= 1) or every entry.",
    "one-hot-term": "softmax gradient right except at each row's label entry, where it is off "
    "by one constant: the one-hot term missing (dx = p / N), doubled or not divided by N.",
    "almost": "close but not within tolerance; reports the largest difference and where.",
    "partial": "right at some entries and wrong at others; says how many and the first wrong one.",
}


@dataclass(frozen=True)
class Hint:
    """A diagnosis: `code` is a key of HINT_CODES, `message` one or two actionable sentences."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.message}  [{self.code}]"


@dataclass(frozen=True)
class _Ctx:
    """What every rule needs: the checked arguments and the matching tolerance."""

    who: str  # "your db"
    expected: np.ndarray
    scale: float  # largest |expected|
    tol: float  # RTOL * scale
    batch: int | None
    mask: np.ndarray | None
    upstream: np.ndarray | None
    layer: tuple[np.ndarray, np.ndarray] | None  # (input, output) of an elementwise layer
    kind: str  # "gradient" or "value"


@short_traceback
def diagnose(
    actual: Any,
    expected: Any,
    *,
    batch_size: int | None = None,
    mask: Any = None,
    name: str | None = None,
    upstream: Any = None,
    layer_input: Any = None,
    layer_output: Any = None,
    kind: str | None = None,
) -> Hint | None:
    """The most likely explanation of why `actual` (student) differs from `expected`.

    Inputs: actual — anything (usually an array of shape S); expected — float64 array of
    shape S, finite; batch_size — N, enables the sum-vs-mean hint; mask — bool array of shape
    S marking where a mask applies (e.g. ReLU's x > 0); name — e.g. "db", used in the message
    ("your db ..."); upstream — the gradient dout arriving at the layer: of shape (N, *S) it
    enables "one row of dout", of any shape "summed over the wrong axis", of shape S "ReLU
    mask taken from dout"; layer_input, layer_output — x and out of an elementwise layer, both
    of shape S (with an upstream of shape S they enable "slope taken from the input");
    kind — "gradient" or "value", the wording of some hints; None: guessed from the name
    (`is_gradient_name`), "gradient" when there is no name.
    Returns: a Hint, or None when actual matches expected or nothing is recognised.
    """
    __tracebackhide__ = True
    exp = float64_array(expected, "expected")
    require_finite(exp, "expected")
    up = None if upstream is None else float64_array(upstream, "upstream")
    kind = optional_kind(kind)
    if kind is None:
        kind = "gradient" if name is None or is_gradient_name(name) else "value"
    scale = max_abs(exp)
    ctx = _Ctx(
        who=f"your {name}" if name else "your answer",
        expected=exp,
        scale=scale,
        tol=RTOL * scale,
        batch=optional_batch_size(batch_size),
        mask=optional_mask(mask, exp.shape),
        upstream=up,
        layer=checked_layer_pair(layer_input, layer_output, exp.shape),
        kind=kind,
    )
    arr = to_numpy(actual)
    if arr is not None and arr.dtype.kind == "c":
        return Hint("dtype", f"{ctx.who} has {dtype_problem(arr)}.")
    if arr is None or arr.dtype.kind not in "biuf":
        return _not_an_array(actual, arr, ctx)
    values = arr.astype(np.float64)
    if arr.shape != exp.shape:
        return _wrong_shape(values, ctx)
    problem = dtype_problem(arr)
    if problem is not None:
        return Hint("dtype", f"{ctx.who} has {problem}.")
    if not np.all(np.isfinite(values)):
        return _non_finite(values, ctx)
    if _close(values, exp, ctx.tol):
        return None
    for rule in _VALUE_RULES:
        hint = rule(values, ctx)
        if hint is not None:
            return hint
    return None


# ----------------------------------------------------------------------------- helpers

#: A word that names a gradient: d, dx, dW1, db2, dx_num, dout, dscores, d(a*a)/da, dL/dx...
_GRADIENT_WORD = re.compile(
    r"^d(?:$|[^a-z]|[a-z]\d*(?:$|[^a-z])|(?:out|scores|probs|logits|hidden|theta|loss|params)"
    r"(?:$|[^a-z]))"
)
_GRADIENT_TERMS = ("grad", "slope", "deriv", "jacobian", "∂", "/d")


def is_gradient_name(name: str) -> bool:
    """Does `name` (as passed to check_close) name a gradient rather than a value?

    Yes when it contains grad, slope, deriv, jacobian, ∂ or "/d", or when one of its words is
    a gradient variable: `d` followed by nothing, a non-letter, one letter and digits (dx,
    db2, dx_num, dW1, d(a*a)/da) or a common array name (dout, dscores, dprobs, dlogits,
    dhidden, dtheta, dloss, dparams). "out", "loss", "difference", "dropout mask" are values.
    """
    if any(term in name.lower() for term in _GRADIENT_TERMS):
        return True
    return any(_GRADIENT_WORD.match(word.strip("([{,;:.")) for word in name.split())


def checked_layer_pair(x: Any, out: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """(layer_input, layer_output) checked to be float64 arrays shaped like expected, or None."""
    __tracebackhide__ = True
    if x is None and out is None:
        return None
    pair = (float64_array(x, "layer_input"), float64_array(out, "layer_output"))
    for what, arr in zip(("layer_input", "layer_output"), pair, strict=True):
        if arr.shape != shape:
            raise ToolkitInputError(
                f"{what} must have the shape of expected, {fmt_shape(shape)}, but it has shape "
                f"{fmt_shape(arr.shape)}."
            )
    return pair


def _close(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    """Every entry of a within tol of b (same shapes)."""
    return bool(np.all(np.abs(a - b) <= tol))


def _pair_tol(*arrays: np.ndarray) -> float:
    return RTOL * max(max_abs(a) for a in arrays)


def _fmt_factor(c: float) -> str:
    """`5`, `1/5`, `-2`, `3.27` or `0.314`: the nicest exact-looking form of c."""
    sign = "-" if c < 0 else ""
    m = abs(c)
    if m >= 1:
        k = round(m)
        return f"{sign}{k}" if abs(m - k) <= FACTOR_RTOL * m else f"{c:.3g}"
    k = round(1 / m)
    return f"{sign}1/{k}" if k > 1 and abs(1 / m - k) <= FACTOR_RTOL * k else f"{c:.3g}"


def _fmt_pair(expected: float, got: float) -> str:
    """`2.0001, got 2.0002`: both with the fewest significant digits (3 to 12) that tell them apart."""
    for digits in range(3, 13):
        e, g = f"{float(expected):.{digits}g}", f"{float(got):.{digits}g}"
        if e != g:
            break
    return f"{e}, got {g}"


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


# ----------------------------------------------------------------------------- early rules


def _not_an_array(actual: Any, arr: np.ndarray | None, ctx: _Ctx) -> Hint:
    shape = fmt_shape(ctx.expected.shape)
    if actual is None:
        return Hint(
            "none",
            f"{ctx.who} is None, not an array of shape {shape} — did you forget `return`?",
        )
    if isinstance(actual, tuple | list):
        first = to_numpy(actual[0]) if len(actual) else None
        extra = ""
        if first is not None and first.shape == ctx.expected.shape:
            extra = (
                "; its first item has the expected shape — return that array alone (e.g. "
                "`out, cache = ...` then `return out` where one array is expected)"
            )
        return Hint(
            "type",
            f"{ctx.who} is {describe(actual)}, not an array of shape {shape}{extra}.",
        )
    what = describe(actual) if arr is None else f"an array of dtype {arr.dtype}"
    return Hint("type", f"{ctx.who} is {what}, not a float64 array of shape {shape}.")


def _wrong_shape(a: np.ndarray, ctx: _Ctx) -> Hint:
    e = ctx.expected
    got, want = fmt_shape(a.shape), fmt_shape(e.shape)
    head = f"{ctx.who} has shape {got}, but the expected one has shape {want}"
    hint = _wrong_axis_hint(a, ctx, head)
    if hint is not None:
        return hint
    hint = _shape_hint(a, ctx, head)
    if hint.code == "shape":
        return Hint("shape", hint.message[:-1] + _batch_note(a.shape, ctx) + ".")
    return hint


def _batch_note(shape: tuple[int, ...], ctx: _Ctx) -> str:
    """' (... 5 is the batch size ...)' when actual has a batch-sized axis that expected lacks."""
    n, e = ctx.batch, ctx.expected
    if n is None or n < 2 or shape.count(n) <= e.shape.count(n):
        return ""
    axis = shape.index(n)
    if len(shape) == e.ndim:
        return (
            f" (its axis {axis} has length {n}, the batch size, which the expected shape lacks: "
            "the batch axis is summed away in the expected one — did you reduce over the wrong "
            "axis? A parameter gradient sums over the batch axis 0, e.g. db = dout.sum(axis=0))"
        )
    return (
        f" (its axis {axis} has length {n}, the batch size, which the expected shape lacks: "
        "reduce over the batch axis, e.g. dout.sum(axis=0))"
    )


def _shape_hint(a: np.ndarray, ctx: _Ctx, head: str) -> Hint:
    e = ctx.expected
    tol = _pair_tol(a, e)
    if a.ndim >= 2 and a.shape == e.shape[::-1]:
        if _close(a.T, e, tol):
            return Hint(
                "transpose",
                f"{head}, and it equals the expected one transposed: transpose it, or check the "
                "order of the operands in your matrix product (e.g. x.T @ dout, not dout.T @ x).",
            )
        if not _close(a.reshape(e.shape), e, tol):
            return Hint(
                "shape",
                f"{head}: the expected shape reversed — a missing transpose, or the operands of "
                "a matrix product in the wrong order?",
            )
    if a.ndim == e.ndim + 1 and a.shape[1:] == e.shape:
        return _extra_leading_axis(a, ctx, head)
    if e.ndim == a.ndim + 1 and e.shape[1:] == a.shape and e.shape[0] > 1:
        if _close(a, e.sum(axis=0), tol):
            return Hint(
                "summed-over-batch",
                f"{head}, and it equals the expected one summed over axis 0: keep one row per "
                "example instead of summing over the batch.",
            )
        return Hint("shape", f"{head}: it is missing the leading axis of length {e.shape[0]}.")
    if a.size == e.size:
        if _close(a.reshape(e.shape), e, tol):
            return Hint(
                "reshape",
                f"{head}; the numbers are right, only their shape is not: reshape it "
                "(e.g. dx.reshape(x.shape)).",
            )
        split = _transposed_split(a.reshape(e.shape), e, tol)
        if split is not None:
            return _transpose_reshape_hint(f"{head}:", split)
        if np.squeeze(a).shape == np.squeeze(e).shape:
            return Hint("shape", f"{head}: add or drop the axes of length 1 (keepdims?).")
    return Hint("shape", f"{head}.")


def _reductions(up: np.ndarray) -> Iterator[tuple[str, int | None, np.ndarray]]:
    """(how, axis, up reduced): the sum and the mean of up over each axis and over all axes."""
    for axis in [*range(up.ndim), None]:
        for how, reduce in (("summed", np.sum), ("averaged", np.mean)):
            yield how, axis, reduce(up, axis=axis)


def _matching_reduction(a: np.ndarray, up: np.ndarray) -> tuple[str, int | None] | None:
    """(how, axis) of the first non-zero reduction of up that equals a (up to axes of length 1)."""
    for how, axis, r in _reductions(up):
        if r.size != a.size or np.squeeze(r).shape != np.squeeze(a).shape or max_abs(r) == 0:
            continue
        if _close(a.reshape(r.shape), r, _pair_tol(a, r)):
            return how, axis
    return None


def _over(axis: int | None) -> str:
    return "every axis" if axis is None else f"axis {axis}"


def _wrong_axis_hint(a: np.ndarray, ctx: _Ctx, head: str) -> Hint | None:
    """actual is the upstream gradient reduced over another axis than the expected one is."""
    up, e = ctx.upstream, ctx.expected
    if up is None or up.ndim < 2:
        return None
    got = _matching_reduction(a, up)
    if got is None:
        return None
    right = _matching_reduction(e, up)
    example = ", e.g. db = dout.sum(axis=0)"
    if right is None:
        if a.shape == e.shape or e.shape != up.shape[1:]:
            return None
        fix = "the expected shape is dout's without its batch axis 0: reduce over axis 0 only"
    elif right[1] == got[1]:
        return None
    else:
        batch = " (the batch axis)" if right[1] == 0 else ""
        fix = f"the expected one is dout {right[0]} over {_over(right[1])}{batch}"
        example = example if right[1] == 0 else ""
        axes = sorted(axis for axis in (got[1], right[1]) if axis is not None)
        if a.shape == e.shape and len(axes) == 2:
            head = (
                f"{ctx.who} has the expected shape only because axes {axes[0]} and {axes[1]} of "
                "dout have the same length"
            )
        elif a.shape == e.shape:
            head = f"{ctx.who} has the expected shape"
    return Hint(
        "wrong-axis",
        f"{head}, and it equals the upstream gradient dout {got[0]} over {_over(got[1])}: {fix}{example}.",
    )


def _transposed_split(a: np.ndarray, e: np.ndarray, tol: float) -> tuple[int, int] | None:
    """(R, C) when a == e.reshape(R, C).T.reshape(e.shape) for a split of e's axes, else None."""
    for k in range(1, e.ndim):
        rows, cols = int(np.prod(e.shape[:k])), int(np.prod(e.shape[k:]))
        if rows < 2 or cols < 2:
            continue
        t = e.reshape(rows, cols).T.reshape(e.shape)
        if _close(a, t, tol) and not _close(e, t, 10 * tol):
            return rows, cols
    return None


def _transpose_reshape_hint(lead: str, split: tuple[int, int]) -> Hint:
    """lead: "your dx has shape (6, 5), but ...:" or "your dx has the right shape, but"."""
    rows, cols = split
    return Hint(
        "transpose-reshape",
        f"{lead} it holds the expected numbers in a scrambled order — the expected one as a "
        f"({rows}, {cols}) matrix, transposed to ({cols}, {rows}), then reshaped back. reshape "
        "does not transpose: compute the product in the right order, e.g. "
        "(dout @ w.T).reshape(x.shape), not (w @ dout.T).reshape(x.shape).",
    )


def _extra_leading_axis(a: np.ndarray, ctx: _Ctx, head: str) -> Hint:
    """actual is (N, *S) where S was expected."""
    n = a.shape[0]
    if n == 1:
        return Hint("shape", f"{head}: drop the extra axis of length 1 (keepdims=True?).")
    tol = _pair_tol(a.sum(axis=0), ctx.expected)
    if _close(a.sum(axis=0), ctx.expected, tol):
        return Hint(
            "not-summed-over-batch",
            f"{head}: it holds one row per example, and their sum over axis 0 is exactly the "
            "expected one — sum over the batch axis (e.g. db = dout.sum(axis=0)).",
        )
    if _close(a.mean(axis=0), ctx.expected, _pair_tol(a.mean(axis=0), ctx.expected)):
        return Hint(
            "not-summed-over-batch",
            f"{head}: it holds one row per example, and their mean over axis 0 is the expected "
            "one — reduce over the batch axis (with the mean here).",
        )
    return Hint(
        "shape",
        f"{head}: it has an extra leading axis of length {n} — reduce over it (sum over the batch axis?).",
    )


def _non_finite(a: np.ndarray, ctx: _Ctx) -> Hint:
    nans, infs = int(np.isnan(a).sum()), int(np.isinf(a).sum())
    if a.ndim == 0:
        where = "NaN" if nans else f"{fmt_num(float(a))}"
        where = f"is {where}"
    else:
        first = fmt_index(_first(~np.isfinite(a)))
        counts = " and ".join(f"{n} {kind}" for n, kind in ((nans, "NaN"), (infs, "inf")) if n)
        where = f"has {counts} among its {a.size} entries (the first at {first})"
    stable = (
        "use a stable formula (subtract the max before exp, as in softmax; exp(−|x|) rather "
        "than exp(−x), as in sigmoid)"
    )
    if infs:
        cause = (
            f"an overflow in exp (exp(710) is already inf), a division by zero or log(0) = −inf: "
            f"{stable} and check the divisions and logs"
        )
    else:
        cause = (
            "0·inf, 0/0, inf − inf, or log or sqrt of a negative number, often after an overflow "
            f"in exp (exp → inf) or a log(0) = −inf somewhere before: {stable} and check the "
            "divisions and logs"
        )
    return Hint("nan", f"{ctx.who} {where}: {cause}.")


def _at(index: tuple[int, ...]) -> str:
    """' at [1, 2]', or '' for the (only) entry of a 0-d array."""
    return f" at {fmt_index(index)}" if index else ""


# ----------------------------------------------------------------------------- value rules
# Each takes (actual, ctx) with actual float64, finite, shaped like expected and not close.


def _zero(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    if ctx.scale == 0 or max_abs(a) > ctx.tol:
        return None
    big = _first(np.abs(ctx.expected) == ctx.scale)
    exact = max_abs(a) == 0
    if a.ndim == 0:
        got = "0" if exact else f"{fmt_num(float(a))}, practically 0,"
        head = f"{ctx.who} is {got} but the expected one is {fmt_num(float(ctx.expected))}"
    else:
        zeros = "all zeros" if exact else f"all (nearly) zeros, at most {fmt_num(max_abs(a))},"
        head = (
            f"{ctx.who} is {zeros} but the expected one is not (e.g. {fmt_num(ctx.expected[big])}{_at(big)})"
        )
    if ctx.kind == "value":
        return Hint(
            "zero",
            f"{head}: the value is never computed or gets lost — a result not assigned or not "
            "returned, a factor that is 0 (a coefficient, a weight, an integer division such as "
            "1 // 2) or a term left out.",
        )
    return Hint(
        "zero",
        f"{head}: no gradient reaches it — a path blocked or not propagated (the initial "
        "np.zeros returned unchanged?), or a value overwritten with `=` where `+=` should add "
        "to it.",
    )


def _should_be_zero(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    if ctx.scale != 0:
        return None
    if a.ndim == 0:
        head = f"the expected value is zero, but {ctx.who} is {fmt_num(float(a))}"
    else:
        big = _first(np.abs(a) == max_abs(a))
        head = (
            f"the expected value is zero everywhere, but {ctx.who} is not (e.g. {fmt_num(a[big])}{_at(big)})"
        )
    if ctx.kind == "value":
        return Hint(
            "should-be-zero",
            f"{head}: a term that vanishes in this case is not zero in yours (a coefficient such "
            "as reg = 0 not applied, or a term that should cancel).",
        )
    return Hint(
        "should-be-zero",
        f"{head} — nothing flows back here: is a mask or a blocked path missing?",
    )


def _factor(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """actual == c * expected for one constant c (sign, sum-vs-mean, scale).

    The named factors (−1, N, 1/N, 2, 1/2) are tested directly, so they also work on a single
    number; any other c needs at least two significant entries that agree on it.
    """
    e, who, n = ctx.expected, ctx.who, ctx.batch
    tol = _pair_tol(a, e)

    def times(c: float) -> bool:
        return _close(a, c * e, tol)

    if times(-1):
        return Hint(
            "sign",
            f"{who} has the right magnitude but the opposite sign everywhere: look for a "
            "missing or extra minus (d(a − b)/db = −1, d(−x) = −dx, loss vs. −loss).",
        )
    if n is not None and n > 1 and (times(1 / n) or times(n)):
        also = ""
        if n == 2:
            also = " (or a missing path)" if times(1 / n) else " (or a path counted twice)"
        if times(1 / n):
            return Hint(
                "sum-vs-mean",
                f"{who} is 1/{n} of the expected one, and {n} is the batch size: sum over the "
                f"batch instead of averaging (or you divided by N twice){also}.",
            )
        return Hint(
            "sum-vs-mean",
            f"{who} is {n} times the expected one, and {n} is the batch size: divide by N "
            f"where the loss averages over the batch (mean, not sum){also}.",
        )
    if times(2):
        return Hint(
            "scale",
            f"{who} is 2 times the expected one, twice too big: a path counted twice, a missing "
            "½ (0.5, e.g. in 0.5·reg·‖W‖², whose derivative is reg·W), or a difference divided "
            "by h instead of 2h.",
        )
    if times(0.5):
        return Hint(
            "scale",
            f"{who} is 1/2 of the expected one, half as big: a missing path (a variable used "
            "twice needs both contributions added), a dropped factor 2 (d(x²)/dx = 2x), or a "
            "difference divided by 2h instead of h.",
        )
    c = float(np.vdot(a, e) / np.vdot(e, e))
    significant = int(np.sum(np.abs(e) > ALMOST_RTOL * ctx.scale))
    if significant < 2 or abs(c - 1) <= ALMOST_RTOL or not times(c):
        return None
    flipped = " (with the sign flipped)" if c < 0 else ""
    return Hint(
        "scale",
        f"{who} is {_fmt_factor(c)} times the expected one in every entry{flipped}: a constant "
        "factor is off — a scale, a 1/N, a regularisation strength or a temperature.",
    )


def _offset(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """actual − expected is one constant c everywhere, or one row vector in every row.

    c must not be small (|c| > ALMOST_RTOL × scale, below it `almost` speaks), and expected
    must vary (over the entries, or down its 3 or more rows), so that a constant difference
    is evidence.
    """
    e = ctx.expected
    if a.size < 2:
        return None
    d = a - e
    tol = _pair_tol(a, e)
    floor = ALMOST_RTOL * max(max_abs(a), ctx.scale)
    c = float(np.mean(d))
    if abs(c) > floor and _close(d, np.full(d.shape, c), tol) and np.ptp(e) > 10 * tol:
        if ctx.kind == "value":
            causes = (
                "a term added (or missing) once — a constant in the formula or the loss, a "
                "scalar added where an array was meant, the regularisation counted twice"
            )
        else:
            causes = (
                "a term added (or missing) that does not depend on the entry — a scalar added "
                "where an array was meant (+ reg instead of + reg·W), a constant subtracted "
                "from every entry (the 1 of a one-hot term)"
            )
        return Hint(
            "offset",
            f"{ctx.who} is off by the same constant {c:+.3g} in every entry (yours minus the "
            f"expected one): {causes}.",
        )
    if e.ndim < 2 or e.shape[0] < 3:  # two rows that differ alike can be a coincidence
        return None
    row = d.mean(axis=0)
    if max_abs(row) <= floor or not _close(d, np.broadcast_to(row, d.shape), tol):
        return None
    if _close(e, np.broadcast_to(e.mean(axis=0), e.shape), 10 * tol):
        return None  # expected has identical rows: an equal difference in every row is no evidence
    shown = ", ".join(fmt_num(v) for v in row.ravel()[:4]) + (", ..." if row.size > 4 else "")
    bias = "a bias" if ctx.kind == "value" else "a per-column term (a bias's gradient?)"
    return Hint(
        "offset",
        f"{ctx.who} is off by the same row [{shown}] in every row (yours minus the expected "
        f"one): {bias} missing or added twice, or added to the wrong array.",
    )


def _transposed(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    e = ctx.expected
    if e.ndim < 2 or e.shape[-1] != e.shape[-2]:
        return None
    candidates = [e.T] if e.shape == e.shape[::-1] else []
    candidates.append(np.swapaxes(e, -1, -2))
    tol = _pair_tol(a, e)
    for t in candidates:
        if _close(a, t, tol) and not _close(e, t, 10 * tol):
            return Hint(
                "transpose",
                f"{ctx.who} equals the expected one transposed (it only has the right shape "
                "because it is square): transpose it, or swap the operands of the matrix "
                "product (x.T @ dout versus dout.T @ x).",
            )
    return None


def _transpose_reshaped(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    split = _transposed_split(a, ctx.expected, _pair_tol(a, ctx.expected))
    if split is None:
        return None
    return _transpose_reshape_hint(f"{ctx.who} has the right shape, but", split)


def _wrong_axis(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """Same shape, but a reduction of dout over another axis (dout with equal axis lengths)."""
    return _wrong_axis_hint(a, ctx, ctx.who)


def _unmasked_upstream(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """actual == dout.sum(axis=0) exactly, but expected is something else of that shape.

    Typical for db1 of a two-layer net checked with the gradient that reaches the hidden ReLU
    as upstream (check_gradient's dout): the mask between dout and the bias was skipped.
    """
    up = ctx.upstream
    if up is None or up.ndim < 2 or up.shape[0] < 2 or up.shape[1:] != a.shape:
        return None
    total = up.sum(axis=0)
    if max_abs(total) == 0 or not _close(a, total, _pair_tol(a, total)):
        return None
    return Hint(
        "unmasked-upstream",
        f"{ctx.who} is exactly dout summed over the batch axis, but the expected one is not: "
        "dout has to be changed before that sum — a ReLU mask (dout * (h > 0)) or an "
        "activation's slope not applied on the way back — or a term is missing (a second "
        "path, a regularisation term).",
    )


def _mask_from_dout(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """A ReLU backward with the mask taken from dout: actual == dout * (dout > 0).

    With upstream (shaped like expected): expected is dout or 0 at every entry (a masked dout)
    and actual is exactly np.maximum(dout, 0). With a mask only: where the mask is True
    (expected == dout there), actual is np.maximum(expected, 0), and actual is never negative.
    Either way it needs evidence: at least 2 entries where actual equals a positive dout and
    at least 2 (1 with upstream) where dout is negative and actual is 0.
    """
    e, up, m = ctx.expected, ctx.upstream, ctx.mask
    if up is not None and up.shape == a.shape:
        tol = _pair_tol(e, up)
        passed = np.abs(e - up) <= tol
        blocked = np.abs(e) <= tol
        if not (passed | blocked).all() or not _close(a, np.maximum(up, 0), _pair_tol(a, up)):
            return None
        positive, negative = int((up > tol).sum()), int((up < -tol).sum())
        if positive < 2 or negative < 1:
            return None
    elif m is not None:
        inside, got = e[m], a[m]
        positive, negative = int((inside > ctx.tol).sum()), int((inside < -ctx.tol).sum())
        if positive < 2 or negative < 2 or (a < -ctx.tol).any():
            return None
        if not _close(got, np.maximum(inside, 0), ctx.tol):
            return None
    else:
        return None
    return Hint(
        "mask-from-dout",
        f"{ctx.who} is 0 wherever dout is negative and dout elsewhere: your mask comes from "
        "dout (dout > 0, or np.maximum(dout, 0)); the ReLU mask comes from the forward input, "
        "x > 0 (cache x in the forward pass): dx = dout * (x > 0).",
    )


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


def _one_hot_index(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """Softmax gradient with the one-hot term subtracted from the wrong entries.

    actual − expected == k · (onehot − S) with k > 0, where S marks what the student
    subtracted k from instead of the label entries: whole columns y (dx[:, y] -= 1, once or
    once per occurrence), whole rows y (dx[y] -= 1) or every entry (dx -= 1).
    """
    e = ctx.expected
    y = _softmax_labels(e, ctx.tol)
    if y is None:
        return None
    n, c = e.shape
    onehot = np.zeros(e.shape)
    onehot[np.arange(n), y] = 1.0
    col_counts = np.bincount(y, minlength=c).astype(np.float64)
    row_counts = np.bincount(y[y < n], minlength=n)[:n].astype(np.float64)
    patterns = (
        ("every entry", np.ones(e.shape)),
        ("columns", np.broadcast_to(col_counts > 0, e.shape).astype(np.float64)),
        ("columns", np.broadcast_to(col_counts, e.shape)),
        ("rows", np.broadcast_to((row_counts > 0)[:, None], e.shape).astype(np.float64)),
        ("rows", np.broadcast_to(row_counts[:, None], e.shape)),
    )
    d = a - e
    tol = _pair_tol(a, e)
    for where, subtracted in patterns:
        pattern = onehot - subtracted
        pp = float(np.vdot(pattern, pattern))
        if pp == 0:
            continue
        k = float(np.vdot(d, pattern)) / pp
        if k <= 0 or not _close(d, k * pattern, tol):
            continue
        wrong = {
            "columns": "dx[:, y] -= 1 (or a loop over the labels) subtracts from whole columns "
            "(in every row, at every label of the batch)",
            "rows": "dx[y] -= 1 subtracts from whole rows (the rows numbered like the labels)",
            "every entry": "it is subtracted from every entry (dx -= 1, or dx[:, y] -= 1 "
            "when every class is among the labels)",
        }[where]
        return Hint(
            "one-hot-index",
            f"{ctx.who} has the one-hot term (−{_fmt_factor(k)}) in the wrong places: {wrong}; "
            "it belongs at one entry per row, the label: dx[np.arange(N), y] -= 1.",
        )
    return None


def _one_hot_term(a: np.ndarray, ctx: _Ctx) -> Hint | None:
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
    tol = _pair_tol(a, e)
    if abs(c) <= 10 * tol or not _close(off, np.full(off.shape, c), tol) or max_abs(rest) > tol:
        return None
    n = e.shape[0]
    per_n = f" (1/N with N = {n})" if abs(abs(c) * n - 1) <= FACTOR_RTOL else ""
    if c > 0:
        cause = (
            "the one-hot term is missing: subtract 1 at the label of each row, "
            "dx[np.arange(N), y] -= 1, before dividing by N (dx = p / N alone is not enough)"
        )
    else:
        cause = (
            "the one-hot term is subtracted too much — twice, or without the division by N "
            "(subtract 1 at dx[np.arange(N), y] once, then divide everything by N)"
        )
    return Hint(
        "one-hot-term",
        f"{ctx.who} is right everywhere except at the label entry of each row (the one "
        f"negative entry of the expected row), where it is off by {c:+.3g}{per_n}: {cause}.",
    )


def _one_example(a: np.ndarray, ctx: _Ctx) -> Hint | None:
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
        rest = np.delete(a, row, axis=0)
        n_rows = e.shape[0]
        index = 0 if row == 0 else n_rows - 1
        if max_abs(rest) <= ctx.tol:
            detail = f"zero in the other {n_rows - 1} rows"
        else:
            detail = f"wrong in every other row ({n_rows - 1} rows)"
        cause = (
            "a loop that overwrites instead of accumulating, or that keeps only its last step?"
            if row == -1
            else "loop over all N examples or vectorise over the batch axis (x[0] used?)."
        )
        return Hint(
            code,
            f"{ctx.who} is right for the {label} example (row {index}) but {detail}: only "
            f"one example is handled — {cause}",
        )
    return None


def _batch_axis_first(shape: tuple[int, ...], batch: int | None) -> bool:
    """Is axis 0 plausibly the batch axis? (N >= 2 rows; N == batch_size when it is known.)"""
    if len(shape) == 0 or shape[0] < 2:
        return False
    if batch is not None:
        return shape[0] == batch
    return len(shape) >= 2


def _mask_explains(wrong: np.ndarray, row: int, ctx: _Ctx) -> bool:
    """With a mask, are all wrong entries on one side of it, a side row `row` lacks?"""
    if ctx.mask is None:
        return False
    sides = set(np.unique(ctx.mask[wrong]).tolist())
    return len(sides) == 1 and not (ctx.mask[row] == sides.pop()).any()


def _upstream_row(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """actual equals one row of the upstream gradient (e.g. db = dout[-1])."""
    up = ctx.upstream
    if up is None or up.ndim != a.ndim + 1 or up.shape[1:] != a.shape or up.shape[0] < 2:
        return None
    if max_abs(a) == 0:
        return None
    tol = _pair_tol(a, up)
    for i in range(up.shape[0]):
        if _close(a, up[i], tol):
            last = i == up.shape[0] - 1
            why = " (a loop that overwrites with `=` instead of adding with `+=`?)" if last else ""
            return Hint(
                "not-summed-over-batch",
                f"{ctx.who} equals row {i} of the upstream gradient dout (one example only): "
                f"sum over all {up.shape[0]} rows of the batch axis{why}.",
            )
    return None


def _masked(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    m = ctx.mask
    if m is None or m.all() or not m.any():
        return None
    wrong = np.abs(a - ctx.expected) > ctx.tol
    wrong_in, wrong_out = bool(wrong[m].any()), bool(wrong[~m].any())
    if wrong_in == wrong_out:
        return None
    side = m if wrong_in else ~m
    count = f"{int(wrong[side].sum())} of the {int(side.sum())} entries"
    ratio = _ratio_note(a[side], ctx.expected[side])
    if wrong_out:
        if max_abs(ctx.expected[~m]) <= ctx.tol:
            fix = "the expected one is 0 there: apply the mask (e.g. dout * (x > 0))"
        else:
            fix = "the mask is not applied, or the wrong slope is used there"
        return Hint(
            "mask",
            f"{ctx.who} is right where the mask is True but wrong at {count} where it is False"
            f"{ratio}; {fix}.",
        )
    return Hint(
        "mask",
        f"{ctx.who} is right where the mask is False but wrong at {count} where it is True"
        f"{ratio}: wrong only where the mask applies — the slope taken at the wrong place "
        "(from the output instead of the input?) or the mask multiplied by the wrong array "
        "(x instead of dout?).",
    )


def _zero_pattern(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """No mask given: the exact zeros of expected act as one (blocked entries of ReLU...)."""
    blocked = np.abs(ctx.expected) <= ctx.tol
    if ctx.mask is not None or min(blocked.sum(), (~blocked).sum()) < 2:
        return None
    wrong = np.abs(a - ctx.expected) > ctx.tol
    if not wrong[~blocked].any():
        return Hint(
            "mask",
            f"{ctx.who} is right wherever the expected one is non-zero, but not 0 at "
            f"{int(wrong[blocked].sum())} of the {int(blocked.sum())} entries where it is 0: "
            "the gradient is not blocked there — a mask not applied (ReLU where x ≤ 0, "
            "max-pool outside the max, dropped units).",
        )
    if not wrong[blocked].any() and wrong[~blocked].all():
        return Hint(
            "mask",
            f"{ctx.who} is 0 exactly where the expected one is, but wrong at every other entry: "
            "the mask is right, what it multiplies (or the slope) is not — dout, not x?",
        )
    return None


#: Elementwise layers whose slope is a function φ of their output: (name, φ, φ(x), φ(out)).
_SLOPES_OF_OUTPUT: tuple[tuple[str, Callable[[np.ndarray], np.ndarray], str, str], ...] = (
    ("tanh", lambda t: 1 - t**2, "1 − x²", "1 − out²"),
    ("sigmoid", lambda t: t * (1 - t), "x·(1 − x)", "out·(1 − out)"),
)


def _slope_from_input(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    """expected == dout * φ(out) for a known φ, and actual == dout * φ(x) instead."""
    up = ctx.upstream
    if ctx.layer is None or up is None or up.shape != a.shape:
        return None
    x, out = ctx.layer
    for layer, slope, wrong, formula in _SLOPES_OF_OUTPUT:
        right, used = up * slope(out), up * slope(x)
        if _close(ctx.expected, right, _pair_tol(ctx.expected, right)) and _close(
            a, used, _pair_tol(a, used)
        ):
            return Hint(
                "slope-from-input",
                f"{ctx.who} takes the {layer} slope from the layer's input, {wrong}, but it is "
                f"{formula}, a function of the output: use the out cached by the forward pass.",
            )
    return None


def _ratio_note(a: np.ndarray, e: np.ndarray) -> str:
    """', where it is c times the expected one' when a == c * e on this part, else ''."""
    ee = float(np.vdot(e, e))
    if ee == 0 or np.sum(np.abs(e) > 0) < 2:
        return ""
    c = float(np.vdot(a, e)) / ee
    if c == 0 or not _close(a, c * e, _pair_tol(a, e)):
        return ""
    return f" (there it is {_fmt_factor(c)} times the expected one)"


def _almost(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    diff = np.abs(a - ctx.expected)
    worst = float(diff.max())
    if worst > ALMOST_RTOL * ctx.scale:
        return None
    at = _first(diff == worst)
    largest = "the largest difference" if a.ndim else "the difference"
    of = "of the largest expected value" if a.ndim else "of the expected value"
    return Hint(
        "almost",
        f"{ctx.who} is close but not within tolerance: {largest} is "
        f"{fmt_num(worst)}{_at(at)} (expected {_fmt_pair(ctx.expected[at], a[at])}), "
        f"{fmt_num(worst / ctx.scale)} {of} — a "
        "small term is off (an epsilon, a regularisation term, float32 somewhere?).",
    )


def _partial(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    wrong = np.abs(a - ctx.expected) > ctx.tol
    n_wrong = int(wrong.sum())
    if n_wrong == a.size:
        return None
    at = _first(wrong)
    return Hint(
        "partial",
        f"{ctx.who} matches the expected one at {a.size - n_wrong} of {a.size} entries; the "
        f"{n_wrong} other{'s differ' if n_wrong > 1 else ' differs'}, the first at "
        f"{fmt_index(at)}: expected {_fmt_pair(ctx.expected[at], a[at])}.",
    )


_VALUE_RULES: tuple[Callable[[np.ndarray, _Ctx], Hint | None], ...] = (
    _should_be_zero,
    _zero,
    _factor,
    _offset,
    _transposed,
    _transpose_reshaped,
    _wrong_axis,
    _unmasked_upstream,
    _upstream_row,
    _slope_from_input,
    _mask_from_dout,
    _one_hot_index,
    _one_hot_term,
    _one_example,
    _masked,
    _zero_pattern,
    _almost,
    _partial,
)
