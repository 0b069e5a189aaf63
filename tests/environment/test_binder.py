"""Binder's image, as far as it can be checked without Docker or the network.

`repo2docker --no-build` reads the repository as mybinder.org would and prints the Dockerfile it
would build (about 0.3 s, nothing downloaded). The start script is run as Binder runs it, before
JupyterLab: it must hand JupyterLab the same student configuration as `make lab`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import lab
from grader.instructor.build import REPO


@pytest.fixture(scope="module")
def repo2docker() -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("repo2docker")
    assert exe.is_file(), "jupyter-repo2docker is missing: `make setup` installs the dev extras"
    return subprocess.run([str(exe), "--no-build", "--debug", "--user-id", "1000", "--user-name",
                           "jovyan", str(REPO)], capture_output=True, text=True, timeout=120)


def test_repo2docker_reads_environment_yml_postbuild_and_start(repo2docker) -> None:
    assert repo2docker.returncode == 0, repo2docker.stderr[-2000:]
    dockerfile = repo2docker.stdout
    assert "Building conda environment for python=3.11" in repo2docker.stderr, repo2docker.stderr
    assert 'env update -p ${NB_PYTHON_PREFIX} --file "environment.yml"' in dockerfile
    assert "RUN ./postBuild" in dockerfile
    assert 'ENV R2D_ENTRYPOINT="${REPO_DIR}/start"' in dockerfile
    assert not (REPO / "binder").exists(), "a binder/ folder would hide environment.yml, postBuild and start"


def test_start_gives_jupyterlab_the_student_configuration(tmp_path) -> None:
    """Binder's JupyterLab gets what `make lab` gives: same folders, same order, one BLAS thread."""
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_CONFIG_PATH", "JUPYTER_PATH")}
    result = subprocess.run(["bash", str(REPO / "start"), sys.executable, "-c",
                             "import os; print(os.environ['JUPYTER_CONFIG_PATH']); "
                             "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS']); "
                             "print(os.environ['JUPYTER_PATH'])"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    config_path, threads, data_path = result.stdout.splitlines()
    assert config_path == lab.config_path("student", environ={})
    assert data_path == lab.data_path(environ={})  # the HTML export's template, as `make lab` finds it
    assert threads == "1 1"
    for folder in config_path.split(os.pathsep):
        assert Path(folder).is_dir(), folder
