"""The records passed between the grading stages: a `Job` goes to a worker, a `Result` comes back,
`Finding`s say what looked like tampering, `Event`s what happened while it ran. All are
dataclasses of plain data, so they pickle for a local process pool and for Dask workers on other
machines.

`Result.record()` is the `NotebookRecord` that `OUTPUT/state/ASSIGNMENT/STUDENT.json` keeps of
one notebook (a `SubmissionRecord` per file, read back by report.py); `NotebookRecord.flags()`
is the one place that says what a notebook is flagged for (the CSV's flags column and the class
report's list of failures both print it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.instructor.grading.sandbox import SandboxSpec

#: (student, assignment, notebook)
Key = tuple[str, str, str]


@dataclass(frozen=True)
class Finding:
    """Something in a notebook that changes, or may change, the grading machinery."""

    severity: str  # "tamper" (scored 0, flagged) or "suspicious" (flagged, points kept)
    message: str
    cell: int | None = None  # index of the cell; None: the whole notebook
    static: bool = False  # found by the static scan (tamper.scan_cell), not by the kernel guard

    def to_dict(self) -> dict:
        out: dict = {"severity": self.severity, "message": self.message, "cell": self.cell}
        if self.static:
            out["static"] = True
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Finding:
        return cls(data["severity"], data["message"], data.get("cell"), bool(data.get("static")))

    def where(self) -> str:
        return f"cell {self.cell}: " if self.cell is not None else ""


#: What can happen to a notebook while it runs (Event.kind); the last is a stop, whose Result's
#: status says which.
EVENT_KINDS = ("output-flood", "memory", "cell-timeout", "stopped")


@dataclass(frozen=True)
class Event:
    """Something that happened while a notebook ran: kind (one of EVENT_KINDS), in which cell."""

    kind: str
    message: str
    cell: int | None = None

    def __str__(self) -> str:
        return f"cell {self.cell}: {self.message}" if self.cell is not None else self.message

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "cell": self.cell}

    @classmethod
    def from_dict(cls, data: dict) -> Event:
        return cls(data["kind"], data["message"], data.get("cell"))


@dataclass(frozen=True)
class CellPlan:
    """What the worker needs to know about one code cell, for the integrity guard."""

    kind: str  # "student", "trusted" (instructor code, locked or unchanged) or "graded"
    free: list[str] = field(default_factory=list)  # names it reads before binding them
    bound: list[str] = field(default_factory=list)  # names it binds at top level


#: The plan of a cell nothing is known about (run as instructor code).
TRUSTED_CELL = CellPlan("trusted")


@dataclass
class Limits:
    """How every notebook of a run is executed (the same for all jobs)."""

    sandbox: SandboxSpec
    notebook_timeout: float  # seconds; 0: no limit
    cell_timeout: int | None  # seconds; None: the course's Execute.timeout
    threads: int  # OMP threads per kernel
    output_limit: int  # bytes of output kept per cell
    allow_unsandboxed: bool  # a worker without bubblewrap may run the kernel unsandboxed


@dataclass
class Job:
    """One sanitised notebook to execute (built by autograde.Course.prepare_job)."""

    key: Key
    notebook: dict  # nbformat notebook
    files: dict[str, str]  # relative path -> base64 content of the other files of the submission
    cells: list[CellPlan | None]  # one per cell; None for markdown cells
    execute_config: dict  # the course's Execute/NotebookClient settings, as plain data
    limits: Limits


@dataclass
class Result:
    """What a worker reports for one job (built by execute.run_job, or `Result.failed`)."""

    key: Key
    notebook: dict | None  # the executed notebook; None when it could not be executed at all
    status: str  # "ok", "kernel_died", "unresponsive", "notebook_timeout" or "error"
    reason: str | None
    events: list[Event]
    findings: list[Finding]
    not_run: list[int]  # indices of the code cells that never ran
    sandbox: str  # "bwrap" or "none"
    host: str
    seconds: float

    @classmethod
    def failed(cls, key: Key, reason: str, sandbox: str, host: str, seconds: float) -> Result:
        """A notebook that could not be executed at all (every graded cell scores 0)."""
        return cls(key, None, "error", reason, [Event("stopped", reason)], [], [], sandbox, host, seconds)

    def with_severity(self, severity: str) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    def record(self) -> NotebookRecord:
        """The state-file entry of this notebook."""
        return NotebookRecord(
            status=self.status, reason=self.reason, events=list(self.events),
            tamper=self.with_severity("tamper"), suspicious=self.with_severity("suspicious"),
            not_run=list(self.not_run), sandbox=self.sandbox, host=self.host, seconds=self.seconds,
        )


@dataclass
class NotebookRecord:
    """What the state file keeps of one notebook of a submission (missing: not submitted)."""

    status: str | None
    reason: str | None = None
    events: list[Event] = field(default_factory=list)
    tamper: list[Finding] = field(default_factory=list)
    suspicious: list[Finding] = field(default_factory=list)
    not_run: list[int] = field(default_factory=list)
    sandbox: str | None = None
    host: str | None = None
    seconds: float | None = None
    missing: bool = False
    repaired: list[str] = field(default_factory=list)  # what aligned it with its release (repair.py)

    def flags(self) -> list[tuple[str, str]]:
        """(short, detailed) of everything this notebook is flagged for: short for the CSV's flags
        column, detailed for the class report."""
        out = []
        if self.missing:
            out.append(("not submitted", "not submitted (0 points)"))
        if self.status not in (None, "ok"):
            out.append((self.status, f"{self.status} — {self.reason or 'no reason recorded'}"))
        out += [("output flood", str(e)) for e in self.events if e.kind == "output-flood"]
        out += [("TAMPERING - review", f"tampering ({f.where()}{f.message}) — scored 0, flagged for review "
                 "(needs_manual_grade in the gradebook)") for f in self.tamper]
        out += [("suspicious - review", f"suspicious ({f.where()}{f.message}) — points kept, flagged for "
                 "review") for f in self.suspicious]
        out += [(f"repaired ({what})", f"repaired before grading: {what}") for what in self.repaired]
        return out

    def to_dict(self) -> dict:
        return {
            "status": self.status, "reason": self.reason, "events": [e.to_dict() for e in self.events],
            "tamper": [f.to_dict() for f in self.tamper],
            "suspicious": [f.to_dict() for f in self.suspicious],
            "not_run": self.not_run, "sandbox": self.sandbox, "host": self.host, "seconds": self.seconds,
            "missing": self.missing, "repaired": self.repaired,
        }

    @classmethod
    def from_dict(cls, data: dict) -> NotebookRecord:
        return cls(
            status=data.get("status"), reason=data.get("reason"),
            events=[Event.from_dict(e) for e in data.get("events", [])],
            tamper=[Finding.from_dict(f) for f in data.get("tamper", [])],
            suspicious=[Finding.from_dict(f) for f in data.get("suspicious", [])],
            not_run=list(data.get("not_run", [])), sandbox=data.get("sandbox"), host=data.get("host"),
            seconds=data.get("seconds"), missing=bool(data.get("missing")),
            repaired=list(data.get("repaired", [])),
        )


@dataclass
class SubmissionRecord:
    """The state file of one (student, assignment): OUTPUT/state/ASSIGNMENT/STUDENT.json."""

    hash: str
    complete: bool
    graded_at: str
    notebooks: dict[str, NotebookRecord] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"hash": self.hash, "complete": self.complete, "graded_at": self.graded_at,
                "notebooks": {name: nb.to_dict() for name, nb in self.notebooks.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> SubmissionRecord | None:
        """The record, or None for a file of another shape (an older version's: regrade it)."""
        try:
            notebooks = {name: NotebookRecord.from_dict(nb) for name, nb in data["notebooks"].items()}
            return cls(data["hash"], bool(data["complete"]), data["graded_at"], notebooks)
        except (KeyError, TypeError, AttributeError):
            return None
