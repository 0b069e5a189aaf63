"""A damaged submission is repaired, graded and flagged, never zeroed (grading/repair.py).

The correct solution of 04_layers (on its contract cut, tests/graded_cells.py: the cells a graded
cell can read) in every damaged form of tests/grading/damage.py, handed in through an inbox and
graded by `backprop-grade`: full marks for every form but the two graded as written (a solution
made markdown does not run; of two swapped solutions one comes after its test), each repair in
the report and grades.csv, none of it called tampering; another assignment's notebook is not
graded, and the report says why. The same repair as a command for plain nbgrader users
(`backprop-repair`), and in the self-grader.
"""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.instructor.grading import cli, repair_submitted, selfgrade
from tests.graded_cells import write_contract_cut
from tests.grading import damage
from tests.nbgrader_harness import REPO, ScratchCourse, fill_release, solution_sources

pytestmark = pytest.mark.slow

NAME = "04_layers"

#: student -> (file name in the inbox, what was done to the solved notebook)
FORMS = {  # each form alone is aligned in tests/grading/test_repair.py; here they are combined
    "intact": (f"{NAME}.ipynb", lambda nb: nb),
    "drive_copy": (f"Copy of {NAME}.ipynb", damage.colab_download),
    "pasted_colab": (f"{NAME} (1).ipynb",
                     lambda nb: damage.colab_download(damage.pasted_into_a_fresh_notebook(nb))),
    "duplicated": (f"{NAME}.ipynb", damage.duplicated_test_cell),
    "deleted": (f"{NAME}.ipynb", damage.deleted_test_cell),
    "own_cells": (f"{NAME}.ipynb",
                  lambda nb: damage.pasted_into_a_fresh_notebook(damage.own_cells_added(nb))),
    "swapped": (f"{NAME}.ipynb",
                lambda nb: damage.pasted_into_a_fresh_notebook(damage.solutions_swapped(nb))),
    "markdown": (f"{NAME}.ipynb", damage.solution_made_markdown),
}


@pytest.fixture
def course(tmp_path_factory) -> ScratchCourse:
    root = tmp_path_factory.mktemp("repaired")
    cut = write_contract_cut(REPO / "course" / NAME, NAME, root / "cut")
    return ScratchCourse(root / "course-root", NAME, source=cut)


def _solved(course: ScratchCourse):
    return fill_release(course.release_nb, solution_sources(course.source_nb))


def _totals(course: ScratchCourse) -> dict[str, float]:
    with Gradebook(course.db_url) as gb:
        return {s.student.id: float(s.score) for s in gb.find_assignment(NAME).submissions}


def test_every_damaged_form_is_repaired_graded_and_listed(course, tmp_path: Path, capsys) -> None:
    inbox = tmp_path / "inbox"
    for student, (file_name, damaged) in FORMS.items():
        (inbox / student).mkdir(parents=True)
        nbformat.write(damaged(_solved(course)), inbox / student / file_name)
    (inbox / "elsewhere").mkdir()
    other = nbformat.read(REPO / "exercises" / "05_softmax" / "05_softmax.ipynb", as_version=4)
    nbformat.write(other, inbox / "elsewhere" / f"{NAME}.ipynb")

    code = cli.main([NAME, str(inbox), "--course-dir", str(course.root), "--no-sandbox", "--no-feedback"])
    out = capsys.readouterr().out
    assert code == 0, out
    full = sum(float(c.metadata["nbgrader"]["points"]) for c in course.source_nb.cells
               if c.metadata.get("nbgrader", {}).get("grade"))
    last_solution = [c.metadata["nbgrader"]["grade_id"] for c in course.release_nb.cells
                     if c.metadata.get("nbgrader", {}).get("solution")][-1]
    totals = _totals(course)
    assert "elsewhere" not in totals, "another assignment's notebook was graded"
    as_written = {"markdown", "swapped"}  # the exercise's code does not run / runs after its test
    whole = {s: t for s, t in totals.items() if s not in as_written}
    assert whole == dict.fromkeys(set(FORMS) - as_written, full), totals
    assert all(0 < totals[s] < full for s in as_written), totals

    grading = course.root / "grading"
    rows = {row["student_id"]: row for row in csv.DictReader((grading / "grades.csv").open())}
    report = (grading / "report.md").read_text()
    assert "tamper" not in report.lower(), "a repair was called tampering"
    intact = {"intact", "drive_copy"}  # nothing nbgrader needs is missing there
    for student in FORMS:
        assert ("repaired (" in rows[student]["flags"]) == (student not in intact), (student, rows[student])
    assert "repaired (a duplicated copy of" in rows["duplicated"]["flags"]  # the CSV says how, too
    assert f"solution cell {last_solution} is markdown: graded as written" in report
    assert "nbgrader metadata restored on" in report and "put back from the release" in report
    assert "a duplicated copy of" in report
    assert f"submitted/elsewhere/{NAME}/{NAME}.ipynb" in report and "cannot be aligned" in report
    assert "REPAIRED pasted_colab" in out


def test_plain_nbgrader_users_repair_submitted_then_autograde(course) -> None:
    course.submit("plain_pasted", damage.pasted_into_a_fresh_notebook(_solved(course)))
    course.submit("plain_other", nbformat.read(REPO / "exercises" / "05_softmax" / "05_softmax.ipynb",
                                               as_version=4))
    said: list[str] = []
    assert repair_submitted.repair_submitted(course.root, NAME, say=said.append) == 1
    assert any(s.startswith("plain_pasted") and "metadata restored" in s for s in said), said
    assert any(s.startswith("plain_other") and "NOT REPAIRED" in s for s in said), said
    folder = course.root / "submitted" / "plain_pasted" / NAME
    assert (folder / f"{NAME}.ipynb.orig").is_file()
    scores = course.autograde("plain_pasted")
    assert all(c.score == c.max_score for c in scores.values()), scores
    assert repair_submitted.main([str(course.root), NAME]) == 1  # the other notebook still cannot be aligned


def test_the_self_grader_repairs_too(course, tmp_path: Path, capsys) -> None:
    mine = tmp_path / f"Copy of {NAME}.ipynb"
    nbformat.write(damage.colab_download(damage.pasted_into_a_fresh_notebook(_solved(course))), mine)
    result = selfgrade.selfgrade(mine, course=course.root / "course", assignment=NAME, sandbox="none")
    assert result["score"] == result["max_score"] > 0, result["cells"]
    assert any("metadata restored" in r for r in result["summary"].repaired), result["summary"].repaired
