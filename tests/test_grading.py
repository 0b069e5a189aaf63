"""Every assignment, graded by the real `nbgrader autograde`:

- the instructor solution scores full marks;
- the untouched student release scores zero and runs to the end;
- each alternative correct solution in tests/cases/NN_topic.py scores full marks;
- each typical mistake loses exactly the graded cells it must lose.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from grader.instructor.build import assignments
from tests.nbgrader_harness import (
    ScratchCourse,
    fill_release,
    graded_cells,
    load_cases,
    solution_sources,
)

pytestmark = pytest.mark.slow

NAMES = assignments()


def _cases(name: str) -> list[tuple[str, str]]:
    alternatives, mistakes = load_cases(name)
    ids = [("solution", ""), ("release", "")]
    ids += [("alternative", gid) for gid in alternatives]
    ids += [("mistake", m["name"]) for m in mistakes]
    return ids


#: Cases of one assignment share a scratch course per test process; in chunks of this many they
#: spread over the xdist workers (one group per chunk) instead of queueing on one.
CHUNK = 6

PARAMS = [
    pytest.param(name, kind, label, id=f"{name}-{kind}-{label}" if label else f"{name}-{kind}",
                 marks=pytest.mark.xdist_group(f"{name}-{i // CHUNK}"))
    for name in NAMES
    for i, (kind, label) in enumerate(_cases(name))
]


@functools.cache
def _course(name: str, root: str) -> ScratchCourse:
    """One scratch course per assignment and test process, shared by its cases."""
    return ScratchCourse(Path(root), name)


@pytest.fixture
def course(request, tmp_path_factory) -> ScratchCourse:
    name = request.node.callspec.params["name"]
    return _course(name, str(tmp_path_factory.getbasetemp() / f"course-{name}"))


def _student(kind: str, label: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in f"{kind}_{label}")[:60]


@pytest.mark.parametrize("name, kind, label", PARAMS)
def test_autograde(course: ScratchCourse, name: str, kind: str, label: str) -> None:
    points = graded_cells(course.source_nb)
    assert points, f"{name} has no graded cells"
    solutions = solution_sources(course.source_nb)
    alternatives, mistakes = load_cases(name)
    must_fail: set[str] = set()
    if kind == "release":
        nb = course.release_nb
        must_fail = set(points)
    elif kind == "solution":
        nb = fill_release(course.release_nb, solutions)
    elif kind == "alternative":
        nb = fill_release(course.release_nb, {**solutions, label: alternatives[label]})
    else:
        mistake = next(m for m in mistakes if m["name"] == label)
        unknown = set(mistake["must_fail"]) - set(points)
        assert not unknown, f"mistake {label!r} names unknown graded cells {unknown}"
        nb = fill_release(course.release_nb, {**solutions, **mistake["cells"]})
        must_fail = set(mistake["must_fail"])

    student = _student(kind, label)
    course.submit(student, nb)
    scores = course.autograde(student)

    assert set(scores) == set(points), "autograde did not grade every graded cell"
    wrong = {}
    for grade_id, cell in scores.items():
        expected = 0.0 if grade_id in must_fail else points[grade_id]
        if cell.score != expected:
            wrong[grade_id] = f"scored {cell.score}/{cell.max_score}, expected {expected}"
    assert not wrong, f"{name} [{kind} {label}]: {wrong}"
    # The notebook ran to the end: the last code cell was executed.
    autograded = course.autograded_notebook(student)
    code_cells = [c for c in autograded.cells if c.cell_type == "code"]
    assert code_cells[-1].get("execution_count"), "the kernel stopped before the last cell"
