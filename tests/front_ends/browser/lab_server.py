"""JupyterLab servers for the browser tests, started exactly as `make lab` / `make instructor` do.

The command line and the Jupyter configuration folders come from `grader.lab`; the
tests add only what a test needs: a free local port, no token, a scratch root folder, private
runtime/settings/workspace folders (so nothing on this machine leaks in), and one user setting,
notebook windowing mode "none", so that every cell of a long notebook is in the page.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from grader.lab import lab_command

REPO = Path(__file__).resolve().parents[3]
ARTIFACTS = REPO / "test-artifacts" / "browser"
GRADIENT_FLOW = "07_gradient_flow"
DERIVATIVES = "01_derivatives"
WINDOWING = {"@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"}}


def chromium_path() -> str:
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


def http_status(url: str) -> int:
    """The HTTP status of GET `url`, without following redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def page_config(url: str) -> dict:
    """The page configuration JupyterLab embeds in /lab (disabled extensions, federated ones)."""
    with urllib.request.urlopen(f"{url}/lab", timeout=10) as response:
        page = response.read().decode()
    start = page.index('<script id="jupyter-config-data" type="application/json">')
    start = page.index(">", start) + 1
    return json.loads(page[start:page.index("</script>", start)])


@contextmanager
def running_lab(role: str, root: Path, scratch: Path) -> Iterator[str]:
    """A JupyterLab server for `role` ("student" or "instructor") serving `root`; yields its URL."""
    scratch.mkdir(parents=True, exist_ok=True)
    settings = scratch / "user-settings"
    for name, values in WINDOWING.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    argv, env = lab_command(role, root=root, extra=[
        "--no-browser", f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0", "--ServerApp.token=", "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True", "--LabApp.expose_app_in_browser=True",
        "--JupyterNotebookApp.expose_app_in_browser=True",
    ])
    env.update({
        "JUPYTER_CONFIG_DIR": str(scratch / "jupyter"),  # not this machine's ~/.jupyter
        "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(scratch / "workspaces"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    })
    log = scratch / "jupyterlab.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for_server(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
