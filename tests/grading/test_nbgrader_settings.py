"""The course's nbgrader settings, checked on a tiny synthetic assignment with real nbgrader:
warnings never cost points, a stuck cell is interrupted without losing the rest, and a failing
cell shows a plain Python traceback."""

from __future__ import annotations

import re

import nbformat
import pytest

from tests.nbgrader_harness import ScratchCourse, fill_release

pytestmark = pytest.mark.slow

NAME = "00_settings"

SOLUTION = "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
WARNING_TEST = """\
import sys, warnings
import numpy as np
import torch
np.exp(np.array([1000.0]))                       # numpy RuntimeWarning: overflow
warnings.warn("torch-style warning", UserWarning)  # what torch prints
print("a note on stderr", file=sys.stderr)
assert double(2) == 4
### BEGIN HIDDEN TESTS
assert double(-3) == -6
### END HIDDEN TESTS"""
LATER_TEST = "assert double(5) == 10"


def _cell(source: str, **meta) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    if meta:
        cell.metadata["nbgrader"] = {"schema_version": 3, "locked": False, **meta}
    return cell


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> ScratchCourse:
    source = tmp_path_factory.mktemp("src") / NAME
    source.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        _cell(SOLUTION, solution=True, grade=False, grade_id="double"),
        _cell(WARNING_TEST, solution=False, grade=True, locked=True, points=2, grade_id="warns"),
        _cell("SLOT", solution=True, grade=False, grade_id="student_code"),
        _cell(LATER_TEST, solution=False, grade=True, locked=True, points=1, grade_id="later"),
    ]
    nb.cells[2].source = "### BEGIN SOLUTION\npass\n### END SOLUTION"
    nbformat.write(nb, source / f"{NAME}.ipynb")
    # A short cell limit so the stuck-cell case runs fast; everything else is the course's.
    return ScratchCourse(tmp_path_factory.mktemp("course"), NAME, source=source,
                         extra_config="\nc.Execute.timeout = 5\n")


def test_warnings_on_stderr_cost_no_points(course: ScratchCourse) -> None:
    course.submit("warner", fill_release(course.release_nb, {"double": SOLUTION}))
    scores = course.autograde("warner")
    assert scores["warns"].score == 2
    assert scores["later"].score == 1


def test_a_stuck_cell_is_interrupted_and_the_rest_is_graded(course: ScratchCourse) -> None:
    nb = fill_release(course.release_nb, {"double": SOLUTION, "student_code": "while True:\n    pass"})
    course.submit("looper", nb)
    scores = course.autograde("looper")
    assert scores["warns"].score == 2
    assert scores["later"].score == 1


def _traceback(nb, grade_id: str) -> str:
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert errors, f"{grade_id} raised nothing"
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0].traceback))  # without the colours


def test_a_failing_cell_shows_a_plain_python_traceback(course: ScratchCourse, tmp_path) -> None:
    """IPython's "Plain" mode (nbgrader_config.py), through plain nbgrader and backprop-grade."""
    from grader.instructor.grading.pipeline import Options, grade

    wrong = fill_release(course.release_nb, {"double": "def double(x):\n    return 3 * x"})
    course.submit("wrong", wrong)
    assert course.autograde("wrong")["warns"].score == 0
    plain = _traceback(course.autograded_notebook("wrong"), "warns")
    ours_course = ScratchCourse(tmp_path, NAME, source=course.root / "course" / NAME)
    ours_course.submit("wrong", wrong)
    summary = grade(Options(course_dir=ours_course.root, assignment=NAME, workers=1, feedback=False,
                            progress=lambda _: None))
    assert not summary.failed, summary
    ours = _traceback(ours_course.autograded_notebook("wrong"), "warns")
    for text in (plain, ours):
        assert "Traceback (most recent call last)" in text and "----> " not in text, text
