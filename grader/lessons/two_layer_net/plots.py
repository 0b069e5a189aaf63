"""Plots shared by the lessons that train a classifier: decision regions and loss curves.

Both draw on a matplotlib Axes (a new figure when `ax` is None) and return it, so a lesson
can put them side by side with `fig, (ax1, ax2) = plt.subplots(1, 2)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, to_rgb

from ..._validate import describe, fmt_shape, to_numpy
from ...errors import ToolkitInputError
from ...i18n import lesson_text as _
from ...referees import referee_all

__all__ = ["CLASS_COLOURS", "plot_decision_regions", "plot_loss"]

#: One colour per class (matplotlib's tab10); class k uses CLASS_COLOURS[k % 10].
CLASS_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def plot_decision_regions(
    predict_fn: Callable[[np.ndarray], Any],
    X: np.ndarray,
    y: np.ndarray,
    ax: Axes | None = None,
    *,
    resolution: int = 200,
    margin: float = 0.15,
) -> Axes:
    """Colour the plane by the class `predict_fn` gives each point, then draw the data on top.

    Inputs: predict_fn — maps a float64 array of points, shape (M, 2), to either class labels
    (shape (M,), integers) or class scores (shape (M, C); the highest score wins); X — the
    data points, shape (N, 2); y — their classes, shape (N,), integers 0..C−1; ax — where to
    draw (a new figure when None); resolution — grid points per axis; margin — space around
    the data, as a fraction of its extent.
    Returns: the Axes.
    """
    __tracebackhide__ = True
    X = _points(X)
    y = _labels(y, X.shape[0])
    if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 2:
        raise ToolkitInputError(_("resolution must be an int ≥ 2, got {got}.").format(got=repr(resolution)))
    if ax is None:
        ax = _new_axes()

    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = margin * np.maximum(hi - lo, 1e-3)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    regions = _predicted_labels(predict_fn(grid), grid.shape[0]).reshape(gx.shape)

    n_classes = int(max(y.max(initial=0), regions.max(initial=0))) + 1
    colours = [CLASS_COLOURS[k % len(CLASS_COLOURS)] for k in range(n_classes)]
    light = [tuple(0.65 + 0.35 * c for c in to_rgb(col)) for col in colours]
    ax.contourf(gx, gy, regions, levels=np.arange(n_classes + 1) - 0.5, cmap=ListedColormap(light))
    ax.scatter(X[:, 0], X[:, 1], c=[colours[k] for k in y], s=18, edgecolors="black", linewidths=0.4)
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return ax


def plot_loss(
    history: Sequence[float] | np.ndarray, ax: Axes | None = None, *, label: str | None = None
) -> Axes:
    """Draw a loss curve: history[i] is the loss at iteration i.

    Inputs: history — a 1-D sequence of numbers (a list of floats, an array); ax — where to
    draw (a new figure when None); label — legend entry for this curve.
    Returns: the Axes.
    """
    __tracebackhide__ = True
    values = to_numpy(history)
    if values is None or values.dtype.kind not in "iuf" or values.ndim != 1 or values.size == 0:
        raise ToolkitInputError(
            _("history must be a non-empty 1-D sequence of numbers, got {got}.").format(got=describe(history))
        )
    if ax is None:
        ax = _new_axes()
    ax.plot(np.arange(values.size), values.astype(np.float64), label=label)
    ax.set_xlabel(_("iteration"))
    ax.set_ylabel(_("loss"))
    if label is not None:
        ax.legend()
    return ax


# ----------------------------------------------------------------------------- internals


def _new_axes() -> Axes:
    import matplotlib.pyplot as plt

    _fig, ax = plt.subplots(figsize=(5, 5))
    return ax


def _points(X: Any) -> np.ndarray:
    __tracebackhide__ = True
    arr = to_numpy(X)
    if arr is None or arr.dtype.kind not in "iuf" or arr.ndim != 2 or arr.shape[1] != 2:
        message = _("X must be an array of 2-D points, shape (N, 2), got {got}.")
        raise ToolkitInputError(message.format(got=describe(X)))
    if arr.shape[0] == 0 or not np.all(np.isfinite(arr)):
        raise ToolkitInputError(_("X must hold at least one point, and only finite coordinates."))
    return arr.astype(np.float64)


def _labels(y: Any, n: int) -> np.ndarray:
    __tracebackhide__ = True
    arr = to_numpy(y)
    whole = arr is not None and arr.dtype.kind in "iuf" and bool(np.all(arr == np.round(arr)))
    if not whole or arr.shape != (n,) or (arr < 0).any():
        raise ToolkitInputError(
            _("y must hold one class per point, non-negative integers of shape ({n},), got {got}.").format(
                n=n, got=describe(y)
            )
        )
    return arr.astype(np.int64)


def _predicted_labels(out: Any, m: int) -> np.ndarray:
    """Labels (M,) from predict_fn's output: labels (M,) or scores (M, C)."""
    __tracebackhide__ = True
    arr = to_numpy(out)
    if arr is not None and arr.dtype.kind in "iuf":
        if arr.ndim == 2 and arr.shape[0] == m and arr.shape[1] >= 1:
            return np.argmax(arr, axis=1)
        if arr.shape == (m,) and np.all(arr == np.round(arr)) and (arr >= 0).all():
            return arr.astype(np.int64)
    raise ToolkitInputError(
        _(
            "predict_fn got {m} points (an array of shape {shape}) and must return "
            "their labels, shape ({m},), or their scores, shape ({m}, C); it returned "
            "{got}."
        ).format(m=m, shape=fmt_shape((m, 2)), got=describe(out))
    )


referee_all(globals())
