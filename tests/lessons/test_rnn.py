"""Lesson 10's referees (grader/lessons/rnn/reference.py) against NumPy written independently."""

from __future__ import annotations

import numpy as np

from grader import eval_numerical_gradient_array, rel_error
from grader.lessons.rnn.reference import torch_bounds, torch_rnn, torch_temporal_affine, torch_unrolled


def _problem(seed=0, N=3, T=4, D=2, H=5):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(N, T, D)), rng.uniform(-1, 1, size=(N, H)), rng.normal(size=(D, H)),
            rng.normal(size=(H, H)) / np.sqrt(H), rng.normal(size=H)), rng.normal(size=(N, T, H))


def _forward(x, h0, Wx, Wh, b):
    h, states = h0, []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ Wx + h @ Wh + b)
        states.append(h)
    return np.stack(states, axis=1)


def test_torch_rnn_is_the_lesson_recurrence_and_its_gradients() -> None:
    args, dh = _problem()
    assert rel_error(torch_rnn(*args), _forward(*args)) < 1e-12
    _, grads = torch_rnn(*args, dh=dh)
    for i, name in enumerate(("dx", "dh0", "dWx", "dWh", "db")):
        def f(v, i=i):
            changed = list(args)
            changed[i] = v
            return _forward(*changed)
        numeric = eval_numerical_gradient_array(f, args[i].copy(), dh)
        assert rel_error(grads[name], numeric) < 1e-7, name


def test_torch_unrolled_sums_its_shares_and_reproduces_the_mistakes() -> None:
    args, dh = _problem(seed=1)
    _, right = torch_rnn(*args, dh=dh)
    unrolled = torch_unrolled(*args, dh)
    for name in ("dx", "dh0", "dWx", "dWh", "db"):
        assert rel_error(unrolled[name], right[name]) < 1e-12, name
    assert len(unrolled["steps"]["dWh"]) == args[0].shape[1]
    no_carry = torch_unrolled(*args, dh, carry=False)
    assert rel_error(no_carry["dx"][:, -1], right["dx"][:, -1]) < 1e-12   # the last step has no carry
    assert rel_error(no_carry["dWh"], right["dWh"]) > 1e-3
    assert rel_error(torch_unrolled(*args, dh, slope_from_input=True)["dWx"], right["dWx"]) > 1e-3


def test_torch_bounds() -> None:
    theta = 0.7
    rotation = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    assert np.allclose(torch_bounds(0.9 * rotation), (0.9, 0.9))
    assert np.allclose(torch_bounds(np.diag([-3.0, 0.5])), (3.0, 3.0))
    rho, sigma = torch_bounds(np.array([[0.9, 1.0], [0.0, 0.9]]))
    assert np.isclose(rho, 0.9) and np.isclose(sigma, np.linalg.svd([[0.9, 1.0], [0.0, 0.9]])[1][0])


def test_torch_temporal_affine() -> None:
    rng = np.random.default_rng(2)
    x, w, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 5)), rng.normal(size=5)
    dout = rng.normal(size=(2, 3, 5))
    out, grads = torch_temporal_affine(x, w, b, dout)
    assert rel_error(out, np.einsum("ntd,dm->ntm", x, w) + b) < 1e-12
    assert rel_error(grads["dx"], dout @ w.T) < 1e-12
    assert rel_error(grads["dw"], np.einsum("ntd,ntm->dm", x, dout)) < 1e-12
    assert rel_error(grads["db"], dout.sum(axis=(0, 1))) < 1e-12


def test_known_rnn_mistake_names_the_classic_slips() -> None:
    from grader.lessons.rnn.checks import known_rnn_mistake, rnn_problem, step_problem

    p = rnn_problem(N=2, T=4, D=3, H=5, seed=3)
    args = [p[k] for k in ("x", "h0", "Wx", "Wh", "b")]
    assert "step t+1" in known_rnn_mistake("dWh", torch_unrolled(*args, p["dh"], carry=False)["dWh"], p)
    last_share = torch_unrolled(*args, p["dh"])["steps"]["dWx"][-1]
    assert "(+=)" in known_rnn_mistake("dWx", last_share, p)
    assert known_rnn_mistake("dWh", torch_rnn(*args, dh=p["dh"])[1]["dWh"], p) is None
    q = step_problem(N=2, D=3, H=4, seed=4)
    wrong = torch_unrolled(q["x"][:, None], q["prev_h"], q["Wx"], q["Wh"], q["b"], q["dnext_h"][:, None],
                           slope_from_input=True)["dh0"]
    assert "1 - next_h**2" in known_rnn_mistake("dprev_h", wrong, q)


def test_clip_checks_accept_the_right_answer_and_name_per_value_clipping() -> None:
    import pytest

    from grader import CheckFailed
    from grader.lessons.rnn.checks import check_clipped, check_total_norm, grads_problem

    grads = grads_problem({"W": (3, 2), "b": (2,)}, norm=4.0, seed=5)
    check_clipped({k: g * 0.25 for k, g in grads.items()}, grads, factor=0.25, max_norm=1.0)
    check_total_norm(4.0, 4.0, max_norm=1.0)
    with pytest.raises(CheckFailed, match="every value"):
        check_clipped({k: np.clip(g, -1.0, 1.0) for k, g in grads.items()}, grads, factor=0.25, max_norm=1.0)
    with pytest.raises(CheckFailed, match="before it"):
        check_total_norm(1.0, 4.0, max_norm=1.0)
