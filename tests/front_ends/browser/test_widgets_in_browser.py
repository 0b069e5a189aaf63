"""Lesson 07's widgets and lesson 01's instant feedback, in the student's JupyterLab.

The server, the scratch course and the browser are the fixtures of tests/front_ends/browser/conftest.py.
"""

from __future__ import annotations

import time

import pytest

from tests.front_ends.browser.lab_page import (
    move_slider,
    numbers,
    open_notebook,
    picture,
    prompts,
    run_all,
    wait_for_new_picture,
    widget_cell,
)
from tests.front_ends.browser.lab_server import ARTIFACTS, DERIVATIVES, GRADIENT_FLOW

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py


def test_lesson_07_runs_and_every_widget_redraws(page, lab):
    started = time.monotonic()
    open_notebook(page, lab, f"solutions/{GRADIENT_FLOW}/{GRADIENT_FLOW}.ipynb")
    run_all(page)
    states = prompts(page)
    # Run All stops at the first error, so a number in every prompt means no cell raised.
    assert all(p[1:-2].isdigit() for p in states), f"not every cell ran: {states}"
    page.screenshot(path=str(ARTIFACTS / "07_after_run_all.png"))

    for css_class, slider, presses in [("gf-saturation", 1, 1), ("gf-dead", 0, 1), ("gf-explorer", 0, 1)]:
        cell = widget_cell(page, css_class)
        cell.locator(".jp-RenderedImage img").first.wait_for()
        before_picture, before_numbers = picture(cell), numbers(cell)
        assert before_picture.startswith("data:image/png") or before_picture.startswith("blob:")
        assert "✗" not in before_numbers, f"{css_class}: {before_numbers}"
        cell.screenshot(path=str(ARTIFACTS / f"07_{css_class}_before.png"))
        move_slider(page, cell, slider, presses)
        wait_for_new_picture(page, css_class, before_picture)
        after_numbers = numbers(cell)
        assert picture(cell) != before_picture, f"{css_class}: the picture did not change"
        assert after_numbers != before_numbers, f"{css_class}: the numbers did not change"
        cell.screenshot(path=str(ARTIFACTS / f"07_{css_class}_after.png"))
    assert time.monotonic() - started < 150


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
