"""The course's HTML export, as JupyterLab's File > Save and Export Notebook As > HTML makes it.

`jupyter/common/jupyter_server_config.json` names the template (`course`) and `grader.lab` puts
`jupyter/data` on JUPYTER_PATH, where it lives (jupyter/data/nbconvert/templates/course).
"""

from __future__ import annotations

import functools
import json
from html.parser import HTMLParser
from pathlib import Path

from grader.instructor.build import edition_dir
from grader.lab import CONFIG, DATA

REPO = Path(__file__).resolve().parents[3]
TEMPLATES = DATA / "nbconvert" / "templates"


def solved(name: str, language: str) -> Path:
    """The solved notebook of lesson `name` in `language`'s edition (one of LANGUAGES)."""
    return edition_dir(REPO / "solutions", name, language) / f"{name}.ipynb"


def template_name() -> str:
    """The template the student's and the instructor's JupyterLab export HTML with."""
    config = json.loads((CONFIG / "common" / "jupyter_server_config.json").read_text())
    return config["HTMLExporter"]["template_name"]


@functools.cache
def exported_html(notebook: Path) -> str:
    """`notebook` (a path inside the repository) as the course's HTML export: one page."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name=template_name(), extra_template_basedirs=[str(TEMPLATES)])
    html, _ = exporter.from_notebook_node(nbformat.read(notebook, as_version=4))
    return html


def figure_descriptions(notebook: Path) -> list[str]:
    """The alt text of every PNG output of `notebook`, in order ("" for a PNG without one)."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return [out.get("metadata", {}).get("image/png", {}).get("alt", "")
            for cell in nb["cells"] for out in cell.get("outputs", []) if "image/png" in out.get("data", {})]


class ExportedPage(HTMLParser):
    """An exported page's language and, in order, the alt text of every PNG (None: no alt)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.lang: str | None = None
        self.alts: list[str | None] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.lang = values.get("lang")
        if tag == "img" and (values.get("src") or "").startswith("data:image/png"):
            self.alts.append(values.get("alt"))
