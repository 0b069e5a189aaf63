"""The records passed between the grading stages: a `Job` goes to a worker, a `Result` comes back,
`Finding`s say what looked like tampering. All are dataclasses of plain data, so they pickle for
a local process pool and for Dask workers on other machines.

`Result.record()` is what `OUTPUT/state/ASSIGNMENT/STUDENT.json` keeps of one notebook (read back
by report.py).
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
    events: list[str]
    findings: list[Finding]
    not_run: list[int]  # indices of the code cells that never ran
    sandbox: str  # "bwrap" or "none"
    host: str
    seconds: float
    sanitized: dict | None = None  # the notebook as sent to the worker (set by the main process)

    @classmethod
    def failed(cls, key: Key, reason: str, sandbox: str, host: str, seconds: float) -> Result:
        """A notebook that could not be executed at all (every graded cell scores 0)."""
        return cls(key, None, "error", reason, [reason], [], [], sandbox, host, seconds)

    def with_severity(self, severity: str) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    def record(self) -> dict:
        """The state-file entry of this notebook (plain JSON)."""
        return {
            "status": self.status,
            "reason": self.reason,
            "events": self.events,
            "tamper": [f.to_dict() for f in self.with_severity("tamper")],
            "suspicious": [f.to_dict() for f in self.with_severity("suspicious")],
            "not_run": self.not_run,
            "sandbox": self.sandbox,
            "host": self.host,
            "seconds": self.seconds,
        }
