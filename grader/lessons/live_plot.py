"""A plot redrawn by sliders that still shows a picture where no kernel runs.

``SliderPlot(draw, lr=FloatLogSlider(...), steps=IntSlider(...))`` as a cell's last value
shows two things:

1. a static PNG of ``draw(**defaults)``, a plain cell output: it is what a notebook opened
   without a kernel (GitHub, nbconvert HTML, the rendered ``solutions/``) shows;
2. the sliders and an ``Output`` widget under them; moving a slider (on release:
   ``continuous_update`` is switched off, since a redraw may train a model) draws
   ``draw(**current values)`` into that Output.

``draw`` returns a matplotlib ``Figure``; make it with ``matplotlib.figure.Figure()``
rather than ``plt.figure()`` so that the inline backend does not show it a second time
(a pyplot figure is closed after rendering, so either works). Pictures are embedded as
PNG bytes: the same in every front end, without ipympl.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Mapping

import ipywidgets as widgets
from IPython.display import Image, display
from matplotlib.figure import Figure

__all__ = ["SliderPlot", "figure_png"]


def figure_png(fig: Figure, dpi: int = 100) -> bytes:
    """The figure as PNG bytes; a pyplot-managed figure is closed afterwards."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    if getattr(fig, "number", None) is not None:  # registered with pyplot
        import matplotlib.pyplot as plt

        plt.close(fig)
    return buf.getvalue()


class SliderPlot:
    """Controls (name -> value widget) whose values are ``draw``'s keyword arguments."""

    def __init__(
        self,
        draw: Callable[..., Figure],
        controls: Mapping[str, widgets.ValueWidget] | None = None,
        *,
        caption: str = "Move a slider: the plot for your values appears below.",
        dpi: int = 100,
        **named_controls: widgets.ValueWidget,
    ):
        self.draw = draw
        self.controls = {**dict(controls or {}), **named_controls}
        if not self.controls:
            raise ValueError("SliderPlot needs at least one control, e.g. lr=FloatSlider()")
        self.dpi = dpi
        self.redraws = 0
        for control in self.controls.values():
            if hasattr(control, "continuous_update"):
                control.continuous_update = False
            control.observe(self._on_change, names="value")
        self.caption = widgets.HTML(f"<i>{caption}</i>")
        self.output = widgets.Output()
        self.box = widgets.VBox([widgets.HBox(list(self.controls.values())), self.caption, self.output])

    def values(self) -> dict:
        return {name: control.value for name, control in self.controls.items()}

    def png(self) -> bytes:
        """The plot for the controls' current values."""
        return figure_png(self.draw(**self.values()), dpi=self.dpi)

    def redraw(self) -> None:
        """Replace the Output widget's picture with the one for the current values."""
        data = base64.b64encode(self.png()).decode("ascii")
        # Setting `outputs` works from a widget callback and without a kernel alike.
        self.output.outputs = (
            {
                "output_type": "display_data",
                "data": {"image/png": data, "text/plain": f"<plot for {self.values()}>"},
                "metadata": {},
            },
        )
        self.redraws += 1

    def _on_change(self, change) -> None:
        self.redraw()

    def _ipython_display_(self) -> None:
        display(Image(data=self.png()))  # the default state, kept in the saved notebook
        display(self.box)
