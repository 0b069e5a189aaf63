"""The hint engine: why does a student's array differ from the reference?

`diagnose(actual, expected)` looks only at the numbers and returns a `Hint` (a stable `code`
and a message a student can act on) or None. Rules run from the most specific to the least;
each one only fires on an exact pattern (equality up to a tolerance relative to the scale of
the arrays), so a correct answer gives None and an unrelated array gives None or the purely
factual `partial` hint, never a confident wrong story.
"""

from __future__ import annotations

from collections.abc import Callable
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
    optional_mask,
    require_finite,
    short_traceback,
    to_numpy,
)
from .errors import ToolkitInputError

__all__ = ["HINT_CODES", "Hint", "diagnose"]

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
    "nan": "contains NaN or inf: an overflow (stabilise, e.g. subtract the max), 0/0 or log(0).",
    "zero": "all zeros where a non-zero gradient was expected: a blocked or unpropagated path.",
    "should-be-zero": "non-zero although the expected value is zero everywhere.",
    "sign": "the right magnitude with the opposite sign.",
    "sum-vs-mean": "off by the batch size N: averaged where a sum was needed (or the reverse).",
    "scale": "off by one constant factor c in every entry (c is reported; 2 and 1/2 explained).",
    "mask": "right on one side of the mask (given, or the zeros of expected) and wrong on the "
    "other: mask not applied, or wrong values where it applies.",
    "first-example-only": "right for the first example (row 0) only; the other rows are wrong.",
    "last-example-only": "right for the last example only; the other rows are wrong.",
    "slope-from-input": "an elementwise slope (tanh, sigmoid) computed from the layer's input "
    "instead of its output (needs upstream, layer_input and layer_output).",
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
) -> Hint | None:
    """The most likely explanation of why `actual` (student) differs from `expected`.

    Inputs: actual — anything (usually an array of shape S); expected — float64 array of
    shape S, finite; batch_size — N, enables the sum-vs-mean hint; mask — bool array of shape
    S marking where a mask applies (e.g. ReLU's x > 0); name — e.g. "db", used in the message
    ("your db ..."); upstream — dout of shape (N, *S) or any shape, enables "one row of dout";
    layer_input, layer_output — x and out of an elementwise layer, both of shape S (with an
    upstream of shape S they enable "slope taken from the input").
    Returns: a Hint, or None when actual matches expected or nothing is recognised.
    """
    __tracebackhide__ = True
    exp = float64_array(expected, "expected")
    require_finite(exp, "expected")
    up = None if upstream is None else float64_array(upstream, "upstream")
    scale = max_abs(exp)
    ctx = _Ctx(
        who=f"your {name}" if name else "your answer",
        expected=exp,
        scale=scale,
        tol=RTOL * scale,
        batch=optional_batch_size(batch_size),
        mask=optional_mask(mask, exp.shape),
        upstream=up,
        layer=_layer_pair(layer_input, layer_output, exp.shape),
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


def _layer_pair(x: Any, out: Any, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
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
        if np.squeeze(a).shape == np.squeeze(e).shape:
            return Hint("shape", f"{head}: add or drop the axes of length 1 (keepdims?).")
    return Hint("shape", f"{head}.")


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
    first = fmt_index(_first(~np.isfinite(a)))
    counts = " and ".join(f"{n} {kind}" for n, kind in ((nans, "NaN"), (infs, "inf")) if n)
    where = f"{counts} among its {a.size} entries (the first at {first})"
    if infs:
        cause = (
            "an overflow, e.g. np.exp of a large number: stabilise it (subtract the max before "
            "exp, as in softmax) and check for division by zero"
        )
    else:
        cause = (
            "0/0, inf − inf or log of a non-positive number, often after an overflow (exp → "
            "inf): stabilise (subtract the max before exp) and check divisions and logs"
        )
    return Hint("nan", f"{ctx.who} has {where}: {cause}.")


# ----------------------------------------------------------------------------- value rules
# Each takes (actual, ctx) with actual float64, finite, shaped like expected and not close.


def _zero(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    if ctx.scale == 0 or max_abs(a) > ctx.tol:
        return None
    big = _first(np.abs(ctx.expected) == ctx.scale)
    return Hint(
        "zero",
        f"{ctx.who} is all zeros, but the expected one is not (e.g. "
        f"{fmt_num(ctx.expected[big])} at {fmt_index(big)}): no gradient reaches it — a path "
        "blocked or not propagated (the initial np.zeros returned unchanged?), or a value "
        "overwritten with `=` where `+=` should add to it.",
    )


def _should_be_zero(a: np.ndarray, ctx: _Ctx) -> Hint | None:
    if ctx.scale != 0:
        return None
    big = _first(np.abs(a) == max_abs(a))
    return Hint(
        "should-be-zero",
        f"the expected value is zero everywhere (nothing flows back here), but {ctx.who} is "
        f"not (e.g. {fmt_num(a[big])} at {fmt_index(big)}): is a mask or a blocked path "
        "missing?",
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
            f"{who} is 2 times the expected one: a gradient added twice (one path counted "
            "twice), or a missing 0.5 — the derivative of 0.5·λ·‖W‖² is λ·W, not 2λ·W.",
        )
    if times(0.5):
        return Hint(
            "scale",
            f"{who} is 1/2 of the expected one: a missing path (a variable used twice needs "
            "both contributions added) or a dropped factor 2 (d(x²)/dx = 2x).",
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
    return Hint(
        "almost",
        f"{ctx.who} is close but not within tolerance: the largest difference is "
        f"{fmt_num(worst)} at {fmt_index(at)} (expected {fmt_num(ctx.expected[at])}, got "
        f"{fmt_num(a[at])}), {fmt_num(worst / ctx.scale)} of the largest expected value — a "
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
        f"{fmt_index(at)}: expected {fmt_num(ctx.expected[at])}, got {fmt_num(a[at])}.",
    )


_VALUE_RULES: tuple[Callable[[np.ndarray, _Ctx], Hint | None], ...] = (
    _should_be_zero,
    _zero,
    _factor,
    _transposed,
    _upstream_row,
    _one_example,
    _masked,
    _zero_pattern,
    _slope_from_input,
    _almost,
    _partial,
)
