"""Lesson 13's references and hints for its visible checks (Huber loss, softplus), kept out of the
notebook so that the check cells a student reads do not spell out the formulas the exercises ask
them to derive.

Every function reads what a student's code returned through the trusted path first
(`grader.trusted`), and prints hints through `grader.show_hint`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...i18n import lesson_text as _
from ...referees import referee_all
from ...report_lines import show_hint
from ...trusted import as_array

__all__ = ["huber_hints", "huber_loss_hints", "softplus_reference_dx"]


def _huber_dpred(err: np.ndarray, delta: float) -> np.ndarray:
    """dL/dpred of the mean Huber loss for the errors err (any shape, M entries)."""
    return np.clip(err, -delta, delta) / err.size


def huber_loss_hints(pred: np.ndarray, target: np.ndarray, loss: float) -> None:
    """Print a hint when a Huber loss value (delta = 1) is the mean of ½·clip(e, −1, 1)²."""
    err = np.asarray(pred, dtype=np.float64) - np.asarray(target, dtype=np.float64)
    value = float(as_array(loss, "huber_loss's loss", shape=()))
    if np.isclose(value, np.mean(0.5 * np.clip(err, -1, 1) ** 2), rtol=1e-9):
        show_hint(_("your loss is the mean of ½·clip(e)², the clipped error squared: "
                  "that is the DQN bug, not Huber."))


def huber_hints(pred: np.ndarray, target: np.ndarray, delta: float, dpred: Any) -> None:
    """Print a hint when dpred (any shape; read as plain data) matches a known wrong Huber gradient.

    pred, target: float64 arrays of one shape S; delta > 0; dpred: what huber_loss returned.
    """
    dpred = as_array(dpred, "huber_loss's dpred")      # plain data from here on
    err = np.asarray(pred, dtype=np.float64) - np.asarray(target, dtype=np.float64)
    M = err.size
    if dpred.shape != err.shape:
        return
    right = _huber_dpred(err, delta)

    def same(candidate: np.ndarray) -> bool:
        return bool(np.allclose(dpred, candidate, rtol=1e-6, atol=1e-12))

    if M > 1 and same(right * M):
        show_hint(_("your dpred is {M} times too big: the loss is a mean over all {M} elements, "
                    "divide by pred.size.").format(M=M))
    elif err.ndim > 1 and same(right * M / err.shape[0]):
        show_hint(_("you divided by N = pred.shape[0] = {N}; the mean is over all {M} elements "
                    "(pred.size).").format(N=err.shape[0], M=M))
    elif same(err * (np.abs(err) < delta) / M):
        show_hint(_("your dpred is zero wherever |error| > delta: that is the gradient of the clipped error, "
                  "squared (the DQN bug). Look again at the slope of the linear piece."))
    elif delta != 1.0 and same(_huber_dpred(err, 1.0)):
        show_hint(_("your dpred switches pieces at 1, but delta = {delta}: use the delta you are "
                    "given.").format(delta=delta))
    elif delta != 1.0 and same(np.clip(err / delta, -1.0, 1.0) / M):
        show_hint(_("your dpred is lesson 7's slope taken at e / delta, as it is: "
                  "l_delta(e) = delta² · l_1(e / delta), so the chain rule also brings in "
                  "the factor delta² in front and the slope 1/delta of e / delta."))
    elif delta != 1.0 and same(delta**2 * np.clip(err / delta, -1.0, 1.0) / M):
        show_hint(_("your dpred is delta² times lesson 7's slope at e / delta: "
                  "the chain rule through e / delta also multiplies by its slope, 1/delta."))

def softplus_reference_dx(x: Any, upstream: Any = None) -> np.ndarray:
    """dL/dx of L = sum(upstream * softplus(x)) as a float64 array of x's shape (upstream: ones
    when None), computed without overflow. x, upstream: tensors or arrays of one shape."""
    x = np.asarray(x, dtype=np.float64)
    small = np.exp(-np.abs(x))                         # in (0, 1]
    slope = np.where(x >= 0, 1.0 / (1.0 + small), small / (1.0 + small))
    return slope if upstream is None else np.asarray(upstream, dtype=np.float64) * slope


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
