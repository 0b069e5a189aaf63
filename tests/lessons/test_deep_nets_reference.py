"""grader.lessons.deep_nets.reference: lesson 08's references for its visible checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from grader.lessons.deep_nets.reference import chained_backward, optimiser_reference, running_averages


def _torch_steps(rule: str, w: np.ndarray, grads: list[np.ndarray], lr: float) -> np.ndarray:
    p = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    opt = {"sgd_momentum": lambda: torch.optim.SGD([p], lr=lr, momentum=0.9),
           "rmsprop": lambda: torch.optim.RMSprop([p], lr=lr, alpha=0.99, eps=1e-8),
           "adam": lambda: torch.optim.Adam([p], lr=lr, eps=1e-8)}[rule]()
    out = []
    for g in grads:
        p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        out.append(p.detach().numpy().copy())
    return np.array(out)


@pytest.mark.parametrize("rule", ["sgd_momentum", "rmsprop", "adam"])
def test_the_unrolled_rules_take_torchs_steps(rule: str) -> None:
    rng = np.random.default_rng(3)
    w, grads = rng.normal(size=(2, 3)), list(rng.normal(size=(6, 2, 3)))
    trajectory, state = optimiser_reference(rule, w, grads, {"learning_rate": 0.05})
    assert np.allclose(trajectory, _torch_steps(rule, w, grads, 0.05), rtol=1e-6, atol=1e-9)
    if rule == "sgd_momentum":
        assert np.allclose(state["velocity"], trajectory[-1] - trajectory[-2])
    if rule == "adam":
        assert state["t"] == 6


def test_a_given_state_is_continued() -> None:
    rng = np.random.default_rng(4)
    w, grads, c0 = rng.normal(size=4), list(rng.normal(size=(3, 4))), rng.uniform(0.1, 1, size=4)
    _, state = optimiser_reference("rmsprop", w, grads, {"decay_rate": 0.8, "cache": c0})
    expected = c0
    for g in grads:
        expected = 0.8 * expected + 0.2 * g ** 2
    assert np.allclose(state["cache"], expected)
    _, state = optimiser_reference("adam", w, grads[:1], {"t": 3})
    assert state["t"] == 4


def test_running_averages_follow_the_recursion() -> None:
    rng = np.random.default_rng(5)
    batches = [rng.normal(size=(6, 3)) for _ in range(3)]
    mean, var = np.ones(3), np.full(3, 2.0)
    averages = running_averages(batches, 0.7, np.ones(3), np.full(3, 2.0))
    for (got_mean, got_var), x in zip(averages, batches, strict=True):
        mean, var = 0.7 * mean + 0.3 * x.mean(axis=0), 0.7 * var + 0.3 * x.var(axis=0)
        assert np.allclose(got_mean, mean) and np.allclose(got_var, var)


def test_chained_backward_calls_every_step() -> None:
    called = []

    def step(name, n_out):
        def f(*args):
            called.append(name)
            return tuple(np.zeros(1) for _ in range(n_out)) if n_out > 1 else np.zeros(1)
        return f

    steps = {"softmax_loss_backward": step("loss", 1), "affine_backward": step("affine", 3),
             "tanh_backward": step("tanh", 1), "scale_shift_backward": step("scale", 3),
             "variance_backward": step("var", 2), "centred_backward": step("centred", 1),
             "mean_backward": step("mean", 2)}
    values = {f"{n}{k}": np.zeros(1) for n in ("h", "W", "xhat", "gamma", "xc", "inv_std") for k in (1, 2, 3)}
    values["logits"] = np.zeros(1)
    grads = chained_backward(values, np.zeros(1), np.zeros(1, dtype=int), steps)
    assert called[:2] == ["loss", "affine"] and called.count("mean") == 2
    assert {"W1", "b1", "mu1", "z1", "h1", "xc2", "var2"} <= set(grads)


def test_dropout_dx_is_zero_where_out_is() -> None:
    from grader.lessons.deep_nets.reference import dropout_dx

    out, dout = np.array([[0.0, 2.0], [1.5, 0.0]]), np.array([[1.0, 2.0], [3.0, 4.0]])
    assert np.array_equal(dropout_dx(out, dout, 0.5), [[0.0, 4.0], [6.0, 0.0]])
