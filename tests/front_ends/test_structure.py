"""A screen reader's map of a lesson (issue 38, WCAG 2.4.6 and 2.4.4): one title per notebook, in
its first cell; headings that never skip a level, so that "next heading" and a headings list show
the lesson's outline; and links whose text says where they go, never "here" or a bare address.
Both editions, the release a student opens and the solved notebook."""

from __future__ import annotations

import re

import nbformat
import pytest

from grader.instructor.build import assignments
from grader.instructor.course_layout import REPO

HEADING = re.compile(r"^(#{1,6})\s+(\S.*)$", re.MULTILINE)
FENCE = re.compile(r"```.*?```", re.DOTALL)  # a diagram's or a code block's lines are no headings
LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
VAGUE = {"here", "link", "this", "click here", "this link", "more", "aqui", "este link", "clique aqui",
         "mais"}

FOLDERS = ["exercises", "exercises/pt", "solutions", "solutions/pt"]


def headings(nb) -> list[tuple[int, int, str]]:
    """(cell index, level, text) of every markdown heading, in order."""
    return [(index, len(m.group(1)), m.group(2).strip()) for index, cell in enumerate(nb.cells)
            if cell.cell_type == "markdown" for m in HEADING.finditer(FENCE.sub("", cell.source))]


def outline_problems(nb) -> list[str]:
    found = headings(nb)
    titles = [(index, text) for index, level, text in found if level == 1]
    problems = [] if [index for index, _ in titles] == [0] else [f"titles (level 1) in cells {titles}"]
    for (_, before, _), (index, level, text) in zip(found, found[1:], strict=False):
        if level > before + 1:
            problems.append(f"cell {index}: level {level} after level {before} ({text[:50]!r})")
    return problems


def link_problems(nb) -> list[str]:
    return [f"cell {index}: link text {m.group(1)!r} for {m.group(2)}"
            for index, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
            for m in LINK.finditer(cell.source)
            if m.group(1).strip().lower() in VAGUE or re.match(r"\s*(https?://|www\.)", m.group(1))]


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("name", assignments())
def test_one_title_headings_in_order_and_links_that_say_where(folder: str, name: str) -> None:
    nb = nbformat.read(REPO / folder / name / f"{name}.ipynb", as_version=4)
    problems = outline_problems(nb) + link_problems(nb)
    assert not problems, f"{folder}/{name}:\n" + "\n".join(problems)


def _notebook(*markdown: str):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(text) for text in markdown]
    return nb


def test_a_skipped_level_a_second_title_and_a_vague_link_are_found() -> None:
    nb = _notebook("# Lesson", "### Too deep", "# Another title\n```mermaid\n# not a heading\n```",
                   "See [here](https://example.org) and [PyTorch's docs](https://pytorch.org).")
    assert outline_problems(nb) == ["titles (level 1) in cells [(0, 'Lesson'), (2, 'Another title')]",
                                    "cell 1: level 3 after level 1 ('Too deep')"]
    assert link_problems(nb) == ["cell 3: link text 'here' for https://example.org"]
