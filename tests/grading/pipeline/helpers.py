"""Scratch nbgrader courses for the grading-pipeline tests.

`SynthCourse` builds a tiny two-notebook assignment (no torch, so kernels start fast) whose
tests use what a tamperer would attack: numpy (np.allclose), the course's check_close, and a
builtin (abs). `part1` has a free cell (`student_code`) where the hostile and tampering students
put their code; `part2` is always answered correctly, to check that one broken notebook costs a
student nothing elsewhere.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import nbformat

from grader.instructor.nbgrader_env import nbgrader_api
from tests.nbgrader_harness import REPO

ASSIGNMENT = "00_synth"

SETUP = "import numpy as np\nimport math\nfrom grader import by_hand, check_close, rel_error"
DOUBLE = "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
TEST1 = """\
check_close("double(1.5)", by_hand(double)(np.array([1.5])), np.array([3.0]))
assert np.allclose(double(np.arange(3.0)), [0.0, 2.0, 4.0]), "double is wrong on 0, 1, 2"
### BEGIN HIDDEN TESTS
assert np.allclose(double(np.array([-7.25])), [-14.5]), "double(-7.25) should be -14.5 (secret check 17)"
assert abs(double(0.1) - 0.2) < 1e-12, "double(0.1) should be 0.2 (secret check 18)"
### END HIDDEN TESTS"""
FREE = "### BEGIN SOLUTION\npass\n### END SOLUTION"
TEST2 = """\
assert double(5) == 10
### BEGIN HIDDEN TESTS
assert abs(double(-1.5) + 3.0) < 1e-12, "double(-1.5) should be -3 (secret check 19)"
### END HIDDEN TESTS"""
TRIPLE = "def triple(x):\n    ### BEGIN SOLUTION\n    return 3 * x\n    ### END SOLUTION"
TEST3 = """\
assert triple(2) == 6
### BEGIN HIDDEN TESTS
assert triple(-4) == -12, "triple(-4) should be -12 (secret check 20)"
### END HIDDEN TESTS"""

POINTS = {"part1": {"test_double": 2.0, "test_later": 1.0}, "part2": {"test_triple": 1.0}}


def _cell(source: str, **meta) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    if meta:
        cell.metadata["nbgrader"] = {
            "schema_version": 3,
            "locked": False,
            "solution": False,
            "grade": False,
            **meta,
        }
    return cell


def _notebook(cells: list) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("A synthetic assignment for the grading tests.")] + cells
    return nb


def source_notebooks() -> dict[str, nbformat.NotebookNode]:
    return {
        "part1": _notebook(
            [
                _cell(SETUP, locked=True, grade_id="setup"),
                _cell(DOUBLE, solution=True, grade_id="double"),
                _cell(TEST1, grade=True, locked=True, points=2, grade_id="test_double"),
                _cell(FREE, solution=True, grade_id="student_code"),
                _cell(TEST2, grade=True, locked=True, points=1, grade_id="test_later"),
                _cell("print('the end')"),
            ]
        ),
        "part2": _notebook(
            [
                _cell(TRIPLE, solution=True, grade_id="triple"),
                _cell(TEST3, grade=True, locked=True, points=1, grade_id="test_triple"),
            ]
        ),
    }


class SynthCourse:
    """A scratch nbgrader course holding the synthetic assignment, released and in the gradebook."""

    def __init__(self, root: Path, extra_config: str = ""):
        self.root = root
        src = root / "course" / ASSIGNMENT
        src.mkdir(parents=True)
        for name, nb in source_notebooks().items():
            nbformat.write(nb, src / f"{name}.ipynb")
        (root / "nbgrader_config.py").write_text((REPO / "nbgrader_config.py").read_text() + extra_config)
        self.db_url = f"sqlite:///{root / 'gradebook.db'}"
        api = nbgrader_api(root, db_url=self.db_url)
        result = api.generate_assignment(ASSIGNMENT, force=True, create=True)
        assert result["success"], result["log"]
        self.release = {
            n: nbformat.read(root / "exercises" / ASSIGNMENT / f"{n}.ipynb", as_version=4) for n in POINTS
        }

    def answer(self, part: str, answers: dict[str, str]) -> nbformat.NotebookNode:
        nb = nbformat.from_dict(self.release[part])
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if gid in answers:
                cell.source = answers[gid]
        return nb

    def honest(self, part: str, student_code: str = "pass") -> nbformat.NotebookNode:
        if part == "part2":
            return self.answer("part2", {"triple": "def triple(x):\n    return 3 * x"})
        return self.answer(
            "part1", {"double": "def double(x):\n    return 2 * x", "student_code": student_code}
        )

    def submit(self, folder: Path, student: str, notebooks: dict[str, nbformat.NotebookNode]) -> None:
        """Write a student's notebooks in the nbgrader layout under `folder`."""
        target = folder / student / ASSIGNMENT
        target.mkdir(parents=True, exist_ok=True)
        for name, nb in notebooks.items():
            nbformat.write(nb, target / f"{name}.ipynb")

    def scores(self, student: str) -> dict[str, dict[str, float]]:
        from nbgrader.api import Gradebook

        out: dict[str, dict[str, float]] = {}
        with Gradebook(self.db_url) as gb:
            sub = gb.find_submission(ASSIGNMENT, student)
            for nb in sub.notebooks:
                out[nb.name] = {g.name: float(g.score) for g in nb.grades}
        return out

    def needs_review(self, student: str) -> dict[str, bool]:
        from nbgrader.api import Gradebook

        with Gradebook(self.db_url) as gb:
            sub = gb.find_submission(ASSIGNMENT, student)
            return {nb.name: any(g.needs_manual_grade for g in nb.grades) for nb in sub.notebooks}


def tree_digest(root: Path, exclude: tuple[str, ...]) -> dict[str, str]:
    """path -> sha256 of every file under root, except the top-level folders/files in `exclude`."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in exclude or not path.is_file():
            continue
        out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def copy_course(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst)
