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
from pathlib import Path

COLAB_IPYWIDGETS = ("ipywidgets==7.7.1", "ipython_genutils==0.2.0")
#: Colab's Python and what the 3.12 environment gets (no torch: see the module docstring).
COLAB_PYTHON = "3.12"
COLAB_PACKAGES = ("numpy==2.0.2", "matplotlib", "ipykernel", *COLAB_IPYWIDGETS)


def ipywidgets7_dir() -> Path:
    """Where the Colab-like ipywidgets live: beside the interpreter's own packages."""
    return Path(sys.prefix) / "colab-like" / "ipywidgets-7.7.1"


def ipywidgets7() -> Path:
    """The folder that holds ipywidgets 7.7.1, installed first if it is not there yet (from
    PyPI, once; two test processes asking at once install it once)."""
    target = ipywidgets7_dir()
    if (target / "ipywidgets" / "__init__.py").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "ipywidgets" / "__init__.py").is_file():
            scratch = Path(tempfile.mkdtemp(dir=target.parent))
            run = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(scratch),
                 *COLAB_IPYWIDGETS], capture_output=True, text=True)
            if run.returncode != 0:
                shutil.rmtree(scratch, ignore_errors=True)
                raise RuntimeError(f"could not install {' '.join(COLAB_IPYWIDGETS)} into {target} "
                                   f"(PyPI must be reachable):\n{run.stdout}{run.stderr}")
            os.replace(scratch, target)
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
    """The python of the Colab-like 3.12 environment, made first if it is not there yet."""
    root = Path(sys.prefix) / "colab-like" / f"python{COLAB_PYTHON}"
    python = root / "bin" / "python"
    done = root / ".installed"
    if done.is_file():
        return python
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(root, ignore_errors=True)
            subprocess.run([_python_3_12(), "-m", "venv", str(root)], check=True)
            run = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *COLAB_PACKAGES],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                raise RuntimeError(f"could not install {' '.join(COLAB_PACKAGES)} for Python {COLAB_PYTHON} "
                                   f"(PyPI must be reachable):\n{run.stdout}{run.stderr}")
            done.touch()
    return python


def kernel_pythonpath() -> str:
    """PYTHONPATH for a kernel that sees ipywidgets 7.7.1 before the course's 8.1.8."""
    return os.pathsep.join(p for p in (str(ipywidgets7()), os.environ.get("PYTHONPATH", "")) if p)


if __name__ == "__main__":
    print(ipywidgets7())
    print(python312())
