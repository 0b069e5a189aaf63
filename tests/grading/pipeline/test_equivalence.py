"""backprop-grade gives, cell by cell, the grades of plain sequential `nbgrader autograde`.

The real course notebooks, graded twice from identical submissions: once by nbgrader alone
(one student after the other, as `nbgrader autograde` does), once by the pipeline (parallel,
sandboxed, with the integrity guard). Honest submissions only: the solution in both editions and
a typical mistake from tests/cases/ (SAMPLE). Plain nbgrader grades the English ones; the
Portuguese solution, graded by the pipeline in the same run, must get the English solution's
grades cell by cell.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from grader.instructor.grading.pipeline import Options, grade
from tests.nbgrader_harness import REPO, ScratchCourse, fill_release, load_cases, solution_sources

# A sample of 01's cases: full marks in both editions and a partial score (every case is graded by
# tests/cases/test_corpus.py already, and there an alternative answer scores as the solution does;
# the untouched release scores nothing under nbgrader in tests/grading/test_solution_and_release.py).
# Three lessons are graded by both too, cell by cell, with the hostile submissions of
# tests/grading/test_liars.py (`ours[mode] == nbgrader_scores`, on its PIPELINE_SAMPLE).
SAMPLE = {"01_derivatives": (False, 0, [0])}


#: The notebook a student of the Portuguese edition hands in is graded in the same run as the others.
WITH_PORTUGUESE = "01_derivatives"


def _submissions(course: ScratchCourse, name: str) -> dict[str, nbformat.NotebookNode]:
    with_release, n_alt, mistakes_idx = SAMPLE[name]
    solutions = solution_sources(course.source_nb)
    alternatives, mistakes = load_cases(name)
    subs = {"solution": fill_release(course.release_nb, solutions)}
    if name == WITH_PORTUGUESE:
        release_pt = nbformat.read(REPO / "exercises" / "pt" / name / f"{name}.ipynb", as_version=4)
        subs["solution_pt"] = fill_release(release_pt, solutions)
    if with_release:
        subs["release"] = course.release_nb
    for gid in list(alternatives)[:n_alt]:
        subs[f"alt_{gid}"] = fill_release(course.release_nb, {**solutions, gid: alternatives[gid]})
    for i in mistakes_idx:
        subs[f"mistake_{i}"] = fill_release(course.release_nb, {**solutions, **mistakes[i]["cells"]})
    return subs


@pytest.mark.parametrize("name", list(SAMPLE))
def test_same_grades_as_sequential_nbgrader(tmp_path: Path, name: str) -> None:
    plain = ScratchCourse(tmp_path / "plain", name)
    ours = ScratchCourse(tmp_path / "ours", name)
    subs = _submissions(plain, name)
    if "solution_pt" in subs:  # the course's translations: its Portuguese plain cells are instructor code
        shutil.copytree(REPO / "translations", ours.root / "translations")
    # Plain nbgrader grades the English notebooks; the Portuguese one must get the English
    # solution's grades from the pipeline, in the same run as the others.
    twin = {student: "solution" if student == "solution_pt" else student for student in subs}
    for student, nb in subs.items():
        ours.submit(student, nb)
        if twin[student] == student:
            plain.submit(student, nb)
    expected = {student: plain.autograde(student) for student in subs if twin[student] == student}
    expected = {student: expected[twin[student]] for student in subs}

    summary = grade(Options(course_dir=ours.root, assignment=name, workers=2, progress=lambda _: None))
    assert not summary.failed and not summary.problems and not summary.flagged, summary

    from nbgrader.api import Gradebook

    with Gradebook(ours.db_url) as gb:
        for student in subs:
            sub = gb.find_submission_notebook(name, name, student)
            got = {g.name: (g.score, g.max_score) for g in sub.grades}
            want = {gid: (c.score, c.max_score) for gid, c in expected[student].items()}
            assert got == want, f"{name} {student}: pipeline {got} != nbgrader {want}"
            assert not any(g.needs_manual_grade for g in sub.grades)
    if "solution_pt" in subs:  # one run, one gradebook: the Portuguese notebook speaks Portuguese
        _speaks_portuguese(ours.autograded_notebook("solution_pt"), ours.autograded_notebook("solution"))
    # same failing cells, for the same reasons
    for student in subs:
        a, b = plain.autograded_notebook(twin[student]), ours.autograded_notebook(student)
        assert _errors_by_cell(a) == _errors_by_cell(b), student
    # the feedback pages quote no line of the real hidden tests (plain nbgrader's neither:
    # nbgrader_config.py configures the scrubbing; tests/grading/test_feedback.py)
    from grader.instructor.grading.feedback import hidden_lines, leaks

    hidden = hidden_lines(ours.source_nb)
    assert hidden
    for student in subs:
        page = ours.root / "feedback" / student / name / f"{name}.html"
        assert not leaks(page.read_text(), hidden), (student, leaks(page.read_text(), hidden)[:3])
    # both sides got feedback-able, complete notebooks: the last cell ran
    last = [c for c in ours.autograded_notebook("solution").cells if c.cell_type == "code"][-1]
    assert last.get("execution_count")


def _text(nb) -> list[str]:
    """Every printed or displayed text of a notebook (✓ lines are display data, prints are streams)."""
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    return [o.get("text", "") or o.get("data", {}).get("text/plain", "") for o in outputs]


def _speaks_portuguese(pt, en) -> None:
    """The graded Portuguese notebook shows the toolkit's ✓ lines in Portuguese."""
    assert any("O kit do curso" in t for t in _text(pt)), "the Portuguese bootstrap cell did not run"
    english = {line for t in _text(en) for line in t.splitlines() if line.startswith("✓")}
    ours = {line for t in _text(pt) for line in t.splitlines() if line.startswith("✓")}
    assert ours and ours.isdisjoint(english), sorted(ours & english)[:3]


def test_selfgrade_grades_the_portuguese_edition(tmp_path: Path, capsys) -> None:
    from grader.instructor.grading import selfgrade

    name = WITH_PORTUGUESE
    source = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    release_pt = nbformat.read(REPO / "exercises" / "pt" / name / f"{name}.ipynb", as_version=4)
    mine = tmp_path / f"{name}.ipynb"
    nbformat.write(fill_release(release_pt, solution_sources(source)), mine)
    points = sum(float(c.metadata["nbgrader"].get("points", 0)) for c in source.cells
                 if c.metadata.get("nbgrader", {}).get("grade"))
    assert selfgrade.main([str(mine)]) == 0
    out = capsys.readouterr().out
    assert f"{name}: {points:g} / {points:g} points" in out, out[-2000:]


def _errors_by_cell(nb) -> dict[str, list[str]]:
    """cell id -> its errors, for every cell but the bootstrap cell (which the released editions
    carry and a release nbgrader generates from course/ does not)."""
    return {cell.id: _errors(cell) for cell in nb.cells if cell.get("id") != "bootstrap"}


def _errors(cell) -> list[str]:
    return [o.get("ename") for o in cell.get("outputs", []) if o.get("output_type") == "error"]
