"""The lying-object corpus gains nothing, on every lesson, through both graders.

tests/grading/liars/corpus.py wraps the instructor's solution so that every value it hands out holds
WRONG data (the right answer + 1) behind Python methods that all answer like the right one:
ndarray and float subclasses ("subclass"), objects with a lying __array__ / __float__ /
__array_priority__, dict subclasses whose __getitem__ lies, Values whose grad is a property
("duck"). The honest twin ("plain") holds the same wrong data in honest containers. On every
graded cell a liar must score no more than its twin, graded by the real nbgrader on the
lesson's hidden tests alone: graded cells cut to their hidden part (on the full notebook a liar
already fails at a cell's first visible check, and the hidden tests would never meet it), and
the lesson cut to its contract (tests/graded_cells.py: its setup, locked, solution and graded
cells, all a graded cell may read), in a scratch course whose nbgrader source is that cut.

- through plain `nbgrader autograde`: every liar, and the twin;
- through `backprop-grade` (with its tamper scan and integrity guard; unsandboxed, which starts
  its kernels warm, see `_pipeline_scores`), on the same course: every liar scores exactly what
  plain nbgrader gave it, cell by cell, and is graded by the checks, not zeroed as tampering.
  On the lessons of PIPELINE_SAMPLE: what the pipeline adds (the scan, the guard) reads the
  submission's code, which is the corpus's own wrapper in every lesson, so the sample covers
  each kind of value a lesson hands out: Values (03), numbers, arrays and a class holding a dict
  of parameters (06), tuples of arrays and caches, several outputs per call (10).
  (That the two grade honest submissions alike, sandboxed, is
  tests/grading/pipeline/test_equivalence.py.)

The demonstrations the cut drops (training loops, sweeps, figures, widgets) never reach a graded
cell, so a liar scores on the cut what it scores on the full lesson, in a fraction of the time.
The corpus reads none of the notebook's names (its `liar_seal` wraps what its own cell defined),
so the instructor notebook's cut is every lying notebook's cut, and tests/cases/test_corpus.py
shows, per lesson, that the instructor's solution loses no point on it.

Before the trusted path (grader/trusted.py) the "subclass" liar scored 9 of 11 points on
01_derivatives through plain nbgrader, where its twin scores 1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.instructor.build import assignments
from grader.instructor.grading.pipeline import Options, grade
from tests.grading.liars.run import corpus_course, gains, grade_corpus
from tests.grading.liars.submissions import LIARS
from tests.nbgrader_harness import ScratchCourse

pytestmark = pytest.mark.slow


def _pipeline_scores(course: ScratchCourse) -> dict[str, dict[str, float]]:
    """mode -> grade_id -> score of every liar of `course`, graded again by backprop-grade (the
    twin's submission taken away first: the comparison is liar against liar)."""
    import shutil

    from nbgrader.api import Gradebook

    name = course.name
    shutil.rmtree(course.root / "submitted" / "liar_plain")
    # Unsandboxed: what this proves is the checks, the tamper scan and the integrity guard on the
    # liars; the sandbox holds no liar back (tests/grading/pipeline/ shows it confines and changes
    # no grade), and unsandboxed kernels start warm in the suite (tests/warm_kernels.py).
    options = Options(course_dir=course.root, assignment=name, workers=2, feedback=False,
                      sandbox="none", progress=lambda _: None)
    summary = grade(options)
    # Graded by the checks, not zeroed as tampering ("suspicious" only flags it for review).
    assert not summary.failed and not [f for f in summary.flagged if "tamper" in f], summary
    with Gradebook(course.db_url) as gb:
        return {mode: {g.name: float(g.score) for g in
                       gb.find_submission_notebook(name, name, f"liar_{mode}").grades}
                for mode in LIARS}


#: The lessons whose liars are graded by backprop-grade too (every lesson's, by plain nbgrader).
PIPELINE_SAMPLE = ("03_autograd", "06_two_layer_net", "10_rnn")


@pytest.mark.parametrize("name", assignments())
def test_liars_gain_nothing(tmp_path: Path, name: str) -> None:
    course = corpus_course(name, tmp_path, hidden=True)
    plain = grade_corpus(course)
    assert not gains(plain), f"{name}, plain nbgrader, hidden tests alone:\n" + "\n".join(gains(plain))
    full = sum(plain["points"].values())
    assert sum(plain["plain"].values()) < full, f"{name}: the twin's wrong data scored full marks"
    if name not in PIPELINE_SAMPLE:
        return
    ours = _pipeline_scores(course)
    for mode in LIARS:
        nbgrader_scores = {cell: float(score) for cell, score in plain[mode].items()}
        assert ours[mode] == nbgrader_scores, (
            f"{name}, {mode}: backprop-grade {ours[mode]} != plain nbgrader {nbgrader_scores}")


def test_the_pipeline_sample_names_lessons_of_the_course() -> None:
    assert set(PIPELINE_SAMPLE) <= set(assignments()), sorted(set(PIPELINE_SAMPLE) - set(assignments()))
