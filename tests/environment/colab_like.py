"""Colab's runtime, as far as this machine can have it.

- Colab's widget library beside the course's packages: ipywidgets 7.7.1 (with the
  `ipython_genutils` its Python side needs), installed into a folder of its own that a kernel
  puts first on its path with PYTHONPATH (`ipywidgets7`).
- Colab's Python, 3.12, in a virtual environment of its own with Colab's numpy (2.0.2) and
  ipywidgets and a kernel, but without PyTorch: its 3.12 CPU wheel cannot be installed on our
  test machines (only the 3.11 one lies here; PyPI's is a multi-GB CUDA build). The toolkit comes
  from the checkout, on PYTHONPATH (`python312`).

Colab preinstalls ipywidgets 7.7.1 and its front end renders only ipywidgets 7 (googlecolab/
colabtools #3020, #4525); the lessons' bootstrap cell installs the toolkit alone (`--no-deps`), so
on Colab the lessons meet 7.7.1 where the course pins 8.1.8.

    python -m tests.environment.colab_like    # install both (what `make colab-deps` runs)
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

COLAB_IPYWIDGETS = ("ipywidgets==7.7.1", "ipython_genutils==0.2.0")
#: Colab's Python and what the 3.12 environment gets (no torch: see the module docstring).
COLAB_PYTHON = "3.12"
COLAB_PACKAGES = ("numpy==2.0.2", "matplotlib", "ipykernel", *COLAB_IPYWIDGETS)


#: Where both live: beside the interpreter's own packages.
ROOT = Path(sys.prefix) / "colab-like"
#: The mimetype of a widget in a notebook's outputs.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _once(done: Path, make: Callable[[], None]) -> None:
    """Run `make` unless `done` exists (two test processes asking at once make it once)."""
    if done.is_file():
        return
    ROOT.mkdir(parents=True, exist_ok=True)
    with open(ROOT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            make()


def _pip_install(python: str, args: list[str], what: str) -> None:
    run = subprocess.run([python, "-m", "pip", "install", "--quiet", *args], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"could not install {what} (PyPI must be reachable):\n{run.stdout}{run.stderr}")


def ipywidgets7() -> Path:
    """The folder that holds ipywidgets 7.7.1, installed first (from PyPI, once) if it is not there."""
    target = ROOT / "ipywidgets-7.7.1"

    def make() -> None:
        scratch = Path(tempfile.mkdtemp(dir=ROOT))
        try:
            _pip_install(sys.executable, ["--no-deps", "--target", str(scratch), *COLAB_IPYWIDGETS],
                         f"{' '.join(COLAB_IPYWIDGETS)} into {target}")
        except RuntimeError:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        os.replace(scratch, target)

    _once(target / "ipywidgets" / "__init__.py", make)
    return target


def _python_3_12() -> str:
    """An interpreter of Colab's Python: pyenv's, or python3.12 on PATH (not a pyenv shim, which
    runs only the version pyenv is set to)."""
    pyenv = sorted(Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"), "versions").glob(
        f"{COLAB_PYTHON}.*/bin/python"))
    if pyenv:
        return str(pyenv[-1])
    found = shutil.which(f"python{COLAB_PYTHON}")
    if found and "/shims/" not in found:
        return found
    raise RuntimeError(f"Python {COLAB_PYTHON} (Colab's) is needed for this test: install it (pyenv "
                       f"install {COLAB_PYTHON}, or your system's python{COLAB_PYTHON} package)")


def python312() -> Path:
    """The python of the Colab-like 3.12 environment, made first (from PyPI, once) if it is not there."""
    root = ROOT / f"python{COLAB_PYTHON}"
    python = root / "bin" / "python"

    def make() -> None:
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run([_python_3_12(), "-m", "venv", str(root)], check=True)
        _pip_install(str(python), list(COLAB_PACKAGES),
                     f"{' '.join(COLAB_PACKAGES)} for Python {COLAB_PYTHON}")
        (root / ".installed").touch()

    _once(root / ".installed", make)
    return python


def kernel_pythonpath() -> str:
    """PYTHONPATH for a kernel that sees ipywidgets 7.7.1 before the course's 8.1.8."""
    return os.pathsep.join(p for p in (str(ipywidgets7()), os.environ.get("PYTHONPATH", "")) if p)


if __name__ == "__main__":
    print(ipywidgets7())
    print(python312())
