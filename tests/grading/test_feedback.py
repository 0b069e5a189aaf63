"""Plain `nbgrader generate_feedback`, with the course's nbgrader_config.py, shows no hidden test.

nbgrader's default feedback page prints every hidden test's source, and a failing hidden
assert's traceback quotes its lines (nbgrader #917). The course's config adds the scrubbing
preprocessors of grader/instructor/grading/feedback.py; this test runs the real command line
on failing submissions of 04_layers (the untouched release, two typical mistakes whose hidden
asserts fail, and a lying submission) and reads the pages.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.instructor.grading.feedback import hidden_lines, leaks
from tests.grading.liars.submissions import lying_notebook
from tests.nbgrader_harness import ScratchCourse, fill_release, load_cases, solution_sources

pytestmark = pytest.mark.slow

NAME = "04_layers"


def test_plain_nbgrader_feedback_shows_no_hidden_line(tmp_path: Path) -> None:
    course = ScratchCourse(tmp_path, NAME)
    solutions = solution_sources(course.source_nb)
    _, mistakes = load_cases(NAME)
    liar = lying_notebook(course.source_nb, course.release_nb, "subclass")
    submissions = {"release": course.release_nb, "liar": liar}
    for i, mistake in enumerate(mistakes[:2]):
        submissions[f"mistake_{i}"] = fill_release(course.release_nb, {**solutions, **mistake["cells"]})
    for student, nb in submissions.items():
        course.submit(student, nb)
        scores = course.autograde(student)
        assert sum(s.score for s in scores.values()) < sum(s.max_score for s in scores.values())

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "generate_feedback", NAME, "--force"],
        cwd=course.root, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr

    hidden = hidden_lines(course.source_nb)
    assert len(hidden) > 50, "the hidden tests of 04_layers should have many distinctive lines"
    for student in submissions:
        page = (course.root / "feedback" / student / NAME / f"{NAME}.html").read_text()
        shown = re.sub(r"<style.*?</style>", "", page, flags=re.DOTALL)   # Pygments' CSS says /* Error */
        failures = re.findall(r"\b(NotImplementedError|CheckFailed|BadReturnValue|ForbiddenCall|"
                              r"AssertionError|Traceback)\b", shown)
        assert failures, f"{student}: the page shows no failure at all"
        found = leaks(page, hidden)
        assert not found, f"{student}: {len(found)} hidden lines in the feedback page, e.g. {found[:3]}"


def test_without_the_course_config_nbgrader_leaks(tmp_path: Path) -> None:
    """The check above can fail: nbgrader's own preprocessors put the hidden tests on the page."""
    course = ScratchCourse(tmp_path, NAME, extra_config=(
        "\nc.GenerateFeedback.preprocessors = ['nbgrader.preprocessors.GetGrades', "
        "'nbconvert.preprocessors.CSSHTMLHeaderPreprocessor']\n"))
    course.submit("release", course.release_nb)
    course.autograde("release")
    made = course.api.generate_feedback(NAME, "release")
    assert made["success"], made["log"]
    page = (course.root / "feedback" / "release" / NAME / f"{NAME}.html").read_text()
    assert len(leaks(page, hidden_lines(course.source_nb))) > 50


def test_hidden_lines_are_the_ones_only_hidden_tests_contain() -> None:
    """The tail of a wrapped call that visible code also has is not a hidden line; a real one is."""
    import nbformat

    cell = nbformat.v4.new_code_cell(
        'dx = as_items(layer_backward(dout, cache), "layer_backward\'s result", 3, ("dx", "dw", "db"))\n'
        "### BEGIN HIDDEN TESTS\n"
        'dx = as_items(layer_backward(dout2, cache2), "layer_backward\'s result", 3,\n'
        '              ("dx", "dw", "db"))\n'
        "assert rel_error(dx, secret_reference) < 1e-7\n"
        "### END HIDDEN TESTS\n")
    assert hidden_lines(nbformat.v4.new_notebook(cells=[cell])) == {
        'dx = as_items(layer_backward(dout2, cache2), "layer_backward\'s result", 3,',
        "assert rel_error(dx, secret_reference) < 1e-7",
    }
