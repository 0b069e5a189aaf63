"""Where student code runs: a bubblewrap sandbox around the Jupyter kernel, plus rlimits.

The kernel of every graded notebook is started as

    prlimit --data=MEM --fsize=... --nofile=... --core=0 --
      bwrap --die-with-parent --unshare-{ipc,pid,net,uts,cgroup}
            --ro-bind /usr /usr  (and /etc, the Python install, the venv, the grader package)
            --proc /proc --dev /dev --tmpfs /tmp --bind SCRATCH SCRATCH --chdir SCRATCH/work
            --clearenv --setenv ...
      -- setpriv --reuid=65534 --regid=65534 --clear-groups -- python -m ipykernel_launcher -f ...

so the kernel has no network (own network namespace, loopback only), sees no other process
(own PID namespace; it dies with the grading worker), runs as an unprivileged user, can write
only to its own scratch folder and a small /tmp, and cannot see the course sources, the
gradebook, the hidden tests or other students' files: they are simply not mounted. Its data
segment (heap, anonymous memory) is capped with RLIMIT_DATA, which counts what a program
allocates but not the gigabytes of shared libraries torch maps (RLIMIT_AS would).

The worker talks to the kernel over ZeroMQ `ipc` sockets (Unix sockets) in the scratch folder,
which work across the network namespace. Interrupts are sent as `interrupt_request` messages:
a SIGINT to bubblewrap would kill it (and the kernel) instead of interrupting the cell.

Without bubblewrap (or when asked for `--no-sandbox`), the kernel runs as a plain process with
the same rlimits, and every message says loudly that grading is unsandboxed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from traitlets import default

#: The unprivileged user the kernel runs as when grading as root ("nobody" on Debian).
DEFAULT_UID = 65534
#: Environment variables passed from the worker into the sandbox (everything else is cleared).
PASSED_ENV = (
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
)
GRADER_DIR = Path(__file__).resolve().parents[2]  # the `grader` package


@dataclass
class SandboxSpec:
    """How one kernel is confined. `mode` is "bwrap" or "none" (unsandboxed)."""

    mode: str = "bwrap"
    memory: int = 2 << 30  # bytes of data segment
    uid: int | None = DEFAULT_UID  # None: keep the current user (non-root instructors)
    tmp_size: int = 256 << 20  # bytes of the sandbox's private /tmp
    max_file: int = 256 << 20  # largest file the kernel may write
    max_files_open: int = 1024


def parse_size(text: str | int) -> int:
    """'2G', '512M', '1500000000' -> bytes."""
    if isinstance(text, int):
        return text
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    value = text.strip().upper().removesuffix("B").removesuffix("I")
    if value and value[-1] in units:
        return int(float(value[:-1]) * units[value[-1]])
    return int(value)


@cache
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


@cache
def probe(uid: int | None = DEFAULT_UID) -> str | None:
    """None when a bubblewrap sandbox starts here, else the reason it does not."""
    if bwrap_path() is None:
        return "bubblewrap (`bwrap`) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    if uid is not None and os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "`setpriv` (util-linux) is missing"
    cmd = _bwrap_args(Path("/"), Path("/"), SandboxSpec(uid=uid), probe_only=True) + ["true"]
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bubblewrap does not start: {err}"
    if result.returncode != 0:
        return f"bubblewrap does not start here: {result.stderr.strip()[:300]}"
    return None


def effective_mode(requested: str, uid: int | None = DEFAULT_UID) -> tuple[str, str | None]:
    """('bwrap' | 'none', why the sandbox is off or None)."""
    if requested == "none":
        return "none", "the sandbox was switched off (--no-sandbox)"
    reason = probe(uid if os.geteuid() == 0 else None)
    return ("none", reason) if reason else ("bwrap", None)


def _parents(paths: list[str]) -> list[str]:
    """`--perms 0755 --dir D` for every ancestor of `paths`: bubblewrap would create them 0700,
    and an unprivileged kernel could not walk through (e.g. /root/.pyenv/...)."""
    out: list[str] = []
    seen = {"/", "/usr", "/etc", "/tmp", "/proc", "/dev"}
    for path in paths:
        parts = Path(path).parts[1:]
        for i in range(1, len(parts)):
            d = "/" + "/".join(parts[:i])
            if d not in seen:
                seen.add(d)
                out += ["--perms", "0755", "--dir", d]
    return out


def _python_roots() -> list[str]:
    """Read-only folders a kernel of this interpreter needs: the install, the venv, `grader`."""
    roots = {
        os.path.realpath(sys.base_prefix),
        os.path.realpath(sys.prefix),
        os.path.realpath(os.path.dirname(os.path.realpath(sys.executable))),
        sys.prefix,
        str(GRADER_DIR),
    }
    ordered = sorted(r for r in roots if r and r != "/" and not r.startswith(("/usr/", "/etc/")))
    # keep only the outermost of nested roots
    return [r for r in ordered if not any(r != o and r.startswith(o + "/") for o in ordered)]


def _bwrap_args(scratch: Path, workdir: Path, spec: SandboxSpec, probe_only: bool = False) -> list[str]:
    system = []
    for name in ("bin", "lib", "lib32", "lib64", "sbin"):
        p = Path("/") / name
        if p.is_symlink():
            system += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            system += ["--ro-bind", str(p), str(p)]
    ro = [] if probe_only else _python_roots()
    args = [
        bwrap_path() or "bwrap",
        "--die-with-parent",
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
        "--ro-bind",
        "/usr",
        "/usr",
        *system,
        "--ro-bind",
        "/etc",
        "/etc",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(spec.tmp_size),
        "--tmpfs",
        "/tmp",
    ]
    if os.path.isdir("/sys/devices/system/cpu"):  # numpy/torch read the CPU topology
        args += ["--ro-bind", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
    if not probe_only:
        args += _parents(ro + [str(scratch)])
        for path in ro:
            args += ["--ro-bind", path, path]
        # The kernel imports the toolkit and the lesson helpers, never the instructor's tools
        # (build, grading: they know where the gradebook and the hidden tests are).
        instructor = str(GRADER_DIR / "instructor")
        args += ["--tmpfs", instructor, "--remount-ro", instructor]
        args += ["--bind", str(scratch), str(scratch), "--chdir", str(workdir)]
    if os.geteuid() != 0 or spec.uid is None:
        # Not root: an unprivileged user namespace; the kernel keeps the instructor's uid
        # outside, but sees only what is mounted above.
        args.insert(1, "--unshare-user")
    return args


def rlimit_prefix(spec: SandboxSpec) -> list[str]:
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    return [
        prlimit,
        f"--data={spec.memory}",
        f"--fsize={spec.max_file}",
        f"--nofile={spec.max_files_open}",
        "--core=0",
        "--",
    ]


def kernel_env(scratch: Path, home: Path, threads: int | None) -> dict[str, str]:
    """The whole environment of a sandboxed kernel."""
    bindir = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "MPLCONFIGDIR": str(home / ".matplotlib"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "TMPDIR": "/tmp",
        "NBGRADER_EXECUTION": "autograde",
    }
    for key in PASSED_ENV:
        if key in os.environ:
            env[key] = os.environ[key]
    if threads and "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def sandbox_command(
    kernel_cmd: list[str], scratch: Path, workdir: Path, spec: SandboxSpec, env: dict[str, str]
) -> list[str]:
    """The full command line that starts `kernel_cmd` confined by `spec`."""
    if spec.mode == "none":
        return rlimit_prefix(spec) + kernel_cmd
    args = rlimit_prefix(spec) + _bwrap_args(scratch, workdir, spec) + ["--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    args.append("--")
    if os.geteuid() == 0 and spec.uid is not None:
        args += [
            shutil.which("setpriv") or "setpriv",
            f"--reuid={spec.uid}",
            f"--regid={spec.uid}",
            "--clear-groups",
            "--",
        ]
    return args + kernel_cmd


def prepare_scratch(scratch: Path, spec: SandboxSpec) -> None:
    """Give the scratch folder to the sandbox user (when grading as root)."""
    if spec.mode == "bwrap" and os.geteuid() == 0 and spec.uid is not None:
        for path in [scratch, *scratch.rglob("*")]:
            os.lchown(path, spec.uid, spec.uid)


def copy_matplotlib_cache(home: Path) -> None:
    """Reuse the worker's matplotlib font cache (building it costs seconds per kernel)."""
    try:
        import matplotlib
        from matplotlib import font_manager  # noqa: F401  (builds the cache once per worker)

        cache_dir = Path(matplotlib.get_cachedir())
    except Exception:  # pragma: no cover - matplotlib is a course dependency
        return
    target = home / ".matplotlib"
    target.mkdir(parents=True, exist_ok=True)
    for f in cache_dir.glob("fontlist-*.json"):
        shutil.copy(f, target / f.name)


class _MessageInterrupts(KernelSpecManager):
    """Kernel specs with `interrupt_mode = "message"`: jupyter_client then interrupts the kernel
    with an `interrupt_request`, as a SIGINT would reach bubblewrap (and kill the sandbox)."""

    def get_kernel_spec(self, kernel_name: str):
        spec = super().get_kernel_spec(kernel_name)
        spec.interrupt_mode = "message"
        return spec


class SandboxKernelManager(AsyncKernelManager):
    """A kernel manager that starts its kernel inside the sandbox of one job."""

    @default("kernel_spec_manager")
    def _message_interrupts(self) -> KernelSpecManager:
        return _MessageInterrupts(data_dir=self.data_dir)

    def setup_sandbox(
        self, scratch: Path, workdir: Path, spec: SandboxSpec, env: dict[str, str]
    ) -> None:
        self._bpg = (scratch, workdir, spec, env)
        ipc = scratch / "ipc"
        self.transport = "ipc"
        self.ip = str(ipc / "k")
        self.connection_file = str(ipc / "kernel.json")

    def format_kernel_cmd(self, extra_arguments=None):
        scratch, workdir, spec, env = self._bpg
        cmd = super().format_kernel_cmd(extra_arguments)
        return sandbox_command(cmd, scratch, workdir, spec, env)

    def write_connection_file(self, **kwargs):
        super().write_connection_file(**kwargs)
        spec = self._bpg[2]
        if spec.mode == "bwrap" and os.geteuid() == 0 and spec.uid is not None:
            os.chown(self.connection_file, spec.uid, spec.uid)
