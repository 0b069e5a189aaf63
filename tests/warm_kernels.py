"""Warm kernels for the test suite: a kernel provisioner that forks ipykernel from a warmed process.

Every notebook the suite executes through plain nbgrader or nbclient used to start a fresh
Python that imported ipykernel, then (in the lesson's setup cell) numpy, torch and matplotlib:
about 2 s of one core per kernel, most of the suite's fixed cost per lesson. `WarmProvisioner`
is jupyter_client's `LocalProvisioner` with one change: when the command it is asked to run is
the plain `python -m ipykernel_launcher -f CONNECTION_FILE` of this interpreter, it asks a fork
server (one per test process and import environment) that has imported those modules once to
fork, and the child becomes that command: new session, the launch's working folder, environment
and argv, stdin from /dev/null, default signal handlers, fresh seeds for `random` and numpy.

Everything else (a sandboxed kernel's `prlimit`/`bwrap` command, another interpreter, an
environment that would import differently) launches exactly as `LocalProvisioner` does. The
kernel is a real ipykernel speaking the real protocol to the real nbgrader; what differs from a
cold start is only that some modules are already in `sys.modules` and that the string hash seed
is shared. `tests/grading/test_warm_kernels.py` shows a warm kernel sees what a cold one sees,
and `BACKPROP_COLD_KERNELS=1 make test` runs the whole suite with cold kernels.

    python tests/warm_kernels.py serve FD   # the server (started by `WarmProvisioner`)
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
#: torch._dynamo, which torch imports (a second) the first time a FlopCounterMode runs (lesson 12).
WARM_MODULES = ("numpy", "torch", "torch._dynamo", "matplotlib", "matplotlib.pyplot",
                "ipykernel.kernelapp")
#: Environment variables read while those modules import: a kernel asked for with other values
#: gets a server of its own (or, for PYTHON*, a cold start).
IMPORT_ENV = ("HOME", "MPLBACKEND", "MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
              "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "KMP_AFFINITY",
              "PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "PYTHONSAFEPATH", "PYTHONNOUSERSITE",
              "PYTHONDONTWRITEBYTECODE", "LD_LIBRARY_PATH", "LD_PRELOAD")
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"  # what ipykernel sets when unset
PROVISIONER_NAME = "backprop-warm"


# ---------------------------------------------------------------- the server (its own process)

def _become(request: dict[str, Any], ready_fd: int) -> None:
    """In the forked child: become `python -m MODULE ARGS` as it would start cold (and raise its
    SystemExit, which ends the child like any Python program: atexit handlers, flushed streams)."""
    import random
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
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = os.getcwd()  # as `python -m` sets it
    random.seed()
    np.random.seed()
    sys.argv = [request["module"], *request["args"]]  # runpy puts the module's file first
    runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    sys.exit(0)


def serve(channel_fd: int) -> None:
    """Import WARM_MODULES, then answer requests read from `channel_fd`, one JSON line each:
    {"op": "fork", ...} forks a child that becomes the command (`_become`) and answers its pid;
    {"op": "poll", "pid": P} answers P's exit code, or None while it runs."""
    import importlib

    inline = "MPLBACKEND" not in os.environ
    os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
    for name in WARM_MODULES:
        importlib.import_module(name)
    if inline:
        del os.environ["MPLBACKEND"]
    channel = os.fdopen(channel_fd, "r+b", buffering=0)
    channel.write(b"ready\n")
    exit_codes: dict[int, int] = {}
    for line in channel:
        request = json.loads(line)
        while True:  # reap every child that ended since the last request
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            exit_codes[pid] = os.waitstatus_to_exitcode(status)
        if request["op"] == "poll":
            channel.write(json.dumps({"code": exit_codes.get(request["pid"])}).encode() + b"\n")
            continue
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            channel.close()
            os.close(ready_r)
            _become(request, ready_w)  # never returns: its SystemExit ends this process
        os.close(ready_w)
        os.read(ready_r, 1)  # the child leads its own session before anyone signals it
        os.close(ready_r)
        channel.write(json.dumps({"pid": pid}).encode() + b"\n")


# ---------------------------------------------------------------- the test process's side

class _ForkServer:
    """One running server (started with `env`, so it imports as that environment would)."""

    def __init__(self, env: dict[str, str]) -> None:
        import socket

        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "serve", str(theirs.fileno())],
            pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL, cwd=os.path.dirname(__file__))
        theirs.close()
        self.channel = ours.makefile("rwb", buffering=0)
        self.lock = threading.Lock()
        if self.channel.readline() != b"ready\n":
            raise RuntimeError("the warm-kernel server did not start (see its traceback above)")

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.channel.write(json.dumps(request).encode() + b"\n")
            return json.loads(self.channel.readline())

    def start(self, module: str, args: list[str], env: dict[str, str], cwd: str,
              log: str | None = None) -> ForkedProcess:
        request = {"op": "fork", "module": module, "args": args, "env": env, "cwd": cwd, "log": log}
        return ForkedProcess(self.ask(request)["pid"], self)


_SERVERS: dict[tuple, _ForkServer] = {}
_SERVERS_LOCK = threading.Lock()


def _server_for(env: dict[str, str]) -> _ForkServer:
    key = tuple(env.get(k) for k in IMPORT_ENV)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None or server.process.poll() is not None:
            server = _SERVERS[key] = _ForkServer(env)
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
            if self.server.process.poll() is None:
                self.returncode = self.server.ask({"op": "poll", "pid": self.pid})["code"]
            else:  # the server is gone: its children were orphaned and end on their own
                try:
                    os.kill(self.pid, 0)
                except ProcessLookupError:
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
    process = _server_for(env).start(module, args, env, cwd, log)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        raise


def warm_eligible(cmd: list[str], env: dict[str, str]) -> bool:
    """Only this interpreter's plain `-m ipykernel_launcher -f FILE [--Class.trait=value ...]`
    (nbclient adds `--HistoryManager.hist_file=:memory:`), with no PYTHON* surprises."""
    plain = (len(cmd) >= 5 and cmd[1:4] == ["-m", "ipykernel_launcher", "-f"]
             and all(arg.startswith("--") and "=" in arg for arg in cmd[5:])
             and os.path.realpath(cmd[0]) == os.path.realpath(sys.executable))
    return plain and all(env.get(k) == os.environ.get(k) for k in IMPORT_ENV if k.startswith("PYTHON"))


@functools.cache
def _provisioner_class():
    from jupyter_client.provisioning import LocalProvisioner

    class WarmProvisioner(LocalProvisioner):
        """LocalProvisioner that forks eligible kernels from a warmed server (module docstring)."""

        async def launch_kernel(self, cmd: list[str], **kwargs: Any):
            env = dict(kwargs.get("env") or os.environ)
            if not warm_eligible(cmd, env):
                return await super().launch_kernel(cmd, **kwargs)
            cwd = str(kwargs.get("cwd") or os.getcwd())
            self.process = _server_for(env).start("ipykernel_launcher", cmd[3:], env, cwd)
            self.pid = self.pgid = self.process.pid
            self.cwd = cwd
            return self.connection_info

    return WarmProvisioner


def __getattr__(name: str):
    if name == "WarmProvisioner":  # loaded by jupyter_client's provisioner factory
        return _provisioner_class()
    raise AttributeError(name)


def install() -> None:
    """Make `WarmProvisioner` this process's default kernel provisioner (kernel specs that name
    one keep theirs). Child processes are not affected: they see no setting of ours."""
    from importlib.metadata import EntryPoint

    from jupyter_client.provisioning.factory import KernelProvisionerFactory

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
    for server in _SERVERS.values():
        server.process.kill()
        server.process.wait()
    _SERVERS.clear()


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    serve(int(sys.argv[2]))  # each kernel replaces sys.path[0] (this folder) with its own folder
