"""Lesson 07's three interactive views: each a `LiveFigure` over one of the experiments of
`grader.lessons.gradient_flow.experiments`.

- `GradientFlowExplorer`: depth, width, activation, initialisation and skip connections of a
  deep MLP; the gradient norm and the spread of the activations per layer;
- `SaturationExplorer`: how saturation of the sigmoid multiplies up through k layers;
- `DeadReluTrainer`: a ReLU network trained at a chosen learning rate, and its dying units.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ...i18n import N_
from ...i18n import lesson_text as _
from ...referees import referee_all
from ..live_figure import BLUE, GREY, ORANGE, RED, LiveFigure, Panel, set_log_limits, set_log_line, text_key
from .experiments import (
    ACTIVATION_NAMES,
    DeadReluRuns,
    DeepNetwork,
    checked_activations,
    saturation_paths,
)

__all__ = ["DeadReluTrainer", "GradientFlowExplorer", "SaturationExplorer"]

_LABELS = {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "ReLU", "leaky_relu": "leaky ReLU"}
_STYLE = {"description_width": "initial"}


# ----------------------------------------------------------------------------- 1. gradient flow


class GradientFlowExplorer(LiveFigure):
    """Depth, width, activation, initialisation and skip connections of a deep MLP.

    The network is the lesson's (`DeepNetwork`). Shows ‖dW_i‖ per layer (from the student's
    layer_gradient_norms), the standard deviation of h_i per layer and the histogram of h_i in
    every layer; the numbers give ‖dW_1‖ / ‖dW_L‖, the dead fraction (ReLU family, from the
    student's dead_fraction) or the saturated fraction (sigmoid, tanh).

    Inputs: activations — name → (act, slope), numpy functions of z (the notebook's
    ACTIVATIONS); xavier_init, he_init — (fan_in, fan_out, rng) → array; dead_fraction —
    (N, H) → float; layer_gradient_norms — (weights, x, dout, activation, residual) → (L,).
    """

    INITS = ((N_("N(0, σ²), σ below"), "normal"), (N_("Xavier / Glorot"), "xavier"), ("He", "he"))
    ACT_OPTIONS = tuple((_LABELS[a], a) for a in ACTIVATION_NAMES)
    BINS = 40

    def __init__(
        self,
        activations: Mapping[str, tuple[Callable, Callable]],
        *,
        xavier_init: Callable,
        he_init: Callable,
        dead_fraction: Callable,
        layer_gradient_norms: Callable,
        depth: int = 20,
        width: int = 64,
        activation: str = "sigmoid",
        init: str = "xavier",
        scale: float = 1.0,
        residual: bool = False,
        batch: int = 64,
        seed: int = 0,
    ) -> None:
        self.network = DeepNetwork(
            checked_activations(activations),
            {"xavier": (xavier_init, "xavier_init"), "he": (he_init, "he_init")},
            dead_fraction, layer_gradient_norms, batch=batch, seed=seed,
        )
        self.batch, self.seed = batch, seed
        controls = {
            "depth": widgets.IntSlider(value=depth, min=1, max=50, description=_("depth"), style=_STYLE),
            "width": widgets.IntSlider(value=width, min=8, max=64, step=8, description=_("width"),
                                       style=_STYLE),
            "activation": widgets.Dropdown(options=self.ACT_OPTIONS, value=activation,
                                           description=_("activation"), style=_STYLE),
            "init": widgets.Dropdown(options=[(_(shown), key) for shown, key in self.INITS], value=init,
                                     description=_("init"), style=_STYLE),
            "scale": widgets.FloatLogSlider(value=scale, base=10, min=-2, max=0.3, step=0.05,
                                            description="σ", readout_format=".3f", style=_STYLE),
            "residual": widgets.Checkbox(value=residual, description=_("skip connections")),
        }
        super().__init__(controls, css_class="gf-explorer", figsize=(11, 3.3))
        controls["scale"].disabled = init != "normal"
        controls["init"].observe(self._toggle_scale, names="value")

    def _toggle_scale(self, change: Any) -> None:
        self.controls["scale"].disabled = change["new"] != "normal"

    def weights(self, depth: int, width: int, init: str, scale: float) -> list[np.ndarray]:
        """The network's weights: `depth` arrays (width, width); see `DeepNetwork.weights`."""
        return self.network.weights(depth, width, init, scale)

    def compute(self, depth, width, activation, init, scale, residual):
        return self.network.measure(depth, width, activation, init, scale, residual)

    def setup(self, fig: Figure) -> None:
        ax1, ax2, ax3 = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1.15]})
        fig.subplots_adjust(left=0.06, right=0.98, bottom=0.16, top=0.83, wspace=0.3)
        self.suptitle = fig.text(0.5, 0.97, "", ha="center", va="top", fontsize=11)
        self.p_norms = Panel(ax1, log=True, xlabel=_("layer (1 = next to the input)"), integer_x=True)
        self.p_norms.title.set_text(_("gradient norm ‖dW‖ per layer"))
        (self.l_norms,) = ax1.plot([], [], "o-", ms=3, lw=1.3, color=BLUE)
        self.p_std = Panel(ax2, log=True, xlabel=_("layer"), integer_x=True)
        self.p_std.title.set_text(_("spread of the activations (std)"))
        (self.l_std,) = ax2.plot([], [], "o-", ms=3, lw=1.3, color=ORANGE)
        self.p_hist = Panel(ax3, xlabel=_("activation value"), ylabel=_("layer"))
        ax3.yaxis.set_major_locator(MaxNLocator(5, integer=True))
        self.p_hist.title.set_text(_("histogram of the activations per layer (√ scale)"))
        self.img = ax3.imshow(np.zeros((2, self.BINS)), aspect="auto", origin="lower", cmap="magma",
                              interpolation="nearest", vmin=0, vmax=1)
        for ax in (ax1, ax2):
            ax.grid(True, alpha=0.3)

    def draw(self, s: dict) -> None:
        depth = s["depth"]
        layers = np.arange(1, depth + 1)
        kind = f"{_LABELS[s['activation']]}, {_init_label(s)}"
        skip = _(", skip connections") if s["residual"] else ""
        self.suptitle.set_text(_("depth {depth}, width {width}, {kind}{skip}").format(
            depth=depth, width=s["width"], kind=kind, skip=skip))
        self.p_norms.set_note(s["norms_error"])
        if s["norms"] is not None:
            set_log_line(self.p_norms, self.l_norms, layers, s["norms"])
        stds = np.array([_finite_std(h) for h in s["hs"]])
        set_log_line(self.p_std, self.l_std, layers, stds)

        lo, hi = _hist_range(s["activation"], s["hs"])
        grid = np.zeros((depth, self.BINS))
        for i, h in enumerate(s["hs"]):
            v = h[np.isfinite(h)]
            counts = np.histogram(np.clip(v, lo, hi), bins=self.BINS, range=(lo, hi))[0].astype(float)
            grid[i] = np.sqrt(counts / max(counts.max(), 1.0))  # √: ReLU's spike at 0 hides less
        self.img.set_data(grid)
        self.img.set_extent((lo, hi, 0.5, depth + 0.5))
        self.p_hist.ax.set_xlim(lo, hi)
        self.p_hist.ax.set_ylim(0.5, depth + 0.5)

    def describe(self, s: dict) -> str:
        parts = []
        if s["norms"] is not None:
            n = s["norms"]
            ratio = n[0] / n[-1] if n[-1] > 0 else math.inf
            parts.append(_("‖dW<sub>1</sub>‖ / ‖dW<sub>{depth}</sub>‖ = <b>{ratio}</b> "
                           "(‖dW‖ from {low} to {high})").format(
                depth=s["depth"], ratio=f"{ratio:.2e}", low=f"{np.nanmin(n):.1e}",
                high=f"{np.nanmax(n):.1e}"))
        else:
            parts.append(f"<b>✗</b> {html.escape(s['norms_error'])}")
        stds = [_finite_std(h) for h in s["hs"]]
        parts.append(_("activation std: layer 1 {first}, layer {depth} {last}").format(
            first=f"{stds[0]:.2g}", depth=s["depth"], last=f"{stds[-1]:.2g}"))
        if s["dead"] is not None:
            parts.append(_("units never positive on the batch (dead for ReLU): <b>{share}</b>").format(
                share=f"{np.mean(s['dead']):.0%}"))
        elif s["dead_error"] is not None:
            parts.append(f"<b>✗</b> {html.escape(s['dead_error'])}")
        if s["saturated"] is not None:
            parts.append(_("saturated (slope &lt; {limit} of its peak): <b>{share:.0%}</b>").format(
                limit="10 %", share=np.mean(s["saturated"])))
        return " · ".join(parts)


def _init_label(s: dict) -> str:
    return {"normal": f"N(0, {s['scale']:.3g}²)", "xavier": _("Xavier init"), "he": _("He init")}[s["init"]]


def _finite_std(h: np.ndarray) -> float:
    with np.errstate(all="ignore"):
        return float(np.std(h)) if np.all(np.isfinite(h)) else math.inf


def _hist_range(activation: str, hs: list[np.ndarray]) -> tuple[float, float]:
    if activation == "sigmoid" and not any(h.max(initial=0) > 1 for h in hs):
        return 0.0, 1.0
    if activation == "tanh" and not any(np.abs(h).max(initial=0) > 1 for h in hs):
        return -1.0, 1.0
    finite = np.concatenate([np.abs(h[np.isfinite(h)]) for h in hs])
    top = float(np.percentile(finite, 99)) if finite.size else 1.0
    top = top if top > 0 else 1.0
    return (-0.25 * top, top) if activation in ("relu", "leaky_relu") else (-top, top)


# ----------------------------------------------------------------------------- 2. saturation


class SaturationExplorer(LiveFigure):
    """How saturation of the sigmoid multiplies up through k layers.

    Pre-activations z = scale · u for a fixed standard-normal sample u. Left: σ, σ' and the bound
    1/4, with the histogram of z. Right: along 2000 random paths through k layers (a fresh z
    in every layer), the product of the slopes σ'(z) met so far: its median and the 10–90 %
    band, against the bound 4^-j.

    Inputs: sigmoid, sigmoid_slope — numpy functions of z (from the notebook).
    """

    MAX_DEPTH = 30

    def __init__(self, sigmoid: Callable, sigmoid_slope: Callable, *, scale: float = 1.0,
                 depth: int = 10, paths: int = 2000, seed: int = 0) -> None:
        self.sigmoid, self.slope = sigmoid, sigmoid_slope
        self.u = np.random.default_rng([seed, 2]).standard_normal((self.MAX_DEPTH, paths))
        self.grid = np.linspace(-10, 10, 401)
        controls = {
            "scale": widgets.FloatSlider(value=scale, min=0.1, max=10.0, step=0.1,
                                         description=_("spread of z (std)"), style=_STYLE),
            "depth": widgets.IntSlider(value=depth, min=1, max=self.MAX_DEPTH,
                                       description=_("layers k"), style=_STYLE),
        }
        super().__init__(controls, css_class="gf-saturation", figsize=(10, 3.3),
                         continuous_update=True)

    def compute(self, scale, depth):
        return saturation_paths(self.sigmoid, self.slope, self.u, self.grid, scale, depth)

    def setup(self, fig: Figure) -> None:
        ax1, ax2 = fig.subplots(1, 2)
        fig.subplots_adjust(left=0.07, right=0.97, bottom=0.16, top=0.88, wspace=0.25)
        self.p_curve = Panel(ax1, xlabel="z")
        self.edges = np.linspace(-10, 10, 61)
        self.stairs = ax1.stairs(np.zeros(60), self.edges, fill=True, color=GREY, alpha=0.3)
        (self.l_sigma,) = ax1.plot(self.grid, np.zeros_like(self.grid), color=BLUE)
        (self.l_slope,) = ax1.plot(self.grid, np.zeros_like(self.grid), color=ORANGE)
        ax1.axhline(0.25, color=RED, ls="--", lw=1)
        ax1.set_xlim(-10, 10)
        ax1.set_ylim(0, 1.05)
        text_key(ax1, [("σ(z)", BLUE), ("σ'(z)", ORANGE), (_("ceiling 1/4"), RED),
                       (_("where z falls"), GREY)])
        self.p_paths = Panel(ax2, log=True, xlabel=_("layers k"), integer_x=True)
        self.band = None
        (self.l_median,) = ax2.plot([], [], "o-", ms=3, color=ORANGE)
        (self.l_bound,) = ax2.plot([], [], "--", color=RED)
        ax2.grid(True, alpha=0.3)
        text_key(ax2, [(_("median product of slopes"), ORANGE),
                       (_("10th–90th percentile of the paths"), "#ffbb78"), (_("ceiling 4⁻ᵏ"), RED)],
                 corner="lower left")

    def draw(self, s: dict) -> None:
        counts = np.histogram(np.clip(s["z"], -10, 10), bins=self.edges)[0].astype(float)
        self.stairs.set_data(counts / counts.max())
        self.l_sigma.set_ydata(s["curve"])
        self.l_slope.set_ydata(s["curve_slope"])
        self.p_curve.title.set_text(_("z spread {scale:.1f}: mean slope {slope:.3f}").format(
            scale=s["scale"], slope=np.mean(s["slopes"][0])))

        layers = np.arange(1, s["depth"] + 1)
        with np.errstate(all="ignore"):
            med = np.median(s["products"], axis=1)
            lo, hi = np.percentile(s["products"], [10, 90], axis=1)
        if self.band is not None:
            self.band.remove()
        ax = self.p_paths.ax
        self.band = ax.fill_between(layers, np.maximum(lo, 1e-300), np.maximum(hi, 1e-300), color=ORANGE,
                                    alpha=0.25, linewidth=0)
        self.l_median.set_data(layers, med)
        bound = 0.25**layers
        self.l_bound.set_data(layers, bound)
        ax.set_xlim(0.5, max(s["depth"], 2) + 0.5)
        floor = min(float(np.min(lo[lo > 0], initial=1.0)), float(bound[-1]))
        set_log_limits(ax, floor / 30, 1.5)
        self.p_paths.title.set_text(
            _("after {depth} layers: median {median}, ceiling {bound}").format(
                depth=s["depth"], median=f"{med[-1]:.1e}", bound=f"{bound[-1]:.1e}"))

    def describe(self, s: dict) -> str:
        med = float(np.median(s["products"][-1]))
        return _("spread {spread}: mean slope σ'(z) = <b>{slope}</b> · "
                 "product over {depth} layers: median <b>{median}</b>, "
                 "ceiling 4<sup>-{depth}</sup> = {bound}").format(
            spread=f"{s['scale']:.1f}", slope=f"{np.mean(s['slopes'][0]):.4f}", depth=s["depth"],
            median=f"{med:.2e}", bound=f"{0.25 ** s['depth']:.2e}")


# ----------------------------------------------------------------------------- 3. dead ReLUs


class DeadReluTrainer(LiveFigure):
    """Train a ReLU network with plain gradient descent and watch its units die.

    Network: 2 inputs → `hidden` ReLU units → 3 classes, softmax cross-entropy on the spiral
    data (grader.lessons.datasets.make_spiral, 100 points per class), weights from the student's
    he_init, zero biases, full-batch gradient descent for `steps` steps (`DeadReluRuns`). After
    every step the student's dead_fraction measures the share of hidden units whose
    pre-activation is not positive for any of the 300 points. A run at a safe learning rate
    (`reference_lr`) is drawn dashed for comparison.

    Inputs: he_init, dead_fraction — the student's functions.
    """

    MAX_STEPS = 100

    def __init__(self, *, he_init: Callable, dead_fraction: Callable, lr: float = 5.0,
                 steps: int = 100, reference_lr: float = 0.5, hidden: int = 100, seed: int = 0) -> None:
        from ..datasets import make_spiral

        self.he_init, self.dead_fraction = he_init, dead_fraction
        self.x, self.y = make_spiral(100, 3, seed=0)
        self.hidden, self.seed, self.reference_lr = hidden, seed, reference_lr
        self.runs = DeadReluRuns(self.x, self.y, he_init=he_init, dead_fraction=dead_fraction,
                                 hidden=hidden, seed=seed, keep_lr=reference_lr)
        controls = {
            "lr": widgets.FloatLogSlider(value=lr, base=10, min=-1, max=1, step=0.05,
                                         description=_("learning rate"), readout_format=".2f", style=_STYLE),
            "steps": widgets.IntSlider(value=steps, min=10, max=self.MAX_STEPS, step=10,
                                       description=_("steps"), style=_STYLE),
        }
        super().__init__(controls, css_class="gf-dead", figsize=(10, 3.3))

    def train(self, lr: float, steps: int) -> dict:
        """losses and dead fractions at steps 0..steps, and the accuracy; see `DeadReluRuns.train`."""
        return self.runs.train(lr, steps)

    def reference(self, steps: int) -> dict:
        """The run at the safe learning rate `reference_lr`."""
        return self.train(self.reference_lr, steps)

    def compute(self, lr, steps):
        with np.errstate(all="ignore"):
            return {"run": self.train(lr, steps), "ref": self.reference(steps)}

    def setup(self, fig: Figure) -> None:
        ax1, ax2 = fig.subplots(1, 2)
        fig.subplots_adjust(left=0.07, right=0.97, bottom=0.16, top=0.88, wspace=0.25)
        self.p_dead = Panel(ax1, xlabel=_("step"), ylabel=_("dead hidden units (%)"))
        (self.l_dead,) = ax1.plot([], [], color=RED, lw=1.8)
        (self.l_dead_ref,) = ax1.plot([], [], "--", color=GREY)
        ax1.set_ylim(-3, 103)
        self.p_loss = Panel(ax2, log=True, xlabel=_("step"), ylabel=_("training loss"))
        (self.l_loss,) = ax2.plot([], [], color=RED, lw=1.8)
        (self.l_loss_ref,) = ax2.plot([], [], "--", color=GREY)
        for ax in (ax1, ax2):
            ax.grid(True, alpha=0.3)
        self.keys = text_key(ax1, [("", RED), ("", GREY)], corner="center right")

    def draw(self, s: dict) -> None:
        run, ref = s["run"], s["ref"]
        steps = np.arange(run["steps"] + 1)
        self.l_dead.set_data(steps, 100 * run["dead"])
        self.l_dead_ref.set_data(steps, 100 * ref["dead"])
        ok = np.isfinite(run["losses"]) & (run["losses"] > 0)
        self.l_loss.set_data(steps[ok], run["losses"][ok])
        self.l_loss_ref.set_data(steps, ref["losses"])
        for ax in (self.p_dead.ax, self.p_loss.ax):
            ax.set_xlim(0, run["steps"])
        both = np.concatenate([run["losses"][ok], ref["losses"]])
        set_log_limits(self.p_loss.ax, both.min() / 1.5, both.max() * 1.5)
        self.keys[0].set_text(_("learning rate {lr} (solid)").format(lr=f"{run['lr']:.2g}"))
        self.keys[1].set_text(_("learning rate {lr} (dashed)").format(lr=f"{ref['lr']:.2g}"))
        self.p_dead.title.set_text(_("dead after {steps} steps: {dead:.0%}").format(
            steps=run["steps"], dead=run["dead"][-1]))
        self.p_loss.title.set_text(_("final loss {loss:.3g}, accuracy {accuracy:.0%}").format(
            loss=run["losses"][-1], accuracy=run["accuracy"]))

    def describe(self, s: dict) -> str:
        run, ref = s["run"], s["ref"]
        return _("learning rate {lr:.2g}, {steps} steps: <b>{dead:.0%}</b> of the {hidden} hidden units "
                 "dead, loss {loss:.3g}, accuracy {accuracy:.0%} · at {ref_lr:.2g}: {ref_dead:.0%} dead, "
                 "loss {ref_loss:.3g}").format(
            lr=run["lr"], steps=run["steps"], dead=run["dead"][-1], hidden=self.hidden,
            loss=run["losses"][-1], accuracy=run["accuracy"], ref_lr=ref["lr"], ref_dead=ref["dead"][-1],
            ref_loss=ref["losses"][-1])


referee_all(globals())
