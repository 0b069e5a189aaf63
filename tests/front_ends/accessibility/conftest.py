"""A headless Chromium for the accessibility audits: Debian's `chromium` (see
tests/front_ends/browser/conftest.py), with every request off this machine refused, as a student
offline would have it (MathJax, require.js and Mermaid come from a CDN in nbconvert's pages)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.front_ends.browser.conftest import CHROMIUM_ARGS
from tests.front_ends.browser.lab_server import chromium_path


@pytest.fixture(scope="session")
def offline_page() -> Iterator:
    chromium = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.route("http*://**", lambda route: route.abort())
            page = context.new_page()
            page.set_default_timeout(60_000)
            yield page
        finally:
            browser.close()
