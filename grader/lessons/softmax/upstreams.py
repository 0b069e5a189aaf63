"""The upstream gradient each step check of lesson 05's section 2 feeds the student's step.

Each step's check hands the step the gradient of the loss with respect to that step's output, the
true one for the section's example. Computed in the check cell, in plain NumPy, it was the answer
of the step before (`np.full(N, 1 / N)` is mean_backward's, `-1 / (N * q)` neg_log_backward's)
and even of a later exercise (`1 / (N * s)` is section 4's collapse). It comes from PyTorch's
autograd here instead, on the same forward pass, out of the student's sight.
"""

from __future__ import annotations

import numpy as np
import torch

from ...referees import referee_all

__all__ = ["NODES", "true_upstream"]

#: The nodes of section 2's forward pass whose gradient a check hands on, and their shapes.
NODES = {"l": "(N,)", "q": "(N,)", "p": "(N, C)", "s": "(N, 1)"}


def true_upstream(node: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """dL/d(node), float64, for L the mean softmax cross-entropy of scores x (N, C) and labels y
    (N,), written as section 2's steps: e = exp(x), s = e.sum(axis=1, keepdims=True), p = e / s,
    q = p[rows, y], l = -log(q), L = l.mean(). node: one of NODES. From PyTorch's autograd; x and y
    are copied, never changed."""
    if node not in NODES:
        raise ValueError(f"node must be one of {sorted(NODES)}, got {node!r}")
    t = torch.tensor(np.array(x, dtype=np.float64), requires_grad=True)
    labels = torch.as_tensor(np.array(y, dtype=np.int64))
    e = torch.exp(t)
    s = e.sum(dim=1, keepdim=True)
    p = e / s
    q = p[torch.arange(t.shape[0]), labels]
    losses = -torch.log(q)
    nodes = {"l": losses, "q": q, "p": p, "s": s}
    for value in nodes.values():
        value.retain_grad()
    losses.mean().backward()
    return nodes[node].grad.numpy().copy()


# Everything above computes right answers: refused inside a graded call.
referee_all(globals())
