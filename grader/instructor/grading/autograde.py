"""The nbgrader side, in the main process only (the single writer of the gradebook).

- `Course`: an instructor's nbgrader course folder, its config and gradebook.
- `prepare_job`: one submitted notebook aligned with its release (repair.py), then put through
  nbgrader's own sanitize preprocessors (ClearOutput, DeduplicateIds, OverwriteKernelspec,
  OverwriteCells, CheckCellMetadata),
  the cell plan for the integrity guard, and the static tamper scan -> a `Job` for execute.run_job.
- `autograde`: nbgrader's real Autograde converter for one student and assignment, with its
  Execute preprocessor replaced by `InjectExecuted`, which takes the outputs computed in
  parallel (inject.py). IgnorePattern, LimitOutput, SaveAutoGrades, late penalties, the autograded/ folder
  and the gradebook are therefore exactly those of `nbgrader autograde`.
- tampered notebooks: every graded cell gets an error output (nbgrader scores it 0) and
  `needs_manual_grade` is set in the gradebook, so formgrader lists it for review.
"""

from __future__ import annotations

import base64
import copy
import fnmatch
import os
from dataclasses import dataclass, replace
from pathlib import Path

import nbformat
from nbgrader.utils import is_grade, is_locked, is_solution

from grader.instructor import front_ends, translations
from grader.instructor.grading import cell_names, repair, tamper
from grader.instructor.grading.records import CellPlan, Finding, Job, Limits, Result
from grader.instructor.nbgrader_env import ensure_venv_on_path, load_config


class GradingPipelineError(RuntimeError):
    """Something the instructor must fix (no gradebook, unknown assignment...)."""


def _quiet_nbgrader() -> None:
    import logging
    import warnings

    # nbgrader's own SQLAlchemy usage warns on every autograde (harmless)
    warnings.filterwarnings("ignore", message="Object of type", module="nbgrader")
    warnings.filterwarnings("ignore", message="Object of type")
    logging.getLogger("traitlets").setLevel(logging.ERROR)


def _configured(base: dict, section: str, name: str, default: list) -> list:
    return list(base.get(section, {}).get(name, default))


def _grading_config(base):
    """The course's config with nbgrader's Execute and sanitize steps replaced by injections."""
    from nbgrader.converters import Autograde, GenerateFeedback
    from nbgrader.preprocessors import Execute
    from traitlets.config import Config

    from grader.instructor.grading.feedback import feedback_preprocessors
    from grader.instructor.grading.inject import InjectExecuted, InjectSanitized

    config = Config(base)
    default = Autograde.autograde_preprocessors.default()
    pps = _configured(base, "Autograde", "autograde_preprocessors", default)
    config.Autograde.autograde_preprocessors = [
        InjectExecuted if isinstance(p, type) and issubclass(p, Execute) else p for p in pps
    ]
    config.Autograde.sanitize_preprocessors = [InjectSanitized]
    gf = _configured(base, "GenerateFeedback", "preprocessors", GenerateFeedback.preprocessors.default())
    config.GenerateFeedback.preprocessors = feedback_preprocessors(gf)
    return config


def _cell_kind(cell, trusted_sources: set[str]) -> str:
    if is_solution(cell):
        return "student"
    if is_grade(cell):
        return "graded"
    if is_locked(cell) or cell.source in trusted_sources:
        return "trusted"
    return "student"


@dataclass
class Course:
    """An nbgrader course folder (nbgrader_config.py, source, gradebook, submitted/...)."""

    root: Path
    db_url: str | None = None

    def __post_init__(self) -> None:
        ensure_venv_on_path()
        _quiet_nbgrader()
        import logging

        from nbgrader.apps import NbGraderAPI
        from nbgrader.converters import Autograde

        self.root = Path(self.root).resolve()
        if not (self.root / "nbgrader_config.py").is_file():
            raise GradingPipelineError(f"{self.root} has no nbgrader_config.py: not an nbgrader course")
        base = load_config(self.root, self.db_url)
        self.base_config = copy.deepcopy(base)
        self.sanitize_preprocessors = _configured(
            base, "Autograde", "sanitize_preprocessors", Autograde.sanitize_preprocessors.default()
        )
        self.config = _grading_config(base)
        self.api = NbGraderAPI(config=self.config)
        self.api.log.setLevel(logging.ERROR)
        self.coursedir = self.api.coursedir
        self.db_url = self.coursedir.db_url
        self._read: dict[Path, nbformat.NotebookNode | None] = {}
        self._sources: dict[tuple[str, str], set[str]] = {}

    def _instructor_notebook(self, path: Path) -> nbformat.NotebookNode | None:
        """A source or release notebook, read once per run (every submission of it needs it);
        shared: not to be modified. None when there is no such file."""
        if path not in self._read:
            self._read[path] = nbformat.read(path, as_version=4) if path.is_file() else None
        return self._read[path]

    # ------------------------------------------------------------------ layout
    def path(self, kind: str, student: str, assignment: str) -> Path:
        directory = getattr(self.coursedir, f"{kind}_directory")
        return Path(self.coursedir.format_path(directory, student, assignment))

    def source_path(self, assignment: str) -> Path:
        return Path(self.coursedir.format_path(self.coursedir.source_directory, ".", assignment))

    def gradebook(self):
        from nbgrader.api import Gradebook

        return Gradebook(self.db_url, self.coursedir.course_id)

    def assignments(self) -> dict[str, list[str]]:
        """assignment -> its notebook names, from the gradebook."""
        with self.gradebook() as gb:
            return {a.name: sorted(n.name for n in a.notebooks) for a in gb.assignments}

    def execute_config(self) -> dict:
        """The Execute/NotebookClient settings of the course, as plain data for the workers."""
        out = {}
        for section in ("NotebookClient", "ExecutePreprocessor", "Execute"):
            if section in self.base_config:
                out[section] = {
                    k: v
                    for k, v in self.base_config[section].items()
                    if isinstance(v, str | int | float | bool | list | dict | type(None))
                }
        return out

    # ------------------------------------------------------------------ stage 1: a job
    def release_notebook(self, assignment: str, notebook: str) -> nbformat.NotebookNode | None:
        """The student version of a notebook (release/ASSIGNMENT/), if the course has it (shared:
        repair.align copies what it changes)."""
        folder = Path(self.coursedir.format_path(self.coursedir.release_directory, ".", assignment))
        return self._instructor_notebook(folder / f"{notebook}.ipynb")

    def sanitize(
        self, student: str, assignment: str, notebook: str
    ) -> tuple[nbformat.NotebookNode, list[str]]:
        """(the submitted notebook, aligned with its release (repair.py) and then put through
        nbgrader's sanitize preprocessors: what Execute gets; the repairs it needed).
        Raises repair.NotThisNotebook for a notebook that cannot be aligned."""
        pps = self.sanitize_preprocessors
        path = self.path("submitted", student, assignment) / f"{notebook}.ipynb"
        nb = nbformat.read(path, as_version=4)
        release = self.release_notebook(assignment, notebook)
        repairs: list[str] = []
        if release is not None:
            aligned = repair.align(nb, release)
            nb, repairs = aligned.notebook, aligned.repairs
        resources = {
            "unique_key": notebook,
            "output_files_dir": f"{notebook}_files",
            "nbgrader": {
                "student": student,
                "assignment": assignment,
                "notebook": notebook,
                "db_url": self.db_url,
            },
        }
        for cls in pps:
            nb, resources = cls(config=self.base_config)(nb, resources)
        return nb, repairs

    def instructor_sources(self, assignment: str, notebook: str) -> set[str]:
        """Sources of the instructor's plain code cells, in every edition the course has a complete
        translation of (`translations/<language>/<assignment>.po`), and the bootstrap cells the build
        adds to a lesson's release (`front_ends.released`): unchanged ones are trusted code."""
        key = (assignment, notebook)
        if key not in self._sources:
            nb = self._instructor_notebook(self.source_path(assignment) / f"{notebook}.ipynb")
            editions = [nb] if nb is not None else []
            for language in translations.EDITIONS if nb is not None and notebook == assignment else ():
                if translations.catalogue_path(assignment, language, self.root).is_file():
                    try:
                        editions.append(translations.translate_notebook(nb, assignment, language, self.root))
                    except translations.TranslationError:
                        pass  # an incomplete edition was never released: its cells are not the instructor's
            cells = [c for e in editions for c in e.cells]
            plain = [c for c in cells if c.cell_type == "code" and "nbgrader" not in c.metadata]
            sources = {c.source for c in plain}
            if notebook == assignment:
                sources |= {front_ends.bootstrap_source(lang) for lang in ("en", *translations.EDITIONS)}
            self._sources[key] = sources
        return self._sources[key]

    def other_files(self, student: str, assignment: str) -> dict[str, str]:
        """The non-notebook files nbgrader puts next to the notebook (base64), as nbgrader does:
        the student's files, then the source folder's files on top (minus exclude_overwriting)."""
        from nbgrader.utils import find_all_files

        ignore = list(self.coursedir.ignore) + ["*.ipynb"]
        files: dict[str, str] = {}
        sub = self.path("submitted", student, assignment)
        src = self.source_path(assignment)
        excluded = set(
            self.base_config.get("Autograde", {}).get("exclude_overwriting", {}).get(assignment, [])
        )
        for folder, skip in ((sub, set()), (src, excluded)):
            if not folder.is_dir():
                continue
            for filename in find_all_files(str(folder), ignore):
                rel = os.path.relpath(filename, folder)
                if rel in skip or any(fnmatch.fnmatch(rel, p) for p in skip):
                    continue
                files[rel] = base64.b64encode(Path(filename).read_bytes()).decode()
        return files

    def prepare_job(
        self, student: str, assignment: str, notebook: str, limits: Limits
    ) -> tuple[Job, list[Finding], list[str]]:
        """(the job for one submitted notebook, the static tamper findings of its student cells,
        the repairs that aligned it with its release)."""
        nb, repairs = self.sanitize(student, assignment, notebook)
        trusted_sources = self.instructor_sources(assignment, notebook)
        aliases = tamper.module_aliases([c.source for c in nb.cells if c.cell_type == "code"])
        plan: list[CellPlan | None] = []
        findings: list[Finding] = []
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                plan.append(None)
                continue
            kind = _cell_kind(cell, trusted_sources)
            bound, free = cell_names.bound_and_free(cell_names.parse(cell.source))
            plan.append(CellPlan(kind, free, bound))
            if kind == "student":
                found = tamper.scan_cell(cell.source, aliases)
                findings += [replace(f, cell=index, static=True) for f in found]
        config = self.execute_config()
        if limits.cell_timeout:
            config.setdefault("Execute", {})["timeout"] = limits.cell_timeout
        files = self.other_files(student, assignment)
        return Job((student, assignment, notebook), nb, files, plan, config, limits), findings, repairs

    # ------------------------------------------------------------------ stage 3: nbgrader
    def autograde(
        self, student: str, assignment: str, results: dict[str, Result],
        sanitized: dict[str, dict] | None = None,
    ) -> dict:
        """nbgrader autograde for one submission, with the executed notebooks (notebook -> Result)
        and the notebooks as sanitised before they were sent (notebook -> nbformat dict).

        Returns nbgrader's API answer: {"success": bool, "error"?: str, "log"?: str}."""
        from nbgrader.utils import capture_log, temp_attrs

        from grader.instructor.grading.inject import ParallelAutograde

        # what NbGraderAPI.autograde does, with our converter
        with temp_attrs(self.coursedir, assignment_id=assignment, student_id=student):
            app = ParallelAutograde(
                coursedir=self.coursedir,
                parent=self.api,
                results=results,
                sanitized=sanitized or {},
                original_sanitizers=self.sanitize_preprocessors,
            )
            app.force = True
            app.create_student = True
            return capture_log(app)

    def flag_for_review(self, student: str, assignment: str, notebook: str) -> None:
        """Mark every graded cell of a notebook as needing a manual grade (formgrader lists it)."""
        with self.gradebook() as gb:
            sub = gb.find_submission_notebook(notebook, assignment, student)
            for grade in sub.grades:
                grade.needs_manual_grade = True
            gb.db.commit()

    def generate_feedback(self, student: str, assignment: str) -> dict:
        return self.api.generate_feedback(assignment, student, force=True)
