"""Every exercise asks, then hints, then explains (issue 13), checked statically: no kernels.

For every solution cell of a course notebook:

1. its brief, the run of markdown cells just before it, holds at least one progressive hint,
   `<details><summary>Hint 1: ...</summary>`;
2. after its graded test cell(s) (at least the first of them), and before the next exercise's
   solution cell, a markdown cell holds a collapsed `<details><summary>What you just derived</summary>`.

Solution cells written together (no graded cell between them, e.g. a forward and a backward
function checked after both) share the graded cells that follow the last of them. And every
`<details>` in a markdown cell is closed, with each `<summary>` inside one, blank lines around
its body (JupyterLab 4 renders Markdown and LaTeX inside only then).
"""

from __future__ import annotations

import re

import nbformat
import pytest

from grader.instructor.build import REPO, assignments

NAMES = assignments()
HINT = re.compile(r"<details>\s*<summary>\s*Hint \d+\b")
DERIVED = re.compile(r"<details>\s*<summary>\s*What you just derived\s*</summary>")
TAG = re.compile(r"</?details\b[^>]*>|</?summary\b[^>]*>")


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _is_solution(cell) -> bool:
    return cell.cell_type == "code" and bool(_meta(cell).get("solution"))


def _is_graded(cell) -> bool:
    return bool(_meta(cell).get("grade"))


def _brief(cells: list, index: int) -> list[str]:
    """The markdown cells just before cell `index` (nearest last)."""
    brief = []
    j = index - 1
    while j >= 0 and cells[j].cell_type == "markdown":
        brief.append(cells[j].source)
        j -= 1
    return brief


def _after_tests(cells: list, index: int) -> tuple[int | None, int]:
    """(index of the first graded cell of the exercise at `index`, index of the next exercise).

    Solution cells before the first graded cell belong to the same exercise (written together,
    checked together); the next exercise starts at the first solution cell after a graded cell.
    """
    first = None
    j = index + 1
    while j < len(cells):
        if _is_solution(cells[j]) and first is not None:
            break
        if first is None and _is_graded(cells[j]) and not _is_solution(cells[j]):
            first = j
        j += 1
    return first, j


def _details_problems(source: str) -> list[str]:
    """What is wrong with the <details>/<summary> tags of one markdown cell."""
    problems, depth, in_summary = [], 0, False
    for match in TAG.finditer(source):
        tag = match.group(0).lower()
        if tag.startswith("<details"):
            depth += 1
        elif tag.startswith("</details"):
            depth -= 1
            if depth < 0:
                problems.append("a </details> closes nothing")
                depth = 0
        elif tag.startswith("<summary"):
            if depth == 0:
                problems.append("a <summary> outside any <details>")
            in_summary = True
        elif tag.startswith("</summary"):
            if not in_summary:
                problems.append("a </summary> closes nothing")
            in_summary = False
    if depth > 0:
        problems.append(f"{depth} <details> never closed")
    if source.count("<details") != source.count("</details>"):
        problems.append(
            f"{source.count('<details')} <details> but {source.count('</details>')} </details>")
    if re.search(r"</summary>[ \t]*\n?[ \t]*[^\s<]", source):
        problems.append("no blank line after a </summary> (Markdown inside will not render)")
    if re.search(r"[^\s>][ \t]*\n?[ \t]*</details>", source):
        problems.append("no blank line before a </details> (Markdown inside will not render)")
    return problems


def shape_problems(nb, name: str) -> list[str]:
    """Every way the notebook `nb` (lesson `name`) breaks ask → hint → explain."""
    cells = nb.cells
    problems = []
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown":
            problems += [f"{name} cell {index}: {p}" for p in _details_problems(cell.source)]
        if not _is_solution(cell):
            continue
        where = f"{name}, exercise {_meta(cell).get('grade_id')!r} (cell {index})"
        if not any(HINT.search(source) for source in _brief(cells, index)):
            problems.append(
                f"{where}: the markdown just before the solution cell has no "
                "<details><summary>Hint 1: ...</summary> (ask, then hint)")
        first, stop = _after_tests(cells, index)
        if first is None:
            problems.append(f"{where}: no graded test cell follows it")
            continue
        if not any(cells[j].cell_type == "markdown" and DERIVED.search(cells[j].source)
                   for j in range(first + 1, stop)):
            problems.append(
                f"{where}: no <details><summary>What you just derived</summary> markdown cell "
                f"after its graded cell {_meta(cells[first]).get('grade_id')!r} "
                "and before the next exercise")
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_lesson_shape(name: str) -> None:
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    problems = shape_problems(nb, name)
    assert not problems, "ask → hint → explain:\n" + "\n".join(problems)


def _exercise(grade_id: str, brief: str) -> list:
    v4 = nbformat.v4
    meta = {"schema_version": 3, "grade_id": grade_id}
    return [
        v4.new_markdown_cell(brief),
        v4.new_code_cell("### BEGIN SOLUTION\n### END SOLUTION",
                         metadata={"nbgrader": {**meta, "solution": True, "grade": False}}),
        v4.new_code_cell("check_close('x', 1, 1)", metadata={"nbgrader": {
            **meta, "grade_id": f"test_{grade_id}", "solution": False, "grade": True, "points": 1}}),
        v4.new_markdown_cell("<details><summary>What you just derived</summary>\n\nIt.\n\n</details>"),
    ]


def test_lesson_shape_can_fail() -> None:
    """A synthetic notebook: a missing hint, a missing explanation and broken tags are all named."""
    v4 = nbformat.v4
    hint = "Write it.\n\n<details><summary>Hint 1: a nudge</summary>\n\nLook.\n\n</details>"
    nb = v4.new_notebook()
    nb.cells = _exercise("good", hint) + _exercise("no_hint", "Write it, no hints.")
    assert shape_problems(nb, "99_synthetic") == [
        "99_synthetic, exercise 'no_hint' (cell 5): the markdown just before the solution cell "
        "has no <details><summary>Hint 1: ...</summary> (ask, then hint)"]

    nb.cells[4].source = hint
    nb.cells[7].source = "What you just derived, in the open."
    nb.cells.append(v4.new_markdown_cell("<summary>Loose</summary>\n\n<details><summary>Open"
                                         "</summary>\n\nNever closed."))
    problems = shape_problems(nb, "99_synthetic")
    assert len(problems) == 4, problems
    assert "exercise 'no_hint'" in problems[0] and "What you just derived" in problems[0], problems
    assert problems[1] == "99_synthetic cell 8: a <summary> outside any <details>", problems
    assert problems[2] == "99_synthetic cell 8: 1 <details> never closed", problems
