"""The command: an LMS zip in, grades out; re-runs grade only what changed; an interrupted run
loses nothing; --force regrades everything. Also backprop-selfgrade."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.instructor.grading import cli
from grader.instructor.grading.pipeline import Options, grade
from tests.grading.pipeline.helpers import ASSIGNMENT, SynthCourse


def _zip(course: SynthCourse, path: Path, answers: dict[str, str]) -> Path:
    """A Canvas-style download: login_USERID_SUBMISSIONID_NOTEBOOK.ipynb."""
    with zipfile.ZipFile(path, "w") as zf:
        for i, (student, double) in enumerate(sorted(answers.items())):
            part1 = course.answer("part1", {"double": double})
            zf.writestr(f"{student}_{100 + i}_{900 + i}_part1.ipynb", nbformat.writes(part1))
            zf.writestr(f"{student}_{100 + i}_{900 + i}_part2.ipynb", nbformat.writes(course.honest("part2")))
    return path


def _totals(course: SynthCourse) -> dict[str, str]:
    with (course.root / "grading" / "grades.csv").open() as f:
        return {row["student_id"]: row["total"] for row in csv.DictReader(f)}


def test_the_command_resumes_and_regrades(tmp_path: Path, capsys):
    course = SynthCourse(tmp_path / "course")
    right, wrong = "def double(x):\n    return 2 * x", "def double(x):\n    return x"
    first = _zip(course, tmp_path / "a.zip", {"ann": right, "ben": wrong})
    args = [ASSIGNMENT, str(first), "--course-dir", str(course.root), "--workers", "2"]

    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "graded 2 submission(s)" in out and "grades:" in out and "[4/4]" in out
    assert _totals(course) == {"ann": "4", "ben": "1"}
    feedback = course.root / "feedback" / "ann" / ASSIGNMENT / "part1.html"
    stamp = feedback.stat().st_mtime_ns

    # the same download again: nothing to do
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "graded 0 submission(s), 2 unchanged" in out
    assert feedback.stat().st_mtime_ns == stamp

    # ben fixes his notebook: only ben is graded again
    second = _zip(course, tmp_path / "b.zip", {"ann": right, "ben": right})
    assert cli.main([ASSIGNMENT, str(second), "--course-dir", str(course.root)]) == 0
    out = capsys.readouterr().out
    assert "graded 1 submission(s), 1 unchanged" in out and "ben" in out
    assert _totals(course) == {"ann": "4", "ben": "4"}
    assert feedback.stat().st_mtime_ns == stamp

    # --force: everything again
    assert cli.main([ASSIGNMENT, "--course-dir", str(course.root), "--force", "--quiet"]) == 0
    assert "graded 2 submission(s), 0 unchanged" in capsys.readouterr().out


def test_an_interrupted_run_loses_nothing(tmp_path: Path):
    course = SynthCourse(tmp_path / "course")
    inbox = tmp_path / "inbox"
    students = ["s1", "s2", "s3"]
    for s in students:
        course.submit(inbox, s, {"part1": course.honest("part1"), "part2": course.honest("part2")})

    def stop_after_first_student(line: str) -> None:
        # 4 notebooks done among 3 students (2 each): at least one student is complete and saved
        if line.startswith("[5/6]"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        grade(
            Options(
                course_dir=course.root,
                assignment=ASSIGNMENT,
                submissions=inbox,
                workers=2,
                progress=stop_after_first_student,
            )
        )
    done_before = sorted(p.stem for p in (course.root / "grading" / "state" / ASSIGNMENT).glob("*.json"))
    assert 0 < len(done_before) < len(students), f"saved before the interrupt: {done_before}"

    summary = grade(
        Options(course_dir=course.root, assignment=ASSIGNMENT, workers=2, progress=lambda _: None)
    )
    assert sorted(s for s, _ in summary.graded) == sorted(set(students) - set(done_before))
    assert sorted(s for s, _ in summary.skipped) == done_before
    assert _totals(course) == {s: "4" for s in students}


def test_selfgrade_gives_the_class_feedback(tmp_path: Path, capsys):
    from grader.instructor.grading import selfgrade
    from grader.instructor.grading.feedback import hidden_lines, leaks

    course = SynthCourse(tmp_path / "course")
    mine = tmp_path / "work" / "part1.ipynb"
    mine.parent.mkdir()
    nbformat.write(
        course.answer("part1", {"double": "def double(x):\n    return 2 * x + (x == -7.25)"}), mine
    )

    code = selfgrade.main([str(mine), "--course", str(course.root / "course")])
    out = capsys.readouterr().out
    assert code == 0
    assert "✗ test_double" in out and "✓ test_later" in out
    assert "secret check 17" in out  # the hidden check's message says what failed...
    assert "-7.25])), [-14.5]" not in out  # ...its code is not shown
    assert "00_synth: 1 / 3 points" in out
    page = mine.with_name("part1-feedback.html")
    source = nbformat.read(course.root / "course" / ASSIGNMENT / "part1.ipynb", as_version=4)
    assert page.is_file() and not leaks(page.read_text(), hidden_lines(source))


def test_selfgrade_refuses_autograd_in_a_backward_asked_by_hand(tmp_path: Path, capsys):
    """The self-grader scores a shortcut as backprop-grade does (test_hostile_and_tamper's
    "shortcutter"): nothing for the cell, and the exercise's message in its output."""
    from grader.instructor.grading import selfgrade

    course = SynthCourse(tmp_path / "course")
    mine = tmp_path / "work" / "part1.ipynb"
    mine.parent.mkdir()
    shortcut = (
        "def double(x):\n    import torch\n"
        "    t = torch.tensor(np.asarray(x, dtype=float), requires_grad=True)\n"
        "    (t * t).sum().backward()\n    return t.grad.numpy()"
    )
    nbformat.write(course.answer("part1", {"double": shortcut}), mine)

    code = selfgrade.main([str(mine), "--course", str(course.root / "course"), "--no-sandbox"])
    out = capsys.readouterr().out
    assert code == 0
    assert "✗ test_double" in out and "✓ test_later" in out
    assert "backward pass by hand; autograd is the referee here, not the answer" in out
    assert "00_synth: 1 / 3 points" in out


def test_without_a_sandbox_grading_still_works_and_says_so(tmp_path: Path, capsys):
    """Also: the per-notebook time limit stops a slow notebook, not the student's other one."""
    import json

    course = SynthCourse(tmp_path / "course")
    inbox = tmp_path / "inbox"
    slow = "import time\nfor _ in range(60):\n    time.sleep(0.5)"
    course.submit(inbox, "solo", {"part1": course.honest("part1"), "part2": course.honest("part2")})
    course.submit(inbox, "slow", {"part1": course.honest("part1", slow), "part2": course.honest("part2")})
    args = [ASSIGNMENT, str(inbox), "--course-dir", str(course.root), "--no-sandbox"]
    args += ["--notebook-timeout", "6"]
    code = cli.main(args)
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("GRADING UNSANDBOXED") == 2  # at the start and in the summary
    assert _totals(course) == {"solo": "4", "slow": "3"}
    assert course.scores("slow")["part1"] == {"test_double": 2.0, "test_later": 0.0}
    assert "GRADING UNSANDBOXED" in (course.root / "grading" / "report.md").read_text()
    state = json.loads((course.root / "grading" / "state" / ASSIGNMENT / "slow.json").read_text())
    assert state["notebooks"]["part1"]["status"] == "notebook_timeout"
    assert state["notebooks"]["part1"]["sandbox"] == "none"
