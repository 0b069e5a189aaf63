"""nbgrader's Autograde converter, fed with the notebooks the workers executed.

`ParallelAutograde` is nbgrader's own `Autograde` with the results of one submission as a
trait; it hands each notebook's `Result` to the preprocessors through nbgrader's `resources`
(key `RESOURCE`). Two preprocessors stand in for nbgrader's:
- `InjectSanitized` for the sanitize preprocessors: the main process already ran them (the same
  classes, same config) before sending the notebook to a worker;
- `InjectExecuted` for `Execute`: it copies the executed outputs in, and gives every graded cell
  an error output (nbgrader scores it 0) when the notebook could not run or was tampered with.
"""

from __future__ import annotations

import copy

import nbformat
from nbgrader.converters import Autograde
from nbgrader.converters.base import NbGraderException
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade, is_solution
from traitlets import Dict, List

from grader.instructor.grading.records import Result

RESOURCE = "backprop_grade"
TAMPER_ERROR = "TamperingDetected"
FAILED_ERROR = "NotExecuted"


class ParallelAutograde(Autograde):
    """nbgrader autograde for one submission, with its notebooks already executed."""

    results = Dict(help="notebook name -> the worker's Result")
    sanitized = Dict(help="notebook name -> the notebook as the main process sanitised and sent it")
    original_sanitizers = List(help="the course's sanitize preprocessors (used when no result has them)")

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        resources = super().init_single_notebook_resources(notebook_filename)
        resources[RESOURCE] = {
            "result": self.results.get(resources["nbgrader"]["notebook"]),
            "sanitized": self.sanitized.get(resources["nbgrader"]["notebook"]),
            "sanitizers": list(self.original_sanitizers),
        }
        return resources


def mark_graded_cells(nb, ename: str, evalue: str) -> None:
    """Append an error output to every graded code cell: nbgrader then scores it 0."""
    for cell in nb.cells:
        if cell.cell_type == "code" and is_grade(cell) and not is_solution(cell):
            cell.setdefault("outputs", [])
            cell.outputs.append(
                nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])
            )


class InjectSanitized(NbGraderPreprocessor):
    """Stands in for nbgrader's sanitize preprocessors (see the module docstring)."""

    def preprocess(self, nb, resources):
        sanitized: dict | None = resources[RESOURCE]["sanitized"]
        if sanitized is not None:
            return nbformat.from_dict(copy.deepcopy(sanitized)), resources
        for cls in resources[RESOURCE]["sanitizers"]:
            nb, resources = cls(parent=self.parent, config=self.config)(nb, resources)
        return nb, resources


class InjectExecuted(NbGraderPreprocessor):
    """Stands in for nbgrader's Execute: the notebook was executed by a worker."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        key = (info["student"], info["assignment"], info["notebook"])
        result: Result | None = resources[RESOURCE]["result"]
        if result is None:
            raise NbGraderException(f"backprop-grade: no execution result for {key}")
        if result.notebook is None:
            reason = result.reason or "the notebook could not be executed"
            mark_graded_cells(nb, FAILED_ERROR, reason.splitlines()[0])
        else:
            _copy_outputs(nb, nbformat.from_dict(result.notebook), key)
        tampered = result.with_severity("tamper")
        if tampered:
            message = "; ".join(sorted({f.message for f in tampered}))[:500]
            mark_graded_cells(
                nb,
                TAMPER_ERROR,
                "this notebook changed the grading machinery "
                f"and was flagged for review by the instructor: {message}",
            )
        return nb, resources


def _copy_outputs(nb, executed, key: tuple) -> None:
    """The outputs of the executed notebook into the sanitised one (same cells, or an error)."""
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
    for name in ("language_info", "widgets"):
        if name in executed.metadata:
            nb.metadata[name] = executed.metadata[name]
