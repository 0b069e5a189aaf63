"""Autograde submissions with the real nbgrader in a scratch copy of the course."""

from __future__ import annotations

import functools
import importlib.util
import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.instructor.nbgrader_env import nbgrader_api
from grader.instructor.notebook_cells import (  # noqa: F401  (re-exported for the tests)
    fill_release,
    graded_cells,
    nbgrader_meta,
    solution_sources,
)

REPO = Path(__file__).resolve().parents[1]


@dataclass
class CellScore:
    score: float
    max_score: float


def load_cases(name: str) -> tuple[dict[str, str], list[dict]]:
    """ALTERNATIVES and MISTAKES of tests/cases/<name>.py (empty when the file is missing)."""
    path = REPO / "tests" / "cases" / f"{name}.py"
    if not path.is_file():
        return {}, []
    spec = importlib.util.spec_from_file_location(f"cases_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(getattr(module, "ALTERNATIVES", {})), list(getattr(module, "MISTAKES", []))


def case_sources(name: str) -> dict[str, list[str]]:
    """grade_id -> every source tests/cases/<name>.py gives that solution cell (alternatives, mistakes)."""
    alternatives, mistakes = load_cases(name)
    found: dict[str, list[str]] = {gid: [src] for gid, src in alternatives.items()}
    for mistake in mistakes:
        for gid, src in mistake["cells"].items():
            found.setdefault(gid, []).append(src)
    return found


@functools.cache
def course_solutions(name: str) -> dict[str, str]:
    """grade_id -> source of every solution cell of course/<name>/<name>.ipynb (read once)."""
    return solution_sources(nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4))


def edit_once(source: str, old: str, new: str) -> str:
    """`source` with the fragment `old`, which must occur exactly once, replaced by `new`.

    tests/cases derive a mistake from a right answer with it, so that the mistake differs by
    exactly the bug it names and fails loudly when the line it edits is gone.
    """
    if source.count(old) != 1:
        raise ValueError(f"expected exactly one {old!r} in the source, found {source.count(old)}")
    return source.replace(old, new)


def edited_solution(name: str, grade_id: str, *edits: tuple[str, str]) -> dict[str, str]:
    """{grade_id: lesson `name`'s solution of that cell with each (old, new) of `edits` applied}.

    Each `old` must occur exactly once (`edit_once`): a typical mistake in tests/cases is the
    instructor's answer with exactly the bug it names, and it fails loudly when the line is gone.
    """
    source = course_solutions(name)[grade_id]
    for old, new in edits:
        source = edit_once(source, old, new)
    return {grade_id: source}


class ScratchCourse:
    """A scratch nbgrader course (copy of course/ + config) with its own gradebook."""

    def __init__(self, root: Path, name: str, source: Path | None = None, extra_config: str = ""):
        self.root = root
        self.name = name
        shutil.copytree(source or REPO / "course" / name, root / "course" / name)
        config = (REPO / "nbgrader_config.py").read_text() + extra_config
        (root / "nbgrader_config.py").write_text(config)
        self.db_url = f"sqlite:///{root / 'gradebook.db'}"
        self.api = nbgrader_api(root, db_url=self.db_url)
        result = self.api.generate_assignment(name, force=True, create=True)
        assert result["success"], result["log"]
        self.source_nb = nbformat.read(root / "course" / name / f"{name}.ipynb", as_version=4)
        self.release_nb = nbformat.read(
            root / "exercises" / name / f"{name}.ipynb", as_version=4
        )

    def submit(self, student: str, nb) -> None:
        folder = self.root / "submitted" / student / self.name
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(self.root / "exercises" / self.name, folder)
        nbformat.write(nb, folder / f"{self.name}.ipynb")

    def autograde(self, student: str) -> dict[str, CellScore]:
        from nbgrader.api import Gradebook

        result = self.api.autograde(self.name, student, force=True, create=True)
        assert result["success"], f"nbgrader autograde failed for {student}:\n{result['log']}"
        with Gradebook(self.db_url) as gb:
            sub = gb.find_submission_notebook(self.name, self.name, student)
            return {g.name: CellScore(g.score, g.max_score) for g in sub.grades}

    def autograded_notebook(self, student: str):
        path = self.root / "autograded" / student / self.name / f"{self.name}.ipynb"
        return nbformat.read(path, as_version=4)
