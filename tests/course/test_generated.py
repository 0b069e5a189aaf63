"""exercises/ and solutions/ are exactly what `make build` makes from course/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from grader.instructor.build import REPO, assignments, check

NAMES = assignments()
GRADE_ID = re.compile(r"^[a-zA-Z0-9_\-]+$")


def test_course_has_assignments() -> None:
    assert NAMES, "course/ holds no NN_topic/NN_topic.ipynb"


def test_generated_folders_are_fresh() -> None:
    problems = check()
    assert not problems, "run `make build`:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_course_notebook_is_clean(name: str) -> None:
    """Source notebooks: outputs stripped, valid and unique nbgrader metadata."""
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    ids = []
    for index, cell in enumerate(nb.cells):
        where = f"course/{name} cell {index}"
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{where}: outputs not stripped"
        meta = cell.metadata.get("nbgrader")
        if meta is None:
            assert "### BEGIN SOLUTION" not in cell.source, f"{where}: solution without metadata"
            assert "### BEGIN HIDDEN TESTS" not in cell.source, f"{where}: hidden tests in a plain cell"
            continue
        assert meta.get("schema_version") == 3, where
        assert GRADE_ID.match(meta.get("grade_id", "")), f"{where}: bad grade_id"
        ids.append(meta["grade_id"])
        if meta.get("grade"):
            assert float(meta.get("points", 0)) > 0, f"{where}: graded cell without points"
        if meta.get("solution") and cell.cell_type == "code":
            assert "### BEGIN SOLUTION" in cell.source, f"{where}: solution cell without markers"
    assert len(ids) == len(set(ids)), f"course/{name}: duplicate grade_ids"


@pytest.mark.parametrize("name", NAMES)
def test_release_hides_solutions_and_hidden_tests(name: str) -> None:
    text = (REPO / "exercises" / name / f"{name}.ipynb").read_text(encoding="utf-8")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in text, f"exercises/{name} contains {marker!r}"


@pytest.mark.parametrize("edition", ["", "pt/"])
@pytest.mark.parametrize("name", NAMES)
def test_solution_is_clean_and_executed(name: str, edition: str) -> None:
    from grader.instructor.translations import PENDING

    if edition and (name, edition.rstrip("/")) in PENDING:
        assert not (REPO / "solutions" / f"{edition}{name}").exists(), "an unfinished edition is not built"
        return
    path = REPO / "solutions" / f"{edition}{name}" / f"{name}.ipynb"
    name = f"{edition}{name}"
    nb = nbformat.read(path, as_version=4)
    text = json.dumps([c.source for c in nb.cells])
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "MARK SCHEME"):
        assert marker not in text, f"solutions/{name} contains {marker!r}"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code), f"solutions/{name} is not executed"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"solutions/{name} has error outputs: {errors[0].get('ename')}"
    assert all("nbgrader" not in c.metadata for c in nb.cells)


def test_nothing_generated_is_committed() -> None:
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    forbidden = [
        p for p in tracked
        if Path(p).name.startswith("gradebook.db")
        or Path(p).parts[0] in {"submitted", "autograded", "feedback", "release", "source"}
    ]
    assert not forbidden, f"generated nbgrader state is committed: {forbidden}"
