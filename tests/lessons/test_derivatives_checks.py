"""Lesson 01's visible checks (grader.lessons.derivatives.checks): right values pass, known
mistakes fail with their hint."""

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
    dc.check_matmul_gradient(right, x, dout, right, ones)
    with pytest.raises(CheckFailed):
        dc.check_matmul_gradient(ones, x, dout, right, ones)
    with pytest.raises(CheckFailed):
        dc.check_matmul_gradient(right * 0.5, x, dout, right, ones)
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
