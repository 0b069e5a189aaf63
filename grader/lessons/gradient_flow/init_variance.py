"""Lesson 07's check of an initialiser's output: shape, dtype, mean ≈ 0 and variance ≈ expected,
and, for the normal initialisers, draws from a normal distribution.

It prints its ✓/✗ line and hint through `grader.report_lines` (hint code ``init-variance``),
and names the expected variance only once the sample has it: a failed line says in which
direction, and in words how far, the variance is off (never the factor: with the sample's own
variance it would give the expected one away, and the exercise asks to derive it);
reads the array through the trusted path (`grader.trusted`), and raises the toolkit's
`CheckFailed`, as every check does.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np

from ..._validate import describe, fmt_shape
from ...errors import CheckFailed
from ...i18n import N_
from ...i18n import lesson_text as _
from ...referees import referee_all
from ...report_lines import emit, fail_line, hint_line, pass_line, summary_hint
from ...trusted import plain_ndarray, verify_environment
from .steady_variance import band_template, init_variance_reference

__all__ = ["VarianceOff", "check_init_variance", "check_initialiser"]

#: The schemes `check_initialiser` knows, and the words its lines name their variance with.
SCHEMES = {"xavier": N_("Xavier's variance"), "he": N_("He's variance")}

HINT_CODE = "init-variance"
#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    HINT_CODE: "an initialiser's weights of the wrong shape, dtype or variance: the variance "
    "another scheme would give (1/fan_in, 2/fan_in, ...) is named, with the slip it reveals "
    "(check_init_variance).",
}

#: P(|Z| > 2) for a standard normal Z: the share of normal draws beyond 2 standard deviations.
NORMAL_TAIL = math.erfc(2 / math.sqrt(2))
#: The least share beyond 2 standard deviations (of the expected variance) that `normal=True`
#: accepts. A uniform U(-a, a) whose variance is within 5 % of the expected one has
#: a = √3 σ' <= √3.15 σ < 1.78 σ: no draw beyond 2 σ, so it fails whatever its sample. A correct
#: normal sample of n >= 40,000 draws has fewer than 2 % there with probability at most
#: exp(-n KL(0.02 || 0.0455)) <= exp(-375.9) < 1e-163 (Chernoff's bound for the
#: binomial count).
NORMAL_TAIL_LEAST = 0.02


#: (the largest ratio of the variances, either way up, of a band; a too large variance's words; a
#: too small one's). Words only: the factor with the sample's variance would name the expected one.
_BANDS = (
    (1.5, N_("variance {variance}: slightly too large (needs < {tol} off)"),
     N_("variance {variance}: slightly too small (needs < {tol} off)")),
    (3.0, N_("variance {variance}: up to three times too large (needs < {tol} off)"),
     N_("variance {variance}: up to three times too small (needs < {tol} off)")),
    (10.0, N_("variance {variance}: several times too large (needs < {tol} off)"),
     N_("variance {variance}: several times too small (needs < {tol} off)")),
    (math.inf, N_("variance {variance}: more than ten times too large (needs < {tol} off)"),
     N_("variance {variance}: more than ten times too small (needs < {tol} off)")),
)


class VarianceOff(float):
    """check_init_variance's result, |variance / expected − 1|: a plain float in every use, which
    shows nothing as a cell's last value, since the check has printed its ✓ line already (as
    `grader.checks.CheckResult` does)."""

    def _ipython_display_(self) -> None:
        """Show nothing more."""


def _candidate_variances(fan_in: int, fan_out: int, expected: float) -> list[tuple[str, float, str]]:
    """(formula, variance, what it means) for the usual wrong answers."""
    s = fan_in + fan_out
    return [
        ("2/(fan_in + fan_out)", 2 / s, N_("Xavier/Glorot's variance")),
        ("2/fan_in", 2 / fan_in, N_("He's variance (for ReLU)")),
        ("1/fan_in", 1 / fan_in,
         N_("LeCun's variance: it keeps a tanh layer's forward pass steady, and nothing else")),
        ("2/fan_out", 2 / fan_out, N_("fan_out where fan_in belongs")),
        ("1/fan_out", 1 / fan_out, N_("it keeps only the backward pass steady")),
        ("1/(fan_in + fan_out)", 1 / s, N_("it makes the sum of the forward and the backward factor 1, "
                                           "not their average")),
        ("6/(fan_in + fan_out)", 6 / s, N_("the square of the uniform bound a = √(6/(fan_in + fan_out)): "
         "U(−a, a) has variance a²/3, not a²")),
        ("6/fan_in", 6 / fan_in, N_("the square of He's uniform bound: U(−a, a) has variance a²/3")),
        ("(expected variance)²", expected**2, N_("the variance was used as the standard deviation: "
         "pass √variance as the scale")),
        ("√(expected variance)", math.sqrt(expected), N_("the square root was taken twice")),
        ("1", 1.0, N_("unscaled standard normal numbers")),
    ]


def check_init_variance(
    name: str,
    weights: Any,
    fan_in: int,
    fan_out: int,
    expected: float,
    formula: str,
    *,
    tol: float = 0.05,
    normal: bool = False,
) -> float:
    """Check an initialiser's output: shape (fan_in, fan_out), float64, mean ≈ 0, variance ≈ expected
    and, with `normal`, a normal distribution's share of draws beyond 2 standard deviations.

    Prints one ✓ line with the sample variance, the expected one and how far apart they are
    (relative), or one ✗ line with the sample variance, whether it is too large or too small, and
    in words by how much (slightly, several times, more than tenfold: not the factor, which would
    name the expected variance); on failure a hint names the formula the sample matches and the
    slip it reveals (1/fan_in, 2/fan_out, a variance used as the standard deviation, ...), then
    CheckFailed is raised.
    Inputs: name — shown in the line, e.g. "xavier_init(400, 100)"; weights — the array;
    fan_in, fan_out — the arguments; expected — the right variance; formula — how it is written
    (e.g. "2/(fan_in + fan_out)"); tol — largest accepted |variance/expected − 1|; normal —
    also require at least NORMAL_TAIL_LEAST of the weights beyond 2 √expected (a normal sample
    has NORMAL_TAIL ≈ 4.6 % there, a uniform one with the right variance none).
    Returns: the relative difference of the variances, a float (`VarianceOff`) that a cell does
    not display as its last value.
    """
    __tracebackhide__ = True
    returned = weights
    verify_environment()
    weights = plain_ndarray(weights)  # the trusted path: plain data, whatever was returned
    _check_usable(name, weights, returned, fan_in, fan_out)
    n = weights.size
    mean = float(weights.mean())
    var = float(np.mean((weights - mean) ** 2))
    if abs(mean) > 6 * math.sqrt(var / n) + 1e-12:  # 6 standard errors of the sample's own mean
        _fail(name, _("mean {mean}, expected about 0").format(mean=f"{mean:.3g}"),
              _("weights must be centred on 0 (rng.normal(0, std, ...), or rng.uniform(-a, a, ...))."))
    off = abs(var / expected - 1)
    if off >= tol:   # the expected value stays unnamed, and so does the factor (variance / factor names it)
        status = _(band_template(var / expected, _BANDS))
        _fail(name, status.format(variance=f"{var:.4g}", tol=f"{tol:.0%}"),
              _variance_hint(var, fan_in, fan_out, expected, formula, tol))
    status = _("variance {variance}, expected {formula} = {expected} (off by {off}, needs < {tol})").format(
        variance=f"{var:.4g}", formula=formula, expected=f"{expected:.4g}", off=f"{off:.1%}", tol=f"{tol:.0%}"
    )
    if normal:
        tail = float(np.mean(np.abs(weights) > 2 * math.sqrt(expected)))
        shape = _("{tail} beyond 2 standard deviations (a normal distribution: {normal})").format(
            tail=f"{tail:.1%}", normal=f"{NORMAL_TAIL:.1%}")
        if tail < NORMAL_TAIL_LEAST:
            _fail(name, _("variance right, but {shape}").format(shape=shape), _(
                "the brief asks for draws from the normal distribution (rng.normal): uniform draws "
                "with the same variance never go beyond √3 ≈ 1.73 standard deviations, and neither "
                "does a normal cut off (truncated) there."))
        status = f"{status}; {shape}"
    emit([pass_line(name, status)])
    return VarianceOff(off)


def check_initialiser(kind: str, name: str, weights: Any, fan_in: int, fan_out: int, *,
                      normal: bool = False) -> float:
    """`check_init_variance` for a scheme by name (`kind`: "xavier" or "he"), which computes the
    expected variance itself: the lesson's check cells never show it (deriving it is the exercise).
    Returns what `check_init_variance` returns."""
    __tracebackhide__ = True
    if kind not in SCHEMES:
        raise ValueError(_("kind must be 'xavier' or 'he', not {kind}").format(kind=repr(kind)))
    return check_init_variance(name, weights, fan_in, fan_out, init_variance_reference(kind, fan_in, fan_out),
                               _(SCHEMES[kind]), normal=normal)


def _check_usable(name: str, weights: np.ndarray | None, returned: Any, fan_in: int, fan_out: int) -> None:
    """Fail unless `weights` is a finite float64 array of shape (fan_in, fan_out)."""
    __tracebackhide__ = True
    want = fmt_shape((fan_in, fan_out))
    if weights is None or weights.dtype.kind not in "iuf":
        status = _("got {got}, expected a float64 array of shape {shape}")
        _fail(name, status.format(got=describe(returned), shape=want),
              _("return the array (did you forget `return`?)."))
    if weights.shape != (fan_in, fan_out):
        hint = _("it is transposed: the weights of a layer with fan_in inputs and fan_out outputs have "
                 "shape (fan_in, fan_out), so that x @ W works for x of shape (N, fan_in).")
        if weights.shape != (fan_out, fan_in):
            hint = _("make it size=(fan_in, fan_out) = {shape}.").format(shape=want)
        status = _("shape {shape}, expected {expected}")
        _fail(name, status.format(shape=fmt_shape(weights.shape), expected=want), hint)
    if weights.dtype != np.float64:
        _fail(name, _("dtype {dtype}, expected float64").format(dtype=weights.dtype),
              _("draw float64 numbers (the default of rng.normal and rng.uniform)."))
    if not np.all(np.isfinite(weights)):
        _fail(name, _("contains NaN or inf"), _("is a division by zero hiding in the scale?"))


def _variance_hint(var: float, fan_in: int, fan_out: int, expected: float, formula: str, tol: float) -> str:
    """The formula a wrong variance matches (its value too, unless that value would give the expected
    one away), or a question back to the brief."""
    for label, value, meaning in _candidate_variances(fan_in, fan_out, expected):
        distinct = label != formula and not math.isclose(value, expected, rel_tol=2 * tol)
        if distinct and abs(var / value - 1) < tol:
            if "expected" in label:
                return _("your variance matches {formula}: {meaning}.").format(
                    formula=label, meaning=_(meaning))
            return _("your variance matches {formula} = {value}: {meaning}.").format(
                formula=label, value=f"{value:.4g}", meaning=_(meaning)
            )
    return _("no usual formula gives this variance: which variance does the brief ask for, and does "
             "rng.normal get its square root, the standard deviation, as its scale?")


def _fail(name: str, status: str, hint: str) -> NoReturn:
    __tracebackhide__ = True
    emit([fail_line(name, status), hint_line(hint, HINT_CODE)], [(HINT_CODE, hint)])
    raise CheckFailed(f"{name}: {status}{summary_hint(hint, HINT_CODE)}")


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
