"""The nbgrader cells of a notebook, as data: solution sources, graded points, a filled release.

Used by the instructor's tools, the test harness and the benchmarks, so that "which cells are
solution cells" is written once.
"""

from __future__ import annotations

import nbformat

__all__ = ["fill_release", "grade_id", "graded_cells", "nbgrader_meta", "solution_sources"]


def nbgrader_meta(cell) -> dict:
    """The cell's nbgrader metadata ({} for a cell nbgrader does not know)."""
    return cell.metadata.get("nbgrader", {})


def grade_id(cell) -> str | None:
    """The cell's nbgrader grade_id (None for a cell nbgrader does not know)."""
    return nbgrader_meta(cell).get("grade_id")


def solution_sources(nb) -> dict[str, str]:
    """grade_id -> source of every solution cell of `nb`."""
    return {nbgrader_meta(c)["grade_id"]: c.source for c in nb.cells if nbgrader_meta(c).get("solution")}


def graded_cells(nb) -> dict[str, float]:
    """grade_id -> points of every graded cell of `nb`."""
    return {
        nbgrader_meta(c)["grade_id"]: float(nbgrader_meta(c)["points"])
        for c in nb.cells
        if nbgrader_meta(c).get("grade")
    }


def fill_release(release_nb, answers: dict[str, str]) -> nbformat.NotebookNode:
    """A copy of the student release with the solution cells named in `answers` filled in.

    Raises KeyError for a grade_id that is no solution cell of the release.
    """
    nb = nbformat.from_dict(release_nb)
    known = set()
    for cell in nb.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if nbgrader_meta(cell).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
            known.add(grade_id)
    unknown = set(answers) - known
    if unknown:
        raise KeyError(f"no solution cell with grade_id {sorted(unknown)} in the release")
    return nb
