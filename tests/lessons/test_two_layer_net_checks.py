"""grader.lessons.two_layer_net.checks (lesson 06): the network's gradients against PyTorch with the
usual slips named, the stand-in RecordingNet, and the replay of a training loop."""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed, Exercise, Exercises
from grader.lessons.two_layer_net.checks import SLIPS, RecordingNet, check_net_gradient, replay_training

N, D, H, C = 5, 4, 10, 3


def _problem(seed: int = 4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    y = rng.integers(0, C, size=N)
    params = {"W1": rng.normal(size=(D, H)) / 2, "b1": 0.5 * rng.normal(size=H),
              "W2": rng.normal(size=(H, C)) / 3, "b2": 0.5 * rng.normal(size=C)}
    return X, y, params


def _numpy_grads(X, y, params, reg=0.0, onehot=True, mask=True, w2_input="h"):
    """The network's gradients in NumPy, with the slips the checks name as switches."""
    W1, b1, W2, b2 = (params[k] for k in ("W1", "b1", "W2", "b2"))
    z1 = X @ W1 + b1
    h = np.maximum(z1, 0.0)
    s = h @ W2 + b2
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    ds = p.copy()
    if onehot:
        ds[np.arange(len(X)), y] -= 1.0
    ds /= len(X)
    dh = ds @ W2.T
    dz1 = dh * (z1 > 0) if mask else dh
    left = h if w2_input == "h" else z1
    return {"W2": left.T @ ds + reg * W2, "b2": ds.sum(axis=0),
            "W1": X.T @ dz1 + reg * W1, "b1": dz1.sum(axis=0)}


def _small(rng):
    """Weights of a 3-4-3 network, zero biases."""
    return {"W1": rng.normal(size=(3, 4)), "b1": np.zeros(4),
            "W2": rng.normal(size=(4, 3)), "b2": np.zeros(3)}


def _net_case(name: str, **slip):
    X, y, params = _problem()
    return lambda: check_net_gradient(name, _numpy_grads(X, y, params, **slip)[name], X, y, params)


def _downhill(p, g, lr):
    return p - lr * g


def _train(net, X, y, learning_rate, num_iters, batch_size, seed, step=_downhill, names=None):
    rng = np.random.default_rng(seed)
    history = []
    for _ in range(num_iters):
        batch = rng.choice(len(X), size=batch_size, replace=False)
        loss, grads = net.loss(X[batch], y[batch])
        history.append(loss)
        for name in names or list(net.params):
            net.params[name] = step(net.params[name], grads[name], learning_rate)
    return history


def _train_case(**change):
    def run():
        rng = np.random.default_rng(41)
        X, y = rng.normal(size=(10, 3)), rng.integers(0, 3, size=10)
        params = {"W1": rng.normal(size=(3, 5)), "b1": rng.normal(size=5), "W2": rng.normal(size=(5, 3)),
                  "b2": rng.normal(size=3)}
        net = RecordingNet(params, reg=0.1)
        _train(net, X, y, 0.5, 6, 4, 3, **change)
        replay_training(net, X, y, 0.5, 6, 4)
    return run


#: code -> a run that fails with that code's hint (one per code; for test_lesson_messages_pt.py too)
POSITIVE = [
    ("two-layer-ds-no-onehot", _net_case("W2", onehot=False)),
    ("two-layer-no-relu-mask", _net_case("W1", mask=False)),
    ("two-layer-dw2-from-z1", _net_case("W2", w2_input="z1")),
    ("train-uphill", _train_case(step=lambda p, g, lr: p + lr * g)),
    ("train-no-learning-rate", _train_case(step=lambda p, g, lr: p - g)),
    ("train-parameter-not-updated", _train_case(names=["W1", "W2"])),
]


@pytest.mark.parametrize("code, run", POSITIVE, ids=[p[0] for p in POSITIVE])
def test_each_mistake_is_named(code, run, capsys):
    with pytest.raises(CheckFailed) as failure:
        run()
    out = capsys.readouterr().out
    assert f"[{code}]" in out
    assert SLIPS[code].split("{")[0][:40] in str(failure.value)
    assert out.count("Hint:") == 1, out     # the named mistake's hint alone, not the generic one too


@pytest.mark.parametrize("name", ["W1", "b1", "W2", "b2"])
def test_right_gradients_pass(name, capsys):
    X, y, params = _problem()
    for reg in (0.0, 0.7):
        check_net_gradient(name, _numpy_grads(X, y, params, reg=reg)[name], X, y, params, reg=reg)
    assert capsys.readouterr().out.count("✓") == 2


def test_the_slips_are_named_in_every_gradient_they_touch(capsys):
    X, y, params = _problem()
    wrong = _numpy_grads(X, y, params, onehot=False)
    for name in ["W1", "b1", "W2", "b2"]:
        with pytest.raises(CheckFailed):
            check_net_gradient(name, wrong[name], X, y, params)
        assert "[two-layer-ds-no-onehot]" in capsys.readouterr().out
    # an unrelated wrong value gets no named slip
    with pytest.raises(CheckFailed):
        check_net_gradient("W2", np.ones((H, C)), X, y, params)
    assert "[two-layer-" not in capsys.readouterr().out


def test_a_right_loop_replays_and_records(capsys):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(12, 3)), rng.integers(0, 3, size=12)
    params = _small(rng)
    net = RecordingNet(params, reg=0.05)
    history = _train(net, X, y, 0.3, 5, 4, 0)
    batches = replay_training(net, X, y, 0.3, 5, 4)
    assert len(batches) == 5 and all(len(set(b)) == 4 for b in batches)
    assert history == [call["loss"] for call in net.calls]
    assert "✓ 5 calls of net.loss, each on 4 different examples" in capsys.readouterr().out


def test_structural_mistakes_are_caught():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(10, 3)), rng.integers(0, 3, size=10)
    params = _small(rng)
    net = RecordingNet(params)
    _train(net, X, y, 0.5, 3, 4, 0)
    with pytest.raises(CheckFailed, match="once per step"):
        replay_training(net, X, y, 0.5, 4, 4)
    net = RecordingNet(params)
    net.loss(X[[0, 0, 1, 2]], y[[0, 0, 1, 2]])
    with pytest.raises(CheckFailed, match="repeats an example"):
        replay_training(net, X, y, 0.5, 1, 4)
    net = RecordingNet(params)
    net.loss(X[[0, 1, 2, 3]], y[[1, 2, 3, 4]])
    with pytest.raises(CheckFailed, match="do not belong"):
        replay_training(net, X, y, 0.5, 1, 4)


def test_a_graded_train_may_drive_the_stand_in_and_nothing_else():
    """train declared with may_call=("RecordingNet",): the stand-in's PyTorch runs, trusted; the
    student's own PyTorch is refused."""
    rng = np.random.default_rng(8)
    X, y = rng.normal(size=(10, 3)), rng.integers(0, 3, size=10)
    params = _small(rng)
    namespace = {"train": _train, "RecordingNet": RecordingNet}
    graded = Exercises(namespace, Exercise("train", may_call=("RecordingNet",)))
    net = RecordingNet(params)
    graded.train(net, X, y, 0.5, 3, 4, 0)
    replay_training(net, X, y, 0.5, 3, 4)

    def torch_train(net, X, y, learning_rate, num_iters, batch_size, seed):
        import torch

        torch.zeros(1)
        return _train(net, X, y, learning_rate, num_iters, batch_size, seed)

    graded = Exercises({"train": torch_train, "RecordingNet": RecordingNet},
                       Exercise("train", may_call=("RecordingNet",)))
    with pytest.raises(CheckFailed):
        graded.train(RecordingNet(params), X, y, 0.5, 3, 4, 0)
