"""grader.lessons.leaky_abstraction (lesson 13): the FLOP hints, the reference of the two paths out
of h, and the planted bugs of BuggyNet's backward pass, which the notebook describes from the
evidence only (so the evidence must say what the folds say)."""

import numpy as np
import pytest
import torch

from grader.errors import CheckFailed
from grader.lessons.leaky_abstraction.buggy_net import buggy_backward
from grader.lessons.leaky_abstraction.checks import (
    HINT_CODES,
    check_flops,
    dh_parts_reference,
    gradient_symptoms,
)


def _check(capsys, forward, backward, B=8, n=16, depth=3):
    """(the printed lines, the CheckFailed message or "") of check_flops for these counts."""
    one = 2 * B * n * n
    try:
        check_flops(B, n, depth, (forward, backward), (depth * one, (2 * depth - 1) * one),
                    ("forward FLOPs", "backward FLOPs"))
        error = ""
    except CheckFailed as failure:
        error = str(failure)
    return capsys.readouterr().out, error


def _flops_case(forward, backward):
    """check_flops for B=8, n=16, depth=3 with these counts (in units of one 2Bn² product)."""
    one = 2 * 8 * 16 * 16
    return lambda: check_flops(8, 16, 3, (forward * one, backward * one), (3 * one, 5 * one),
                               ("forward FLOPs", "backward FLOPs"))


#: (code, a call whose failing check prints that code's hint): one per code of the lesson's HINT_CODES.
POSITIVE = [
    ("flops-first-layer-dx", _flops_case(3, 6)),
    ("flops-one-backward-product", _flops_case(3, 3)),
    ("flops-no-factor-two", _flops_case(1.5, 2.5)),
]


def test_every_code_has_an_example_that_prints_it(capsys):
    assert {code for code, _run in POSITIVE} == set(HINT_CODES)
    for code, run in POSITIVE:
        with pytest.raises(CheckFailed):
            run()
        assert f"[{code}]" in capsys.readouterr().out


def test_check_flops_names_each_slip_in_its_line_and_its_error(capsys):
    one = 2 * 8 * 16 * 16
    out, error = _check(capsys, 3 * one, 5 * one)
    assert error == "" and "Hint" not in out
    for counts, words, code in [((3 * one, 6 * one), "needs no gradient", "flops-first-layer-dx"),
                                ((3 * one, 3 * one), "one product per layer", "flops-one-backward-product"),
                                ((3 * one // 2, 5 * one // 2), "counts 2abc FLOPs", "flops-no-factor-two"),
                                ((3 * one, 5 * one // 2), "counts 2abc FLOPs", "flops-no-factor-two")]:
        out, error = _check(capsys, *counts)
        assert words in out and words in error and code in out, (counts, out, error)
    out, error = _check(capsys, 3 * one // 2, 5 * one)          # only the forward count is off
    assert "✓ backward FLOPs" in out and "forward FLOPs" in error and "backward FLOPs" not in error
    out, error = _check(capsys, 3 * one, 4 * one)               # a wrong count no slip explains
    assert error and "flops-" not in out
    out, error = _check(capsys, one, 2 * one, depth=1)          # one layer: 2 products is not the dX slip
    assert error and "needs no gradient" not in out


def test_dh_parts_reference_is_each_path_alone():
    rng = np.random.default_rng(0)
    dr, dg, W2 = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    skip, layer = dh_parts_reference(dr, dg, W2)
    np.testing.assert_allclose(skip, dr, rtol=0, atol=0)
    np.testing.assert_allclose(layer, dg @ W2.T, rtol=1e-14)


def _problem(N=5, D=4, H=6, C=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    y = rng.integers(0, C, size=N)
    params = {"W1": rng.normal(size=(D, H)), "b1": rng.normal(size=H), "W2": rng.normal(size=(H, H)),
              "b2": rng.normal(size=H), "W3": rng.normal(size=(H, C)), "b3": rng.normal(size=C)}
    return X, y, params


def test_the_four_planted_bugs_are_what_the_lesson_finds():
    X, y, params = _problem()
    N = X.shape[0]
    p = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
    a = torch.tensor(X) @ p["W1"] + p["b1"]
    h = torch.tanh(a)
    g = h @ p["W2"] + p["b2"]
    r = torch.relu(g) + h
    scores = r @ p["W3"] + p["b3"]
    for t in (a, h, g, r, scores):
        t.retain_grad()
    torch.nn.functional.cross_entropy(scores, torch.tensor(y)).backward()
    cache = tuple(t.detach().numpy() for t in (torch.tensor(X), a, h, g, r))
    grads, trace = buggy_backward(params, scores.grad.numpy(), cache)
    right = {k: v.grad.numpy() for k, v in p.items()}
    np.testing.assert_allclose(grads["W3"], right["W3"], rtol=1e-12)
    np.testing.assert_allclose(grads["b2"], right["b2"], rtol=1e-12)
    np.testing.assert_allclose(grads["b3"] * N, right["b3"], rtol=1e-12)            # bug 1: 1/N
    np.testing.assert_allclose(grads["W2"].T, right["W2"], rtol=1e-12)               # bug 2: transposed
    np.testing.assert_allclose(trace["g"], g.grad.numpy(), rtol=1e-12)
    # bug 3: dh is the W2 path alone
    np.testing.assert_allclose(trace["h"], g.grad.numpy() @ params["W2"].T, rtol=1e-12)
    assert not np.allclose(trace["h"], h.grad.numpy())
    a_np = cache[1]
    np.testing.assert_allclose(trace["a"], trace["h"] * (1 - a_np**2), rtol=1e-12)  # bug 4: slope at a
    assert set(trace) == {"scores", "r", "g", "h", "a"}


def test_gradient_symptoms_say_what_is_off_not_how_to_repair_it(capsys):
    rng = np.random.default_rng(3)
    right = {"W": rng.normal(size=(4, 4)), "b": rng.normal(size=4), "c": rng.normal(size=4),
             "u": rng.normal(size=(5, 4))}
    found = {"W": right["W"].T.copy(), "b": right["b"] / 5, "c": right["c"] * 5, "u": right["u"].copy()}
    gradient_symptoms(found, right, ["W", "b", "c", "u"], batch_size=5)
    out = capsys.readouterr().out
    assert "✗ dW" in out and "dW is the right matrix transposed" in out
    assert "db is 1/5 of the right value, and 5 is the batch size." in out
    assert "dc is 5 times the right value" in out
    assert "✓ du" in out and "→ du" not in out
    # the tanh slope taken at the input a: named, with the layer's own variable
    a = rng.normal(scale=1.5, size=(3, 4))
    dh = rng.normal(size=(3, 4))
    h = np.tanh(a)
    gradient_symptoms({"a": dh * (1 - a**2)}, {"a": dh * (1 - h**2)}, ["a"], upstream=dh, layer_input=a,
                      layer_output=h)
    out += capsys.readouterr().out
    assert "da is the gradient the tanh received times 1 − a², its slope taken at its input a." in out
    for repair in ("transpose it", "sum over", "instead of averaging", "use the out", "1 − out²", "Hint"):
        assert repair not in out
