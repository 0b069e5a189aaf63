"""Report: axe-core's findings on every solved lesson, per lesson, edition and front end.

    .venv/bin/python benchmarks/accessibility_audit.py          # every lesson, both editions
    .venv/bin/python benchmarks/accessibility_audit.py 07 12    # some lessons

The tests (tests/front_ends/browser/) fail on a serious or critical violation of the course's own;
this prints everything axe finds, so a reader sees the whole picture: for each lesson and edition,
in the course's HTML export and in the student's JupyterLab 4 (the saved solution opened without
running it), the violations by impact (critical, serious, moderate, minor: elements affected),
how many of the serious and critical ones are JupyterLab's or ipywidgets' (listed with their
upstream issues in tests/front_ends/accessibility/upstream.py), and the seconds axe took.
Colour contrast is left out (its own test: tests/front_ends/browser/test_axe_on_exports.py).
Needs Debian's chromium and `make dev`'s packages.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.instructor.build import assignments  # noqa: E402
from grader.lab import LANGUAGES  # noqa: E402
from tests.front_ends.accessibility.axe import audit  # noqa: E402
from tests.front_ends.accessibility.html_export import REPO, exported_html, solved  # noqa: E402
from tests.front_ends.accessibility.upstream import upstream_of  # noqa: E402
from tests.front_ends.browser.conftest import CHROMIUM_ARGS  # noqa: E402
from tests.front_ends.browser.lab_page import close_notebook, load_lab, open_in_lab  # noqa: E402
from tests.front_ends.browser.lab_server import chromium_path, running_lab  # noqa: E402

IMPACTS = ("critical", "serious", "moderate", "minor")


def summary(violations: list[dict], seconds: float) -> str:
    """'critical 0 · serious 3 (3 upstream) · moderate 0 · minor 1 · 2.1 s': elements per impact."""
    elements, upstream = Counter(), 0
    for v in violations:
        elements[v["impact"]] += len(v["nodes"])
        if v["impact"] in ("critical", "serious"):
            upstream += sum(upstream_of(v["id"], n) is not None for n in v["nodes"])
    parts = [f"{impact} {elements[impact]}" for impact in IMPACTS]
    parts[1] += f" ({upstream} upstream)" if upstream else ""
    return " · ".join(parts) + f" · {seconds:.1f} s"


def main(prefixes: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    names = [n for n in assignments() if not prefixes or n.startswith(tuple(prefixes))]
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as pw:
        root = Path(scratch) / "root"
        first = names[0]  # JupyterLab opens on a lesson of exercises/
        shutil.copytree(REPO / "exercises" / first, root / "exercises" / first)
        for name in names:
            for language in LANGUAGES:
                target = root / solved(name, language).relative_to(REPO)
                shutil.copytree(solved(name, language).parent, target.parent, dirs_exist_ok=True)
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        static = browser.new_context(viewport={"width": 1400, "height": 1000})
        static.route("http*://**", lambda route: route.abort())
        export_page = static.new_page()
        with running_lab("student", root, Path(scratch) / "lab") as url:
            lab_page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            lab_page.set_default_timeout(60_000)
            kernel = load_lab(lab_page, url, "audit")
            for name in names:
                for language in LANGUAGES:
                    notebook = solved(name, language)
                    export_page.set_content(exported_html(notebook), wait_until="load")
                    started = time.perf_counter()
                    found = audit(export_page, contrast=False)
                    seconds = time.perf_counter() - started
                    print(f"{name:22s} {language}  export      {summary(found, seconds)}")
                    open_in_lab(lab_page, notebook.relative_to(REPO).as_posix(), kernel)
                    started = time.perf_counter()
                    found = audit(lab_page, context=".jp-NotebookPanel", contrast=False)
                    seconds = time.perf_counter() - started
                    print(f"{name:22s} {language}  JupyterLab  {summary(found, seconds)}", flush=True)
                    close_notebook(lab_page)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
