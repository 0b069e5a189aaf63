"""The suite's scratch gradebooks commit without waiting for the disk (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path


def test_a_gradebook_opened_in_the_suite_skips_fsync(tmp_path: Path) -> None:
    from nbgrader.api import Gradebook
    from sqlalchemy import text

    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        synchronous = gb.db.execute(text("PRAGMA synchronous")).scalar()
    assert synchronous == 0, f"PRAGMA synchronous is {synchronous}: every commit waits for the disk"
