"""Where students open the lessons besides `make lab`: Colab and Binder, and what every released
lesson carries for them. `course/` holds neither: the build adds both to each edition's release and
solution (`released`).

- `colab_url(lesson)`, `binder_url(lesson)`: the lesson's release notebook (`exercises/`) on the
  course's GitHub repository, opened in Colab or on mybinder.org;
- `open_line(lesson)`: the line of links under the title of the lesson's first markdown cell;
- `readme_links(lesson)`: the same links as badges, for the README's lesson table;
- `BOOTSTRAP_CELL`: the source of every lesson's first code cell, shown collapsed. Where the course
  toolkit (the `grader` package) is missing, as in Colab, it installs it from GitHub without
  dependencies (Colab has numpy, matplotlib, torch and ipywidgets, at its own versions, not the
  course's pins), at the commit of main named in `toolkit_commit` (only main is published), so that
  a copy saved in Drive keeps getting the toolkit it was written for; where it is present it does
  nothing. It recognises the course's toolkit by the `__course__` line of `grader/__init__.py`
  (read, not imported), and stops with a clear message when something else named `grader` (a
  folder beside the notebook, another package) would hide it.

tests/front_ends/test_front_ends.py and tests/environment/test_bootstrap_cell.py check the notebooks,
the README and the cell's behaviour against these definitions.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat

from grader.instructor.course_layout import REPO
from grader.instructor.diagram_text import with_diagram_text, without_diagram_text
from grader.lab import release_notebook

REPOSITORY = "backprop-course/backprop-course"
BRANCH = "main"



def _version() -> str:
    """The toolkit's version: pyproject.toml's in a checkout, else the installed distribution's."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if pyproject.is_file():
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    from importlib.metadata import version

    return version("backprop-course")


#: The toolkit's version (pyproject.toml).
VERSION = _version()
#: The file that names the commit whose toolkit every bootstrap cell installs.
TOOLKIT_COMMIT_FILE = Path(__file__).with_name("toolkit_commit")
#: That commit: only branch main is published (a tag never reaches students), so a release of the
#: toolkit is a commit of main's history, the last one that changed it (`--release`, below).
TOOLKIT_COMMIT = TOOLKIT_COMMIT_FILE.read_text(encoding="utf-8").strip()
#: What the toolkit is, for a release: what the bootstrap cell installs, but for the instructor's
#: tools, which no lesson uses (git pathspecs).
SHIPPED = ("grader", ":(exclude)grader/instructor", "pyproject.toml")
#: What the bootstrap cell installs (one string literal in the cell: tests replace it).
INSTALL_SOURCE = f"backprop-course @ git+https://github.com/{REPOSITORY}@{TOOLKIT_COMMIT}"
#: The line of grader/__init__.py the cell recognises the course's toolkit by.
TOOLKIT_MARK = '__course__ = "backprop-course"'

#: What the bootstrap cell prints when it has nothing to do.
NOTHING_TO_DO = "The course toolkit is installed: nothing to set up."
#: What it prints after installing the toolkit.
INSTALLED = "Installed the course toolkit (backprop-course) from GitHub: the lesson can start."

COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_BADGE = "https://mybinder.org/badge_logo.svg"

#: What it prints before calling pip (the install may take a while and pip is quiet).
INSTALLING = "Installing the course toolkit (backprop-course) from GitHub..."
#: How its error message for a failed install begins.
INSTALL_FAILED = "Could not install the course toolkit from GitHub"
#: How its error message begins when another `grader` hides the toolkit.
HIDDEN_BY = "Something else named grader hides the course toolkit"

BOOTSTRAP_CELL = f'''\
#@title Set up the course toolkit (Colab needs this cell; elsewhere it does nothing)
import importlib
import subprocess
import sys
from importlib.util import find_spec

TOOLKIT = "{INSTALL_SOURCE}"
found = find_spec("grader")
if found and found.origin and found.origin.endswith("__init__.py"):
    with open(found.origin, encoding="utf-8", errors="replace") as init:
        ours = {TOOLKIT_MARK!r} in init.read()
else:
    ours = False
if found and not ours:  # a folder called grader/ beside the notebook, or another package
    where = found.origin or ", ".join(found.submodule_search_locations or []) or found.name
    raise ImportError(f"{HIDDEN_BY}: {{where}}. "
                      "Rename it (or uninstall that package), restart the kernel, then run this cell again.")
if ours:
    print("{NOTHING_TO_DO}")
else:
    missing = [name for name in ("numpy", "matplotlib", "torch", "ipywidgets") if not find_spec(name)]
    if missing:
        raise ModuleNotFoundError(
            f"This Python has no {{', '.join(missing)}}, which the course needs. Open the lesson in "
            "Colab, or run `make lab` in a copy of the course repository (its README says how).")
    print("{INSTALLING}", flush=True)
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", TOOLKIT],
                         capture_output=True, text=True)
    if pip.returncode != 0:
        said = pip.stderr.strip().splitlines() or ["pip failed"]
        raise RuntimeError(f"{INSTALL_FAILED} ({{said[-1]}}). "
                           "Is this runtime online? Connect it, then run this cell again.")
    importlib.invalidate_caches()  # so that this kernel sees the new package at once
    print("{INSTALLED}")'''


def colab_url(lesson: str, language: str = "en") -> str:
    """The address that opens the release notebook of `lesson` (e.g. "01_derivatives") in Colab."""
    notebook = release_notebook(lesson, language)
    return f"https://colab.research.google.com/github/{REPOSITORY}/blob/{BRANCH}/{notebook}"


def binder_url(lesson: str, language: str = "en") -> str:
    """The address that opens the release notebook of `lesson` in JupyterLab on mybinder.org."""
    notebook = release_notebook(lesson, language)
    return f"https://mybinder.org/v2/gh/{REPOSITORY}/HEAD?urlpath=lab/tree/{notebook}"


#: The line of links in each edition: (how it begins, how it ends).
OPEN_LINE = {
    "en": ("Open this lesson in ", " or on ", " · in Colab, *File → Save a copy in Drive* keeps your work."),
    "pt": ("Abra esta aula no ", " ou no ",
           " · no Colab, *Arquivo → Salvar uma cópia no Drive* guarda o seu trabalho."),
}


def open_line(lesson: str, language: str = "en") -> str:
    """The plain-text links under the lesson's title (no badge image: offline JupyterLab breaks it)."""
    begin, middle, end = OPEN_LINE[language]
    return (f"{begin}[Colab]({colab_url(lesson, language)}){middle}[Binder]({binder_url(lesson, language)})"
            f"{end}")


def is_open_line(line: str) -> bool:
    """Whether `line` is the line of links of some edition."""
    return any(line.startswith(begin) for begin, _, _ in OPEN_LINE.values())


def readme_links(lesson: str, language: str = "en") -> str:
    """The README lesson table's cell for `lesson`: a Colab badge and a Binder badge, linked."""
    return (f"[![Open in Colab]({COLAB_BADGE})]({colab_url(lesson, language)}) "
            f"[![Binder]({BINDER_BADGE})]({binder_url(lesson, language)})")


def without_open_line(title_cell: str) -> str:
    """The title cell's source without the line of links under its first line (if it has one)."""
    lines = title_cell.split("\n")
    if len(lines) >= 3 and lines[1] == "" and is_open_line(lines[2]):
        return "\n".join([lines[0], *lines[3:]])
    return title_cell


def with_open_line(title_cell: str, lesson: str, language: str = "en") -> str:
    """The title cell's source with `open_line(lesson)` right under its first line (once)."""
    lines = without_open_line(title_cell).split("\n")
    return "\n".join([lines[0], "", open_line(lesson, language), *lines[1:]])


#: The bootstrap cell's words in the Portuguese edition, which also sets the toolkit's language.
_BOOTSTRAP_PT = [
    ("#@title Set up the course toolkit (Colab needs this cell; elsewhere it does nothing)",
     "#@title Preparar o kit do curso (o Colab precisa desta célula; nos outros lugares ela não faz nada)\n"
     "import os\n\n"
     "os.environ[\"BACKPROP_COURSE_LANGUAGE\"] = \"pt\"  # as mensagens do kit em português"),
    (NOTHING_TO_DO, "O kit do curso já está instalado: nada a preparar."),
    (INSTALLED, "O kit do curso (backprop-course) foi instalado a partir do GitHub: a aula pode começar."),
    (INSTALLING, "Instalando o kit do curso (backprop-course) a partir do GitHub..."),
    (INSTALL_FAILED, "Não foi possível instalar o kit do curso a partir do GitHub"),
    (HIDDEN_BY, "Outra coisa chamada grader esconde o kit do curso"),
    ("  # a folder called grader/ beside the notebook, or another package",
     "  # uma pasta grader/ ao lado do notebook, ou outro pacote"),
    ("Rename it (or uninstall that package), restart the kernel, then run this cell again.",
     "Mude o nome dela (ou desinstale esse pacote), reinicie o kernel e execute esta célula de novo."),
    ("This Python has no {{', '.join(missing)}}, which the course needs. Open the lesson in \"\n",
     "Este Python não tem {{', '.join(missing)}}, de que o curso precisa. Abra a aula no \"\n"),
    ('"Colab, or run `make lab` in a copy of the course repository (its README says how).")',
     '"Colab, ou execute `make lab` numa cópia do repositório do curso (o README explica como).")'),
    ("  # so that this kernel sees the new package at once",
     "  # para que este kernel veja logo o novo pacote"),
    ("Is this runtime online? Connect it, then run this cell again.",
     "Este ambiente está online? Conecte-o e execute esta célula de novo."),
    ('["pip failed"]', '["o pip falhou"]'),
]


def bootstrap_source(language: str = "en") -> str:
    """The bootstrap cell of an edition: the Portuguese one speaks Portuguese and sets the language."""
    if language == "en":
        return BOOTSTRAP_CELL
    source = BOOTSTRAP_CELL
    for english, portuguese in _BOOTSTRAP_PT:
        english = english.replace("{{", "{").replace("}}", "}")
        portuguese = portuguese.replace("{{", "{").replace("}}", "}")
        if english not in source:
            raise ValueError(f"the bootstrap cell no longer says {english!r}: update _BOOTSTRAP_PT")
        source = source.replace(english, portuguese)
    return source


def _bootstrap_cell(language: str) -> nbformat.NotebookNode:
    """A fresh bootstrap code cell: plain (no nbgrader metadata), no outputs, a stable id, its code
    shown collapsed (JupyterLab's source_hidden; Colab's form view shows the #@title line alone)."""
    cell = nbformat.v4.new_code_cell(bootstrap_source(language))
    cell.id = "bootstrap"
    cell.metadata = {"cellView": "form", "jupyter": {"source_hidden": True}}
    return cell


def released(nb: nbformat.NotebookNode, lesson: str, language: str = "en") -> nbformat.NotebookNode:
    """`nb` (a lesson of `course/`, or an edition of it) as students get it, changed in place: the
    open line under the title of its first (markdown) cell, each Mermaid diagram told in words
    (`diagram_text`), and the bootstrap cell of `language` as its first code cell, right after
    the title (an older one is replaced). Idempotent."""
    title = nb.cells[0]
    if title.cell_type != "markdown":
        raise ValueError(f"{lesson}: the first cell is not the title (markdown) cell")
    title.source = with_open_line(title.source, lesson, language)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = with_diagram_text(cell.source, language)
    nb.cells = [c for c in nb.cells if c.get("id") != "bootstrap"]
    nb.cells.insert(1, _bootstrap_cell(language))
    return nb


def source_only(nb: nbformat.NotebookNode) -> bool:
    """Take what `released` adds out of a `course/` notebook (in place); True if it had any."""
    before = nbformat.writes(nb)
    if nb.cells[0].cell_type == "markdown":
        nb.cells[0].source = without_open_line(nb.cells[0].source)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = without_diagram_text(cell.source)
    nb.cells = [c for c in nb.cells if c.get("id") != "bootstrap"]
    return nbformat.writes(nb) != before


def last_toolkit_commit(repo: Path) -> str:
    """The last commit of HEAD's history that changed the toolkit (SHIPPED); a toolkit with
    uncommitted changes has no release yet (ValueError)."""
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *SHIPPED], cwd=repo, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    dirty = [line for line in dirty if line.strip() and "__pycache__" not in line]
    if dirty:
        raise ValueError(f"commit the toolkit first: {len(dirty)} file(s) changed, e.g. {dirty[0].strip()}")
    return subprocess.run(["git", "log", "-1", "--format=%H", "--", *SHIPPED], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    """python -m grader.instructor.front_ends --release: make the bootstrap cells of the next build
    install the last commit that changed the toolkit (docs/authoring.md, Releasing)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["--release"]:
        print("usage: python -m grader.instructor.front_ends --release  (then `make build`)", file=sys.stderr)
        return 2
    commit = last_toolkit_commit(REPO)
    TOOLKIT_COMMIT_FILE.write_text(commit + "\n", encoding="utf-8")
    print(f"the bootstrap cells install the toolkit of commit {commit}: now run `make build`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
