"""Lesson 07's widgets and lesson 01's instant feedback, in the student's JupyterLab.

The server, the scratch course and the browser are the fixtures of tests/front_ends/browser/conftest.py.
"""

from __future__ import annotations

import time

import pytest

from grader.i18n import catalogue
from tests.front_ends.accessibility.axe import audit, blocking, described
from tests.front_ends.accessibility.upstream import upstream_of
from tests.front_ends.browser.keyboard import walk
from tests.front_ends.browser.lab_page import numbers, open_notebook, prompts, run_all, widget_cell
from tests.front_ends.browser.lab_server import ARTIFACTS, DERIVATIVES, GRADIENT_FLOW

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py


# Every image that JupyterLab draws without alt text (it ignores the output's metadata) and the
# "Figure in words" that follows it in the same output area: [has words] per image.
_IMAGES_WITHOUT_ALT = """summary => [
    ...document.querySelectorAll('.jp-Notebook .jp-RenderedImage img:not([alt])')].map(img => {
        const area = img.closest('.jp-Cell-outputArea');
        return !!area && [...area.querySelectorAll('details summary')]
            .some(s => s.textContent.includes(summary));
    })"""


def audit_the_lesson_content(page, contrast: bool = True, language: str = "en") -> None:
    """axe-core on the open notebook: no serious or critical violation of the course's own; each
    one that belongs to JupyterLab or ipywidgets is listed in tests/front_ends/accessibility/upstream.py.
    Every image has its Figure in words (in the notebook's `language`)."""
    own = [{**v, "nodes": [n for n in v["nodes"] if upstream_of(v["id"], n) is None]}
           for v in blocking(audit(page, context=".jp-NotebookPanel", contrast=contrast))]
    own = [v for v in own if v["nodes"]]
    assert not own, "axe-core in JupyterLab, the lesson's own violations:\n" + described(own)
    words = page.evaluate(_IMAGES_WITHOUT_ALT, catalogue("grader", language).gettext("Figure in words"))
    assert words and all(words), f"an image without alt text and without its Figure in words: {words}"


def test_lesson_07_runs_and_every_widget_redraws(page, lab):
    """Run All; axe-core on what the lesson shows; then a keyboard-only walk through every control
    of its three widgets, reading the readout after each change."""
    started = time.monotonic()
    open_notebook(page, lab, f"solutions/{GRADIENT_FLOW}/{GRADIENT_FLOW}.ipynb")
    run_all(page)
    states = prompts(page)
    # Run All stops at the first error, so a number in every prompt means no cell raised.
    assert all(p[1:-2].isdigit() for p in states), f"not every cell ran: {states}"
    page.screenshot(path=str(ARTIFACTS / "07_after_run_all.png"))

    audit_the_lesson_content(page)
    for css_class, controls in [("gf-saturation", 2), ("gf-dead", 2), ("gf-explorer", 5)]:
        cell = widget_cell(page, css_class)
        cell.locator(".jp-RenderedImage img").first.wait_for()
        before_numbers = numbers(cell)
        assert "✗" not in before_numbers, f"{css_class}: {before_numbers}"
        cell.screenshot(path=str(ARTIFACTS / f"07_{css_class}_before.png"))
        seen = walk(page, cell, css_class)
        # every control the keyboard reaches changes the picture and the readout; σ is disabled
        # (it is the explorer's only when its initialisation is N(0, σ²)), so Tab passes it
        assert len(seen) == controls, f"{css_class}: the keyboard reached {[k for k, _ in seen]}"
        readouts = [before_numbers] + [text for _, text in seen]
        assert all(a != b for a, b in zip(readouts, readouts[1:], strict=False)), f"{css_class}: {readouts}"
        assert all("✗" not in text for text in readouts), readouts
        cell.screenshot(path=str(ARTIFACTS / f"07_{css_class}_after.png"))
    assert time.monotonic() - started < 240


_CORRECT_DERIVATIVE = '''def numerical_derivative(f, x, h=1e-5):
    """Centred difference, typed in by the browser test."""
    return (f(x + h) - f(x - h)) / (2 * h)
'''

_SET_SOURCE = """([marker, source]) => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    const cell = notebook.widgets.find(c => c.model.sharedModel.getSource().includes(marker));
    if (!cell) { return false; }
    cell.model.sharedModel.setSource(source);
    return true;
}"""


def test_an_exercise_gives_instant_feedback(page, lab):
    open_notebook(page, lab, f"exercises/{DERIVATIVES}/{DERIVATIVES}.ipynb")
    solution = page.locator(".jp-CodeCell").filter(has_text="def numerical_derivative")
    assert "NotImplementedError" in solution.first.inner_text(), "this is not the student release"
    assert page.evaluate(_SET_SOURCE, ["def numerical_derivative", _CORRECT_DERIVATIVE])
    solution.first.scroll_into_view_if_needed()
    run_all(page)  # runs until the first unfinished exercise raises
    test_cell = page.locator(".jp-CodeCell").filter(has_text="Does numerical_derivative measure slopes")
    feedback = test_cell.first.locator(".jp-OutputArea").inner_text()
    assert "✓ slope of x^2 - 4x at x = 3.5" in feedback, feedback
    assert "✗" not in feedback, feedback
    unfinished = page.locator(".jp-OutputArea-output").filter(has_text="NotImplementedError")
    assert unfinished.count() >= 1, "the next exercise should still report NotImplementedError"
    test_cell.first.screenshot(path=str(ARTIFACTS / "01_feedback.png"))
