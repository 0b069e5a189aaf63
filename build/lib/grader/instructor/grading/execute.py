"""The expensive step, run in parallel: execute one sanitised notebook in a sandboxed kernel.

`run_job(job) -> result` takes a `Job` and returns a `Result` (records.py: plain data, the
notebook, the other files of the submission, the cell plan and the limits), so it runs the same
in a local process pool and on a Dask worker on another machine, with no shared filesystem.

Execution is nbgrader's own `Execute` preprocessor (same per-cell timeout, interrupt and error
handling as `nbgrader autograde`), with four changes:
- the kernel runs inside the sandbox (sandbox.py) and is interrupted by message
  (sandbox.SandboxKernelManager; the class extended is in notebook_run.py);
- a dead kernel (os._exit, segfault, out of memory), a kernel that ignores interrupts, or the
  per-notebook time limit stops the notebook but keeps its outputs so far; every graded cell
  that did not run gets an error output, so nbgrader scores it 0 - and the rest of the class
  (and the student's other notebooks) are graded as usual;
- output beyond a per-cell limit is discarded (a print loop cannot exhaust the worker);
- the integrity guard (_kernel_guard.py) is asked, around every instructor cell, whether
  student code changed what the tests rely on.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

import nbformat

from grader.instructor.grading import sandbox
from grader.instructor.grading.records import Job, Result


def run_job(job: Job) -> Result:
    """Execute one notebook; never raises for anything the student's code does."""
    from traitlets.config import Config

    from grader.instructor.grading.notebook_run import GradingExecute

    started = time.monotonic()
    spec = dataclasses.replace(job.limits.sandbox)
    if spec.mode == "bwrap":
        reason = sandbox.probe(spec.uid if os.geteuid() == 0 else None)
        if reason:
            if not job.limits.allow_unsandboxed:
                return _failed(job, started, f"no sandbox on {socket.gethostname()}: {reason}")
            spec.mode = "none"
    scratch = Path(tempfile.mkdtemp(prefix="bpg-", dir="/tmp"))
    try:
        workdir = _prepare_scratch(scratch, job, spec)
        env = sandbox.kernel_env(scratch, scratch / "home", job.limits.threads)
        nb = nbformat.from_dict(job.notebook)
        ep = GradingExecute(config=Config(job.execute_config or {}))
        ep.configure_job(job, scratch, workdir, spec, env, scratch / "kernel.log")
        try:
            ep.preprocess(nb, {"metadata": {"path": str(workdir)}})
        except Exception as err:  # the kernel did not start, or nbclient failed
            tail = _tail(scratch / "kernel.log")
            reason = f"execution failed: {type(err).__name__}: {err}" + (
                f"\nkernel log:\n{tail}" if tail else ""
            )
            return _failed(job, started, reason, sandbox_mode=spec.mode)
        seconds = round(time.monotonic() - started, 3)
        host = socket.gethostname()
        return Result(
            job.key, nb, ep.status, ep.reason, ep.events, ep.findings, ep.not_run, spec.mode, host, seconds
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _prepare_scratch(scratch: Path, job: Job, spec: sandbox.SandboxSpec) -> Path:
    """work/ (the submission's other files), home/ and ipc/ in the scratch folder; returns work/."""
    workdir, home, ipc = scratch / "work", scratch / "home", scratch / "ipc"
    for d in (workdir, home, ipc):
        d.mkdir()
    for rel, data in (job.files or {}).items():
        target = workdir / rel
        if not target.resolve().is_relative_to(workdir.resolve()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(data))
    sandbox.copy_matplotlib_cache(home)
    sandbox.prepare_scratch(scratch, spec)
    return workdir


def _tail(path: Path, n: int = 2000) -> str:
    try:
        return path.read_bytes()[-n:].decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _failed(job: Job, started: float, reason: str, sandbox_mode: str = "none") -> Result:
    seconds = round(time.monotonic() - started, 3)
    return Result.failed(job.key, reason, sandbox_mode, socket.gethostname(), seconds)
