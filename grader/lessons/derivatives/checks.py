"""Lesson 01's visible checks: the reference values and the known mistakes they recognise.

The check cells of lesson 01 call these instead of spelling out, in code the student reads
before solving, the formula the exercise asks for. Every student value goes through the
trusted path (`grader.trusted`) before it is compared with anything; the ✓/✗ lines come from
`check_close`, the hints from `show_hint`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...checks import CheckResult, check_close
from ...errors import CheckFailed
from ...i18n import N_
from ...i18n import lesson_text as _
from ...numgrad import rel_error
from ...referees import referee_all
from ...report_lines import show_hint
from ...trusted import as_array

__all__ = [
    "GRAD_L_TOL",
    "check_centred_slope",
    "check_directional_slope",
    "check_grad_L",
    "check_matmul_gradient",
    "measured_error",
    "check_nudge",
    "check_slope",
    "check_taylor_term",
    "check_value",
]

EPS = float(np.finfo(np.float64).eps)
Mistakes = Sequence[tuple[Any, str]]

#: The two difference quotients, as a message names them.
_KINDS = {"forward": N_("forward"), "centred": N_("centred")}


def check_value(name: str, yours: Any, expected: Any, mistakes: Mistakes = (),
                tol: float = 1e-7) -> CheckResult:
    """check_close(name, yours, expected, tol); when it fails, show the hint of every known mistake
    whose value yours matches (relative error below 1e-6, same shape).

    Inputs: yours — the student's value (any shape S, read through the trusted path);
    expected — the reference, shape S; mistakes — pairs (value a mistake gives, shape S; hint).
    """
    __tracebackhide__ = True
    try:
        return check_close(name, yours, expected, tol=tol)
    except CheckFailed:
        plain = as_array(yours, name)
        for wrong, hint in mistakes:
            wrong = np.asarray(wrong, dtype=np.float64)
            if wrong.shape == plain.shape and np.all(np.isfinite(wrong)) and rel_error(plain, wrong) < 1e-6:
                show_hint(hint)
        raise


def _forward_difference(f: Callable[[float], float], x: float, h: float) -> float:
    return (f(x + h) - f(x)) / h


def _centred(f: Callable[[float], float], x: float, h: float) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def check_slope(name: str, yours: Any, f: Callable[[float], float], x: float, exact: float,
                tol: float = 1e-4) -> CheckResult:
    """numerical_derivative's value for f at x (h = 1e-5) against the exact slope; recognises a
    centred difference divided by h instead of 2h."""
    __tracebackhide__ = True
    return check_value(name, yours, exact, tol=tol, mistakes=[
        (2 * _centred(f, x, 1e-5), _("your slopes are twice too big: how far apart are the two points "
                                   "you evaluate f at?")),
    ])


def check_centred_slope(yours: Any) -> CheckResult:
    """numerical_derivative(np.exp, 1.0) with h = 1e-5: prints the exact slope, the forward
    difference and yours with their errors, then checks yours to 1e-8."""
    __tracebackhide__ = True
    d = float(as_array(yours, "numerical_derivative(np.exp, 1.0)", shape=()))
    forward = _forward_difference(np.exp, 1.0, 1e-5)
    print(_("exact derivative e    {value}").format(value=f"{np.e:.15f}"))
    print(_("forward difference    {value}   error {error}").format(
        value=f"{forward:.15f}", error=f"{abs(forward - np.e):.1e}"))
    print(_("yours                 {value}   error {error}").format(
        value=f"{d:.15f}", error=f"{abs(d - np.e):.1e}"))
    return check_value(_("slope of exp(x) at x = 1"), d, np.e, tol=1e-8, mistakes=[
        (forward, _("yours is the forward difference, which looks to the right of x only. Use the "
                  "points on both sides.")),
        (2 * _centred(np.exp, 1.0, 1e-5), _("yours is twice too big: how far apart are your two points?")),
    ])


def check_taylor_term(which: str, yours: Any, h: float, f2: float, f3: float) -> CheckResult:
    """One of taylor_errors' two terms (which: "forward" or "centred") at a single h, against the
    leading error term of that difference quotient; recognises a signed term, and for the centred
    one the forward term and the term not divided by 2h."""
    __tracebackhide__ = True
    forward, centred = h / 2 * abs(f2), h**2 / 6 * abs(f3)
    if which == "forward":
        name = _("forward error term, h = {h}, f'' = {f2}").format(h=f"{h:g}", f2=f"{f2:g}")
        return check_value(name, yours, forward, mistakes=[
            (-forward, _("a size is never negative: the sign of f'' does not matter.")),
        ])
    name = _("centred error term, h = {h}, f‴ = {f3}").format(h=f"{h:g}", f3=f"{f3:g}")
    return check_value(name, yours, centred, mistakes=[
        (2 * centred, _("that is what the subtraction leaves in f(x+h) - f(x-h); the centred difference "
                      "then divides it by 2h.")),
        (forward, _("that is the forward term. In the centred difference the f'' terms cancel: look one "
                  "power of h further.")),
        (-centred, _("a size is never negative: the sign of f‴ does not matter.")),
    ])


def measured_error(which: str, f: Callable[[float], float], x: float, h: float, exact: float) -> float:
    """|difference quotient − exact slope| of the forward or the centred difference, measured."""
    quotient = _forward_difference(f, x, h) if which == "forward" else _centred(f, x, h)
    return abs(quotient - exact)


def _model_bottom(which: str, f0: float, f2: float, f3: float, eps: float) -> float:
    """The h at the bottom of the lesson's error model, found on a fine logarithmic grid."""
    grid = np.logspace(-12, -2, 200001)
    if which == "forward":
        model = grid / 2 * abs(f2) + eps * abs(f0) / grid
    else:
        model = grid**2 / 6 * abs(f3) + eps * abs(f0) / grid
    return float(grid[np.argmin(model)])


def check_nudge(which: str, yours: Any, f0: float, f2: float, f3: float, eps: float = EPS) -> CheckResult:
    """best_nudges' h_forward or h_centred against the bottom of the lesson's error model
    E(h) (truncation + eps |f| / h) on a fine grid, printed first."""
    __tracebackhide__ = True
    bottom = _model_bottom(which, f0, f2, f3, eps)
    kind = _(_KINDS.get(which, which))
    print(_("bottom of the {which} model on a fine grid: h = {h}").format(which=kind, h=f"{bottom:.4e}"))
    name = _("h* of the {which} difference").format(which=kind)
    if which == "forward":
        return check_value(name, yours, bottom, tol=1e-4, mistakes=[
            (np.sqrt(4 * eps * abs(f0) / abs(f2)), _("that is the bottom of the footnote's model, with "
             "round-off 2 eps |f| / h. The exercise's model has eps |f| / h.")),
            (np.sqrt(eps * abs(f0) / abs(f2)),
             _("a factor 2 is missing: what is the derivative of h/2 |f''|?")),
        ])
    return check_value(name, yours, bottom, tol=1e-4, mistakes=[
        (np.cbrt(6 * eps * abs(f0) / abs(f3)), _("differentiate h^2/6 |f‴| again: the 2 of h^2 comes down.")),
        (np.sqrt(3 * eps * abs(f0) / abs(f3)), _("with E' = 0 multiplied by h^2, which power of h is left?")),
    ])


def _grad_L_closed_form(x: float, y: float) -> tuple[float, float, float, float]:
    """(dL/dx, dL/dy, tanh slope, c) of L = tanh(xy(x + y)) + x."""
    c = x * y * (x + y)
    slope = 1 - np.tanh(c) ** 2
    return slope * (2 * x * y + y**2) + 1, slope * (x**2 + 2 * x * y), slope, c


#: The bar of grad_L's checks: every closed form reaches it (PyTorch's autograd and the rules of
#: calculus round alike, to about 1e-15 at these points), a centred difference does not (its
#: truncation and round-off leave about 1e-11 to 1e-9 at any nudge h).
GRAD_L_TOL = 1e-12


def check_grad_L(which: str, yours: Any, x: float, y: float, reference: float) -> CheckResult:
    """grad_L's dL/dx or dL/dy (which: "x" or "y") at one point against a reference (PyTorch's), to
    GRAD_L_TOL; recognises the lone + x lost or counted in dL/dy, the tanh slope 1 − c², and a value
    that is only as close as a nudge gets."""
    __tracebackhide__ = True
    gx, gy, slope, c = _grad_L_closed_form(x, y)
    wrong_slope = (1 - c**2) / slope
    nudged = _("right to {error}, as close as nudging gets: the rules of calculus agree with PyTorch "
               "to 1e-12 or better. Write the derivatives themselves, with no small step h.")
    not_c = _("the slope of tanh at c is not 1 - c^2: tanh(c) is not c.")
    if which == "x":
        name = _("dL/dx at ({x}, {y})").format(x=x, y=y)
        mistakes = [(gx - 1, _("L = tanh(c) + x: the lone + x depends on x too.")),
                    ((gx - 1) * wrong_slope + 1, not_c)]
    else:
        name = _("dL/dy at ({x}, {y})").format(x=x, y=y)
        mistakes = [(gy + 1, _("the lone + x does not depend on y.")), (gy * wrong_slope, not_c)]
    try:
        return check_value(name, yours, reference, mistakes=mistakes, tol=GRAD_L_TOL)
    except CheckFailed:
        error = rel_error(as_array(yours, name), np.float64(reference))
        if error < 1e-6:
            show_hint(nudged.format(error=f"{error:.0e}"))
        raise


def check_directional_slope(yours: Any, gradient: Sequence[float], u: Sequence[float]) -> CheckResult:
    """directional_derivative's slope along u against the exact one for a function whose gradient
    at the point is `gradient`; recognises a walk along u instead of the unit vector."""
    __tracebackhide__ = True
    g, v = np.asarray(gradient, dtype=np.float64), np.asarray(u, dtype=np.float64)
    norm = float(np.linalg.norm(v))
    want = float(g @ v) / norm
    name = _("slope along u = {u}").format(u=tuple(v.tolist()))
    return check_value(name, yours, want, tol=1e-4, mistakes=[
        (want * norm, _("your slope is |u| = {norm} times too big: per unit of t, walk a distance "
                        "of 1, not |u|.").format(norm=f"{norm:g}")),
    ])


def check_matmul_gradient(grad: Any, x: np.ndarray, dout: np.ndarray, reference: np.ndarray,
                          ones_reference: np.ndarray) -> CheckResult:
    """numerical_gradient_array's result for out = x @ W, shape of x, against the toolkit's
    numerical gradient `reference`; recognises dout ignored (`ones_reference`, the gradient for
    dout = all ones), and otherwise points at the outputs an entry of x reaches."""
    __tracebackhide__ = True
    plain = as_array(grad, "numerical_gradient_array's result")
    print(_("x {x}, dout {dout}: your gradient has shape {shape} (should be {x})").format(
        x=x.shape, dout=dout.shape, shape=plain.shape))
    try:
        return check_close(_("gradient through out = x @ W"), plain, reference)
    except CheckFailed:
        if plain.shape == x.shape:
            if rel_error(plain, ones_reference) < 1e-6:
                show_hint(_("your gradient is the one for dout = all ones: "
                            "weight the output change by dout."))
            else:
                show_hint(_("here every output can depend on x[idx] (out[i, k] = sum_j x[i, j] W[j, k]): "
                          "the change of every output counts, not only of the entry at idx."))
        raise


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
