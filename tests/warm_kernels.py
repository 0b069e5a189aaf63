"""Warm kernels for the test suite: a kernel provisioner that forks ipykernel from a warmed process.

Every notebook the suite executes through plain nbgrader, nbclient or the grading pipeline's
unsandboxed mode used to start a fresh Python that imported ipykernel, then (in the lesson's
setup cell) numpy, torch and matplotlib: about 2 s of one core per kernel, most of the suite's
fixed cost per lesson. `WarmProvisioner` is jupyter_client's `LocalProvisioner` with one change:
when the command it is asked to run is this interpreter's plain `python -m ipykernel_launcher -f
CONNECTION_FILE`, bare or behind the pipeline's `prlimit` prefix, it asks a fork server (one per
test session and import environment, listening on a Unix socket, so that xdist's workers and the
processes forked from them, like the pipeline's worker pool, reach it too) that has imported those modules
once to fork, and the child becomes that command: new session, the `prlimit` limits, the launch's
working folder, environment and argv, stdin from /dev/null, default signal handlers, fresh seeds
for `random` and numpy.

Everything else (a sandboxed kernel's `bwrap` command, another interpreter, an environment that
would import from elsewhere) launches exactly as `LocalProvisioner` does. The kernel is a real
ipykernel speaking the real protocol to the real nbgrader; what differs from a cold start is only
that some modules are already in `sys.modules` and that the string hash seed is shared.
`tests/grading/test_warm_kernels.py` shows a warm kernel sees what a cold one sees, and
`BACKPROP_COLD_KERNELS=1 make test` runs the whole suite with cold kernels.

    python tests/warm_kernels.py serve SOCKET READY_FD OWNER_PID   # a server (started by `_server_for`)
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

#: What the fork server imports before it forks: what the lessons' setup cells import, and
#: torch._dynamo, which torch imports (a second) the first time a FlopCounterMode runs (lesson 13).
WARM_MODULES = ("numpy", "torch", "torch._dynamo", "matplotlib", "matplotlib.pyplot",
                "ipykernel.kernelapp")
#: Environment variables read while those modules import: a kernel asked for with other values
#: gets a server of its own. HOME and MPLCONFIGDIR are not among them: at import they only tell
#: matplotlib where its configuration and font cache are, and the grading pipeline gives every
#: kernel a scratch HOME holding a copy of the same cache (sandbox.copy_matplotlib_cache); the
#: child's environment has the kernel's own HOME before IPython reads it.
IMPORT_ENV = ("MPLBACKEND", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "KMP_AFFINITY",
              "PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONDONTWRITEBYTECODE", "LD_LIBRARY_PATH", "LD_PRELOAD")
HOME_ENV = ("HOME", "MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
#: Variables that change where modules come from: a kernel asked for with other values starts cold.
COLD_ENV = ("PYTHONHOME", "PYTHONHASHSEED", "PYTHONSAFEPATH", "PYTHONSTARTUP")
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"  # what ipykernel sets when unset
PROVISIONER_NAME = "backprop-warm"


# ---------------------------------------------------------------- the server (its own process)

def _become(request: dict[str, Any], ready_fd: int) -> None:
    """In the forked child: become `python -m MODULE ARGS` as it would start cold (and raise its
    SystemExit, which ends the child like any Python program: its atexit handlers run, its streams
    are flushed). Only the interpreter's teardown after them is skipped (`_exit_after_atexit`)."""
    import atexit
    import random
    import resource
    import runpy

    import numpy as np

    os.setsid()
    os.write(ready_fd, b"1")
    os.close(ready_fd)
    for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    streams = [os.open(os.devnull, os.O_RDONLY)]
    if request.get("log"):
        streams += [os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)] * 2
    for fd, stream in enumerate(streams):
        os.dup2(stream, fd)
    for stream in set(streams):
        os.close(stream)
    for name, value in request.get("limits", {}).items():  # what `prlimit --NAME=VALUE --` sets
        resource.setrlimit(getattr(resource, name), (value, value))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    sys.path[0] = os.getcwd()  # as `python -m` sets it
    random.seed()
    np.random.seed()
    sys.argv = [request["module"], *request["args"]]  # runpy puts the module's file first
    status = [1]  # an exception other than SystemExit ends Python with status 1
    atexit.register(_exit_after_atexit, status)  # the first registered runs last
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        status[0] = 0
    except SystemExit as ended:
        status[0] = _exit_status(ended.code)
        raise
    sys.exit(0)


def _exit_status(code: object) -> int:
    """The status `sys.exit(code)` ends Python with (a message, like "error", is status 1)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _exit_after_atexit(status: list[int]) -> None:
    """The last atexit handler of a forked child: flush its streams and end it now.

    What would follow is the interpreter's teardown: clearing every module and freeing every
    object, about 0.6 s of one core with torch imported, for each of the suite's hundreds of
    kernels. It changes nothing a test can see: the kernel's replies were sent, its files are
    closed by the system, and every atexit handler (ipykernel's, jupyter_client's) has run.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status[0])


def _reap(exit_codes: dict[int, int]) -> None:
    """Record the exit code of every child that ended."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        exit_codes[pid] = os.waitstatus_to_exitcode(status)


def serve(address: str, ready_fd: int, owner: int) -> None:
    """Import WARM_MODULES, then answer one JSON request per connection to the Unix socket
    `address`: {"op": "fork", ...} forks a child that becomes the command (`_become`) and answers
    its pid; {"op": "poll", "pid": P} answers P's exit code, or None while it runs; {"op": "stop"}
    ends the server. It also ends when the test process `owner` is gone."""
    import importlib
    import socket

    inline = "MPLBACKEND" not in os.environ
    os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
    for name in WARM_MODULES:
        importlib.import_module(name)
    if inline:
        del os.environ["MPLBACKEND"]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    listener.settimeout(5.0)
    os.write(ready_fd, b"ready\n")
    os.close(ready_fd)
    exit_codes: dict[int, int] = {}
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            if not _alive(owner):
                return
            continue
        with conn:
            conn.settimeout(None)
            request = json.loads(conn.makefile("rb").readline())
            _reap(exit_codes)
            if request["op"] == "stop":
                return
            if request["op"] == "poll":
                conn.sendall(json.dumps({"code": exit_codes.get(request["pid"])}).encode() + b"\n")
                continue
            ready_r, ready_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                conn.close()
                listener.close()
                os.close(ready_r)
                _become(request, ready_w)  # never returns: its SystemExit ends this process
            os.close(ready_w)
            os.read(ready_r, 1)  # the child leads its own session before anyone signals it
            os.close(ready_r)
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# ---------------------------------------------------------------- the test process's side

#: Where this test process's servers listen (one Unix socket per server), made by `install()`.
#: Processes forked from the test process (the grading pipeline's worker pool) inherit it and
#: reach the same servers: one connection per request, so no two processes share a socket.
_STATE: dict[str, Any] = {}


class _ForkServer:
    """A running server, addressed by its socket; any process of the test process's family may
    use it, and the first that needs it starts it."""

    def __init__(self, address: str) -> None:
        self.address = address

    @classmethod
    def start(cls, address: str, env: dict[str, str]) -> _ForkServer:
        env = {k: v for k, v in env.items() if k not in HOME_ENV}  # the test process's, not a
        env.update({k: os.environ[k] for k in HOME_ENV if k in os.environ})  # scratch home's
        ready_r, ready_w = os.pipe()
        subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "serve", address, str(ready_w), str(_STATE["owner"])],
            pass_fds=[ready_w], env=env, stdin=subprocess.DEVNULL, cwd=os.path.dirname(__file__),
            start_new_session=True)  # it outlives a pool worker that started it
        os.close(ready_w)
        with os.fdopen(ready_r, "rb") as ready:
            if ready.readline() != b"ready\n":
                raise RuntimeError("the warm-kernel server did not start (see its traceback above)")
        return cls(address)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """The server's answer; ConnectionError when it is gone."""
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            try:
                conn.connect(self.address)
            except (FileNotFoundError, ConnectionRefusedError) as err:
                raise ConnectionError(f"no warm-kernel server at {self.address}") from err
            conn.sendall(json.dumps(request).encode() + b"\n")
            answer = conn.makefile("rb").readline()
        if not answer:
            raise ConnectionError(f"the warm-kernel server at {self.address} did not answer")
        return json.loads(answer)

    def running(self) -> bool:
        try:
            self.ask({"op": "poll", "pid": 0})
        except ConnectionError:
            return False
        return True

    def start_child(self, module: str, args: list[str], env: dict[str, str], cwd: str,
                    log: str | None = None, limits: dict[str, int] | None = None) -> ForkedProcess:
        request = {"op": "fork", "module": module, "args": args, "env": env, "cwd": cwd, "log": log,
                   "limits": limits or {}}
        return ForkedProcess(self.ask(request)["pid"], self)


_SERVERS_LOCK = threading.Lock()


def _server_for(env: dict[str, str]) -> _ForkServer:
    """The server for `env`'s import environment, started (under a file lock, which the other
    processes of the family respect too) when there is none yet."""
    import fcntl
    import hashlib

    key = json.dumps([env.get(k) for k in IMPORT_ENV])
    name = hashlib.sha1(key.encode()).hexdigest()[:16]
    address = os.path.join(_STATE["dir"], f"{name}.sock")
    with _SERVERS_LOCK, open(os.path.join(_STATE["dir"], f"{name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        server = _ForkServer(address)
        if not server.running():
            if os.path.exists(address):
                os.unlink(address)
            server = _ForkServer.start(address, env)
        return server


class ForkedProcess:
    """The Popen-like handle LocalProvisioner keeps: the process is the server's child, not ours,
    so the server reports its exit code."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int, server: _ForkServer) -> None:
        self.pid = pid
        self.server = server
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                self.returncode = self.server.ask({"op": "poll", "pid": self.pid})["code"]
            except ConnectionError:  # the server is gone: its children were orphaned, end on their own
                if not _alive(self.pid):
                    self.returncode = -signal.SIGKILL
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def run_module(module: str, args: list[str], *, env: dict[str, str], cwd: str, log: str,
               timeout: float) -> int:
    """`python -m module args` with its output appended to `log`: forked from a warm server
    when warm kernels are on (`install()`), else a plain subprocess. Returns its exit code."""
    if not installed():
        with open(log, "a") as out:
            return subprocess.run([sys.executable, "-m", module, *args], stdout=out,
                                  stderr=subprocess.STDOUT, env=env, cwd=cwd, timeout=timeout).returncode
    process = _server_for(env).start_child(module, args, env, cwd, log)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        raise


#: `prlimit` options (as the grading sandbox's unsandboxed mode writes them) -> resource limits.
PRLIMIT_OPTIONS = {"--data": "RLIMIT_DATA", "--fsize": "RLIMIT_FSIZE", "--nofile": "RLIMIT_NOFILE",
                   "--core": "RLIMIT_CORE"}


def split_prlimit(cmd: list[str]) -> tuple[dict[str, int], list[str]] | None:
    """`prlimit --data=N ... -- CMD` -> ({"RLIMIT_DATA": N, ...}, CMD); a command without the
    prefix -> ({}, cmd); a prlimit option we do not know -> None (it starts cold)."""
    if os.path.basename(cmd[0]) != "prlimit":
        return {}, cmd
    if "--" not in cmd:
        return None
    end = cmd.index("--")
    limits = {}
    for option in cmd[1:end]:
        name, _, value = option.partition("=")
        if name not in PRLIMIT_OPTIONS or not value.isdigit():
            return None
        limits[PRLIMIT_OPTIONS[name]] = int(value)
    return limits, cmd[end + 1:]


def warm_eligible(cmd: list[str], env: dict[str, str]) -> bool:
    """Only this interpreter's plain `-m ipykernel_launcher -f FILE [--Class.trait=value ...]`
    (nbclient adds `--HistoryManager.hist_file=:memory:`), bare or behind a `prlimit` prefix
    (`split_prlimit`), with no PYTHON* surprise that would change where modules come from."""
    split = split_prlimit(cmd)
    if split is None:
        return False
    cmd = split[1]
    plain = (len(cmd) >= 5 and cmd[1:4] == ["-m", "ipykernel_launcher", "-f"]
             and all(arg.startswith("--") and "=" in arg for arg in cmd[5:])
             and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable))
    return plain and all(env.get(k) == os.environ.get(k) for k in COLD_ENV)


@functools.cache
def _provisioner_class():
    from jupyter_client.provisioning import LocalProvisioner

    class WarmProvisioner(LocalProvisioner):
        """LocalProvisioner that forks eligible kernels from a warmed server (module docstring)."""

        async def launch_kernel(self, cmd: list[str], **kwargs: Any):
            env = dict(kwargs.get("env") or os.environ)
            if not warm_eligible(cmd, env):
                return await super().launch_kernel(cmd, **kwargs)
            limits, cmd = split_prlimit(cmd)
            cwd = str(kwargs.get("cwd") or os.getcwd())
            log = getattr(kwargs.get("stdout"), "name", None)  # the grading pipeline's kernel.log
            self.process = _server_for(env).start_child("ipykernel_launcher", cmd[3:], env, cwd,
                                                        log if isinstance(log, str) else None, limits)
            self.pid = self.pgid = self.process.pid
            self.cwd = cwd
            return self.connection_info

    return WarmProvisioner


def __getattr__(name: str):
    if name == "WarmProvisioner":  # loaded by jupyter_client's provisioner factory
        return _provisioner_class()
    raise AttributeError(name)


#: "DIR:PID" of the servers of the first test process (pytest's, or xdist's controller): the test
#: processes it starts (xdist's workers) use its servers rather than starting their own, and it
#: stops them all (`shutdown`) when it ends.
SHARED_SERVERS = "BACKPROP_WARM_SERVERS"


def install() -> None:
    """Make `WarmProvisioner` this process's default kernel provisioner (kernel specs that name
    one keep theirs). Processes forked from this one inherit it; others see no setting of ours,
    but the address of its servers (SHARED_SERVERS), which test processes it starts share."""
    import tempfile
    from importlib.metadata import EntryPoint

    from jupyter_client.provisioning.factory import KernelProvisionerFactory

    if _STATE.get("owner") != os.getpid():
        directory, _, owner = os.environ.get(SHARED_SERVERS, "").rpartition(":")
        if directory and owner.isdigit() and _alive(int(owner)) and os.path.isdir(directory):
            _STATE.update(owner=int(owner), dir=directory)  # a test process the first one started
        else:
            _STATE.update(owner=os.getpid(), dir=tempfile.mkdtemp(prefix="bpwarm-"))
            os.environ[SHARED_SERVERS] = f"{_STATE['dir']}:{os.getpid()}"
    factory = KernelProvisionerFactory.instance()
    factory.provisioners[PROVISIONER_NAME] = EntryPoint(
        name=PROVISIONER_NAME, value="tests.warm_kernels:WarmProvisioner", group=factory.GROUP_NAME)
    factory.default_provisioner_name = PROVISIONER_NAME


def uninstall() -> None:
    """Back to jupyter_client's own default provisioner and plain subprocesses (servers keep
    running until `shutdown`)."""
    from jupyter_client.provisioning.factory import KernelProvisionerFactory

    KernelProvisionerFactory.instance().default_provisioner_name = "local-provisioner"


def installed() -> bool:
    """Whether this process's kernels (and `run_module`) start warm."""
    from jupyter_client.provisioning.factory import KernelProvisionerFactory

    return KernelProvisionerFactory.instance().default_provisioner_name == PROVISIONER_NAME


def shutdown() -> None:
    """Stop every server of this test process (whichever process of its family started it)."""
    import glob
    import shutil

    if _STATE.get("owner") != os.getpid():
        return
    for address in glob.glob(os.path.join(_STATE["dir"], "*.sock")):
        try:
            _ForkServer(address).ask({"op": "stop"})
        except (ConnectionError, json.JSONDecodeError):
            pass
    shutil.rmtree(_STATE["dir"], ignore_errors=True)
    _STATE.clear()


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))  # each kernel sets its own sys.path[0]
