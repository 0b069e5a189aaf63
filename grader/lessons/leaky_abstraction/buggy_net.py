"""Lesson 13's planted bugs: the backward pass of the notebook's `BuggyNet`, with four of them.

It lives here, out of the notebook, so that the student finds the bugs from the evidence (a
gradient check per parameter, the hints, the first wrong intermediate, one step judged on its own
inputs) and then derives the right backward pass, instead of reading the four wrong lines and
editing them. Like every function of the lesson's package it is a referee: a `FixedNet` that calls
it while it is graded scores nothing.
"""

from __future__ import annotations

import numpy as np

from ...referees import referee_all

__all__ = ["buggy_backward"]


def buggy_backward(params: dict[str, np.ndarray], dscores: np.ndarray,
                   cache: tuple[np.ndarray, ...]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(grads, trace) of BuggyNet for dscores (N, C) and the forward's cache (X, a, h, g, r).

    grads: dL/dW1 ... dL/db3, four of them wrong; trace: the gradient of every intermediate value
    ("scores", "r", "g", "h", "a"), as the buggy pass computed it.
    """
    X, a, h, g, r = cache
    p = params
    grads = {}
    grads["W3"] = r.T @ dscores
    grads["b3"] = dscores.mean(axis=0)          # bug 1: dscores already holds the 1/N of the mean
    dr = dscores @ p["W3"].T
    dh = dr
    dg = dr * (g > 0)
    grads["W2"] = dg.T @ h                      # bug 2: the transpose (W2 is square, so it fits)
    grads["b2"] = dg.sum(axis=0)
    dh = dg @ p["W2"].T                         # bug 3: overwrites the skip's share instead of adding
    da = dh * (1 - a**2)                        # bug 4: the slope from tanh's input, not its output
    grads["W1"] = X.T @ da
    grads["b1"] = da.sum(axis=0)
    trace = {"scores": dscores, "r": dr, "g": dg, "h": dh, "a": da}
    return grads, trace


# The planted bugs are a reference too (of what the checks must catch): refused inside a graded call.
referee_all(globals())
