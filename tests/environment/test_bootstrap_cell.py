"""The bootstrap cell (every lesson's first code cell) does what it says, wherever it runs.

- In the course's own environment it prints that nothing was needed and never calls pip (its
  install source is replaced by a path that does not exist: any pip call would fail).
- In a fresh virtual environment that sees numpy, torch, matplotlib, ipywidgets and pip but not
  the course package (Colab's situation), it installs the package (a wheel built from this
  checkout, offline) and nothing else, and the same process can then import everything the
  lessons' cells import, with the packages Colab lacks (nbgrader, JupyterLab...) blocked, and
  read the data the lessons read (the digits, lesson 10's poem): the wheel carries every file of
  grader/lessons/data/. Run again, it does nothing.
- In a bare Python it installs nothing and names what is missing and what to do.

The fresh environment is cheap: `python -m venv --without-pip` plus a `.pth` file that adds a
view of the course venv's site-packages: a folder of symlinks to all of it but the course's own
distribution (its editable-install finder and its dist-info), so that neither `import grader` nor
pip can see the course package there, and pip never touches the course venv.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest

from grader.instructor import front_ends
from grader.instructor.build import REPO, assignments
from grader.lessons.datasets import DATA_DIR, load_text, text_names

SITE = Path(sysconfig.get_paths()["purelib"])
COURSE_DIST = ("backprop_course", "__editable__.backprop_course", "__editable___backprop_course")
#: What Colab does not have: the student-facing toolkit must not need any of it.
NOT_IN_COLAB = ("nbgrader", "nbclient", "jupyterlab", "notebook", "playwright", "dask")

DRIVER = '''\
import importlib, importlib.abc, json, sys
BLOCKED = set(sys.argv[2].split(","))

class NotInColab(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ImportError(f"{name}: Colab has no such package")

sys.meta_path.insert(0, NotInColab())
cell = open(sys.argv[1], encoding="utf-8").read()
exec(compile(cell, "<bootstrap cell>", "exec"), {"__name__": "__main__"})
if len(sys.argv) > 3:
    imports = json.loads(sys.argv[3])
    for module, names in imports.items():
        mod = importlib.import_module(module)
        missing = [n for n in names if not hasattr(mod, n)]
        assert not missing, f"{module} has no {missing}"
    for blocked in BLOCKED:
        try:
            importlib.import_module(blocked)
        except ImportError:
            continue
        raise AssertionError(f"{blocked} should be blocked")
    from grader.lessons.datasets import digits_split, load_text, text_names
    shapes = [list(a.shape) for a in digits_split()]
    texts = {name: len(load_text(name)) for name in text_names()}
    found = {"grader": sys.modules["grader"].__file__, "shapes": shapes, "texts": texts}
    print("IMPORTS-OK", json.dumps(found))
'''


def cell_installing(source: str) -> str:
    """BOOTSTRAP_CELL with its install source replaced by `source` (it occurs exactly once)."""
    literal = f'"{front_ends.INSTALL_SOURCE}"'
    assert front_ends.BOOTSTRAP_CELL.count(literal) == 1
    assert front_ends.BOOTSTRAP_CELL.count(front_ends.INSTALL_SOURCE) == 1
    return front_ends.BOOTSTRAP_CELL.replace(literal, repr(source))


def lesson_imports() -> dict[str, list[str]]:
    """Every `grader...` module any code cell of the releases imports -> the names taken from it.

    The releases (exercises/) are what Colab opens, so all of their cells count, not only the
    setup cell: lesson 10, for one, imports its poem's loader where it reads the poem."""
    found: dict[str, set[str]] = {}
    for name in assignments():
        nb = nbformat.read(REPO / "exercises" / name / f"{name}.ipynb", as_version=4)
        for cell in (c for c in nb.cells if c.cell_type == "code"):
            lines = cell.source.splitlines()
            source = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("grader"):
                    found.setdefault(node.module, set()).update(a.name for a in node.names)
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.startswith("grader"):
                            found.setdefault(a.name, set())
    return {module: sorted(names) for module, names in found.items()}


def _env() -> dict[str, str]:
    """A clean environment: no PYTHONPATH, no user site, pip offline and quiet about upgrades."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(PYTHONNOUSERSITE="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_CACHE_DIR="1", PIP_NO_INPUT="1")
    return env


def make_venv(root: Path, view: Path | None) -> Path:
    """A venv without pip at `root` (sees `view` through a .pth file when given); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, env=_env())
    python = root / "bin" / "python"
    if view is not None:
        site = Path(subprocess.check_output(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True).strip())
        (site / "course_env.pth").write_text(f"{view}\n", encoding="utf-8")
    return python


def run_cell(python: Path, cell: str, tmp: Path, imports: dict | None = None) -> subprocess.CompletedProcess:
    """Run the bootstrap cell (then, given `imports`, the lessons' imports) in one process."""
    (tmp / "cell.py").write_text(cell, encoding="utf-8")
    (tmp / "driver.py").write_text(DRIVER, encoding="utf-8")
    args = [python, tmp / "driver.py", tmp / "cell.py", ",".join(NOT_IN_COLAB)]
    if imports is not None:
        args.append(json.dumps(imports))
    return subprocess.run(args, cwd=tmp, env=_env(), capture_output=True, text=True, timeout=300)


def pip_list(python: Path, cwd: Path) -> set[str]:
    out = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], cwd=cwd, env=_env(),
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


@pytest.fixture(scope="module")
def site_view(tmp_path_factory) -> Path:
    """The course venv's site-packages without the course's own distribution (symlinks)."""
    view = tmp_path_factory.mktemp("site_view")
    for entry in SITE.iterdir():
        if not entry.name.startswith(COURSE_DIST):
            (view / entry.name).symlink_to(entry)
    return view


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The course package as a wheel, built once, offline, from the files git tracks (what
    GitHub serves Colab: an untracked or ignored data file must not make this test pass)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"  # a copy: building in the checkout would leave build/ there
    tracked = subprocess.run(["git", "ls-files", "-z", "--", "pyproject.toml", "README.md", "grader"],
                             cwd=REPO, capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, tracked):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp / "dist"), str(src)], check=True, env=_env(), capture_output=True)
    (built,) = (tmp / "dist").glob("backprop_course-*.whl")
    return built


def test_course_environment_needs_nothing(tmp_path) -> None:
    """Here the cell prints one line and runs no pip (the install source does not exist)."""
    cell = cell_installing(str(tmp_path / "does-not-exist.whl"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(cell, "<bootstrap cell>", "exec"), {"__name__": "__main__"})
    assert out.getvalue() == front_ends.NOTHING_TO_DO + "\n"


@pytest.mark.slow
def test_fresh_environment_gets_the_toolkit_and_nothing_else(tmp_path, site_view, wheel) -> None:
    """Colab's situation: the cell installs the package alone; the lessons' imports then work."""
    python = make_venv(tmp_path / "venv", site_view)
    probe = subprocess.run([python, "-c", "import numpy, torch, matplotlib, ipywidgets, pip; import grader"],
                           cwd=tmp_path, env=_env(), capture_output=True, text=True)
    assert "No module named 'grader'" in probe.stderr, probe.stderr  # everything else is visible
    before = pip_list(python, tmp_path)
    assert not any(p.startswith("backprop") for p in before), before

    first = run_cell(python, cell_installing(str(wheel)), tmp_path, lesson_imports())
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[:2] == [front_ends.INSTALLING, front_ends.INSTALLED], first.stdout
    assert lines[2].startswith("IMPORTS-OK"), first.stdout
    assert str(tmp_path / "venv") in lines[2], "grader was imported from the fresh venv"
    shipped = json.loads(lines[2].removeprefix("IMPORTS-OK "))
    assert shipped["shapes"] == [[1400, 64], [1400], [397, 64], [397]], "the digits ship"
    assert shipped["texts"] == {name: len(load_text(name)) for name in text_names()}, "the texts ship"
    assert shipped["texts"]["the_long_way_back.txt"] == 2836, "lesson 10's poem ships"
    assert pip_list(python, tmp_path) - before == {f"backprop-course=={front_ends.VERSION}"}
    assert before - pip_list(python, tmp_path) == set()

    second = run_cell(python, cell_installing(str(tmp_path / "does-not-exist.whl")), tmp_path)
    assert (second.returncode, second.stdout) == (0, front_ends.NOTHING_TO_DO + "\n"), second.stderr


@pytest.mark.slow
def test_the_wheel_carries_every_data_file(wheel) -> None:
    """Every file of grader/lessons/data/ is in the wheel (pyproject's package-data), unchanged."""
    import zipfile

    with zipfile.ZipFile(wheel) as whl:
        shipped = {n.removeprefix("grader/lessons/data/"): whl.read(n)
                   for n in whl.namelist() if n.startswith("grader/lessons/data/")}
    here = {p.relative_to(DATA_DIR).as_posix(): p.read_bytes() for p in DATA_DIR.rglob("*") if p.is_file()}
    assert sorted(shipped) == sorted(here), "commit the missing files; match them in package-data"
    assert shipped == here


def test_bare_python_is_told_what_to_do(tmp_path) -> None:
    """No numpy, torch...: the cell installs nothing and names what is missing and what to do."""
    python = make_venv(tmp_path / "venv", None)
    site = sorted(p.name for p in (tmp_path / "venv").rglob("*"))
    result = run_cell(python, cell_installing(str(tmp_path / "does-not-exist.whl")), tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: This Python has no numpy, matplotlib, torch, ipywidgets, "
                           "which the course needs."), result.stderr
    assert "`make lab`" in last and "Colab" in last and "pip install" not in last, last
    assert sorted(p.name for p in (tmp_path / "venv").rglob("*")) == site, "the cell installed something"


@pytest.mark.slow
def test_a_failed_install_says_what_to_do(tmp_path, site_view) -> None:
    """Offline (here: a source that does not exist), pip fails: one clear line, no pip traceback."""
    python = make_venv(tmp_path / "venv", site_view)
    before = pip_list(python, tmp_path)
    result = run_cell(python, cell_installing(str(tmp_path / "does-not-exist.whl")), tmp_path)
    assert result.returncode == 1 and result.stdout == front_ends.INSTALLING + "\n", result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"RuntimeError: {front_ends.INSTALL_FAILED} ("), result.stderr
    assert "does-not-exist" in last and "run this cell again" in last, last  # what pip said
    assert "CalledProcessError" not in result.stderr
    assert pip_list(python, tmp_path) == before


@pytest.mark.slow
def test_colab_python_may_install_the_toolkit(tmp_path, wheel) -> None:
    """pip checks Requires-Python even with --no-deps: the cell's install must accept Python 3.12."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--only-binary=:all:",
         "--python-version", "3.12", "--target", str(tmp_path / "target"), str(wheel)],
        env=_env(), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr.strip().splitlines()[-1:]


@pytest.mark.parametrize("impostor", ["a folder beside the notebook", "a module beside the notebook",
                                      "another installed package"])
def test_another_grader_is_not_taken_for_the_toolkit(tmp_path, site_view, impostor) -> None:
    """Only this course's toolkit counts as installed: something else named `grader` stops the
    cell with a message that names it and says what to do; nothing is installed."""
    python = make_venv(tmp_path / "venv", site_view)
    if impostor == "a folder beside the notebook":
        (tmp_path / "grader").mkdir()
        (tmp_path / "grader" / "__init__.py").write_text("# my own grading scripts\n")
        where = tmp_path / "grader" / "__init__.py"
    elif impostor == "a module beside the notebook":
        where = tmp_path / "grader.py"
        where.write_text("SCORE = 0\n")
    else:
        site = tmp_path / "other-site"
        (site / "grader").mkdir(parents=True)
        (site / "grader" / "__init__.py").write_text('"""Another project\'s grader."""\n')
        where = site / "grader" / "__init__.py"
        (next((tmp_path / "venv").rglob("site-packages")) / "other.pth").write_text(f"{site}\n")
    before = pip_list(python, tmp_path)
    result = run_cell(python, cell_installing(str(tmp_path / "does-not-exist.whl")), tmp_path)
    assert result.returncode == 1 and result.stdout == "", result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: {front_ends.HIDDEN_BY}: {where}."), result.stderr
    assert "restart the kernel, then run this cell again" in last, last
    assert pip_list(python, tmp_path) == before


def test_the_cell_installs_a_commit_of_main_not_a_tag() -> None:
    """Not `@main`: a copy saved in Drive months ago keeps getting the toolkit it was written for.
    Not a tag either: only branch main is published, so a tag never reaches GitHub."""
    assert re.fullmatch(r"[0-9a-f]{40}", front_ends.TOOLKIT_COMMIT), front_ends.TOOLKIT_COMMIT
    assert front_ends.INSTALL_SOURCE == (
        f"backprop-course @ git+https://github.com/{front_ends.REPOSITORY}@{front_ends.TOOLKIT_COMMIT}")
    init = (REPO / "grader" / "__init__.py").read_text().splitlines()
    assert any(line.startswith(front_ends.TOOLKIT_MARK) for line in init)
    for name in assignments():
        for edition in ("", "pt/"):
            nb = nbformat.read(REPO / "exercises" / f"{edition}{name}" / f"{name}.ipynb", as_version=4)
            assert f"@{front_ends.TOOLKIT_COMMIT}" in nb.cells[1].source, (edition, name)


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)


def test_the_toolkit_is_the_one_of_the_commit_the_notebooks_install() -> None:
    """That commit is in main's history (HEAD's), and grader/ (but for the instructor's tools,
    grader/instructor/, which no lesson uses) and pyproject.toml are what it holds: a toolkit change
    without a release would give Colab users an older toolkit than the lessons were built with."""
    commit = front_ends.TOOLKIT_COMMIT
    if _git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        shallow = _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true"
        if shallow:
            pytest.skip(f"a shallow clone does not hold {commit}: this check needs the whole history")
        pytest.fail(f"the bootstrap cells install commit {commit}, which this repository does not have: "
                    "run `python -m grader.instructor.front_ends --release` (docs/authoring.md, Releasing)")
    assert _git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0, (
        f"commit {commit}, which the bootstrap cells install, is not in the history of HEAD (main)")
    changed = _git("diff", "--name-only", commit, "--", *front_ends.SHIPPED).stdout.split()
    changed = [p for p in changed if "__pycache__" not in p]
    assert not changed, (
        f"{len(changed)} toolkit file(s) changed since commit {commit}, which every lesson's bootstrap "
        f"cell installs (e.g. {changed[:3]}): commit them, run `python -m grader.instructor.front_ends "
        "--release` and `make build`, and commit (docs/authoring.md, Releasing)")
