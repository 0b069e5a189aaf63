"""Grade a class: intake -> prepare (sequential) -> execute (parallel) -> nbgrader (sequential).

The main process is the only one that touches the gradebook. Workers (a local process pool, or
the workers of a Dask scheduler) only execute notebooks: JSON in, JSON out.

Resume: after a submission is graded, `OUTPUT/state/ASSIGNMENT/STUDENT.json` records the hash of
its files. A later run skips every submission whose files and record are unchanged (and whose
autograded/ folder exists); `force=True` regrades everything. A run interrupted half-way loses
nothing: finished submissions are recorded, unfinished ones are graded by the next run.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.instructor.grading import autograde, intake, report, sandbox
from grader.instructor.grading.autograde import Course, GradingPipelineError

SANDBOX_WARNING = (
    "GRADING UNSANDBOXED: student code runs with your rights and can read the "
    "gradebook, the hidden tests and other students' files ({why}). Install "
    "bubblewrap (`apt-get install bubblewrap`, or `make grading-deps`)."
)


@dataclass
class Options:
    course_dir: Path = Path(".")
    assignment: str = "all"
    submissions: Path | None = None
    workers: int = 0  # 0: one per core
    scheduler: str | None = None
    memory: str = "2G"
    cell_timeout: int | None = None  # None: the course's Execute.timeout
    notebook_timeout: float = 1800.0
    force: bool = False
    sandbox: str = "auto"  # "auto" (bwrap if it works, else loudly unsandboxed), "require", "none"
    output_dir: Path | None = None
    feedback: bool = True
    threads: int | None = None  # OMP threads per kernel (default: cores // workers)
    output_limit: int = 4 << 20
    guard: bool = True
    scratch_root: str | None = None
    warn_unsandboxed: bool = True
    progress: Callable[[str], None] | None = None


@dataclass
class Summary:
    graded: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (student, assignment, why)
    problems: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    sandbox: str = "bwrap"
    sandbox_warning: str | None = None
    seconds: float = 0.0
    execute_seconds: float = 0.0
    grades_csv: Path | None = None
    report_md: Path | None = None
    report_html: Path | None = None


# ---------------------------------------------------------------------- executors


class LocalExecutor:
    """A process pool; a crashed worker is replaced and its job retried once."""

    def __init__(self, workers: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers
        self._ctx = multiprocessing.get_context("fork")
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=self._ctx)
        self._jobs: dict = {}  # future -> (job, tries)

    def submit(self, job: dict, tries: int = 0) -> None:
        from grader.instructor.grading.execute import run_job

        try:
            future = self._pool.submit(run_job, job)
        except Exception:  # the pool broke: start a new one
            self._restart()
            future = self._pool.submit(run_job, job)
        self._jobs[future] = (job, tries)

    def _restart(self) -> None:
        from concurrent.futures import ProcessPoolExecutor

        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self._ctx)

    def pending(self) -> int:
        return len(self._jobs)

    def done(self, timeout: float) -> list[tuple[dict, dict]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        if not self._jobs:
            return []
        finished, _ = wait(list(self._jobs), timeout=timeout, return_when=FIRST_COMPLETED)
        out = []
        broken = False
        for future in finished:
            job, tries = self._jobs.pop(future)
            try:
                out.append((job, future.result()))
            except BrokenProcessPool:
                broken = True
                if tries < 1:
                    self._retry_later = getattr(self, "_retry_later", []) + [(job, tries + 1)]
                else:
                    out.append((job, _crash(job, "the grading worker crashed twice on this notebook")))
            except Exception as err:  # pragma: no cover - run_job catches what students do
                out.append((job, _crash(job, f"worker error: {type(err).__name__}: {err}")))
        if broken:
            self._restart()
            retry = getattr(self, "_retry_later", [])
            self._retry_later = []
            stranded = list(self._jobs.items())
            self._jobs.clear()
            for job, tries in retry + [jt for _, jt in stranded]:
                self.submit(job, tries)
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class DaskExecutor:
    """The workers of a Dask distributed scheduler (`tcp://host:8786`)."""

    def __init__(self, address: str):
        from distributed import Client

        self.client = Client(address, timeout="30s")
        self.workers = max(
            1, sum(w.get("nthreads", 1) for w in self.client.scheduler_info().get("workers", {}).values())
        )
        self._jobs: dict = {}

    def submit(self, job: dict, tries: int = 0) -> None:
        from grader.instructor.grading.execute import run_job

        key = "backprop-grade-" + "-".join(job["key"]) + f"-{time.monotonic_ns()}"
        future = self.client.submit(run_job, job, key=key, pure=False, retries=1)
        self._jobs[future] = job

    def pending(self) -> int:
        return len(self._jobs)

    def done(self, timeout: float) -> list[tuple[dict, dict]]:
        from distributed import wait

        if not self._jobs:
            return []
        try:
            finished, _ = wait(list(self._jobs), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        out = []
        for future in finished:
            job = self._jobs.pop(future)
            try:
                out.append((job, future.result()))
            except Exception as err:
                out.append((job, _crash(job, f"Dask worker error: {type(err).__name__}: {err}")))
        return out

    def close(self) -> None:
        for future in self._jobs:
            future.cancel()
        self.client.close()


def _crash(job: dict, reason: str) -> dict:
    """A notebook whose worker died or failed before it could report (host unknown)."""
    from grader.instructor.grading.execute import failed_result

    return failed_result(job, reason, job["sandbox"]["mode"], host="?", seconds=0.0)


# ---------------------------------------------------------------------- the run


def _state_path(out: Path, student: str, assignment: str) -> Path:
    return out / "state" / assignment / f"{student}.json"


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def grade(options: Options) -> Summary:
    started = time.monotonic()
    say = options.progress or (lambda line: print(line, flush=True))
    summary = Summary()
    course = Course(Path(options.course_dir))
    out = Path(options.output_dir) if options.output_dir else course.root / "grading"
    known = course.assignments()
    if not known:
        raise GradingPipelineError(
            "the gradebook has no assignment: run `nbgrader generate_assignment NAME` first"
        )
    if options.assignment == "all":
        scope = dict(known)
    elif options.assignment in known:
        scope = {options.assignment: known[options.assignment]}
    else:
        raise GradingPipelineError(
            f"unknown assignment {options.assignment!r}; the gradebook has {sorted(known)}"
        )

    # -------------------------------------------------------------- sandbox
    mode, why = sandbox.effective_mode("none" if options.sandbox == "none" else "bwrap")
    if mode == "none" and options.sandbox == "require":
        raise GradingPipelineError(f"no sandbox: {why}")
    summary.sandbox = mode
    if mode == "none" and not options.scheduler and options.warn_unsandboxed:
        summary.sandbox_warning = SANDBOX_WARNING.format(why=why)
        say("!" * 79 + "\n!! " + summary.sandbox_warning + "\n" + "!" * 79)

    # -------------------------------------------------------------- intake
    submitted_root = Path(
        course.coursedir.format_path(course.coursedir.submitted_directory, ".", ".")
    ).resolve()
    notebook_map = {nb: a for a, nbs in scope.items() for nb in nbs}
    if options.submissions is not None:
        taken = intake.intake(Path(options.submissions), submitted_root, notebook_map)
        summary.rejected = taken.rejected
        for path, reason in taken.rejected:
            say(f"  rejected {path}: {reason}")
        say(
            f"intake: {len(taken.submissions)} submission(s) from {options.submissions}"
            + (f", {len(taken.rejected)} file(s) rejected" if taken.rejected else "")
        )
    pairs = sorted(
        (student_dir.name, a)
        for a in scope
        for student_dir in (submitted_root.iterdir() if submitted_root.is_dir() else [])
        if (student_dir / a).is_dir()
    )

    # -------------------------------------------------------------- what to do
    todo: list[tuple[str, str, str]] = []  # (student, assignment, hash)
    records: dict[tuple[str, str], dict] = {}
    for student, a in pairs:
        digest = intake.submission_hash(submitted_root / student / a)
        record = _read_json(_state_path(out, student, a))
        fresh = (
            record
            and record.get("hash") == digest
            and record.get("complete")
            and course.path("autograded", student, a).is_dir()
        )
        if fresh and not options.force:
            summary.skipped.append((student, a))
            records[(student, a)] = record
        else:
            todo.append((student, a, digest))
    if summary.skipped:
        say(f"{len(summary.skipped)} submission(s) already graded and unchanged (use --force to regrade)")

    workers = options.workers or os.cpu_count() or 1
    threads = options.threads or max(1, (os.cpu_count() or 1) // max(1, workers))
    job_options = {
        "sandbox": sandbox.SandboxSpec(mode=mode, memory=sandbox.parse_size(options.memory)).to_dict(),
        "notebook_timeout": options.notebook_timeout,
        "threads": threads,
        "output_limit": options.output_limit,
        "guard": options.guard,
        "allow_unsandboxed": options.sandbox != "require",
        "scratch_root": options.scratch_root,
    }
    if options.cell_timeout:
        job_options["cell_timeout"] = options.cell_timeout

    # -------------------------------------------------------------- execute + grade
    queue = []  # (student, assignment, notebook)
    expected: dict[tuple[str, str], set[str]] = {}
    missing: dict[tuple[str, str], list[str]] = {}
    for student, a, _ in todo:
        folder = submitted_root / student / a
        have = [nb for nb in scope[a] if (folder / f"{nb}.ipynb").is_file()]
        expected[(student, a)] = set(have)
        missing[(student, a)] = [nb for nb in scope[a] if nb not in have]
        queue += [(student, a, nb) for nb in have]
    hashes = {(s, a): h for s, a, h in todo}
    total = len(queue)
    if total:
        where = f"Dask scheduler {options.scheduler}" if options.scheduler else f"{workers} local worker(s)"
        say(
            f"executing {total} notebook(s) of {len(todo)} submission(s) on {where}, "
            f"sandbox: {'bubblewrap' if mode == 'bwrap' else 'NONE'}"
        )
    executor = None
    results: dict[tuple[str, str], dict[str, dict]] = {}
    done_count = 0
    exec_started = time.monotonic()
    try:
        if total:
            executor = DaskExecutor(options.scheduler) if options.scheduler else LocalExecutor(workers)
            in_flight_max = max(2, 2 * executor.workers)
        statics: dict[tuple[str, str, str], list] = {}
        sanitized: dict[tuple[str, str, str], dict] = {}
        pending = list(queue)
        while pending or (executor and executor.pending()):
            while pending and executor.pending() < in_flight_max:
                student, a, nb = pending.pop(0)
                try:
                    job = course.prepare_job(student, a, nb, job_options)
                    if "cell_timeout" in job_options:
                        job["execute_config"].setdefault("Execute", {})["timeout"] = job_options[
                            "cell_timeout"
                        ]
                except Exception as err:
                    reason = f"could not prepare the notebook: {type(err).__name__}: {err}"
                    _store(
                        results,
                        (student, a, nb),
                        _crash({"key": [student, a, nb], "sandbox": {"mode": mode}}, reason),
                    )
                    done_count += 1
                    say(f"[{done_count:>{len(str(total))}}/{total}] {student} {a}/{nb}: {reason}")
                    continue
                statics[(student, a, nb)] = job.pop("static_findings")
                sanitized[(student, a, nb)] = copy.deepcopy(job["notebook"])
                executor.submit(job)
            for job, result in executor.done(timeout=0.5):
                key = tuple(job["key"])
                result["findings"] = statics.pop(key, []) + result.get("findings", [])
                result["sanitized"] = sanitized.pop(key, None)
                _store(results, key, result)
                done_count += 1
                elapsed = time.monotonic() - exec_started
                eta = elapsed / done_count * (total - done_count)
                status = result["status"] if result["status"] != "ok" else "ok"
                flagged = " TAMPERING" if any(f["severity"] == "tamper" for f in result["findings"]) else ""
                say(
                    f"[{done_count:>{len(str(total))}}/{total}] {key[0]} {key[1]}/{key[2]}: {status}{flagged}"
                    f" ({result.get('seconds', 0):.1f} s; elapsed {elapsed:.0f} s, ~{eta:.0f} s left)"
                )
            # grade every submission whose notebooks are all executed
            for student, a in [k for k in expected if k in results and set(results[k]) >= expected[k]]:
                _grade_submission(
                    course,
                    student,
                    a,
                    results.pop((student, a)),
                    missing[(student, a)],
                    hashes[(student, a)],
                    out,
                    options,
                    summary,
                    records,
                    say,
                )
                del expected[(student, a)]
        for student, a in list(expected):  # submissions with no notebook to execute
            _grade_submission(
                course,
                student,
                a,
                results.pop((student, a), {}),
                missing[(student, a)],
                hashes[(student, a)],
                out,
                options,
                summary,
                records,
                say,
            )
    finally:
        if executor is not None:
            executor.close()
    summary.execute_seconds = time.monotonic() - exec_started

    # -------------------------------------------------------------- outputs
    for student, a in summary.skipped:
        records.setdefault((student, a), _read_json(_state_path(out, student, a)) or {})
    data = report.collect(course, scope, records, summary.rejected)
    summary.grades_csv = out / "grades.csv"
    report.write_csv(data, summary.grades_csv)
    summary.seconds = time.monotonic() - started
    meta = {
        "sandbox_warning": summary.sandbox_warning,
        "summary": f"Graded {len(summary.graded)} submission(s) in {summary.seconds:.0f} s "
        f"({len(summary.skipped)} unchanged).",
    }
    summary.report_md, summary.report_html = report.write_report(data, out, meta)
    return summary


def _store(results: dict, key: tuple, result: dict) -> None:
    student, a, nb = key
    results.setdefault((student, a), {})[nb] = result


def _grade_submission(
    course: Course,
    student: str,
    a: str,
    executed: dict[str, dict],
    missing: list[str],
    digest: str,
    out: Path,
    options: Options,
    summary: Summary,
    records: dict,
    say: Callable[[str], None],
) -> None:
    """Stage 3 for one student and assignment: nbgrader autograde, flags, feedback, record."""
    for nb, result in executed.items():
        autograde.RESULTS[(student, a, nb)] = result
    try:
        outcome = course.autograde(student, a)
        if not outcome["success"]:
            reason = (outcome.get("error") or outcome.get("log") or "nbgrader autograde failed").strip()
            summary.failed.append((student, a, reason.splitlines()[-1][:300]))
            say(f"  ✗ {student} {a}: nbgrader autograde failed: {reason.splitlines()[-1][:300]}")
            return
        notebooks = {}
        for nb, result in executed.items():
            tampered = [f for f in result.get("findings", []) if f["severity"] == "tamper"]
            suspicious = [f for f in result.get("findings", []) if f["severity"] == "suspicious"]
            if tampered or suspicious:
                course.flag_for_review(student, a, nb)
                summary.flagged.append(f"{student} {a}/{nb}: " + ("tampering" if tampered else "suspicious"))
            notebooks[nb] = {
                "status": result["status"],
                "reason": result.get("reason"),
                "events": result.get("events", []),
                "tamper": tampered,
                "suspicious": suspicious,
                "not_run": result.get("not_run", []),
                "sandbox": result.get("sandbox"),
                "host": result.get("host"),
                "seconds": result.get("seconds"),
            }
            if result["status"] != "ok":
                summary.problems.append(f"{student} {a}/{nb}: {result['status']} — {result.get('reason')}")
        for nb in missing:
            notebooks[nb] = {"status": None, "missing": True, "events": []}
        if options.feedback:
            fb = course.generate_feedback(student, a)
            if not fb["success"]:
                say(f"  ! {student} {a}: feedback failed: {(fb.get('error') or fb.get('log') or '')[-300:]}")
        record = {
            "hash": digest,
            "complete": True,
            "graded_at": time.strftime("%Y-%m-%d %H:%M:%S"),
            "notebooks": notebooks,
        }
        _write_json(_state_path(out, student, a), record)
        records[(student, a)] = record
        summary.graded.append((student, a))
    finally:
        for nb in executed:
            autograde.RESULTS.pop((student, a, nb), None)


def print_summary(summary: Summary, say: Callable[[str], None] = print) -> None:
    say("")
    say(
        f"graded {len(summary.graded)} submission(s), {len(summary.skipped)} unchanged, "
        f"{len(summary.failed)} failed, in {summary.seconds:.1f} s"
    )
    for student, a, why in summary.failed:
        say(f"  FAILED {student} {a}: {why}")
    for line in summary.problems:
        say(f"  ! {line}")
    for line in summary.flagged:
        say(f"  REVIEW {line}")
    if summary.rejected:
        say(f"  {len(summary.rejected)} file(s) rejected at intake (listed in the report)")
    say(f"grades:   {summary.grades_csv}")
    say(f"report:   {summary.report_md} (and {summary.report_html})")
    if summary.sandbox_warning:
        say("!! " + summary.sandbox_warning)
    else:
        say(f"sandbox:  {'bubblewrap' if summary.sandbox == 'bwrap' else 'none'}")
    sys.stdout.flush()
