"""The one base of the lesson widgets: controls that redraw a picture, with a static picture
of the default state where no kernel runs.

A `LiveControls` as the last value of a cell shows

1. the picture of the controls' default values as a plain ``image/png`` output: what a
   notebook opened without a kernel (GitHub, nbviewer, nbconvert HTML, the rendered
   ``solutions/``) shows;
2. the controls, in an ipywidgets box.

Every change of a control's value (on release, unless ``continuous_update``) calls
``redraw()``, which puts the picture for the current values into the widget's *picture area*:

- `OutputArea`: an ipywidgets ``Output`` at the bottom of the box; the static picture stays
  above the controls as it was (``SliderPlot``, in live_plot.py);
- `InPlaceArea`: the static picture's own output, replaced through its ``display_id``, so
  there is one picture, never two (``LiveFigure``, in live_figure.py).

Pictures are PNG bytes: the same in every front end, without ipympl.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
from IPython.display import Image, display

from .. import figure_text
from ..figure_colours import legibility
from ..i18n import lesson_text as _
from ..referees import referee_all

__all__ = ["InPlaceArea", "LiveControls", "OutputArea", "widget_bundle"]


def widget_bundle(widget: widgets.Widget) -> dict[str, Any]:
    """The display data of `widget`: ipywidgets 8's ``_repr_mimebundle_()``, or, on ipywidgets 7
    (Colab's 7.7.1, which has no such method), the same data its ``_ipython_display_`` sends."""
    if hasattr(widget, "_repr_mimebundle_"):
        return widget._repr_mimebundle_()
    view = {"version_major": 2, "version_minor": 0, "model_id": widget.model_id}
    return {"text/plain": repr(widget), "application/vnd.jupyter.widget-view+json": view}


def _alt_metadata(alt: str, legibility: list[str] | None = None) -> dict[str, Any] | None:
    """Output metadata giving a PNG its text alternative (what nbconvert's HTML uses as alt) and,
    for the static picture, what `grader.figure_colours` found (the course's tests read it)."""
    if not alt:
        return None
    return {"image/png": {"alt": alt, **({"legibility": legibility} if legibility is not None else {})}}


class OutputArea:
    """The live picture inside an ``Output`` widget under the controls."""

    def __init__(self) -> None:
        self.widget: widgets.Output | None = widgets.Output()

    def display(self, show_controls: Callable[[], None], png: bytes, alt: str = "",
                legibility: list[str] | None = None) -> None:
        """Show the static picture (`alt`: its text alternative), then the controls (whose box holds
        the Output)."""
        display(Image(data=png), metadata=_alt_metadata(alt, legibility))
        if alt:  # JupyterLab and Colab show a PNG without its alt text
            display(figure_text.in_words(alt), raw=True)
        show_controls()

    def show(self, png: bytes, label: str, alt: str = "") -> None:
        """Replace the Output's picture; `label` is its text/plain form, `alt` its text alternative."""
        data = base64.b64encode(png).decode("ascii")
        # Setting `outputs` works from a widget callback and without a kernel alike.
        picture = {"image/png": data, "text/plain": label}
        self.widget.outputs = (
            {"output_type": "display_data", "data": picture, "metadata": _alt_metadata(alt) or {}},
        )


class InPlaceArea:
    """The static picture is the live one: a cell output with a display_id, updated in place."""

    def __init__(self) -> None:
        self.widget: widgets.Output | None = None
        self.handle: Any = None  # the picture's DisplayHandle, once shown
        self.words: Any = None  # the DisplayHandle of its Figure in words

    def display(self, show_controls: Callable[[], None], png: bytes, alt: str = "",
                legibility: list[str] | None = None) -> None:
        """Show the controls, then the picture and its Figure in words (JupyterLab and Colab show a
        PNG without its alt text) as outputs of their own that `show` replaces."""
        show_controls()
        self.handle = display(Image(data=png), display_id=True, metadata=_alt_metadata(alt, legibility))
        self.words = display(figure_text.in_words(alt), raw=True, display_id=True)

    def show(self, png: bytes, label: str, alt: str = "") -> None:
        """Replace the displayed picture and its words (nothing to do before they are displayed)."""
        if self.handle is not None:
            self.handle.update(Image(data=png), metadata=_alt_metadata(alt))
        if self.words is not None:
            self.words.update(figure_text.in_words(alt), raw=True)


class LiveControls:
    """Controls (name -> value widget) whose every change redraws one picture.

    Subclasses implement ``png()`` (the picture for the current values, PNG bytes) and call
    ``_make_box`` to lay the controls out. ``redraws`` counts the redraws since creation.
    """

    #: The box's text/plain form (None: ipywidgets' own `VBox(children=...)`).
    plain_text: str | None = None

    def __init__(
        self,
        controls: Mapping[str, widgets.ValueWidget],
        *,
        area: OutputArea | InPlaceArea,
        continuous_update: bool = False,
    ) -> None:
        self.controls = dict(controls)
        if not self.controls:
            raise ValueError(f"{type(self).__name__} needs at least one control, e.g. lr=FloatSlider()")
        self.area = area
        self.redraws = 0
        #: The picture in words (grader.figure_text) and the figure it was drawn from, set by
        #: `png()` where a subclass can tell them.
        self.alt = ""
        self.figure: Any = None
        for control in self.controls.values():
            if hasattr(control, "continuous_update"):
                control.continuous_update = continuous_update
            control.observe(self._on_change, names="value")

    def _make_box(
        self, below: Sequence[widgets.Widget], row: Mapping[str, Any] | None = None
    ) -> widgets.VBox:
        """VBox of: the controls in one HBox (`row`: its keyword arguments), `below`, the area's widget."""
        children = [widgets.HBox(list(self.controls.values()), **dict(row or {})), *below]
        if self.area.widget is not None:
            children.append(self.area.widget)
        self.box = widgets.VBox(children)
        return self.box

    # -- to implement
    def png(self) -> bytes:  # pragma: no cover - abstract
        """The picture for the controls' current values."""
        raise NotImplementedError

    # -- machinery
    def values(self) -> dict[str, Any]:
        """The controls' current values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def redraw(self) -> None:
        """Put the picture for the current values into the picture area."""
        self.show(self.png())

    def show(self, png: bytes) -> None:
        """Put `png` into the picture area and count the redraw."""
        self.area.show(png, f"<plot for {self.values()}>", self.alt)
        self.redraws += 1

    def _on_change(self, change: Any) -> None:
        self.redraw()

    def _show_controls(self) -> None:
        if self.plain_text is None:
            display(self.box)
            return
        display({**widget_bundle(self.box), "text/plain": _(self.plain_text)}, raw=True)
        if not hasattr(self.box, "_repr_mimebundle_"):  # ipywidgets 7 runs its on_displayed callbacks here
            self.box._handle_displayed()

    def _ipython_display_(self) -> None:
        png = self.png()  # the default state, kept in the saved notebook: with what
        # grader.figure_colours finds in it (for the course's tests; not redone at every redraw)
        legible = None if self.figure is None else legibility(self.figure)
        self.area.display(self._show_controls, png, self.alt, legible)


referee_all(globals())
