"""What a student and an instructor see when JupyterLab opens, and the widgets in Notebook 7.

- The student's JupyterLab (`make lab`, Binder) opens on the lesson, asks nothing about Jupyter
  news, and has none of nbgrader's instructor tools, neither in the page nor on the server.
- The instructor's (`make instructor`) has them. The same page, with JupyterLab's own default for
  the news setting put back, does show the news question: the check that finds no question in the
  student's page would have found one.
- Notebook 7, served by the same server, renders a lesson widget and redraws it.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from tests.front_ends.browser.lab_page import KERNEL_IDLE, command, drag_slider, picture, wait_for_new_picture
from tests.front_ends.browser.lab_server import ARTIFACTS, DERIVATIVES, http_status, page_config, running_lab

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py

INSTRUCTOR_PLUGINS = ["@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                      "@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:course-list",
                      "@jupyter/nbgrader:menu"]
NEWS_QUESTION = "official Jupyter news"
NOTIFICATION_SETTINGS = "/lab/api/settings/@jupyterlab/apputils-extension:notification"

# Resolves once JupyterLab has restored its layout, which is when it asks about news.
_RESTORED = "async () => { await window.jupyterapp.restored; return true; }"
_HAS_PLUGINS = "ids => ids.map(id => window.jupyterapp.hasPlugin(id))"
_MENU_BAR = "() => [...document.querySelectorAll('.lm-MenuBar-itemLabel')].map(m => m.textContent)"


def _composite(url: str, path: str) -> dict:
    """One plugin's settings as the page composes them: the schema's defaults, with the server's
    overrides applied to them, under the user's own settings."""
    with urllib.request.urlopen(url + path, timeout=10) as response:
        answer = json.load(response)
    defaults = {key: spec.get("default") for key, spec in answer["schema"]["properties"].items()}
    return {**defaults, **answer["settings"]}


def _news_question_shown(page, wait_ms: int) -> bool:
    try:
        page.get_by_text(NEWS_QUESTION).first.wait_for(state="visible", timeout=wait_ms)
        return True
    except Exception:  # playwright's TimeoutError
        return False


def test_student_lab_opens_on_the_lesson_without_news_or_instructor_tools(page, lab):
    page.goto(lab["url"] + "/")  # where `make lab` sends the browser
    page.wait_for_function(KERNEL_IDLE, timeout=90_000, polling=250)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context.path") == (
        f"exercises/{DERIVATIVES}/{DERIVATIVES}.ipynb")
    assert page.evaluate(_RESTORED)
    assert _composite(lab["url"], NOTIFICATION_SETTINGS)["fetchNews"] == "false"
    assert not _news_question_shown(page, 1_000), "the student was asked about Jupyter news"
    assert page.evaluate(_HAS_PLUGINS, INSTRUCTOR_PLUGINS) == [False] * len(INSTRUCTOR_PLUGINS)
    assert page.evaluate("id => window.jupyterapp.hasPlugin(id)", "@jupyter/nbgrader:validate-assignment")
    assert "Nbgrader" not in page.evaluate(_MENU_BAR)
    disabled = page_config(lab["url"])["disabledExtensions"]
    assert all(plugin in disabled for plugin in INSTRUCTOR_PLUGINS), disabled
    assert http_status(lab["url"] + "/formgrader") == 404
    page.screenshot(path=str(ARTIFACTS / "student_lab.png"))


@pytest.fixture(scope="module")
def instructor_lab(lab, tmp_path_factory) -> Iterator[str]:
    (lab["root"] / "course").mkdir(exist_ok=True)  # what `make instructor` opens
    with running_lab("instructor", lab["root"], tmp_path_factory.mktemp("instructor-lab")) as url:
        yield url


def _put_user_setting(url: str, path: str, values: dict) -> None:
    body = json.dumps({"raw": json.dumps(values)}).encode()
    request = urllib.request.Request(url + path, data=body, method="PUT",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 204, response.status


def test_instructor_lab_has_the_nbgrader_tools_and_the_news_check_sees_a_question(page, instructor_lab):
    page.goto(instructor_lab + "/")
    page.wait_for_selector(".jp-DirListing", state="visible")
    assert page.evaluate(_RESTORED)
    assert page.evaluate(_HAS_PLUGINS, INSTRUCTOR_PLUGINS) == [True] * len(INSTRUCTOR_PLUGINS)
    assert "Nbgrader" in page.evaluate(_MENU_BAR)
    assert http_status(instructor_lab + "/formgrader") != 404
    assert not _news_question_shown(page, 1_000), "the instructor was asked about Jupyter news"
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.screenshot(path=str(ARTIFACTS / "instructor_lab.png"))

    # JupyterLab's own default ("none": not decided yet) brings the question back.
    assert _composite(instructor_lab, NOTIFICATION_SETTINGS)["fetchNews"] == "false"
    _put_user_setting(instructor_lab, NOTIFICATION_SETTINGS, {"fetchNews": "none"})
    assert _composite(instructor_lab, NOTIFICATION_SETTINGS)["fetchNews"] == "none"
    page.reload()
    assert page.evaluate(_RESTORED)
    assert _news_question_shown(page, 15_000), "the news question never appeared: the check is blind"


_WIDGET_CELL = '''%matplotlib inline
import numpy as np
from grader.lessons.gradient_flow import SaturationExplorer


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


SaturationExplorer(sigmoid, lambda z: sigmoid(z) * (1 - sigmoid(z)))
'''


def test_notebook_7_renders_and_redraws_a_lesson_widget(page, lab):
    folder: Path = lab["root"] / "notebook7"
    folder.mkdir(exist_ok=True)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(_WIDGET_CELL)], metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(notebook, folder / "widget.ipynb")
    page.goto(lab["url"] + "/notebooks/notebook7/widget.ipynb")
    page.wait_for_function(KERNEL_IDLE, timeout=90_000, polling=250)
    command(page, "notebook:run-all-cells")
    cell = page.locator(".jp-Cell-outputArea").filter(has=page.locator(".gf-saturation"))
    cell.locator(".jp-RenderedImage img").first.wait_for(timeout=60_000)
    before = picture(cell)
    drag_slider(page, cell, 1, 40)
    wait_for_new_picture(page, "gf-saturation", before)
    assert picture(cell) != before
    page.screenshot(path=str(ARTIFACTS / "notebook7_widget.png"))
