"""Lesson 08's named slips (grader.lessons.deep_nets.slips): a right answer passes, each classic slip
gets its own hint code instead of the generic one, and an unknown wrong answer keeps the toolkit's."""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed
from grader.lessons.deep_nets.slips import check_step


def _batch(seed: int = 0, n: int = 6, d: int = 4):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d)
    return x, rng.normal(size=d), rng.normal(size=d), rng.normal(size=(n, d))


def _dx(x, gamma, dout, axis, eps=1e-5):
    """The one-expression dx of a normalisation over `axis`, with gamma inside the sums."""
    xc = x - x.mean(axis=axis, keepdims=True)
    r = 1.0 / np.sqrt((xc**2).mean(axis=axis, keepdims=True) + eps)
    xhat, g, n = xc * r, gamma * dout, x.shape[axis]
    sums = g.sum(axis=axis, keepdims=True), (g * xhat).sum(axis=axis, keepdims=True)
    return r / n * (n * g - sums[0] - xhat * sums[1]), xhat, r


def _code(excinfo) -> str | None:
    hints = [result.hint for result in excinfo.value.results if result.hint is not None]
    return hints[0].code if hints else None


def test_batchnorm_dx_right_and_without_gamma() -> None:
    x, gamma, beta, dout = _batch()
    right, _, _ = _dx(x, gamma, dout, 0)
    check_step("batchnorm_backward", "dx", right, right, (x, gamma, beta, dout))
    without, _, _ = _dx(x, np.ones_like(gamma), dout, 0)
    with pytest.raises(CheckFailed) as excinfo:
        check_step("batchnorm_backward", "dx", without, right, (x, gamma, beta, dout))
    assert _code(excinfo) == "bn-no-gamma"
    with pytest.raises(CheckFailed) as excinfo:
        check_step("batchnorm_backward_alt", "dx", x.shape[0] * right, right, (x, gamma, beta, dout))
    assert _code(excinfo) == "bn-count"


@pytest.mark.parametrize("power", [1, 2, -3])
def test_variance_backward_names_the_power_of_r(power: int) -> None:
    rng = np.random.default_rng(1)
    dxhat, xc, r = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.uniform(0.5, 2.0, size=3)
    dr = (dxhat * xc).sum(axis=0)
    with pytest.raises(CheckFailed, match=f"r\\^{power} times") as excinfo:
        check_step("variance_backward", "dvar", -0.5 * r**power * dr, -0.5 * r**3 * dr, (dxhat, xc, r))
    assert _code(excinfo) == "bn-power-of-r"


def test_centred_backward_names_the_paths() -> None:
    rng = np.random.default_rng(2)
    dxhat, dvar, xc = rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=(5, 3))
    r = rng.uniform(1, 2, 3)
    right = dxhat * r + dvar * 2 * xc / 5
    for wrong, code in ((dxhat * r, "bn-one-path"), (dxhat * r + dvar * xc / 5, "bn-variance-share")):
        with pytest.raises(CheckFailed) as excinfo:
            check_step("centred_backward", "dxc", wrong, right, (dxhat, dvar, xc, r))
        assert _code(excinfo) == code


def test_layernorm_dx_names_gamma_outside_and_the_batch_axis() -> None:
    x, gamma, beta, dout = _batch(3, n=5, d=4)
    right, xhat, r = _dx(x, gamma, dout, 1)
    outside = gamma * _dx(x, np.ones_like(gamma), dout, 1)[0]
    g = gamma * dout
    batch = r / 4 * (4 * g - g.sum(axis=0) - xhat * (g * xhat).sum(axis=0))
    for wrong, code in ((outside, "ln-gamma-outside"), (batch, "ln-batch-sums")):
        with pytest.raises(CheckFailed) as excinfo:
            check_step("layernorm_backward", "dx", wrong, right, (x, gamma, beta, dout, 1e-5))
        assert _code(excinfo) == code


def test_an_unknown_mistake_keeps_the_generic_hint() -> None:
    x, gamma, beta, dout = _batch(4)
    right, _, _ = _dx(x, gamma, dout, 0)
    with pytest.raises(CheckFailed) as excinfo:
        check_step("batchnorm_backward", "dx", right + 1.0, right, (x, gamma, beta, dout))
    assert _code(excinfo) not in {"bn-no-gamma", "bn-count"}


def _fails_with(exercise: str, output: str, wrong, right, inputs):
    return lambda: check_step(exercise, output, wrong, right, inputs)


def _positive() -> list:
    x, gamma, beta, dout = _batch(5)
    right, xhat, _ = _dx(x, gamma, dout, 0)
    rng = np.random.default_rng(6)
    dxhat, xc, r = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.uniform(0.5, 2.0, size=3)
    dr, dvar = (dxhat * xc).sum(axis=0), rng.normal(size=3)
    centred = dxhat * r + dvar * 2 * xc / 5
    lx, lgamma, lbeta, ldout = _batch(7, n=5, d=4)
    lright, lxhat, lr = _dx(lx, lgamma, ldout, 1)
    g = lgamma * ldout
    outside = lgamma * _dx(lx, np.ones(4), ldout, 1)[0]
    batch = lr / 4 * (4 * g - g.sum(axis=0) - lxhat * (g * lxhat).sum(axis=0))
    ln = (lx, lgamma, lbeta, ldout, 1e-5)
    return [
        ("bn-no-gamma", _fails_with("scale_shift_backward", "dxhat", dout, dout * gamma,
                                    (dout, xhat, gamma))),
        ("bn-count", _fails_with("batchnorm_backward_alt", "dx", 6 * right, right, (x, gamma, beta, dout))),
        ("bn-power-of-r", _fails_with("variance_backward", "dvar", -0.5 * r * dr, -0.5 * r**3 * dr,
                                      (dxhat, xc, r))),
        ("bn-one-path", _fails_with("centred_backward", "dxc", dxhat * r, centred, (dxhat, dvar, xc, r))),
        ("bn-variance-share", _fails_with("centred_backward", "dxc", dxhat * r + dvar * xc, centred,
                                          (dxhat, dvar, xc, r))),
        ("ln-gamma-outside", _fails_with("layernorm_backward", "dx", outside, lright, ln)),
        ("ln-batch-sums", _fails_with("layernorm_backward", "dx", batch, lright, ln)),
    ]


#: (hint code, a function that fails with that code's hint): one example per code of slips.HINT_CODES
POSITIVE = _positive()


@pytest.mark.parametrize("code, run", POSITIVE, ids=[p[0] for p in POSITIVE])
def test_every_slip_code_has_an_example(code, run, capsys) -> None:
    with pytest.raises(CheckFailed):
        run()
    assert f"[{code}]" in capsys.readouterr().out


def test_the_examples_cover_every_code() -> None:
    from grader.lessons.deep_nets.slips import HINT_CODES

    assert {code for code, _run in POSITIVE} == set(HINT_CODES)
