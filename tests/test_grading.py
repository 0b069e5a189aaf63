"""Every assignment, graded by the real `nbgrader autograde`:

- the instructor solution scores full marks;
- the untouched student release scores zero and runs to the end;
- each alternative correct solution in tests/cases/NN_topic.py scores full marks;
- each typical mistake loses exactly the graded cells it must lose.

Cases that cannot reach each other's graded cells share one autograde run (tests/case_packs.py),
with the same expectation for every cell: the nine lessons' 251 cases take 95 runs (plus a solution
and a release run each).
"""

from __future__ import annotations

import functools
from pathlib import Path

import nbformat
import pytest

from grader.instructor.build import assignments
from tests import case_packs
from tests.case_packs import Case, Pack
from tests.nbgrader_harness import (
    REPO,
    ScratchCourse,
    fill_release,
    graded_cells,
    load_cases,
    solution_sources,
)

pytestmark = pytest.mark.slow

NAMES = assignments()


@functools.cache
def _packs(name: str) -> list[Pack]:
    """The lesson's alternatives and mistakes, packed into as few runs as is sound (case_packs)."""
    alternatives, mistakes = load_cases(name)
    cases = [Case("alternative", f"alternative {gid}", {gid: src}, frozenset())
             for gid, src in alternatives.items()]
    cases += [Case("mistake", m["name"], m["cells"], frozenset(m["must_fail"])) for m in mistakes]
    path = REPO / "course" / name / f"{name}.ipynb"
    return case_packs.pack(nbformat.read(path, as_version=4), cases)


def _runs(name: str) -> list[tuple[str, int]]:
    return [("solution", 0), ("release", 0)] + [("pack", i) for i in range(len(_packs(name)))]


def _run_id(name: str, kind: str, index: int) -> str:
    if kind != "pack":
        return f"{name}-{kind}"
    labels = _packs(name)[index].label
    return f"{name}-{index}-{labels[:70]}{'...' if len(labels) > 70 else ''}"


#: Runs of one assignment share a scratch course per test process (`_course`); each run is
#: scheduled on its own, so the runs spread evenly over the xdist workers.
PARAMS = [
    pytest.param(name, kind, index, id=_run_id(name, kind, index))
    for name in NAMES
    for kind, index in _runs(name)
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


@pytest.mark.parametrize("name, kind, index", PARAMS)
def test_autograde(course: ScratchCourse, name: str, kind: str, index: int) -> None:
    points = graded_cells(course.source_nb)
    assert points, f"{name} has no graded cells"
    solutions = solution_sources(course.source_nb)
    must_fail: frozenset[str] = frozenset()
    reach: dict[str, str] = {}
    if kind == "release":
        nb = course.release_nb
        must_fail = frozenset(points)
    elif kind == "solution":
        nb = fill_release(course.release_nb, solutions)
    else:
        run = _packs(name)[index]
        unknown = run.must_fail - set(points)
        assert not unknown, f"{run.label!r} names unknown graded cells {unknown}"
        nb = fill_release(course.release_nb, {**solutions, **run.answers})
        must_fail, reach = run.must_fail, run.reach

    student = f"{kind}_{index}"
    course.submit(student, nb)
    scores = course.autograde(student)

    assert set(scores) == set(points), "autograde did not grade every graded cell"
    wrong = {}
    for grade_id, cell in scores.items():
        expected = 0.0 if grade_id in must_fail else points[grade_id]
        if cell.score != expected:
            case = reach.get(grade_id, "the solution's own code")
            wrong[grade_id] = f"scored {cell.score}/{cell.max_score}, expected {expected} (reached by {case})"
    assert not wrong, f"{name} [{kind} {index}]: {wrong}"
    # The notebook ran to the end: the last code cell was executed.
    autograded = course.autograded_notebook(student)
    code_cells = [c for c in autograded.cells if c.cell_type == "code"]
    assert code_cells[-1].get("execution_count"), "the kernel stopped before the last cell"
