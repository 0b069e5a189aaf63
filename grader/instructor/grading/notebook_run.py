"""nbgrader's `Execute` preprocessor, extended to run one notebook of a job (see execute.py).

Imported by the worker only (it imports nbgrader and nbclient): `GradingExecute.configure_job`
sets the job up, `preprocess` runs the notebook cell by cell, asking the integrity guard around
every instructor cell, and stops cleanly when the kernel dies, ignores interrupts or runs out
of notebook time.
"""

from __future__ import annotations

import math
import os
import secrets
import sys
import time
from pathlib import Path

import nbformat
from jupyter_core.utils import ensure_async, run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbgrader.preprocessors import Execute
from nbgrader.utils import is_grade

from grader.instructor.grading import guard_host, sandbox
from grader.instructor.grading.records import TRUSTED_CELL, CellPlan, Event, Finding, Job

#: Error name given to graded cells that never ran; nbgrader scores a cell with an error 0.
NOT_RUN = "NotExecuted"
#: (status, error name, reason on the cell, reason on the later cells) when the kernel is gone.
_KERNEL_DIED = (
    "kernel_died",
    "DeadKernelError",
    "the kernel died{how} while running this cell (os._exit, a crash, or out of memory)",
    "the kernel died in an earlier cell",
)
_UNRESPONSIVE = (
    "unresponsive",
    "CellTimeoutError",
    "the cell did not stop when interrupted after its time limit; the kernel was killed",
    "the kernel was killed in an earlier cell",
)


class _NotebookTimeout(Exception):
    """The per-notebook time limit was reached (raised by `_run_cell`, handled by the loop)."""


def _output_size(content: dict) -> int:
    return len(content.get("text", "")) + sum(
        len(v) if isinstance(v, str) else len(str(v)) for v in content.get("data", {}).values()
    )


class GradingExecute(Execute):
    def configure_job(self, job: Job, scratch: Path, workdir: Path, spec, env, log_path: Path) -> None:
        self._job = job
        self._sandbox = (scratch, workdir, spec, env)
        self._log_path = log_path
        self._cell_timeout = self.timeout
        self._output_limit = int(job.limits.output_limit)
        self._cell_bytes: dict[int, int] = {}
        self._interrupted: set[int] = set()
        self.events: list[Event] = []
        self.findings: list[Finding] = []
        self.status, self.reason, self.not_run = "ok", None, []
        self.shutdown_kernel = "immediate"

    def create_kernel_manager(self):
        if not self.kernel_name:
            self.kernel_name = self.nb.metadata.get("kernelspec", {}).get("name") or "python3"
        self.km = sandbox.SandboxKernelManager(kernel_name=self.kernel_name, config=self.config)
        self.km.setup_sandbox(*self._sandbox)
        return self.km

    # ---------------------------------------------------------------- output limit
    # nbclient's hooks (on_cell_*) cannot drop an output: this extends its public `output`.
    def output(self, outs, msg, display_id, cell_index):
        if msg["msg_type"] != "error":
            size = _output_size(msg.get("content", {}))
            used = self._cell_bytes.get(cell_index, 0) + size
            self._cell_bytes[cell_index] = used
            if used > self._output_limit:
                if used - size <= self._output_limit:
                    self._note_flood(outs, cell_index)
                return None
        return super().output(outs, msg, display_id, cell_index)

    def _note_flood(self, outs, cell_index: int) -> None:
        mb = self._output_limit / 2**20
        self.events.append(Event(
            "output-flood", f"output flood, more than {mb:.0f} MB printed; the rest was discarded", cell_index
        ))
        text = (
            f"\n[backprop-grade: this cell printed more than {mb:.0f} MB; "
            "the rest of its output was discarded]\n"
        )
        outs.append(nbformat.v4.new_output("stream", name="stdout", text=text))

    # ---------------------------------------------------------------- the guard
    async def _async_trusted(self, code: str, expression: str, timeout: float = 60.0):
        msg_id = self.kc.execute(
            code,
            silent=True,
            store_history=False,
            user_expressions={"r": expression},
            allow_stdin=False,
            stop_on_error=False,
        )
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                msg = await ensure_async(self.kc.shell_channel.get_msg(timeout=remaining))
            except Exception:
                return None
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg

    def _guard(self, method: str, args: tuple, cell_index: int | None, code: str = "") -> dict | None:
        nonce = secrets.token_hex(16)
        expr = guard_host.call_expression(self._token, method, nonce, *args)
        reply = run_sync(self._async_trusted)(code, expr)
        if reply is None and not run_sync(self._async_alive)():
            raise DeadKernelError("Kernel died")
        answer = guard_host.read_answer(reply, self._key, nonce) if reply else None
        where = f"cell {cell_index}" if cell_index is not None else "end of notebook"
        if answer is None:
            message = f"the integrity check did not answer at {where} (guard removed, replaced or blocked)"
            self.findings.append(Finding("tamper", message, cell_index))
            return None
        for severity in ("tamper", "suspicious"):
            for message in answer.get(severity, []):
                item = Finding(severity, message, cell_index)
                if item not in self.findings:
                    self.findings.append(item)
        return answer

    async def _async_alive(self) -> bool:
        try:
            return bool(await ensure_async(self.km.is_alive()))
        except Exception:
            return False

    def _install_guard(self) -> None:
        self._token, self._key = guard_host.new_guard()
        roots = sorted(
            {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
            | {sys.prefix, sys.base_prefix, str(sandbox.GRADER_DIR)}
        )
        self._guard("verify", ([],), None, code=guard_host.install_code(self._token, self._key, roots))

    # ---------------------------------------------------------------- stopping
    def _stop(self, status: str, reason: str, index: int) -> None:
        self.status, self.reason = status, reason
        self.events.append(Event("stopped", reason, index))

    def _abort(self, cell, index: int, how: tuple[str, str, str, str], detail: str = "") -> None:
        """The kernel is gone: record why on this cell and mark every later cell not run."""
        status, ename, reason, rest = how
        self._stop(status, reason.format(how=detail), index)
        cell.outputs.append(
            nbformat.v4.new_output(
                "error", ename=ename, evalue=self.reason, traceback=[f"{ename}: {self.reason}"]
            )
        )
        self._mark_not_run(index + 1, rest)

    def _mark_not_run(self, start: int, reason: str) -> None:
        for index in range(start, len(self.nb.cells)):
            cell = self.nb.cells[index]
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            self.not_run.append(index)
            if is_grade(cell):
                cell.outputs = [
                    nbformat.v4.new_output(
                        "error", ename=NOT_RUN, evalue=reason, traceback=[f"{NOT_RUN}: {reason}"]
                    )
                ]

    def _notebook_timeout(self, index: int, first_not_run: int) -> None:
        self._stop("notebook_timeout", f"notebook time limit ({self._limit:.0f} s) reached", index)
        self._mark_not_run(first_not_run, self.reason)

    # ---------------------------------------------------------------- the notebook
    def preprocess(self, nb, resources=None, km=None):
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self.resources = resources
        self._limit = float(self._job.limits.notebook_timeout or 0) or math.inf
        self._deadline = time.monotonic() + self._limit
        log = open(self._log_path, "ab")  # noqa: SIM115 - the kernel's stdout and stderr
        try:
            with self.setup_kernel(**self._launch_options(log)):
                info_msg = self.wait_for_reply(self.kc.kernel_info())
                self.nb.metadata["language_info"] = info_msg["content"]["language_info"]
                self._install_guard()
                self._run_cells(resources)
        finally:
            log.close()
        self.set_widgets_metadata()
        return self.nb, self.resources

    def _launch_options(self, log) -> dict:
        """Keyword arguments of KernelManager.start_kernel (passed on to Popen)."""
        spec, env = self._sandbox[2], self._sandbox[3]
        options = {"stdout": log, "stderr": log}
        if spec.mode == "none":  # in bubblewrap, the sandbox sets the environment (--clearenv)
            options["env"] = {**os.environ, **{k: v for k, v in env.items() if k != "PATH"}}
        return options

    def _run_cells(self, resources) -> None:
        # A loop of our own, not nbclient's on_cell_execute/on_cell_executed hooks: the guard's
        # answers and the notebook deadline must be able to stop the notebook between cells.
        plan: list[CellPlan | None] = self._job.cells or [None] * len(self.nb.cells)
        self._student_ran = self._student_since_check = False
        for index, cell in enumerate(self.nb.cells):
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            try:
                self._run_cell(cell, index, plan[index] or TRUSTED_CELL, resources)
            except _NotebookTimeout:
                return
            except DeadKernelError:
                code = self._exit_code()
                self._abort(cell, index, _KERNEL_DIED, f" (exit status {code})" if code is not None else "")
                return
            except CellTimeoutError:
                self._abort(cell, index, _UNRESPONSIVE)
                return
        if self._student_ran:
            self._guard("final", (), None)

    def _run_cell(self, cell, index: int, info: CellPlan, resources) -> None:
        """One cell, with the guard asked before and after an instructor cell."""
        remaining = self._deadline - time.monotonic()
        if remaining <= 1:
            self._notebook_timeout(index, index)
            raise _NotebookTimeout
        cell_limit = self._cell_timeout or math.inf
        limit_now = min(cell_limit, remaining)
        self.timeout = None if math.isinf(limit_now) else int(max(1, limit_now))
        trusted = info.kind != "student"
        if trusted and self._student_since_check:
            self._guard("verify", (info.free,), index)
            self._student_since_check = False
        started = time.monotonic()
        self.preprocess_cell(cell, resources, index)
        if (
            remaining < cell_limit
            and time.monotonic() - started >= self.timeout
            and any(o.get("ename") == "CellTimeoutError" for o in cell.outputs)
        ):
            self._notebook_timeout(index, index + 1)
            raise _NotebookTimeout
        self._note_errors(cell, index)
        if trusted:
            ran = self._student_ran
            self._guard("after", (info.free, info.bound, info.kind == "graded" and ran, not ran), index)
        else:
            self._student_ran = self._student_since_check = True

    def _note_errors(self, cell, index: int) -> None:
        for out in cell.get("outputs", []):
            if out.get("output_type") != "error":
                continue
            if out.get("ename") == "MemoryError":
                self.events.append(Event("memory", "memory limit reached (MemoryError)", index))
            elif out.get("ename") == "CellTimeoutError" or (
                out.get("ename") == "KeyboardInterrupt" and index not in self._interrupted
            ):
                self._interrupted.add(index)
                self.events.append(Event(
                    "cell-timeout", f"interrupted at the cell time limit ({self._cell_timeout} s)", index
                ))

    def _exit_code(self):
        try:
            proc = self.km.provisioner.process
            return proc.poll() if proc is not None else None
        except Exception:
            return None
