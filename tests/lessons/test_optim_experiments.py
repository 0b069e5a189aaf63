"""grader.lessons.deep_nets.optim_experiments: the optimiser and dropout experiments of lesson 08."""

from __future__ import annotations

import numpy as np
import pytest

from grader import ToolkitInputError, eval_numerical_gradient
from grader.lessons.datasets import digits_split
from grader.lessons.deep_nets.optim_experiments import (
    DropoutSpec,
    NotReady,
    compare_rules,
    dropout_comparison,
    init_mlp,
    learning_rate_sweep,
    mlp_loss,
    quadratic_paths,
    student_step,
    train_mlp,
    trainable_range,
)


def sgd(w, dw, config=None):
    config = {} if config is None else config
    config.setdefault("learning_rate", 1e-2)
    return w - config["learning_rate"] * dw, config


def momentum(w, dw, config=None):
    config = {} if config is None else config
    config.setdefault("learning_rate", 1e-2)
    v = 0.9 * config.get("velocity", np.zeros_like(w)) - config["learning_rate"] * dw
    config["velocity"] = v
    return w + v, config


def unfinished(w, dw, config=None):
    raise NotImplementedError()


def dropout_forward(x, dropout_param):
    p = dropout_param["p"]
    mask = (np.random.default_rng(dropout_param.get("seed")).random(x.shape) < p) / p
    return x * mask, mask


def dropout_backward(dout, mask):
    return dout * mask


@pytest.fixture(scope="module")
def digits():
    X, y, X_val, y_val = digits_split()
    return X[:150], y[:150], X_val[:100], y_val[:100]


def test_student_step_checks_what_comes_back() -> None:
    w, dw = np.ones((2, 3)), np.full((2, 3), 2.0)
    next_w, config = student_step(sgd, "sgd", w, dw, {"learning_rate": 0.5})
    assert next_w.dtype == np.float64 and np.allclose(next_w, 0.0) and config["learning_rate"] == 0.5
    assert np.all(w == 1.0) and np.all(dw == 2.0)  # the rule got copies
    with pytest.raises(NotReady, match="not written yet"):
        student_step(unfinished, "adam", w, dw, None)
    with pytest.raises(NotReady, match="expected a pair"):
        student_step(lambda w, dw, c: w, "rule", w, dw, None)
    with pytest.raises(NotReady, match=r"shape \(2, 3\)"):
        student_step(lambda w, dw, c: (w[0], c), "rule", w, dw, {})
    with pytest.raises(NotReady, match="expected a dict"):
        student_step(lambda w, dw, c: (w, None), "rule", w, dw, {})


def test_quadratic_paths() -> None:
    rules = {"sgd": (sgd, {"learning_rate": 0.07}), "momentum": (momentum, {"learning_rate": 0.01}),
             "too fast": (sgd, {"learning_rate": 1e5}), "unfinished": (unfinished, {})}
    paths, missing = quadratic_paths(rules, (-4.0, 1.5), (1.0, 25.0), 60)
    assert set(paths) == {"sgd", "momentum", "too fast"} and set(missing) == {"unfinished"}
    assert missing["unfinished"] == ("unfinished is not written yet: finish its exercise, run that cell, "
                                     "then run this cell again.")
    assert paths["sgd"].shape == (61, 2) and np.allclose(paths["sgd"][0], (-4.0, 1.5))
    # gradient descent on the bowl: w1 shrinks by (1 - 0.07) per step, exactly
    assert np.allclose(paths["sgd"][:, 0], -4.0 * 0.93 ** np.arange(61))
    assert np.linalg.norm(paths["momentum"][-1]) < 0.1
    assert len(paths["too fast"]) < 61 and not np.all(np.isfinite(paths["too fast"][-1]))
    with pytest.raises(ToolkitInputError, match="curvatures"):
        quadratic_paths(rules, (0.0, 0.0), (1.0, -1.0), 5)


def test_mlp_gradients_match_numerical_ones() -> None:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(6, 5)), rng.integers(0, 3, size=6)
    params = init_mlp(5, 4, 3, seed=1)
    params["b1"] = rng.normal(size=4)
    _, grads = mlp_loss(params, X, y)
    for key in params:
        def f(value, key=key):
            return mlp_loss({**params, key: value}, X, y)[0]
        assert np.allclose(grads[key], eval_numerical_gradient(f, params[key].copy()), atol=1e-7), key
    # with p = 1 dropout keeps everything: the same loss and gradients through the student's functions
    spec = DropoutSpec(dropout_forward, dropout_backward, p_input=1.0, p_hidden=1.0)
    loss_p1, grads_p1 = mlp_loss(params, X, y, spec)
    assert spec.calls == 2 and np.isclose(loss_p1, mlp_loss(params, X, y)[0])
    assert all(np.allclose(grads_p1[k], grads[k]) for k in grads)


def test_dropout_spec_checks_the_student() -> None:
    x = np.ones((4, 3))
    spec = DropoutSpec(lambda x, p: x, dropout_backward)
    with pytest.raises(NotReady, match="expected a pair"):
        spec.apply(x, 0.5)
    spec = DropoutSpec(lambda x, p: (x[:2], None), dropout_backward)
    with pytest.raises(NotReady, match=r"dropout_forward's out .* shape \(4, 3\)"):
        spec.apply(x, 0.5)
    spec = DropoutSpec(dropout_forward, lambda dout, cache: None)
    out, cache = spec.apply(x, 0.5)
    with pytest.raises(NotReady, match="dropout_backward's dx"):
        spec.back(x, cache, 0.5)
    assert spec.apply(x, None) == (x, None) and spec.back(x, None, None) is x


def test_train_mlp(digits) -> None:
    run = train_mlp(sgd, "sgd", {"learning_rate": 0.3}, digits, hidden=16, steps=60, batch=32, seed=0,
                    eval_every=20)
    assert run.diverged_at is None and run.losses.shape == (60,)
    assert run.losses[-10:].mean() < run.losses[:10].mean()
    assert run.history.shape == (3, 5) and list(run.history[:, 0]) == [20, 40, 60]
    assert np.all((run.history[:, 1:3] >= 0) & (run.history[:, 1:3] <= 1))
    again = train_mlp(sgd, "sgd", {"learning_rate": 0.3}, digits, hidden=16, steps=60, batch=32, seed=0)
    assert np.array_equal(again.losses, run.losses)  # seeded: the same batches and weights
    seen = []

    def recording(w, dw, config):
        seen.append(id(config))
        return momentum(w, dw, config)

    train_mlp(recording, "momentum", {}, digits, hidden=8, steps=2, batch=8, seed=0)
    assert len(set(seen[:4])) == 4 and seen[:4] == seen[4:]  # one config per parameter, passed back
    calls = []

    def overflowing(w, dw, config):  # the weights overflow at the third step
        calls.append(1)
        return w * (np.inf if len(calls) > 8 else 1.0), config

    wild = train_mlp(overflowing, "rule", {}, digits, hidden=16, steps=50, batch=32, seed=0)
    assert wild.diverged_at == 2 and wild.final_loss() == float("inf") and np.isnan(wild.losses[3:]).all()


def test_comparisons_report_what_is_missing(digits) -> None:
    rules = {"SGD": (sgd, {"learning_rate": 0.3}), "Adam": (unfinished, {})}
    runs, missing = compare_rules(rules, digits, hidden=8, steps=20, batch=16)
    assert set(runs) == {"SGD"} and "unfinished is not written yet" in missing["Adam"]
    lrs = np.array([1e-3, 0.3, 30.0])
    finals, missing = learning_rate_sweep(rules, lrs, digits, hidden=8, steps=30, batch=16)
    assert set(finals) == {"SGD"} and set(missing) == {"Adam"}
    assert finals["SGD"].shape == (3,) and finals["SGD"][1] < min(finals["SGD"][0], finals["SGD"][2])
    assert trainable_range(lrs, finals["SGD"], finals["SGD"][1] + 1e-9) == (0.3, 0.3)
    assert trainable_range(lrs, finals["SGD"], 0.0) is None


def test_dropout_comparison(digits) -> None:
    runs, missing = dropout_comparison(dropout_forward, dropout_backward, sgd, {"learning_rate": 0.3}, digits,
                                       hidden=16, steps=40, batch=16, eval_every=20)
    assert set(runs) == {"without dropout", "with dropout"} and not missing
    assert not np.array_equal(runs["without dropout"].losses, runs["with dropout"].losses)
    runs, missing = dropout_comparison(unfinished, dropout_backward, sgd, {"learning_rate": 0.3}, digits,
                                       hidden=16, steps=10, batch=16)
    assert set(runs) == {"without dropout"}
    assert "dropout_forward is not written yet" in missing["with dropout"]


def test_step_sizes_measures_the_steps_in_units_of_the_learning_rate(digits) -> None:
    from grader.lessons.deep_nets.optim_experiments import step_sizes

    rules = {"SGD": (sgd, {"learning_rate": 0.1}), "unfinished": (unfinished, {})}
    sizes, missing = step_sizes(rules, digits, hidden=8, steps=5, batch=16, seed=0)
    assert set(sizes) == {"SGD"} and "not written yet" in missing["unfinished"]
    assert sizes["SGD"].shape == (5,) and np.all(sizes["SGD"] > 0)
    params = init_mlp(digits[0].shape[1], 8, 10, 0)
    # plain SGD moves each weight by lr |g|: in units of lr, the mean |g| of the first batch
    rng = np.random.default_rng([0, 1])
    idx = rng.integers(0, len(digits[1]), 16)
    _, grads = mlp_loss(params, digits[0][idx], digits[1][idx])
    expected = sum(np.abs(g).sum() for g in grads.values()) / sum(g.size for g in grads.values())
    assert np.isclose(sizes["SGD"][0], expected)
