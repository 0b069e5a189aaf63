"""The in-process case grader (tests/cases/kernel.py) scores as nbgrader's determine_grade does,
isolates cases from each other, and starts each where its first change is (no lesson: fast)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cases import kernel
from tests.nbgrader_harness import REPO


def _cell(source: str, grade_id: str = "", solution: bool = False, points: float | None = None) -> dict:
    return {"source": source, "grade_id": grade_id, "solution": solution, "points": points}


CELLS = [
    _cell("import numpy as np\nlog = []", "setup"),
    _cell("def f(x):\n    return 2 * x", "f", solution=True),
    _cell("log.append('f')\nassert f(3) == 6", "test_f", points=2),
    _cell("def g(x):\n    return x + 1", "g", solution=True),
    _cell("log.append('g')\nassert g(1) == 2\nassert log[-2:] == ['f', 'g']", "test_g", points=1),
    _cell("0.5 if f(1) == 2 else 0.0", "test_partial", points=3),
]


def _run(tmp_path, cases: list[dict]) -> dict:
    request = {"cwd": str(tmp_path), "cells": CELLS, "cases": cases}
    (tmp_path / "request.json").write_text(json.dumps(request))
    done = subprocess.run([sys.executable, "-m", "tests.cases.kernel", "request.json", "result.json"],
                          cwd=tmp_path, env={"PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / "result.json").read_text())


def _scores(raw: dict) -> dict[str, float]:
    return {gid: outcome["score"] for gid, outcome in raw.items()}


def test_scores_errors_partial_credit_and_isolation(tmp_path) -> None:
    cases = [
        {"g": "def g(x):\n    return x + 2"},                          # breaks test_g only
        {"f": "def f(x):\n    raise NotImplementedError()"},           # breaks what calls f
        {"f": "def f(x):\n    log.clear()\n    return x * 2"},         # changes shared state
        {"g": "def g(x):\n    return x + 1"},                          # right: must not see the above
    ]
    found = _run(tmp_path, cases)
    assert _scores(found["solution"]) == {"test_f": 2, "test_g": 1, "test_partial": 0.5}
    got = [_scores(raw) for raw in found["cases"]]
    assert got[0] == {"test_f": 2, "test_g": 0, "test_partial": 0.5}
    assert got[1] == {"test_f": 0, "test_g": 1, "test_partial": 0}
    assert got[2] == {"test_f": 2, "test_g": 0, "test_partial": 0.5}  # f emptied the log
    assert got[3] == {"test_f": 2, "test_g": 1, "test_partial": 0.5}
    assert found["cases"][1]["test_f"]["error"].startswith("NotImplementedError")


def test_a_case_starts_at_its_first_changed_cell() -> None:
    assert kernel._first_change(CELLS, {"g": "", "f": ""}) == 1
    assert kernel._first_change(CELLS, {"g": ""}) == 3
    with pytest.raises(ValueError, match="replaces no solution cell"):
        kernel._first_change(CELLS, {"test_f": ""})


def test_a_value_shown_by_a_graded_cell_is_read_as_nbgrader_reads_it() -> None:
    import numpy as np
    from nbgrader.utils import get_partial_grade

    class Result:
        error_before_exec = error_in_exec = None
        result = None

    for shown in (1.5, 0, True, "0.5", np.float64(0.5), -1.0, [1.0], None):
        Result.result = shown
        expected = 3.0 if shown is None else get_partial_grade({"data": {"text/plain": repr(shown)}}, 3.0)
        assert kernel._score(Result(), 3.0).score == expected, shown
    Result.result = 4.0
    with pytest.raises(ValueError, match="greater than"):  # nbgrader: the autograde fails
        kernel._score(Result(), 3.0)
    Result.result, Result.error_in_exec = None, AssertionError("wrong")
    assert vars(kernel._score(Result(), 3.0)) == {"score": 0.0, "error": "AssertionError: wrong",
                                                       "portuguese": ""}


def test_a_cell_running_too_long_scores_nothing(tmp_path) -> None:
    cells = [_cell("import time", "setup"),
             _cell("def f():\n    try:\n        time.sleep(5)\n    except Exception:\n        time.sleep(5)",
                   "f", solution=True),  # `except Exception` does not swallow the interrupt
             _cell("f()", "test_f", points=1)]
    (tmp_path / "request.json").write_text(json.dumps({"cwd": str(tmp_path), "cells": cells, "cases": []}))
    code = ("import sys; from tests.cases import kernel; kernel.CELL_TIMEOUT = 1; "
            "sys.exit(kernel.main('request.json', 'result.json'))")
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(REPO)},
                   check=True, timeout=60, capture_output=True)
    found = json.loads((tmp_path / "result.json").read_text())["solution"]["test_f"]
    assert found["score"] == 0 and found["error"].startswith("CellTimeout")


def test_each_case_writes_into_a_folder_of_its_own(tmp_path) -> None:
    cells = [_cell("import os", "setup"), _cell("def f():\n    return 1", "f", solution=True),
             _cell("assert not os.path.exists('mark')", "test_f", points=1)]
    cases = [{"f": "open('mark', 'w').close()\ndef f():\n    return 1"}, {"f": "def f():\n    return 2"}]
    (tmp_path / "request.json").write_text(json.dumps({"cwd": str(tmp_path), "cells": cells, "cases": cases}))
    subprocess.run([sys.executable, "-m", "tests.cases.kernel", "request.json", "result.json"],
                   cwd=tmp_path, env={"PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}, check=True, timeout=60,
                   capture_output=True)
    found = json.loads((tmp_path / "result.json").read_text())
    assert [c["test_f"]["score"] for c in found["cases"]] == [0.0, 1.0]  # the second never sees 'mark'
    assert not (tmp_path / "mark").exists()
