"""Grade a lesson's cases (tests/cases/NN_topic.py) in process: one Python per lesson, a fork per case.

`grade_cases(name, cases, workdir)` writes the request tests/cases/kernel.py reads (the lesson's
contract cut, tests/graded_cells.py, and every case's sources), runs it once and returns, for
the instructor's solution and for every case, what each graded cell scored. A case is
`Case(label, cells, must_fail)`; `expectation_errors` compares a case's scores with what it
must score.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from tests.graded_cells import contract_cut, is_graded, is_solution, meta
from tests.nbgrader_harness import REPO, load_cases
from tests.warm_kernels import run_module


@dataclass(frozen=True)
class Case:
    kind: str  # "alternative" or "mistake"
    label: str
    cells: dict[str, str]  # solution grade_id -> source
    must_fail: frozenset[str]
    message: str = ""  # what the error of the cells in message_cells must say (empty: anything)
    message_cells: frozenset[str] = frozenset()  # default: every cell of must_fail


@dataclass
class Graded:
    """What one run scored: grade_id -> (score, error message or "")."""

    scores: dict[str, tuple[float, str]]
    crashed: str = ""
    #: grade_id -> what a failed cell shows when run again in Portuguese (cases only)
    portuguese: dict[str, str] = field(default_factory=dict)


def lesson_cases(name: str) -> list[Case]:
    """Every alternative (full marks expected) and mistake of tests/cases/<name>.py."""
    alternatives, mistakes = load_cases(name)
    cases = [Case("alternative", f"alternative {gid}", {gid: src}, frozenset())
             for gid, src in alternatives.items()]
    # an entry of MISTAKES that must fail nothing is one more correct answer (several for one cell)
    return cases + [Case("mistake" if m["must_fail"] else "alternative", m["name"], m["cells"],
                         frozenset(m["must_fail"]), m.get("message", ""),
                         frozenset(m.get("message_cells", m["must_fail"]))) for m in mistakes]


def _request(nb, cases: list[Case], cwd: Path) -> dict:
    cells = [{"source": c.source, "grade_id": meta(c).get("grade_id", ""), "solution": is_solution(c),
              "points": float(meta(c)["points"]) if is_graded(c) else None}
             for c in contract_cut(nb).cells]
    solution_ids = {c["grade_id"] for c in cells if c["solution"]}
    for case in cases:
        unknown = set(case.cells) - solution_ids
        if unknown:
            raise KeyError(f"{case.label!r} replaces {sorted(unknown)}, not solution cells of the lesson")
    return {"cwd": str(cwd), "cells": cells, "cases": [case.cells for case in cases]}


def _graded(raw: dict) -> Graded:
    if "crashed" in raw:
        return Graded({}, raw["crashed"])
    return Graded({gid: (o["score"], o["error"]) for gid, o in raw.items()},
                  portuguese={gid: o["portuguese"] for gid, o in raw.items() if o.get("portuguese")})


def grade_cases(name: str, cases: list[Case], workdir: Path) -> tuple[Graded, list[Graded]]:
    """(the solution's scores, each case's scores), graded on a copy of course/<name>/."""
    lesson = workdir / name
    shutil.copytree(REPO / "course" / name, lesson)
    nb = nbformat.read(lesson / f"{name}.ipynb", as_version=4)
    request, result = workdir / "request.json", workdir / "result.json"
    request.write_text(json.dumps(_request(nb, cases, lesson)))
    env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
    log = workdir / "kernel.log"
    code = run_module("tests.cases.kernel", [str(request), str(result)], env=env, cwd=str(lesson),
                      log=str(log), timeout=1800)
    if code or not result.exists():
        raise RuntimeError(f"the case kernel of {name} failed (exit code {code}):\n"
                           + log.read_text()[-3000:])
    found = json.loads(result.read_text())
    return _graded(found["solution"]), [_graded(raw) for raw in found["cases"]]


def expectation_errors(graded: Graded, expected: dict[str, float], message: str = "",
                       failing: frozenset[str] = frozenset()) -> dict[str, str]:
    """grade_id -> what went wrong, for every graded cell that did not score `expected[grade_id]`,
    and for every cell of `failing` whose error does not contain `message`."""
    if graded.crashed:
        return {"*": graded.crashed}
    wrong = {}
    for grade_id, want in expected.items():
        score, error = graded.scores.get(grade_id, (None, "never ran"))
        if score != want:
            wrong[grade_id] = f"scored {score}, expected {want}" + (f" ({error})" if error else "")
        elif message and grade_id in failing and message not in error:
            wrong[grade_id] = f"failed, but its error does not say {message!r}: {error or 'no error'}"
    return wrong
