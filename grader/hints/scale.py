"""Scale and sign rules: zero, a constant factor or offset, and the last resorts.

The factors are the sign, sum vs mean, 2 and any other c; the last resorts `almost` and
`partial` only state how far off the answer is. Each rule takes (actual, ctx) with actual
float64, finite, shaped like expected and not close to it, and returns a Hint or None. The
factor rules run after `should_be_zero`, so ctx.scale > 0 there.
"""

from __future__ import annotations

import numpy as np

from .._validate import fmt_index, fmt_num, max_abs
from ..i18n import _, ngettext
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
        got = "0" if exact else _("{value}, practically 0,").format(value=fmt_num(float(a)))
        head = _("{who} is {got} but the expected one is {expected}").format(
            who=ctx.who, got=got, expected=fmt_num(float(ctx.expected)))
    else:
        zeros = _("all zeros") if exact else _("all (nearly) zeros, at most {value},").format(
            value=fmt_num(max_abs(a)))
        head = _("{who} is {zeros} but the expected one is not (e.g. {example}{at})").format(
            who=ctx.who, zeros=zeros, example=fmt_num(ctx.expected[big]), at=at_index(big))
    if ctx.kind == "value":
        return Hint(
            "zero",
            _("{head}: the value is never computed or gets lost — a result not assigned or not "
              "returned, a factor that is 0 (a coefficient, a weight, an integer division such as "
              "1 // 2) or a term left out.").format(head=head),
        )
    if a.ndim == 0:  # a single number: no array was allocated, so no np.zeros to return unchanged
        return Hint(
            "zero",
            _("{head}: no gradient reaches it — did the upstream gradient, or a local slope it is "
              "multiplied by, come out as 0, or is a path left out?").format(head=head),
        )
    return Hint(
        "zero",
        _("{head}: no gradient reaches it — a path blocked or not propagated (the initial "
          "np.zeros returned unchanged?), or a value overwritten with `=` where `+=` should add "
          "to it.").format(head=head),
    )


def should_be_zero(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """expected is 0 everywhere and actual is not: always a Hint when ctx.scale == 0."""
    if ctx.scale != 0:
        return None
    if a.ndim == 0:
        head = _("the expected value is zero, but {who} is {value}").format(
            who=ctx.who, value=fmt_num(float(a)))
    else:
        big = first_index(np.abs(a) == max_abs(a))
        head = _("the expected value is zero everywhere, but {who} is not (e.g. {example}{at})").format(
            who=ctx.who, example=fmt_num(a[big]), at=at_index(big))
    if ctx.kind == "value":
        return Hint(
            "should-be-zero",
            _("{head}: a term that vanishes in this case is not zero in yours (a coefficient such "
              "as reg = 0 not applied, or a term that should cancel).").format(head=head),
        )
    return Hint(
        "should-be-zero",
        _("{head} — nothing flows back here: is a mask or a blocked path missing?").format(head=head),
    )


# ----------------------------------------------------------------------------- factors
# The named factors (−1, N, 1/N, 2, 1/2) are tested directly, so they also work on a single
# number; any other c needs at least two significant entries that agree on it.


def _times(a: np.ndarray, ctx: HintContext, c: float) -> bool:
    """actual == c · expected."""
    return close(a, c * ctx.expected, pair_tol(a, ctx.expected))


def sign(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == −expected (worded for one number, or for every entry of an array)."""
    if not _times(a, ctx, -1):
        return None
    if a.ndim == 0:
        return Hint(
            "sign",
            _("{who} has the right magnitude but the opposite sign: look for a missing or extra "
              "minus (d(a − b)/db = −1, d(−x) = −dx, loss vs. −loss).").format(who=ctx.who),
        )
    return Hint(
        "sign",
        _("{who} has the right magnitude but the opposite sign everywhere: look for a "
          "missing or extra minus (d(a − b)/db = −1, d(−x) = −dx, loss vs. −loss).").format(who=ctx.who),
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
        also = _(" (or a missing path)") if divided else _(" (or a path counted twice)")
    if divided:
        return Hint(
            "sum-vs-mean",
            _("{who} is 1/{n} of the expected one, and {n} is the batch size: divided by N "
              "twice, or averaged over the batch where the expected value sums over it{also}.").format(
                  who=who, n=n, also=also),
        )
    return Hint(
        "sum-vs-mean",
        _("{who} is {n} times the expected one, and {n} is the batch size: divide by N "
          "where the loss averages over the batch (mean, not sum){also}.").format(who=who, n=n, also=also),
    )


def scale_of_two(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == 2 · expected or expected / 2, with their usual causes."""
    if _times(a, ctx, 2):
        return Hint(
            "scale",
            _("{who} is 2 times the expected one, twice too big: a path counted twice, a missing "
              "½ (0.5, e.g. in 0.5·reg·‖W‖², whose derivative is reg·W), or a difference divided "
              "by h instead of 2h.").format(who=ctx.who),
        )
    if _times(a, ctx, 0.5):
        return Hint(
            "scale",
            _("{who} is 1/2 of the expected one, half as big: a missing path (a variable used "
              "twice needs both contributions added), a dropped factor 2 (d(x²)/dx = 2x), or a "
              "difference divided by 2h instead of h.").format(who=ctx.who),
        )
    return None


def any_scale(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual == c · expected for one constant c (not ≈ 1), over ≥ 2 significant entries."""
    e = ctx.expected
    c = float(np.vdot(a, e) / np.vdot(e, e))
    significant = int(np.sum(np.abs(e) > ALMOST_RTOL * ctx.scale))
    if significant < 2 or abs(c - 1) <= ALMOST_RTOL or not _times(a, ctx, c):
        return None
    flipped = _(" (with the sign flipped)") if c < 0 else ""
    return Hint(
        "scale",
        _("{who} is {factor} times the expected one in every entry{flipped}: a constant "
          "factor is off — a scale, a 1/N, a regularisation strength or a temperature.").format(
            who=ctx.who, factor=fmt_factor(c), flipped=flipped),
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
        causes = _(
            "a term added (or missing) once — a constant in the formula or the loss, a "
            "scalar added where an array was meant, the regularisation counted twice"
        )
    else:
        causes = _(
            "a term added (or missing) that does not depend on the entry — a scalar added "
            "where an array was meant (+ reg instead of + reg·W), a constant subtracted "
            "from every entry (the 1 of a one-hot term)"
        )
    return Hint(
        "offset",
        _("{who} is off by the same constant {offset} in every entry (yours minus the "
          "expected one): {causes}.").format(who=ctx.who, offset=f"{c:+.3g}", causes=causes),
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
    bias = _("a bias") if ctx.kind == "value" else _("a per-column term (a bias's gradient?)")
    return Hint(
        "offset",
        _("{who} is off by the same row [{row}] in every row (yours minus the expected "
          "one): {bias} missing or added twice, or added to the wrong array.").format(
            who=ctx.who, row=shown, bias=bias),
    )


# ----------------------------------------------------------------------------- last resorts


def almost(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """Every difference below ALMOST_RTOL × scale: reports the largest one and where."""
    diff = np.abs(a - ctx.expected)
    worst = float(diff.max())
    if worst > ALMOST_RTOL * ctx.scale:
        return None
    at = first_index(diff == worst)
    largest = _("the largest difference") if a.ndim else _("the difference")
    of = _("of the largest expected value") if a.ndim else _("of the expected value")
    return Hint(
        "almost",
        _("{who} is close but not within tolerance: {largest} is {worst}{at} (expected {pair}), "
          "{fraction} {of} — a small term is off (an epsilon, a regularisation term, float32 "
          "somewhere?).").format(who=ctx.who, largest=largest, worst=fmt_num(worst), at=at_index(at),
                                 pair=fmt_pair(ctx.expected[at], a[at]),
                                 fraction=fmt_num(worst / ctx.scale), of=of),
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
        ngettext("{who} matches the expected one at {right} of {size} entries; the "
                 "{wrong} other differs, the first at {index}: expected {pair}.",
                 "{who} matches the expected one at {right} of {size} entries; the "
                 "{wrong} others differ, the first at {index}: expected {pair}.", n_wrong).format(
            who=ctx.who, right=a.size - n_wrong, size=a.size, wrong=n_wrong, index=fmt_index(at),
            pair=fmt_pair(ctx.expected[at], a[at])),
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
