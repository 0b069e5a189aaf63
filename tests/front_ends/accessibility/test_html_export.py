"""The HTML a student or instructor exports keeps what the notebook says in words.

nbconvert's default `lab` template drops each image's alt text (only `classic` reads the output
metadata where the course's figures carry their description) and always says `lang="en"`; the
course's template puts both back (jupyter/data/nbconvert/templates/course). Checked on every
solved lesson, both editions, without a browser.
"""

from __future__ import annotations

import pytest

from grader.instructor.build import assignments
from grader.lab import LANGUAGES
from tests.front_ends.accessibility.html_export import (
    ExportedPage,
    exported_html,
    figure_descriptions,
    solved,
)

NOTEBOOKS = [pytest.param(lang, name, id=f"{lang}-{name}") for lang in LANGUAGES for name in assignments()]


@pytest.mark.parametrize(("lang", "name"), NOTEBOOKS)
def test_the_export_keeps_every_figure_description_and_the_language(lang: str, name: str) -> None:
    notebook = solved(name, lang)
    page = ExportedPage(exported_html(notebook))
    described = figure_descriptions(notebook)
    assert page.lang == lang, f"{notebook}: the page says lang={page.lang!r}"
    assert page.alts == described, (
        f"{notebook}: the exported images' alt texts are not the figures' descriptions "
        f"({sum(a != d for a, d in zip(page.alts, described, strict=False))} differ; "
        f"{len(page.alts)} images, {len(described)} figures)")
    assert all(described), f"{notebook}: a figure without a description"


def test_the_check_sees_a_dropped_description() -> None:
    """Through nbconvert's own `lab` template the same lesson's images lose their descriptions."""
    import nbformat
    from nbconvert import HTMLExporter

    notebook = solved("07_gradient_flow", "en")
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(nbformat.read(notebook, as_version=4))
    page = ExportedPage(html)
    assert page.alts and page.alts != figure_descriptions(notebook)
    assert page.lang == "en"
