"""Small synthetic datasets for the lessons, generated on the spot (nothing is downloaded).

`make_spiral` is the toy problem of CS231n's neural-network case study: a few interleaved
spiral arms in the plane, one arm per class. No straight line separates them, so a linear
classifier stays far from 100 % while a small network with one hidden layer gets there.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from ..errors import ToolkitInputError

__all__ = ["make_spiral"]

#: How far (in radians) each arm turns from its centre to its tip.
SPIRAL_TURN = 4.0


def make_spiral(
    n_per_class: int = 100, n_classes: int = 3, seed: int = 0, noise: float = 0.2
) -> tuple[np.ndarray, np.ndarray]:
    """Points on `n_classes` interleaved spiral arms, `n_per_class` points per arm.

    Arm k starts at the origin at angle 2πk / n_classes and winds outwards: point i of it has
    radius r_i = i / (n_per_class − 1) (0 to 1) and angle 2πk / n_classes + 4·r_i, plus
    Gaussian noise of standard deviation `noise` on the angle. The point is
    (r · sin(angle), r · cos(angle)).

    Inputs: n_per_class — points per class (≥ 1); n_classes — number of arms (≥ 1); seed —
    seeds the noise (the same arguments always give the same points); noise — standard
    deviation of the angle noise in radians (≥ 0; 0 puts every point exactly on its arm).
    Returns: X — float64 array of shape (n_per_class · n_classes, 2); y — int64 array of
    shape (n_per_class · n_classes,) with the class of each row, rows grouped by class
    (class 0 first).
    """
    __tracebackhide__ = True
    n = _positive_int(n_per_class, "n_per_class")
    k = _positive_int(n_classes, "n_classes")
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ToolkitInputError(f"seed must be a non-negative int, got {seed!r}.")
    if isinstance(noise, bool) or not isinstance(noise, Real) or not math.isfinite(noise) or noise < 0:
        raise ToolkitInputError(f"noise must be a finite number ≥ 0, got {noise!r}.")

    rng = np.random.default_rng(int(seed))
    radius = np.linspace(0.0, 1.0, n) if n > 1 else np.zeros(1)
    X = np.empty((n * k, 2), dtype=np.float64)
    y = np.empty(n * k, dtype=np.int64)
    for c in range(k):
        angle = 2 * np.pi * c / k + SPIRAL_TURN * radius + float(noise) * rng.standard_normal(n)
        rows = slice(c * n, (c + 1) * n)
        X[rows, 0] = radius * np.sin(angle)
        X[rows, 1] = radius * np.cos(angle)
        y[rows] = c
    return X, y


def _positive_int(value: object, name: str) -> int:
    __tracebackhide__ = True
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ToolkitInputError(f"{name} must be a positive int, got {value!r}.")
    return int(value)
