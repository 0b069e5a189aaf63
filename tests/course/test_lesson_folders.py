"""Every lesson folder holds its notebook and nothing else.

A notebook opened from GitHub in Colab arrives alone, without the files of its folder: a lesson
that read a file beside it would fail there. Data ships as package data of the toolkit instead
(grader/lessons/data/, read through grader.lessons.datasets), which the bootstrap cell installs.
Checked in course/ (the source) and in exercises/ and solutions/ (generated from it).
"""

from __future__ import annotations

import pytest

from grader.instructor.build import REPO, assignments

#: What Jupyter or Python leave behind locally (never committed, never copied by the build).
IGNORED = {".ipynb_checkpoints", "__pycache__"}


def others(tree: str, lesson: str) -> list[str]:
    """The files under `tree`/`lesson`/ other than the lesson's notebook, relative to the folder."""
    folder = REPO / tree / lesson
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name != f"{lesson}.ipynb" and not IGNORED & set(p.relative_to(folder).parts)
    )


@pytest.mark.parametrize("tree", ["course", "exercises", "solutions"])
@pytest.mark.parametrize("lesson", assignments())
def test_the_lesson_folder_holds_only_its_notebook(tree: str, lesson: str) -> None:
    extra = others(tree, lesson)
    assert not extra, (
        f"{tree}/{lesson}/ holds {extra} beside the notebook. In Colab a lesson opens alone, without "
        "the files of its folder: ship data as package data instead (put it in grader/lessons/data/, "
        "list it in pyproject's [tool.setuptools.package-data] and its README, read it through "
        "grader.lessons.datasets, e.g. load_text) and run `make build`.")


def test_there_are_lessons() -> None:
    assert len(assignments()) >= 12
