"""The attention lesson's pictures: loss curves, attention maps (and their explorer), the scale
sweep, the residual stream's reach and the memory of the attention weights."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ...errors import ToolkitInputError
from ...i18n import lesson_text as _
from ...referees import referee_all
from ..live_plot import SliderPlot
from .experiments import ScaleSweep

__all__ = [
    "attention_explorer",
    "draw_attention",
    "draw_losses",
    "draw_memory",
    "draw_residual",
    "draw_scale",
]


def draw_losses(ours: np.ndarray, theirs: np.ndarray) -> Figure:
    """The two training curves, step by step, and their largest difference in the title."""
    fig = Figure(figsize=(7.5, 3.6))
    ax = fig.add_subplot()
    steps = np.arange(1, len(ours) + 1)
    ax.plot(steps, theirs, color="#ff7f0e", lw=4, alpha=0.5, label=_("trained by PyTorch's autograd"))
    ax.plot(steps, ours, color="#1f77b4", lw=1.2, label=_("trained by your backward passes"))
    gap = np.abs(np.asarray(ours) - np.asarray(theirs)).max()
    title = _("training loss, same start and same batches: largest gap {gap:.1e}").format(gap=gap)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(_("step"))
    ax.set_ylabel(_("cross-entropy (nats per character)"))
    ax.legend()
    ax.grid(True, alpha=0.3)
    return fig


def _labels(text: str) -> list[str]:
    return [{" ": "␣", "\n": "⏎"}.get(c, c) for c in text]


def draw_attention(maps: np.ndarray, text: str, layer: int, head: int, position: int | None = None) -> Figure:
    """maps (L, H, T, T) for the characters `text` (T,): the heat map of one layer and head (rows:
    the query's position, columns: the keys it reads), and, for `position`, its row as bars."""
    if maps.ndim != 4 or maps.shape[-1] != len(text):
        raise ToolkitInputError(
            f"expected maps (L, H, T, T) with T = len(text) = {len(text)}, got {maps.shape}"
        )
    weights = maps[layer, head]
    steps = len(text)
    position = steps - 1 if position is None else position
    fig = Figure(figsize=(9.5, 4.6))
    heat, bars = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1]})
    heat.imshow(weights, cmap="Blues", vmin=0, vmax=1)
    ticks = np.arange(steps)
    for ax_set in (heat.set_xticks, heat.set_yticks):
        ax_set(ticks)
    heat.set_xticklabels(_labels(text), fontsize=7)
    heat.set_yticklabels(_labels(text), fontsize=7)
    heat.axhline(position, color="#d62728", lw=1)
    heat.set_xlabel(_("key (the character read)"))
    heat.set_ylabel(_("query (the character predicting the next)"))
    heat.set_title(_("layer {layer}, head {head}").format(layer=layer, head=head), fontsize=10)
    bars.bar(ticks, weights[position], color="#1f77b4")
    bars.set_xticks(ticks)
    bars.set_xticklabels(_labels(text), fontsize=7)
    bars.set_ylim(0, 1)
    char = _labels(text)[position]
    reads = _("what position {position} ('{char}') reads").format(position=position, char=char)
    bars.set_title(reads, fontsize=10)
    fig.tight_layout()
    return fig


def attention_explorer(maps: np.ndarray, text: str) -> SliderPlot:
    """Sliders for the layer, the head and the query position over `draw_attention`."""
    layers, heads, steps, _size = maps.shape

    def draw(layer: int, head: int, position: int) -> Figure:
        return draw_attention(maps, text, layer, head, position)

    return SliderPlot(
        draw,
        layer=widgets.IntSlider(value=layers - 1, min=0, max=layers - 1, description=_("layer")),
        head=widgets.IntSlider(value=0, min=0, max=heads - 1, description=_("head")),
        position=widgets.IntSlider(value=steps - 1, min=0, max=steps - 1, description=_("position")),
    )


def draw_scale(sweep: ScaleSweep) -> Figure:
    """The median gradient reaching a query and the median peak weight against d, both arms."""
    fig = Figure(figsize=(10, 3.6))
    grad, peak = fig.subplots(1, 2)
    for arm, colour, label in (("scaled", "#1f77b4", "q kᵀ / √d"), ("raw", "#d62728", _("q kᵀ (no scale)"))):
        grad.loglog(sweep.dims, getattr(sweep, f"{arm}_grad"), "o-", color=colour, label=label)
        peak.semilogx(sweep.dims, getattr(sweep, f"{arm}_peak"), "o-", color=colour, label=label)
    grad.set_xlabel(_("d (query and key size)"))
    grad.set_ylabel(_("median ‖∂L/∂q_t‖"))
    grad.set_title(_("the gradient reaching a query"), fontsize=10)
    peak.set_xlabel("d")
    peak.set_ylabel(_("median largest weight of a row"))
    peak.set_ylim(0, 1.05)
    peak.set_title(_("how peaked the rows of the softmax are"), fontsize=10)
    for ax in (grad, peak):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def draw_residual(reach: dict[str, np.ndarray]) -> Figure:
    """The gradient norm at every block's input, with the skip connections and without."""
    fig = Figure(figsize=(7.5, 3.6))
    ax = fig.add_subplot()
    blocks = np.arange(len(reach["with"]))
    ax.semilogy(blocks, reach["with"], "o-", label=_("with the residual connections"))
    ax.semilogy(blocks, reach["without"], "s-", color="#d62728", label=_("without them"))
    ax.set_xlabel(_("block (0 reads the embeddings)"))
    ax.set_ylabel(_("‖∂L/∂(block input)‖ (log scale)"))
    ax.set_title(_("the gradient on its way down, at initialisation"), fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    return fig


def draw_memory(lengths: Sequence[int], kept: np.ndarray, heads: int) -> Figure:
    """The bytes the cache keeps against T, beside the heads·T² float64 weights."""
    fig = Figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    lengths = np.asarray(lengths)
    ax.loglog(lengths, kept / 2**20, "o-", label=_("kept by your attention_forward's cache"))
    ax.loglog(
        lengths, heads * lengths**2 * 8 / 2**20, "--", color="gray",
        label=_("{heads}·T² float64 (the weights)").format(heads=heads),
    )
    ax.set_xlabel(_("sequence length T"))
    ax.set_ylabel(_("MiB"))
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    return fig


referee_all(globals())
