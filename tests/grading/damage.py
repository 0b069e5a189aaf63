"""What happens to real submissions on their way back, as functions of a notebook (copies).

Each is one thing students' tools or hands do (nbgrader #424, #1083, #1398, #1941; Colab's
downloads: nbformat 4.0, no cell ids, Colab's own cell metadata).
"""

from __future__ import annotations

import copy

import nbformat


def _graded(nb, kind: str) -> list[int]:
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells]
    if kind == "test":
        return [i for i, m in enumerate(meta) if m.get("grade") and not m.get("solution")]
    return [i for i, m in enumerate(meta) if m.get("solution")]


def colab_download(nb):
    """Downloaded from Colab: nbformat 4.0, no cell ids, Colab's cell and notebook metadata."""
    nb = copy.deepcopy(nb)
    nb.nbformat_minor = 0
    for i, cell in enumerate(nb.cells):
        cell.pop("id", None)
        cell.metadata["id"] = f"colab{i:04d}"
        if cell.cell_type == "code":
            cell.metadata["colab"] = {"base_uri": "https://localhost:8080/"}
            cell.metadata["outputId"] = f"out{i:04d}"
    nb.metadata["colab"] = {"provenance": []}
    return nb


def pasted_into_a_fresh_notebook(nb):
    """Every cell copied into a new notebook: the cells' nbgrader metadata is gone."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    return nb


def duplicated_test_cell(nb):
    """The first test cell copied right below itself (Edit → Duplicate)."""
    nb = copy.deepcopy(nb)
    i = _graded(nb, "test")[0]
    twin = copy.deepcopy(nb.cells[i])
    twin.pop("id", None)
    nb.cells.insert(i + 1, twin)
    return nb


def deleted_test_cell(nb):
    """The first test cell deleted."""
    nb = copy.deepcopy(nb)
    del nb.cells[_graded(nb, "test")[0]]
    return nb


def own_cells_added(nb):
    """The student's own scratch cells, one before every solution cell."""
    nb = copy.deepcopy(nb)
    for i in reversed(_graded(nb, "solution")):
        nb.cells.insert(i, nbformat.v4.new_code_cell("scratch = 1 + 1  # trying things out"))
    return nb


def solutions_swapped(nb):
    """The first two solution cells swapped."""
    nb = copy.deepcopy(nb)
    a, b = _graded(nb, "solution")[:2]
    nb.cells[a], nb.cells[b] = nb.cells[b], nb.cells[a]
    return nb


def solution_made_markdown(nb):
    """The last solution cell turned into a markdown cell (its metadata kept)."""
    nb = copy.deepcopy(nb)
    i = _graded(nb, "solution")[-1]
    cell = nb.cells[i]
    nb.cells[i] = nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata)
    return nb
