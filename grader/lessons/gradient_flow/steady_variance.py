"""Lesson 07's measurement for `steady_variances`: what a layer whose weights have a given variance
does to the size of the signal, measured on random data, so that the visible check needs no
formula.

`measured_gains(variances, fan_in, fan_out)` draws one (fan_in, fan_out) weight matrix per
condition with the variance the student found, sends a large batch through it and returns, per
condition, the factor by which the layer multiplies the quantity that should stay steady (1 when
the variance is right); `check_gains(variances, gains, fan_in, fan_out)` prints, per condition,
whether that quantity stays steady, grows or shrinks, and roughly how much (never the factor
itself: with it, any placeholder v would give the right one away), then the hints of
`show_gain_hints(gains, fan_in, fan_out)`, which names the usual mistakes those factors reveal.
`init_variance_reference(kind, fan_in, fan_out)` is the variance the initialiser checks compare
with: a referee (`grader.referees`), refused inside a graded call.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

import numpy as np

from ...errors import BadReturnValue, CheckFailed
from ...i18n import N_
from ...i18n import lesson_text as _
from ...referees import referee, referee_all
from ...report_lines import emit, fail_line, pass_line, show_hint

__all__ = ["CONDITIONS", "HINT_CODES", "band_template", "check_gains", "init_variance_reference",
           "measured_gains", "show_gain_hints"]

#: The hint codes this module prints, and what each one means (the class report explains each by it;
#: gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "steady-relu-half": "a ReLU layer's steady variance without the factor for the half of z that ReLU "
    "zeroes (lesson 07).",
    "steady-fans-swapped": "a steady variance that uses fan_out where fan_in belongs, or the other way "
    "round (lesson 07).",
}


class _Shown(Mapping):
    """A read-only {key: message} whose messages come out in the student's language (the locked
    cell that prints them is the same in both editions)."""

    def __init__(self, messages: dict[str, str]) -> None:
        self._messages = messages

    def __getitem__(self, key: str) -> str:
        return _(self._messages[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._messages)

    def __len__(self) -> int:
        return len(self._messages)


#: {condition: what stays steady under it}, in the student's language.
CONDITIONS = _Shown({
    "forward": N_("the signal's variance, through a tanh layer near 0"),
    "backward": N_("the gradient's variance, on its way down"),
    "relu_forward": N_("the signal's mean square, through a ReLU layer"),
})


def _weights(rng: np.random.Generator, variance: float, fan_in: int, fan_out: int, key: str) -> np.ndarray:
    """A (fan_in, fan_out) matrix of N(0, variance) draws; BadReturnValue for a variance ≤ 0 or not finite."""
    if not (math.isfinite(variance) and variance > 0):
        raise BadReturnValue(_("{where} must be a positive variance, but it is {variance}.").format(
            where=f"steady_variances(...)['{key}']", variance=repr(variance)
        ))
    return math.sqrt(variance) * rng.standard_normal((fan_in, fan_out))


def measured_gains(variances: dict[str, float], fan_in: int, fan_out: int, batch: int = 4000,
                   seed: int = 0) -> dict[str, float]:
    """Per key of CONDITIONS, the factor a layer with weights of variance variances[key] applies.

    Inputs: variances — plain floats keyed like CONDITIONS; fan_in, fan_out — the layer's size;
    batch — rows of the random batch (inputs and upstream gradients standard normal).
    Returns: dict key → measured factor: Var(h W) / Var(h) for "forward" (the linear layer that a
    tanh layer is near 0), Var(g Wᵀ) / Var(g) for "backward" (g an upstream gradient (batch,
    fan_out)), E[relu(h W)²] / E[h²] for "relu_forward".
    """
    rng = np.random.default_rng(seed)
    h = rng.standard_normal((batch, fan_in))
    g = rng.standard_normal((batch, fan_out))
    w_f = _weights(rng, variances["forward"], fan_in, fan_out, "forward")
    w_b = _weights(rng, variances["backward"], fan_in, fan_out, "backward")
    w_r = _weights(rng, variances["relu_forward"], fan_in, fan_out, "relu_forward")
    return {
        "forward": float((h @ w_f).var() / h.var()),
        "backward": float((g @ w_b.T).var() / g.var()),
        "relu_forward": float(np.mean(np.maximum(h @ w_r, 0.0) ** 2) / np.mean(h**2)),
    }


def show_gain_hints(gains: Mapping[str, float], fan_in: int, fan_out: int) -> None:
    """A hint for each usual mistake that the measured factors of `measured_gains` reveal: a ReLU
    layer that keeps half of the mean square, and a factor of fan_in / fan_out (or its inverse)."""
    if abs(gains["relu_forward"] - 0.5) < 0.03:
        show_hint(_("with your relu_forward variance a ReLU layer keeps half of the signal's mean square: "
                    "what does ReLU do to the negative half of z?"), "steady-relu-half")
    ratio = fan_in / fan_out
    if abs(gains["forward"] / ratio - 1) < 0.05 or abs(gains["backward"] * ratio - 1) < 0.05:
        show_hint(_("a quantity changes by the ratio of fan_in to fan_out (or its inverse): which of the "
                    "two does each sum run over?"), "steady-fans-swapped")


#: Largest accepted |factor − 1| of `check_gains`.
GAIN_TOL = 0.02

#: (the largest factor, or 1/factor, of a band; how a too large v is described; a too small one).
#: Words, not the factor: the factor with the v that gave it would name the right v.
_BANDS = (
    (1.5, N_("v = {variance} is too large: the quantity grows slightly per layer ({meaning})"),
     N_("v = {variance} is too small: the quantity shrinks slightly per layer ({meaning})")),
    (10.0, N_("v = {variance} is too large: the quantity grows substantially per layer ({meaning})"),
     N_("v = {variance} is too small: the quantity shrinks substantially per layer ({meaning})")),
    (math.inf, N_("v = {variance} is too large: the quantity grows more than tenfold per layer ({meaning})"),
     N_("v = {variance} is too small: the quantity shrinks more than tenfold per layer ({meaning})")),
)


def band_template(ratio: float, bands: tuple[tuple[float, str, str], ...]) -> str:
    """The words of `bands` ((largest size, too-large words, too-small words), ...) for a measured /
    expected `ratio`: its size either way up picks the band, its side the words (a ratio of 0, from a
    value that underflowed or is zero, is the smallest there is)."""
    size = max(ratio, 1 / ratio) if ratio > 0 else math.inf
    large, small = next(((large, small) for top, large, small in bands if size < top), bands[-1][1:])
    return large if ratio > 1 else small


def check_gains(variances: Mapping[str, float], gains: Mapping[str, float], fan_in: int,
                fan_out: int) -> None:
    """Per key of CONDITIONS, a ✓ line if the measured factor is within GAIN_TOL of 1, else a ✗ line
    saying whether v is too large or too small and, in words, by how much the quantity grows or
    shrinks per layer; then the hints of `show_gain_hints`; CheckFailed if any factor is off.

    Inputs: variances — the student's plain floats keyed like CONDITIONS; gains — measured_gains of
    them; fan_in, fan_out — the layer's size (for the hints).
    """
    __tracebackhide__ = True
    lines, failed = [], []
    for key in CONDITIONS:
        factor, variance, meaning = gains[key], f"{variances[key]:.4g}", CONDITIONS[key]
        if abs(factor - 1) < GAIN_TOL:
            status = _("v = {variance}: steady, within 2 % ({meaning})").format(
                variance=variance, meaning=meaning)
            lines.append(pass_line(key, status))
            continue
        status = _(band_template(factor, _BANDS)).format(variance=variance, meaning=meaning)
        lines.append(fail_line(key, status))
        failed.append(f"{key}: {status}")
    emit(lines)
    show_gain_hints(gains, fan_in, fan_out)
    if failed:
        raise CheckFailed("; ".join(failed))


@referee
def init_variance_reference(kind: str, fan_in: int, fan_out: int) -> float:
    """The variance the initialiser checks compare with, for a (fan_in, fan_out) layer: Xavier's
    (`kind` "xavier") or He's ("he")."""
    if kind == "xavier":
        return 2.0 / (fan_in + fan_out)
    if kind == "he":
        return 2.0 / fan_in
    raise ValueError(_("kind must be 'xavier' or 'he', not {kind}").format(kind=repr(kind)))


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
