"""A live view drawn on one reused matplotlib Figure, and the drawing helpers of its panels.

A `LiveFigure` as the last value of a cell shows two outputs:

1. the controls and a line of numbers in an ipywidgets ``VBox``; its plain-text form says that
   the controls need a running kernel;
2. the picture, a plain ``image/png`` output with a ``display_id``, and the picture in words (a
   collapsed *Figure in words*: JupyterLab shows a PNG without its alt text), another. Without a
   kernel (GitHub, nbviewer, the rendered ``solutions/``) they are the default state's; with one,
   every change of a control recomputes, redraws and replaces those same outputs, so there is
   one picture, never two (``grader.lessons.widget_base.LiveControls`` with an ``InPlaceArea``).

Pictures are drawn on one reused matplotlib ``Figure`` (Agg, no pyplot) and sent as PNG bytes.
When a student function the view needs is unfinished or broken (`NotReady`), the picture is
that message instead. ``LiveFigure.time_updates`` measures compute + draw (CPU and wall-clock
time) for given control values without touching the display.
"""

from __future__ import annotations

import html
import io
import textwrap
import time
from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, MaxNLocator, NullLocator

from .. import figure_text
from ..i18n import N_
from ..i18n import lesson_text as _
from ..referees import referee_all
from .student_calls import NotReady
from .widget_base import InPlaceArea, LiveControls

__all__ = ["LiveFigure", "Panel", "readable", "set_log_limits", "set_log_line", "text_key"]

BLUE, ORANGE, GREY, RED = "#1f77b4", "#ff7f0e", "#7f7f7f", "#d62728"


class LiveFigure(LiveControls):
    """Controls that recompute and redraw one picture in place (see the module docstring).

    Subclasses define ``setup(fig)`` (make the axes and artists, once), ``compute(**values) ->
    state`` (may raise NotReady), ``draw(state)`` (update the artists; fast: no new axes) and
    ``describe(state) -> str`` (the numbers line, HTML).
    """

    #: Shown by front ends that cannot display widgets (instead of `VBox(children=...)`).
    plain_text = N_("[interactive controls: run the notebook in Jupyter to use them]")

    def __init__(
        self,
        controls: Mapping[str, widgets.ValueWidget],
        *,
        css_class: str,
        figsize: tuple[float, float],
        dpi: int = 72,
        continuous_update: bool = False,
    ) -> None:
        self.dpi = dpi
        self.fig = Figure(figsize=figsize, dpi=dpi)
        FigureCanvasAgg(self.fig)
        self.setup(self.fig)
        self._message = self.fig.text(0.5, 0.5, "", ha="center", va="center", fontsize=11,
                                      color=RED, visible=False)
        self.numbers = widgets.HTML()
        self.numbers.add_class("gf-numbers")
        super().__init__(controls, area=InPlaceArea(), continuous_update=continuous_update)
        self.figure = self.fig
        self._make_box([self.numbers], row={"layout": widgets.Layout(flex_flow="row wrap")})
        self.box.add_class("gf-live")
        self.box.add_class(css_class)
        self.last_ms: float | None = None

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
    @property
    def updates(self) -> int:
        """How many times a control's change redrew the picture."""
        return self.redraws

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
        self.alt = figure_text.describe(self.fig)
        return buf.getvalue(), text

    def png(self) -> bytes:
        """The picture for the current values; the numbers line is set to match (no timing)."""
        png, text = self.render()
        self.numbers.value = text  # no timing here: the saved notebook stays deterministic
        return png

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

    def redraw(self) -> None:
        """Recompute for the current values; replace the numbers (with the time taken) and the picture."""
        start = time.perf_counter()
        png, text = self.render()
        self.last_ms = (time.perf_counter() - start) * 1000
        self.numbers.value = f"{text} <span class='gf-ms'>· updated in {self.last_ms:.0f} ms</span>"
        self.show(png)

    update = redraw


# ----------------------------------------------------------------------------- panel helpers


class Panel:
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
        self.note = ax.text(0.5, 0.5, "", ha="center", va="center", fontsize=9, color=RED,
                            transform=ax.transAxes, wrap=True)

    def set_note(self, note: str | None) -> None:
        """Show `note` instead of the data (None: show the data)."""
        self.note.set_text(textwrap.fill(note, 42) if note else "")
        self.note.set_position((0.5, 0.5))
        for artist in self.ax.lines + self.ax.images + self.ax.collections + self.ax.patches:
            artist.set_visible(note is None)


def readable(colour: str) -> str:
    """`colour` darkened (same hue) until text in it has a contrast of at least 4.5:1 on white."""
    from matplotlib.colors import hsv_to_rgb, rgb_to_hsv, to_hex, to_rgb

    from ..figure_colours import TEXT_CONTRAST, contrast

    hsv = rgb_to_hsv(to_rgb(colour))
    while contrast(to_hex(hsv_to_rgb(hsv)), "white") < TEXT_CONTRAST:
        hsv[2] *= 0.95
    return to_hex(hsv_to_rgb(hsv))


def text_key(ax: Any, entries: list[tuple[str, str]], corner: str = "upper left") -> list[Any]:
    """A legend made of coloured text lines (a real legend costs tens of ms per frame).

    Inputs: entries — (label, colour) pairs, top to bottom (each label written in its colour,
    darkened where needed to be readable: `readable`); corner — "upper|center|lower left|right".
    Returns: the Text artists, in the order of `entries`.
    """
    right = corner.endswith("right")
    x = 0.97 if right else 0.03
    top = {"upper": 0.96, "center": 0.5 + 0.035 * len(entries), "lower": 0.06 + 0.07 * len(entries)}
    y0 = top[corner.split()[0]]
    box = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1}
    return [ax.text(x, y0 - 0.07 * i, label, color=readable(colour), fontsize=8,
                    ha="right" if right else "left",
                    va="top", transform=ax.transAxes, fontweight="bold", bbox=box)
            for i, (label, colour) in enumerate(entries)]


def set_log_limits(ax: Any, lo: float, hi: float) -> None:
    """Log-axis limits; a range under two decades gets ticks at 1, 2 and 5 of each decade."""
    lo = max(lo, 1e-300)
    hi = max(hi, lo * 10)
    ax.set_ylim(lo, hi)
    subs = (1.0, 2.0, 5.0) if hi / lo < 100 else (1.0,)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs, numticks=7))


def set_log_line(panel: Panel, line: Any, x: np.ndarray, y: np.ndarray) -> None:
    """Put y (> 0) on a log axis; entries at 0 or overflowed are left out and counted in the note."""
    ok = np.isfinite(y) & (y > 0)
    line.set_data(x[ok], y[ok])
    ax = panel.ax
    ax.set_xlim(0.5, len(x) + 0.5)
    if ok.any():
        set_log_limits(ax, float(y[ok].min()) / 3, float(y[ok].max()) * 3)
    bad = int((~ok).sum())
    panel.note.set_text(_("{bad} layer(s) at 0 or overflowed").format(bad=bad) if bad else "")
    panel.note.set_position((0.5, 0.08))


referee_all(globals())
