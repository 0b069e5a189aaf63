"""backprop-grade's settings: one set of defaults, settable in the course's nbgrader_config.py
like nbgrader's own, and on the command line, which wins.

    # nbgrader_config.py
    c.BackpropGrade.memory = "4G"
    c.BackpropGrade.workers = 8
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from traitlets import Bool, Enum, Float, Int, TraitError, Unicode, validate
from traitlets.config import Configurable

from grader.instructor.grading.sandbox import parse_size
from grader.instructor.nbgrader_env import load_config

__all__ = ["BackpropGrade", "course_settings", "default"]


class BackpropGrade(Configurable):
    """How backprop-grade runs the notebooks of a class."""

    workers = Int(0, help="parallel notebooks (0: one per core)").tag(config=True)
    scheduler = Unicode(None, allow_none=True, help="Dask scheduler, e.g. tcp://host:8786 (None: local "
                        "processes)").tag(config=True)
    memory = Unicode("2G", help="memory cap per notebook, like 2G or 512M").tag(config=True)
    notebook_timeout = Float(1800.0, help="seconds per notebook (0: no limit)").tag(config=True)
    sandbox = Enum(("auto", "require", "none"), default_value="auto",
                   help="auto: bubblewrap if it works, else loudly unsandboxed; require: fail without it; "
                        "none: unsandboxed").tag(config=True)
    feedback = Bool(True, help="write the feedback pages").tag(config=True)

    @validate("memory")
    def _memory_is_a_size(self, proposal: dict) -> str:
        try:
            parse_size(proposal["value"])
        except ValueError:
            message = f"BackpropGrade.memory {proposal['value']!r} is not a size like 2G or 512M"
            raise TraitError(message) from None
        return proposal["value"]


def default(name: str) -> Any:
    """The default of setting `name` (the one place defaults are written)."""
    return BackpropGrade.class_traits()[name].default_value


def course_settings(course_dir: Path) -> BackpropGrade:
    """The settings of the course in `course_dir`: its nbgrader_config.py's c.BackpropGrade, over the
    defaults (a course without that file has the defaults)."""
    config = load_config(Path(course_dir)) if (Path(course_dir) / "nbgrader_config.py").is_file() else None
    return BackpropGrade(config=config) if config is not None else BackpropGrade()
