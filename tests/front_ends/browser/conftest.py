"""The real-browser suite: the course's JupyterLab in headless Chromium, driven by Playwright.

One student JupyterLab (started as `make lab` starts it, tests/front_ends/browser/lab_server.py) serves the
whole suite. Its root is a scratch folder laid out like the repository:

- solutions/07_gradient_flow/07_gradient_flow.ipynb: the built solution when there is one, else
  the clean solution made from course/07_gradient_flow (markers and hidden tests removed);
- exercises/01_derivatives/01_derivatives.ipynb: the built release when there is one, else the
  release that nbgrader generates from course/01_derivatives.

The browser is Debian's `chromium` package (Playwright's own browser download does not work
here). Without it the tests are skipped, except under CI (CI=true), where they fail: `make test`
installs it (`make browser-deps`). Screenshots go to test-artifacts/browser/.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

from tests.front_ends.browser.lab_server import (
    ARTIFACTS,
    DERIVATIVES,
    GRADIENT_FLOW,
    REPO,
    chromium_path,
    running_lab,
)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item, so fixtures can see whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


def _gradient_flow_solution(root: Path) -> None:
    built = REPO / "solutions" / GRADIENT_FLOW / f"{GRADIENT_FLOW}.ipynb"
    folder = root / "solutions" / GRADIENT_FLOW
    if built.is_file():
        shutil.copytree(built.parent, folder)
        return
    from grader.instructor.build import solution_skeleton

    shutil.copytree(REPO / "course" / GRADIENT_FLOW, folder)
    source = nbformat.read(folder / f"{GRADIENT_FLOW}.ipynb", as_version=4)
    nbformat.write(solution_skeleton(source), folder / f"{GRADIENT_FLOW}.ipynb")


def _derivatives_release(root: Path, scratch: Path) -> None:
    built = REPO / "exercises" / DERIVATIVES / f"{DERIVATIVES}.ipynb"
    if not built.is_file():
        from tests.nbgrader_harness import ScratchCourse

        built = ScratchCourse(scratch, DERIVATIVES).root / "exercises" / DERIVATIVES / f"{DERIVATIVES}.ipynb"
    shutil.copytree(built.parent, root / "exercises" / DERIVATIVES)


@pytest.fixture(scope="session")
def course_root(tmp_path_factory) -> Path:
    """The scratch folder the servers serve (laid out like the repository)."""
    base = tmp_path_factory.mktemp("browser")
    root = base / "root"
    root.mkdir()
    _gradient_flow_solution(root)
    _derivatives_release(root, base / "nbgrader")
    return root


@pytest.fixture(scope="session")
def lab(course_root, tmp_path_factory) -> Iterator[dict]:
    """The student JupyterLab for the whole browser suite: {"url", "root", "chromium"}."""
    chromium = chromium_path()
    with running_lab("student", course_root, tmp_path_factory.mktemp("student-lab")) as url:
        yield {"url": url, "root": course_root, "chromium": chromium}


@pytest.fixture(scope="session")
def browser(lab) -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=lab["chromium"], args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield page
    report = getattr(request.node, "rep_call", None)
    failed_shot = ARTIFACTS / f"{request.node.name}-failed.png"
    if report is not None and report.failed:
        page.screenshot(path=str(failed_shot), full_page=True)
    elif report is not None:
        failed_shot.unlink(missing_ok=True)  # an earlier run's, no longer true
    context.close()


@pytest.fixture(scope="session")
def offline_page(browser) -> Iterator:
    """A page for static HTML (the lessons' exports), with every request off this machine
    refused, as a student offline would have it (nbconvert's pages load MathJax, require.js and
    Mermaid from a CDN)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.route("http*://**", lambda route: route.abort())
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()
