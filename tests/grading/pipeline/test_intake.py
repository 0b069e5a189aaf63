"""Intake: every documented layout lands in nbgrader's submitted/ folder; the rest is rejected."""

from __future__ import annotations

import zipfile
from pathlib import Path

import nbformat
import pytest

from grader.instructor.grading.intake import classify, intake, submission_hash

NOTEBOOKS = {"part1": "00_synth", "part2": "00_synth", "01_derivatives": "01_derivatives"}
SINGLE = {"01_derivatives": "01_derivatives"}


@pytest.mark.parametrize(
    "path, notebooks, expected",
    [
        ("alice/00_synth/part1.ipynb", NOTEBOOKS, ("alice", "00_synth", "part1.ipynb", 0)),
        ("submitted/alice/00_synth/timestamp.txt", NOTEBOOKS, ("alice", "00_synth", "timestamp.txt", 0)),
        ("alice/00_synth/data/x.csv", NOTEBOOKS, ("alice", "00_synth", "data/x.csv", 0)),
        ("bob/part2.ipynb", NOTEBOOKS, ("bob", "00_synth", "part2.ipynb", 0)),
        (
            "Jane Doe_4242_assignsubmission_file_/part1.ipynb",
            NOTEBOOKS,
            ("jane_doe", "00_synth", "part1.ipynb", 0),
        ),
        (
            "Jane Doe_4242_assignsubmission_file_/my work.ipynb",
            SINGLE,
            ("jane_doe", "01_derivatives", "01_derivatives.ipynb", 0),
        ),
        (
            "smithjohn_12345_678901_01_derivatives.ipynb",
            NOTEBOOKS,
            ("smithjohn", "01_derivatives", "01_derivatives.ipynb", 0),
        ),
        ("smithjohn_LATE_12345_678901_part1-2.ipynb", NOTEBOOKS, ("smithjohn", "00_synth", "part1.ipynb", 2)),
        ("carol_part2.ipynb", NOTEBOOKS, ("carol", "00_synth", "part2.ipynb", 0)),
        ("dave-01_derivatives.ipynb", NOTEBOOKS, ("dave", "01_derivatives", "01_derivatives.ipynb", 0)),
        ("erin.ipynb", SINGLE, ("erin", "01_derivatives", "01_derivatives.ipynb", 0)),
        ("01_derivatives/frank.ipynb", SINGLE, ("frank", "01_derivatives", "01_derivatives.ipynb", 0)),
        ("we!rd name (1).ipynb", SINGLE, ("we_rd_name", "01_derivatives", "01_derivatives.ipynb", 1)),
        # the names students' tools give: Colab's "Save a copy in Drive", a browser's second download
        ("alice/Copy of part1.ipynb", NOTEBOOKS, ("alice", "00_synth", "part1.ipynb", 0)),
        ("alice/Copy of 01_derivatives (1).ipynb", NOTEBOOKS,
         ("alice", "01_derivatives", "01_derivatives.ipynb", 1)),
        ("bob/part2 (2).ipynb", NOTEBOOKS, ("bob", "00_synth", "part2.ipynb", 2)),
        # any name, when the assignment has one notebook: ranked below a better-named file
        ("carol/my lesson one.ipynb", SINGLE, ("carol", "01_derivatives", "01_derivatives.ipynb", -1)),
    ],
)
def test_recognised_layouts(path, notebooks, expected):
    assert classify(path, notebooks) == expected


@pytest.mark.parametrize(
    "path, notebooks, why",
    [
        ("erin.ipynb", NOTEBOOKS, "cannot tell which notebook"),
        ("part1.ipynb", NOTEBOOKS, "no student"),
        ("notes.txt", NOTEBOOKS, "not a notebook"),
        ("alice/essay.ipynb", NOTEBOOKS, "no notebook of"),
    ],
)
def test_unrecognised_files_are_rejected_with_a_reason(path, notebooks, why):
    got = classify(path, notebooks)
    assert isinstance(got, str) and why in got


def _nb(text: str) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(text))
    return nbformat.writes(nb)


def test_a_renamed_download_gives_way_to_the_notebook_named_after_the_assignment(tmp_path: Path):
    inbox = tmp_path / "inbox"
    (inbox / "carol").mkdir(parents=True)
    (inbox / "carol" / "01_derivatives.ipynb").write_text(_nb("the real one"))
    (inbox / "carol" / "a scratch copy.ipynb").write_text(_nb("scratch"))
    (inbox / "dan").mkdir()
    (inbox / "dan" / "Copy of 01_derivatives.ipynb").write_text(_nb("dan's"))
    taken = intake(inbox, tmp_path / "submitted", SINGLE)
    assert sorted(taken.submissions) == [("carol", "01_derivatives"), ("dan", "01_derivatives")]
    kept = nbformat.read(tmp_path / "submitted/carol/01_derivatives/01_derivatives.ipynb", as_version=4)
    assert kept.cells[0].source == "the real one"
    assert [p for p, _ in taken.rejected] == ["carol/a scratch copy.ipynb"]


def test_an_lms_zip(tmp_path: Path):
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("smithjohn_12345_678901_part1.ipynb", _nb("old"))
        zf.writestr("smithjohn_12345_678902_part1-1.ipynb", _nb("new"))  # a resubmission
        zf.writestr("smithjohn_12345_678903_part2.ipynb", _nb("p2"))
        zf.writestr("doejane_777_888_part1.ipynb", "{not json")
        zf.writestr("__MACOSX/._smithjohn_12345_678901_part1.ipynb", b"\0junk")
        zf.writestr("readme.txt", "hello")
        zf.writestr("../evil/part1.ipynb", _nb("evil"))
    submitted = tmp_path / "submitted"
    result = intake(archive, submitted, NOTEBOOKS)
    assert sorted(result.submissions) == [("smithjohn", "00_synth")]
    got = nbformat.read(submitted / "smithjohn" / "00_synth" / "part1.ipynb", as_version=4)
    assert got.cells[0].source == "new"
    rejected = dict(result.rejected)
    assert "not a readable notebook" in rejected["doejane_777_888_part1.ipynb"]
    assert "not a notebook" in rejected["readme.txt"]
    assert rejected["../evil/part1.ipynb"] == "unsafe path"
    assert not (tmp_path / "evil").exists()
    assert any("__MACOSX" in s for s in result.skipped)


def test_a_folder_is_copied_once_and_hashes_follow_the_content(tmp_path: Path):
    inbox = tmp_path / "inbox"
    (inbox / "alice" / "00_synth").mkdir(parents=True)
    (inbox / "alice" / "00_synth" / "part1.ipynb").write_text(_nb("a"))
    (inbox / "alice" / "00_synth" / "timestamp.txt").write_text("2026-01-01 10:00:00")
    (inbox / "bob.ipynb").write_text(_nb("b"))
    submitted = tmp_path / "course" / "submitted"
    first = intake(inbox, submitted, NOTEBOOKS)
    assert ("alice", "00_synth") in first.submissions
    assert dict(first.rejected)["bob.ipynb"].startswith("bob.ipynb: cannot tell")
    folder = submitted / "alice" / "00_synth"
    digest, mtime = submission_hash(folder), (folder / "part1.ipynb").stat().st_mtime_ns
    intake(inbox, submitted, NOTEBOOKS)  # unchanged: nothing rewritten
    assert (folder / "part1.ipynb").stat().st_mtime_ns == mtime
    assert submission_hash(folder) == digest
    (inbox / "alice" / "00_synth" / "part1.ipynb").write_text(_nb("a2"))
    intake(inbox, submitted, NOTEBOOKS)
    assert submission_hash(folder) != digest
    # grading straight from the course's own submitted/ folder copies nothing
    again = intake(submitted, submitted, NOTEBOOKS)
    assert ("alice", "00_synth") in again.submissions
