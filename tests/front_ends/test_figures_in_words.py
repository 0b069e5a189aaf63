"""Every picture in the solved lessons has its text (issue 38): an image output carries alt text
computed from its data (grader/figure_text.py, the lesson widgets), in the edition's language,
and the same words follow it, collapsed, where JupyterLab and Colab show the picture without it."""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from grader.instructor.course_layout import REPO

#: Words of grader.figure_text's English frame, which a Portuguese description never contains.
ENGLISH_FRAME = ("One plot", "Panel ", " points, from ")


def _alt_texts(folder: str, name: str) -> list[tuple[int, str, bool]]:
    """(cell index, alt text or "", whether a collapsed text of the cell's outputs says it) of
    every PNG output of a solved notebook."""
    nb = nbformat.read(REPO / folder / name / f"{name}.ipynb", as_version=4)
    found = []
    for index, cell in enumerate(nb.cells):
        outputs = cell.get("outputs", []) if cell.cell_type == "code" else []
        collapsed = [o["data"]["text/markdown"] for o in outputs
                     if "<details>" in o.get("data", {}).get("text/markdown", "")]
        for output in outputs:
            if "image/png" in output.get("data", {}):
                alt = output.get("metadata", {}).get("image/png", {}).get("alt", "")
                found.append((index, alt, any(alt and alt in text for text in collapsed)))
    return found


@pytest.mark.parametrize("name", assignments())
def test_every_picture_of_a_solved_lesson_has_its_words(name: str) -> None:
    english, portuguese = _alt_texts("solutions", name), _alt_texts("solutions/pt", name)
    assert len(english) == len(portuguese), f"{name}: the editions show different numbers of pictures"
    for folder, found in (("solutions", english), ("solutions/pt", portuguese)):
        missing = [index for index, alt, _ in found if not alt.strip()]
        assert not missing, f"{folder}/{name}: pictures without alt text in cells {missing}"
        # JupyterLab 4 and Colab draw a PNG without its alt text: a collapsed Figure in words
        # follows it in the same cell, also where no kernel runs (a widget's saved picture)
        unsaid = [index for index, _, said in found if not said]
        assert not unsaid, f"{folder}/{name}: pictures without their Figure in words in cells {unsaid}"
    leaked = [(index, alt[:80]) for index, alt, _ in portuguese if any(w in alt for w in ENGLISH_FRAME)]
    assert not leaked, f"solutions/pt/{name}: English descriptions {leaked}"
