"""Every Mermaid diagram is told in words in the released notebooks (grader/instructor/diagram_text.py)."""

from __future__ import annotations

import re

import nbformat
import pytest

from grader.instructor.build import assignments
from grader.instructor.course_layout import REPO
from grader.instructor.diagram_text import MERMAID, diagram_text, with_diagram_text, without_diagram_text

FLOW = '''flowchart LR
    X["x  (shape S)"] --> F["f"] -->|"out"| B
    P["old = x[i]; x[i] = old + h"] -.->|"put it back"| B(["+"])
    A(("+")) --> B
    subgraph S1["segment 1"]
    direction LR
    L1["layer"] --- L2{"ok?"}
    end
'''


def test_every_arrow_is_told_with_its_labels_in_source_order():
    assert diagram_text(FLOW) == "\n".join([
        "- “x (shape S)” → “f”",
        "- “f” → “+” (B): out",
        "- “old = x[i]; x[i] = old + h” → “+” (B) (dashed): put it back",
        "- “+” (A) → “+” (B)",
        "- group “segment 1”:",
        "- “layer” → “ok?”",
    ])
    assert diagram_text(FLOW, "pt").splitlines()[2].endswith("(tracejada): put it back")


def test_the_words_follow_the_diagram_and_come_off_again():
    cell = f"Look:\n\n```mermaid\n{FLOW}```\n\nThen."
    told = with_diagram_text(cell, "pt")
    assert "<details><summary>O diagrama em palavras</summary>" in told and told.endswith("Then.")
    assert with_diagram_text(told, "pt") == told
    assert without_diagram_text(told) == cell


def _markdown(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


@pytest.mark.parametrize("name", assignments())
def test_every_diagram_of_the_course_is_told_arrow_by_arrow_in_both_editions(name: str):
    course = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    for block in (m.group(1) for text in _markdown(course) for m in MERMAID.finditer(text)):
        arrows = len(re.findall(r"-\.->|-\.-|==>|-->|---", block))
        assert diagram_text(block).count(" → ") == arrows, block
    for folder in ("exercises", "exercises/pt", "solutions", "solutions/pt"):
        nb = nbformat.read(REPO / folder / name / f"{name}.ipynb", as_version=4)
        for text in _markdown(nb):
            told = text.count("<summary>Diagram in words</summary>") + text.count(
                "<summary>O diagrama em palavras</summary>")
            assert len(MERMAID.findall(text)) == told, f"{folder}/{name}"
