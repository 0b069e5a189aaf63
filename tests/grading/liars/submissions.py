"""Lying submissions for a lesson: the instructor's solution, wrapped by tests/grading/liars/corpus.py.

Each solution cell keeps its source and ends with `liar_seal(globals(), [...])`, which wraps
every function, class and value the cell defined; the first solution cell starts with the
corpus itself. MODES are the liar families; "plain" is the honest twin (the same wrong data
in honest containers): a liar must never score more than its twin on any cell.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat

from tests.graded_cells import write_contract_cut
from tests.nbgrader_harness import fill_release, nbgrader_meta, solution_sources

CORPUS = (Path(__file__).parent / "corpus.py").read_text(encoding="utf-8")
LIARS = ("subclass", "duck")
MODES = (*LIARS, "plain")


def defined_names(source: str) -> list[str]:
    """Top-level functions, classes and assigned names of a cell."""
    names: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        names.append(sub.id)
    return [n for n in dict.fromkeys(names) if not n.startswith("_")]


def lying_answers(source_nb, mode: str) -> dict[str, str]:
    """grade_id -> source of every solution cell, wrapped so that it lies in `mode`."""
    solutions = solution_sources(source_nb)
    order = [nbgrader_meta(c)["grade_id"] for c in source_nb.cells if nbgrader_meta(c).get("solution")]
    answers = {}
    for i, grade_id in enumerate(order):
        source = solutions[grade_id]
        seal = f"\nliar_seal(globals(), {defined_names(source)!r})\n"
        prefix = CORPUS.replace('LIAR_MODE = "subclass"', f"LIAR_MODE = {mode!r}") + "\n" if i == 0 else ""
        answers[grade_id] = prefix + source + seal
    return answers


def lying_notebook(source_nb, release_nb, mode: str):
    return fill_release(release_nb, lying_answers(source_nb, mode))


def hidden_only(nb):
    """A copy of `nb` whose graded cells hold only their hidden tests (with their markers).

    A liar fails a graded cell at its first visible check, so on the real notebook the hidden
    part of the cell never meets it; graded here, the hidden tests meet every liar themselves.
    Graded cells without hidden tests are kept whole.
    """
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if nbgrader_meta(cell).get("grade") and "### BEGIN HIDDEN TESTS" in cell.source:
            start = cell.source.index("### BEGIN HIDDEN TESTS")
            end = cell.source.index("### END HIDDEN TESTS") + len("### END HIDDEN TESTS")
            cell.source = cell.source[start:end]
    return nb


def cut_source(name: str, repo: Path, target: Path, hidden: bool) -> Path:
    """A copy of course/<name> cut to its setup, locked, solution and graded cells (the graded-cell
    contract of tests/graded_cells.py: nothing else reaches a graded cell), with the graded cells
    reduced to their hidden tests first when `hidden`.

    The corpus added to the first solution cell reads none of the notebook's names, and each
    cell's `liar_seal` wraps only what that cell defined, so the cut of the instructor notebook
    is the cut of every lying one.
    """
    return write_contract_cut(repo / "course" / name, name, target, hidden_only if hidden else None)
