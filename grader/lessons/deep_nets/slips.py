"""Lesson 08's checks that name the classic slips of its backward passes.

`check_step(exercise, output, actual, expected, inputs, ...)` is `check_close` for one output of
one exercise (`scale_shift_backward`'s dxhat, `variance_backward`'s dvar, a batch norm's or a
layer norm's dx, ...). When the value is wrong and equals, to 1e-8, what a classic slip gives from
the same inputs, the line carries that slip's hint (code `bn-...` or `ln-...`) instead of the
toolkit's generic one ("matches at 1 of 1024 entries"). The slips are recomputed here in NumPy,
so that the check cell shows what it compares, not what a right or a wrong answer looks like.

    ✗ dxhat2  relative error 2.6e-01 (needs < 1e-07)
        Hint: your dxhat2 is da itself: ...  [bn-no-gamma]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...checks import CheckResult, checked_name, compare, report
from ...hints import Hint, hint_args
from ...i18n import N_
from ...i18n import lesson_text as _
from ...referees import referee_all
from ..slips import matching_slip

__all__ = ["HINT_CODES", "check_step", "slips_of"]

#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "bn-no-gamma": "a batch-norm or scale-and-shift gradient without the factor γ of out = γ x̂ + β "
    "(lesson 08).",
    "bn-power-of-r": "a batch-norm dL/dσ² with the wrong power of r = (σ² + ε)^(−1/2) (lesson 08's "
    "variance_backward).",
    "bn-count": "a batch-norm dx N times too large: the 1/N of the paths through the mean and the "
    "variance lost (lesson 08).",
    "bn-one-path": "a centred_backward dx_c holding only the path through x̂, not the one through the "
    "variance (lesson 08).",
    "bn-variance-share": "a centred_backward whose path through the variance lacks the 2/N of "
    "∂σ²/∂x_c, or part of it (lesson 08).",
    "ln-gamma-outside": "a layer-norm dx with γ taken out of the sums over the features, as batch norm "
    "allows (lesson 08).",
    "ln-batch-sums": "a layer-norm dx whose sums run over the batch, batch norm's axis, instead of "
    "each example's features (lesson 08).",
}

_MESSAGES = {
    "bn-no-gamma": N_(
        "your {name} is what you get without γ: out = γ x̂ + β multiplies x̂ by γ, feature by feature, "
        "so every gradient that reaches x̂ (and everything before it) passes through that factor."
    ),
    "bn-power-of-r": N_(
        "your {name} has the wrong power of r: it is −½ r^{power} times ∂L/∂r. r = (σ² + ε)^(−1/2): "
        "differentiate that power of σ² + ε, then write the result with r alone."
    ),
    "bn-count": N_(
        "your {name} is N = {n} times the true gradient: μ and σ² are means over the N examples of the "
        "batch, so the paths through them bring a 1/N. Which factor of your expression lost it?"
    ),
    "bn-one-path": N_(
        "your {name} is the path through x̂ alone; x_c also feeds the variance, and that path adds a term."
    ),
    "bn-variance-share": N_(
        "your {name}'s term through the variance is off by a constant factor: σ² = (1/N) Σ_i x_c,i², "
        "so ∂σ²/∂x_c,i is not x_c,i alone. Work out that derivative, constant included."
    ),
    "ln-gamma-outside": N_(
        "your {name} takes γ out of the sums over each example's features, as batch norm's one "
        "expression could: there γ was the same for every term of a sum over the batch. Here the sums "
        "run over the features, and γ changes from one feature to the next."
    ),
    "ln-batch-sums": N_(
        "your {name} sums over the batch (axis 0), batch norm's axis: layer norm's mean and variance "
        "are taken over each example's own features, so the sums of its backward pass run over those "
        "(axis 1), and its count is D."
    ),
}


def _bn(x: np.ndarray, eps: float, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """(x̂, r) of a normalisation of x over `axis` (statistics kept with keepdims)."""
    xc = x - x.mean(axis=axis, keepdims=True)
    r = 1.0 / np.sqrt((xc**2).mean(axis=axis, keepdims=True) + eps)
    return xc * r, r


def _one_expression(g: np.ndarray, xhat: np.ndarray, r: np.ndarray, axis: int) -> np.ndarray:
    """The one-expression dx of a normalisation over `axis`, from g = ∂L/∂x̂."""
    n = g.shape[axis]
    return r / n * (n * g - g.sum(axis=axis, keepdims=True) - xhat * (g * xhat).sum(axis=axis, keepdims=True))


#: [(code, what that slip gives)]; a code may carry a detail after a colon ("bn-power-of-r:2").
Slips = list[tuple[str, np.ndarray]]


def _scale_shift(output: str, da: np.ndarray, xhat: np.ndarray, gamma: np.ndarray) -> Slips:
    return [("bn-no-gamma", da)] if output == "dxhat" else []


def _variance(output: str, dxhat: np.ndarray, xc: np.ndarray, r: np.ndarray) -> Slips:
    if output != "dvar":
        return []
    dr = (dxhat * xc).sum(axis=0)
    return [(f"bn-power-of-r:{k}", -0.5 * r**k * dr) for k in (1, 2, 4, 5, 0, -1, -2, -3)]


def _centred(output: str, dxhat: np.ndarray, dvar: np.ndarray, xc: np.ndarray,
             r: np.ndarray) -> Slips:
    n = xc.shape[0]
    along = dxhat * r
    shares = [("bn-variance-share", along + dvar * factor * xc) for factor in (1.0 / n, 2.0, 1.0)]
    return [("bn-one-path", along), *shares]


def _batchnorm_dx(output: str, x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, dout: np.ndarray,
                  eps: float = 1e-5) -> Slips:
    if output != "dx":
        return []
    xhat, r = _bn(x, eps, 0)
    n = x.shape[0]
    return [("bn-no-gamma", _one_expression(dout, xhat, r, 0)),
            (f"bn-count:{n}", n * _one_expression(gamma * dout, xhat, r, 0))]


def _layernorm_dx(output: str, x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, dout: np.ndarray,
                  eps: float = 1e-5) -> Slips:
    if output != "dx":
        return []
    xhat, r = _bn(x, eps, 1)
    g = gamma * dout
    n, d = x.shape
    batch_sums = [
        r / size * (size * g - g.sum(axis=0) - xhat * (g * xhat).sum(axis=0)) for size in (d, n)
    ] + [
        gamma * r / size * (size * dout - dout.sum(axis=0) - xhat * (dout * xhat).sum(axis=0))
        for size in (d, n)
    ]
    named = [("ln-gamma-outside", gamma * _one_expression(dout, xhat, r, 1)),
             ("bn-no-gamma", _one_expression(dout, xhat, r, 1))]
    return named + [("ln-batch-sums", wrong) for wrong in batch_sums]


#: exercise -> the slips of its outputs: fn(output, *inputs) -> [(code, what that slip gives)].
_SLIPS: dict[str, Callable[..., list[tuple[str, np.ndarray]]]] = {
    "scale_shift_backward": _scale_shift,
    "variance_backward": _variance,
    "centred_backward": _centred,
    "batchnorm_backward": _batchnorm_dx,
    "batchnorm_backward_alt": _batchnorm_dx,
    "layernorm_backward": _layernorm_dx,
}


def slips_of(exercise: str, output: str, inputs: Sequence[Any]) -> Slips:
    """[(code, the value that slip gives)] for `output` of `exercise` on `inputs` (plain arrays, in the
    exercise's order; for a batch norm's or a layer norm's dx: x, gamma, beta, dout and eps)."""
    arrays = [np.array(a, dtype=np.float64) if not isinstance(a, float) else a for a in inputs]
    with np.errstate(all="ignore"):
        return _SLIPS[exercise](output, *arrays)


def _named(actual: Any, name: str, slips: list[tuple[str, np.ndarray]]) -> Hint | None:
    """The hint of the first slip `actual` equals (grader.lessons.slips), or None."""
    key = matching_slip(actual, slips)
    if key is None:
        return None
    code, _sep, detail = key.partition(":")
    return Hint(code, _(_MESSAGES[code]).format(name=name, power=detail, n=detail))


def check_step(exercise: str, output: str, actual: Any, expected: Any, inputs: Sequence[Any], *,
               label: str | None = None, tol: float = 1e-7, **hints: Any) -> CheckResult:
    """Check `output` of the student's `exercise` (its value `actual`) against `expected`, as
    check_close does (✓/✗ line, hint, CheckFailed), naming the classic slip it equals, if any.

    Inputs: exercise — "scale_shift_backward", "variance_backward", "centred_backward",
    "batchnorm_backward", "batchnorm_backward_alt" or "layernorm_backward"; output — which of its
    outputs ("dxhat", "dvar", "dxc", "dx", ...); inputs — what the exercise was given (for a batch
    norm's or layer norm's dx: x, gamma, beta, dout, eps); label — the line's name (default
    `output`); tol and hints — as for check_close.
    """
    __tracebackhide__ = True
    name = checked_name(label or output)
    exp = np.array(expected, dtype=np.float64)
    result, line = compare(name, actual, exp, tol=tol, args=hint_args(exp.shape, **hints))
    if not result.passed:
        hint = _named(actual, name, slips_of(exercise, output, inputs))
        if hint is not None:
            result = replace(result, hint=hint)
    report([(result, line)])
    return result


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
