"""--scheduler: the notebooks are executed on the workers of a Dask cluster (here a local one
with two worker processes), the gradebook is still written by the command alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.instructor.grading.pipeline import Options, grade
from tests.grading.pipeline.helpers import ASSIGNMENT, SynthCourse

distributed = pytest.importorskip("distributed")


def test_grading_on_a_dask_cluster(tmp_path: Path):
    course = SynthCourse(tmp_path / "course", extra_config="\nc.Execute.timeout = 4\n")
    inbox = tmp_path / "inbox"
    answers = {
        "right": ("def double(x):\n    return 2 * x", "pass"),
        "crash": ("def double(x):\n    return 2 * x", "import faulthandler\nfaulthandler._sigsegv()"),
        "patch": ("def double(x):\n    return x\nnp.allclose = lambda *a, **k: True", "pass"),
    }
    for student, (double, free) in answers.items():
        part1 = course.answer("part1", {"double": double, "student_code": free})
        course.submit(inbox, student, {"part1": part1, "part2": course.honest("part2")})

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    ) as cluster:
        summary = grade(
            Options(
                course_dir=course.root,
                assignment=ASSIGNMENT,
                submissions=inbox,
                scheduler=cluster.scheduler_address,
                progress=lambda _: None,
            )
        )
    assert not summary.failed
    assert len(summary.graded) == len(answers)
    assert course.scores("right") == {
        "part1": {"test_double": 2.0, "test_later": 1.0},
        "part2": {"test_triple": 1.0},
    }
    assert course.scores("crash")["part1"] == {"test_double": 2.0, "test_later": 0.0}
    assert course.scores("patch")["part1"] == {"test_double": 0.0, "test_later": 0.0}
    assert course.needs_review("patch")["part1"] is True
    assert all(course.scores(s)["part2"] == {"test_triple": 1.0} for s in answers)
