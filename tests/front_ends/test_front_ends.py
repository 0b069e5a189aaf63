"""Every lesson opens in Colab and on Binder (issue 17), checked statically: no kernels.

For every lesson folder in course/: the README's lesson table links it to `colab_url` and
`binder_url`; the first markdown cell of its release and solution notebooks carries `open_line`
right under the title; the first code cell of both is exactly BOOTSTRAP_CELL, a plain cell (no
nbgrader metadata) that an unchanged student copy keeps trusted when graded. The course notebook
has neither: the build adds them (`front_ends.released`).
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import nbformat
import pytest

from grader.instructor import front_ends
from grader.instructor.build import REPO, assignments
from grader.instructor.grading.autograde import Course, _cell_kind
from grader.instructor.translations import PENDING

NAMES = assignments()
FOLDERS = ("exercises", "solutions")
ROW = re.compile(r"^\| `(\d\d_\w+)` \| (.+) \| (.+) \|$", re.M)


def _notebook(folder: str, name: str) -> nbformat.NotebookNode:
    return nbformat.read(REPO / folder / name / f"{name}.ipynb", as_version=4)


def _first_code_cell(nb: nbformat.NotebookNode):
    return next(c for c in nb.cells if c.cell_type == "code")


def test_the_links_point_at_the_release_notebook() -> None:
    assert front_ends.colab_url("01_derivatives") == (
        "https://colab.research.google.com/github/backprop-course/backprop-course/blob/main/"
        "exercises/01_derivatives/01_derivatives.ipynb")
    assert front_ends.binder_url("01_derivatives") == (
        "https://mybinder.org/v2/gh/backprop-course/backprop-course/HEAD"
        "?urlpath=lab/tree/exercises/01_derivatives/01_derivatives.ipynb")
    for name in NAMES:  # what the links open exists and is committed as the release
        assert (REPO / "exercises" / name / f"{name}.ipynb").is_file(), name


def test_readme_table_links_every_lesson() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "| notebook | what you build | open it in |\n| --- | --- | --- |\n" in readme
    rows = {name: links for name, _, links in ROW.findall(readme)}
    assert sorted(rows) == NAMES, "the README's lesson table and course/ list different lessons"
    for name, links in rows.items():
        assert links == front_ends.readme_links(name), f"README row of {name}: {links}"
    # the badge above the table opens the first lesson the same way
    assert f"]({front_ends.binder_url(NAMES[0])})" in readme


def test_the_portuguese_readme_links_every_portuguese_notebook() -> None:
    readme = (REPO / "README.pt.md").read_text(encoding="utf-8")
    assert "| notebook | o que você constrói | abrir em |\n| --- | --- | --- |\n" in readme
    rows = {name: links for name, _, links in ROW.findall(readme)}
    assert sorted(rows) == NAMES, "README.pt.md's lesson table and course/ list different lessons"
    for name, links in rows.items():
        assert links == front_ends.readme_links(name, "pt"), f"README.pt.md row of {name}: {links}"
        built = (REPO / "exercises" / "pt" / name / f"{name}.ipynb").is_file()
        assert built != ((name, "pt") in PENDING), name
    assert "make lab LANG=pt" in readme and "make test" in readme
    assert "(README.pt.md)" in (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("name", NAMES)
def test_title_cell_opens_the_lesson_in_colab_and_binder(name: str, folder: str) -> None:
    title = _notebook(folder, name).cells[0]
    assert title.cell_type == "markdown"
    lines = title.source.split("\n")
    assert lines[0].startswith("# "), f"{folder}/{name}: the first line is not the title"
    assert lines[1:4] == ["", front_ends.open_line(name), ""], f"{folder}/{name}: {lines[:4]}"
    assert "![" not in front_ends.open_line(name), "no badge image in notebooks (offline JupyterLab)"


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("name", NAMES)
def test_first_code_cell_is_the_bootstrap_cell(name: str, folder: str) -> None:
    nb = _notebook(folder, name)
    cell = _first_code_cell(nb)
    assert cell.source == front_ends.BOOTSTRAP_CELL, (
        f"{folder}/{name}: run `make build`")
    assert "nbgrader" not in cell.metadata, f"{folder}/{name}: the bootstrap cell must be a plain cell"
    assert nb.cells.index(cell) == 1, f"{folder}/{name}: the bootstrap cell follows the title cell"
    # shown collapsed: JupyterLab hides its source, Colab's form view shows the #@title line alone
    assert cell.metadata.get("jupyter", {}).get("source_hidden") is True, f"{folder}/{name}"
    assert cell.metadata.get("cellView") == "form" and cell.source.startswith("#@title "), f"{folder}/{name}"
    if folder == "solutions":  # executed by make build in the course's own environment
        text = "".join(o.get("text", "") for o in cell.outputs)
        assert text == front_ends.NOTHING_TO_DO + "\n", f"{folder}/{name}: {cell.outputs}"
    else:
        assert cell.outputs == [], f"{folder}/{name}: the bootstrap cell carries outputs"


@pytest.mark.parametrize("name", NAMES)
def test_an_unchanged_student_copy_is_trusted_code(name: str) -> None:
    """backprop-grade scans only student cells; the release's bootstrap cell, unchanged, is not one."""
    course = SimpleNamespace(source_path=lambda assignment: REPO / "course" / assignment, _read={},
                             _sources={}, root=REPO)
    course._instructor_notebook = lambda path: Course._instructor_notebook(course, path)
    trusted = Course.instructor_sources(course, name, name)
    released = _first_code_cell(_notebook("exercises", name))
    assert _cell_kind(released, trusted) == "trusted"
    # and so is the Portuguese edition's, with every other plain cell of that edition
    if (name, "pt") in PENDING:
        return
    release_pt = nbformat.read(REPO / "exercises" / "pt" / name / f"{name}.ipynb", as_version=4)
    plain = [c for c in release_pt.cells if c.cell_type == "code" and "nbgrader" not in c.metadata]
    assert plain and all(_cell_kind(c, trusted) == "trusted" for c in plain)


@pytest.mark.parametrize("name", NAMES)
def test_the_course_notebook_is_source_only(name: str) -> None:
    """course/ holds what an author writes: the build adds the open line and the bootstrap cell."""
    nb = _notebook("course", name)
    assert not front_ends.source_only(nb), f"course/{name}: the open line or the bootstrap cell is in course/"
    # not under another id or further down either
    added = {front_ends.bootstrap_source(language) for language in ("en", "pt")}
    assert not [c.id for c in nb.cells if c.source in added or front_ends.TOOLKIT_MARK in c.source], name
    assert not any(front_ends.is_open_line(line) for line in nb.cells[0].source.split("\n")), name


def test_released_is_idempotent_and_source_only_undoes_it() -> None:
    bare = nbformat.v4.new_notebook()
    bare.cells = [nbformat.v4.new_markdown_cell("# Lesson 99 · New\n\nText."),
                  nbformat.v4.new_code_cell("%matplotlib inline")]
    once = front_ends.released(nbformat.from_dict(bare), "99_new")
    twice = front_ends.released(nbformat.from_dict(once), "99_new")
    assert nbformat.writes(once) == nbformat.writes(twice)
    assert [c.source for c in once.cells] == [
        f"# Lesson 99 · New\n\n{front_ends.open_line('99_new')}\n\nText.",
        front_ends.BOOTSTRAP_CELL, "%matplotlib inline"]
    assert front_ends.released(nbformat.from_dict(bare), "99_new", "pt").cells[1].source == (
        front_ends.bootstrap_source("pt"))
    assert front_ends.source_only(once) and [c.source for c in once.cells] == [c.source for c in bare.cells]


