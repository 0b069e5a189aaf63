"""The rounding margin of the circuit L = tanh(x y (x + y)) + x, shared by lessons 01 and 02.

Lesson 01's grad_L and lesson 02's circuit_backward compute the same two derivatives; their checks
accept every correct formula and refuse numerical nudging by one bar, computed here once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..referees import referee_all

__all__ = ["rounding_margin", "rounding_tol"]


#: float64's unit roundoff: the largest relative error of one rounding (half of machine epsilon).
_UNIT = float(np.finfo(np.float64).eps) / 2


def rounding_margin(x: Any, y: Any, dL: Any = 1.0) -> Any:
    """The largest difference between two correct values of ∂L/∂x (or of ∂L/∂y) of
    L(x, y) = tanh(x y (x + y)) + x, times an upstream gradient dL, that float64 rounding explains:
    the bar of lesson 01's grad_L checks and of lesson 02's circuit_backward checks (the same
    function of the same circuit). x, y (and dL): floats, or ndarrays of one shape; returns the margin, of
    that shape.

    Where it comes from. With r = |x| + |y|: each term the derivative adds up is at most r² in size,
    tanh's slope at most 1, and c = x y (x + y) at most r³/4 in size. Every number is rounded with a
    relative error of at most eps/2 (a few roundings more inside a library's tanh, exp or cosh), a
    slope computed from tanh(c) near ±1 keeps an absolute error of about eps/2 however small the
    slope is, and an error δc in c moves tanh's slope by at most δc. Adding these up, with a factor
    32 for the number of roundings and the libraries' last bits:

        margin = 32 · (eps/2) · |dL| · (1 + r² (3 + r³/4)).

    Every correct way of writing the derivatives (any formula for tanh's slope, math or NumPy,
    c factored or expanded, the terms summed in any order) stays below a tenth of it, saturated tanh
    included; a centred or forward difference misses it by a factor of 40 or more at the points the
    checks use, at any step h from 1e-8 to 1e-3 (tests/lessons/test_derivatives_checks.py).
    """
    r = np.abs(np.asarray(x, dtype=np.float64)) + np.abs(np.asarray(y, dtype=np.float64))
    margin = 32 * _UNIT * np.abs(np.asarray(dL, dtype=np.float64)) * (1 + r**2 * (3 + r**3 / 4))
    return float(margin) if margin.ndim == 0 else margin


def rounding_tol(x: float, y: float, dL: float, reference: float) -> float:
    """rounding_margin(x, y, dL) as the relative error (CS231n's, the one the ✓/✗ lines print) that
    it amounts to next to `reference`, a float: margin / max(1e-8, 2 |reference|)."""
    return rounding_margin(x, y, dL) / max(1e-8, 2 * abs(float(reference)))


referee_all(globals())
