"""The student's JupyterLab exports HTML through the course's template (File > Save and Export
Notebook As > HTML asks the server's /nbconvert/html): every figure keeps its description as alt
text. axe-core on a lesson and the keyboard walk: tests/front_ends/browser/test_widgets_in_browser.py.
"""

from __future__ import annotations

import urllib.request

import pytest

from tests.front_ends.accessibility.html_export import ExportedPage, figure_descriptions
from tests.front_ends.browser.lab_server import GRADIENT_FLOW

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py

SOLUTION = f"solutions/{GRADIENT_FLOW}/{GRADIENT_FLOW}.ipynb"


def test_the_lab_exports_html_with_every_figure_described(lab):
    with urllib.request.urlopen(f"{lab['url']}/nbconvert/html/{SOLUTION}", timeout=120) as response:
        page = ExportedPage(response.read().decode("utf-8"))
    described = figure_descriptions(lab["root"] / SOLUTION)
    assert page.lang == "en"
    assert described and all(described)
    differ = sum(a != d for a, d in zip(page.alts, described, strict=False))
    assert page.alts == described, f"{differ} alt texts differ"
