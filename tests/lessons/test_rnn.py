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


def test_named_slips_of_the_lesson_checks() -> None:
    import pytest

    from grader import CheckFailed
    from grader.lessons.rnn.checks import check_bounds, check_clipped, check_output, grads_problem

    def code(excinfo):
        return [r.hint.code for r in excinfo.value.results if r.hint is not None]

    M = np.array([[0.5, -1.5, 0.0], [1.0, 0.2, 0.3], [0.0, 0.4, -0.7]])
    rho, sigma = np.max(np.abs(np.linalg.eigvals(M))), np.linalg.norm(M, 2)
    check_bounds(rho, sigma, M)
    with pytest.raises(CheckFailed) as excinfo:
        check_bounds(rho, np.linalg.norm(M), M)
    assert code(excinfo) == ["stretch-frobenius"]
    with pytest.raises(CheckFailed) as excinfo:
        check_bounds(np.max(np.linalg.eigvals(M).real), sigma, M)
    assert code(excinfo) == ["stretch-real-part"]

    rng = np.random.default_rng(6)
    Wh, next_h = rng.normal(size=(3, 3)), rng.uniform(-0.9, 0.9, size=3)
    s = 1 - next_h**2
    with pytest.raises(CheckFailed) as excinfo:
        check_output("backward_step_matrix", "J", Wh.T * s[None, :], s[:, None] * Wh.T, (Wh, next_h))
    assert code(excinfo) == ["step-matrix-slope-after"]

    x, w, b = rng.normal(size=(3, 4, 5)), rng.normal(size=(5, 2)), rng.normal(size=2)
    dout = rng.normal(size=(3, 4, 2))
    with pytest.raises(CheckFailed, match="one row per time step") as excinfo:
        check_output("temporal_affine_backward", "db", dout.sum(axis=0), dout.sum(axis=(0, 1)),
                     (x, w, b, dout))
    assert code(excinfo) == ["temporal-db-one-axis"]

    xs, table_dout = np.array([[0, 3, 3], [1, 0, 0]]), rng.normal(size=(2, 3, 4))
    right = np.zeros((5, 4))
    np.add.at(right, xs, table_dout)
    buffered = np.zeros((5, 4))
    buffered[xs] += table_dout
    with pytest.raises(CheckFailed) as excinfo:
        check_output("word_embedding_backward", "dW", buffered, right, (xs, table_dout, 5))
    assert code(excinfo) == ["embedding-buffered-add"]

    # per-array clipping: one named hint, on the first wrong array, and no generic scale hints
    grads = grads_problem({"W": (3, 2), "b": (2,), "c": (4,)}, norm=4.0, seed=7)
    per_array = {k: g * min(1.0, 1.0 / np.linalg.norm(g)) for k, g in grads.items()}
    with pytest.raises(CheckFailed, match="every array by its own norm") as excinfo:
        check_clipped(per_array, grads, factor=0.25, max_norm=1.0)
    assert code(excinfo) == ["clip-per-array"]
    assert str(excinfo.value).index("every array by its own norm") < 200


def _positive() -> list:
    from grader.lessons.rnn import checks

    M = np.array([[0.5, -1.5, 0.0], [1.0, 0.2, 0.3], [0.0, 0.4, -0.7]])
    eig = np.linalg.eigvals(M)
    rho, sigma = np.max(np.abs(eig)), np.linalg.norm(M, 2)
    rng = np.random.default_rng(8)
    Wh, next_h = rng.normal(size=(3, 3)), rng.uniform(-0.9, 0.9, size=3)
    s = 1 - next_h**2
    J = s[:, None] * Wh.T
    x, w, b = rng.normal(size=(3, 4, 5)), rng.normal(size=(5, 2)), rng.normal(size=2)
    dout = rng.normal(size=(3, 4, 2))
    affine = (x, w, b, dout)
    dw_right, db_right = np.einsum("ntd,ntm->dm", x, dout), dout.sum(axis=(0, 1))
    xs, table_dout = np.array([[0, 3, 3], [1, 0, 0]]), rng.normal(size=(2, 3, 4))
    right = np.zeros((5, 4))
    np.add.at(right, xs, table_dout)
    buffered = np.zeros((5, 4))
    buffered[xs] += table_dout
    grads = checks.grads_problem({"W": (3, 2), "b": (2,), "c": (4,)}, norm=4.0, seed=9)
    small = checks.grads_problem({"W": (3, 2), "b": (2,)}, norm=0.5, seed=10)
    per_array = {k: g * min(1.0, 1 / np.linalg.norm(g)) for k, g in grads.items()}
    per_value = {k: np.clip(g, -1.0, 1.0) for k, g in grads.items()}
    rescaled = {k: g * 4.0 for k, g in small.items()}

    def output(exercise, name, wrong, true, inputs):
        return lambda: checks.check_output(exercise, name, wrong, true, inputs)

    embedding = (xs, table_dout, 5)
    last_step = x[:, -1].T @ dout[:, -1]

    def clipped(values, given, factor, max_norm):
        return lambda: checks.check_clipped(values, given, factor=factor, max_norm=max_norm)

    return [
        ("stretch-frobenius", lambda: checks.check_bounds(rho, np.linalg.norm(M), M)),
        ("stretch-real-part", lambda: checks.check_bounds(np.max(eig.real), sigma, M)),
        ("stretch-swapped", lambda: checks.check_bounds(sigma, sigma, M)),
        ("stretch-squared", lambda: checks.check_bounds(rho, sigma**2, M)),
        ("step-matrix-slope-after", output("backward_step_matrix", "J", Wh.T * s[None, :], J, (Wh, next_h))),
        ("step-matrix-transposed", output("backward_step_matrix", "J", s[:, None] * Wh, J, (Wh, next_h))),
        ("step-matrix-no-slope", output("backward_step_matrix", "J", Wh.T, J, (Wh, next_h))),
        ("embedding-buffered-add", output("word_embedding_backward", "dW", buffered, right, embedding)),
        ("temporal-db-one-axis", output("temporal_affine_backward", "db", dout.sum(1), db_right, affine)),
        ("temporal-dw-one-step", output("temporal_affine_backward", "dw", last_step, dw_right, affine)),
        ("clip-per-array", clipped(per_array, grads, 0.25, 1.0)),
        ("clip-per-value", clipped(per_value, grads, 0.25, 1.0)),
        ("clip-below-rescaled", clipped(rescaled, small, 1.0, 2.0)),
        ("clip-norm-after", lambda: checks.check_total_norm(1.0, 4.0, max_norm=1.0)),
    ]


#: (hint code, a function that fails with that code's hint): one example per code of checks.HINT_CODES
POSITIVE = _positive()


def test_every_code_of_the_rnn_checks_has_an_example(capsys) -> None:
    import pytest

    from grader import CheckFailed
    from grader.lessons.rnn.checks import HINT_CODES

    assert {code for code, _run in POSITIVE} == set(HINT_CODES)
    for code, run in POSITIVE:
        with pytest.raises(CheckFailed):
            run()
        assert f"[{code}]" in capsys.readouterr().out, code
