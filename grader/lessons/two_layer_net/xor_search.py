"""Lesson 6's "exists vs findable" experiment: many small tanh nets trained on XOR at once.

The network and the loss are lesson 3's: MLP(2, [H, 1]) with tanh on every unit (the output
too), weights drawn from U(-1, 1), biases 0, targets -1 / +1 and the *sum* of squared errors over
the four examples. Training is plain full-batch gradient descent at one fixed learning rate.
All R networks of one hidden size are trained together: every array carries the run index r
first, so one einsum does the work of R small matrix products, and one backward pass (checked
against centred differences in tests/lessons/test_xor_search.py) gives the gradients of all R nets.
"""

from __future__ import annotations

import numpy as np

from ...referees import referee_all

__all__ = ["XOR_INPUTS", "XOR_TARGETS", "init_nets", "loss_and_grads", "train_nets", "stuck_table"]

XOR_INPUTS = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])   # (4, 2)
XOR_TARGETS = np.array([-1.0, 1.0, 1.0, -1.0])                            # (4,)


def init_nets(hidden: int, runs: int, seed: int = 0) -> dict[str, np.ndarray]:
    """R independent initialisations of a 2-H-1 net: weights ~ U(-1, 1), biases 0.

    Returns a dict of float64 arrays: W1 (R, 2, H), b1 (R, H), W2 (R, H), b2 (R,).
    The generator is seeded with (seed, hidden), so each hidden size has its own draws.
    """
    rng = np.random.default_rng([seed, hidden])
    return {
        "W1": rng.uniform(-1.0, 1.0, size=(runs, 2, hidden)),
        "b1": np.zeros((runs, hidden)),
        "W2": rng.uniform(-1.0, 1.0, size=(runs, hidden)),
        "b2": np.zeros(runs),
    }


def _forward(params: dict, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hidden activations h (R, N, H) and outputs y (R, N) of every net for the inputs X (N, 2)."""
    h = np.tanh(np.einsum("nd,rdh->rnh", X, params["W1"]) + params["b1"][:, None, :])
    y = np.tanh(np.einsum("rnh,rh->rn", h, params["W2"]) + params["b2"][:, None])
    return h, y


def loss_and_grads(params: dict[str, np.ndarray], X: np.ndarray = XOR_INPUTS,
                   t: np.ndarray = XOR_TARGETS) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Sum-of-squares loss of every net and its gradients.

    Inputs: params as made by init_nets (R nets); X (N, 2); t (N,) targets.
    Returns: losses (R,), and grads shaped like params. The nets do not interact, so each net's
    gradient is computed from its own slice of every array.
    """
    h, y = _forward(params, X)
    losses = np.sum((y - t) ** 2, axis=1)                      # (R,)
    da2 = 2.0 * (y - t) * (1.0 - y ** 2)                        # (R, N)
    da1 = da2[:, :, None] * params["W2"][:, None, :] * (1.0 - h ** 2)   # (R, N, H)
    grads = {
        "W1": np.einsum("nd,rnh->rdh", X, da1),
        "b1": da1.sum(axis=1),
        "W2": np.einsum("rn,rnh->rh", da2, h),
        "b2": da2.sum(axis=1),
    }
    return losses, grads


def train_nets(hidden: int, runs: int = 50, lr: float = 0.1, steps: int = 1000,
               seed: int = 0) -> dict[str, np.ndarray]:
    """Train `runs` nets of `hidden` tanh units on XOR by full-batch gradient descent.

    Returns a dict: losses (steps + 1, R), the loss before every step and after the last;
    outputs (R, 4), every trained net's outputs on the four XOR inputs; correct (R,), how many of
    the four examples each trained net gets right (the sign of its output).
    """
    params = init_nets(hidden, runs, seed)
    history = np.empty((steps + 1, runs))
    for step in range(steps):
        history[step], grads = loss_and_grads(params)
        for name in params:
            params[name] -= lr * grads[name]
    history[steps], _ = loss_and_grads(params)
    _, y = _forward(params, XOR_INPUTS)
    correct = np.sum(np.sign(y) == XOR_TARGETS, axis=1)
    return {"losses": history, "outputs": y, "correct": correct}


def stuck_table(hidden_sizes: tuple[int, ...] = (2, 3, 4, 8), runs: int = 50, lr: float = 0.1,
                steps: int = 1000, seed: int = 0) -> dict[int, dict[str, np.ndarray]]:
    """train_nets for every hidden size: {H: result of train_nets(H, ...)}."""
    return {h: train_nets(h, runs, lr, steps, seed) for h in hidden_sizes}


referee_all(globals())
