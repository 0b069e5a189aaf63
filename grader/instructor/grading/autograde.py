"""The nbgrader side, in the main process only (the single writer of the gradebook).

- `Course`: an instructor's nbgrader course folder, its config and gradebook.
- `prepare_job`: nbgrader's own sanitize preprocessors (ClearOutput, DeduplicateIds,
  OverwriteKernelspec, OverwriteCells, CheckCellMetadata) applied to one submitted notebook,
  the cell plan for the integrity guard, and the static tamper scan -> a job for execute.run_job.
- `autograde`: nbgrader's real Autograde converter for one student and assignment, with its
  Execute preprocessor replaced by `InjectExecuted`, which takes the outputs computed in
  parallel. IgnorePattern, LimitOutput, SaveAutoGrades, late penalties, the autograded/ folder
  and the gradebook are therefore exactly those of `nbgrader autograde`.
- tampered notebooks: every graded cell gets an error output (nbgrader scores it 0) and
  `needs_manual_grade` is set in the gradebook, so formgrader lists it for review.
"""

from __future__ import annotations

import base64
import copy
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.instructor.grading import tamper
from grader.instructor.nbgrader_env import ensure_venv_on_path, load_config

#: (student, assignment, notebook) -> result of execute.run_job, for InjectExecuted.
RESULTS: dict[tuple[str, str, str], dict] = {}
TAMPER_ERROR = "TamperingDetected"
FAILED_ERROR = "NotExecuted"


class GradingPipelineError(RuntimeError):
    """Something the instructor must fix (no gradebook, unknown assignment...)."""


def _injector_class():
    from nbgrader.preprocessors import NbGraderPreprocessor

    class InjectExecuted(NbGraderPreprocessor):
        """Stands in for nbgrader's Execute: the notebook was executed by a worker."""

        def preprocess(self, nb, resources):
            from nbgrader.converters.base import NbGraderException

            info = resources["nbgrader"]
            key = (info["student"], info["assignment"], info["notebook"])
            result = RESULTS.get(key)
            if result is None:
                raise NbGraderException(f"backprop-grade: no execution result for {key}")
            executed = result.get("notebook")
            if executed is None:
                reason = result.get("reason") or "the notebook could not be executed"
                mark_graded_cells(nb, FAILED_ERROR, reason.splitlines()[0])
            else:
                executed = nbformat.from_dict(executed)
                mine = [(c.cell_type, c.source) for c in nb.cells]
                theirs = [(c.cell_type, c.source) for c in executed.cells]
                if mine != theirs:
                    raise NbGraderException(
                        f"backprop-grade: the executed notebook {key} does not match the sanitised "
                        "submission (was the submission changed while grading?)"
                    )
                for cell, done in zip(nb.cells, executed.cells, strict=True):
                    if cell.cell_type == "code":
                        cell.outputs = done.get("outputs", [])
                        cell.execution_count = done.get("execution_count")
                        if "execution" in done.metadata:
                            cell.metadata["execution"] = done.metadata["execution"]
                for field in ("language_info", "widgets"):
                    if field in executed.metadata:
                        nb.metadata[field] = executed.metadata[field]
            tampered = [f for f in result.get("findings", []) if f["severity"] == "tamper"]
            if tampered:
                message = "; ".join(sorted({f["message"] for f in tampered}))[:500]
                mark_graded_cells(
                    nb,
                    TAMPER_ERROR,
                    "this notebook changed the grading machinery "
                    f"and was flagged for review by the instructor: {message}",
                )
            return nb, resources

    return InjectExecuted


def _sanitized_class(originals: list):
    from nbgrader.preprocessors import NbGraderPreprocessor

    class InjectSanitized(NbGraderPreprocessor):
        """Stands in for nbgrader's sanitize preprocessors: the main process already ran them
        (the same classes, same config) on this submission before sending it to a worker."""

        def preprocess(self, nb, resources):
            info = resources["nbgrader"]
            result = RESULTS.get((info["student"], info["assignment"], info["notebook"])) or {}
            if result.get("sanitized") is not None:
                return nbformat.from_dict(copy.deepcopy(result["sanitized"])), resources
            for cls in originals:
                nb, resources = cls(parent=self.parent, config=self.config)(nb, resources)
            return nb, resources

    return InjectSanitized


def mark_graded_cells(nb, ename: str, evalue: str) -> None:
    """Append an error output to every graded code cell: nbgrader then scores it 0."""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            cell.setdefault("outputs", [])
            cell.outputs.append(
                nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])
            )


@dataclass
class Course:
    """An nbgrader course folder (nbgrader_config.py, source, gradebook, submitted/...)."""

    root: Path
    db_url: str | None = None

    def __post_init__(self) -> None:
        ensure_venv_on_path()
        import logging
        import warnings

        # nbgrader's own SQLAlchemy usage warns on every autograde (harmless)
        warnings.filterwarnings("ignore", message="Object of type", module="nbgrader")
        warnings.filterwarnings("ignore", message="Object of type")

        from nbgrader.apps import NbGraderAPI
        from nbgrader.converters import Autograde, GenerateFeedback
        from traitlets.config import Config

        from grader.instructor.grading.feedback import feedback_preprocessors

        self.root = Path(self.root).resolve()
        if not (self.root / "nbgrader_config.py").is_file():
            raise GradingPipelineError(f"{self.root} has no nbgrader_config.py: not an nbgrader course")
        base = load_config(self.root, self.db_url)
        self.base_config = copy.deepcopy(base)
        config = Config(base)
        pps = list(
            base.get("Autograde", {}).get(
                "autograde_preprocessors", Autograde.autograde_preprocessors.default()
            )
        )
        from nbgrader.preprocessors import Execute

        inject = _injector_class()
        config.Autograde.autograde_preprocessors = [
            inject if isinstance(p, type) and issubclass(p, Execute) else p for p in pps
        ]
        self.sanitize_preprocessors = list(
            base.get("Autograde", {}).get(
                "sanitize_preprocessors", Autograde.sanitize_preprocessors.default()
            )
        )
        config.Autograde.sanitize_preprocessors = [_sanitized_class(self.sanitize_preprocessors)]
        gf = list(
            base.get("GenerateFeedback", {}).get("preprocessors", GenerateFeedback.preprocessors.default())
        )
        config.GenerateFeedback.preprocessors = feedback_preprocessors(gf)
        logging.getLogger("traitlets").setLevel(logging.ERROR)
        self.api = NbGraderAPI(config=config)
        self.api.log.setLevel(logging.ERROR)
        self.coursedir = self.api.coursedir
        self.db_url = self.coursedir.db_url
        self.config = config

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

    def cell_timeout(self) -> int | None:
        from nbgrader.preprocessors import Execute

        value = self.base_config.get("Execute", {}).get("timeout", Execute.timeout.default())
        return value

    # ------------------------------------------------------------------ stage 1: a job
    def sanitize(self, student: str, assignment: str, notebook: str):
        """The submitted notebook after nbgrader's sanitize preprocessors (what Execute gets)."""
        pps = self.sanitize_preprocessors
        path = self.path("submitted", student, assignment) / f"{notebook}.ipynb"
        nb = nbformat.read(path, as_version=4)
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
        return nb

    def instructor_sources(self, assignment: str, notebook: str) -> set[str]:
        """Sources of the instructor's plain code cells (unchanged ones are trusted code)."""
        path = self.source_path(assignment) / f"{notebook}.ipynb"
        if not path.is_file():
            return set()
        nb = nbformat.read(path, as_version=4)
        return {c.source for c in nb.cells if c.cell_type == "code" and "nbgrader" not in c.metadata}

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

    def prepare_job(self, student: str, assignment: str, notebook: str, options: dict) -> dict:
        nb = self.sanitize(student, assignment, notebook)
        trusted_sources = self.instructor_sources(assignment, notebook)
        all_sources = [c.source for c in nb.cells if c.cell_type == "code"]
        aliases = tamper.module_aliases(all_sources)
        plan: list[dict | None] = []
        findings = []
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                plan.append(None)
                continue
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                kind = "student"
            elif meta.get("grade"):
                kind = "graded"
            elif meta.get("locked") or (not meta.get("solution") and cell.source in trusted_sources):
                kind = "trusted"
            else:
                kind = "student"
            tree = tamper.parse(cell.source)
            bound, free = tamper.bound_and_free(tree)
            plan.append({"kind": kind, "free": free, "bound": bound})
            if kind == "student":
                for f in tamper.scan_cell(cell.source, aliases):
                    findings.append({**f.to_dict(), "cell": index, "static": True})
        return {
            "key": [student, assignment, notebook],
            "notebook": nb,
            "files": self.other_files(student, assignment),
            "cells": plan,
            "static_findings": findings,
            "execute_config": self.execute_config(),
            **options,
        }

    # ------------------------------------------------------------------ stage 3: nbgrader
    def autograde(self, student: str, assignment: str) -> dict:
        """nbgrader autograde for one submission (outputs injected from RESULTS)."""
        return self.api.autograde(assignment, student, force=True, create=True)

    def flag_for_review(self, student: str, assignment: str, notebook: str) -> None:
        """Mark every graded cell of a notebook as needing a manual grade (formgrader lists it)."""
        with self.gradebook() as gb:
            sub = gb.find_submission_notebook(notebook, assignment, student)
            for grade in sub.grades:
                grade.needs_manual_grade = True
            gb.db.commit()

    def generate_feedback(self, student: str, assignment: str) -> dict:
        return self.api.generate_feedback(assignment, student, force=True)

    def scores(self, student: str, assignment: str) -> dict[str, dict[str, tuple[float, float]]]:
        """notebook -> grade_id -> (score, max score), from the gradebook."""
        out: dict[str, dict[str, tuple[float, float]]] = {}
        with self.gradebook() as gb:
            sub = gb.find_submission(assignment, student)
            for nb in sub.notebooks:
                out[nb.name] = {g.name: (float(g.score), float(g.max_score)) for g in nb.grades}
        return out
