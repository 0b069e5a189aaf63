"""`check_dropout` (lesson 08): a statistical check of an inverted-dropout forward pass, any shape.

A dropout forward may use any random generator, so its output cannot be compared with one
reference array. In train mode each unit of x is kept with probability p (and then divided by
p) or dropped (0): the check counts the kept units among those where x ≠ 0 (k of n) and accepts
|k − n·p| ≤ sigmas·sqrt(n·p·(1 − p)) + ½ (a binomial tolerance, 5 standard deviations by
default), and requires every kept unit to equal x / p and every dropped one, and every unit
where x = 0, to be 0 (relative tolerance tol). In test mode out must equal x.

    ✓ out  2987 of 5000 units kept (0.597, p = 0.6), each kept one at the value E[out] = x requires
    ✗ out  2013 of 5000 units kept (0.403; p = 0.6 expects 3000 ± 173)
        Hint: your out keeps about 1 − p of the units ...  [dropout-drop-probability]

Hint codes: `dropout-drop-probability`, `dropout-not-rescaled`, `dropout-at-test`, `partial`
(units neither 0 nor x / p), and the engine's input hints (`none`, `type`, `shape`, `dtype`,
`nan`). Use an x with a few thousand units: the fraction says little about a handful.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._validate import (
    describe,
    dtype_problem,
    float64_array,
    fmt_index,
    positive_float,
    require_finite,
    short_traceback,
    to_numpy,
)
from ...checks import CheckResult, checked_name, compare, report
from ...errors import ToolkitInputError
from ...hints import RTOL, Hint, HintArgs, diagnose
from ...hints.context import your
from ...hints.format import first_index
from ...i18n import lesson_text as _
from ...numgrad import rel_error
from ...referees import referee_all
from ...report_lines import fail_line, pass_line

__all__ = ["check_dropout"]

#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "dropout-drop-probability": "a dropout keeping about 1 − p of the units (or rescaling by "
    "1/(1 − p)): p taken as the probability of dropping (check_dropout).",
    "dropout-not-rescaled": "a train-mode dropout whose kept units equal x instead of x / p (check_dropout).",
    "dropout-at-test": "a test-mode dropout that is not the identity: units dropped or "
    "rescaled at test time (check_dropout).",
}


@short_traceback
def check_dropout(
    name: str,
    out: Any,
    x: Any,
    p: float,
    mode: str,
    *,
    tol: float = 1e-7,
    sigmas: float = 5.0,
) -> CheckResult:
    """Check an inverted-dropout output against its input; print ✓/✗ (and a hint); raise on failure.

    Inputs: name — shown in the line ("out"); out — the student's output, any shape S; x — the
    float64 input (S); p — the probability of keeping a unit, in (0, 1]; mode — "train" or
    "test"; tol — relative tolerance of the exact comparisons (kept units equal x / p, dropped
    ones 0, test mode out equal x); sigmas — how many binomial standard deviations the number
    of kept units may be away from n·p.
    Returns: the CheckResult (only when it passed; otherwise CheckFailed is raised). Its
    rel_error is that of the units that are not 0, against x / p (train), or of out against x.
    """
    __tracebackhide__ = True
    name = checked_name(name)
    tol = positive_float(tol, "tol")
    sigmas = positive_float(sigmas, "sigmas")
    xs = float64_array(x, "x")
    require_finite(xs, "x")
    p = _checked_p(p)
    if mode not in ("train", "test"):
        message = _("mode must be 'train' or 'test', but got {got}.")
        raise ToolkitInputError(message.format(got=describe(mode)))
    arr = to_numpy(out)
    unusable = _unusable(name, out, arr, xs)
    if unusable is not None:
        row = unusable
    elif mode == "test":
        row = _test_mode(name, arr.astype(np.float64), xs, p, tol)
    else:
        row = _train_mode(name, arr.astype(np.float64), xs, p, tol, sigmas)
    report([row])
    return row[0]


def _checked_p(p: Any) -> float:
    """p, the keep probability, as a float in (0, 1], or ToolkitInputError."""
    __tracebackhide__ = True
    ok = isinstance(p, int | float | np.integer | np.floating) and not isinstance(p, bool | np.bool_)
    if not ok or not 0 < float(p) <= 1:
        raise ToolkitInputError(
            _("p must be the probability of keeping a unit, a number in (0, 1], but got {got}.").format(
                got=describe(p)
            )
        )
    return float(p)


def _unusable(name: str, out: Any, arr: np.ndarray | None, x: np.ndarray) -> tuple[CheckResult, str] | None:
    """The failed row when out is no float64 array shaped like x, or holds NaN or inf; else None."""
    __tracebackhide__ = True
    if arr is not None and arr.dtype.kind in "biuf" and arr.shape == x.shape:
        if dtype_problem(arr) is None and np.all(np.isfinite(arr)):
            return None
    if arr is None or arr.dtype.kind not in "biuf" or arr.shape != x.shape:
        return compare(name, out, x, tol=1.0, args=HintArgs(kind="value"))
    status = (
        _("dtype {dtype}, needs float64").format(dtype=arr.dtype)
        if dtype_problem(arr)
        else _("contains NaN or inf")
    )
    hint = diagnose(arr, x, name=name, kind="value")
    return CheckResult(name, False, math.inf, hint), fail_line(name, status)


def _near(a: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray:
    """Entrywise |a − b| ≤ tol·max(|a|, |b|) (bool, shape of a)."""
    return np.abs(a - b) <= tol * np.maximum(np.abs(a), np.abs(b))


def _train_mode(
    name: str, a: np.ndarray, x: np.ndarray, p: float, tol: float, sigmas: float
) -> tuple[CheckResult, str]:
    """The row of a train-mode check: the kept fraction and the values of kept and dropped units."""
    who = your(name)
    live = x != 0
    zero = np.abs(a) <= tol * np.abs(x) / p
    kept = live & ~zero
    n, k = int(live.sum()), int(kept.sum())
    right = kept & _near(a, x / p, tol)
    loose = max(tol, RTOL)
    raw = kept & ~right & _near(a, x, loose)
    flipped = kept & ~right & _near(a, x / (1 - p), loose) if p < 1 else np.zeros_like(live)
    bad = (kept & ~(right | raw | flipped)) | (~live & (a != 0))
    sd = math.sqrt(n * p * (1 - p))
    fraction_ok = abs(k - n * p) <= sigmas * sd + 0.5
    as_drop = not fraction_ok and abs(k - n * (1 - p)) <= sigmas * sd + 0.5
    err = rel_error(a[kept], (x / p)[kept]) if k else 0.0
    share = (
        _("{k} of {n} units kept ({fraction}").format(k=k, n=n, fraction=f"{k / n:.3g}")
        if n
        else _("x is 0 everywhere (nothing to keep")
    )
    if fraction_ok and not (raw.any() or flipped.any() or bad.any()):
        return CheckResult(name, True, err, None), pass_line(
            name, _("{share}, p = {p}), each kept one at the value E[out] = x requires").format(
                share=share, p=f"{p:g}")
        )
    expects = _("{share}; p = {p} expects {mean} ± {sd})")
    expected = expects.format(share=share, p=f"{p:g}", mean=f"{n * p:.0f}", sd=f"{sd:.0f}")
    problems = [] if fraction_ok else [expected]
    if raw.any() or flipped.any() or bad.any():
        count = int((raw | flipped | bad).sum())
        problems.append(_("{count} units neither 0 nor the value E[out] = x requires").format(count=count))
    hint = _train_hint(who, a, x, p, n, k, raw, flipped, bad, as_drop)
    return CheckResult(name, False, err, hint), fail_line(name, ", ".join(problems) or share + ")")


def _train_hint(
    who: str,
    a: np.ndarray,
    x: np.ndarray,
    p: float,
    n: int,
    k: int,
    raw: np.ndarray,
    flipped: np.ndarray,
    bad: np.ndarray,
    as_drop: bool,
) -> Hint | None:
    """The hint of a failed train-mode check (arrays of the shape of x; n units, k kept)."""
    if (as_drop or flipped.any()) and not bad.any():
        kept = _("keeps {k} of {n} units ({fraction}), about 1 − p = {q} rather than p = {p}").format(
            k=k, n=n, fraction=f"{k / n:.3g}", q=f"{1 - p:.3g}", p=f"{p:g}"
        )
        if flipped.any():
            scaled = _("scales the kept units as if 1 − p of them were kept")
            what = _("{kept}, and {scaled}").format(kept=kept, scaled=scaled) if as_drop else scaled
        else:
            what = kept + (_(" (and leaves the kept ones equal to x)") if raw.any() else "")
        return Hint(
            "dropout-drop-probability",
            _(
                "{who} {what}: p is the probability of KEEPING a unit here. Look at the comparison "
                "that draws the mask (and at the scale of the kept units)."
            ).format(who=who, what=what),
        )
    if raw.any() and not (flipped.any() or bad.any()) and k < n:
        return Hint(
            "dropout-not-rescaled",
            _(
                "{who} drops units but its {count} kept units equal x: then the expected output is "
                "p·x with p = {p}, not x. Inverted dropout scales the kept units in training so that "
                "E[out] = x, and test mode can return x unchanged. Look at the line that applies the mask."
            ).format(who=who, count=int(raw.sum()), p=f"{p:g}"),
        )
    if bad.any():
        i = first_index(bad)
        return Hint(
            "partial",
            _(
                "{who} has {count} units that are neither 0 nor at the kept value (the first at "
                "{index}: x is {x}, yours is {yours}): each unit is either dropped (0) or kept, every "
                "kept unit scaled by the one factor that makes E[out] = x, with one mask for the whole array."
            ).format(who=who, count=int(bad.sum()), index=fmt_index(i), x=f"{x[i]:.4g}", yours=f"{a[i]:.4g}"),
        )
    return None


def _test_mode(name: str, a: np.ndarray, x: np.ndarray, p: float, tol: float) -> tuple[CheckResult, str]:
    """The row of a test-mode check: out must equal x (dropout does nothing at test time)."""
    err = rel_error(a, x)
    if err < tol:
        return CheckResult(name, True, err, None), pass_line(
            name, _("equals x (relative error {error})").format(error=f"{err:.1e}")
        )
    who = your(name)
    live = x != 0
    loose = max(tol, RTOL)
    zero = live & (np.abs(a) <= loose * np.abs(x) / p)
    scaled = live & ~zero & (_near(a, x / p, loose) | _near(a, x, loose))
    masked = zero.any() and bool(np.all(zero | scaled | ~live))
    by_p = p < 1 and (bool(np.all(_near(a, x * p, loose))) or bool(np.all(_near(a, x / p, loose))))
    if masked or by_p:
        what = (
            _("drops {dropped} of the {count} units").format(dropped=int(zero.sum()), count=int(live.sum()))
            if masked
            else _("rescales x")
        )
        hint = Hint(
            "dropout-at-test",
            _(
                "{who} {what} in test mode: at test time inverted dropout does nothing, out is x "
                "itself — the mask and the scaling belong to training only. Look at the "
                "branch for mode 'test'."
            ).format(who=who, what=what),
        )
    else:
        hint = diagnose(a, x, name=name, kind="value")
    return CheckResult(name, False, err, hint), fail_line(
        name, _("relative error {error} to x (needs < {tol})").format(error=f"{err:.1e}", tol=f"{tol:.0e}")
    )


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
