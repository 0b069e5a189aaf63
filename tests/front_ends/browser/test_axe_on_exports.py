"""axe-core finds no serious or critical WCAG 2.1 A/AA violation in any solved lesson, as the
course's HTML export shows it (tests/front_ends/accessibility/html_export.py).

The Portuguese edition's pages are the same cells and outputs with their text translated: what
could differ by language is checked in both editions without a browser (each page's `lang` and
alt texts: tests/front_ends/accessibility/test_html_export.py; headings and link texts:
tests/front_ends/test_structure.py), so axe audits the English pages here and the Portuguese ones
in JupyterLab (test_every_lesson_in_lab.py).

Colour contrast, axe's slowest rule (8 s a lesson here), is audited on one lesson, the one with the
most code tokens: the pages differ only in their content, both editions' code is the same, and no
lesson colours its text itself (no `color:` in any cell or output: checked below), so the theme's
colours are the same on every page.
"""

from __future__ import annotations

import json
import re

import pytest

from grader.instructor.build import assignments
from grader.lab import LANGUAGES
from tests.front_ends.accessibility.axe import audit, blocking, described
from tests.front_ends.accessibility.html_export import exported_html, solved

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py

CONTRAST_AUDITED = "08_deep_nets"  # the most code tokens


def _show(page, html: str) -> None:
    page.set_content(html, wait_until="load")


@pytest.mark.parametrize("name", assignments())
def test_axe_finds_no_serious_violation(offline_page, name: str) -> None:
    notebook = solved(name, "en")
    _show(offline_page, exported_html(notebook))
    violations = audit(offline_page, contrast=name == CONTRAST_AUDITED)
    serious = blocking(violations)
    assert not serious, f"{notebook} exported to HTML:\n{described(serious)}"


def test_no_lesson_colours_its_own_text() -> None:
    """What lets one lesson stand for all in the contrast audit (both editions)."""
    coloured = []
    for lang in LANGUAGES:
        for name in assignments():
            text = solved(name, lang).read_text(encoding="utf-8")
            if re.search(r"(?<![-\w])(color|background(-color)?)\s*:", json.dumps(json.loads(text)["cells"])):
                coloured.append(f"{lang}/{name}")
    assert not coloured, f"these lessons set a text or background colour: {coloured}"


def test_the_audit_sees_what_the_course_template_fixes(offline_page) -> None:
    """nbconvert's own `lab` template, on the first cells of the lesson audited for contrast:
    prompts and code tokens under 4.5:1, links told apart by colour alone."""
    import nbformat
    from nbconvert import HTMLExporter

    notebook = nbformat.read(solved(CONTRAST_AUDITED, "en"), as_version=4)
    notebook.cells = notebook.cells[:12]
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    _show(offline_page, html)
    found = {v["id"] for v in blocking(audit(offline_page))}
    assert {"color-contrast", "link-in-text-block"} <= found, found
