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

from grader.instructor.grading import intake, repair, report, sandbox
from grader.instructor.grading.autograde import Course, GradingPipelineError
from grader.instructor.grading.executors import DaskExecutor, LocalExecutor
from grader.instructor.grading.records import (
    Finding,
    Key,
    Limits,
    NotebookRecord,
    Result,
    SubmissionRecord,
)
from grader.instructor.grading.settings import default

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
    workers: int = default("workers")  # 0: one per core (the defaults: grading/settings.py)
    scheduler: str | None = default("scheduler")
    memory: str = default("memory")
    cell_timeout: int | None = None  # None: the course's Execute.timeout
    notebook_timeout: float = default("notebook_timeout")
    force: bool = False
    sandbox: str = default("sandbox")  # "auto" (bwrap, else loudly unsandboxed), "require", "none"
    output_dir: Path | None = None
    feedback: bool = default("feedback")
    output_limit: int = 4 << 20
    warn_unsandboxed: bool = True
    progress: Callable[[str], None] | None = None


@dataclass
class Summary:
    graded: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (student, assignment, why)
    problems: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)  # "student assignment/notebook: what was done"
    rejected: list[tuple[str, str]] = field(default_factory=list)
    sandbox: str = "bwrap"
    sandbox_warning: str | None = None
    seconds: float = 0.0
    execute_seconds: float = 0.0
    grades_csv: Path | None = None
    report_md: Path | None = None
    report_html: Path | None = None


# ---------------------------------------------------------------------- state files


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


# ---------------------------------------------------------------------- the run



def _read_record(path: Path) -> SubmissionRecord | None:
    """The state record at `path`, or None (no file, or one of another shape: regrade)."""
    data = _read_json(path)
    return SubmissionRecord.from_dict(data) if isinstance(data, dict) else None

def grade(options: Options) -> Summary:
    """Grade every new or changed submission of `options.assignment`; write grades.csv and the report."""
    started = time.monotonic()
    say = options.progress or (lambda line: print(line, flush=True))
    summary = Summary()
    course = Course(Path(options.course_dir))
    out = Path(options.output_dir) if options.output_dir else course.root / "grading"
    scope = _scope(course, options.assignment)
    mode = _sandbox_mode(options, summary, say)
    submitted_root = _intake(course, options, scope, summary, say)
    run = _Run(course, out, options, summary, say)
    todo = run.plan(submitted_root, scope)
    exec_started = time.monotonic()
    run.execute(todo, submitted_root, scope, _limits(options, mode))
    summary.execute_seconds = time.monotonic() - exec_started
    _write_outputs(course, out, scope, run.records, summary, started)
    return summary


def _scope(course: Course, assignment: str) -> dict[str, list[str]]:
    """assignment -> its notebooks, for `assignment` (a name or "all")."""
    known = course.assignments()
    if not known:
        raise GradingPipelineError(
            "the gradebook has no assignment: run `nbgrader generate_assignment NAME` first"
        )
    if assignment == "all":
        return dict(known)
    if assignment in known:
        return {assignment: known[assignment]}
    raise GradingPipelineError(f"unknown assignment {assignment!r}; the gradebook has {sorted(known)}")


def _sandbox_mode(options: Options, summary: Summary, say: Callable[[str], None]) -> str:
    """ "bwrap" or "none"; fails when the sandbox is required but does not work here."""
    mode, why = sandbox.effective_mode("none" if options.sandbox == "none" else "bwrap")
    if mode == "none" and options.sandbox == "require":
        raise GradingPipelineError(f"no sandbox: {why}")
    summary.sandbox = mode
    if mode == "none" and not options.scheduler and options.warn_unsandboxed:
        summary.sandbox_warning = SANDBOX_WARNING.format(why=why)
        say("!" * 79 + "\n!! " + summary.sandbox_warning + "\n" + "!" * 79)
    return mode


def _intake(
    course: Course, options: Options, scope: dict[str, list[str]], summary: Summary, say: Callable
) -> Path:
    """Copy `options.submissions` (if any) into the course's submitted/; returns that folder."""
    submitted_root = Path(
        course.coursedir.format_path(course.coursedir.submitted_directory, ".", ".")
    ).resolve()
    if options.submissions is None:
        return submitted_root
    notebook_map = {nb: a for a, nbs in scope.items() for nb in nbs}
    taken = intake.intake(Path(options.submissions), submitted_root, notebook_map)
    summary.rejected = taken.rejected
    for path, reason in taken.rejected:
        say(f"  rejected {path}: {reason}")
    say(
        f"intake: {len(taken.submissions)} submission(s) from {options.submissions}"
        + (f", {len(taken.rejected)} file(s) rejected" if taken.rejected else "")
    )
    return submitted_root


def _limits(options: Options, mode: str) -> Limits:
    workers = options.workers or os.cpu_count() or 1
    return Limits(
        sandbox=sandbox.SandboxSpec(mode=mode, memory=sandbox.parse_size(options.memory)),
        notebook_timeout=options.notebook_timeout,
        cell_timeout=options.cell_timeout,
        threads=max(1, (os.cpu_count() or 1) // max(1, workers)),
        output_limit=options.output_limit,
        allow_unsandboxed=options.sandbox != "require",
    )


def _write_outputs(
    course: Course, out: Path, scope: dict, records: dict[tuple[str, str], SubmissionRecord],
    summary: Summary, started: float,
) -> None:
    """grades.csv and the class report, from the gradebook and every submission's record."""
    for student, a in summary.skipped:
        found = _read_record(_state_path(out, student, a))
        if found is not None:
            records.setdefault((student, a), found)
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


class _Run:
    """Stages 2 and 3 of one run: execute the notebooks in parallel, and autograde each
    submission (in this process) as soon as all its notebooks are back."""

    def __init__(
        self, course: Course, out: Path, options: Options, summary: Summary, say: Callable[[str], None]
    ):
        self.course, self.out, self.options, self.summary, self.say = course, out, options, summary, say
        self.records: dict[tuple[str, str], SubmissionRecord] = {}  # (student, assignment) -> state
        self.hashes: dict[tuple[str, str], str] = {}
        self.expected: dict[tuple[str, str], set[str]] = {}  # notebooks still to come back
        self.missing: dict[tuple[str, str], list[str]] = {}  # notebooks not submitted
        self.results: dict[tuple[str, str], dict[str, Result]] = {}
        self.statics: dict[Key, list[Finding]] = {}
        self.sanitized: dict[Key, dict] = {}  # the notebooks as sent to the workers
        self.repairs: dict[Key, list[str]] = {}  # what aligned each with its release (repair.py)
        self.unaligned: dict[tuple[str, str], list[tuple[str, str]]] = {}  # left ungraded: (file, why)
        self.done_count = self.total = 0
        self.exec_started = time.monotonic()

    def plan(self, submitted_root: Path, scope: dict[str, list[str]]) -> list[tuple[str, str]]:
        """The (student, assignment) pairs to grade: new or changed, or all with --force."""
        pairs = sorted(
            (student_dir.name, a)
            for a in scope
            for student_dir in (submitted_root.iterdir() if submitted_root.is_dir() else [])
            if (student_dir / a).is_dir()
        )
        todo = []
        for student, a in pairs:
            digest = intake.submission_hash(submitted_root / student / a)
            record = _read_record(_state_path(self.out, student, a))
            fresh = (
                record is not None
                and record.hash == digest
                and record.complete
                and self.course.path("autograded", student, a).is_dir()
            )
            if fresh and not self.options.force:
                self.summary.skipped.append((student, a))
                self.records[(student, a)] = record
            else:
                todo.append((student, a))
                self.hashes[(student, a)] = digest
        if self.summary.skipped:
            self.say(
                f"{len(self.summary.skipped)} submission(s) already graded and unchanged "
                "(use --force to regrade)"
            )
        return todo

    def execute(
        self, todo: list[tuple[str, str]], submitted_root: Path, scope: dict[str, list[str]], limits: Limits
    ) -> None:
        queue: list[Key] = []
        for student, a in todo:
            folder = submitted_root / student / a
            have = [nb for nb in scope[a] if (folder / f"{nb}.ipynb").is_file()]
            self.expected[(student, a)] = set(have)
            self.missing[(student, a)] = [nb for nb in scope[a] if nb not in have]
            queue += [(student, a, nb) for nb in have]
        self.total = len(queue)
        executor = None
        self.exec_started = time.monotonic()
        try:
            if queue:
                executor = self._executor(len(todo), limits)
                self._loop(executor, queue, limits)
            for key in list(self.expected):  # submissions with no notebook to execute
                self._grade(key)
        finally:
            if executor is not None:
                executor.close()

    def _executor(self, submissions: int, limits: Limits):
        options = self.options
        workers = options.workers or os.cpu_count() or 1
        where = f"Dask scheduler {options.scheduler}" if options.scheduler else f"{workers} local worker(s)"
        self.say(
            f"executing {self.total} notebook(s) of {submissions} submission(s) on {where}, "
            f"sandbox: {'bubblewrap' if limits.sandbox.mode == 'bwrap' else 'NONE'}"
        )
        return DaskExecutor(options.scheduler) if options.scheduler else LocalExecutor(workers)

    def _loop(self, executor, queue: list[Key], limits: Limits) -> None:
        in_flight_max = max(2, 2 * executor.workers)
        pending = list(queue)
        while pending or executor.pending():
            while pending and executor.pending() < in_flight_max:
                self._submit(executor, pending.pop(0), limits)
            for job, result in executor.done(timeout=0.5):
                self._collect(job.key, result)
            ready = [
                k for k in self.expected if k in self.results and set(self.results[k]) >= self.expected[k]
            ]
            for key in ready:
                self._grade(key)

    def _submit(self, executor, key: Key, limits: Limits) -> None:
        try:
            job, findings, self.repairs[key] = self.course.prepare_job(*key, limits)
        except repair.NotThisNotebook as err:
            reason = f"not graded: it cannot be aligned with the release: {err}"
            where = f"submitted/{key[0]}/{key[1]}/{key[2]}.ipynb"
            self.unaligned.setdefault(key[:2], []).append((where, reason))
            self._store(key, Result.failed(key, reason, limits.sandbox.mode, host="?", seconds=0.0))
            self._progress(key, reason)
            return
        except Exception as err:
            reason = f"could not prepare the notebook: {type(err).__name__}: {err}"
            self._store(key, Result.failed(key, reason, limits.sandbox.mode, host="?", seconds=0.0))
            self._progress(key, reason)
            return
        self.statics[key] = findings
        self.sanitized[key] = copy.deepcopy(job.notebook)  # as sent, whatever an in-process worker does
        executor.submit(job)

    def _collect(self, key: Key, result: Result) -> None:
        result.findings = self.statics.pop(key, []) + result.findings
        self._store(key, result)
        elapsed = time.monotonic() - self.exec_started
        eta = elapsed / (self.done_count + 1) * (self.total - self.done_count - 1)
        flagged = " TAMPERING" if result.with_severity("tamper") else ""
        self._progress(
            key,
            f"{result.status}{flagged} ({result.seconds:.1f} s; elapsed {elapsed:.0f} s, ~{eta:.0f} s left)",
        )

    def _store(self, key: Key, result: Result) -> None:
        student, a, nb = key
        self.results.setdefault((student, a), {})[nb] = result

    def _progress(self, key: Key, what: str) -> None:
        self.done_count += 1
        width = len(str(self.total))
        self.say(f"[{self.done_count:>{width}}/{self.total}] {key[0]} {key[1]}/{key[2]}: {what}")

    def _grade(self, key: tuple[str, str]) -> None:
        """Stage 3 for one student and assignment: nbgrader autograde, flags, feedback, record."""
        student, a = key
        executed = self.results.pop(key, {})
        del self.expected[key]
        if key in self.unaligned:  # left ungraded, listed with the reason: never a silent 0
            self.summary.rejected += self.unaligned.pop(key)
            return
        sanitized = {nb: self.sanitized.pop((student, a, nb)) for nb in executed
                     if (student, a, nb) in self.sanitized}
        outcome = self.course.autograde(student, a, executed, sanitized)
        if not outcome["success"]:
            reason = (outcome.get("error") or outcome.get("log") or "nbgrader autograde failed").strip()
            self.summary.failed.append((student, a, reason.splitlines()[-1][:300]))
            self.say(f"  ✗ {student} {a}: nbgrader autograde failed: {reason.splitlines()[-1][:300]}")
            return
        notebooks = {nb: self._review(student, a, nb, result) for nb, result in executed.items()}
        for nb in self.missing[key]:
            notebooks[nb] = NotebookRecord(status=None, missing=True)
        if self.options.feedback:
            fb = self.course.generate_feedback(student, a)
            if not fb["success"]:
                self.say(
                    f"  ! {student} {a}: feedback failed: {(fb.get('error') or fb.get('log') or '')[-300:]}"
                )
        record = SubmissionRecord(self.hashes[key], True, time.strftime("%Y-%m-%d %H:%M:%S"), notebooks)
        _write_json(_state_path(self.out, student, a), record.to_dict())
        self.records[key] = record
        self.summary.graded.append(key)

    def _review(self, student: str, a: str, nb: str, result: Result) -> NotebookRecord:
        """Flag a tampered or suspicious notebook for review; its state record."""
        tampered, suspicious = result.with_severity("tamper"), result.with_severity("suspicious")
        repaired = self.repairs.pop((student, a, nb), [])
        if repaired:
            self.summary.repaired.append(f"{student} {a}/{nb}: " + "; ".join(repaired))
        if tampered or suspicious:
            self.course.flag_for_review(student, a, nb)
            self.summary.flagged.append(f"{student} {a}/{nb}: " + ("tampering" if tampered else "suspicious"))
        if result.status != "ok":
            self.summary.problems.append(f"{student} {a}/{nb}: {result.status} — {result.reason}")
        record = result.record()
        record.repaired = repaired
        return record


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
    for line in summary.repaired:
        say(f"  REPAIRED {line}")
    if summary.rejected:
        say(f"  {len(summary.rejected)} file(s) not graded: rejected at intake or not alignable with "
            "the release (listed in the report)")
    say(f"grades:   {summary.grades_csv}")
    say(f"report:   {summary.report_md} (and {summary.report_html})")
    if summary.sandbox_warning:
        say("!! " + summary.sandbox_warning)
    else:
        say(f"sandbox:  {'bubblewrap' if summary.sandbox == 'bwrap' else 'none'}")
    sys.stdout.flush()
