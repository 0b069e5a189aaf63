"""Scale and sign rules: zero, a constant factor or offset, and the last resorts.

The factors are the sign, sum vs mean, 2 and any other c; the last resorts `almost` and
`partial` only state how far off the answer is. Each rule takes (actual, ctx) with actual
float64, finite, shaped like expected and not close to it, and returns a Hint or None. The
factor rules run after `should_be_zero`, so ctx.scale > 0 there.
"""

from __future__ import annotations

import numpy as np

from .._validate import fmt_index, fmt_num, max_abs
from .context import ALMOST_RTOL, Hint, HintContext, Rule, close, pair_tol
from .format import at_index, first_index, fmt_factor, fmt_pair

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "zero": "all zeros (or nearly) where a non-zero value was expected: for a gradient a blocked "
    "or unpropagated path; for a value (kind='value') a result never computed or kept.",
    "should-be-zero": "non-zero although the expected value is zero everywhere.",
    "sign": "the right magnitude with the opposite sign.",
    "sum-vs-mean": "off by the batch size N: averaged where a sum was needed (or the reverse).",
    "scale": "off by one constant factor c in every entry (c is reported; 2 and 1/2 explained).",
    "offset": "off by the same constant in every entry (or by the same row in every row): a "
    "term added or left out that does not depend on the entry (a bias, a scalar, a constant).",
    "almost": "close but not within tolerance; reports the largest difference and where.",
    "partial": "right at some entries and wrong at others; says how many and the first wrong one.",
}

__all__ = [
    "RULES",
    "CODES",
    "almost",
    "any_scale",
    "constant_offset",
    "partial",
    "row_offset",
    "scale_of_two",
    "should_be_zero",
    "sign",
    "sum_vs_mean",
    "zero",
]


# ----------------------------------------------------------------------------- zero


def zero(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is (nearly) 0 everywhere, expected is not; worded for a gradient or a value."""
    if ctx.scale == 0 or max_abs(a) > ctx.tol:
        return None
    big = first_index(np.abs(ctx.expected) == ctx.scale)
    exact = max_abs(a) == 0
    if a.ndim == 0:
        got = "0" if exact else f"{fmt_num(float(a))}, practically 0,"
        head = f"{ctx.who} is {got} but the expected one is {fmt_num(float(ctx.expected))}"
    else:
        zeros = "all zeros" if exact else f"all (nearly) zeros, at most {fmt_num(max_abs(a))},"
        head = (
            f"{ctx.who} is {zeros} but the expected one is not "
            f"(e.g. {fmt_num(ctx.expected[big])}{at_index(big)})"
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


def should_be_zero(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """expected is 0 everywhere and actual is not: always a Hint when ctx.scale == 0."""
    if ctx.scale != 0:
        return None
    if a.ndim == 0:
        head = f"the expected value is zero, but {ctx.who} is {fmt_num(float(a))}"
    else:
        big = first_index(np.abs(a) == max_abs(a))
        head = (
            f"the expected value is zero everywhere, but {ctx.who} is not "
            f"(e.g. {fmt_num(a[big])}{at_index(big)})"
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


# ----------------------------------------------------------------------------- factors
# The named factors (−1, N, 1/N, 2, 1/2) are tested directly, so they also work on a single
# number; any other c needs at least two significant entries that agree on it.


def _times(a: np.ndarray, ctx: HintContext, c: float) -> bool:
    """actual == c · expected."""
    return close(a, c * ctx.expected, pair_tol(a, ctx.expected))


def sign(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == −expected."""
    if not _times(a, ctx, -1):
        return None
    return Hint(
        "sign",
        f"{ctx.who} has the right magnitude but the opposite sign everywhere: look for a "
        "missing or extra minus (d(a − b)/db = −1, d(−x) = −dx, loss vs. −loss).",
    )


def sum_vs_mean(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == expected / N or N · expected, N the batch size (given, > 1)."""
    n, who = ctx.batch, ctx.who
    if n is None or n <= 1:
        return None
    divided, multiplied = _times(a, ctx, 1 / n), _times(a, ctx, n)
    if not (divided or multiplied):
        return None
    also = ""
    if n == 2:
        also = " (or a missing path)" if divided else " (or a path counted twice)"
    if divided:
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


def scale_of_two(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == 2 · expected or expected / 2, with their usual causes."""
    if _times(a, ctx, 2):
        return Hint(
            "scale",
            f"{ctx.who} is 2 times the expected one, twice too big: a path counted twice, a missing "
            "½ (0.5, e.g. in 0.5·reg·‖W‖², whose derivative is reg·W), or a difference divided "
            "by h instead of 2h.",
        )
    if _times(a, ctx, 0.5):
        return Hint(
            "scale",
            f"{ctx.who} is 1/2 of the expected one, half as big: a missing path (a variable used "
            "twice needs both contributions added), a dropped factor 2 (d(x²)/dx = 2x), or a "
            "difference divided by 2h instead of h.",
        )
    return None


def any_scale(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == c · expected for one constant c (not ≈ 1), over ≥ 2 significant entries."""
    e = ctx.expected
    c = float(np.vdot(a, e) / np.vdot(e, e))
    significant = int(np.sum(np.abs(e) > ALMOST_RTOL * ctx.scale))
    if significant < 2 or abs(c - 1) <= ALMOST_RTOL or not _times(a, ctx, c):
        return None
    flipped = " (with the sign flipped)" if c < 0 else ""
    return Hint(
        "scale",
        f"{ctx.who} is {fmt_factor(c)} times the expected one in every entry{flipped}: a constant "
        "factor is off — a scale, a 1/N, a regularisation strength or a temperature.",
    )


# ----------------------------------------------------------------------------- offsets
# The difference must not be small (> ALMOST_RTOL × scale, below it `almost` speaks), and
# expected must vary, so that a constant difference is evidence.


def _offset_floor(a: np.ndarray, ctx: HintContext) -> float:
    return ALMOST_RTOL * max(max_abs(a), ctx.scale)


def constant_offset(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual − expected is one constant c everywhere (expected not constant itself)."""
    e = ctx.expected
    if a.size < 2:
        return None
    d = a - e
    tol = pair_tol(a, e)
    c = float(np.mean(d))
    if abs(c) <= _offset_floor(a, ctx) or not close(d, np.full(d.shape, c), tol) or np.ptp(e) <= 10 * tol:
        return None
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


def row_offset(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual − expected is one row vector in every one of ≥ 3 rows that differ in expected."""
    e = ctx.expected
    if a.size < 2 or e.ndim < 2 or e.shape[0] < 3:  # two rows that differ alike can be a coincidence
        return None
    d = a - e
    tol = pair_tol(a, e)
    row = d.mean(axis=0)
    if max_abs(row) <= _offset_floor(a, ctx) or not close(d, np.broadcast_to(row, d.shape), tol):
        return None
    if close(e, np.broadcast_to(e.mean(axis=0), e.shape), 10 * tol):
        return None  # expected has identical rows: an equal difference in every row is no evidence
    shown = ", ".join(fmt_num(v) for v in row.ravel()[:4]) + (", ..." if row.size > 4 else "")
    bias = "a bias" if ctx.kind == "value" else "a per-column term (a bias's gradient?)"
    return Hint(
        "offset",
        f"{ctx.who} is off by the same row [{shown}] in every row (yours minus the expected "
        f"one): {bias} missing or added twice, or added to the wrong array.",
    )


# ----------------------------------------------------------------------------- last resorts


def almost(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """Every difference below ALMOST_RTOL × scale: reports the largest one and where."""
    diff = np.abs(a - ctx.expected)
    worst = float(diff.max())
    if worst > ALMOST_RTOL * ctx.scale:
        return None
    at = first_index(diff == worst)
    largest = "the largest difference" if a.ndim else "the difference"
    of = "of the largest expected value" if a.ndim else "of the expected value"
    return Hint(
        "almost",
        f"{ctx.who} is close but not within tolerance: {largest} is "
        f"{fmt_num(worst)}{at_index(at)} (expected {fmt_pair(ctx.expected[at], a[at])}), "
        f"{fmt_num(worst / ctx.scale)} {of} — a "
        "small term is off (an epsilon, a regularisation term, float32 somewhere?).",
    )


def partial(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """Right at some entries (not none): how many, and the first wrong one."""
    wrong = np.abs(a - ctx.expected) > ctx.tol
    n_wrong = int(wrong.sum())
    if n_wrong == a.size:
        return None
    at = first_index(wrong)
    return Hint(
        "partial",
        f"{ctx.who} matches the expected one at {a.size - n_wrong} of {a.size} entries; the "
        f"{n_wrong} other{'s differ' if n_wrong > 1 else ' differs'}, the first at "
        f"{fmt_index(at)}: expected {fmt_pair(ctx.expected[at], a[at])}.",
    )


#: This module's value rules with their rank among all the generic ones (grader.hints asks
#: them in rank order, most specific first; leave gaps for new rules).
RULES: tuple[tuple[int, Rule], ...] = (
    (10, should_be_zero),
    (20, zero),
    (30, sign),
    (40, sum_vs_mean),
    (50, scale_of_two),
    (60, any_scale),
    (70, constant_offset),
    (80, row_offset),
    (260, almost),
    (270, partial),
)
