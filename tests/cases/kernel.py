"""Grade many cases of one lesson in one Python process, forking at the first cell a case changes.

    python -m tests.cases.kernel request.json result.json

The request (written by tests/cases/runner.py) holds the lesson's contract cut (its setup,
locked, solution and graded code cells, in order: by the graded-cell contract nothing else can
reach a graded cell) and the cases, each a mapping of solution grade ids to sources. One IPython
shell runs the cut top to bottom with the instructor's solution. Just before the first solution
cell a case replaces, the process forks: the child takes the set-up state as it is at that point
(every earlier cell, earlier graded cells scored as the solution scored them), runs the rest of
the cut with the case's sources, writes its scores and exits; the parent goes on. A case thus
costs the cells from its first change to the end, never the setup, the imports or the cells
before it.

A graded cell scores as nbgrader's `determine_grade` scores it: zero when it raises (a timeout
interrupts it, as nbgrader's does), and otherwise, when its last expression shows a value, what
nbgrader's `get_partial_grade` reads from that value's text (a number from 0 to the points is
partial credit; text that is no number, or a negative one, is full points; more than the points
is an error, which the case report names); its points when it shows nothing.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import sys
import traceback
from dataclasses import dataclass

#: nbgrader_config.py's Execute.timeout: a cell running longer is interrupted and scores nothing.
CELL_TIMEOUT = 120


class CellTimeout(KeyboardInterrupt):
    """Raised inside a cell that ran longer than CELL_TIMEOUT seconds: an interrupt, as nbgrader's
    interrupt_on_timeout sends, so that `except Exception` in student code does not swallow it."""


@dataclass
class Outcome:
    """What one graded cell scored, and the error it raised (empty when it raised none); for a
    case's failed cell, what the cell shows when it runs again in the Portuguese edition."""

    score: float
    error: str = ""
    portuguese: str = ""


def _on_alarm(signum, frame):
    raise CellTimeout(f"the cell ran for more than {CELL_TIMEOUT} s")


def _shell():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.showtraceback = lambda *a, **k: None  # errors are read from the result, not printed
    # The same sources run once per case: IPython's input transformation (tokenising every line,
    # a tenth of a case's time) is a pure function of the source, made once and inherited by forks.
    shell.transform_cell = functools.lru_cache(maxsize=None)(shell.transform_cell)
    # No front-end to draw in: figures stay on matplotlib's Agg canvas (MPLBACKEND), unrendered.
    shell.register_magic_function(lambda line: None, "line", "matplotlib")
    return shell


#: Imported once by the parent, so that no case pays for them in its own process (torch alone
#: takes most of a second to import; lessons 01 and 12 import parts of it only in later cells, and
#: torch imports torch._dynamo, another second, the first time a FlopCounterMode runs).
WARM_IMPORTS = ("numpy", "torch", "torch.utils.flop_counter", "torch._dynamo", "matplotlib.pyplot",
                "ipywidgets", "grader", "grader.checks", "grader.numgrad", "grader.trusted")


def _warm() -> None:
    import importlib

    for module in WARM_IMPORTS:
        importlib.import_module(module)


def _score(result, points: float) -> Outcome:
    error = result.error_before_exec or result.error_in_exec
    if error is not None:
        return Outcome(0.0, f"{type(error).__name__}: {str(error)[:300]}")
    if result.result is None:
        return Outcome(points)
    return Outcome(_partial_grade(repr(result.result), points))


def _partial_grade(shown: str, points: float) -> float:
    """What nbgrader's utils.get_partial_grade makes of an execute_result's text/plain."""
    try:
        grade = float(shown)
    except ValueError:
        return points
    if grade > points:
        raise ValueError(f"partial credit {grade} is greater than the cell's {points} points")
    return grade if grade >= 0.0 else points


def _run_cell(shell, source: str) -> object:
    signal.alarm(CELL_TIMEOUT)
    try:
        return shell.run_cell(source, store_history=False, silent=False)
    finally:
        signal.alarm(0)
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")


def _run(shell, cells: list[dict], start: int, answers: dict[str, str],
         scores: dict[str, Outcome]) -> dict[str, Outcome]:
    """Run cells[start:] (solution cells from `answers` where it has them) and score them."""
    scores = dict(scores)
    for cell in cells[start:]:
        source = answers.get(cell["grade_id"], cell["source"]) if cell["solution"] else cell["source"]
        result = _run_cell(shell, source)
        error = result.error_before_exec or result.error_in_exec
        if error is not None and cell["points"] is None:
            print(f"[{cell['grade_id']}] raised {type(error).__name__}: {error}", file=sys.__stderr__)
        if cell["points"] is not None:
            scores[cell["grade_id"]] = _score(result, cell["points"])
    return scores


def _in_portuguese(shell, cells: list[dict], scores: dict[str, Outcome]) -> None:
    """Run every failed graded cell once more, after the case's run, in the Portuguese edition
    (as BACKPROP_COURSE_LANGUAGE=pt does), and keep what it printed and raised: what a Portuguese
    student who made this mistake reads (tests/cases/test_corpus.py looks for English in it). The
    setup cell runs again first, in Portuguese: the exercises it declares keep their messages."""
    from IPython.utils.capture import capture_output

    from grader.i18n import set_language

    failed = [c for c in cells if c["points"] is not None and scores[c["grade_id"]].error]
    if not failed:
        return
    set_language("pt")
    try:
        for cell in [c for c in cells if c["grade_id"] == "setup"]:
            with capture_output(display=False):
                _run_cell(shell, cell["source"])
        for cell in failed:
            with capture_output(display=False) as shown:
                result = _run_cell(shell, cell["source"])
            error = result.error_before_exec or result.error_in_exec
            raised = f"{type(error).__name__}: {error}" if error is not None else ""
            scores[cell["grade_id"]].portuguese = shown.stdout + shown.stderr + raised
    finally:
        set_language(None)


def _first_change(cells: list[dict], answers: dict[str, str]) -> int:
    changed = [i for i, cell in enumerate(cells) if cell["solution"] and cell["grade_id"] in answers]
    if not changed:
        raise ValueError(f"the case replaces no solution cell of the lesson: {sorted(answers)}")
    return changed[0]


def _own_folder(out_path: str) -> None:
    """A copy of the lesson folder for this case alone: files one case writes, no other sees."""
    mine = out_path.removesuffix(".json") + "-cwd"
    shutil.copytree(os.getcwd(), mine)
    os.chdir(mine)


def _fork_case(shell, cells, start, answers, scores, out_path: str) -> int:
    """Fork; the child grades the case from `start` on and writes its scores to `out_path`."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        _own_folder(out_path)
        found = _run(shell, cells, start, answers, scores)
        _in_portuguese(shell, cells, found)
        with open(out_path, "w") as f:
            json.dump({gid: vars(o) for gid, o in found.items()}, f)
    except BaseException:  # noqa: BLE001 - reported to the parent, whatever it was
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def grade(request: dict, workdir: str) -> dict:
    """{"solution": scores, "cases": [scores or {"crashed": message}]}, scores grade_id -> Outcome."""
    cells, cases = request["cells"], request["cases"]
    starts = [_first_change(cells, case) for case in cases]
    _warm()
    shell = _shell()
    signal.signal(signal.SIGALRM, _on_alarm)
    scores: dict[str, Outcome] = {}
    results: list[dict] = [{} for _ in cases]
    for index in range(len(cells)):
        for k, case in enumerate(cases):
            if starts[k] == index:
                out_path = os.path.join(workdir, f"case-{k}.json")
                pid = _fork_case(shell, cells, index, case, scores, out_path)
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
                if code or not os.path.exists(out_path):
                    results[k] = {"crashed": f"the case's process ended with exit code {code}"}
                else:
                    with open(out_path) as f:
                        results[k] = json.load(f)
        scores = _run(shell, cells[: index + 1], index, {}, scores)  # the solution's own cell
    return {"solution": {gid: vars(o) for gid, o in scores.items()}, "cases": results}


def main(request_path: str, result_path: str) -> int:
    with open(request_path) as f:
        request = json.load(f)
    os.chdir(request["cwd"])
    sys.path.insert(0, request["cwd"])
    result = grade(request, os.path.dirname(os.path.abspath(result_path)))
    with open(result_path, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
