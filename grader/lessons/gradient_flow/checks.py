"""Lesson 07's hidden-test kit: the layer gradient norms of a plain or residual network compared
with PyTorch's autograd, and a dead-ReLU fraction compared with its value.

The notebook's hidden tests keep their secret inputs and pass the student's function in, as a
graded call of the lesson's declaration (`check_norms(label, graded.layer_gradient_norms, ...)`:
NumPy only, every argument left unchanged, which the declaration checks). What the function
returned goes through the toolkit's trusted path (as_array, as_float) before anything touches it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...errors import CheckFailed
from ...i18n import lesson_text as _
from ...referees import referee_all
from ...trusted import as_array, as_float

__all__ = ["check_dead", "check_norms", "torch_norms"]

#: How far the norms may be from PyTorch's (largest relative difference): a right backward pass
#: is within rounding (about 1e-15); a slope taken at the wrong place is off by far more.
NORMS_RTOL = 1e-7
#: How far a dead fraction may be from its value (a share of units: an exact ratio).
DEAD_ATOL = 1e-12


def torch_norms(weights: Sequence[np.ndarray], x: np.ndarray, dout: np.ndarray, activation: str,
                residual: bool = False) -> np.ndarray:
    """‖dL/dW_i‖ for every layer i from PyTorch's autograd in float64, L = sum(h_L * dout), where
    h_{i+1} = f(h_i @ W_i) (+ h_i with `residual`). weights: L arrays (D_i, D_{i+1}); x: (N, D_0);
    dout: (N, D_L). Returns an (L,) array."""
    import torch

    slope = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu,
             "leaky_relu": lambda t: torch.nn.functional.leaky_relu(t, 0.01)}[activation]
    ws = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in weights]
    h = torch.tensor(x, dtype=torch.float64)
    for w in ws:
        a = slope(h @ w)
        h = h + a if residual else a
    (h * torch.tensor(dout, dtype=torch.float64)).sum().backward()
    return np.array([w.grad.norm().item() for w in ws])


def check_norms(label: str, layer_gradient_norms: Callable[..., Any], weights: Sequence[np.ndarray],
                x: np.ndarray, dout: np.ndarray, activation: str, residual: bool = False,
                keywords: bool = False) -> None:
    """Call `layer_gradient_norms(weights, x, dout, activation, residual)` (by keyword, with
    residual left at its default, when `keywords`) and compare its norms with `torch_norms`.
    Raises CheckFailed naming `label` when they differ."""
    want = torch_norms(weights, x, dout, activation, residual)
    if keywords:
        got = layer_gradient_norms(weights=weights, x=x, dout=dout, activation=activation)
    else:
        got = layer_gradient_norms(weights, x, dout, activation, residual)
    got = as_array(got, _("{label}: the norms (one per layer) that layer_gradient_norms returned").format(
        label=label), shape=want.shape, float64=True)
    err = float(np.max(np.abs(got - want) / np.abs(want)))
    if not err < NORMS_RTOL:
        shown = {"got": np.array2string(got, precision=4), "want": np.array2string(want, precision=4)}
        raise CheckFailed(_("{label}: your norms {got} differ from PyTorch's {want} (largest relative "
                            "difference {err:.1e})").format(label=label, err=err, **shown))


def check_dead(label: str, dead_fraction: Callable[[np.ndarray], Any], pre: np.ndarray,
               expected: float) -> None:
    """Call `dead_fraction(pre)` (pre: (N, H) pre-activations) and compare it with `expected`, the
    share of the H units that are never positive. Raises CheckFailed naming `label`."""
    got = as_float(dead_fraction(pre), _("{label}: dead_fraction's result").format(label=label))
    if not abs(got - expected) < DEAD_ATOL:
        raise CheckFailed(_("{label}: expected {expected}, got {got}").format(
            label=label, expected=expected, got=got))


referee_all(globals())
