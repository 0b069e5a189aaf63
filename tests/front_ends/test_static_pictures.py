"""Every widget in a solved notebook has a static picture beside it.

Where widgets cannot run (GitHub's preview, nbviewer, a print-out, a front-end without the
widget manager) the solved notebook must still show what the widget shows at its default
setting: every code cell of solutions/ whose outputs hold a widget view also holds a PNG.
"""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from tests.nbgrader_harness import REPO

WIDGET = "application/vnd.jupyter.widget-view+json"


def _kinds(cell) -> set[str]:
    return {kind for out in cell.get("outputs", []) for kind in out.get("data", {})}


@pytest.mark.parametrize("name", assignments())
def test_every_widget_has_a_static_picture(name: str) -> None:
    nb = nbformat.read(REPO / "solutions" / name / f"{name}.ipynb", as_version=4)
    widgets = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and WIDGET in _kinds(c)]
    bare = [i for i in widgets if "image/png" not in _kinds(nb.cells[i])]
    assert not bare, f"solutions/{name}: the widgets of cells {bare} have no static picture (image/png)"


def test_the_interactive_lessons_have_widgets() -> None:
    """The check above is not vacuous: the lessons the README calls interactive show widgets."""
    for name in ("07_gradient_flow", "08_deep_nets", "09_convolution", "11_lstm"):
        nb = nbformat.read(REPO / "solutions" / name / f"{name}.ipynb", as_version=4)
        assert any(WIDGET in _kinds(c) for c in nb.cells if c.cell_type == "code"), name
