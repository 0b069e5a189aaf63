"""The Binder environment and the pip install agree, and the set-up files say what they must."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from grader.instructor.build import REPO

# pip name -> conda-forge name, where they differ
CONDA_NAME = {"torch": "pytorch-cpu", "matplotlib": "matplotlib-base"}
PIP_NAME = {conda: pip for pip, conda in CONDA_NAME.items()}


def _pyproject_pins() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = {}
    for dep in project["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([0-9][^\s;]*)", dep)
        assert match, f"dependency {dep!r} is not pinned with =="
        pins[match.group(1).lower()] = match.group(2)
    return pins


def _environment_pins() -> dict[str, str]:
    pins = {}
    for line in (REPO / "environment.yml").read_text().splitlines():
        match = re.fullmatch(r"\s*-\s*([A-Za-z0-9_.\-]+)=([0-9][^\s#]*)\s*(#.*)?", line)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def test_binder_versions_match_pyproject() -> None:
    env = _environment_pins()
    for name, version in _pyproject_pins().items():
        conda = CONDA_NAME.get(name, name)
        assert env.get(conda) == version, (
            f"environment.yml has {conda}={env.get(conda)}, pyproject.toml has {name}=={version}"
        )
    assert env.get("python") == f"{sys.version_info.major}.{sys.version_info.minor}"


def test_every_binder_pin_is_a_version_the_pip_install_uses() -> None:
    """Each package environment.yml names is pinned, to the version this pip install has."""
    from importlib.metadata import PackageNotFoundError, version

    lines = [ln.strip() for ln in (REPO / "environment.yml").read_text().splitlines()]
    listed = [ln[2:].split("#")[0].strip() for ln in lines if ln.startswith("- ") and ln != "- conda-forge"]
    pins = _environment_pins()
    unpinned = [entry for entry in listed if entry != "pip" and entry.split("=")[0].lower() not in pins]
    assert not unpinned, f"environment.yml entries without an exact version: {unpinned}"
    for conda, pinned in pins.items():
        if conda == "python":
            continue
        name = PIP_NAME.get(conda, conda)
        try:
            installed = version(name).split("+")[0]
        except PackageNotFoundError:
            message = f"environment.yml pins {conda}={pinned}, which the pip install does not have"
            raise AssertionError(message) from None
        assert installed == pinned, f"environment.yml pins {conda}={pinned}, pip installed {name} {installed}"


def test_binder_environment_is_conda_forge_cpu_only() -> None:
    text = (REPO / "environment.yml").read_text()
    assert re.search(r"channels:\s*\n\s*-\s*conda-forge\s*\n(?!\s*-)", text), "conda-forge only"
    assert "pytorch-cpu" in text and "cuda" not in text.lower()
    assert "matplotlib-base" in text
    assert "pip install --no-deps -e ." in (REPO / "postBuild").read_text()


def test_installed_versions_are_the_pinned_ones() -> None:
    from importlib.metadata import version

    for name, pinned in _pyproject_pins().items():
        assert version(name).split("+")[0] == pinned, f"{name} {version(name)} != {pinned}"


def test_readme_starts_with_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text()
    first_block = re.search(r"```(?:bash|sh)?\n(.*?)```", readme, re.S)
    assert first_block, "README has no command block"
    commands = [line for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["make lab", "make test"], commands
    assert "mybinder.org" in readme and "urlpath=lab" in readme


def test_ci_runs_the_readme_test_command() -> None:
    script = (REPO / ".ci" / "run").read_text()
    assert [ln for ln in script.splitlines() if ln and not ln.startswith(("#", "set ", "cd "))] == [
        "make test"
    ]


def test_ruff_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "grader", "tests", "benchmarks", "course"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
