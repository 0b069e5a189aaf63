"""Align a damaged submission with its release before it is graded: one job, no grading.

Real submissions arrive damaged (nbgrader issues #424, #1083, #1398, #1941): pasted into a fresh
notebook (every cell's nbgrader metadata gone), sent through Colab (metadata of its own, no cell
ids), a test cell duplicated, a locked or test cell deleted. nbgrader then zeroes the notebook or
fails on it ("nbgrader update ."). `align(submitted, release)` matches every cell of the release
that nbgrader grades by (its setup, locked, solution and test cells) with a cell of the
submission:

1. by the nbgrader metadata, where the submission still has it;
2. locked and test cells by their text, which is the release's own;
3. solution cells by the names they define (a function's or class's name from the release's
   stub), code cells only, and one that defines none by its place: the one plain code cell
   between the cells of its two neighbours. A solution cell the student made markdown is graded
   as written (its code does not run; the release's stub goes below it); a locked or test cell
   whose type changed is put back as released.

Then it restores the metadata a matched cell lost, drops duplicated copies of locked or test
cells, and puts back, from the release, locked and test cells that were deleted (and the stub of
a solution cell nowhere to be found). The student's own code is never dropped: a second copy of
a solution cell is kept as a plain cell. Every change is listed (`Alignment.repairs`) for the
instructor; a notebook that has too little of the release to be aligned raises `NotThisNotebook`.

    backprop-repair COURSE_DIR ASSIGNMENT   # repair submitted/ in place, for plain nbgrader
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

import nbformat

#: Below this share of the release's locked and test cells found by metadata or text (and with no
#: solution found by its names), a notebook is not taken for the assignment's.
MIN_ANCHORS = 0.5


class NotThisNotebook(ValueError):
    """The submission cannot be aligned with the release (another notebook, or nearly empty)."""


@dataclass
class Alignment:
    """The aligned notebook and what was done to it (empty: it arrived intact)."""

    notebook: nbformat.NotebookNode
    repairs: list[str] = field(default_factory=list)
    reordered: bool = False  # solution cells in another order than the release's (graded as written)


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _is_anchor(meta: dict) -> bool:
    """A locked or test cell: its text is the release's own."""
    locked_or_test = bool(meta.get("locked") or meta.get("grade"))
    return bool(meta.get("grade_id")) and locked_or_test and not meta.get("solution")


def _text(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def defined_names(source: str) -> frozenset[str]:
    """The top-level functions and classes a cell defines (nothing for code that does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    return frozenset(n.name for n in tree.body if isinstance(n, kinds))


def _match(submitted, release) -> tuple[dict[int, int], dict[int, int]]:
    """(submitted index -> release index of the nbgrader cell it is, and the same for the
    submitted cells that are a second copy of an already matched one)."""
    wanted = {i: _meta(c) for i, c in enumerate(release.cells) if _meta(c).get("grade_id")}
    by_id = {m["grade_id"]: i for i, m in wanted.items()}
    by_text: dict[str, list[int]] = {}
    for i, m in wanted.items():
        if _is_anchor(m):
            by_text.setdefault(_text(release.cells[i].source), []).append(i)
    by_names = {i: defined_names(release.cells[i].source) for i, m in wanted.items() if m.get("solution")}
    matched: dict[int, int] = {}
    taken: set[int] = set()
    duplicates: dict[int, int] = {}
    for s, cell in enumerate(submitted.cells):
        r = by_id.get(_meta(cell).get("grade_id"))
        if r is None and cell.cell_type == "code":
            same = by_text.get(_text(cell.source), [])
            r = next((i for i in same if i not in taken), same[0] if same else None)
        if r is None:
            continue
        if r in taken:
            duplicates[s] = r
        else:
            matched[s], taken = r, taken | {r}
    for s, cell in enumerate(submitted.cells):
        if s in matched or s in duplicates or cell.cell_type != "code" or _meta(cell).get("grade_id"):
            continue
        names = defined_names(cell.source)
        hits = [r for r, want in by_names.items() if r not in taken and want and want <= names]
        if len(hits) == 1:
            matched[s], taken = hits[0], taken | {hits[0]}
    return matched, duplicates


def _match_by_position(submitted, release, solutions: list[int], matched: dict[int, int],
                       duplicates: dict[int, int]) -> None:
    """A solution cell still unmatched (one that defines no function, say) is the one plain code
    cell of the submission between the cells of its two matched neighbours in the release."""
    where = {r: s for s, r in matched.items()}
    for r in solutions:
        if r in where:
            continue
        before = max((where[i] for i in where if i < r), default=-1)
        after = min((where[i] for i in where if i > r), default=len(submitted.cells))
        free = [s for s in range(before + 1, after) if s not in matched and s not in duplicates
                and submitted.cells[s].cell_type == "code" and not _meta(submitted.cells[s]).get("grade_id")]
        if len(free) == 1:
            matched[free[0]] = r
            where[r] = free[0]


def align(submitted: nbformat.NotebookNode, release: nbformat.NotebookNode) -> Alignment:
    """The submission aligned with the release (module docstring); raises NotThisNotebook."""
    nb = copy.deepcopy(submitted)
    matched, duplicates = _match(nb, release)
    anchors = [i for i, c in enumerate(release.cells) if _is_anchor(_meta(c))]
    found = sum(1 for r in matched.values() if r in anchors)
    solutions_found = sum(1 for r in matched.values() if _meta(release.cells[r]).get("solution"))
    if anchors and found < MIN_ANCHORS * len(anchors) and not solutions_found:
        raise NotThisNotebook(
            f"only {found} of the {len(anchors)} locked and test cells of the release are in it, and none "
            "of its exercises: is it this assignment's notebook?")
    solutions = [i for i, c in enumerate(release.cells) if _meta(c).get("solution")]
    _match_by_position(nb, release, solutions, matched, duplicates)
    repairs: list[str] = []
    stubs_after = _retyped(nb, release, matched, repairs)
    _restore(nb, release, matched, repairs)
    dropped = set()
    for s, r in duplicates.items():
        gid = _meta(release.cells[r])["grade_id"]
        if _is_anchor(_meta(release.cells[r])):
            dropped.add(s)
            repairs.append(f"a duplicated copy of {gid} dropped")
        else:  # the student's code: kept, as a plain cell
            nb.cells[s].metadata.pop("nbgrader", None)
            repairs.append(f"a second copy of solution cell {gid} kept as a plain cell")
    solution_order = [matched[s] for s in sorted(matched) if _meta(release.cells[matched[s]]).get("solution")]
    reordered = solution_order != sorted(solution_order)
    if reordered:
        repairs.append("solution cells in another order than the release's (graded as written)")
    nb.cells = _put_back(nb, release, matched, dropped, stubs_after, repairs)
    return Alignment(nb, repairs, reordered)


def _retyped(nb, release, matched: dict[int, int], repairs: list[str]) -> dict[int, int]:
    """Cells whose type the student changed. A locked or test cell is put back as the release has
    it; a solution cell made markdown is graded as written: it becomes a plain markdown cell (its
    code does not run) with the release's stub below it. Returns release index -> the submitted
    cell its stub goes after (those are taken out of `matched`)."""
    stubs_after = {}
    for s, r in sorted(matched.items()):
        if nb.cells[s].cell_type == release.cells[r].cell_type:
            continue
        gid = _meta(release.cells[r])["grade_id"]
        if _is_anchor(_meta(release.cells[r])):
            became = nb.cells[s].cell_type
            nb.cells[s] = copy.deepcopy(release.cells[r])
            repairs.append(f"cell {gid} had become {became}: put back as released")
            continue
        nb.cells[s].metadata.pop("nbgrader", None)
        del matched[s]
        stubs_after[r] = s
        repairs.append(f"solution cell {gid} is markdown: graded as written (its code does not run; "
                       "the release's stub is put back below it)")
    return stubs_after


def _restore(nb, release, matched: dict[int, int], repairs: list[str]) -> None:
    """The release's nbgrader metadata on every matched cell that lost it (or has other)."""
    restored = []
    for s, r in matched.items():
        want, cell = _meta(release.cells[r]), nb.cells[s]
        # the checksum is the source's: another edition's comments give another (nbgrader's
        # OverwriteCells sets it, and the source, back to the release's when it grades)
        if {**_meta(cell), "checksum": None} != {**want, "checksum": None}:
            restored.append(want["grade_id"])
            cell.setdefault("metadata", {})["nbgrader"] = copy.deepcopy(want)
        if _is_anchor(want) and cell.source != release.cells[r].source:
            cell.source = release.cells[r].source  # whitespace only: the text matched
    if restored:
        repairs.append(f"nbgrader metadata restored on {len(restored)} cell(s): {', '.join(restored[:8])}"
                       + (" ..." if len(restored) > 8 else ""))


def _put_back(nb, release, matched: dict[int, int], dropped: set[int], stubs_after: dict[int, int],
              repairs: list[str]) -> list:
    """The submission's cells (minus `dropped`) with every release cell nbgrader needs that is
    missing put back: after the submitted cell `stubs_after` names, else after the cell of the
    nearest earlier release cell that is there."""
    position = {r: s for s, r in matched.items()}
    inserts: dict[int, list] = {}
    last = -1
    for r, cell in enumerate(release.cells):
        meta = _meta(cell)
        if not meta.get("grade_id"):
            continue
        if r in position:
            last = position[r]
            continue
        inserts.setdefault(stubs_after.get(r, last), []).append(copy.deepcopy(cell))
        if r not in stubs_after:
            what = "stub of solution cell" if meta.get("solution") else "cell"
            repairs.append(f"missing {what} {meta['grade_id']} put back from the release")
    out = list(inserts.get(-1, []))
    for s, cell in enumerate(nb.cells):
        if s not in dropped:
            out.append(cell)
        out += inserts.get(s, [])
    return out
