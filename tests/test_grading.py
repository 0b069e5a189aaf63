"""Every assignment, graded by the real `nbgrader autograde`:

- the instructor solution scores full marks;
- the untouched student release scores zero and runs to the end;
- each alternative correct solution in tests/cases/NN_topic.py scores full marks;
- each typical mistake loses exactly the graded cells it must lose.

Cases that cannot reach each other's graded cells share one autograde run (tests/case_packs.py),
with the same expectation for every cell: the twelve lessons' 307 cases take 111 runs, plus three
runs per lesson (solution, release, cut solution).

The solution and release runs grade the FULL lesson. The cases are graded on the lesson CUT to
what its graded cells need (tests/notebook_cut.py: the setup, solution and graded cells and every
cell that may bind or change something they read, under the solution's and every case's source;
no demonstration, training loop, sweep, figure or widget that nothing graded reads), as its own
scratch course, so that nbgrader restores and checks the cut's cells. That the cut lost nothing a
graded cell needs is shown per lesson by a fourth run: the solution on the cut lesson must score
exactly its full-lesson score, full marks; a lost point names the cell and what the cut dropped
before it. The cut's release scores zero as the full one does: its graded cells are the full
lesson's, reading the same values, and each fails there on a solution stub.
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
    case_sources,
    fill_release,
    graded_cells,
    load_cases,
    solution_sources,
)
from tests.notebook_cut import Cut, suspects, write_cut

pytestmark = pytest.mark.slow

NAMES = assignments()


@functools.cache
def _cases(name: str) -> list[Case]:
    alternatives, mistakes = load_cases(name)
    cases = [Case("alternative", f"alternative {gid}", {gid: src}, frozenset())
             for gid, src in alternatives.items()]
    return cases + [Case("mistake", m["name"], m["cells"], frozenset(m["must_fail"])) for m in mistakes]


@functools.cache
def _packs(name: str) -> list[Pack]:
    """The lesson's alternatives and mistakes, packed into as few runs as is sound (case_packs)."""
    path = REPO / "course" / name / f"{name}.ipynb"
    return case_packs.pack(nbformat.read(path, as_version=4), _cases(name))


def _runs(name: str) -> list[tuple[str, int]]:
    fixed = [("solution", 0), ("release", 0), ("cut-solution", 0)]
    return fixed + [("pack", i) for i in range(len(_packs(name)))]


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
    """One scratch course of the full lesson per assignment and test process."""
    return ScratchCourse(Path(root), name)


_CUTS: dict[str, Cut] = {}  # lesson -> its cut (what was kept and why), for failure messages


@functools.cache
def _cut_course(name: str, root: str) -> ScratchCourse:
    """One scratch course of the cut lesson per assignment and test process, shared by its cases."""
    folder, _CUTS[name] = write_cut(REPO / "course" / name, name, Path(root) / "cut-source",
                                    extra=case_sources(name))
    return ScratchCourse(Path(root) / "scratch", name, source=folder)


@pytest.fixture
def course(request, tmp_path_factory) -> ScratchCourse:
    params = request.node.callspec.params
    name, base = params["name"], tmp_path_factory.getbasetemp()
    if params["kind"] in ("solution", "release"):
        return _course(name, str(base / f"course-{name}"))
    return _cut_course(name, str(base / f"cut-{name}"))


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
    elif kind in ("solution", "cut-solution"):
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
    if kind == "cut-solution":
        _assert_cut_kept_enough(name, course, student, wrong)
    assert not wrong, f"{name} [{kind} {index}]: {wrong}"
    # The notebook ran to the end: the last code cell was executed.
    autograded = course.autograded_notebook(student)
    code_cells = [c for c in autograded.cells if c.cell_type == "code"]
    assert code_cells[-1].get("execution_count"), "the kernel stopped before the last cell"


def _assert_cut_kept_enough(name: str, course: ScratchCourse, student: str, wrong: dict) -> None:
    """The solution scores on the cut lesson what it scores on the full one: the same graded
    cells, the same points, full marks; else which cell lost and what the cut dropped before it."""
    full = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    assert graded_cells(course.source_nb) == graded_cells(full), f"{name}: the cut changed the graded cells"
    if not wrong:
        return
    cut = _CUTS[name]
    errors = {}
    for cell in course.autograded_notebook(student).cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                gid = cell.metadata.get("nbgrader", {}).get("grade_id")
                errors[gid] = f"{out['ename']}: {out['evalue'][:200]}"
    lines = [f"{gid}: {msg}; {errors.get(gid, 'no error output')}; {suspects(full, cut, gid)}"
             for gid, msg in wrong.items()]
    pytest.fail(f"{name}: the solution lost points on the cut lesson (tests/notebook_cut.py dropped "
                "something a graded cell needs):\n" + "\n".join(lines))
