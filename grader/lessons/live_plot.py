"""A plot redrawn by sliders that still shows a picture where no kernel runs.

``SliderPlot(draw, lr=FloatLogSlider(...), steps=IntSlider(...))`` as a cell's last value
shows two things:

1. a static PNG of ``draw(**defaults)``, a plain cell output: it is what a notebook opened
   without a kernel (GitHub, nbconvert HTML, the rendered ``solutions/``) shows;
2. the sliders, the plot in words (`readout`, also each picture's alt text: computed from the
   figure by ``grader.figure_text``) and an ``Output`` widget under them; moving a slider (on release:
   ``continuous_update`` is switched off, since a redraw may train a model) draws
   ``draw(**current values)`` into that Output.

``draw`` returns a matplotlib ``Figure``; make it with ``matplotlib.figure.Figure()``
rather than ``plt.figure()`` so that the inline backend does not show it a second time
(a pyplot figure is closed after rendering, so either works). Pictures are embedded as
PNG bytes: the same in every front end, without ipympl. The controls -> redraw machinery is
``grader.lessons.widget_base.LiveControls`` with an ``OutputArea``.
"""

from __future__ import annotations

import html
import io
from collections.abc import Callable, Mapping

import ipywidgets as widgets
from matplotlib.figure import Figure

from .. import figure_text
from ..i18n import N_
from ..i18n import lesson_text as _
from ..referees import referee_all
from .widget_base import LiveControls, OutputArea

#: The caption under the controls when a view gives none.
CAPTION = N_("Move a slider: the plot for your values appears below.")

__all__ = ["SliderPlot", "figure_png"]


def figure_png(fig: Figure, dpi: int = 100) -> bytes:
    """The figure as PNG bytes; a pyplot-managed figure is closed afterwards."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    if getattr(fig, "number", None) is not None:  # registered with pyplot
        import matplotlib.pyplot as plt

        plt.close(fig)
    return buf.getvalue()


class SliderPlot(LiveControls):
    """Controls (name -> value widget) whose values are ``draw``'s keyword arguments.

    Inputs: draw — (**values) -> Figure; controls and named_controls — name -> value widget
    (together at least one); caption — shown between the controls and the plot; dpi — of the PNGs.
    """

    def __init__(
        self,
        draw: Callable[..., Figure],
        controls: Mapping[str, widgets.ValueWidget] | None = None,
        *,
        caption: str = CAPTION,
        dpi: int = 100,
        **named_controls: widgets.ValueWidget,
    ):
        super().__init__({**dict(controls or {}), **named_controls}, area=OutputArea())
        self.draw = draw
        self.dpi = dpi
        self.caption = widgets.HTML(f"<i>{_(caption)}</i>")
        #: The plot in words, for the controls' current values (grader.figure_text).
        self.readout = widgets.HTML()
        self.readout.add_class("plot-in-words")
        self.output = self.area.widget
        self._make_box([self.caption, self.readout])

    def png(self) -> bytes:
        """The plot for the controls' current values; the readout and the alt text say it in words."""
        fig = self.draw(**self.values())
        self.alt = figure_text.describe(fig)
        self.figure = fig
        self.readout.value = html.escape(self.alt)
        return figure_png(fig, dpi=self.dpi)


referee_all(globals())
