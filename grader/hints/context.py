"""What every hint rule works with: the Hint it returns, its context and the matching tolerance.

`HintArgs` are the caller's hints, checked once against expected's shape (`grader.hints.hint_args`);
`context_for(expected, args, name)` adds expected, its scale and the wording into the
`HintContext` every rule reads. A rule is a function (actual, ctx) -> Hint | None (see `Rule`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from .._validate import (
    describe,
    float64_array,
    fmt_shape,
    max_abs,
    require_finite,
)
from ..errors import ToolkitInputError
from ..i18n import Returned, _, language

__all__ = [
    "ALMOST_RTOL",
    "FACTOR_RTOL",
    "RTOL",
    "Hint",
    "HintArgs",
    "HintContext",
    "Rule",
    "checked_layer_pair",
    "checked_reg",
    "checked_weights",
    "close",
    "context_for",
    "is_gradient_name",
    "mistake_matches",
    "pair_tol",
    "problem_of",
]

T = TypeVar("T")

#: Two arrays "match" when every entry differs by at most RTOL × (largest |entry| of either).
RTOL = 1e-5
#: `almost` fires when the largest difference is below this fraction of the scale.
ALMOST_RTOL = 1e-3
#: A factor c is shown as an integer k (or 1/k) when it is within this relative distance.
FACTOR_RTOL = 1e-4


@dataclass(frozen=True)
class Hint:
    """A diagnosis: `code` is a key of HINT_CODES, `message` one or two actionable sentences."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.message}  [{self.code}]"



@dataclass(frozen=True)
class HintArgs:
    """The caller's hints, checked against expected's shape S (see `grader.hints.hint_args`)."""

    batch: int | None = None  # N, the batch size
    mask: np.ndarray | None = None  # bool (S): where a mask (ReLU's x > 0) applies
    upstream: np.ndarray | None = None  # the dout given to the backward pass
    layer: tuple[np.ndarray, np.ndarray] | None = None  # (input, output) of an elementwise layer, (S)
    kind: str | None = None  # "gradient", "value", or None: guessed from the name
    weights: np.ndarray | None = None  # a weight matrix: shaped like expected, or square (K, K)
    reg: float | None = None  # the L2 strength, with weights shaped like expected
    problem: Any = None  # the checked dataclass of the problem expected is the answer of
    problem_name: str | None = None  # its key in PROBLEMS ("lstm", "conv", ...)


@dataclass(frozen=True)
class HintContext:
    """What every rule needs: the checked hints, expected, and the matching tolerance."""

    who: str  # "your db"
    expected: np.ndarray
    scale: float  # largest |expected|
    tol: float  # RTOL * scale
    kind: str  # "gradient" or "value"
    batch: int | None = None
    mask: np.ndarray | None = None
    upstream: np.ndarray | None = None
    layer: tuple[np.ndarray, np.ndarray] | None = None
    weights: np.ndarray | None = None
    reg: float | None = None
    problem: Any = None
    problem_name: str | None = None


def context_for(expected: np.ndarray, args: HintArgs, name: str | None) -> HintContext:
    """The context of one comparison: `expected` (finite float64, shape S, already checked), the
    hints `args` checked against S, and the name the messages use ("your db"). A name from
    `grader.tr` is shown in the student's language and read (gradient or value) in English."""
    kind = args.kind
    if kind is None:
        kind = "gradient" if name is None or is_gradient_name(getattr(name, "english", name)) else "value"
    scale = max_abs(expected)
    return HintContext(
        who=your(name) if name else _("your answer"), expected=expected, scale=scale, tol=RTOL * scale,
        kind=kind, batch=args.batch, mask=args.mask, upstream=args.upstream, layer=args.layer,
        weights=args.weights, reg=args.reg, problem=args.problem, problem_name=args.problem_name,
    )


def your(name: str) -> str:
    """"your {name}", the head of a hint. A name the student's language translated (a `grader.tr`
    label such as "loss") is a noun whose gender the message cannot know: it gets a form that agrees
    whatever the gender ("o valor que você obteve para perda", never "o seu perda"); a name left as
    written (code: "dx") keeps the short form ("o seu dx")."""
    if isinstance(name, Returned):
        if language() == "en":
            return f"your {name.english}"
        if name.name:
            # Translators: a hint's head: a code name ("dx") a function ("softmax_loss") returned
            return _("your {function}'s {name}").format(function=name.function, name=name.name)
        # Translators: a hint's head: what a function ("softmax_loss") returned, one value or a tuple
        return _("your {function}'s result").format(function=name.function)
    if getattr(name, "english", str(name)) != str(name):
        # Translators: {noun} is a word of your language (a translated label), of either gender.
        return _("your {noun}").format(noun=name)
    return _("your {name}").format(name=name)



def problem_of(ctx: HintContext, kind: type[T]) -> T | None:
    """ctx's problem when it is a `kind` (the dataclass of a problem module), else None."""
    return ctx.problem if isinstance(ctx.problem, kind) else None


#: A rule: (actual, ctx) -> the Hint it recognises, or None.
Rule = Callable[[np.ndarray, HintContext], Hint | None]



def checked_weights(weights: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """None, or a finite float64 2-D W shaped like expected (`shape`) or square (K, K) with K the
    product of expected's last axes (dx = dout @ W.T, x reshaped to (-1, K))."""
    __tracebackhide__ = True
    if weights is None:
        return None
    w = float64_array(weights, "weights")
    require_finite(w, "weights")
    square = w.ndim == 2 and w.shape[0] == w.shape[1] and trailing_block(shape, w.shape[0])
    if w.shape != tuple(shape) and not square:
        raise ToolkitInputError(
            _("weights must be a matrix W shaped like expected, {shape} (for dW), or a "
              "square (K, K) one, K the size of expected's last axes (for dx = dout @ W.T), but it "
              "has shape {got}.").format(shape=fmt_shape(shape), got=fmt_shape(w.shape))
        )
    return w


def trailing_block(shape: tuple[int, ...], k: int) -> bool:
    """Is k the product of the last axes of `shape` (one or more; a batch axis may stay in front)?"""
    return any(int(np.prod(shape[i:])) == k for i in range(len(shape)))


def checked_reg(reg: Any) -> float | None:
    """None, or a finite number ≥ 0 (the L2 strength) as a float."""
    __tracebackhide__ = True
    if reg is None:
        return None
    ok = isinstance(reg, int | float | np.integer | np.floating) and not isinstance(reg, bool | np.bool_)
    if not ok or not np.isfinite(float(reg)) or float(reg) < 0:
        raise ToolkitInputError(_("reg must be None or a number ≥ 0, but got {what}.").format(
            what=describe(reg)))
    return float(reg)




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
                _("{what} must have the shape of expected, {shape}, but it has shape {got}.").format(
                    what=what, shape=fmt_shape(shape), got=fmt_shape(arr.shape))
            )
    return pair


def close(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    """Every entry of a within tol of b (same or broadcastable shapes)."""
    return bool(np.all(np.abs(a - b) <= tol))


def pair_tol(*arrays: np.ndarray) -> float:
    """The matching tolerance of these arrays: RTOL × the largest |entry| of any of them."""
    return RTOL * max(max_abs(a) for a in arrays)


def mistake_matches(
    a: np.ndarray,
    right: np.ndarray,
    wrong: np.ndarray,
    *,
    shared: tuple[int, ...] | None = None,
    origin: np.ndarray | float = 0.0,
) -> bool:
    """a equals `wrong` (a computation with one mistake on), and wrong clearly differs from right.

    Inputs: three arrays of one shape S: a — the student's, right — the correct value of the
    problem, wrong — the same problem recomputed with the mistake. wrong must differ from right
    by more than 10 × the matching tolerance somewhere (so the mistake is visible in these
    numbers), and a match wrong within it everywhere. The tolerance is RTOL × a scale: by
    default the largest |entry| of the arrays compared (as `pair_tol`); with `shared`, the
    largest |entry| over those axes only, entry by entry elsewhere (e.g. shared=(0,) for a
    batchnorm's (N, D) arrays: one scale per feature, whose columns are separate problems), with
    a floor of 1e-4 × the largest scale; origin (broadcasting to S) is subtracted first (w0 from
    an optimiser's trajectory: the steps are what the mistakes change).
    """
    if wrong.shape != a.shape or not np.all(np.isfinite(wrong)):
        return False
    a, right, wrong = a - origin, right - origin, wrong - origin
    if shared is None:
        return not close(wrong, right, 10 * pair_tol(wrong, right)) and close(a, wrong, pair_tol(a, wrong))
    differs = np.any(np.abs(wrong - right) > 10 * _shared_tol(wrong, right, shared))
    return bool(differs) and bool(np.all(np.abs(a - wrong) <= _shared_tol(a, wrong, shared)))


def _shared_tol(x: np.ndarray, y: np.ndarray, shared: tuple[int, ...]) -> np.ndarray:
    """RTOL × the largest |entry| of x and y over the `shared` axes (entry by entry elsewhere),
    at least 1e-4 × the largest of all; broadcasts to x's shape."""
    scale = np.maximum(np.abs(x), np.abs(y))
    if shared and scale.ndim:
        scale = np.max(scale, axis=shared, keepdims=True)
    floor = 1e-4 * float(scale.max()) if scale.size else 0.0
    return RTOL * np.maximum(scale, floor)
