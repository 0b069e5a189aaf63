"""Run nbgrader in-process for a course folder, with this project's settings."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader


def ensure_venv_on_path() -> None:
    """nbgrader's gradebook shells out to `alembic`: put this interpreter's bin/ on PATH."""
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def load_config(root: Path, db_url: str | None = None) -> Config:
    """The course's `nbgrader_config.py`, rooted at `root`."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    config.CourseDirectory.root = str(root)
    if db_url:
        config.CourseDirectory.db_url = db_url
    return config


def nbgrader_api(root: Path, db_url: str | None = None, quiet: bool = True):
    """An `NbGraderAPI` for the course folder `root` (returns nbgrader.apps.NbGraderAPI)."""
    ensure_venv_on_path()
    from nbgrader.apps import NbGraderAPI

    if quiet:
        logging.getLogger("traitlets").setLevel(logging.ERROR)
    api = NbGraderAPI(config=load_config(Path(root), db_url))
    if quiet:
        api.log.setLevel(logging.ERROR)
    return api
