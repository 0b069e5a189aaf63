"""A warm kernel (tests/warm_kernels.py) is, for a notebook, the kernel a cold start gives.

The same probe cell runs in a kernel started by jupyter_client's own LocalProvisioner and in one
forked by the warm server; what a notebook can observe must agree: argv, sys.path, working folder,
environment, matplotlib's inline figures, signal handling, its own session, a subprocess's exit
code. Interrupts, shutdown and the commands that must stay cold are checked too.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager
from jupyter_client.provisioning.factory import KernelProvisionerFactory

from tests import warm_kernels

pytestmark = pytest.mark.slow

PROBE = r"""
import json, os, signal, subprocess, sys
import matplotlib.pyplot as plt
import numpy as np
plt.plot([0, 1]); plt.show()
print(json.dumps({
    "argv": sys.argv[1:2] + sys.argv[3:], "path": sys.path, "cwd": os.getcwd(),
    "env": {k: v for k, v in os.environ.items() if k not in ("JPY_PARENT_PID",)},
    "backend": plt.get_backend(), "own_session": os.getsid(0) == os.getpid(),
    "sigint": str(signal.getsignal(signal.SIGINT)), "sigchld": str(signal.getsignal(signal.SIGCHLD)),
    "subprocess_code": subprocess.run([sys.executable, "-c", "raise SystemExit(3)"]).returncode,
    "stdin_is_tty": os.isatty(0), "main": sys.modules["__main__"].__name__,
    "random": np.random.rand(),
}))
"""


def _start(provisioner: str, cwd: Path) -> KernelManager:
    factory = KernelProvisionerFactory.instance()
    before = factory.default_provisioner_name
    factory.default_provisioner_name = provisioner
    try:
        km = KernelManager(kernel_name="python3")
        # A PYTHONPATH of its own: the warm kernel comes from a server started with it.
        on_path = os.pathsep.join([str(cwd / "on_path"), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        km.start_kernel(cwd=str(cwd), env={**os.environ, "PROBE_VAR": "seen", "PYTHONPATH": on_path})
    finally:
        factory.default_provisioner_name = before
    return km


def _probe(km: KernelManager) -> tuple[dict, list[str]]:
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        texts, kinds = [], []

        def hook(msg):
            if msg["msg_type"] == "stream":
                texts.append(msg["content"]["text"])
            elif msg["msg_type"] == "display_data":
                kinds.extend(msg["content"]["data"])

        reply = kc.execute_interactive(PROBE, output_hook=hook, timeout=60)
        assert reply["content"]["status"] == "ok", reply["content"]
        return json.loads("".join(texts)), kinds
    finally:
        kc.stop_channels()


@pytest.fixture(scope="module", autouse=True)
def _installed():
    """Warm kernels on for these tests, whatever BACKPROP_COLD_KERNELS says, and as they were after."""
    was = warm_kernels.installed()
    warm_kernels.install()
    yield
    if not was:
        warm_kernels.uninstall()


def test_a_warm_kernel_sees_what_a_cold_one_sees(tmp_path: Path) -> None:
    seen = {}
    for name in ("local-provisioner", warm_kernels.PROVISIONER_NAME, warm_kernels.PROVISIONER_NAME):
        km = _start(name, tmp_path)
        try:
            assert type(km.provisioner).__name__ == ("LocalProvisioner" if name.startswith("local")
                                                      else "WarmProvisioner")
            if name != "local-provisioner":
                assert isinstance(km.provisioner.process, warm_kernels.ForkedProcess), "not forked"
            seen.setdefault(name, []).append(_probe(km))
        finally:
            process = km.provisioner.process
            km.shutdown_kernel(now=True)
        assert not km.is_alive()
        if isinstance(process, warm_kernels.ForkedProcess):
            assert process.returncode == -9, "the server reports the killed kernel's exit code"
    (cold, cold_kinds), = seen["local-provisioner"]
    (warm, warm_kinds), (warm2, _) = seen[warm_kernels.PROVISIONER_NAME]
    assert "image/png" in cold_kinds and warm_kinds == cold_kinds, "figures are not shown inline alike"
    for key in cold:
        if key != "random":
            assert warm[key] == cold[key], f"{key}: warm {warm[key]!r}, cold {cold[key]!r}"
    assert cold["env"]["PROBE_VAR"] == "seen" and cold["cwd"] == str(tmp_path)
    assert str(tmp_path / "on_path") in cold["path"]
    assert warm["random"] != warm2["random"], "two warm kernels share numpy's global random state"


def test_an_interrupt_stops_a_cell_and_the_kernel_goes_on(tmp_path: Path) -> None:
    km = _start(warm_kernels.PROVISIONER_NAME, tmp_path)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        # stop_on_error=False: else ipykernel aborts a request that arrives while it is still
        # handling the interrupted one's error, and the next execute can come back "aborted".
        msg_id = kc.execute("import time; time.sleep(60)", stop_on_error=False)
        import time

        time.sleep(1.0)
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=20)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert kc.execute_interactive("x = 1", timeout=20)["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_only_this_interpreters_plain_kernel_command_is_forked() -> None:
    exe = sys.executable
    env = dict(os.environ)
    kernel = [exe, "-m", "ipykernel_launcher", "-f", "k.json"]
    assert warm_kernels.warm_eligible(kernel, env)
    assert warm_kernels.warm_eligible([*kernel, "--HistoryManager.hist_file=:memory:"], env)
    limits = ["prlimit", "--data=100", "--fsize=7", "--nofile=64", "--core=0", "--"]
    assert warm_kernels.warm_eligible([*limits, *kernel], env)  # the pipeline's unsandboxed mode
    assert warm_kernels.split_prlimit([*limits, *kernel]) == (
        {"RLIMIT_DATA": 100, "RLIMIT_FSIZE": 7, "RLIMIT_NOFILE": 64, "RLIMIT_CORE": 0}, kernel)
    assert not warm_kernels.warm_eligible(["prlimit", "--nproc=5", "--", *kernel], env)
    assert not warm_kernels.warm_eligible(["prlimit", "--data=1", *kernel], env)
    assert not warm_kernels.warm_eligible(["prlimit", "--data=1", "--", "bwrap", "--", *kernel], env)
    assert not warm_kernels.warm_eligible(["/usr/bin/python3.12", "-m", "ipykernel_launcher", "-f", "k"], env)
    assert not warm_kernels.warm_eligible(kernel, {**env, "PYTHONHOME": "/somewhere/else"})


LIMITS_PROBE = (
    "import json, os, resource, sys\n"
    "print(json.dumps({'limits': [resource.getrlimit(getattr(resource, n)) for n in "
    "('RLIMIT_DATA', 'RLIMIT_FSIZE', 'RLIMIT_NOFILE', 'RLIMIT_CORE')], 'home': os.environ['HOME'], "
    "'bytecode': sys.dont_write_bytecode}))"
)


def _limits_seen(scratch: Path) -> dict:
    """What a kernel started as the grading pipeline starts one unsandboxed (its `prlimit` prefix,
    its scratch HOME and environment) reports, from a process forked from the test process, as
    the pipeline's worker pool is."""
    from grader.instructor.grading import sandbox

    (scratch / "ipc").mkdir()
    (scratch / "work").mkdir()
    spec = sandbox.SandboxSpec(mode="none", memory=3 << 30, max_file=5 << 20, max_files_open=200)
    env = sandbox.kernel_env(scratch, scratch / "home", threads=None)
    km = sandbox.SandboxKernelManager(kernel_name="python3")
    km.setup_sandbox(scratch, scratch / "work", spec, env)

    async def probe() -> dict:
        await km.start_kernel(cwd=str(scratch / "work"), env={**os.environ, **env})
        try:
            assert isinstance(km.provisioner.process, warm_kernels.ForkedProcess), "not forked"
            kc = km.client()
            kc.start_channels()
            await kc.wait_for_ready(timeout=60)
            texts = []
            await kc.execute_interactive(LIMITS_PROBE, timeout=60, output_hook=lambda m: texts.append(
                m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
            kc.stop_channels()
            return json.loads("".join(texts))
        finally:
            await km.shutdown_kernel(now=True)

    return asyncio.run(probe())


def test_a_pool_worker_forks_a_kernel_with_the_prlimit_limits_and_its_own_home(tmp_path: Path) -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        seen = pool.submit(_limits_seen, tmp_path).result(timeout=120)
    assert seen["limits"] == [[3 << 30] * 2, [5 << 20] * 2, [200, 200], [0, 0]]
    assert seen["home"] == str(tmp_path / "home") and seen["bytecode"] is True


def test_a_module_runs_warm_with_its_exit_code_and_output(tmp_path: Path) -> None:
    (tmp_path / "probe_module.py").write_text(
        "import os, sys\nprint('in', os.getcwd(), sys.argv[1:], os.environ['PROBE_VAR'])\n"
        "raise SystemExit(7)\n")
    log = tmp_path / "log.txt"
    code = warm_kernels.run_module("probe_module", ["a", "b"], env={**os.environ, "PROBE_VAR": "seen"},
                                   cwd=str(tmp_path), log=str(log), timeout=60)
    assert code == 7
    assert log.read_text() == f"in {tmp_path} ['a', 'b'] seen\n"


@pytest.mark.parametrize(("ending", "status", "shown"), [
    ("pass", 0, ""),
    ("raise ValueError('wrong')", 1, "ValueError: wrong"),
    ("sys.exit('a message')", 1, "a message"),
    ("sys.exit(None)", 0, ""),
])
def test_a_warm_child_ends_as_python_would(tmp_path: Path, ending: str, status: int, shown: str) -> None:
    """The child skips only the interpreter's teardown: its exit status, its atexit handlers and
    what it printed without a newline are those of a cold Python."""
    (tmp_path / "ending_module.py").write_text(
        "import atexit, sys\natexit.register(lambda: print('atexit ran'))\n"
        f"print('unflushed', end='')\n{ending}\n")
    log = tmp_path / "log.txt"
    code = warm_kernels.run_module("ending_module", [], env=dict(os.environ), cwd=str(tmp_path),
                                   log=str(log), timeout=60)
    cold = subprocess.run([sys.executable, "-m", "ending_module"], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert (code, cold.returncode) == (status, status)
    assert log.read_text().startswith("unflushed") and "atexit ran" in log.read_text()
    assert shown in log.read_text() and shown in cold.stdout + cold.stderr


def test_xdist_workers_share_the_first_test_process_servers() -> None:
    """One server per import environment for the whole session: xdist's workers use the
    controller's (each worker starting its own cost ~4 s of imports per environment)."""
    import os

    directory, _, owner = os.environ[warm_kernels.SHARED_SERVERS].rpartition(":")
    assert warm_kernels._STATE["dir"] == directory
    if os.environ.get("PYTEST_XDIST_WORKER"):
        assert int(owner) == warm_kernels._STATE["owner"] == os.getppid()
    else:
        assert int(owner) == warm_kernels._STATE["owner"] == os.getpid()
