"""Every assignment, whole, graded by the real `nbgrader autograde`:

- the instructor solution scores full marks;
- the untouched student release scores zero and runs to the end.

The alternative answers and typical mistakes of tests/cases/NN_topic.py are graded in process,
on the lesson's contract cut (tests/cases/test_corpus.py); that the in-process grader scores as
nbgrader does is shown by tests/cases/test_kernel_matches_nbgrader.py.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from grader.instructor.build import assignments
from tests.nbgrader_harness import ScratchCourse, fill_release, graded_cells, solution_sources

pytestmark = pytest.mark.slow


@functools.cache
def _course(name: str, root: str) -> ScratchCourse:
    """One scratch course of the full lesson per assignment and test process."""
    return ScratchCourse(Path(root), name)


@pytest.mark.parametrize("kind", ["solution", "release"])
@pytest.mark.parametrize("name", assignments())
def test_autograde(tmp_path_factory, name: str, kind: str) -> None:
    course = _course(name, str(tmp_path_factory.getbasetemp() / f"course-{name}"))
    points = graded_cells(course.source_nb)
    assert points, f"{name} has no graded cells"
    if kind == "release":
        nb, must_fail = course.release_nb, frozenset(points)
    else:
        nb, must_fail = fill_release(course.release_nb, solution_sources(course.source_nb)), frozenset()
    student = kind
    course.submit(student, nb)
    scores = course.autograde(student)

    assert set(scores) == set(points), "autograde did not grade every graded cell"
    wrong = {}
    for grade_id, cell in scores.items():
        expected = 0.0 if grade_id in must_fail else points[grade_id]
        if cell.score != expected:
            wrong[grade_id] = f"scored {cell.score}/{cell.max_score}, expected {expected}"
    assert not wrong, f"{name} [{kind}]: {wrong}"
    # The notebook ran to the end: the last code cell was executed.
    autograded = course.autograded_notebook(student)
    code_cells = [c for c in autograded.cells if c.cell_type == "code"]
    assert code_cells[-1].get("execution_count"), "the kernel stopped before the last cell"
