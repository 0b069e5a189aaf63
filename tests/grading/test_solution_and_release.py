"""Every assignment, whole, graded by the real `nbgrader autograde`:

- the instructor solution scores full marks;
- the untouched student release scores zero and runs to the end.

The solution of every lesson with widgets runs with Colab's ipywidgets 7.7.1 first on its
kernel's path (tests/environment/colab_like.py), and a last cell then moves one control of every
widget the lesson made and checks that the widget drew a new picture. With the course's own
ipywidgets 8.1.8, every lesson runs top to bottom when `make build` executes it (and
tests/course/test_generated.py fails when that run is stale), its widgets' classes are driven in
tests/lessons/, and lesson 07's in a real browser (tests/front_ends/browser/).

The alternative answers and typical mistakes of tests/cases/NN_topic.py are graded in process,
on the lesson's contract cut (tests/cases/test_corpus.py); that the in-process grader scores as
nbgrader does is shown by tests/cases/test_kernel_matches_nbgrader.py.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import nbformat
import pytest

from grader.instructor.build import assignments
from tests.environment.colab_like import WIDGET_VIEW, kernel_pythonpath
from tests.nbgrader_harness import REPO, ScratchCourse, fill_release, graded_cells, solution_sources

pytestmark = pytest.mark.slow

#: Appended to a widget lesson's solution: moves one control of every lesson widget one step.
DRIVE_EVERY_WIDGET = r"""
import gc, json, math
import ipywidgets
from grader.lessons.widget_base import LiveControls

def _nudge(control):
    if getattr(control, "options", None) and len(control.options) > 1:
        control.index = (control.index + 1) % len(control.options)
    elif isinstance(control.value, bool):
        control.value = not control.value
    elif isinstance(control, ipywidgets.FloatLogSlider):
        exponent = math.log(control.value, control.base) + control.step
        exponent = exponent if exponent <= control.max else exponent - 2 * control.step
        control.value = control.base ** exponent
    else:
        up = control.value + control.step
        control.value = up if up <= control.max else control.value - control.step

_drawn = []
for _live in [o for o in gc.get_objects() if isinstance(o, LiveControls)]:
    _before, _picture = _live.redraws, _live.png()
    _nudge(next(iter(_live.controls.values())))
    _drawn.append({"widget": type(_live).__name__, "redraws": _live.redraws - _before,
                   "new_picture": _live.png() != _picture})
print(json.dumps({"ipywidgets": ipywidgets.__version__, "drawn": _drawn}))
"""


def _widgets_in(nb) -> int:
    """How many widgets an executed notebook shows."""
    return sum(WIDGET_VIEW in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))


def _widgets_shown(name: str) -> int:
    """How many widgets the executed solution in solutions/ shows."""
    return _widgets_in(nbformat.read(REPO / "solutions" / name / f"{name}.ipynb", as_version=4))


@functools.cache
def _course(name: str, root: str) -> ScratchCourse:
    """One scratch course of the full lesson per assignment and test process."""
    return ScratchCourse(Path(root), name)


@pytest.mark.parametrize("kind", ["solution", "release"])
@pytest.mark.parametrize("name", assignments())
def test_autograde(tmp_path_factory, monkeypatch, name: str, kind: str) -> None:
    course = _course(name, str(tmp_path_factory.getbasetemp() / f"course-{name}"))
    points = graded_cells(course.source_nb)
    assert points, f"{name} has no graded cells"
    widgets_shown = _widgets_shown(name) if kind == "solution" else 0
    if kind == "release":
        nb, must_fail = course.release_nb, frozenset(points)
    else:
        nb, must_fail = fill_release(course.release_nb, solution_sources(course.source_nb)), frozenset()
    if widgets_shown:  # Colab's ipywidgets, and every widget moved at the end
        nb.cells.append(nbformat.v4.new_code_cell(DRIVE_EVERY_WIDGET))
        monkeypatch.setenv("PYTHONPATH", kernel_pythonpath())
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
    if kind == "solution":
        raised = [f"cell {i}: {o['ename']}: {o['evalue'][:200]}" for i, c in enumerate(autograded.cells)
                  for o in c.get("outputs", []) if o.get("output_type") == "error"
                  and "raises-exception" not in c.metadata.get("tags", [])]
        assert not raised, f"{name}: the solution raised an error:\n" + "\n".join(raised)
    if widgets_shown:
        shown = _widgets_in(autograded)
        assert shown == widgets_shown, f"{shown} widgets shown by ipywidgets 7.7.1, {widgets_shown} by 8"
        report = json.loads("".join(o.get("text", "") for o in code_cells[-1].outputs))
        assert report["ipywidgets"] == "7.7.1", report
        assert len(report["drawn"]) >= widgets_shown, report
        stuck = [d for d in report["drawn"] if d["redraws"] != 1 or not d["new_picture"]]
        assert not stuck, f"{name}: widgets that did not redraw a new picture with ipywidgets 7.7.1: {stuck}"
