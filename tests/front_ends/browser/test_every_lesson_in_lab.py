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
from tests.front_ends.browser.lab_page import close_notebook, load_lab, open_in_lab
from tests.front_ends.browser.test_widgets_in_browser import audit_the_lesson_content

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py

EDITION = "pt"  # the other edition's pages: test_axe_on_exports.py

# The formulas MathJax typeset in the notebook shown, and those with a MathML copy for screen readers.
_MATHS = """() => {
    const node = window.jupyterapp.shell.currentWidget.content.node;
    return [node.querySelectorAll('mjx-container').length,
            node.querySelectorAll('mjx-container mjx-assistive-mml math').length];
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
    page.shared_kernel = load_lab(page, lab["url"], "every-lesson")
    yield page
    context.close()


@pytest.mark.parametrize("language", [EDITION])
@pytest.mark.parametrize("name", assignments())
def test_axe_in_lab_finds_nothing_of_the_course(lab_page, lab, name: str, language: str) -> None:
    path = solved(name, language).relative_to(REPO).as_posix()
    open_in_lab(lab_page, path, lab_page.shared_kernel)
    try:
        audit_the_lesson_content(lab_page, contrast=False, language=language)
        # MathJax gives every formula a MathML copy that screen readers read (its assistive MathML)
        maths, readable = lab_page.evaluate(_MATHS)
        assert maths > 0 and readable == maths, f"{path}: {readable} of {maths} formulas carry MathML"
    finally:
        close_notebook(lab_page)
