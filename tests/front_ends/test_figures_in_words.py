"""Every picture in the solved lessons has its text (issue 38): an image output carries alt text
computed from its data (grader/figure_text.py, the lesson widgets), in the edition's language."""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from grader.instructor.course_layout import REPO

#: Words of grader.figure_text's English frame, which a Portuguese description never contains.
ENGLISH_FRAME = ("One plot", "Panel ", " points, from ")


def _alt_texts(folder: str, name: str) -> list[tuple[int, str]]:
    """(cell index, alt text or "") of every PNG output of a solved notebook."""
    nb = nbformat.read(REPO / folder / name / f"{name}.ipynb", as_version=4)
    return [(index, output.get("metadata", {}).get("image/png", {}).get("alt", ""))
            for index, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for output in cell.get("outputs", []) if "image/png" in output.get("data", {})]


@pytest.mark.parametrize("name", assignments())
def test_every_picture_of_a_solved_lesson_has_its_words(name: str) -> None:
    english, portuguese = _alt_texts("solutions", name), _alt_texts("solutions/pt", name)
    assert len(english) == len(portuguese), f"{name}: the editions show different numbers of pictures"
    for folder, found in (("solutions", english), ("solutions/pt", portuguese)):
        missing = [index for index, alt in found if not alt.strip()]
        assert not missing, f"{folder}/{name}: pictures without alt text in cells {missing}"
    leaked = [(index, alt[:80]) for index, alt in portuguese if any(w in alt for w in ENGLISH_FRAME)]
    assert not leaked, f"solutions/pt/{name}: English descriptions {leaked}"
