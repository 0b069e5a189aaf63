"""axe-core violations in JupyterLab that are not the course's to fix, each with its upstream issue.

The audit of a lesson in the student's JupyterLab (tests/front_ends/browser/test_accessibility_in_lab.py)
fails on every serious or critical violation that no entry here matches. An entry names the rule,
a piece of the element's HTML that places it in JupyterLab's or ipywidgets' own markup, where it
is tracked, and what the course offers meanwhile.
"""

from __future__ import annotations

from typing import NamedTuple


class Upstream(NamedTuple):
    rule: str
    element: str  # a substring of the offending element's HTML or of axe's CSS path to it
    issue: str
    meanwhile: str


KNOWN = (
    Upstream("image-alt", ".jp-RenderedImage", "https://github.com/jupyter/enhancement-proposals/issues/120",
             "JupyterLab 4 draws an output's PNG without the alt text its metadata carries; every "
             "figure is followed by a collapsed 'Figure in words' (checked by the audit)"),
    Upstream("aria-input-field-name", 'class="cm-content"', "https://github.com/jupyter/notebook/issues/6671",
             "CodeMirror's editor has no accessible name"),
    Upstream("aria-input-field-name", 'class="noUi-handle', "https://github.com/jupyter-widgets/ipywidgets/issues/2650",
             "ipywidgets' slider handle is not tied to its description; each widget's readout says "
             "every value in words and the keyboard moves every slider (checked by the keyboard walk)"),
    Upstream("scrollable-region-focusable", 'class="cm-scroller', "https://github.com/jupyterlab/jupyterlab/issues/16890",
             "a code cell's scroller is not focusable; its editor is"),
    Upstream("aria-required-children", 'role="feed"', "https://github.com/jupyterlab/jupyterlab/issues/16890",
             "the notebook's cell list is a feed whose cells lack the article role"),
    Upstream("button-name", "jp-collapseHeadingButton", "https://github.com/jupyterlab/jupyterlab/issues/16890",
             "a heading's collapse button has no name"),
    Upstream("aria-prohibited-attr", 'Cell Content"', "https://github.com/jupyterlab/jupyterlab/issues/13704",
             "a notebook cell is a div with an aria-label and no role, which ARIA does not allow"),
    Upstream("aria-allowed-attr", "<jp-button", "https://github.com/jupyterlab/jupyterlab/issues/16891",
             "toolbar buttons carry aria-pressed on a role that does not allow it"),
)


def upstream_of(rule: str, node: dict) -> Upstream | None:
    """The known upstream issue that axe's `node` (a violating element: its "html", its "target"
    path) belongs to, or None: the course's own."""
    where = node.get("html", "") + " " + " ".join(node.get("target", []))
    return next((k for k in KNOWN if k.rule == rule and k.element in where), None)
