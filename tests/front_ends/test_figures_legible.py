"""Every picture of a solved lesson, both editions, can be read by everyone: no two lines that
differ by colour alone look alike with a common colour-vision deficiency, and every text on it has
a contrast of at least 4.5:1 (grader.figure_colours, run by the kernel as it drew the figure and
kept in the picture's output metadata, `legibility`).
"""

from __future__ import annotations

import json

import pytest

from grader.instructor.build import assignments
from grader.lab import LANGUAGES
from tests.front_ends.accessibility.html_export import solved


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", assignments())
def test_every_picture_is_legible(lang: str, name: str) -> None:
    path = solved(name, lang)
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = {}
    for index, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            if "image/png" not in output.get("data", {}):
                continue
            meta = output.get("metadata", {}).get("image/png", {})
            if meta.get("legibility") != []:
                found[index] = meta.get("legibility", "not checked: no legibility in its metadata")
    lines = "\n".join(f"{cell}: {problems}" for cell, problems in found.items())
    assert not found, f"{path}, cell: problems\n{lines}"
