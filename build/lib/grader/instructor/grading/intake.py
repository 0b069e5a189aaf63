"""Intake: bring submissions in any common layout into nbgrader's `submitted/` folder.

Recognised layouts (checked in this order for every file; `NB` is the name of one of the
assignment's notebooks, e.g. `01_derivatives`):

1. nbgrader:            STUDENT/ASSIGNMENT/NB.ipynb (plus timestamp.txt and any other files)
2. a folder per student: STUDENT/NB.ipynb, also as the names students' tools give it
                         ("Copy of NB.ipynb" from Colab's Save a copy in Drive, "NB (1).ipynb"),
                         or any name when the assignment has one notebook and the folder no
                         better-named one
                         (Moodle: "Full Name_12345_assignsubmission_file_/NB.ipynb" -> full_name)
3. Canvas download:     login[_LATE]_USERID_SUBMISSIONID_NB[-N].ipynb -> login
                        (a resubmission "-N" replaces the earlier file)
4. name + notebook:     STUDENT_NB.ipynb or STUDENT-NB.ipynb
5. one file a student:  STUDENT.ipynb, when the assignment has exactly one notebook

A folder or an LMS zip download of any of these is accepted. `__MACOSX/`, `.ipynb_checkpoints/`
and hidden files are skipped; everything else that matches no pattern, or is not a readable
notebook, is rejected with the reason (the student then has no submission for that notebook,
which nbgrader scores 0, and the summary lists it).
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import nbformat

MAX_FILE = 64 << 20  # largest file taken from a submission
SKIP_PARTS = {"__MACOSX", ".ipynb_checkpoints", "__pycache__"}
_CANVAS = re.compile(r"^(?P<login>[^_]+)(?:_LATE)?_(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)$")
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_[a-z]+_?$")
_RESUBMISSION = re.compile(r"^(?P<stem>.+?)(?:-(?P<n>\d+)| \((?P<m>\d+)\))$")


@dataclass
class Entry:
    path: str  # posix path inside the submissions folder or zip
    read: Callable[[], bytes]
    size: int


@dataclass
class Placed:
    student: str
    assignment: str
    name: str  # file name inside submitted/STUDENT/ASSIGNMENT/
    entry: Entry
    rank: int = 0  # resubmission number: the highest wins


@dataclass
class IntakeResult:
    submissions: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # -> files written
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    skipped: list[str] = field(default_factory=list)
    layout: str = ""

    def students(self, assignment: str) -> list[str]:
        return sorted(s for s, a in self.submissions if a == assignment)


def student_id(text: str) -> str:
    """A safe nbgrader student id (letters, digits, _ . -)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", text.strip()).strip("._-")
    return cleaned or "unknown"


def _entries(source: Path) -> list[Entry]:
    if source.is_file() and zipfile.is_zipfile(source):
        zf = zipfile.ZipFile(source)
        out = []
        for info in zf.infolist():
            if info.is_dir():
                continue
            out.append(Entry(info.filename.replace("\\", "/"), (lambda i=info: zf.read(i)), info.file_size))
        return out
    if source.is_dir():
        return [
            Entry(p.relative_to(source).as_posix(), p.read_bytes, p.stat().st_size)
            for p in sorted(source.rglob("*"))
            if p.is_file() and not p.is_symlink()
        ]
    if source.is_file() and source.suffix == ".ipynb":
        return [Entry(source.name, source.read_bytes, source.stat().st_size)]
    raise FileNotFoundError(f"{source}: not a folder, a .zip or a notebook")


#: The rank of a notebook taken for the assignment's only notebook whatever its name: any file
#: named after the notebook (or a resubmission of it) in the same folder wins over it.
RENAMED = -1
_COPY_OF = re.compile(r"^(?:Copy of )+", re.IGNORECASE)


def tool_name(stem: str) -> str:
    """The name a notebook had before a student's tool renamed it: Colab's *Save a copy in Drive*
    calls it "Copy of NAME" (and "Copy of NAME (1)", whose " (1)" _split_resubmission reads)."""
    return _COPY_OF.sub("", stem).strip()


def _split_resubmission(stem: str) -> tuple[str, int]:
    m = _RESUBMISSION.match(stem)
    if m:
        return m.group("stem"), int(m.group("n") or m.group("m"))
    return stem, 0


def classify(path: str, notebooks: dict[str, str]) -> tuple[str, str, str, int] | str:
    """(student, assignment, file name, rank) for one file, or the reason it is rejected.

    `notebooks` maps notebook name -> assignment for the assignments being graded.
    """
    parts = PurePosixPath(path).parts
    assignments = set(notebooks.values())
    name = parts[-1]
    if len(parts) >= 3 and parts[-2] in assignments:
        # nbgrader: [prefix/]STUDENT/ASSIGNMENT/FILE
        return student_id(parts[-3]), parts[-2], name, 0
    if len(parts) >= 4 and parts[-3] in assignments:  # STUDENT/ASSIGNMENT/sub/FILE
        return student_id(parts[-4]), parts[-3], "/".join(parts[-2:]), 0
    if not name.endswith(".ipynb"):
        return "not a notebook, and not inside a STUDENT/ASSIGNMENT/ folder"
    stem, rank = _split_resubmission(name[: -len(".ipynb")])
    if len(parts) >= 2:
        folder = parts[-2]
        if folder in assignments and stem not in notebooks:  # ASSIGNMENT/STUDENT.ipynb
            own = [nb for nb, a in notebooks.items() if a == folder]
            if len(own) == 1:
                return student_id(stem), folder, f"{own[0]}.ipynb", rank
        m = _MOODLE.match(folder)
        student = student_id(m.group("name").lower().replace(" ", "_") if m else folder)
        for candidate in (stem, name[: -len(".ipynb")], tool_name(stem)):
            if candidate in notebooks:
                return student, notebooks[candidate], f"{candidate}.ipynb", rank
        only = _single_notebook(notebooks)
        if only:  # a renamed download: taken when the folder has no better-named notebook
            return student, notebooks[only], f"{only}.ipynb", rank if m else RENAMED
        return f"the folder {folder}/ holds {name}, which is no notebook of {sorted(assignments)}"
    m = _CANVAS.match(stem)
    if m:
        nb_stem, nb_rank = _split_resubmission(m.group("file"))
        for candidate in (m.group("file"), nb_stem):
            if candidate in notebooks:
                return (
                    student_id(m.group("login")),
                    notebooks[candidate],
                    f"{candidate}.ipynb",
                    max(rank, nb_rank),
                )
    for nb in sorted(notebooks, key=len, reverse=True):
        for sep in ("_", "-", "."):
            if stem.endswith(sep + nb) and len(stem) > len(nb) + 1:
                return student_id(stem[: -len(nb) - 1]), notebooks[nb], f"{nb}.ipynb", rank
    if stem in notebooks:
        return f"{name} names a notebook but no student (use STUDENT/{name} or STUDENT_{name})"
    only = _single_notebook(notebooks)
    if only:
        return student_id(stem), notebooks[only], f"{only}.ipynb", rank
    return (
        f"{name}: cannot tell which notebook this is; name it STUDENT_NOTEBOOK.ipynb "
        f"(notebooks: {sorted(notebooks)})"
    )


def _single_notebook(notebooks: dict[str, str]) -> str | None:
    return next(iter(notebooks)) if len(notebooks) == 1 else None


def intake(source: Path, submitted_dir: Path, notebooks: dict[str, str]) -> IntakeResult:
    """Copy what `source` holds into `submitted_dir/STUDENT/ASSIGNMENT/`.

    Files already there with the same content are left alone (their modification time too), so
    nbgrader's timestamps and our resume hashes stay valid.
    """
    result = IntakeResult()
    same_place = source.resolve() == submitted_dir.resolve() if source.exists() else False
    placed: dict[tuple[str, str, str], Placed] = {}
    for entry in _entries(source):
        parts = PurePosixPath(entry.path).parts
        if any(p == ".." for p in parts) or PurePosixPath(entry.path).is_absolute():
            result.rejected.append((entry.path, "unsafe path"))
            continue
        if any(p in SKIP_PARTS or p.startswith(".") for p in parts):
            result.skipped.append(entry.path)
            continue
        got = classify(entry.path, notebooks)
        if isinstance(got, str):
            result.rejected.append((entry.path, got))
            continue
        student, assignment, name, rank = got
        if entry.size > MAX_FILE:
            result.rejected.append((entry.path, f"larger than {MAX_FILE >> 20} MB"))
            continue
        key = (student, assignment, name)
        if key in placed:
            old = placed[key]
            if rank > old.rank:
                result.skipped.append(f"{old.entry.path} (superseded by {entry.path})")
                placed[key] = Placed(student, assignment, name, entry, rank)
            else:
                result.rejected.append((entry.path, f"a second file for {student}/{name}"))
            continue
        placed[key] = Placed(student, assignment, name, entry, rank)
    for (student, assignment, name), item in sorted(placed.items()):
        data = item.entry.read()
        if name.endswith(".ipynb") and "/" not in name:
            try:
                nbformat.reads(data.decode("utf-8"), as_version=4)
            except Exception as err:
                result.rejected.append((item.entry.path, f"not a readable notebook ({type(err).__name__})"))
                continue
        target = submitted_dir / student / assignment / name
        if not same_place and not (target.is_file() and target.read_bytes() == data):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        result.submissions.setdefault((student, assignment), []).append(name)
    kinds = {"zip" if source.suffix == ".zip" else "folder"}
    result.layout = ", ".join(sorted(kinds))
    return result


def submission_hash(folder: Path) -> str:
    """Hash of everything in submitted/STUDENT/ASSIGNMENT/ (names and contents)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()
