"""The lying-object corpus gains nothing, on every lesson, through both graders.

tests/liars/corpus.py wraps the instructor's solution so that every value it hands out holds
WRONG data (the right answer + 1) behind Python methods that all answer like the right one:
ndarray and float subclasses ("subclass"), objects with a lying __array__ / __float__ /
__array_priority__, dict subclasses whose __getitem__ lies, Values whose grad is a property
("duck"). The honest twin ("plain") holds the same wrong data in honest containers. On every
graded cell, through plain `nbgrader autograde` and through `backprop-grade`, a liar must score
no more than its twin; before the trusted path (grader/trusted.py) the "subclass" liar scored
9 of 11 points on 01_derivatives where its twin scores 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.instructor.build import assignments
from grader.instructor.grading.pipeline import Options, grade
from tests.liars.submissions import LIARS, MODES, lying_notebook
from tests.nbgrader_harness import ScratchCourse, graded_cells


def _gradebook_scores(course: ScratchCourse, name: str, student: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url) as gb:
        sub = gb.find_submission_notebook(name, name, student)
        return {g.name: float(g.score) for g in sub.grades}


@pytest.mark.parametrize("name", assignments())
def test_liars_gain_nothing(tmp_path: Path, name: str) -> None:
    plain = ScratchCourse(tmp_path / "nbgrader", name)
    points = graded_cells(plain.source_nb)
    notebooks = {mode: lying_notebook(plain.source_nb, plain.release_nb, mode) for mode in MODES}
    nbgrader_scores = {}
    for mode, nb in notebooks.items():
        plain.submit(f"liar_{mode}", nb)
        nbgrader_scores[mode] = {k: v.score for k, v in plain.autograde(f"liar_{mode}").items()}
    twin = nbgrader_scores["plain"]
    assert sum(twin.values()) < sum(points.values()), f"{name}: the twin's wrong data scored full marks"

    ours = ScratchCourse(tmp_path / "backprop-grade", name)
    for mode in LIARS:
        ours.submit(f"liar_{mode}", notebooks[mode])
    summary = grade(Options(course_dir=ours.root, assignment=name, workers=2, progress=lambda _: None))
    # Graded by the checks, not zeroed as tampering ("suspicious" only flags it for review).
    assert not summary.failed and not [f for f in summary.flagged if "tamper" in f], summary
    pipeline_scores = {mode: _gradebook_scores(ours, name, f"liar_{mode}") for mode in LIARS}

    gained = [
        f"{grader} {mode} {cell}: {scores[mode][cell]:g} > twin {twin[cell]:g}"
        for grader, scores in (("nbgrader", nbgrader_scores), ("backprop-grade", pipeline_scores))
        for mode in LIARS
        for cell in points
        if scores[mode][cell] > twin[cell]
    ]
    assert not gained, f"{name}: lying objects earned points:\n" + "\n".join(gained)
