"""The expensive step, run in parallel: execute one sanitised notebook in a sandboxed kernel.

`run_job(job) -> result` takes and returns plain JSON-able dicts (the notebook, the other files
of the submission, the cell plan and the limits), so it runs the same in a local process pool
and on a Dask worker on another machine, with no shared filesystem.

Execution is nbgrader's own `Execute` preprocessor (same per-cell timeout, interrupt and error
handling as `nbgrader autograde`), with four changes:
- the kernel runs inside the sandbox (sandbox.py) and is interrupted by message;
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
import math
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import ensure_async, run_sync

from grader.instructor.grading import sandbox, tamper

#: Error name given to graded cells that never ran; nbgrader scores a cell with an error 0.
NOT_RUN = "NotExecuted"
DEFAULT_OUTPUT_LIMIT = 4 << 20  # bytes of output kept per cell


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager that starts its kernel inside the sandbox of one job."""

    def setup_sandbox(
        self, scratch: Path, workdir: Path, spec: sandbox.SandboxSpec, env: dict[str, str], log_path: Path
    ) -> None:
        self._bpg = (scratch, workdir, spec, env, log_path)
        ipc = scratch / "ipc"
        self.transport = "ipc"
        self.ip = str(ipc / "k")
        self.connection_file = str(ipc / "kernel.json")

    def format_kernel_cmd(self, extra_arguments=None):
        scratch, workdir, spec, env, _ = self._bpg
        cmd = super().format_kernel_cmd(extra_arguments)
        return sandbox.sandbox_command(cmd, scratch, workdir, spec, env)

    def write_connection_file(self, **kwargs):
        super().write_connection_file(**kwargs)
        spec = self._bpg[2]
        if spec.mode == "bwrap" and os.geteuid() == 0 and spec.uid is not None:
            os.chown(self.connection_file, spec.uid, spec.uid)

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        scratch, workdir, spec, env, log_path = self._bpg
        if spec.mode == "none":
            kw["env"] = {**os.environ, **{k: v for k, v in env.items() if k != "PATH"}}
        log = open(log_path, "ab")  # noqa: SIM115 - handed over to the kernel process
        kw["stdout"] = log
        kw["stderr"] = log
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            log.close()

    async def _async_interrupt_kernel(self):
        # By message: a SIGINT would reach bubblewrap (and kill the sandbox), not the kernel.
        if not self.has_kernel:
            raise RuntimeError("Cannot interrupt kernel. No kernel is running!")
        msg = self.session.msg("interrupt_request", content={})
        self._connect_control_socket()
        self.session.send(self._control_socket, msg)

    interrupt_kernel = _async_interrupt_kernel


def _execute_class():
    """nbgrader's Execute preprocessor, extended (imported lazily: workers import it once)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    from nbgrader.preprocessors import Execute

    class GradingExecute(Execute):
        def configure_job(self, job: dict, scratch: Path, workdir: Path, spec, env, log_path) -> None:
            self._job = job
            self._paths = (scratch, workdir, spec, env, log_path)
            self._cell_timeout = self.timeout
            self._output_limit = int(job.get("output_limit") or DEFAULT_OUTPUT_LIMIT)
            self._cell_bytes: dict[int, int] = {}
            self._interrupted: set[int] = set()
            self.events: list[str] = []
            self.findings: list[dict] = []
            self.status, self.reason, self.not_run = "ok", None, []
            self.shutdown_kernel = "immediate"

        def create_kernel_manager(self):
            if not self.kernel_name:
                self.kernel_name = self.nb.metadata.get("kernelspec", {}).get("name") or "python3"
            self.km = SandboxKernelManager(kernel_name=self.kernel_name, config=self.config)
            self.km.setup_sandbox(*self._paths)
            return self.km

        # ---------------------------------------------------------------- output limit
        def output(self, outs, msg, display_id, cell_index):
            if msg["msg_type"] != "error":
                content = msg.get("content", {})
                size = len(content.get("text", "")) + sum(
                    len(v) if isinstance(v, str) else len(str(v)) for v in content.get("data", {}).values()
                )
                used = self._cell_bytes.get(cell_index, 0) + size
                self._cell_bytes[cell_index] = used
                if used > self._output_limit:
                    if used - size <= self._output_limit:
                        mb = self._output_limit / 2**20
                        self.events.append(
                            f"cell {cell_index}: output flood, more than {mb:.0f} MB "
                            "printed; the rest was discarded"
                        )
                        outs.append(
                            nbformat.v4.new_output(
                                "stream",
                                name="stdout",
                                text=f"\n[backprop-grade: this cell printed more than {mb:.0f} MB; "
                                "the rest of its output was discarded]\n",
                            )
                        )
                    return None
            return super().output(outs, msg, display_id, cell_index)

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
            import secrets

            nonce = secrets.token_hex(16)
            expr = tamper.call_expression(self._token, method, nonce, *args)
            reply = run_sync(self._async_trusted)(code, expr)
            if reply is None and not run_sync(self._async_alive)():
                raise DeadKernelError("Kernel died")
            answer = tamper.read_answer(reply, self._key, nonce) if reply else None
            where = f"cell {cell_index}" if cell_index is not None else "end of notebook"
            if answer is None:
                self.findings.append(
                    {
                        "severity": "tamper",
                        "cell": cell_index,
                        "message": f"the integrity check did not answer at {where} "
                        "(guard removed, replaced or blocked)",
                    }
                )
                return None
            for severity in ("tamper", "suspicious"):
                for message in answer.get(severity, []):
                    item = {"severity": severity, "cell": cell_index, "message": message}
                    if item not in self.findings:
                        self.findings.append(item)
            return answer

        async def _async_alive(self) -> bool:
            try:
                return bool(await ensure_async(self.km.is_alive()))
            except Exception:
                return False

        def _install_guard(self) -> None:
            self._token, self._key = tamper.new_guard()
            roots = sorted(
                {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
                | {sys.prefix, sys.base_prefix, str(sandbox.GRADER_DIR)}
            )
            self._guard("verify", ([],), None, code=tamper.install_code(self._token, self._key, roots))

        # ---------------------------------------------------------------- the notebook
        def _stop(self, status: str, reason: str, index: int) -> None:
            self.status, self.reason = status, reason
            self.events.append(f"cell {index}: {reason}")

        def _abort(self, cell, index: int, status: str, ename: str, reason: str, rest: str) -> None:
            """The kernel is gone: record why on this cell and mark every later cell not run."""
            self._stop(status, reason, index)
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
                if cell.metadata.get("nbgrader", {}).get("grade"):
                    cell.outputs = [
                        nbformat.v4.new_output(
                            "error", ename=NOT_RUN, evalue=reason, traceback=[f"{NOT_RUN}: {reason}"]
                        )
                    ]

        def preprocess(self, nb, resources=None, km=None):
            NotebookClient.__init__(self, nb, km)
            self.reset_execution_trackers()
            self._check_assign_resources(resources)
            plan = self._job.get("cells") or [None] * len(nb.cells)
            guard_on = bool(self._job.get("guard", True))
            limit = float(self._job.get("notebook_timeout") or 0) or math.inf
            deadline = time.monotonic() + limit
            with self.setup_kernel():
                info_msg = self.wait_for_reply(self.kc.kernel_info())
                self.nb.metadata["language_info"] = info_msg["content"]["language_info"]
                if guard_on:
                    self._install_guard()
                student_ran = student_since_check = False
                for index, cell in enumerate(self.nb.cells):
                    if cell.cell_type != "code" or not cell.source.strip():
                        continue
                    info = plan[index] or {"kind": "trusted", "free": [], "bound": []}
                    remaining = deadline - time.monotonic()
                    if remaining <= 1:
                        self._stop("notebook_timeout", f"notebook time limit ({limit:.0f} s) reached", index)
                        self._mark_not_run(index, self.reason)
                        break
                    cell_limit = self._cell_timeout or math.inf
                    limit_now = min(cell_limit, remaining)
                    self.timeout = None if math.isinf(limit_now) else int(max(1, limit_now))
                    by_deadline = remaining < cell_limit
                    trusted = info["kind"] != "student"
                    try:
                        if guard_on and trusted and student_since_check:
                            self._guard("verify", (info["free"],), index)
                            student_since_check = False
                        started = time.monotonic()
                        self.preprocess_cell(cell, resources, index)
                        if (
                            by_deadline
                            and time.monotonic() - started >= self.timeout
                            and any(o.get("ename") == "CellTimeoutError" for o in cell.outputs)
                        ):
                            self._stop(
                                "notebook_timeout", f"notebook time limit ({limit:.0f} s) reached", index
                            )
                            self._mark_not_run(index + 1, self.reason)
                            break
                        self._note_errors(cell, index)
                        if guard_on and trusted:
                            graded = info["kind"] == "graded"
                            self._guard(
                                "after",
                                (info["free"], info["bound"], graded and student_ran, not student_ran),
                                index,
                            )
                        elif not trusted:
                            student_ran = student_since_check = True
                    except DeadKernelError:
                        code = self._exit_code()
                        how = f" (exit status {code})" if code is not None else ""
                        self._abort(
                            cell,
                            index,
                            "kernel_died",
                            "DeadKernelError",
                            f"the kernel died{how} while running this cell "
                            "(os._exit, a crash, or out of memory)",
                            "the kernel died in an earlier cell",
                        )
                        break
                    except CellTimeoutError:
                        self._abort(
                            cell,
                            index,
                            "unresponsive",
                            "CellTimeoutError",
                            "the cell did not stop when interrupted "
                            "after its time limit; the kernel was killed",
                            "the kernel was killed in an earlier cell",
                        )
                        break
                else:
                    if guard_on and student_ran:
                        self._guard("final", (), None)
            self.set_widgets_metadata()
            return self.nb, self.resources

        def _note_errors(self, cell, index: int) -> None:
            for out in cell.get("outputs", []):
                if out.get("output_type") != "error":
                    continue
                if out.get("ename") == "MemoryError":
                    self.events.append(f"cell {index}: memory limit reached (MemoryError)")
                elif out.get("ename") == "CellTimeoutError" or (
                    out.get("ename") == "KeyboardInterrupt" and index not in self._interrupted
                ):
                    self._interrupted.add(index)
                    self.events.append(
                        f"cell {index}: interrupted at the cell time limit ({self._cell_timeout} s)"
                    )

        def _exit_code(self):
            try:
                proc = self.km.provisioner.process
                return proc.poll() if proc is not None else None
            except Exception:
                return None

    return GradingExecute


_EXECUTE = None


def run_job(job: dict) -> dict:
    """Execute one notebook; never raises for anything the student's code does."""
    global _EXECUTE
    if _EXECUTE is None:
        _EXECUTE = _execute_class()
    started = time.monotonic()
    spec = sandbox.SandboxSpec.from_dict(job["sandbox"])
    if spec.mode == "bwrap":
        reason = sandbox.probe(spec.uid if os.geteuid() == 0 else None)
        if reason:
            if not job.get("allow_unsandboxed", True):
                return _failed(job, started, f"no sandbox on {socket.gethostname()}: {reason}")
            spec.mode = "none"
    scratch = Path(tempfile.mkdtemp(prefix="bpg-", dir=job.get("scratch_root") or "/tmp"))
    try:
        workdir, home, ipc = scratch / "work", scratch / "home", scratch / "ipc"
        for d in (workdir, home, ipc):
            d.mkdir()
        for rel, data in (job.get("files") or {}).items():
            target = workdir / rel
            if not target.resolve().is_relative_to(workdir.resolve()):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(base64.b64decode(data))
        sandbox.copy_matplotlib_cache(home)
        sandbox.prepare_scratch(scratch, spec)
        env = sandbox.kernel_env(scratch, home, job.get("threads"))
        nb = nbformat.from_dict(job["notebook"])
        from traitlets.config import Config

        ep = _EXECUTE(config=Config(job.get("execute_config") or {}))
        ep.configure_job(job, scratch, workdir, spec, env, scratch / "kernel.log")
        try:
            ep.preprocess(nb, {"metadata": {"path": str(workdir)}})
        except Exception as err:  # the kernel did not start, or nbclient failed
            tail = _tail(scratch / "kernel.log")
            return _failed(
                job,
                started,
                f"execution failed: {type(err).__name__}: {err}" + (f"\nkernel log:\n{tail}" if tail else ""),
                sandbox_mode=spec.mode,
            )
        return {
            "key": job["key"],
            "notebook": nb,
            "status": ep.status,
            "reason": ep.reason,
            "events": ep.events,
            "findings": ep.findings,
            "not_run": ep.not_run,
            "sandbox": spec.mode,
            "host": socket.gethostname(),
            "seconds": round(time.monotonic() - started, 3),
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _tail(path: Path, n: int = 2000) -> str:
    try:
        return path.read_bytes()[-n:].decode("utf-8", "replace").strip()
    except OSError:
        return ""


def failed_result(job: dict, reason: str, sandbox_mode: str, host: str, seconds: float) -> dict:
    """The result of a notebook that could not be executed at all (every graded cell scores 0)."""
    return {
        "key": job["key"],
        "notebook": None,
        "status": "error",
        "reason": reason,
        "events": [reason],
        "findings": [],
        "not_run": [],
        "sandbox": sandbox_mode,
        "host": host,
        "seconds": seconds,
    }


def _failed(job: dict, started: float, reason: str, sandbox_mode: str = "none") -> dict:
    return failed_result(
        job, reason, sandbox_mode, socket.gethostname(), round(time.monotonic() - started, 3)
    )
