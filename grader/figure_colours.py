"""Whether a figure tells its lines, bars and texts apart for every reader.

Two checks on a matplotlib figure's own artists, run with its description (`grader.figure_text`):

- **colour alone**: two lines of one panel drawn with the same line style and marker differ by
  colour only; they must stay apart for the common colour-vision deficiencies too. Each colour is
  simulated for protanopia, deuteranopia and tritanopia (Machado, Oliveira & Fernandes 2009,
  severity 1, on linear RGB) and the pair's smallest CIELAB distance (CIE76 ΔE) over normal
  vision and the three simulations must reach `LOOK_ALIKE`;
- **text contrast**: every visible text (titles, labels, ticks, notes) against its panel's (or the
  figure's) background: at least 4.5:1, WCAG's AA for normal text.

    problems(fig) -> list[str]    # empty when the figure passes both
    legibility(fig) -> list[str]  # the same, never raising (run as a kernel displays a figure)
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
from matplotlib.colors import to_rgb

#: Machado et al. (2009), severity 1.0: linear RGB -> linear RGB as the dichromat sees it.
SIMULATIONS = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
#: Below this ΔE (CIE76) two thin lines of the same style read as one colour.
LOOK_ALIKE = 12.0
#: WCAG 2.1 AA, normal text.
TEXT_CONTRAST = 4.5


def _linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _lab(linear: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of a linear-RGB colour."""
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    ratio = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(ratio > (6 / 29) ** 3, np.cbrt(ratio), ratio / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def distance(colour_a: Any, colour_b: Any) -> tuple[float, str]:
    """(smallest ΔE, the vision it is smallest for) between two matplotlib colours."""
    a, b = _linear(np.array(to_rgb(colour_a))), _linear(np.array(to_rgb(colour_b)))
    seen = {"normal vision": (a, b)}
    seen.update({name: (np.clip(m @ a, 0, 1), np.clip(m @ b, 0, 1)) for name, m in SIMULATIONS.items()})
    return min((float(np.linalg.norm(_lab(x) - _lab(y))), name) for name, (x, y) in seen.items())


def contrast(colour_a: Any, colour_b: Any) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    def luminance(colour: Any) -> float:
        return float(np.array([0.2126, 0.7152, 0.0722]) @ _linear(np.array(to_rgb(colour))))

    high, low = sorted((luminance(colour_a), luminance(colour_b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _style(line: Any) -> tuple:
    return (line.get_linestyle(), line.get_marker() if line.get_marker() not in (None, "None", "") else "")


def _colour_alone(ax: Any, panel: int) -> list[str]:
    lines = [ln for ln in ax.get_lines() if ln.get_visible() and len(ln.get_xdata()) > 1]
    found = []
    for one, two in combinations(lines, 2):
        if _style(one) != _style(two) or to_rgb(one.get_color()) == to_rgb(two.get_color()):
            continue
        gap, vision = distance(one.get_color(), two.get_color())
        if gap < LOOK_ALIKE:
            found.append(f"panel {panel}: lines “{one.get_label()}” and “{two.get_label()}” differ by colour "
                         f"only and look alike with {vision} (ΔE {gap:.1f} < {LOOK_ALIKE:g})")
    return found


def _texts(fig: Any) -> list[tuple[Any, Any]]:
    """(text, background colour) for every visible, non-empty text of the figure."""
    found = [(t, fig.get_facecolor()) for t in fig.texts]
    for ax in fig.axes:
        background = ax.get_facecolor() if ax.patch.get_visible() else fig.get_facecolor()
        texts = [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        texts += ax.get_xticklabels() + ax.get_yticklabels()
        legend = ax.get_legend()
        if legend is not None:
            texts += legend.get_texts()
        found += [(t, background) for t in texts]
    return [(t, bg) for t, bg in found if t.get_visible() and t.get_text().strip()]


def problems(fig: Any) -> list[str]:
    """What keeps `fig` from being read by everyone (see the module docstring); [] when nothing."""
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    found = [p for i, ax in enumerate(panels, 1) for p in _colour_alone(ax, i)]
    for text, background in _texts(fig):
        box = text.get_bbox_patch()
        behind = box.get_facecolor() if box is not None else background
        ratio = contrast(text.get_color(), behind)
        if ratio < TEXT_CONTRAST:
            found.append(f"text “{text.get_text()[:40]}” has contrast {ratio:.1f}:1 < {TEXT_CONTRAST:g}:1")
    return found


def legibility(fig: Any) -> list[str]:
    """`problems(fig)`, never raising: what a picture's output metadata carries (`legibility`),
    for the course's tests; a figure it cannot read gets one line saying so."""
    try:
        return problems(fig)
    except Exception as err:  # noqa: BLE001 - a check must never break the student's cell
        return [f"not checked: {type(err).__name__}"]
