"""What every hint rule works with: the Hint it returns, its context and the matching tolerance.

`make_context` checks the arguments of `grader.hints.diagnose` once and packs them into a
`HintContext`; a rule is a function (actual, ctx) -> Hint | None (see `Rule`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import (
    float64_array,
    fmt_shape,
    max_abs,
    optional_batch_size,
    optional_kind,
    optional_mask,
    require_finite,
)
from .errors import ToolkitInputError

__all__ = [
    "ALMOST_RTOL",
    "FACTOR_RTOL",
    "RTOL",
    "Hint",
    "HintContext",
    "Rule",
    "checked_layer_pair",
    "close",
    "is_gradient_name",
    "make_context",
    "pair_tol",
]

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
class HintContext:
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


#: A rule: (actual, ctx) -> the Hint it recognises, or None.
Rule = Callable[[np.ndarray, HintContext], Hint | None]


def make_context(
    expected: Any,
    *,
    batch_size: Any,
    mask: Any,
    name: str | None,
    upstream: Any,
    layer_input: Any,
    layer_output: Any,
    kind: Any,
) -> HintContext:
    """The checked arguments of `diagnose` (see there); raises ToolkitInputError on bad ones.

    expected becomes a finite float64 array of shape S; mask, layer_input and layer_output must
    be shaped S; kind None is guessed from the name (`is_gradient_name`), "gradient" without one.
    """
    __tracebackhide__ = True
    exp = float64_array(expected, "expected")
    require_finite(exp, "expected")
    up = None if upstream is None else float64_array(upstream, "upstream")
    kind = optional_kind(kind)
    if kind is None:
        kind = "gradient" if name is None or is_gradient_name(name) else "value"
    scale = max_abs(exp)
    return HintContext(
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


def close(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    """Every entry of a within tol of b (same or broadcastable shapes)."""
    return bool(np.all(np.abs(a - b) <= tol))


def pair_tol(*arrays: np.ndarray) -> float:
    """The matching tolerance of these arrays: RTOL × the largest |entry| of any of them."""
    return RTOL * max(max_abs(a) for a in arrays)
