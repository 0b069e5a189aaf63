"""Start JupyterLab on the course, as a student sees it or as an instructor works in it.

    python -m grader.lab                      # student: opens lesson 01 (`make lab`)
    python -m grader.lab --lesson 05          # student: opens 05_softmax
    python -m grader.lab --instructor         # nbgrader's Formgrader too (`make instructor`)

The two roles differ only in the Jupyter configuration directories put in front of
`JUPYTER_CONFIG_PATH` (jupyter/README.md says what each file does):

- `jupyter/common`: no "get notified about Jupyter news?" pop-up, no update check (both roles);
- `jupyter/student`: nbgrader's instructor tools (Formgrader, Create Assignment, the course and
  assignment lists, which need a JupyterHub exchange) are disabled, in the browser and on the
  server. The student's Validate button stays.

Both roles also get `jupyter/data` in front of `JUPYTER_PATH`: its nbconvert template `course`,
which `jupyter/common` makes the HTML export's (File > Save and Export Notebook As > HTML), gives
each figure its description as alt text, the page the notebook's language, and text contrast of
at least 4.5:1.

It lives outside grader/instructor/ because students run it; it is no part of the toolkit either
(a kernel never imports it, and the build does not count it as a lesson input).

Binder starts its own JupyterLab: the repository's `start` script puts the same two folders on
`JUPYTER_CONFIG_PATH` (tests/environment/test_binder.py checks that both say the same).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "jupyter"
DATA = CONFIG / "data"
ROLES = {"student": ("student", "common"), "instructor": ("common",)}


class NoSuchLesson(ValueError):
    """`--lesson` matched no lesson folder, or more than one."""


def release_notebook(lesson: str, language: str = "en") -> str:
    """The release notebook of `lesson` inside the repository: exercises/<lesson>/<lesson>.ipynb,
    or exercises/<language>/<lesson>/<lesson>.ipynb for another edition (exercises/pt/...)."""
    edition = "" if language == "en" else f"{language}/"
    return f"exercises/{edition}{lesson}/{lesson}.ipynb"


def lessons(root: Path = REPO) -> list[str]:
    """The student notebooks' folder names, in course order: ['01_derivatives', ...]."""
    if not (root / "exercises").is_dir():
        raise NoSuchLesson(f"{root} has no exercises/ folder: is this the course repository?")
    return sorted(p.name for p in (root / "exercises").iterdir() if (p / f"{p.name}.ipynb").is_file())


def find_lesson(prefix: str, root: Path = REPO) -> str:
    """The one lesson folder whose name starts with `prefix` ('05', '5', '05_soft', 'softmax')."""
    names = lessons(root)
    wanted = prefix.strip().lower()
    if wanted.isdigit():
        wanted = f"{int(wanted):02d}"
    matches = [n for n in names if n.startswith(wanted) or n.split("_", 1)[1].startswith(wanted)]
    if len(matches) != 1:
        found = "no lesson" if not matches else f"{len(matches)} lessons ({', '.join(matches)})"
        raise NoSuchLesson(
            f"{prefix!r} matches {found}. Name a lesson by its number or the start of its name, "
            f"for example `make lab LESSON=05` or `make lab LESSON=softmax`. "
            f"The lessons are: {', '.join(names)}."
        )
    return matches[0]


def _in_front(variable: str, folders: list[Path], environ: dict[str, str] | None) -> str:
    """The search path `variable` with `folders` first, then whatever was set before."""
    before = (os.environ if environ is None else environ).get(variable, "")
    return os.pathsep.join([str(folder) for folder in folders] + ([before] if before else []))


def config_path(role: str, environ: dict[str, str] | None = None) -> str:
    """JUPYTER_CONFIG_PATH for `role`: the role's folders first, then whatever was set before."""
    return _in_front("JUPYTER_CONFIG_PATH", [CONFIG / name for name in ROLES[role]], environ)


def data_path(environ: dict[str, str] | None = None) -> str:
    """JUPYTER_PATH for both roles: jupyter/data (the course's nbconvert template) first, then
    whatever was set before."""
    return _in_front("JUPYTER_PATH", [DATA], environ)


#: The languages a student can choose (`make lab LANG=pt`): English and the editions in exercises/<language>/.
LANGUAGES = ("en", "pt")


def opening(role: str, lesson: str | None = None, root: Path = REPO, language: str = "en") -> str:
    """What JupyterLab opens first, relative to `root`: the lesson's notebook (in `language`'s
    edition), or `course` for instructors."""
    if role == "instructor":
        return "course"
    if language not in LANGUAGES:
        raise NoSuchLesson(f"{language!r} is not a language of the course: choose one of "
                           f"{', '.join(LANGUAGES)} (for example `make lab LANG=pt`).")
    name = find_lesson(lesson, root) if lesson else lessons(root)[0]
    notebook = release_notebook(name, language)
    if not (root / notebook).is_file():
        raise NoSuchLesson(f"{name} has no edition in {language!r} yet ({notebook} is missing).")
    return notebook


def lab_command(role: str = "student", lesson: str | None = None, root: Path = REPO,
                extra: list[str] | None = None, language: str = "en") -> tuple[list[str], dict[str, str]]:
    """The command line and environment that start JupyterLab for `role`.

    Inputs:
    - role: "student" (opens `exercises/<lesson>/<lesson>.ipynb`) or "instructor" (opens `course/`).
    - lesson: a prefix for `find_lesson`; None means the first lesson.
    - root: the folder JupyterLab serves (the repository; tests pass a scratch copy).
    - extra: more JupyterLab options, appended last.
    - language: "en" or "pt": which edition the student's notebook is opened in.

    Returns: (argv, env), for subprocess or os.execvpe.
    """
    if role not in ROLES:
        raise ValueError(f"role must be one of {sorted(ROLES)}, not {role!r}")
    argv = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root}",
            f"--LabApp.default_url=/lab/tree/{opening(role, lesson, root, language)}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--allow-root")
    env = {**os.environ, "JUPYTER_CONFIG_PATH": config_path(role), "JUPYTER_PATH": data_path()}
    return argv + list(extra or []), env


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and replace this process by JupyterLab (2: no such lesson)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lesson", help="the lesson to open: its number or the start of its name (students)")
    parser.add_argument("--language", default="en", help="the edition to open: en (default) or pt (students)")
    parser.add_argument("--instructor", action="store_true", help="with nbgrader's Formgrader, on course/")
    parser.add_argument("jupyter_args", nargs="*", help="passed on to JupyterLab (after --)")
    args = parser.parse_args(argv)
    role = "instructor" if args.instructor else "student"
    try:
        command, env = lab_command(role, args.lesson, extra=args.jupyter_args, language=args.language)
    except NoSuchLesson as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"JupyterLab for the {role}, opening {opening(role, args.lesson, language=args.language)}: "
          "Ctrl-C stops it.")
    os.execvpe(command[0], command, env)
    return 0  # not reached
