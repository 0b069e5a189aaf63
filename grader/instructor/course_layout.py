"""Where the course is: the repository, and the lessons in course/ (read by the build, the front
ends, the translations and the tests, so that none of them imports another for it)."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["ASSIGNMENT_NAME", "REPO", "BuildError", "assignments"]

REPO = Path(__file__).resolve().parents[2]
ASSIGNMENT_NAME = re.compile(r"^\d\d_[a-z0-9_]+$")


class BuildError(RuntimeError):
    """A notebook could not be built; the message names the notebook and the cell."""


def assignments(root: Path = REPO) -> list[str]:
    """Names of the assignments in `root/course`: folders `NN_topic` holding `NN_topic.ipynb`."""
    course = root / "course"
    names = []
    for folder in sorted(course.iterdir()) if course.is_dir() else []:
        if folder.is_dir() and ASSIGNMENT_NAME.match(folder.name):
            if not (folder / f"{folder.name}.ipynb").is_file():
                raise BuildError(f"{folder} has no notebook named {folder.name}.ipynb")
            names.append(folder.name)
    return names
