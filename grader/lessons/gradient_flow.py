"""Lesson 07 (gradient flow): the three interactive views and the initialiser check.

Nothing here implements a graded function. The views *call* the student's functions, passed in
by the notebook (``xavier_init``, ``he_init``, ``dead_fraction``, ``layer_gradient_norms``) and
the activations the notebook defines; the dead-ReLU trainer gets its gradients from PyTorch's
autograd. While a student function is unfinished (it raises ``NotImplementedError``), the view
says so where its picture would be, and the notebook keeps running.

Each view is a ``LiveFigure``. As the last value of a cell it shows two outputs:

1. the controls and a line of numbers (an ipywidgets ``VBox``; its plain-text form says that
   the controls need a running kernel);
2. the picture, a plain ``image/png`` output with a ``display_id``. Without a kernel (GitHub,
   nbviewer, the rendered ``solutions/``) it is the static picture of the default state; with
   one, every change of a control recomputes, redraws and replaces that same output, so there
   is one picture, never two.

Pictures are drawn on one reused matplotlib ``Figure`` (Agg, no pyplot) and sent as PNG bytes.
``LiveFigure.time_updates`` measures compute + draw (CPU and wall-clock time) for given control
values without touching the display. Sizes are chosen for one CPU: the deep network is at most
64 units wide with a batch of 64, small enough that BLAS stays single-threaded; the trainer
stops at 100 steps.
"""

from __future__ import annotations

import html
import io
import math
import textwrap
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
import numpy as np
from IPython.display import Image, display
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, MaxNLocator, NullLocator

from .._validate import describe, fmt_shape
from ..errors import CheckFailed
from ..trusted import plain_ndarray, verify_environment

__all__ = [
    "ACTIVATION_NAMES",
    "DeadReluTrainer",
    "GradientFlowExplorer",
    "LiveFigure",
    "NotReady",
    "SaturationExplorer",
    "check_init_variance",
]

#: The activations every view understands, in the order of the explorer's menu.
ACTIVATION_NAMES = ("sigmoid", "tanh", "relu", "leaky_relu")
_LABELS = {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "ReLU", "leaky_relu": "leaky ReLU"}
_BLUE, _ORANGE, _GREY, _RED = "#1f77b4", "#ff7f0e", "#7f7f7f", "#d62728"


class NotReady(Exception):
    """A student function the view needs is unfinished or broke; the message says which."""


def call_student(func: Callable[..., Any], name: str, *args: Any) -> Any:
    """func(*args), with NotImplementedError or any other failure turned into NotReady."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args)
    except NotImplementedError:
        raise NotReady(
            f"{name} is not written yet: finish its exercise, run that cell, then move a control here."
        ) from None
    except Exception as err:  # a student's bug must not break the widget
        message = str(err).splitlines()[0] if str(err) else ""
        raise NotReady(f"{name} raised {type(err).__name__}: {message[:160]}") from None


# ----------------------------------------------------------------------------- the live figure


class LiveFigure:
    """Controls that recompute and redraw one picture in place (see the module docstring).

    Subclasses define ``setup(fig)`` (make the axes and artists, once), ``compute(**values) ->
    state`` (may raise NotReady), ``draw(state)`` (update the artists; fast: no new axes) and
    ``describe(state) -> str`` (the numbers line, HTML).
    """

    #: Shown by front ends that cannot display widgets (instead of `VBox(children=...)`).
    plain_text = "[interactive controls: run the notebook in Jupyter to use them]"

    def __init__(
        self,
        controls: Mapping[str, widgets.ValueWidget],
        *,
        css_class: str,
        figsize: tuple[float, float],
        dpi: int = 72,
        continuous_update: bool = False,
    ) -> None:
        self.controls = dict(controls)
        self.dpi = dpi
        self.fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(self.fig)
        self.setup(self.fig)
        self._message = self.fig.text(0.5, 0.5, "", ha="center", va="center", fontsize=11,
                                      color=_RED, visible=False)
        self.numbers = widgets.HTML()
        self.numbers.add_class("gf-numbers")
        for control in self.controls.values():
            if hasattr(control, "continuous_update"):
                control.continuous_update = continuous_update
            control.observe(self._on_change, names="value")
        row = widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        self.box = widgets.VBox([row, self.numbers])
        self.box.add_class("gf-live")
        self.box.add_class(css_class)
        self.updates = 0
        self.last_ms: float | None = None
        self._handle = None

    # -- to implement
    def setup(self, fig: Figure) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def compute(self, **values: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def draw(self, state: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self, state: Any) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- machinery
    def values(self) -> dict[str, Any]:
        return {name: control.value for name, control in self.controls.items()}

    def render(self, values: Mapping[str, Any] | None = None) -> tuple[bytes, str]:
        """(PNG bytes, numbers HTML) for `values` (default: the controls' current values)."""
        values = self.values() if values is None else {**self.values(), **dict(values)}
        try:
            state = self.compute(**values)
            self.draw(state)
            text = self.describe(state)
            self._show_message(None)
        except NotReady as why:
            self._show_message(str(why))
            text = f"<b>✗</b> {html.escape(str(why))}"
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png", dpi=self.dpi, pil_kwargs={"compress_level": 1})
        return buf.getvalue(), text

    def _show_message(self, message: str | None) -> None:
        for ax in self.fig.axes:
            ax.set_visible(message is None)
        self._message.set_visible(message is not None)
        self._message.set_text(textwrap.fill(message or "", 70))

    def time_updates(self, settings: Sequence[Mapping[str, Any]]) -> dict[str, list[float]]:
        """Time compute + draw + PNG for each dict of control values (the display is untouched).

        Returns {"cpu_ms": [...], "wall_ms": [...]}: the CPU time this process spent (what one
        CPU needs; other programs on the machine do not change it) and the wall-clock time.
        """
        cpu, wall = [], []
        for values in settings:
            start_cpu, start_wall = time.process_time(), time.perf_counter()
            self.render(values)
            cpu.append((time.process_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start_wall) * 1000)
        return {"cpu_ms": cpu, "wall_ms": wall}

    def update(self) -> None:
        """Recompute for the current values; replace the numbers and the picture."""
        start = time.perf_counter()
        png, text = self.render()
        self.last_ms = (time.perf_counter() - start) * 1000
        self.numbers.value = f"{text} <span class='gf-ms'>· updated in {self.last_ms:.0f} ms</span>"
        if self._handle is not None:
            self._handle.update(Image(data=png))
        self.updates += 1

    def _on_change(self, change: Any) -> None:
        self.update()

    def _ipython_display_(self) -> None:
        png, text = self.render()
        self.numbers.value = text  # no timing here: the saved notebook stays deterministic
        bundle = self.box._repr_mimebundle_()
        bundle["text/plain"] = self.plain_text
        display(bundle, raw=True)
        self._handle = display(Image(data=png), display_id=True)


class _Panel:
    """One axes with a title drawn as plain text (cheap to update) and a note for problems."""

    def __init__(self, ax: Any, *, log: bool = False, xlabel: str = "", ylabel: str = "",
                 integer_x: bool = False) -> None:
        self.ax = ax
        if log:
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(numticks=6))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_locator(MaxNLocator(5, integer=integer_x))
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel(ylabel, fontsize=9)
        ax.tick_params(labelsize=8)
        self.title = ax.text(0.5, 1.03, "", ha="center", va="bottom", fontsize=10, transform=ax.transAxes)
        self.note = ax.text(0.5, 0.5, "", ha="center", va="center", fontsize=9, color=_RED,
                            transform=ax.transAxes, wrap=True)

    def set_note(self, note: str | None) -> None:
        """Show `note` instead of the data (None: show the data)."""
        self.note.set_text(textwrap.fill(note, 42) if note else "")
        self.note.set_position((0.5, 0.5))
        for artist in self.ax.lines + self.ax.images + self.ax.collections + self.ax.patches:
            artist.set_visible(note is None)


# ----------------------------------------------------------------------------- 1. gradient flow


class GradientFlowExplorer(LiveFigure):
    """Depth, width, activation, initialisation and skip connections of a deep MLP.

    The network is the lesson's: h_0 = x (batch × width, standard normal), z_i = h_{i-1} W_i,
    h_i = act(z_i) (+ h_{i-1} with skip connections), all layers width × width, no biases. The
    upstream gradient dout is standard normal. Shows ‖dW_i‖ per layer (from the student's
    layer_gradient_norms), the standard deviation of h_i per layer and the histogram of h_i in
    every layer; the numbers give ‖dW_1‖ / ‖dW_L‖, the dead fraction (ReLU family, from the
    student's dead_fraction) or the saturated fraction (sigmoid, tanh).

    Inputs: activations — name → (act, slope), numpy functions of z (the notebook's
    ACTIVATIONS); xavier_init, he_init — (fan_in, fan_out, rng) → array; dead_fraction —
    (N, H) → float; layer_gradient_norms — (weights, x, dout, activation, residual) → (L,).
    """

    INITS = (("N(0, σ²), σ below", "normal"), ("Xavier / Glorot", "xavier"), ("He", "he"))
    ACT_OPTIONS = tuple((_LABELS[a], a) for a in ACTIVATION_NAMES)

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
        self.activations = _checked_activations(activations)
        self.inits = {"xavier": (xavier_init, "xavier_init"), "he": (he_init, "he_init")}
        self.dead_fraction = dead_fraction
        self.layer_gradient_norms = layer_gradient_norms
        self.batch, self.seed = batch, seed
        style = {"description_width": "initial"}
        controls = {
            "depth": widgets.IntSlider(value=depth, min=1, max=50, description="depth", style=style),
            "width": widgets.IntSlider(value=width, min=8, max=64, step=8, description="width", style=style),
            "activation": widgets.Dropdown(options=self.ACT_OPTIONS, value=activation,
                                           description="activation", style=style),
            "init": widgets.Dropdown(options=self.INITS, value=init, description="init", style=style),
            "scale": widgets.FloatLogSlider(value=scale, base=10, min=-2, max=0.3, step=0.05,
                                            description="σ", readout_format=".3f", style=style),
            "residual": widgets.Checkbox(value=residual, description="skip connections"),
        }
        super().__init__(controls, css_class="gf-explorer", figsize=(11, 3.3))
        controls["scale"].disabled = init != "normal"
        controls["init"].observe(self._toggle_scale, names="value")

    def _toggle_scale(self, change: Any) -> None:
        self.controls["scale"].disabled = change["new"] != "normal"

    def weights(self, depth: int, width: int, init: str, scale: float) -> list[np.ndarray]:
        rng = np.random.default_rng([self.seed, 1])
        if init == "normal":
            return [scale * rng.standard_normal((width, width)) for _ in range(depth)]
        func, name = self.inits[init]
        out = []
        for _ in range(depth):
            w = call_student(func, name, width, width, rng)
            if not isinstance(w, np.ndarray) or w.shape != (width, width) or not np.all(np.isfinite(w)):
                raise NotReady(f"{name}({width}, {width}, rng) returned {describe(w)}; expected "
                               f"finite numbers of shape {fmt_shape((width, width))}.")
            out.append(w.astype(np.float64))
        return out

    def compute(self, depth, width, activation, init, scale, residual):
        act, slope = self.activations[activation]
        data = np.random.default_rng([self.seed, 0])
        x = data.standard_normal((self.batch, width))
        dout = data.standard_normal((self.batch, width))
        weights = self.weights(depth, width, init, scale)
        zs, hs = [], []
        h = x
        with np.errstate(all="ignore"):
            for w in weights:
                z = h @ w
                h = act(z) + h if residual else act(z)
                zs.append(z)
                hs.append(h)
        state = {"depth": depth, "width": width, "activation": activation, "init": init,
                 "scale": scale, "residual": residual, "zs": zs, "hs": hs, "norms": None,
                 "norms_error": None, "dead": None, "dead_error": None, "saturated": None}
        try:
            state["norms"] = self._norms(weights, x, dout, activation, residual)
        except NotReady as why:
            state["norms_error"] = str(why)
        if activation in ("relu", "leaky_relu"):
            try:
                state["dead"] = np.array([self._dead(z) for z in zs])
            except NotReady as why:
                state["dead_error"] = str(why)
        else:
            with np.errstate(all="ignore"):
                peak = float(slope(np.zeros(1))[0])
                state["saturated"] = np.array([np.mean(slope(z) < 0.1 * peak) for z in zs])
        return state

    def _norms(self, weights, x, dout, activation, residual) -> np.ndarray:
        out = call_student(self.layer_gradient_norms, "layer_gradient_norms",
                           weights, x.copy(), dout.copy(), activation, residual)
        arr = np.asarray(out, dtype=np.float64) if _numeric(out) else None
        if arr is None or arr.shape != (len(weights),):
            raise NotReady(f"layer_gradient_norms returned {describe(out)}; expected one norm per "
                           f"layer, shape ({len(weights)},).")
        return arr

    def _dead(self, z: np.ndarray) -> float:
        value = call_student(self.dead_fraction, "dead_fraction", z.copy())
        if not _numeric(value) or np.ndim(value) != 0 or not 0 <= float(value) <= 1:
            raise NotReady(f"dead_fraction returned {describe(value)}; expected one number in [0, 1].")
        return float(value)

    def setup(self, fig: Figure) -> None:
        ax1, ax2, ax3 = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1.15]})
        fig.subplots_adjust(left=0.06, right=0.98, bottom=0.16, top=0.83, wspace=0.3)
        self.suptitle = fig.text(0.5, 0.97, "", ha="center", va="top", fontsize=11)
        self.p_norms = _Panel(ax1, log=True, xlabel="layer (1 = next to the input)", integer_x=True)
        self.p_norms.title.set_text("gradient norm ‖dW‖ per layer")
        (self.l_norms,) = ax1.plot([], [], "o-", ms=3, lw=1.3, color=_BLUE)
        self.p_std = _Panel(ax2, log=True, xlabel="layer", integer_x=True)
        self.p_std.title.set_text("spread of the activations (std)")
        (self.l_std,) = ax2.plot([], [], "o-", ms=3, lw=1.3, color=_ORANGE)
        self.p_hist = _Panel(ax3, xlabel="activation value", ylabel="layer")
        ax3.yaxis.set_major_locator(MaxNLocator(5, integer=True))
        self.p_hist.title.set_text("histogram of the activations per layer (√ scale)")
        self.img = ax3.imshow(np.zeros((2, self.BINS)), aspect="auto", origin="lower", cmap="magma",
                              interpolation="nearest", vmin=0, vmax=1)
        for ax in (ax1, ax2):
            ax.grid(True, alpha=0.3)

    BINS = 40

    def draw(self, s: dict) -> None:
        depth = s["depth"]
        layers = np.arange(1, depth + 1)
        kind = f"{_LABELS[s['activation']]}, {_init_label(s)}"
        skip = ", skip connections" if s["residual"] else ""
        self.suptitle.set_text(f"depth {depth}, width {s['width']}, {kind}{skip}")
        self.p_norms.set_note(s["norms_error"])
        if s["norms"] is not None:
            _set_log_line(self.p_norms, self.l_norms, layers, s["norms"])
        stds = np.array([_finite_std(h) for h in s["hs"]])
        _set_log_line(self.p_std, self.l_std, layers, stds)

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
            parts.append(f"‖dW<sub>1</sub>‖ / ‖dW<sub>{s['depth']}</sub>‖ = <b>{ratio:.2e}</b> "
                         f"(‖dW‖ from {np.nanmin(n):.1e} to {np.nanmax(n):.1e})")
        else:
            parts.append(f"<b>✗</b> {html.escape(s['norms_error'])}")
        stds = [_finite_std(h) for h in s["hs"]]
        parts.append(f"activation std: layer 1 {stds[0]:.2g}, layer {s['depth']} {stds[-1]:.2g}")
        if s["dead"] is not None:
            parts.append(f"dead units (never positive on the batch): <b>{np.mean(s['dead']):.0%}</b>")
        elif s["dead_error"] is not None:
            parts.append(f"<b>✗</b> {html.escape(s['dead_error'])}")
        if s["saturated"] is not None:
            parts.append(f"saturated (slope &lt; 10 % of its peak): <b>{np.mean(s['saturated']):.0%}</b>")
        return " · ".join(parts)


def _init_label(s: dict) -> str:
    return {"normal": f"N(0, {s['scale']:.3g}²)", "xavier": "Xavier init", "he": "He init"}[s["init"]]


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


def _key(ax: Any, entries: list[tuple[str, str]], corner: str = "upper left") -> list[Any]:
    """A legend made of coloured text lines (a real legend costs tens of ms per frame)."""
    right = corner.endswith("right")
    x = 0.97 if right else 0.03
    top = {"upper": 0.96, "center": 0.5 + 0.035 * len(entries), "lower": 0.06 + 0.07 * len(entries)}
    y0 = top[corner.split()[0]]
    box = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1}
    return [ax.text(x, y0 - 0.07 * i, label, color=colour, fontsize=8, ha="right" if right else "left",
                    va="top", transform=ax.transAxes, fontweight="bold", bbox=box)
            for i, (label, colour) in enumerate(entries)]


def _set_log_limits(ax: Any, lo: float, hi: float) -> None:
    """Log-axis limits; a range under two decades gets ticks at 1, 2 and 5 of each decade."""
    lo = max(lo, 1e-300)
    hi = max(hi, lo * 10)
    ax.set_ylim(lo, hi)
    subs = (1.0, 2.0, 5.0) if hi / lo < 100 else (1.0,)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs, numticks=7))


def _set_log_line(panel: _Panel, line: Any, x: np.ndarray, y: np.ndarray) -> None:
    """Put y (> 0) on a log axis; entries at 0 or overflowed are left out and counted in the note."""
    ok = np.isfinite(y) & (y > 0)
    line.set_data(x[ok], y[ok])
    ax = panel.ax
    ax.set_xlim(0.5, len(x) + 0.5)
    if ok.any():
        _set_log_limits(ax, float(y[ok].min()) / 3, float(y[ok].max()) * 3)
    bad = int((~ok).sum())
    panel.note.set_text(f"{bad} layer(s) at 0 or overflowed" if bad else "")
    panel.note.set_position((0.5, 0.08))


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
        style = {"description_width": "initial"}
        controls = {
            "scale": widgets.FloatSlider(value=scale, min=0.1, max=10.0, step=0.1,
                                         description="spread of z (std)", style=style),
            "depth": widgets.IntSlider(value=depth, min=1, max=self.MAX_DEPTH,
                                       description="layers k", style=style),
        }
        super().__init__(controls, css_class="gf-saturation", figsize=(10, 3.3),
                         continuous_update=True)

    def compute(self, scale, depth):
        z = scale * self.u[:depth]
        with np.errstate(all="ignore"):
            slopes = call_student(self.slope, "the sigmoid slope", z)
            products = np.cumprod(slopes, axis=0)
            curve = call_student(self.sigmoid, "sigmoid", self.grid)
            curve_slope = call_student(self.slope, "the sigmoid slope", self.grid)
        return {"scale": scale, "depth": depth, "z": z[0], "slopes": slopes, "products": products,
                "curve": curve, "curve_slope": curve_slope}

    def setup(self, fig: Figure) -> None:
        ax1, ax2 = fig.subplots(1, 2)
        fig.subplots_adjust(left=0.07, right=0.97, bottom=0.16, top=0.88, wspace=0.25)
        self.p_curve = _Panel(ax1, xlabel="z")
        self.edges = np.linspace(-10, 10, 61)
        self.stairs = ax1.stairs(np.zeros(60), self.edges, fill=True, color=_GREY, alpha=0.3)
        (self.l_sigma,) = ax1.plot(self.grid, np.zeros_like(self.grid), color=_BLUE)
        (self.l_slope,) = ax1.plot(self.grid, np.zeros_like(self.grid), color=_ORANGE)
        ax1.axhline(0.25, color=_RED, ls="--", lw=1)
        ax1.set_xlim(-10, 10)
        ax1.set_ylim(0, 1.05)
        _key(ax1, [("σ(z)", _BLUE), ("σ'(z)", _ORANGE), ("ceiling 1/4", _RED), ("where z falls", _GREY)])
        self.p_paths = _Panel(ax2, log=True, xlabel="layers k", integer_x=True)
        self.band = None
        (self.l_median,) = ax2.plot([], [], "o-", ms=3, color=_ORANGE)
        (self.l_bound,) = ax2.plot([], [], "--", color=_RED)
        ax2.grid(True, alpha=0.3)
        _key(ax2, [("median product of slopes", _ORANGE), ("10–90 % of the paths", "#ffbb78"),
                   ("ceiling 4⁻ᵏ", _RED)], corner="lower left")

    def draw(self, s: dict) -> None:
        counts = np.histogram(np.clip(s["z"], -10, 10), bins=self.edges)[0].astype(float)
        self.stairs.set_data(counts / counts.max())
        self.l_sigma.set_ydata(s["curve"])
        self.l_slope.set_ydata(s["curve_slope"])
        self.p_curve.title.set_text(f"z spread {s['scale']:.1f}: mean slope {np.mean(s['slopes'][0]):.3f}")

        layers = np.arange(1, s["depth"] + 1)
        with np.errstate(all="ignore"):
            med = np.median(s["products"], axis=1)
            lo, hi = np.percentile(s["products"], [10, 90], axis=1)
        if self.band is not None:
            self.band.remove()
        ax = self.p_paths.ax
        self.band = ax.fill_between(layers, np.maximum(lo, 1e-300), np.maximum(hi, 1e-300), color=_ORANGE,
                                    alpha=0.25, linewidth=0)
        self.l_median.set_data(layers, med)
        bound = 0.25**layers
        self.l_bound.set_data(layers, bound)
        ax.set_xlim(0.5, max(s["depth"], 2) + 0.5)
        floor = min(float(np.min(lo[lo > 0], initial=1.0)), float(bound[-1]))
        _set_log_limits(ax, floor / 30, 1.5)
        self.p_paths.title.set_text(
            f"after {s['depth']} layers: median {med[-1]:.1e}, bound {bound[-1]:.1e}")

    def describe(self, s: dict) -> str:
        med = float(np.median(s["products"][-1]))
        return (f"spread {s['scale']:.1f}: mean slope σ'(z) = <b>{np.mean(s['slopes'][0]):.4f}</b> · "
                f"product over {s['depth']} layers: median <b>{med:.2e}</b>, "
                f"bound 4<sup>-{s['depth']}</sup> = {0.25 ** s['depth']:.2e}")


# ----------------------------------------------------------------------------- 3. dead ReLUs


class DeadReluTrainer(LiveFigure):
    """Train a ReLU network with plain gradient descent and watch its units die.

    Network: 2 inputs → `hidden` ReLU units → 3 classes, softmax cross-entropy on the spiral
    data (grader.lessons.datasets.make_spiral, 100 points per class), weights from the student's
    he_init, zero biases, full-batch gradient descent for `steps` steps. Gradients come from
    PyTorch autograd (float64). After every step the student's dead_fraction measures the share
    of hidden units whose pre-activation is not positive for any of the 300 points. A run at a
    safe learning rate (`reference_lr`) is drawn dashed for comparison.

    Inputs: he_init, dead_fraction — the student's functions.
    """

    MAX_STEPS = 100

    def __init__(self, *, he_init: Callable, dead_fraction: Callable, lr: float = 5.0,
                 steps: int = 100, reference_lr: float = 0.5, hidden: int = 100, seed: int = 0) -> None:
        from .datasets import make_spiral

        self.he_init, self.dead_fraction = he_init, dead_fraction
        self.x, self.y = make_spiral(100, 3, seed=0)
        self.hidden, self.seed, self.reference_lr = hidden, seed, reference_lr
        self._runs: dict[float, dict] = {}
        style = {"description_width": "initial"}
        controls = {
            "lr": widgets.FloatLogSlider(value=lr, base=10, min=-1, max=1, step=0.05,
                                         description="learning rate", readout_format=".2f", style=style),
            "steps": widgets.IntSlider(value=steps, min=10, max=self.MAX_STEPS, step=10,
                                       description="steps", style=style),
        }
        super().__init__(controls, css_class="gf-dead", figsize=(10, 3.3))

    def train(self, lr: float, steps: int) -> dict:
        """losses and dead fractions at steps 0..steps, and the accuracy, of a run at `lr`.

        Full-batch gradient descent is deterministic, so a run of fewer steps is a prefix of a
        longer one: the last run is kept, and asking for more steps at the same learning rate
        only trains the extra steps. A new learning rate starts from scratch.
        """
        run = self._runs.get(lr)
        if run is None:
            run = self._start(lr)
            self._runs = {k: v for k, v in self._runs.items() if k == self.reference_lr}
            self._runs[lr] = run
        self._advance(run, steps)
        accuracy = float((run["scores"][steps].argmax(dim=1) == run["y"]).double().mean())
        return {"lr": lr, "steps": steps, "losses": np.array(run["losses"][: steps + 1]),
                "dead": np.array(run["dead"][: steps + 1]), "accuracy": accuracy}

    def _start(self, lr: float) -> dict:
        import torch

        rng = np.random.default_rng(self.seed)
        w1 = self._init(2, self.hidden, rng)
        w2 = self._init(self.hidden, 3, rng)
        params = [torch.tensor(w1, requires_grad=True),
                  torch.zeros(self.hidden, dtype=torch.float64, requires_grad=True),
                  torch.tensor(w2, requires_grad=True),
                  torch.zeros(3, dtype=torch.float64, requires_grad=True)]
        run = {"lr": lr, "params": params, "losses": [], "dead": [], "scores": [], "pending": None,
               "x": torch.from_numpy(self.x), "y": torch.from_numpy(self.y)}
        self._record(run)
        return run

    def _record(self, run: dict) -> None:
        """Forward pass at the current weights: store loss, dead fraction, scores; keep the graph."""
        import torch

        W1, b1, W2, b2 = run["params"]
        z = torch.addmm(b1, run["x"], W1)
        scores = torch.addmm(b2, torch.relu(z), W2)
        loss = torch.nn.functional.cross_entropy(scores, run["y"])
        run["losses"].append(loss.item())
        run["dead"].append(self._dead(z.detach().numpy().copy()))
        run["scores"].append(scores.detach())
        run["pending"] = loss

    def _advance(self, run: dict, steps: int) -> None:
        import torch

        params = run["params"]
        while len(run["losses"]) <= steps:
            for p in params:
                p.grad = None
            run["pending"].backward()
            with torch.no_grad():
                for p in params:
                    p.add_(p.grad, alpha=-run["lr"])
            self._record(run)

    def _init(self, fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
        w = call_student(self.he_init, "he_init", fan_in, fan_out, rng)
        if not isinstance(w, np.ndarray) or w.shape != (fan_in, fan_out) or not np.all(np.isfinite(w)):
            raise NotReady(f"he_init({fan_in}, {fan_out}, rng) returned {describe(w)}; expected "
                           f"finite numbers of shape {fmt_shape((fan_in, fan_out))}.")
        return w.astype(np.float64)

    def _dead(self, z: np.ndarray) -> float:
        value = call_student(self.dead_fraction, "dead_fraction", z)
        if not _numeric(value) or np.ndim(value) != 0 or not 0 <= float(value) <= 1:
            raise NotReady(f"dead_fraction returned {describe(value)}; expected one number in [0, 1].")
        return float(value)

    def reference(self, steps: int) -> dict:
        return self.train(self.reference_lr, steps)

    def compute(self, lr, steps):
        with np.errstate(all="ignore"):
            return {"run": self.train(lr, steps), "ref": self.reference(steps)}

    def setup(self, fig: Figure) -> None:
        ax1, ax2 = fig.subplots(1, 2)
        fig.subplots_adjust(left=0.07, right=0.97, bottom=0.16, top=0.88, wspace=0.25)
        self.p_dead = _Panel(ax1, xlabel="step", ylabel="dead hidden units (%)")
        (self.l_dead,) = ax1.plot([], [], color=_RED, lw=1.8)
        (self.l_dead_ref,) = ax1.plot([], [], "--", color=_GREY)
        ax1.set_ylim(-3, 103)
        self.p_loss = _Panel(ax2, log=True, xlabel="step", ylabel="training loss")
        (self.l_loss,) = ax2.plot([], [], color=_RED, lw=1.8)
        (self.l_loss_ref,) = ax2.plot([], [], "--", color=_GREY)
        for ax in (ax1, ax2):
            ax.grid(True, alpha=0.3)
        self.keys = _key(ax1, [("", _RED), ("", _GREY)], corner="center right")

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
        _set_log_limits(self.p_loss.ax, both.min() / 1.5, both.max() * 1.5)
        self.keys[0].set_text(f"learning rate {run['lr']:.2g} (solid)")
        self.keys[1].set_text(f"learning rate {ref['lr']:.2g} (dashed)")
        self.p_dead.title.set_text(f"dead after {run['steps']} steps: {run['dead'][-1]:.0%}")
        self.p_loss.title.set_text(f"final loss {run['losses'][-1]:.3g}, accuracy {run['accuracy']:.0%}")

    def describe(self, s: dict) -> str:
        run, ref = s["run"], s["ref"]
        return (f"learning rate {run['lr']:.2g}, {run['steps']} steps: <b>{run['dead'][-1]:.0%}</b> of the "
                f"{self.hidden} hidden units dead, loss {run['losses'][-1]:.3g}, accuracy "
                f"{run['accuracy']:.0%} · at {ref['lr']:.2g}: {ref['dead'][-1]:.0%} dead, "
                f"loss {ref['losses'][-1]:.3g}")


# ----------------------------------------------------------------------------- helpers


def _numeric(value: Any) -> bool:
    try:
        arr = np.asarray(value)
    except Exception:
        return False
    return arr.dtype.kind in "biuf"


def _checked_activations(activations: Mapping[str, tuple[Callable, Callable]]) -> dict:
    missing = [a for a in ACTIVATION_NAMES if a not in activations]
    if missing:
        raise ValueError(f"activations must define {', '.join(ACTIVATION_NAMES)}; missing {missing}")
    return {a: tuple(activations[a]) for a in ACTIVATION_NAMES}


# ----------------------------------------------------------------------------- initialiser check


def _candidate_variances(fan_in: int, fan_out: int, expected: float) -> list[tuple[str, float, str]]:
    """(formula, variance, what it means) for the usual wrong answers."""
    s = fan_in + fan_out
    return [
        ("2/(fan_in + fan_out)", 2 / s, "Xavier/Glorot's variance"),
        ("2/fan_in", 2 / fan_in, "He's variance (for ReLU)"),
        ("1/fan_in", 1 / fan_in, "LeCun's variance: it keeps only the forward pass steady"),
        ("2/fan_out", 2 / fan_out, "fan_out where fan_in belongs"),
        ("1/fan_out", 1 / fan_out, "fan_out where fan_in belongs, and no 2"),
        ("1/(fan_in + fan_out)", 1 / s, "the Xavier formula without its 2"),
        ("6/(fan_in + fan_out)", 6 / s, "the square of the uniform bound a = √(6/(fan_in + fan_out)): "
         "U(−a, a) has variance a²/3, not a²"),
        ("6/fan_in", 6 / fan_in, "the square of He's uniform bound: U(−a, a) has variance a²/3"),
        ("(expected variance)²", expected**2, "the variance was used as the standard deviation: "
         "pass √variance as the scale"),
        ("√(expected variance)", math.sqrt(expected), "the square root was taken twice"),
        ("1", 1.0, "unscaled standard normal numbers"),
    ]


def check_init_variance(
    name: str,
    weights: Any,
    fan_in: int,
    fan_out: int,
    expected: float,
    formula: str,
    *,
    tol: float = 0.05,
) -> float:
    """Check an initialiser's output: shape (fan_in, fan_out), float64, mean ≈ 0, variance ≈ expected.

    Prints one ✓/✗ line with the sample variance, the expected one and how far apart they are
    (relative); on failure a hint names the formula the sample matches (1/fan_in, 2/fan_out,
    a variance used as the standard deviation, ...), then CheckFailed is raised.
    Inputs: name — shown in the line, e.g. "xavier_init(400, 100)"; weights — the array;
    fan_in, fan_out — the arguments; expected — the right variance; formula — how it is written
    (e.g. "2/(fan_in + fan_out)"); tol — largest accepted |variance/expected − 1|.
    Returns: the relative difference of the variances.
    """
    __tracebackhide__ = True
    want = fmt_shape((fan_in, fan_out))
    returned = weights
    verify_environment()
    weights = plain_ndarray(weights)  # the trusted path: plain data, whatever was returned
    if weights is None or weights.dtype.kind not in "iuf":
        return _fail(name, f"got {describe(returned)}, expected a float64 array of shape {want}",
                     "return the array (did you forget `return`?).")
    if weights.shape != (fan_in, fan_out):
        hint = ("it is transposed: the weights of a layer with fan_in inputs and fan_out outputs have "
                "shape (fan_in, fan_out), so that x @ W works for x of shape (N, fan_in).")
        if weights.shape != (fan_out, fan_in):
            hint = f"make it size=(fan_in, fan_out) = {want}."
        return _fail(name, f"shape {fmt_shape(weights.shape)}, expected {want}", hint)
    if weights.dtype != np.float64:
        return _fail(name, f"dtype {weights.dtype}, expected float64",
                     "draw float64 numbers (the default of rng.normal and rng.uniform).")
    if not np.all(np.isfinite(weights)):
        return _fail(name, "contains NaN or inf", "is a division by zero hiding in the scale?")
    n = weights.size
    mean = float(weights.mean())
    var = float(np.mean((weights - mean) ** 2))
    if abs(mean) > 6 * math.sqrt(var / n) + 1e-12:  # 6 standard errors of the sample's own mean
        return _fail(name, f"mean {mean:.3g}, expected about 0",
                     "weights must be centred on 0 (rng.normal(0, std, ...), or rng.uniform(-a, a, ...)).")
    off = abs(var / expected - 1)
    line = (f"{name}: variance {var:.4g}, expected {formula} = {expected:.4g} "
            f"(off by {off:.1%}, needs < {tol:.0%})")
    if off < tol:
        print(f"✓ {line}")
        return off
    hint = None
    for label, value, meaning in _candidate_variances(fan_in, fan_out, expected):
        distinct = label != formula and not math.isclose(value, expected, rel_tol=2 * tol)
        if distinct and abs(var / value - 1) < tol:
            hint = f"your variance matches {label} = {value:.4g}: {meaning}."
            break
    if hint is None:
        hint = (f"your variance is {var / expected:.3g} times the expected one. Draw with standard "
                f"deviation √({formula}), e.g. rng.normal(0.0, np.sqrt(...), size=(fan_in, fan_out)).")
    return _fail(name, line.replace(f"{name}: ", "", 1), hint)


def _fail(name: str, status: str, hint: str) -> float:
    __tracebackhide__ = True
    print(f"✗ {name}: {status}")
    print(f"    Hint: {hint}  [init-variance]")
    raise CheckFailed(f"{name}: {status} — {hint}")
