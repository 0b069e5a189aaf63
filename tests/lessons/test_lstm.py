"""Lesson 11's helpers: the PyTorch referees, the NumPy models and the demonstrations."""

from __future__ import annotations

import numpy as np
import pytest

from grader import ToolkitInputError, eval_numerical_gradient_array, rel_error
from grader.lessons.adam import Adam
from grader.lessons.lstm.experiments import (
    cell_path,
    cell_path_reach,
    draw_reach,
    gradient_explorer,
    gradient_reach,
    rnn_initialisations,
)
from grader.lessons.lstm.models import StudentLSTM, VanillaRNN, init_lstm, init_rnn, softmax_readout
from grader.lessons.lstm.reference import (
    lstm_problem,
    step_problem,
    to_torch_order,
    torch_lstm,
    torch_lstm_step,
    torch_lstm_truncated,
    truncated_bptt_mistake,
)
from grader.lessons.student_calls import NotReady


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def _step(x, h, c, Wx, Wh, b):
    """One step of the lesson's LSTM (gate order i, f, o, g), written independently."""
    H = h.shape[1]
    a = x @ Wx + h @ Wh + b
    i, f, o = _sigmoid(a[:, :H]), _sigmoid(a[:, H:2 * H]), _sigmoid(a[:, 2 * H:3 * H])
    g = np.tanh(a[:, 3 * H:])
    c = f * c + i * g
    return o * np.tanh(c), c


def _forward(x, h0, Wx, Wh, b):
    h, c, states = h0, np.zeros_like(h0), []
    for t in range(x.shape[1]):
        h, c = _step(x[:, t], h, c, Wx, Wh, b)
        states.append(h)
    return np.stack(states, axis=1)


def _lesson_functions():
    """Reference lstm_forward / lstm_backward built on a numerical-free NumPy LSTM (via autograd
    of the referee), with lstm_step_forward / lstm_step_backward for cell_path."""
    def lstm_forward(x, h0, Wx, Wh, b):
        return _forward(x, h0, Wx, Wh, b), (x, h0, Wx, Wh, b)

    def lstm_backward(dh, cache):
        _, grads = torch_lstm(*cache, dh=dh)
        return grads["dx"], grads["dh0"], grads["dWx"], grads["dWh"], grads["db"]

    def lstm_step_forward(x, h, c, Wx, Wh, b):
        next_h, next_c = _step(x, h, c, Wx, Wh, b)
        return next_h, next_c, (x, h, c, Wx, Wh, b)

    def lstm_step_backward(dnext_h, dnext_c, cache):
        *_, grads = torch_lstm_step(*cache, dnext_h, dnext_c)
        return tuple(grads[k] for k in ("dx", "dprev_h", "dprev_c", "dWx", "dWh", "db"))

    return lstm_forward, lstm_backward, lstm_step_forward, lstm_step_backward


def test_step_referee_matches_the_equations_and_numerical_gradients() -> None:
    p = step_problem(3, 4, 5, seed=0, scale=2.0)
    args = [p[k] for k in ("x", "prev_h", "prev_c", "Wx", "Wh", "b")]
    next_h, next_c, grads = torch_lstm_step(*args, p["dnext_h"], p["dnext_c"])
    h_ref, c_ref = _step(*args)
    assert rel_error(next_h, h_ref) < 1e-12 and rel_error(next_c, c_ref) < 1e-12
    upstream = np.concatenate([p["dnext_h"], p["dnext_c"]], axis=1)
    for i, name in enumerate(("dx", "dprev_h", "dprev_c", "dWx", "dWh", "db")):
        def f(v, i=i):
            inputs = list(args)
            inputs[i] = v
            return np.concatenate(_step(*inputs), axis=1)
        numeric = eval_numerical_gradient_array(f, args[i].copy(), upstream)
        assert rel_error(grads[name], numeric) < 1e-6, name


def test_sequence_referee_matches_the_equations_and_numerical_gradients() -> None:
    p = lstm_problem(2, 4, 3, 3, seed=1)
    args = [p[k] for k in ("x", "h0", "Wx", "Wh", "b")]
    h, grads = torch_lstm(*args, dh=p["dh"])
    assert rel_error(h, _forward(*args)) < 1e-12
    assert rel_error(torch_lstm(*args), h) == 0
    for i, name in enumerate(("dx", "dh0", "dWx", "dWh", "db")):
        def f(v, i=i):
            inputs = list(args)
            inputs[i] = v
            return _forward(*inputs)
        assert rel_error(grads[name], eval_numerical_gradient_array(f, args[i].copy(), p["dh"])) < 1e-6, name


def test_truncated_referee() -> None:
    p = lstm_problem(2, 5, 3, 2, seed=2)
    args = [p[k] for k in ("x", "h0", "Wx", "Wh", "b")]
    h, full = torch_lstm(*args, dh=p["dh"])
    for chunk in (5, 9):
        h_t, grads = torch_lstm_truncated(*args, p["dh"], chunk)
        assert rel_error(h_t, h) < 1e-12
        assert all(rel_error(grads[k], full[k]) < 1e-10 for k in ("dWx", "dWh", "db"))
    h_t, grads = torch_lstm_truncated(*args, p["dh"], 2)
    assert rel_error(h_t, h) < 1e-12                     # the state is carried
    assert rel_error(grads["dWh"], full["dWh"]) > 1e-3   # the gradient is truncated
    h_r, _ = torch_lstm_truncated(*args, p["dh"], 2, reset_cell=True)
    assert rel_error(h_r[:, :2], h[:, :2]) < 1e-12 and rel_error(h_r, h) > 1e-3


def test_gate_order_and_bad_input() -> None:
    w = np.arange(8.0)
    assert to_torch_order(w).tolist() == [0, 1, 2, 3, 6, 7, 4, 5]  # i, f, g, o
    p = step_problem(2, 3, 4, seed=3)
    with pytest.raises(ToolkitInputError, match="Wx"):
        torch_lstm_step(p["x"], p["prev_h"], p["prev_c"], p["Wx"][:, :8], p["Wh"], p["b"])
    with pytest.raises(ToolkitInputError, match="float64"):
        torch_lstm_step(p["x"].astype(np.float32), p["prev_h"], p["prev_c"], p["Wx"], p["Wh"], p["b"])
    q = lstm_problem(1, 3, 2, 2, seed=4)
    with pytest.raises(ToolkitInputError, match="chunk"):
        torch_lstm_truncated(q["x"], q["h0"], q["Wx"], q["Wh"], q["b"], q["dh"], 0)


def test_vanilla_rnn_backward_and_readout() -> None:
    rng = np.random.default_rng(5)
    model = VanillaRNN(init_rnn(3, 4, rng))
    model.params["b"] = rng.normal(size=4)
    x, h0, dh = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 4)), rng.normal(size=(2, 5, 4))
    grads = model.backward(dh, model.forward(x, h0)[1])
    for name in ("Wx", "Wh", "b"):
        def f(v, name=name):
            old = model.params[name]
            model.params[name] = v
            out = model.forward(x, h0)[0]
            model.params[name] = old
            return out
        assert rel_error(grads[name], eval_numerical_gradient_array(f, model.params[name].copy(), dh)) < 1e-6
    dx_num = eval_numerical_gradient_array(lambda v: model.forward(v, h0)[0], x.copy(), dh)
    assert rel_error(grads["x"], dx_num) < 1e-6
    hl, W, c, y = rng.normal(size=(6, 4)), rng.normal(size=(4, 3)), rng.normal(size=3), rng.integers(0, 3, 6)
    _, acc, dhl, dW, dc = softmax_readout(hl, W, c, y)
    assert 0 <= acc <= 1
    num = eval_numerical_gradient_array(lambda v: np.array(softmax_readout(v, W, c, y)[0]), hl.copy(),
                                        np.array(1.0))
    assert rel_error(dhl, num) < 1e-6


def test_adam_moves_each_weight_by_the_learning_rate_first() -> None:
    params = {"w": np.array([1.0, -2.0, 3.0])}
    Adam(params, lr=0.1).step({"w": np.array([5.0, -0.01, 0.0])})
    assert np.allclose(params["w"], [0.9, -1.9, 3.0])


def test_init_lstm_sets_the_forget_bias_only() -> None:
    b = init_lstm(2, 3, np.random.default_rng(0), forget_bias=1.5)["b"]
    assert b.tolist() == [0.0] * 3 + [1.5] * 3 + [0.0] * 6


def test_demonstrations_with_correct_functions() -> None:
    fwd, bwd, step_fwd, step_bwd = _lesson_functions()
    reach = gradient_reach(fwd, bwd, T=20, forget_bias=2.0)
    assert reach.lstm is not None and reach.lstm.shape == reach.rnn.shape == (20,)
    assert reach.lstm[0] / reach.lstm[-1] > 100 * reach.rnn[0] / reach.rnn[-1]
    through, product = cell_path(step_fwd, step_bwd, T=6)
    assert through.shape == product.shape == (6, 4, 32) and np.abs(through - product).max() < 1e-12
    assert draw_reach(reach).axes


def test_cell_path_alone_carries_less_than_the_whole_gradient() -> None:
    fwd, bwd, step_fwd, step_bwd = _lesson_functions()
    alone = cell_path_reach(step_fwd, step_bwd, T=20, forget_bias=1.0)
    reach = gradient_reach(fwd, bwd, T=20, forget_bias=1.0)
    assert alone["ratio"] < reach.lstm[0] / reach.lstm[-1]
    # spread gates: their geometric mean is below sigma(1), and a typical unit keeps less than the largest
    assert alone["geometric_f"] < _sigmoid(1.0) and alone["typical"] < alone["largest"]
    with pytest.raises(NotReady, match="run this cell again"):
        cell_path_reach(lambda *_: (_ for _ in ()).throw(NotImplementedError()), step_bwd, T=3)


def test_rnn_initialisations_cover_three_recurrent_matrices() -> None:
    rows = rnn_initialisations(T=10, input_scales=(1.0, 0.25))
    assert [(r["Wh"], r["input_scale"]) for r in rows] == [
        (name, scale) for name in ("random", "orthogonal", "identity") for scale in (1.0, 0.25)]
    assert [r["label"] for r in rows[::2]] == ["random", "orthogonal", "identity"]  # English by default
    for big, small in zip(rows[::2], rows[1::2], strict=True):
        assert 0 < big["slope"] < small["slope"] < 1 and big["ratio"] > 0


def test_demonstrations_when_unfinished() -> None:
    def missing(*_):
        raise NotImplementedError

    reach = gradient_reach(missing, missing, T=5)
    assert reach.lstm is None and "lstm_forward is not written yet" in reach.error
    assert "run this cell again" in reach.error
    assert "move a control" in gradient_reach(missing, missing, T=5, widget=True).error
    assert draw_reach(reach).axes
    with pytest.raises(NotReady, match="lstm_step_forward"):
        cell_path(missing, missing, T=3)
    fwd, _, _, _ = _lesson_functions()
    with pytest.raises(NotReady, match="lstm_backward"):
        StudentLSTM(init_lstm(2, 3, np.random.default_rng(0)), fwd, lambda dh, cache: None).backward(
            np.zeros((1, 2, 3)), None)
    with pytest.raises(ToolkitInputError):
        gradient_reach(missing, missing, T=0)


def test_explorer_shows_a_picture_of_its_default() -> None:
    fwd, bwd, _, _ = _lesson_functions()
    explorer = gradient_explorer(fwd, bwd)
    assert explorer.png().startswith(b"\x89PNG")
    assert set(explorer.values()) == {"T", "forget_bias"}


def test_memory_task() -> None:
    from grader.lessons.lstm.training import memory_batch, memory_sweep, train_memory

    x, y = memory_batch(np.random.default_rng(0), 5, 4, 3)
    assert x.shape == (5, 4, 3) and np.array_equal(x[:, 0].argmax(axis=1), y) and not x[:, 1:].any()
    with pytest.raises(ToolkitInputError):
        memory_batch(np.random.default_rng(0), 5, 0, 3)
    fwd, bwd, _, _ = _lesson_functions()
    assert train_memory("lstm", 3, fwd, bwd, steps=40, seed=0) == 1.0   # a gap of 3 steps is easy

    def missing(*_):
        raise NotImplementedError

    with pytest.raises(NotReady):
        train_memory("lstm", 3, missing, missing, steps=1)
    result = memory_sweep(missing, missing, lengths=(2,), seeds=(0,), steps=2)
    assert result.lstm is None and "lstm_forward" in result.table()
    with pytest.raises(ToolkitInputError):
        train_memory("gru", 3)


def test_truncated_bptt_mistake_names_the_reset_cell_and_full_bptt_and_nothing_else():
    p = lstm_problem(N=2, T=5, D=3, H=2, seed=7)
    args = [p[k] for k in ("x", "h0", "Wx", "Wh", "b")]
    h_reset, grads_reset = torch_lstm_truncated(*args, p["dh"], chunk=2, reset_cell=True)
    h_right, grads_right = torch_lstm_truncated(*args, p["dh"], chunk=2)
    full = torch_lstm(*args, dh=p["dh"])[1]
    assert "restarts from zeros" in truncated_bptt_mistake("h", h_reset, p, 2)
    assert "restarts from zeros" in truncated_bptt_mistake("dWh", grads_reset["dWh"], p, 2)
    assert "full BPTT" in truncated_bptt_mistake("dWx", full["dWx"], p, 2)
    assert truncated_bptt_mistake("db", grads_right["db"] + 1.0, p, 2) is None
    assert truncated_bptt_mistake("h", "not an array", p, 2) is None
