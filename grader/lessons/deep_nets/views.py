"""Lesson 08's interactive view: a deep MLP on the digits, with and without the student's
BatchNorm (`BatchNormExplorer`, a `LiveFigure` over `grader.lessons.deep_nets.experiments`)."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ...i18n import lesson_text as _
from ...referees import referee_all
from ..live_figure import BLUE, GREY, ORANGE, LiveFigure, Panel, set_log_limits, text_key
from ..student_calls import NotReady
from .experiments import DeepNetRun, deep_net_gradients, train_deep_net

__all__ = ["BatchNormExplorer"]

_STYLE = {"description_width": "initial"}


class BatchNormExplorer(LiveFigure):
    """Depth, learning rate and activation of a deep MLP on the digits, with and without BatchNorm.

    Left: ‖dW_i‖ per layer at initialisation (one batch of `grad_batch` training digits); middle:
    the update-to-data ratio log10(lr ‖dW_i‖ / ‖W_i‖) of the first step, with the band around
    10⁻³ that is a common rule of thumb; right: the training loss of `steps` steps of minibatch
    SGD at that learning rate. Orange: with the student's BatchNorm; blue: without. Both nets
    start from the same Xavier weights (see `grader.lessons.deep_nets.experiments`).

    Inputs: batchnorm_forward, batchnorm_backward — the student's functions; data —
    (X_train, y_train, X_val, y_val) of `digits_split()`.
    """

    MAX_DEPTH = 20

    def __init__(self, batchnorm_forward: Callable, batchnorm_backward: Callable,
                 data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], *, depth: int = 10,
                 lr: float = 0.1, activation: str = "sigmoid", steps: int = 40, grad_batch: int = 200,
                 seed: int = 0) -> None:
        self.bn_fns = (batchnorm_forward, batchnorm_backward)
        self.data = data
        self.steps, self.seed = steps, seed
        self.batch = (data[0][:grad_batch], data[1][:grad_batch])
        controls = {
            "depth": widgets.IntSlider(value=depth, min=2, max=self.MAX_DEPTH, description=_("hidden layers"),
                                       style=_STYLE),
            "lr": widgets.FloatLogSlider(value=lr, base=10, min=-3, max=0.5, step=0.1,
                                         description=_("learning rate"), readout_format=".3f", style=_STYLE),
            "activation": widgets.Dropdown(options=(("sigmoid", "sigmoid"), ("tanh", "tanh")),
                                           value=activation, description=_("activation"), style=_STYLE),
        }
        super().__init__(controls, css_class="dn-explorer", figsize=(11, 3.3))

    def compute(self, depth: int, lr: float, activation: str) -> dict[str, Any]:
        grads = deep_net_gradients(*self.bn_fns, *self.batch, depth=depth, activation=activation, lr=lr,
                                   seed=self.seed, in_view=True)
        runs: dict[str, DeepNetRun | None] = {}
        for key, use_bn in (("plain", False), ("bn", True)):
            try:
                runs[key] = train_deep_net(*self.bn_fns, self.data, depth=depth, use_bn=use_bn,
                                           activation=activation, lr=lr, steps=self.steps, seed=self.seed,
                                           in_view=True)
            except NotReady:
                runs[key] = None  # the reason is grads["bn_error"]
        return {"depth": depth, "lr": lr, "activation": activation, "grads": grads, "runs": runs}

    def setup(self, fig: Figure) -> None:
        ax1, ax2, ax3 = fig.subplots(1, 3)
        fig.subplots_adjust(left=0.06, right=0.98, bottom=0.16, top=0.83, wspace=0.3)
        self.suptitle = fig.text(0.5, 0.97, "", ha="center", va="top", fontsize=11)
        self.p_norms = Panel(ax1, log=True, xlabel=_("layer (last = output layer)"), integer_x=True)
        self.p_norms.title.set_text(_("gradient norm ‖dW‖ per layer"))
        self.p_ratio = Panel(ax2, xlabel=_("layer"), ylabel=_("log10 update / weight"), integer_x=True)
        self.p_ratio.title.set_text(_("update-to-data ratio, first step"))
        ax2.axhspan(-3.5, -2.5, color=GREY, alpha=0.15, lw=0)
        self.p_loss = Panel(ax3, xlabel=_("SGD step"), ylabel=_("minibatch training loss"))
        self.p_loss.title.set_text(_("{steps} SGD steps at this rate").format(steps=self.steps))
        self.lines = {}
        for key, colour in (("plain", BLUE), ("bn", ORANGE)):
            self.lines[key] = (ax1.plot([], [], "o-", ms=3, lw=1.3, color=colour)[0],
                               ax2.plot([], [], "o-", ms=3, lw=1.3, color=colour)[0],
                               ax3.plot([], [], lw=1.5, color=colour)[0])
        text_key(ax1, [(_("without BatchNorm"), BLUE), (_("with BatchNorm"), ORANGE)], corner="lower right")
        text_key(ax2, [(_("grey: the band around 10⁻³"), GREY)], corner="lower right")
        for ax in (ax1, ax2, ax3):
            ax.grid(True, alpha=0.3)

    def draw(self, s: dict) -> None:
        layers = np.arange(1, s["depth"] + 2)
        title = (_("{depth} hidden sigmoid layers of 64, learning rate {lr}") if s["activation"] == "sigmoid"
                 else _("{depth} hidden tanh layers of 64, learning rate {lr}"))
        self.suptitle.set_text(title.format(depth=s["depth"], lr=f"{s['lr']:.3g}"))
        ratios, norms = [], []
        for key in ("plain", "bn"):
            l_norm, l_ratio, l_loss = self.lines[key]
            result = s["grads"][key]
            for line in (l_norm, l_ratio, l_loss):
                line.set_visible(result is not None)
            if result is None:
                continue
            ok = np.isfinite(result["norms"]) & (result["norms"] > 0)
            l_norm.set_data(layers[ok], result["norms"][ok])
            norms.append(result["norms"][ok])
            finite = np.isfinite(result["ratios"])
            l_ratio.set_data(layers[finite], result["ratios"][finite])
            ratios.append(result["ratios"][finite])
            run = s["runs"][key]
            ok = np.isfinite(run.losses)
            l_loss.set_data(np.arange(len(run.losses))[ok], run.losses[ok])
        every = np.concatenate(norms)
        self.p_norms.ax.set_xlim(0.5, len(layers) + 0.5)
        if every.size:
            set_log_limits(self.p_norms.ax, every.min() / 3, every.max() * 3)
        every = np.concatenate(ratios + [np.array([-3.5, -2.5])])
        self.p_ratio.ax.set_xlim(0.5, len(layers) + 0.5)
        self.p_ratio.ax.set_ylim(every.min() - 0.5, every.max() + 0.5)
        losses = [run.losses[np.isfinite(run.losses)] for run in s["runs"].values() if run is not None]
        both = np.concatenate(losses)
        self.p_loss.ax.set_xlim(0, self.steps)
        self.p_loss.ax.set_ylim(0, min(float(both.max(initial=1.0)), 10.0) * 1.1)
        note = s["grads"]["bn_error"]
        self.p_loss.note.set_text(textwrap.fill(f"BatchNorm: {note}", 40) if note else "")

    def describe(self, s: dict) -> str:
        parts = []
        for key, label in (("plain", _("without BatchNorm")), ("bn", _("with BatchNorm"))):
            result, run = s["grads"][key], s["runs"][key]
            if result is None:
                parts.append(f"{label}: <b>✗</b> {html.escape(s['grads']['bn_error'] or '')}")
                continue
            n = result["norms"]
            parts.append(_("{label}: ‖dW<sub>1</sub>‖ / ‖dW<sub>out</sub>‖ = <b>{ratio}</b>, "
                           "loss after {steps} steps {loss}, validation accuracy "
                           "<b>{accuracy}</b>").format(
                label=label, ratio=f"{n[0] / n[-1]:.1e}", steps=self.steps, loss=_fmt_loss(run.losses),
                accuracy=f"{run.val_acc:.0%}"))
        return " · ".join(parts)


def _fmt_loss(losses: np.ndarray) -> str:
    last = losses[-1]
    return f"{last:.3g}" if np.isfinite(last) else _("overflowed")


referee_all(globals())
