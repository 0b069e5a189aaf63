"""Every figure a lesson shows, described in words from the data it plots.

A screen reader cannot read a PNG. When a lesson displays a matplotlib figure in a kernel, the
toolkit attaches a text description computed from the figure's own artists (titles, axes and
their scales, each line's start, end and extremes, bars, scatter clouds, images, the texts
written on it and its arrows): as the image's `alt` in the output metadata (what nbconvert's
HTML and nbviewer read), and as a collapsed "Figure in words" below the figure's cell output
(JupyterLab 4 and Colab ignore the metadata). Nothing is written by hand, so nothing can go stale.

    describe(fig) -> str          # the description, in the student's language
    install(shell)                # done once, when `grader` is imported in a kernel
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.i18n import _

#: Descriptions of the figures displayed by the running cell, shown when it ends (post_execute).
_PENDING: list[str] = []
#: At most this many lines, bars or texts are described per panel (the rest are counted).
MOST = 8


def _number(value: float) -> str:
    return f"{value:.3g}"


def _finite(values: Any) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.array([])
    return array[np.isfinite(array)]


def _axis(axes, which: str) -> str | None:
    """'x axis “step”, log scale' (None for an axis without a label on a linear scale)."""
    label = (axes.get_xlabel() if which == "x" else axes.get_ylabel()).strip()
    scale = axes.get_xscale() if which == "x" else axes.get_yscale()
    if not label and scale == "linear":
        return None
    text = _("x axis") if which == "x" else _("y axis")
    if label:
        text += f" “{label}”"
    if scale != "linear":
        text += ", " + (_("log scale") if scale == "log" else _("{scale} scale").format(scale=scale))
    return text


def _in_data(line) -> tuple[bool, bool]:
    """Whether the line's x and y are data coordinates (axhline's x and axvline's y are fractions
    of the axes)."""
    axes = line.axes
    if axes is None:
        return True, True
    return line.get_transform().contains_branch_seperately(axes.transData)


def _line(line, index: int) -> str | None:
    x, y = np.asarray(line.get_xdata(), dtype=object), np.asarray(line.get_ydata(), dtype=object)
    try:
        x, y = x.astype(float).ravel(), y.astype(float).ravel()
    except (TypeError, ValueError):
        return None
    keep = np.isfinite(x) & np.isfinite(y) if x.shape == y.shape else np.isfinite(y)
    if x.shape != y.shape or not keep.any():
        return None
    x, y = x[keep], y[keep]
    label = line.get_label()
    named = label and not label.startswith("_")
    name = _("line “{label}”").format(label=label) if named else _("line {i}").format(i=index)
    x_in_data, y_in_data = _in_data(line)
    if not x_in_data and y_in_data and np.ptp(y) == 0:  # axhline: x runs over the axes' width
        return _("{name}: horizontal, at {y}").format(name=name, y=_number(y[0]))
    if x_in_data and not y_in_data and np.ptp(x) == 0:  # axvline
        return _("{name}: vertical, at {x}").format(name=name, x=_number(x[0]))
    if len(y) == 1:
        return _("{name}: one point, {y} at {x}").format(name=name, y=_number(y[0]), x=_number(x[0]))
    if np.ptp(y) == 0:
        return _("{name}: flat at {y}, from {x0} to {x1}").format(
            name=name, y=_number(y[0]), x0=_number(x[0]), x1=_number(x[-1]))
    text = _("{name}: {n} points, from {y0} at {x0} to {y1} at {x1}").format(
        name=name, n=len(y), y0=_number(y[0]), x0=_number(x[0]), y1=_number(y[-1]), x1=_number(x[-1]))
    low, high = int(np.argmin(y)), int(np.argmax(y))
    if low not in (0, len(y) - 1):
        text += "; " + _("lowest {y} at {x}").format(y=_number(y[low]), x=_number(x[low]))
    if high not in (0, len(y) - 1):
        text += "; " + _("highest {y} at {x}").format(y=_number(y[high]), x=_number(x[high]))
    return text


def _bars(container, axes) -> str | None:
    heights = [p.get_height() for p in container.patches]
    if not heights:
        return None
    label = container.get_label()
    name = f"“{label}”" if label and not label.startswith("_") else _("bars")
    ticks = [t.get_text() for t in axes.get_xticklabels() if t.get_text()]
    values = [_number(h) for h in heights[:MOST]]
    if len(ticks) == len(heights):
        values = [f"{tick} {value}" for tick, value in zip(ticks, values, strict=False)]
    more = len(heights) - MOST
    tail = (", " + _("and {n} more").format(n=more)) if more > 0 else ""
    return _("{name}: {values}").format(name=name, values=", ".join(values) + tail)


def _cloud(collection, index: int) -> str | None:
    offsets = np.asarray(collection.get_offsets(), dtype=float)
    if offsets.ndim != 2 or offsets.shape[0] < 2:
        return None
    label = collection.get_label()
    name = f"“{label}”" if label and not label.startswith("_") else _("points {i}").format(i=index)
    x, y = _finite(offsets[:, 0]), _finite(offsets[:, 1])
    if not len(x) or not len(y):
        return None
    return _("{name}: {n} points, x from {x0} to {x1}, y from {y0} to {y1}").format(
        name=name, n=offsets.shape[0], x0=_number(x.min()), x1=_number(x.max()),
        y0=_number(y.min()), y1=_number(y.max()))


def _image(image) -> str | None:
    values = np.asarray(image.get_array())
    finite = _finite(values)
    if values.ndim < 2 or not len(finite):
        return None
    return _("an image of {rows} × {cols} values from {low} to {high}").format(
        rows=values.shape[0], cols=values.shape[1], low=_number(finite.min()), high=_number(finite.max()))


def _arrow(text, index: int) -> str | None:
    """An annotation drawn with an arrow (ax.annotate(..., arrowprops=...)): its name (label or
    text) and where it points, from where, in data coordinates (None for any other text)."""
    from matplotlib.text import Annotation

    if not isinstance(text, Annotation) or text.arrow_patch is None:
        return None
    label, words = text.get_label(), text.get_text().strip()
    if label and not label.startswith("_"):
        name = _("arrow “{label}”").format(label=label)
    elif words:
        name = _("arrow “{label}”").format(label=words)
    else:
        name = _("arrow {i}").format(i=index)
    head, tail = _finite(text.xy), _finite(text.xyann)
    if text.xycoords != "data" or len(head) != 2:
        return name
    if text.anncoords == "data" and len(tail) == 2:
        return _("{name}: from ({x0}, {y0}) to ({x1}, {y1})").format(
            name=name, x0=_number(tail[0]), y0=_number(tail[1]), x1=_number(head[0]), y1=_number(head[1]))
    return _("{name}: pointing at ({x}, {y})").format(name=name, x=_number(head[0]), y=_number(head[1]))


def _panel(axes, index: int, panels: int) -> str:
    head = _("Panel {i}").format(i=index) if panels > 1 else _("One plot")
    title = axes.get_title().strip()
    head += (f" “{title}”" if title else "") + ":"
    parts = []
    axis_text = [text for text in (_axis(axes, "x"), _axis(axes, "y")) if text] if axes.axison else []
    if axis_text:
        parts.append("; ".join(axis_text))
    items = [_line(line, i) for i, line in enumerate(axes.get_lines(), 1)]
    items += [_bars(c, axes) for c in axes.containers if hasattr(c, "patches")]
    items += [_cloud(c, i) for i, c in enumerate(axes.collections, 1) if hasattr(c, "get_offsets")]
    items += [_image(image) for image in axes.get_images()]
    drawn = [t for t in axes.texts if getattr(t, "arrow_patch", None) is not None]  # numbered apart
    arrows = [_arrow(t, drawn.index(t) + 1 if t in drawn else 0) for t in axes.texts]
    items += [arrow or f"“{t.get_text().strip()}”" for t, arrow in zip(axes.texts, arrows, strict=True)
              if arrow or t.get_text().strip()]
    items = [item for item in items if item]
    if len(items) > MOST:
        items = items[:MOST] + [_("and {n} more").format(n=len(items) - MOST)]
    sentences = [text if i == 0 else text[:1].upper() + text[1:] for i, text in enumerate(parts + items)]
    return head + " " + ". ".join(sentences) if sentences else head.rstrip(":")


def describe(fig) -> str:
    """The figure in words: its title, then each panel (axes, lines, bars, points, images, texts,
    arrows).

    Colour bars are left out (their range is the image's). Never raises: a figure it cannot
    read is described by its number of panels.
    """
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    try:
        title = fig.get_suptitle().strip()
        text = [_("Figure “{title}”").format(title=title)] if title else []
        text += [_panel(ax, i, len(panels)) for i, ax in enumerate(panels, 1)]
        return ". ".join(text) + "."
    except Exception:  # noqa: BLE001 - a description must never break the student's cell
        return _("A figure with {n} panels.").format(n=len(panels))


def _alt_text(fig) -> tuple[dict, dict]:
    """IPython mimebundle formatter: no data of its own, the image's alt text as metadata (the
    PNG itself still comes from IPython's image/png formatter), and what a reader with a colour-
    vision deficiency or a low-contrast text would miss (`legibility`: [] when nothing; for the
    course's tests, not shown to students)."""
    text = describe(fig)
    _PENDING.append(text)
    from grader.figure_colours import legibility

    return {}, {"image/png": {"alt": text, "legibility": legibility(fig)}}


def in_words(text: str) -> dict[str, str]:
    """`text`, a figure's description, as the display data of a collapsed *Figure in words*
    (markdown, and plain text where markdown is not shown)."""
    summary = _("Figure in words")
    return {"text/markdown": f"<details><summary>{summary}</summary>\n\n{text}\n\n</details>",
            "text/plain": f"{summary}: {text}"}


def describe_after_cell(text: str) -> None:
    """Show `text`, the description of a picture the running cell displays, as a collapsed
    *Figure in words* when the cell ends (for pictures that are not matplotlib figures)."""
    _PENDING.append(text)


def _show_descriptions() -> None:
    """After a cell: each figure it displayed, in words, collapsed below its output."""
    if not _PENDING:
        return
    from IPython.display import display

    texts = list(_PENDING)
    del _PENDING[:]
    for text in texts:
        display(in_words(text), raw=True)


def install(shell=None) -> None:
    """Describe every figure `shell` (by default the running IPython, if any) displays. Idempotent."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    from matplotlib.figure import Figure

    bundles = shell.display_formatter.mimebundle_formatter
    bundles.for_type(Figure, _alt_text)
    if _show_descriptions not in shell.events.callbacks["post_execute"]:
        shell.events.register("post_execute", _show_descriptions)
