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
    describe,
    float64_array,
    fmt_shape,
    max_abs,
    optional_batch_size,
    optional_kind,
    optional_mask,
    require_finite,
)
from .errors import ToolkitInputError
from .hint_problems import (
    ConvProblem,
    LstmProblem,
    NormProblem,
    NormTestProblem,
    OptimProblem,
    PoolProblem,
    RunningProblem,
    checked_conv,
    checked_lstm,
    checked_norm,
    checked_norm_test,
    checked_optim,
    checked_pool,
    checked_running,
)

__all__ = [
    "ALMOST_RTOL",
    "FACTOR_RTOL",
    "RTOL",
    "Hint",
    "HintContext",
    "Rule",
    "RNN_KEYS",
    "RnnProblem",
    "checked_layer_pair",
    "checked_reg",
    "checked_rnn",
    "checked_weights",
    "close",
    "is_gradient_name",
    "make_context",
    "mistake_matches",
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
class RnnProblem:
    """A vanilla tanh RNN, h_t = tanh(x_t Wx + h_(t−1) Wh + b), and the upstream gradient dh of
    every state: x (N, T, D), h0 (N, H), wx (D, H), wh (H, H), b (H,), dh (N, T, H); step — the
    problem was given as one step (x (N, D), prev_h, dnext_h), its gradients named dx, dprev_h."""

    x: np.ndarray
    h0: np.ndarray
    wx: np.ndarray
    wh: np.ndarray
    b: np.ndarray
    dh: np.ndarray
    step: bool


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
    weights: np.ndarray | None = None  # a weight matrix: shaped like expected, or square (K, K)
    reg: float | None = None  # the L2 strength, with weights shaped like expected
    rnn: RnnProblem | None = None  # a vanilla tanh RNN problem (see checked_rnn)
    norm: NormProblem | None = None  # a train-mode batchnorm or layernorm (hint_problems)
    norm_test: NormTestProblem | None = None  # a test-mode batchnorm forward
    running: RunningProblem | None = None  # one running-average update
    optim: OptimProblem | None = None  # K steps of an update rule
    lstm: LstmProblem | None = None  # an LSTM sequence or step (hint_problems)
    conv: ConvProblem | None = None  # a convolution layer
    pool: PoolProblem | None = None  # a max-pool layer


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
    weights: Any = None,
    reg: Any = None,
    rnn: Any = None,
    norm: Any = None,
    norm_test: Any = None,
    running: Any = None,
    optim: Any = None,
    lstm: Any = None,
    conv: Any = None,
    pool: Any = None,
) -> HintContext:
    """The checked arguments of `diagnose` (see there); raises ToolkitInputError on bad ones.

    expected becomes a finite float64 array of shape S; mask, layer_input and layer_output must
    be shaped S; kind None is guessed from the name (`is_gradient_name`), "gradient" without one;
    weights, reg and rnn are checked by `checked_weights`, `checked_reg` and `checked_rnn`;
    norm, norm_test, running, optim, lstm, conv and pool by `grader.hint_problems` (against
    expected's shape).
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
        weights=checked_weights(weights, exp.shape),
        reg=checked_reg(reg),
        rnn=checked_rnn(rnn),
        norm=checked_norm(norm, exp.shape),
        norm_test=checked_norm_test(norm_test, exp.shape),
        running=checked_running(running, exp.shape),
        optim=checked_optim(optim, exp.shape),
        lstm=checked_lstm(lstm, exp.shape),
        conv=checked_conv(conv, exp.shape),
        pool=checked_pool(pool, exp.shape),
    )


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
            f"weights must be a matrix W shaped like expected, {fmt_shape(shape)} (for dW), or a "
            f"square (K, K) one, K the size of expected's last axes (for dx = dout @ W.T), but it "
            f"has shape {fmt_shape(w.shape)}."
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
        raise ToolkitInputError(f"reg must be None or a number ≥ 0, but got {describe(reg)}.")
    return float(reg)


#: The arrays of an RNN problem: a sequence (x (N, T, D), h0, dh (N, T, H)) or one step
#: (x (N, D), prev_h, dnext_h (N, H)); both with Wx (D, H), Wh (H, H) and b (H,).
RNN_KEYS = (("x", "h0", "Wx", "Wh", "b", "dh"), ("x", "prev_h", "Wx", "Wh", "b", "dnext_h"))


def checked_rnn(rnn: Any) -> RnnProblem | None:
    """None, or the RNN problem as a sequence (an RnnProblem).

    Accepts a mapping with the keys of either line of RNN_KEYS (extra keys are ignored); one
    step becomes a sequence of length T = 1. Raises ToolkitInputError on missing keys or shapes
    that do not fit together.
    """
    __tracebackhide__ = True
    if rnn is None:
        return None
    if not hasattr(rnn, "keys") or not any(all(k in rnn for k in keys) for keys in RNN_KEYS):
        raise ToolkitInputError(
            "rnn must be a dict with x, h0, Wx, Wh, b, dh (a sequence) or x, prev_h, Wx, Wh, b, "
            f"dnext_h (one step), but got {describe(rnn)}."
        )
    keys = RNN_KEYS[0] if all(k in rnn for k in RNN_KEYS[0]) else RNN_KEYS[1]
    arrays = []
    for key in keys:
        arr = float64_array(rnn[key], f"rnn['{key}']")
        require_finite(arr, f"rnn['{key}']")
        arrays.append(arr)
    x, h0, wx, wh, b, dh = arrays
    if keys is RNN_KEYS[1]:
        x, dh = x[:, None, :], dh[:, None, :]
    ok = x.ndim == 3 and h0.ndim == 2 and wx.ndim == 2 and b.ndim == 1
    if ok:
        (n, t, d), h = x.shape, b.shape[0]
        ok = h0.shape == (n, h) and wx.shape == (d, h) and wh.shape == (h, h) and dh.shape == (n, t, h)
    if not ok:
        shapes = ", ".join(f"{k} {fmt_shape(np.shape(rnn[k]))}" for k in keys)
        raise ToolkitInputError(
            f"the arrays of rnn do not fit together ({shapes}); expected x (N, T, D), h0 (N, H), "
            "Wx (D, H), Wh (H, H), b (H,), dh (N, T, H) (or x (N, D), prev_h, dnext_h (N, H))."
        )
    return RnnProblem(x, h0, wx, wh, b, dh, step=keys is RNN_KEYS[1])


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
