"""Every alternative answer scores full marks and every typical mistake loses exactly its cells.

tests/cases/NN_topic.py lists a lesson's alternative correct answers and typical mistakes. They
are graded in process (tests/cases/runner.py and kernel.py): one Python per lesson runs the
lesson's contract cut (setup, locked, solution and graded cells) once with the instructor's
solution and forks at the first cell each case replaces. The instructor's solution must score
full marks on the cut: that is the graded-cell contract, shown dynamically (nothing the cut
dropped reached a graded cell).
"""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from tests.cases.runner import Case, Graded, expectation_errors, grade_cases, lesson_cases
from tests.course.english import code_identifiers, english_in, lesson_identifiers
from tests.nbgrader_harness import REPO
from tests.nbgrader_harness import graded_cells as points

pytestmark = pytest.mark.slow


def english_shown(name: str, cases: list[Case], graded: list[Graded]) -> list[str]:
    """The distinct lines with English words that the mistakes' failed cells show in Portuguese."""
    identifiers = lesson_identifiers(name)
    found: dict[str, None] = {}
    for case, result in zip(cases, graded, strict=True):
        names = identifiers | code_identifiers(list(case.cells.values()))
        for grade_id, text in result.portuguese.items():
            found.update(dict.fromkeys(f"{grade_id}: {line}" for line in english_in(text, names)))
    return list(found)


@pytest.mark.parametrize("name", assignments())
def test_cases_score_as_expected(tmp_path, name: str) -> None:
    cases = lesson_cases(name)
    assert cases, f"tests/cases/{name}.py has no ALTERNATIVES or MISTAKES"
    worth = points(nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4))
    unknown = {case.label: sorted(case.must_fail - set(worth))
               for case in cases if case.must_fail - set(worth)}
    assert not unknown, f"{name}: cases name graded cells the lesson does not have: {unknown}"

    solution, graded = grade_cases(name, cases, tmp_path)
    lost = expectation_errors(solution, worth)
    assert not lost, (f"{name}: the instructor's solution lost points on the contract cut (a graded "
                      f"cell needs a cell outside the setup, locked, solution and graded ones): {lost}")
    wrong = {}
    for case, result in zip(cases, graded, strict=True):
        expected = {gid: 0.0 if gid in case.must_fail else p for gid, p in worth.items()}
        if errors := expectation_errors(result, expected, case.message, case.message_cells):
            wrong[f"{case.kind} {case.label!r}"] = errors
    assert not wrong, f"{name}: {len(wrong)} of {len(cases)} cases scored otherwise than expected:\n" + \
        "\n".join(f"  {label}: {errors}" for label, errors in wrong.items())

    unread = [case.label for case, result in zip(cases, graded, strict=True)
              if case.must_fail and not result.portuguese]
    assert not unread, f"{name}: mistakes whose failed cells were not run again in Portuguese: {unread}"
    english = english_shown(name, cases, graded)
    assert not english, f"{name}: mistakes show Portuguese students English:\n" + "\n".join(english)
