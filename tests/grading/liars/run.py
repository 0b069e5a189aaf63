"""Grade the lying corpus of one lesson with plain nbgrader and print a score table.

    python -m tests.grading.liars.run 04_layers            # the notebook as it is
    python -m tests.grading.liars.run 04_layers --hidden   # its hidden tests alone, on the cut lesson

Every liar must score no more than the honest twin ("plain") on every graded cell.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.grading.liars.submissions import LIARS, MODES, cut_source, lying_notebook
from tests.nbgrader_harness import REPO, ScratchCourse, graded_cells


def corpus_course(name: str, root: Path, hidden: bool = False) -> ScratchCourse:
    """A scratch course of lesson `name` with one submission per mode, `liar_<mode>`.

    `hidden`: the graded cells cut to their hidden tests, and the lesson cut to what they need.
    """
    source = cut_source(name, REPO, root / "hidden-only", hidden=True) if hidden else None
    course = ScratchCourse(root / "course-root", name, source=source)
    for mode in MODES:
        course.submit(f"liar_{mode}", lying_notebook(course.source_nb, course.release_nb, mode))
    return course


def grade_corpus(course: ScratchCourse) -> dict[str, dict[str, float]]:
    """mode -> grade_id -> score, every mode of `corpus_course` autograded by plain nbgrader;
    "points" -> grade_id -> the cell's points."""
    scores = {mode: {k: v.score for k, v in course.autograde(f"liar_{mode}").items()} for mode in MODES}
    scores["points"] = graded_cells(course.source_nb)
    return scores


def gains(scores: dict[str, dict[str, float]]) -> list[str]:
    """Every (liar, cell) that scored more than the plain twin."""
    return [
        f"{mode} {cell}: {scores[mode][cell]} > plain {scores['plain'][cell]}"
        for mode in LIARS
        for cell in scores["points"]
        if scores[mode].get(cell, 0.0) > scores["plain"].get(cell, 0.0)
    ]


def main(name: str, hidden: bool) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        scores = grade_corpus(corpus_course(name, Path(tmp), hidden))
    print(f"{'cell':44} {'points':>6} " + " ".join(f"{m:>9}" for m in MODES))
    for cell, points in scores["points"].items():
        print(f"{cell:44} {points:6g} " + " ".join(f"{scores[m].get(cell, 0):9g}" for m in MODES))
    bad = gains(scores)
    print("\n".join(["LIARS GAINED POINTS:", *bad]) if bad else "OK: no liar scored more than its twin")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], "--hidden" in sys.argv[2:]))
