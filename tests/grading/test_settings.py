"""backprop-grade's settings: one set of defaults (grading/settings.py), set in the course's
nbgrader_config.py like nbgrader's own, and overridden on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.instructor.grading import cli
from grader.instructor.grading.pipeline import Options
from grader.instructor.grading.settings import BackpropGrade, course_settings


def _course(tmp_path: Path, lines: str = "") -> Path:
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + lines)
    return tmp_path


def _options(monkeypatch, argv: list[str]) -> Options:
    seen = {}

    def grade(options):
        seen["options"] = options
        raise KeyboardInterrupt        # stop before any grading

    monkeypatch.setattr(cli, "grade", grade)
    assert cli.main(argv) == 130
    return seen["options"]


def test_the_defaults_are_written_once() -> None:
    options, settings = Options(), BackpropGrade()
    for name in ("workers", "scheduler", "memory", "notebook_timeout", "sandbox", "feedback"):
        assert getattr(options, name) == getattr(settings, name), name


def test_the_course_config_sets_them(tmp_path: Path) -> None:
    course = _course(tmp_path, 'c.BackpropGrade.memory = "4G"\nc.BackpropGrade.workers = 3\n')
    settings = course_settings(course)
    assert (settings.memory, settings.workers, settings.notebook_timeout) == ("4G", 3, 1800.0)


def test_the_command_line_wins_and_unset_options_come_from_the_config(tmp_path: Path, monkeypatch) -> None:
    course = _course(tmp_path, 'c.BackpropGrade.memory = "4G"\nc.BackpropGrade.notebook_timeout = 60.0\n'
                               "c.BackpropGrade.feedback = False\n")
    options = _options(monkeypatch, ["01_x", "--course-dir", str(course), "--memory", "1G"])
    got = (options.memory, options.notebook_timeout, options.feedback, options.workers)
    assert got == ("1G", 60.0, False, 0)


@pytest.mark.parametrize("where", ["command line", "config"])
def test_a_bad_memory_size_is_said_clearly(tmp_path: Path, capsys, where: str) -> None:
    lines = 'c.BackpropGrade.memory = "lots"\n' if where == "config" else ""
    argv = ["01_x", "--course-dir", str(_course(tmp_path, lines))]
    argv += ["--memory", "lots"] if where == "command line" else []
    assert cli.main(argv) == 2
    assert "'lots' is not a size like 2G or 512M" in capsys.readouterr().err
