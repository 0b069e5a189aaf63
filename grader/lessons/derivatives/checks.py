"""Lesson 01's visible checks: the reference values and the known mistakes they recognise.

The check cells of lesson 01 call these instead of spelling out, in code the student reads
before solving, the formula the exercise asks for. Every student value goes through the
trusted path (`grader.trusted`) before it is compared with anything; the ✓/✗ lines come from
the toolkit's `compare`, and the hint of a recognised mistake replaces the toolkit's generic one, in
the ✗ line's hint and in the CheckFailed message alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...checks import CheckResult, check_close, checked_name, compare, report
from ...errors import CheckFailed
from ...i18n import N_, returned_by
from ...i18n import lesson_text as _
from ...numgrad import eval_numerical_gradient_array, rel_error
from ...referees import referee_all
from ...report_lines import emit, fail_line, hint_line, pass_line, show_hint
from ...trusted import as_array, as_items, plain_ndarray
from ..rounding import rounding_margin, rounding_tol

__all__ = [
    "check_array_gradient_of_view",
    "check_centred_slope",
    "check_directional_slope",
    "check_grad_L",
    "check_gradient_by_reference",
    "check_gradient_check",
    "check_gradient_entries",
    "check_integer_gradient",
    "check_matmul_gradient",
    "check_nudge",
    "check_partials",
    "check_slope",
    "check_tanh_gradient",
    "check_taylor_term",
    "check_value",
    "check_x_restored",
    "measured_error",
    "rounding_margin",
    "rounding_tol",
    "torch_grad_L",
]

EPS = float(np.finfo(np.float64).eps)
Mistakes = Sequence[tuple[Any, str]]

#: The two difference quotients, as a message names them.
_KINDS = {"forward": N_("forward"), "centred": N_("centred")}


def check_value(name: str, yours: Any, expected: Any, mistakes: Mistakes = (),
                tol: float = 1e-7, otherwise: str | None = None) -> CheckResult:
    """check_close(name, yours, expected, tol), naming the mistake it recognises: when yours is wrong
    and equals (relative error below 1e-6, same shape) the value of a known mistake, the ✗ line
    carries that mistake's hint instead of the toolkit's generic one, and so does the CheckFailed
    message; `otherwise`, when given, is the hint of a wrong value that matches no mistake.

    Inputs: yours — the student's value (any shape S, read through the trusted path);
    expected — the reference, shape S; mistakes — pairs (value a mistake gives, shape S; hint).
    """
    __tracebackhide__ = True
    name = checked_name(name)
    exp = np.asarray(expected, dtype=np.float64)
    result, line = compare(name, yours, exp, tol=tol)
    named = None if result.passed else _named_mistake(yours, mistakes, otherwise)
    if named is None:
        report([(result, line)])
        return result
    emit([line, hint_line(named, None)], [(None, named)])
    raise CheckFailed(line.removeprefix("✗ ").replace("  ", " ", 1) + f" — {named}", results=[result])


def _named_mistake(yours: Any, mistakes: Mistakes, otherwise: str | None) -> str | None:
    """The hint of the first mistake whose value yours equals (relative error < 1e-6), else
    `otherwise`."""
    plain = plain_ndarray(yours)
    if plain is not None and plain.dtype.kind in "biuf" and np.all(np.isfinite(plain)):
        mine = plain.astype(np.float64)
        for wrong, hint in mistakes:
            wrong = np.asarray(wrong, dtype=np.float64)
            if wrong.shape == mine.shape and np.all(np.isfinite(wrong)) and rel_error(mine, wrong) < 1e-6:
                return hint
    return otherwise


def _forward_difference(f: Callable[[float], float], x: float, h: float) -> float:
    return (f(x + h) - f(x)) / h


def _centred(f: Callable[[float], float], x: float, h: float) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


#: A quotient written `/ 2 * h`: Python divides by 2, then multiplies by h.
_PRECEDENCE = N_("your slope is about h^2 = 1e-10 times the right one: `/ 2 * h` divides by 2 and then "
                 "multiplies by h. Put the whole denominator in parentheses.")


def _precedence_slip(f: Callable[[float], float], x: float, h: float) -> float:
    """The centred difference written (f(x + h) - f(x - h)) / 2 * h."""
    return (f(x + h) - f(x - h)) / 2 * h


def check_slope(name: str, yours: Any, f: Callable[[float], float], x: float, exact: float,
                tol: float = 1e-4) -> CheckResult:
    """numerical_derivative's value for f at x (h = 1e-5) against the exact slope, to `tol`; a wrong
    value that a known slip gives carries that slip's hint."""
    __tracebackhide__ = True
    return check_value(name, yours, exact, tol=tol, mistakes=[
        (2 * _centred(f, x, 1e-5), _("your slopes are twice too big: how far apart are the two points "
                                   "you evaluate f at?")),
        (_precedence_slip(f, x, 1e-5), _(_PRECEDENCE)),
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
        (_precedence_slip(np.exp, 1.0, 1e-5), _(_PRECEDENCE)),
    ])


def check_taylor_term(which: str, yours: Any, h: float, f2: float, f3: float) -> CheckResult:
    """One of taylor_errors' two terms (which: "forward" or "centred") at a single h, against the
    leading error term of that difference quotient; a wrong value that a known slip gives carries
    that slip's hint."""
    __tracebackhide__ = True
    forward, centred = h / 2 * abs(f2), h**2 / 6 * abs(f3)
    if which == "forward":
        name = _("forward error term, h = {h}, f'' = {f2}").format(h=f"{h:g}", f2=f"{f2:g}")
        return check_value(name, yours, forward, mistakes=[
            (-forward, _("a size is never negative: the sign of f'' does not matter.")),
            (2 * forward, _("that is twice the forward difference's leading error: each term of the Taylor "
                            "series is divided by a factorial. Which one divides the h² term?")),
            (forward / 2, _("that is half the forward difference's leading error: the h² term of the series "
                            "carries one ½ (from 2!), and dividing by h adds no other factor.")),
            (h / 2 * abs(f3), _("that term has f‴ where the forward difference's leading error has f'': "
                                "which term of the series is left right after h f'(x)?")),
        ])
    name = _("centred error term, h = {h}, f‴ = {f3}").format(h=f"{h:g}", f3=f"{f3:g}")
    return check_value(name, yours, centred, mistakes=[
        (2 * centred, _("that is what the subtraction leaves in f(x+h) - f(x-h); the centred difference "
                      "then divides it by 2h.")),
        (forward, _("that is the forward term. In the centred difference the f'' terms cancel: look one "
                  "power of h further.")),
        (-centred, _("a size is never negative: the sign of f‴ does not matter.")),
        (centred / 2, _("that is half the centred difference's leading error: in f(x+h) - f(x-h) the h³ "
                        "terms do not cancel, they add up, before the division by 2h.")),
        (3 * centred, _("that is 3 times the centred difference's leading error: each term of the Taylor "
                        "series is divided by a factorial. Which one divides the h³ term?")),
        (h**2 / 6 * abs(f2), _("that term has f'', but the f'' terms cancel in f(x+h) - f(x-h): the "
                               "centred difference's leading error carries f‴.")),
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
    E(h) (truncation + eps |f| / h) on a fine grid, printed only once the answer has passed (a
    target shown before would let a guess match it without the derivation)."""
    __tracebackhide__ = True
    bottom = _model_bottom(which, f0, f2, f3, eps)
    kind = _(_KINDS.get(which, which))
    name = _("h* of the {which} difference").format(which=kind)
    if which == "forward":
        mistakes = [
            (np.sqrt(4 * eps * abs(f0) / abs(f2)), _("that is the bottom of the footnote's model, with "
             "round-off 2 eps |f| / h. The exercise's model has eps |f| / h.")),
            (np.sqrt(eps * abs(f0) / abs(f2)),
             _("a factor 2 is missing: what is the derivative of h/2 |f''|?")),
            (np.sqrt(2 * eps * abs(f0) / abs(f3)), _("that uses f‴: the forward model's truncation term "
                                                      "carries f''.")),
        ]
    else:
        mistakes = [
            (np.cbrt(6 * eps * abs(f0) / abs(f3)),
             _("differentiate h^2/6 |f‴| again: the 2 of h^2 comes down.")),
            (np.sqrt(3 * eps * abs(f0) / abs(f3)),
             _("with E' = 0 multiplied by h^2, which power of h is left?")),
            (np.cbrt(3 * eps * abs(f0) / abs(f2)), _("that uses f'': the centred model's truncation term "
                                                      "carries f‴.")),
        ]
    not_real = None
    if min(f0, f2, f3) < 0 and not _real_number(yours):
        not_real = _("f(x), f'' or f‴ is negative here, and a negative number to the power 1/2 or 1/3 is "
                     "not a real number (Python gives a complex, NumPy nan). The model uses the sizes "
                     "|f(x)|, |f''| and |f‴|.")
    result = check_value(name, yours, bottom, tol=1e-4, mistakes=mistakes, otherwise=not_real)
    print(_("bottom of the {which} model on a fine grid: h = {h}").format(which=kind, h=f"{bottom:.4e}"))
    return result


def _real_number(value: Any) -> bool:
    """Whether value reads as finite real numbers through the trusted path."""
    plain = plain_ndarray(value)
    return plain is not None and plain.dtype.kind in "biuf" and bool(np.all(np.isfinite(plain)))


def _grad_L_closed_form(x: float, y: float) -> tuple[float, float, float, float]:
    """(dL/dx, dL/dy, tanh slope, c) of L = tanh(xy(x + y)) + x."""
    c = x * y * (x + y)
    slope = 1 - np.tanh(c) ** 2
    return slope * (2 * x * y + y**2) + 1, slope * (x**2 + 2 * x * y), slope, c


def torch_grad_L(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's autograd gradient (dL/dx, dL/dy) of L(x, y) = tanh(x y (x + y)) + x, in float64:
    the reference of grad_L's checks. x, y: floats, or ndarrays of one shape S; returns two ndarrays
    of shape S (0-d for floats)."""
    import torch

    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    (torch.tanh(tx * ty * (tx + ty)) + tx).sum().backward()
    return tx.grad.numpy(), ty.grad.numpy()


def check_grad_L(which: str, yours: Any, x: float, y: float, reference: float) -> CheckResult:
    """grad_L's dL/dx or dL/dy (which: "x" or "y") at one point against a reference (PyTorch's),
    within rounding_margin(x, y) (the relative error it amounts to is the tolerance printed); a wrong
    value that a known slip gives, or one only as close as a nudge gets, carries that hint."""
    __tracebackhide__ = True
    gx, gy, slope, c = _grad_L_closed_form(x, y)
    wrong_slope = (1 - c**2) / slope
    nudged = _("right to {error}, as close as nudging gets: the rules of calculus agree with PyTorch "
               "to within float64 rounding. Write the derivatives themselves, with no small step h.")
    not_c = _("the slope of tanh at c is not 1 - c^2: tanh(c) is not c.")
    if which == "x":
        name = _("dL/dx at ({x}, {y})").format(x=x, y=y)
        mistakes = [(gx - 1, _("L = tanh(c) + x: the lone + x depends on x too.")),
                    ((gx - 1) * wrong_slope + 1, not_c)]
    else:
        name = _("dL/dy at ({x}, {y})").format(x=x, y=y)
        mistakes = [(gy + 1, _("the lone + x does not depend on y.")), (gy * wrong_slope, not_c)]
    close = None
    if _real_number(yours):
        plain = plain_ndarray(yours).astype(np.float64)
        if plain.shape == () and (error := rel_error(plain, np.float64(reference))) < 1e-6:
            close = nudged.format(error=f"{error:.0e}")
    tol = rounding_tol(x, y, 1.0, reference)
    return check_value(name, yours, reference, mistakes=mistakes, tol=tol, otherwise=close)


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


def _verdict(gradient_check: Callable[..., Any], dx: np.ndarray, x: np.ndarray, dout: np.ndarray,
             what: str) -> float:
    """gradient_check(np.tanh, x, dout, dx), read as one float."""
    return float(as_array(gradient_check(np.tanh, x, dout, dx), what, shape=()))


def check_gradient_check(gradient_check: Callable[..., Any]) -> None:
    """gradient_check (the graded callable) on a tanh layer, out = tanh(x) with x and dout of shape
    (3, 4): the verdict on the right dx (below 1e-7), on 2 × dx (1/3), on −dx (1), and on dx with
    one entry three times too big (what the brief's four requirements give). Prints ✓/✗ for each,
    with the hint of a recognised slip, then raises CheckFailed, every failed line in its message,
    if any failed."""
    __tracebackhide__ = True
    rng = np.random.default_rng(9)
    x, dout = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    right = dout * (1 - np.tanh(x) ** 2)
    bad = right.copy()
    bad[1, 2] *= 3.0                         # one entry three times too big: its error decides
    verdict = _verdict(gradient_check, right, x, dout, "gradient_check(tanh, x, dout, right dx)")
    print(_("verdict on the right dx: {verdict}").format(verdict=f"{verdict:.1e}"))
    if not verdict < 1e-7:
        raise CheckFailed(_("the right dx got the verdict {verdict}; it should be tiny (below 1e-7)").format(
            verdict=f"{verdict:.1e}"))
    larger = _("that is what the larger of |a| and |b| gives as the size; the calibration (1/3 where "
               "a = 2b, 1 where a = -b) asks for another size.")
    mean = _("that is what the mean (|a| + |b|) / 2 gives as the size; the calibration (1/3 where "
             "a = 2b, 1 where a = -b) asks for another size.")
    cases = [
        (_("verdict on dx = 2 * (the right dx)"), 2 * right, 1 / 3, [(1 / 2, larger), (2 / 3, mean)]),
        (_("verdict on dx = -(the right dx)"), -right, 1.0, [
            (2.0, _("with a = -b, |a - b| = 2|b|: which size built from |a| and |b| gives 1?"))]),
        (_("verdict on dx with one entry three times too big"), bad, 1 / 2, [
            (1 / 24, _("that is the mean of the entries' errors: one bad entry among twelve hides in it. "
                       "The worst entry decides.")),
            (2 / 3, larger), (1.0, mean)]),
    ]
    failed = []
    for name, dx, expected, mistakes in cases:
        yours = _verdict(gradient_check, dx, x, dout, name)
        try:
            check_value(name, yours, expected, mistakes=mistakes, tol=1e-6)
        except CheckFailed as failure:
            failed.append(str(failure))
    if failed:
        raise CheckFailed("; ".join(failed))


def check_matmul_gradient(grad: Any, x: np.ndarray, W: np.ndarray, dout: np.ndarray) -> CheckResult:
    """numerical_gradient_array's result for out = x @ W (x: (N, D), W: (D, M), dout: (N, M)),
    shape of x, against the toolkit's numerical gradient of that layer (computed here, on a copy of
    x); recognises dout ignored (the gradient for dout = all ones), and otherwise points at the
    outputs an entry of x reaches."""
    __tracebackhide__ = True
    x, W, dout = (np.asarray(v, dtype=np.float64) for v in (x, W, dout))
    reference = eval_numerical_gradient_array(lambda z: z @ W, x.copy(), dout)
    ones_reference = eval_numerical_gradient_array(lambda z: z @ W, x.copy(), np.ones_like(dout))
    plain = as_array(grad, returned_by("numerical_gradient_array"))
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


def check_partials(result: Any, point: tuple[float, float], want_x: float, want_y: float) -> None:
    """partial_derivatives' (dfdx, dfdy) at `point` against the exact partial derivatives, each to
    1e-4 (the loose bar of the first check); recognises the two answers swapped."""
    __tracebackhide__ = True
    at = f"({point[0]}, {point[1]})"
    dfdx, dfdy = as_items(result, f"partial_derivatives(g, {point[0]}, {point[1]})", 2, ("dfdx", "dfdy"))
    swapped = [plain_ndarray(v) for v in (dfdx, dfdy)]
    if all(v is not None and v.shape == () and v.dtype.kind in "iuf" for v in swapped):
        if rel_error(float(swapped[0]), want_y) < 1e-4 and rel_error(float(swapped[1]), want_x) < 1e-4:
            show_hint(_("your two answers are swapped: the first nudges x (y held fixed), the second "
                        "nudges y."))
    check_close(_("dg/dx at {point}").format(point=at), dfdx, want_x, tol=1e-4)
    check_close(_("dg/dy at {point}").format(point=at), dfdy, want_y, tol=1e-4)


def check_gradient_entries(grad: Any, x_shape: tuple[int, ...], expected: np.ndarray) -> CheckResult:
    """numerical_gradient's result for f(W) = sum(C * sin(W)), W of shape x_shape (2-D), against
    `expected` (C * cos(W)); prints both shapes first, and recognises a whole row nudged at once."""
    __tracebackhide__ = True
    plain = as_array(grad, returned_by("numerical_gradient"), shape=x_shape)
    print(_("x has shape {x_shape}; your gradient has shape {grad_shape}").format(
        x_shape=x_shape, grad_shape=plain.shape))
    if np.allclose(plain, expected.sum(axis=1, keepdims=True)):
        show_hint(_("each entry holds the sum of its row: you nudged a whole row at once (on a 2-D array, "
                    "x[i] is a row). Visit every index tuple, e.g. `for idx in np.ndindex(x.shape)`."))
    return check_close(_("gradient of sum(C * sin(W))"), plain, expected)


def check_x_restored(x: np.ndarray, x_before: np.ndarray, h: float = 1e-5) -> None:
    """After a call of numerical_gradient(f, x), x must hold exactly x_before: a ✓ or ✗ line with the
    largest change, and fails (saying by how many h the entries moved) when it exceeds 1e-10."""
    __tracebackhide__ = True
    moved = np.asarray(x, dtype=np.float64) - x_before
    largest = np.max(np.abs(moved))
    status = _("largest change in x after the call: {change:.1e}").format(change=largest)
    restored = bool(largest < 1e-10)
    emit([(pass_line if restored else fail_line)("x", status)])
    if not restored:
        raise CheckFailed(_("numerical_gradient changed x: entries moved by about {moved:+.2f} h "
                            "(h = 1e-5). After the two evaluations, put the saved old value back: "
                            "x[idx] = old.").format(moved=np.median(moved) / h))


def check_gradient_by_reference(grad: Any, expected: np.ndarray) -> CheckResult:
    """numerical_gradient's result for an f that ignores its argument and reads x by reference,
    against `expected`; recognises an all-zero gradient (a copy of x nudged)."""
    __tracebackhide__ = True
    plain = as_array(grad, returned_by("numerical_gradient"), shape=expected.shape)
    if not np.any(plain):
        show_hint(_("your gradient is all zeros: you nudged a copy of x, which f never looks at. "
                    "Nudge x itself."))
    return check_close(_("gradient when f reads x by reference"), plain, expected)


def check_integer_gradient(grad: Any) -> CheckResult:
    """numerical_gradient(lambda x: np.sum(x**2), x) at the integer x = [1, 2, 3]: prints the
    result, then checks it against [2, 4, 6]; a wrong one gets the hint of integer nudges."""
    __tracebackhide__ = True
    plain = as_array(grad, returned_by("numerical_gradient"), shape=(3,))
    expected = np.array([2.0, 4.0, 6.0])
    print(_("integer x = [1, 2, 3]: your gradient is {grad!r}").format(grad=plain))
    if not np.allclose(plain, expected):
        show_hint(_("an integer array cannot hold old + 1e-5: 1 + 1e-5 is stored as 1, and 1 - 1e-5 as 0. "
                    "Start with x = np.asarray(x, dtype=np.float64)."))
    return check_close(_("gradient of sum(x^2) at integer x = [1, 2, 3]"), plain, expected)


def check_tanh_gradient(grad: Any, x: np.ndarray, dout: np.ndarray) -> CheckResult:
    """numerical_gradient_array(np.tanh, x, dout) against dout * (1 - tanh(x)^2); recognises
    dout ignored."""
    __tracebackhide__ = True
    plain = as_array(grad, returned_by("numerical_gradient_array"), shape=x.shape)
    slope = 1 - np.tanh(x) ** 2
    if np.allclose(plain, slope):
        show_hint(_("your gradient equals 1 - tanh(x)^2, as if dout were all ones: weight the output "
                    "change by dout."))
    return check_close(_("gradient through out = tanh(x)"), plain, dout * slope)


def check_array_gradient_of_view(grad: Any, x: np.ndarray, x_before: np.ndarray) -> None:
    """numerical_gradient_array(lambda z: z.T, x, ones) for x of shape (2, 3): the gradient must be
    all ones, and x must hold x_before again; recognises an all-zero gradient (a kept view)."""
    __tracebackhide__ = True
    plain = as_array(grad, returned_by("numerical_gradient_array"), shape=x.shape)
    if not np.any(plain):
        show_hint(_("your gradient is all zeros: the output you kept was a view of x and moved with it. "
                    "Keep a copy of each output before nudging x again."))
    check_close(_("gradient through out = x.T (a view of x), dout = ones"), plain, np.ones(x.shape))
    if not np.max(np.abs(np.asarray(x, dtype=np.float64) - x_before)) < 1e-10:
        raise CheckFailed(_("numerical_gradient_array changed x: put every entry back (x[idx] = old)"))


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
