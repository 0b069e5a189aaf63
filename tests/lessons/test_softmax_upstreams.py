"""grader.lessons.softmax.upstreams: the true upstream gradients of lesson 05's step checks are the
closed forms of section 2's chain (1/N, -1/(N q), the picked -1/(N q), 1/(N s)), inputs untouched."""

from __future__ import annotations

import numpy as np
import pytest

from grader.lessons.softmax.upstreams import NODES, true_upstream


def test_the_upstreams_are_the_chain_of_section_2() -> None:
    rng = np.random.default_rng(0)
    N, C = 4, 5
    x, y = rng.normal(size=(N, C)), np.array([1, 0, 4, 1])
    copies = x.copy(), y.copy()
    e = np.exp(x)
    s = e.sum(axis=1, keepdims=True)
    q = (e / s)[np.arange(N), y]
    dp = np.zeros((N, C))
    dp[np.arange(N), y] = -1 / (N * q)
    expected = {"l": np.full(N, 1 / N), "q": -1 / (N * q), "p": dp, "s": 1 / (N * s)}
    assert set(expected) == set(NODES)
    for node, want in expected.items():
        got = true_upstream(node, x, y)
        assert got.shape == want.shape and got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-18)
    assert np.array_equal(x, copies[0]) and np.array_equal(y, copies[1])


def test_an_unknown_node_is_refused() -> None:
    with pytest.raises(ValueError, match="node must be one of"):
        true_upstream("x", np.zeros((2, 3)), np.array([0, 1]))
