"""Lesson 09's pictures: filters as images, gradients on the pixel grid, and the receptive-field
explorer (kernel size, stride, padding, depth -> output shapes and ∂out/∂x of one unit).

The explorer is a `SliderPlot` (a static picture of the default state where no kernel runs,
sliders that redraw it where one does); its picture comes from the student's convolution,
through `grader.lessons.convolution.experiments.unit_input_gradient`, and says which function is
missing while it is unfinished.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ...errors import ToolkitInputError
from ...i18n import lesson_text as _
from ...referees import referee_all
from ..live_plot import SliderPlot
from ..student_calls import NotReady
from .experiments import central_unit, unit_input_gradient

__all__ = ["grid_image", "message_figure", "receptive_field_explorer", "receptive_field_figure",
           "show_filters"]

_STYLE = {"description_width": "initial"}


def message_figure(message: str, figsize: tuple[float, float] = (6, 2)) -> Figure:
    """A figure that only says `message` (what a picture shows while an exercise is unfinished)."""
    fig = Figure(figsize=figsize)
    fig.text(0.5, 0.5, textwrap.fill(message, 70), ha="center", va="center", color="#d62728", fontsize=10)
    return fig


def grid_image(ax, image: np.ndarray, title: str = "", cmap: str = "Blues", box: tuple | None = None) -> None:
    """Draw a 2-D array on its pixel grid (thin lines between pixels); box — (row0, col0, h, w) outlined."""
    image = np.asarray(image, dtype=np.float64)
    if image.ndim != 2:
        message = _("grid_image needs a 2-D array, got shape {shape}.")
        raise ToolkitInputError(message.format(shape=image.shape))
    ax.imshow(image, cmap=cmap, vmin=0, vmax=max(float(image.max(initial=0.0)), 1e-12))
    ax.set_xticks(np.arange(-0.5, image.shape[1], 1), minor=True)
    ax.set_yticks(np.arange(-0.5, image.shape[0], 1), minor=True)
    ax.grid(which="minor", color="#cccccc", lw=0.5)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    if box is not None:
        r, c, h, w = box
        ax.add_patch(_rectangle((c - 0.5, r - 0.5), w, h))
    ax.set_title(title, fontsize=9)


def _rectangle(xy: tuple[float, float], w: float, h: float):
    from matplotlib.patches import Rectangle

    return Rectangle(xy, w, h, fill=False, ec="#ff7f0e", lw=2)


def show_filters(w: np.ndarray, title: str = "") -> Any:
    """The filters of a first conv layer, w (F, 1, HH, WW), as F small images (a pyplot Figure)."""
    import matplotlib.pyplot as plt

    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 4 or w.shape[1] != 1:
        message = _("show_filters needs w of shape (F, 1, HH, WW), got {shape}.")
        raise ToolkitInputError(message.format(shape=w.shape))
    fig, axes = plt.subplots(1, len(w), figsize=(1.2 * len(w), 1.6))
    axes = np.atleast_1d(axes)
    limit = float(np.abs(w).max(initial=1e-12))
    for k, (ax, kernel) in enumerate(zip(axes, w[:, 0], strict=True)):
        ax.imshow(kernel, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set_title(_("filter {k}").format(k=k), fontsize=8)
        ax.axis("off")
    if title:
        fig.suptitle(title, fontsize=10, y=1.02)
    return fig


def _nonzero_box(image: np.ndarray) -> tuple[int, int, int, int] | None:
    rows, cols = np.nonzero(image)
    if not rows.size:
        return None
    r0, c0 = int(rows.min()), int(cols.min())
    return r0, c0, int(rows.max()) - r0 + 1, int(cols.max()) - c0 + 1


def receptive_field_figure(conv_forward: Callable, conv_backward: Callable, *, size: int = 16,
                           kernel: int = 3, stride: int = 1, pad: int = 0, layers: int = 2,
                           in_view: bool = False) -> Figure:
    """∂out/∂x of the central unit (`central_unit`) of `layers` stacked convolutions (all-ones kernels),
    on the input grid, the middle of the input marked (in_view: messages worded for a widget)."""
    try:
        image, shapes = unit_input_gradient(conv_forward, conv_backward, size, kernel, stride, pad, layers,
                                            in_view)
    except NotReady as why:
        return message_figure(str(why))
    fig = Figure(figsize=(5.6, 4.2))
    ax = fig.subplots()
    box = _nonzero_box(image)
    field = _("nothing") if box is None else _("{width}×{height} pixels").format(width=box[2], height=box[3])
    last = shapes[-1][2]
    unit = central_unit(size, kernel, stride, pad, layers, last)
    title = _("|∂out/∂x| of unit ({unit}, {unit}) of layer {layers}'s {last}×{last} map: {field}").format(
        unit=unit, layers=layers, last=last, field=field)
    grid_image(ax, image, box=box, title=title)
    ax.plot([(size - 1) / 2], [(size - 1) / 2], "+", color="#d62728", ms=10, mew=1.5)
    maps = " → ".join(f"{s[2]}×{s[3]}" for s in shapes)
    note = _("input {size}×{size} → {maps}  (kernel {kernel}, stride {stride}, padding {pad}); "
             "+ the middle of the input").format(size=size, maps=maps, kernel=kernel, stride=stride, pad=pad)
    fig.text(0.5, 0.02, note, ha="center", fontsize=9)
    return fig


def receptive_field_explorer(conv_forward: Callable, conv_backward: Callable, *, size: int = 16,
                             kernel: int = 3, stride: int = 1, pad: int = 0, layers: int = 2) -> SliderPlot:
    """Sliders for kernel size, stride, padding and the number of layers; the picture of
    `receptive_field_figure` (a static one of the defaults where no kernel runs)."""

    def draw(kernel: int, stride: int, pad: int, layers: int) -> Figure:
        return receptive_field_figure(conv_forward, conv_backward, size=size, kernel=kernel, stride=stride,
                                      pad=pad, layers=layers, in_view=True)

    return SliderPlot(
        draw,
        kernel=widgets.IntSlider(value=kernel, min=1, max=7, description=_("kernel size"), style=_STYLE),
        stride=widgets.IntSlider(value=stride, min=1, max=3, description=_("stride"), style=_STYLE),
        pad=widgets.IntSlider(value=pad, min=0, max=3, description=_("padding"), style=_STYLE),
        layers=widgets.IntSlider(value=layers, min=1, max=4, description=_("layers"), style=_STYLE),
        caption=_("Move a slider: the receptive field and the output shapes for your values appear below."),
        dpi=80,
    )


referee_all(globals())
