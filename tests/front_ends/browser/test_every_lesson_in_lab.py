"""axe-core on every solved lesson, both editions, as the student's JupyterLab 4 shows it.

One browser page opens each saved solution in turn (as a student opens `solutions/` to compare,
without running it: the outputs are the saved ones, a widget its saved picture and words) and
audits the notebook's content: no serious or critical violation that is the course's own (those
of JupyterLab and ipywidgets are listed with their upstream issues in
tests/front_ends/accessibility/upstream.py), and every image JupyterLab draws without alt text has
its *Figure in words*. Colour contrast is audited once, in JupyterLab on lesson 07 run
(test_widgets_in_browser.py): the theme's colours are the same on every page and no lesson
colours its own text (test_axe_on_exports.py). Lesson 07 run, with its widgets live and walked by
keyboard: test_widgets_in_browser.py.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from grader.instructor.build import assignments
from grader.lab import LANGUAGES
from tests.front_ends.accessibility.html_export import REPO, solved
from tests.front_ends.browser.test_widgets_in_browser import audit_the_lesson_content

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py

# Open `path` in the JupyterLab already loaded (no page reload), as the only notebook: true when
# its cells are on the page.
_OPEN = """async path => {
    const app = window.jupyterapp;
    await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    const widget = app.shell.currentWidget;
    await widget.context.ready;
    await widget.content.fullyRendered || null;
    return widget.context.path === path && widget.content.widgets.length;
}"""

# Close it and shut its kernel down (JupyterLab starts one for every notebook it opens).
_CLOSE = """async () => {
    const widget = window.jupyterapp.shell.currentWidget;
    if (widget && widget.sessionContext) { await widget.sessionContext.shutdown(); }
    if (widget) { widget.dispose(); }
    return true;
}"""


@pytest.fixture(scope="module")
def lab_page(browser, lab) -> Iterator:
    """One page for every lesson, and every solved notebook in the served folder."""
    for language in LANGUAGES:
        for name in assignments():
            target = lab["root"] / solved(name, language).relative_to(REPO)
            if not target.exists():
                shutil.copytree(solved(name, language).parent, target.parent, dirs_exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{lab['url']}/lab/workspaces/every-lesson?reset")
    page.wait_for_function("() => !!(window.jupyterapp && window.jupyterapp.shell)", polling=250)
    page.evaluate("async () => { await window.jupyterapp.restored; return true; }")
    yield page
    context.close()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", assignments())
def test_axe_in_lab_finds_nothing_of_the_course(lab_page, lab, name: str, language: str) -> None:
    path = solved(name, language).relative_to(REPO).as_posix()
    assert lab_page.evaluate(_OPEN, path), f"JupyterLab did not open {path}"
    try:
        audit_the_lesson_content(lab_page, contrast=False, language=language)
    finally:
        lab_page.evaluate(_CLOSE)
