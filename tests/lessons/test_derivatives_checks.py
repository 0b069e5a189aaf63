"""Lesson 01's visible checks (grader.lessons.derivatives.checks): right values pass, known
mistakes fail with their hint."""

import math
import re

import numpy as np
import pytest

from grader import CheckFailed
from grader.lessons.derivatives import checks as dc


def _centred(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_centred_slope_passes_and_prints_both_errors(capsys):
    dc.check_centred_slope(_centred(np.exp, 1.0))
    out = capsys.readouterr().out
    assert "forward difference" in out and "error" in out and "✓" in out


def test_forward_difference_fails_with_its_hint(capsys):
    with pytest.raises(CheckFailed):
        dc.check_centred_slope((np.exp(1.0 + 1e-5) - np.exp(1.0)) / 1e-5)
    assert "forward difference" in capsys.readouterr().out


def test_slope_twice_too_big(capsys):
    g = lambda x: x**2 - 4 * x  # noqa: E731
    dc.check_slope("slope", _centred(g, 3.5), g, 3.5, 3.0)
    with pytest.raises(CheckFailed):
        dc.check_slope("slope", 2 * _centred(g, 3.5), g, 3.5, 3.0)
    assert "twice too big" in capsys.readouterr().out


@pytest.mark.parametrize("which, right, wrong, words", [
    ("forward", 1e-2 / 2 * np.e, -1e-2 / 2 * np.e, "never negative"),
    ("centred", 1e-4 / 6 * np.e, 1e-4 / 3 * np.e, "divides it by 2h"),
    ("centred", 1e-4 / 6 * np.e, 1e-2 / 2 * np.e, "forward term"),
])
def test_taylor_terms(capsys, which, right, wrong, words):
    f2 = -np.e if words == "never negative" else np.e
    dc.check_taylor_term(which, right, 1e-2, f2, np.e)
    with pytest.raises(CheckFailed):
        dc.check_taylor_term(which, wrong, 1e-2, f2, np.e)
    assert words in capsys.readouterr().out


def test_nudges(capsys):
    eps = np.finfo(np.float64).eps
    dc.check_nudge("forward", np.sqrt(2 * eps), np.e, np.e, np.e, eps)
    dc.check_nudge("centred", np.cbrt(3 * eps), np.e, np.e, np.e, eps)
    assert "fine grid: h = 8.7337e-06" in capsys.readouterr().out     # the target, once it passed
    with pytest.raises(CheckFailed):
        dc.check_nudge("centred", np.cbrt(6 * eps), np.e, np.e, np.e, eps)
    assert "fine grid" not in capsys.readouterr().out                 # never before
    with pytest.raises(CheckFailed):
        dc.check_nudge("centred", np.cbrt(6 * eps), np.e, np.e, np.e, eps)
    with pytest.raises(CheckFailed):
        dc.check_nudge("forward", np.sqrt(4 * eps), np.e, np.e, np.e, eps)
    out = capsys.readouterr().out
    assert "the 2 of h^2" in out and "footnote" in out


def test_grad_L_mistakes(capsys):
    x, y = 0.5, 1.4
    c = x * y * (x + y)
    s = 1 - np.tanh(c) ** 2
    gx, gy = s * (2 * x * y + y**2) + 1, s * (x**2 + 2 * x * y)
    dc.check_grad_L("x", gx, x, y, gx)
    dc.check_grad_L("y", gy, x, y, gy)
    with pytest.raises(CheckFailed):
        dc.check_grad_L("x", gx - 1, x, y, gx)
    with pytest.raises(CheckFailed):
        dc.check_grad_L("y", (1 - c**2) * (x**2 + 2 * x * y), x, y, gy)
    out = capsys.readouterr().out
    assert "lone + x" in out and "1 - c^2" in out


def test_directional_and_views(capsys):
    dc.check_directional_slope(0.6 * 1.0 + 0.8 * 2.0, (1.0, 2.0), (3.0, 4.0))
    with pytest.raises(CheckFailed):
        dc.check_directional_slope(5 * (0.6 + 1.6), (1.0, 2.0), (3.0, 4.0))
    assert "times too big" in capsys.readouterr().out


def test_matmul_gradient(capsys):
    rng = np.random.default_rng(0)
    x, W, dout = rng.normal(size=(3, 4)), rng.normal(size=(4, 5)), rng.normal(size=(3, 5))
    right, ones = dout @ W.T, np.ones((3, 5)) @ W.T
    dc.check_matmul_gradient(right, x, W, dout)
    with pytest.raises(CheckFailed):
        dc.check_matmul_gradient(ones, x, W, dout)
    with pytest.raises(CheckFailed):
        dc.check_matmul_gradient(right * 0.5, x, W, dout)
    out = capsys.readouterr().out
    assert "dout = all ones" in out and "every output" in out


def test_a_named_mistake_is_in_the_error_too(capsys):
    """The hint of a recognised mistake replaces the toolkit's generic one, in the printed line and in
    the CheckFailed message (what the grading feedback shows)."""
    slip = (np.exp(1.0 + 1e-5) - np.exp(1.0 - 1e-5)) / 2 * 1e-5     # / 2 * h
    with pytest.raises(CheckFailed, match="divides by 2 and then multiplies by h"):
        dc.check_centred_slope(slip)
    out = capsys.readouterr().out
    assert "divides by 2 and then multiplies by h" in out and "no gradient reaches it" not in out


def test_taylor_and_nudges_with_the_other_derivative(capsys):
    with pytest.raises(CheckFailed, match="the f'' terms cancel"):
        dc.check_taylor_term("centred", 1e-6 / 6 * 4.0, 1e-3, -4.0, 1.0)
    with pytest.raises(CheckFailed, match="leading error has f''"):
        dc.check_taylor_term("forward", 1e-3 / 2 * 1.0, 1e-3, -4.0, 1.0)
    eps = np.finfo(np.float64).eps
    with pytest.raises(CheckFailed, match="truncation term carries f''"):
        dc.check_nudge("forward", np.sqrt(2 * eps * 2.0 / 5.0), 2.0, -0.3, -5.0, eps)
    with pytest.raises(CheckFailed, match="truncation term carries f‴"):
        dc.check_nudge("centred", np.cbrt(3 * eps * 2.0 / 0.3), 2.0, -0.3, -5.0, eps)
    for no_abs in [(2 * float(eps) * 2.0 / -0.3) ** 0.5, np.float64(np.nan)]:   # a complex, a nan
        with pytest.raises(CheckFailed, match="not a real number"):
            dc.check_nudge("forward", no_abs, 2.0, -0.3, -5.0, eps)
    dc.check_nudge("forward", np.sqrt(2 * eps * 2.0 / 0.3), 2.0, -0.3, -5.0, eps)
    dc.check_nudge("centred", np.cbrt(3 * eps * 2.0 / 5.0), 2.0, -0.3, -5.0, eps)
    capsys.readouterr()


def _verdict_rule(size, reduce=np.max):
    """A gradient_check whose size and reduction are given: the brief's is (|a| + |b|, max)."""
    def gradient_check(f, x, dout, dx, h=1e-5):
        numeric = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            old = x[idx]
            x[idx] = old + h
            up = np.array(f(x))
            x[idx] = old - h
            down = np.array(f(x))
            x[idx] = old
            numeric[idx] = np.sum((up - down) * dout) / (2 * h)
        a, b = np.abs(dx), np.abs(numeric)
        return float(reduce(np.abs(dx - numeric) / np.maximum(1e-8, size(a, b))))
    return gradient_check


@pytest.mark.parametrize("size, reduce, words", [
    (lambda a, b: np.maximum(a, b), np.max, "the larger of |a| and |b|"),
    (lambda a, b: (a + b) / 2, np.max, "the mean (|a| + |b|) / 2"),
    (lambda a, b: a + b, np.mean, "The worst entry decides"),
])
def test_gradient_check_mistakes_are_named(capsys, size, reduce, words):
    dc.check_gradient_check(_verdict_rule(lambda a, b: a + b))
    with pytest.raises(CheckFailed, match=re.escape(words)):
        dc.check_gradient_check(_verdict_rule(size, reduce))
    assert words in capsys.readouterr().out


# rounding_margin: the bar of grad_L's checks (and of lesson 02's circuit_backward). Every correct
# formulation stays far inside it, saturated tanh included; every finite difference falls outside
# it at the points the visible checks use, whatever its step.
_EPS = np.finfo(np.float64).eps


def _torch_grads(x, y, dL=1.0):
    torch = pytest.importorskip("torch")
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    (torch.tanh(tx * ty * (tx + ty)) + tx).backward(torch.tensor(dL, dtype=torch.float64))
    return tx.grad.item(), ty.grad.item()


def _by_slope(slope):
    """(dL/dx, dL/dy) times dL, with tanh's slope at c written by `slope(x, y)`."""
    def grads(dL, x, y):
        s = slope(x, y)
        a, b = x * y, x + y
        return dL * (1 + s * (b * y + a)), dL * s * (b * x + a)
    return grads


def _expanded(dL, x, y):
    t = np.tanh(x**2 * y + x * y**2)
    s = (1 - t) * (1 + t)
    return float(dL * (s * (2 * x * y + y**2) + 1)), float(dL * s * (x**2 + 2 * x * y))


def _tangents(dL, x, y):
    def run(tx, ty):
        a, ta = x * y, tx * y + x * ty
        b, tb = x + y, tx + ty
        c, tc = a * b, ta * b + a * tb
        d = math.tanh(c)
        return (1 - d**2) * tc + tx
    return dL * run(1.0, 0.0), dL * run(0.0, 1.0)


def _c(x, y):
    return x * y * (x + y)


_CORRECT = {
    "1 - tanh^2 (math)": _by_slope(lambda x, y: 1 - math.tanh(_c(x, y)) ** 2),
    "1 / cosh^2": _by_slope(lambda x, y: 1 / math.cosh(_c(x, y)) ** 2),
    "(1 - t)(1 + t), c expanded, numpy": _expanded,
    "tanh from exp(2c)": _by_slope(lambda x, y: 1 - (1 - 2 / (math.exp(2 * _c(x, y)) + 1)) ** 2),
    "4 / (e^c + e^-c)^2": _by_slope(lambda x, y: 4 / (math.exp(_c(x, y)) + math.exp(-_c(x, y))) ** 2),
    "1 - sinh^2 / cosh^2": _by_slope(lambda x, y: 1 - math.sinh(_c(x, y)) ** 2 / math.cosh(_c(x, y)) ** 2),
    "2 / (cosh 2c + 1)": _by_slope(lambda x, y: 2 / (math.cosh(2 * _c(x, y)) + 1)),
    "forward mode": _tangents,
}


def _points():
    rng = np.random.default_rng(37)
    fixed = [(1.2, 0.5), (-1.2, 0.7), (0.5, 1.4), (2.0, -3.0), (1.5, 1.5), (1.8, -2.9), (2.5, 1.0),
             (-2.0, -1.5), (2.5, 1.8), (1.0, -1.0), (1e-3, -2e-3)]
    return fixed + [tuple(map(float, p)) for p in rng.uniform(-3, 3, size=(150, 2))]


def test_every_correct_formulation_is_far_inside_the_rounding_margin():
    for x, y in _points():
        for dL in (1.0, -0.6, 2.5):
            want = _torch_grads(x, y, dL)
            margin = dc.rounding_margin(x, y, dL)
            for name, grads in _CORRECT.items():
                for got, ref in zip(grads(dL, x, y), want, strict=True):
                    assert abs(got - ref) < margin / 10, (name, x, y, dL, abs(got - ref), margin)


@pytest.mark.parametrize("kind", ["centred", "forward"])
def test_no_finite_difference_reaches_the_rounding_margin(kind):
    def L(x, y):
        return math.tanh(_c(x, y)) + x

    # the visible points of lesson 01 (grad_L) and lesson 02 (circuit_backward)
    for points in ([(0.5, 1.4, 1.0)], [(1.2, 0.5, 1.0), (-1.2, 0.7, -2.0)]):
        for h in np.logspace(-8, -3, 21) if kind == "centred" else np.logspace(-10, -3, 15):
            for i in (0, 1):
                worst = 0.0
                for x, y, dL in points:
                    up, down = [x, y], [x, y]
                    up[i] += h
                    if kind == "centred":
                        down[i] -= h
                    nudged = dL * (L(*up) - L(*down)) / (2 * h if kind == "centred" else h)
                    worst = max(worst, abs(nudged - _torch_grads(x, y, dL)[i]) / dc.rounding_margin(x, y, dL))
                assert worst > 40, (kind, h, i, points, worst)


def test_rounding_margin_on_arrays_and_its_relative_tolerance():
    x, y = np.array([[0.5, -1.0], [2.0, 0.1]]), np.array([[1.4, 0.3], [1.5, -0.2]])
    margins = dc.rounding_margin(x, y)
    assert margins.shape == (2, 2)
    assert margins[0, 0] == pytest.approx(dc.rounding_margin(0.5, 1.4))
    assert dc.rounding_margin(0.5, 1.4, -2.0) == pytest.approx(2 * dc.rounding_margin(0.5, 1.4))
    assert dc.rounding_tol(0.5, 1.4, 1.0, 1.5) == pytest.approx(dc.rounding_margin(0.5, 1.4) / 3.0)
    assert dc.rounding_margin(0.0, 0.0) == pytest.approx(16 * _EPS)
