"""axe-core on every solved lesson as the student's JupyterLab 4 shows it, in the Portuguese edition.

One browser page opens each saved solution in turn (as a student opens `solutions/` to compare,
without running it: the outputs are the saved ones, a widget its saved picture and words) and
audits the notebook's content: no serious or critical violation that is the course's own (those
of JupyterLab and ipywidgets are listed with their upstream issues in
tests/front_ends/accessibility/upstream.py), and every image JupyterLab draws without alt text has
its *Figure in words*; every formula carries the MathML that MathJax adds for screen readers.
Colour contrast is audited once, in JupyterLab on lesson 07 run
(test_widgets_in_browser.py): the theme's colours are the same on every page and no lesson
colours its own text (test_axe_on_exports.py). Lesson 07 run, with its widgets live and walked by
keyboard: test_widgets_in_browser.py.

The editions are the same cells and outputs with their text translated, and axe needs 3 to 6 s a
lesson here: JupyterLab audits the Portuguese pages and the HTML export the English ones
(test_axe_on_exports.py), so every lesson is audited in both front ends and both editions; what
can differ by language (each page's `lang`, alt texts and Figure in words, headings, link texts)
is checked in both editions without a browser (tests/front_ends/test_figures_in_words.py,
tests/front_ends/accessibility/test_html_export.py, tests/front_ends/test_structure.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from grader.instructor.build import assignments
from tests.front_ends.accessibility.html_export import REPO, solved
from tests.front_ends.browser.test_widgets_in_browser import audit_the_lesson_content

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py

EDITION = "pt"  # the other edition's pages: test_axe_on_exports.py

# Open `path` in the JupyterLab already loaded (no page reload): true once it is the notebook shown.
_OPEN = """async ([path, kernel]) => {
    const app = window.jupyterapp;
    await app.commands.execute('docmanager:open', {path, factory: 'Notebook', kernel});
    const widget = app.shell.currentWidget;
    await widget.context.ready;
    return widget.context.path === path;
}"""

# Every cell of the notebook shown is on the page, every markdown cell rendered, every output drawn.
_ALL_SHOWN = """() => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    const node = notebook.node;
    const markdown = notebook.widgets.filter(c => c.model.type === 'markdown').length;
    const outputs = notebook.widgets.reduce((n, c) => n + (c.model.outputs ? c.model.outputs.length : 0), 0);
    return node.querySelectorAll('.jp-Cell').length === notebook.widgets.length
        && node.querySelectorAll('.jp-MarkdownCell.jp-mod-rendered').length === markdown
        && node.querySelectorAll('.jp-OutputArea-output').length >= outputs;
}"""

_START_KERNEL = """async () => {
    const kernels = window.jupyterapp.serviceManager.kernels;
    const kernel = await kernels.startNew({name: 'python3'});
    return kernel.id;
}"""

# The formulas MathJax typeset in the notebook shown, and those with a MathML copy for screen readers.
_MATHS = """() => {
    const node = window.jupyterapp.shell.currentWidget.content.node;
    return [node.querySelectorAll('mjx-container').length,
            node.querySelectorAll('mjx-container mjx-assistive-mml math').length];
}"""

# Close it, leaving the kernel it shares with the others running.
_CLOSE = """async () => {
    const widget = window.jupyterapp.shell.currentWidget;
    if (widget) { widget.dispose(); }
    return true;
}"""


@pytest.fixture(scope="module")
def lab_page(browser, lab) -> Iterator:
    """One page for every lesson, and every solved notebook in the served folder."""
    for name in assignments():
        target = lab["root"] / solved(name, EDITION).relative_to(REPO)
        if not target.exists():
            shutil.copytree(solved(name, EDITION).parent, target.parent, dirs_exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{lab['url']}/lab/workspaces/every-lesson?reset")
    page.wait_for_function("() => !!(window.jupyterapp && window.jupyterapp.shell)", polling=250)
    page.evaluate("async () => { await window.jupyterapp.restored; return true; }")
    page.shared_kernel = page.evaluate(_START_KERNEL)
    yield page
    context.close()


@pytest.mark.parametrize("language", [EDITION])
@pytest.mark.parametrize("name", assignments())
def test_axe_in_lab_finds_nothing_of_the_course(lab_page, lab, name: str, language: str) -> None:
    path = solved(name, language).relative_to(REPO).as_posix()
    # every notebook joins one kernel: JupyterLab would start one per notebook it opens
    assert lab_page.evaluate(_OPEN, [path, {"id": lab_page.shared_kernel}]), f"JupyterLab did not open {path}"
    lab_page.wait_for_function(_ALL_SHOWN, polling=200)
    try:
        audit_the_lesson_content(lab_page, contrast=False, language=language)
        # MathJax gives every formula a MathML copy that screen readers read (its assistive MathML)
        maths, readable = lab_page.evaluate(_MATHS)
        assert maths > 0 and readable == maths, f"{path}: {readable} of {maths} formulas carry MathML"
    finally:
        lab_page.evaluate(_CLOSE)
