"""Reference answers for lesson 04's visible checks, kept out of the notebook.

A visible check whose code spelled out the reference (``F.linear(x.reshape(N, -1), w.T, b)``)
would hand the student the answer above the exercise. The checks call these functions instead;
each is PyTorch in float64, an independent referee for the student's NumPy.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from ...referees import referee, referee_all

__all__ = ["reference_affine", "reference_affine_relu", "reference_relu"]


def _tensor(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.array(a, dtype=np.float64))


@referee
def reference_affine(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """PyTorch's affine layer on a batch: x of shape (N, d_1, ..., d_k), w (D, M), b (M,).

    Each example is flattened (row-major) to D = d_1 * ... * d_k numbers; returns (N, M), float64.
    The inputs are copied, never changed.
    """
    tx = _tensor(x)
    return F.linear(tx.reshape(tx.shape[0], -1), _tensor(w).T, _tensor(b)).numpy()


@referee
def reference_affine_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """relu(reference_affine(x, w, b)), PyTorch in float64: shape (N, M)."""
    tx = _tensor(x)
    return torch.relu(F.linear(tx.reshape(tx.shape[0], -1), _tensor(w).T, _tensor(b))).numpy()


@referee
def reference_relu(x: np.ndarray) -> np.ndarray:
    """PyTorch's relu of x (any shape), in float64; x is copied, never changed."""
    return torch.relu(_tensor(x)).numpy()


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
