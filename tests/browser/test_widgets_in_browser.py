"""The course in a real browser: JupyterLab 4 in headless Chromium, driven by Playwright.

One JupyterLab server serves the whole module: a free local port, no token, a temporary
configuration (no news pop-up, no update check, notebook windowing mode "none" so that every
cell is in the page). Its root is a temporary folder holding

- 07_gradient_flow/07_gradient_flow.ipynb: solutions/07_gradient_flow when it has been built,
  else the clean solution made from course/07_gradient_flow (markers and hidden tests removed);
- 01_derivatives/01_derivatives.ipynb: exercises/01_derivatives when it has been built, else the
  release that nbgrader generates from course/01_derivatives.

The browser is Debian's `chromium` package (Playwright's own browser download does not work
here). Without it the tests are skipped, except under CI (CI=true), where they fail: `make test`
installs it (`make browser-deps`). Screenshots go to test-artifacts/browser/.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
GRADIENT_FLOW = "07_gradient_flow"
DERIVATIVES = "01_derivatives"
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
SETTINGS = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,
    },
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # one xdist worker: tests/conftest.py


# ----------------------------------------------------------------------------- requirements


def _chromium() -> str:
    """Path of Debian's chromium; skip (locally) or fail (CI) when it or Playwright is missing."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    problem = None
    if path is None:
        problem = "chromium is not installed (Debian: `make browser-deps`, i.e. apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is missing (`make setup` installs the dev extras)"
    if problem is None:
        return path
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"browser tests must run in CI, but {problem}")
    pytest.skip(problem)


# ----------------------------------------------------------------------------- notebooks


def _gradient_flow_notebook(dest: Path) -> None:
    built = REPO / "solutions" / GRADIENT_FLOW / f"{GRADIENT_FLOW}.ipynb"
    folder = dest / GRADIENT_FLOW
    if built.is_file():
        shutil.copytree(built.parent, folder)
        return
    from grader.instructor.build import solution_skeleton

    shutil.copytree(REPO / "course" / GRADIENT_FLOW, folder)
    source = nbformat.read(folder / f"{GRADIENT_FLOW}.ipynb", as_version=4)
    nbformat.write(solution_skeleton(source), folder / f"{GRADIENT_FLOW}.ipynb")


def _derivatives_release(dest: Path, scratch: Path) -> None:
    built = REPO / "exercises" / DERIVATIVES / f"{DERIVATIVES}.ipynb"
    if not built.is_file():
        from tests.nbgrader_harness import ScratchCourse

        built = ScratchCourse(scratch, DERIVATIVES).root / "exercises" / DERIVATIVES / f"{DERIVATIVES}.ipynb"
    shutil.copytree(built.parent, dest / DERIVATIVES)


# ----------------------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_server(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited with code {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    pytest.fail(f"JupyterLab did not answer on {url} within {timeout} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def lab(tmp_path_factory) -> Iterator[dict]:
    """A JupyterLab server for the whole browser suite: {"url", "root", "chromium"}."""
    chromium = _chromium()
    base = tmp_path_factory.mktemp("browser")
    root, config = base / "root", base / "config"
    root.mkdir()
    _gradient_flow_notebook(root)
    _derivatives_release(root, base / "nbgrader")
    app_settings = config / "app-settings"
    app_settings.mkdir(parents=True)
    (app_settings / "overrides.json").write_text(json.dumps(SETTINGS, indent=2))
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(config / "jupyter"),
        "JUPYTER_RUNTIME_DIR": str(config / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(config / "user-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(config / "workspaces"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        f"--ServerApp.port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        "--ServerApp.token=",
        "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.app_settings_dir={app_settings}",
        "--LabApp.expose_app_in_browser=True",
    ]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = base / "jupyterlab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for_server(url, proc, log)
        yield {"url": url, "root": root, "chromium": chromium}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


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
    if report is not None and report.failed:
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-failed.png"), full_page=True)
    context.close()


# ----------------------------------------------------------------------------- JupyterLab helpers

# The notebook's kernel is connected and idle. (The toolbar's execution indicator says "idle"
# before the kernel is even connected; commands sent then are silently dropped.)
_KERNEL_IDLE = """() => {
    const widget = window.jupyterapp.shell.currentWidget;
    const session = widget && widget.sessionContext;
    const kernel = session && session.session && session.session.kernel;
    return !!(widget.context && widget.context.isReady && session.isReady && kernel
              && kernel.connectionStatus === 'connected' && kernel.status === 'idle');
}"""

# The input prompts ("[ ]:", "[*]:", "[7]:") of the notebook on screen.
_PROMPTS = ("[...window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
            ".map(p => p.textContent.trim())")

_ALL_RUN = (
    "() => {\n"
    f"    const prompts = {_PROMPTS};\n"
    f"    return ({_KERNEL_IDLE})() && prompts.length > 0 && !prompts.some(t => t.includes('*'));\n"
    "}"
)


def command(page, name: str) -> None:
    """Start a JupyterLab command; do not wait for its promise (Run All's may never settle)."""
    page.evaluate("name => { window.jupyterapp.commands.execute(name); return true; }", name)


def open_notebook(page, lab: dict, path: str) -> None:
    """Open `path` alone, in a fresh workspace (Lab would otherwise reopen earlier tabs)."""
    workspace = "".join(ch if ch.isalnum() else "-" for ch in path)
    page.goto(f"{lab['url']}/lab/workspaces/{workspace}/tree/{path}?reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", state="attached")
    page.wait_for_function(_KERNEL_IDLE, timeout=90_000, polling=250)


def run_all(page, timeout_ms: int = 150_000) -> None:
    """Clear the outputs, run every cell (Lab's own commands), wait until the kernel is idle again.

    Run All stops at the first cell that raises; the cells after it stay unnumbered.
    """
    command(page, "notebook:clear-all-cell-outputs")
    page.wait_for_function(f"() => !{_PROMPTS}.some(t => /\\d/.test(t))")
    command(page, "runmenu:run-all")
    page.wait_for_function(f"() => {_PROMPTS}.some(t => /[*\\d]/.test(t))")
    page.wait_for_function(_ALL_RUN, timeout=timeout_ms, polling=250)


def prompts(page) -> list[str]:
    return page.evaluate(f"() => {_PROMPTS}")


def widget_cell(page, css_class: str):
    """The output area of the cell that shows the widget with this CSS class."""
    outputs = page.locator(".jp-Cell-outputArea").filter(has=page.locator(f".{css_class}"))
    outputs.first.scroll_into_view_if_needed()
    return outputs.first


def move_slider(page, cell, index: int = 0, presses: int = 1) -> None:
    handle = cell.locator(".widget-slider .noUi-handle").nth(index)
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(presses):
        handle.press("ArrowRight")


def picture(cell) -> str:
    return cell.locator(".jp-RenderedImage img").first.get_attribute("src") or ""


def numbers(cell) -> str:
    return cell.locator(".gf-numbers").first.inner_text()


# ----------------------------------------------------------------------------- the tests


def test_lesson_07_runs_and_every_widget_redraws(page, lab):
    started = time.monotonic()
    open_notebook(page, lab, f"{GRADIENT_FLOW}/{GRADIENT_FLOW}.ipynb")
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
        page.wait_for_function(
            """([cls, old]) => {
                const area = [...document.querySelectorAll('.jp-Cell-outputArea')]
                    .find(a => a.querySelector('.' + cls));
                const img = area && area.querySelector('.jp-RenderedImage img');
                const text = area && area.querySelector('.gf-numbers');
                return img && img.getAttribute('src') !== old
                    && text && text.textContent.includes('updated in');
            }""",
            arg=[css_class, before_picture],
            timeout=30_000,
        )
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
    open_notebook(page, lab, f"{DERIVATIVES}/{DERIVATIVES}.ipynb")
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
