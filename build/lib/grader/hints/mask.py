"""Mask and slope rules: masks skipped or misplaced, ReLU masks from dout, slopes from the input.

A mask may be given or read from the zeros of expected; a slope (tanh, sigmoid) taken from
the layer's input needs upstream, layer_input and layer_output. Each rule takes (actual, ctx)
with actual float64, finite, shaped like expected and not close to it, and returns a Hint or
None.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validate import max_abs
from ..i18n import N_, _
from .context import Hint, HintContext, Rule, close, pair_tol
from .format import fmt_factor

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "mask": "right on one side of the mask (given, or the zeros of expected) and wrong on the "
    "other: mask not applied, or wrong values where it applies.",
    "slope-from-input": "an elementwise slope (tanh, sigmoid) computed from the layer's input "
    "instead of its output (needs upstream, layer_input and layer_output).",
    "mask-from-dout": "a ReLU mask taken from the upstream gradient (dout > 0) instead of the "
    "forward input (x > 0) (needs upstream, or a mask).",
    "forgot-dout": "the local slope of a tanh, sigmoid or ReLU layer alone (1 − out², out·(1 − out), "
    "the mask): dout not multiplied in (needs layer_input and layer_output, or a mask).",
    "inverted-mask": "a ReLU backward with the mask inverted: 0 where dout should pass, dout where it "
    "should be blocked (x <= 0 instead of x > 0).",
}

__all__ = [
    "RULES",
    "CODES",
    "forgot_dout",
    "inverted_mask",
    "mask_from_dout",
    "masked",
    "slope_from_input",
    "zero_pattern",
]


# ----------------------------------------------------------------------------- slopes and dout


#: Elementwise layers whose slope is a function φ of their output: (name, φ, φ(x), φ(out)).
_SLOPES_OF_OUTPUT: tuple[tuple[str, Callable[[np.ndarray], np.ndarray], str, str], ...] = (
    ("tanh", lambda t: 1 - t**2, "1 − x²", "1 − out²"),
    ("sigmoid", lambda t: t * (1 - t), "x·(1 − x)", "out·(1 − out)"),
)


def slope_from_input(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """expected == dout * φ(out) for a known φ, and actual == dout * φ(x) instead."""
    up = ctx.upstream
    if ctx.layer is None or up is None or up.shape != a.shape:
        return None
    x, out = ctx.layer
    for layer, slope, wrong, formula in _SLOPES_OF_OUTPUT:
        right, used = up * slope(out), up * slope(x)
        if close(ctx.expected, right, pair_tol(ctx.expected, right)) and close(a, used, pair_tol(a, used)):
            return Hint(
                "slope-from-input",
                _("{who} takes the {layer} slope from the layer's input, {wrong}, but it is "
                  "{formula}, a function of the output: use the out cached by the forward pass.").format(
                    who=ctx.who, layer=layer, wrong=wrong, formula=formula),
            )
    return None


def mask_from_dout(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """A ReLU backward with the mask taken from dout: actual == dout * (dout > 0).

    With upstream (shaped like expected): expected is dout or 0 at every entry (a masked dout)
    and actual is exactly np.maximum(dout, 0). With a mask only: where the mask is True
    (expected == dout there), actual is np.maximum(expected, 0), and actual is never negative.
    Either way it needs evidence: at least 2 entries where actual equals a positive dout and
    at least 2 (1 with upstream) where dout is negative and actual is 0.
    """
    up = ctx.upstream
    if up is not None and up.shape == a.shape:
        found = _relu_of_upstream(a, ctx.expected, up)
    elif ctx.mask is not None:
        found = _relu_inside_mask(a, ctx, ctx.mask)
    else:
        found = False
    if not found:
        return None
    return Hint(
        "mask-from-dout",
        _("{who} is 0 wherever dout is negative and dout elsewhere: your mask comes from "
          "dout (dout > 0, or np.maximum(dout, 0)); the ReLU mask comes from the forward input, "
          "x > 0 (cache x in the forward pass): dx = dout * (x > 0).").format(who=ctx.who),
    )


def _relu_of_upstream(a: np.ndarray, e: np.ndarray, up: np.ndarray) -> bool:
    """expected is a masked dout and actual is np.maximum(dout, 0) (≥ 2 positive, ≥ 1 negative)."""
    tol = pair_tol(e, up)
    passed = np.abs(e - up) <= tol
    blocked = np.abs(e) <= tol
    if not (passed | blocked).all() or not close(a, np.maximum(up, 0), pair_tol(a, up)):
        return False
    positive, negative = int((up > tol).sum()), int((up < -tol).sum())
    return positive >= 2 and negative >= 1


def _relu_inside_mask(a: np.ndarray, ctx: HintContext, m: np.ndarray) -> bool:
    """actual is np.maximum(expected, 0) where the mask is True and never negative."""
    inside, got = ctx.expected[m], a[m]
    positive, negative = int((inside > ctx.tol).sum()), int((inside < -ctx.tol).sum())
    if positive < 2 or negative < 2 or (a < -ctx.tol).any():
        return False
    return close(got, np.maximum(inside, 0), ctx.tol)


# ----------------------------------------------------------------------------- slope alone, inverted mask


#: Elementwise layers recognised from (x, out): (name, forward, local slope from (x, out), its
#: formula, the right backward).
_LAYERS: tuple[tuple[str, Callable[[np.ndarray], np.ndarray], Callable[..., np.ndarray], str, str], ...] = (
    ("tanh", np.tanh, lambda x, out: 1 - out**2, "1 − out²", "dx = dout * (1 - out**2)"),
    (
        "sigmoid",
        lambda x: 0.5 * (1 + np.tanh(x / 2)),
        lambda x, out: out * (1 - out),
        "out·(1 − out)",
        "dx = dout * out * (1 - out)",
    ),
    (
        "ReLU",
        lambda x: np.maximum(x, 0),
        lambda x, out: (x > 0).astype(np.float64),
        N_("the mask (x > 0)"),
        "dx = dout * (x > 0)",
    ),
)


def _layer_kind(ctx: HintContext) -> tuple[str, np.ndarray, str, str] | None:
    """(name, local slope, its formula, the right backward) of ctx's layer (x, out), else None.

    Without a layer, a mask alone stands for a ReLU (its slope is the mask).
    """
    if ctx.layer is None:
        if ctx.mask is None:
            return None
        return "ReLU", ctx.mask.astype(np.float64), N_("the mask (x > 0)"), "dx = dout * (x > 0)"
    x, out = ctx.layer
    for name, forward, slope, formula, right in _LAYERS:
        y = forward(x)
        if close(out, y, pair_tol(out, y)):
            return name, slope(x, out), formula, right
    return None


def forgot_dout(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the local slope of a tanh, sigmoid or ReLU layer alone: dout not multiplied in.

    Needs layer_input and layer_output (which identify the layer: out == tanh(x), sigmoid(x)
    or max(x, 0)), or a mask (a ReLU's); with an upstream shaped like expected, expected must
    be dout · slope.
    """
    found = _layer_kind(ctx)
    if found is None:
        return None
    layer, slope, formula, right_form = found
    up = ctx.upstream
    if up is not None and up.shape == a.shape:
        right = up * slope
        if not close(ctx.expected, right, pair_tol(ctx.expected, right)):
            return None
    if max_abs(slope) == 0 or not close(a, slope, pair_tol(a, slope)):
        return None
    return Hint(
        "forgot-dout",
        _("{who} is the {layer}'s local slope, {formula}, alone: the upstream gradient dout is "
          "missing — the chain rule multiplies the two: {right}.").format(
            who=ctx.who, layer=layer, formula=_(formula), right=right_form),
    )


def inverted_mask(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """A ReLU backward with the mask inverted: actual == dout * (x <= 0) where dout * (x > 0) was expected.

    The mask comes from `mask`, from a ReLU layer (x > 0) or from the zeros of expected; actual
    must be 0 wherever the mask passes dout and non-zero wherever it blocks it (≥ 2 entries
    each); with an upstream shaped like expected, actual must equal dout where it is blocked.
    """
    e, tol = ctx.expected, ctx.tol
    found = _layer_kind(ctx)
    if ctx.mask is not None:
        passes = ctx.mask
    elif found is not None and found[0] == "ReLU":
        passes = ctx.layer[0] > 0
    else:
        passes = np.abs(e) > tol
    zero_a, zero_e = np.abs(a) <= tol, np.abs(e) <= tol
    if passes.sum() < 2 or (~passes).sum() < 2 or not zero_e[~passes].all():
        return None
    if not zero_a[passes].all() or zero_a[~passes].any() or zero_e[passes].sum() > passes.sum() // 2:
        return None
    up = ctx.upstream
    if up is not None and up.shape == a.shape:
        blocked = up * ~passes
        if not close(a, blocked, pair_tol(a, blocked)) or not close(e, up * passes, pair_tol(e, up)):
            return None
    return Hint(
        "inverted-mask",
        _("{who} is 0 exactly where the expected one lets dout through and non-zero exactly where "
          "it is 0: the mask is inverted — ReLU passes the gradient where x > 0 (x <= 0 and x < 0 "
          "block it): dx = dout * (x > 0).").format(who=ctx.who),
    )


# ----------------------------------------------------------------------------- masks


def masked(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """With a mask: right on one side of it and wrong on the other."""
    m = ctx.mask
    if m is None or m.all() or not m.any():
        return None
    wrong = np.abs(a - ctx.expected) > ctx.tol
    wrong_in, wrong_out = bool(wrong[m].any()), bool(wrong[~m].any())
    if wrong_in == wrong_out:
        return None
    side = m if wrong_in else ~m
    count = _("{wrong} of the {size} entries").format(wrong=int(wrong[side].sum()), size=int(side.sum()))
    ratio = _ratio_note(a[side], ctx.expected[side])
    if wrong_out:
        if max_abs(ctx.expected[~m]) <= ctx.tol:
            fix = _("the expected one is 0 there: apply the mask (e.g. dout * (x > 0))")
        else:
            fix = _("the mask is not applied, or the wrong slope is used there")
        return Hint(
            "mask",
            _("{who} is right where the mask is True but wrong at {count} where it is False"
              "{ratio}; {fix}.").format(who=ctx.who, count=count, ratio=ratio, fix=fix),
        )
    return Hint(
        "mask",
        _("{who} is right where the mask is False but wrong at {count} where it is True"
          "{ratio}: wrong only where the mask applies — the slope taken at the wrong place "
          "(from the output instead of the input?) or the mask multiplied by the wrong array "
          "(x instead of dout?).").format(who=ctx.who, count=count, ratio=ratio),
    )


def zero_pattern(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """No mask given: the exact zeros of expected act as one (blocked entries of ReLU...)."""
    blocked = np.abs(ctx.expected) <= ctx.tol
    if ctx.mask is not None or min(blocked.sum(), (~blocked).sum()) < 2:
        return None
    wrong = np.abs(a - ctx.expected) > ctx.tol
    if not wrong[~blocked].any():
        return Hint(
            "mask",
            _("{who} is right wherever the expected one is non-zero, but not 0 at "
              "{wrong} of the {size} entries where it is 0: "
              "the gradient is not blocked there — a mask not applied (ReLU where x ≤ 0, "
              "max-pool outside the max, dropped units).").format(
                who=ctx.who, wrong=int(wrong[blocked].sum()), size=int(blocked.sum())),
        )
    if not wrong[blocked].any() and wrong[~blocked].all():
        return Hint(
            "mask",
            _("{who} is 0 exactly where the expected one is, but wrong at every other entry: "
              "the mask is right, what it multiplies (or the slope) is not — dout, not x?").format(
                  who=ctx.who),
        )
    return None


def _ratio_note(a: np.ndarray, e: np.ndarray) -> str:
    """', where it is c times the expected one' when a == c * e on this part, else ''."""
    ee = float(np.vdot(e, e))
    if ee == 0 or np.sum(np.abs(e) > 0) < 2:
        return ""
    c = float(np.vdot(a, e)) / ee
    if c == 0 or not close(a, c * e, pair_tol(a, e)):
        return ""
    return _(" (there it is {factor} times the expected one)").format(factor=fmt_factor(c))


#: This module's value rules with their rank among all the generic ones (grader.hints asks
#: them in rank order, most specific first; leave gaps for new rules).
RULES: tuple[tuple[int, Rule], ...] = (
    (170, slope_from_input),
    (180, mask_from_dout),
    (190, forgot_dout),
    (200, inverted_mask),
    (240, masked),
    (250, zero_pattern),
)
