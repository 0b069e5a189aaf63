"""Colab's widget library beside the course's packages: ipywidgets 7.7.1 (with the
`ipython_genutils` its Python side needs), installed into a folder of its own that a kernel puts
first on its path with PYTHONPATH.

Colab preinstalls ipywidgets 7.7.1 and its front end renders only ipywidgets 7 (googlecolab/
colabtools #3020, #4525); the lessons' bootstrap cell installs the toolkit alone (`--no-deps`), so
on Colab the lessons meet 7.7.1 where the course pins 8.1.8.

    python -m tests.environment.colab_like    # install it (what `make colab-deps` runs)
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


def kernel_pythonpath() -> str:
    """PYTHONPATH for a kernel that sees ipywidgets 7.7.1 before the course's 8.1.8."""
    return os.pathsep.join(p for p in (str(ipywidgets7()), os.environ.get("PYTHONPATH", "")) if p)


if __name__ == "__main__":
    print(ipywidgets7())
