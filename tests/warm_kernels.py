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

#: What the fork server imports before it forks (the lessons' setup cells import these).
WARM_MODULES = ("numpy", "torch", "matplotlib", "matplotlib.pyplot", "ipykernel.kernelapp")
#: Environment variables read while those modules import: a kernel asked for with other values
#: gets a server of its own (or, for PYTHON*, a cold start).
IMPORT_ENV = ("HOME", "MPLBACKEND", "MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
              "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "KMP_AFFINITY",
              "PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "PYTHONSAFEPATH", "PYTHONNOUSERSITE",
              "PYTHONDONTWRITEBYTECODE", "LD_LIBRARY_PATH", "LD_PRELOAD")
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"  # what ipykernel sets when unset
PROVISIONER_NAME = "backprop-warm"


# ---------------------------------------------------------------- the server (its own process)

def _become_kernel(request: dict[str, Any], ready_fd: int) -> None:
    """In the forked child: turn into `python -m ipykernel_launcher ...` as launched cold."""
    import random
    import runpy

    import numpy as np

    os.setsid()
    os.write(ready_fd, b"1")
    os.close(ready_fd)
    for signum in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_DFL if signum != signal.SIGINT else signal.default_int_handler)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = os.getcwd()  # as `python -m` sets it
    random.seed()
    np.random.seed()
    sys.argv = [request["argv"][0], *request["argv"][3:]]
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
    sys.exit(0)


def serve(channel_fd: int) -> None:
    """Import WARM_MODULES, then fork a kernel for every request read from `channel_fd`."""
    import importlib

    os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
    for name in WARM_MODULES:
        importlib.import_module(name)
    os.environ.pop("MPLBACKEND") if os.environ["MPLBACKEND"] == INLINE_BACKEND else None
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels are reaped by the system, not us
    channel = os.fdopen(channel_fd, "r+b", buffering=0)
    channel.write(b"ready\n")
    for line in channel:
        request = json.loads(line)
        ready_r, ready_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            channel.close()
            os.close(ready_r)
            try:
                _become_kernel(request, ready_w)
            finally:
                os._exit(1)
        os.close(ready_w)
        os.read(ready_r, 1)  # the child leads its own session before anyone signals it
        os.close(ready_r)
        channel.write(json.dumps({"pid": pid}).encode() + b"\n")


# ---------------------------------------------------------------- the test process's side

class _ForkServer:
    """One running server; `fork(argv, env, cwd)` returns the new kernel's pid."""

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

    def fork(self, argv: list[str], env: dict[str, str], cwd: str) -> int:
        with self.lock:
            self.channel.write(json.dumps({"argv": argv, "env": env, "cwd": cwd}).encode() + b"\n")
            return int(json.loads(self.channel.readline())["pid"])


_SERVERS: dict[tuple, _ForkServer] = {}
_SERVERS_LOCK = threading.Lock()


def _server_for(env: dict[str, str]) -> _ForkServer:
    key = tuple(env.get(k) for k in IMPORT_ENV)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None or server.process.poll() is not None:
            server = _SERVERS[key] = _ForkServer(env)
        return server


class ForkedKernel:
    """The Popen-like handle LocalProvisioner keeps: the kernel is the server's child, not ours."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                self.returncode = 0  # the server reaps it; the exit code is not ours to see
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
            self.process = ForkedKernel(_server_for(env).fork(cmd, env, cwd))
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


def shutdown() -> None:
    for server in _SERVERS.values():
        server.process.kill()
        server.process.wait()
    _SERVERS.clear()


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    serve(int(sys.argv[2]))  # each kernel replaces sys.path[0] (this folder) with its own folder
