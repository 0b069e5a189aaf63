"""grader.lessons.two_layer_net.xor_search: the XOR trainer of lesson 6 against centred differences,
net by net."""

import numpy as np

from grader.lessons.two_layer_net.xor_search import (
    XOR_INPUTS,
    XOR_TARGETS,
    _forward,
    init_nets,
    loss_and_grads,
    stuck_table,
    train_nets,
)


def _numerical(params, r, h=1e-6):
    """Loss and centred-difference gradients of net r alone, from the NumPy forward pass."""
    one = {k: v[r:r + 1].copy() for k, v in params.items()}

    def loss():
        _, y = _forward(one, XOR_INPUTS)
        return float(np.sum((y - XOR_TARGETS) ** 2))

    grads = {}
    for name, value in one.items():
        grad = np.zeros_like(value)
        for i in np.ndindex(value.shape):
            old = value[i]
            value[i] = old + h
            up = loss()
            value[i] = old - h
            down = loss()
            value[i] = old
            grad[i] = (up - down) / (2 * h)
        grads[name] = grad[0]
    return loss(), grads


def test_gradients_match_numerical_ones_for_every_net():
    params = init_nets(hidden=3, runs=4, seed=7)
    params["b1"] = np.random.default_rng(1).normal(size=params["b1"].shape)   # non-zero biases
    params["b2"] = np.random.default_rng(2).normal(size=params["b2"].shape)
    losses, grads = loss_and_grads(params)
    for r in range(4):
        loss, expected = _numerical(params, r)
        assert np.isclose(losses[r], loss, rtol=1e-12)
        for name in params:
            np.testing.assert_allclose(grads[name][r], expected[name], rtol=1e-6, atol=1e-9)


def test_training_is_deterministic_and_lowers_the_loss():
    a = train_nets(hidden=4, runs=5, steps=200)
    b = train_nets(hidden=4, runs=5, steps=200)
    np.testing.assert_array_equal(a["losses"], b["losses"])
    assert a["losses"].shape == (201, 5) and a["correct"].shape == (5,)
    assert np.all(a["losses"][-1] <= a["losses"][0])


def test_the_table_of_the_lesson():
    """The numbers lesson 6 prints: runs that get all four XOR examples right, out of 50."""
    table = stuck_table()
    solved = {h: int(np.sum(result["correct"] == 4)) for h, result in table.items()}
    assert solved == {2: 41, 3: 49, 4: 50, 8: 48}
