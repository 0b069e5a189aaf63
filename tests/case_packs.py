"""Grading cases packed into as few nbgrader runs as the lesson allows, with the same expectations.

A case (an alternative answer, or a typical mistake of tests/cases/NN_topic.py) replaces some
solution cells and expects every graded cell to score full marks except its `must_fail` ones.
Two cases can share one autograde run when nothing one of them changes can reach a graded cell
that the other one can reach: their replaced cells differ, and the graded cells that depend on
those cells (through the names they use, the solution functions and locked helpers those call,
under the solution's source and every case's source) are disjoint. Then each graded cell of the
packed run has exactly the expectation it has in the case that can reach it, and full marks
elsewhere. A case whose `must_fail` names a cell it cannot reach runs alone (the analysis would
not be sure of it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from tests.nbgrader_harness import nbgrader_meta


@dataclass(frozen=True)
class Case:
    kind: str  # "alternative" or "mistake"
    label: str
    cells: dict[str, str]  # solution grade_id -> source
    must_fail: frozenset[str]


@dataclass
class Pack:
    cases: list[Case] = field(default_factory=list)
    reach: dict[str, str] = field(default_factory=dict)  # graded cell -> label of the case reaching it
    alone: bool = False  # a case the analysis is not sure of: nothing joins it

    @property
    def answers(self) -> dict[str, str]:
        return {gid: src for case in self.cases for gid, src in case.cells.items()}

    @property
    def must_fail(self) -> frozenset[str]:
        return frozenset().union(*(case.must_fail for case in self.cases))

    @property
    def label(self) -> str:
        return " + ".join(case.label for case in self.cases)


def _names_used(source: str) -> set[str]:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def _names_defined(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _definitions(source: str) -> list[tuple[str, set[str]]]:
    """(name, names its own statement uses) for every top-level def, class and assignment."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    found = []
    for node in tree.body:
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for name in _names_defined(ast.unparse(node)):
            found.append((name, used))
    return found


def dependencies(source_nb, cases: list[Case]) -> dict[str, set[str]]:
    """graded grade_id -> the solution cells (grade_ids) it can reach, under any case's source."""
    solution_sources: dict[str, list[str]] = {}
    helpers: dict[str, set[str]] = {}  # name defined by a locked cell -> names its cell uses
    graded: dict[str, set[str]] = {}
    for cell in source_nb.cells:
        meta = nbgrader_meta(cell)
        if cell.cell_type != "code":
            continue
        if meta.get("solution"):
            solution_sources.setdefault(meta["grade_id"], []).append(cell.source)
        elif meta.get("grade"):
            graded[meta["grade_id"]] = _names_used(cell.source)
        elif meta.get("locked"):
            for name, used in _definitions(cell.source):
                helpers.setdefault(name, set()).update(used)
    for case in cases:
        for gid, src in case.cells.items():
            solution_sources.setdefault(gid, []).append(src)
    defined_by = {}  # name -> solution cells defining it
    uses = {}  # solution cell -> names it uses
    for gid, sources in solution_sources.items():
        uses[gid] = set().union(*(_names_used(s) for s in sources))
        for s in sources:
            for name in _names_defined(s):
                defined_by.setdefault(name, set()).add(gid)
    reach = {}
    for test, names in graded.items():
        seen_names, cells, todo = set(), set(), list(names)
        while todo:
            name = todo.pop()
            if name in seen_names:
                continue
            seen_names.add(name)
            todo += helpers.get(name, ())
            for gid in defined_by.get(name, ()):
                if gid not in cells:
                    cells.add(gid)
                    todo += uses[gid]
        reach[test] = cells
    return reach


def pack(source_nb, cases: list[Case]) -> list[Pack]:
    """The cases in packs whose members cannot reach each other's graded cells (greedy, in order)."""
    reach = dependencies(source_nb, cases)
    packs: list[Pack] = []
    for case in cases:
        touched = set(case.cells)
        affected = {test for test, cells in reach.items() if cells & touched}
        if not case.must_fail <= affected:
            packs.append(Pack([case], {t: case.label for t in affected | case.must_fail}, alone=True))
            continue
        free = [p for p in packs if not p.alone and not touched & set(p.answers)]
        home = next((p for p in free if not affected & set(p.reach)), None)
        if home is None:
            home = Pack()
            packs.append(home)
        home.cases.append(case)
        home.reach.update({t: case.label for t in affected})
    return packs
