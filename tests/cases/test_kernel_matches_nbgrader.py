"""The in-process grader on the contract cut scores, cell by cell, what real `nbgrader autograde`
scores on the whole lesson: for a few cases of one lesson, and for the untouched release.

tests/cases/test_corpus.py grades every case in process; this is the oracle it stands on (the
whole corpus was calibrated against nbgrader, and these runs keep the two in step).
"""

from __future__ import annotations

import pytest

from tests.cases.runner import Case, grade_cases, lesson_cases
from tests.nbgrader_harness import ScratchCourse, fill_release, solution_sources

pytestmark = pytest.mark.slow

LESSON = "05_softmax"


def _sample(cases: list[Case]) -> list[Case]:
    """The first alternative and the first two mistakes that lose different cells."""
    alternatives = [c for c in cases if c.kind == "alternative"][:1]
    mistakes: list[Case] = []
    for case in cases:
        if case.kind == "mistake" and case.must_fail and all(case.must_fail != m.must_fail for m in mistakes):
            mistakes.append(case)
    return alternatives + mistakes[:2]


def test_in_process_scores_equal_nbgrader_scores(tmp_path) -> None:
    course = ScratchCourse(tmp_path / "nbgrader", LESSON)
    solutions = solution_sources(course.source_nb)
    stubs = {c.metadata["nbgrader"]["grade_id"]: c.source for c in course.release_nb.cells
             if c.metadata.get("nbgrader", {}).get("solution")}
    sample = _sample(lesson_cases(LESSON)) + [Case("release", "the release, untouched", stubs, frozenset())]
    _, ours = grade_cases(LESSON, sample, tmp_path / "in-process")
    for index, case in enumerate(sample):
        student = f"case_{index}"
        course.submit(student, fill_release(course.release_nb, {**solutions, **case.cells}))
        theirs = {gid: cell.score for gid, cell in course.autograde(student).items()}
        mine = {gid: score for gid, (score, _) in ours[index].scores.items()}
        assert mine == theirs, f"{case.label}: in process {mine}, nbgrader {theirs}"
    assert not any(score for score, _ in ours[-1].scores.values()), "the release scored points"
