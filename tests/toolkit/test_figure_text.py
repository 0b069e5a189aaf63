"""Figures described in words, from their data (grader/figure_text.py)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from grader.figure_text import describe  # noqa: E402
from grader.i18n import set_language  # noqa: E402


@pytest.fixture(autouse=True)
def _closed():
    yield
    plt.close("all")
    set_language(None)


def test_lines_are_told_by_their_ends_and_extremes():
    fig, ax = plt.subplots()
    layers = np.arange(1, 11)
    ax.semilogy(layers, 3e-7 * 10 ** (0.65 * layers), label="sigmoid")
    ax.plot(layers, np.ones(10), label="ReLU + He")
    ax.plot(layers, np.sin(layers))
    ax.set(xlabel="layer", ylabel="gradient norm", title="norms")
    text = describe(fig)
    assert text.startswith("One plot “norms”: x axis “layer”; y axis “gradient norm”, log scale.")
    assert "Line “sigmoid”: 10 points, from 1.34e-06 at 1 to 0.949 at 10." in text
    assert "Line “ReLU + He”: flat at 1, from 1 to 10." in text
    assert ("Line 3: 10 points, from 0.841 at 1 to -0.544 at 10; lowest -0.959 at 5; "
            "highest 0.989 at 8") in text


def test_reference_lines_are_told_where_they_stand_not_by_the_axes_fractions():
    fig, ax = plt.subplots()
    ax.plot([-8, 8], [0, 1])
    ax.axhline(0, color="grey")
    ax.axvline(709.78, linestyle=":")
    text = describe(fig)
    assert "Line 2: horizontal, at 0." in text and "Line 3: vertical, at 710" in text, text
    assert "from 0 to 1" not in text, text


def test_panels_bars_points_images_and_texts_are_told_and_colour_bars_left_out():
    fig, (left, right) = plt.subplots(1, 2)
    fig.suptitle("Two views")
    left.bar(["relu", "tanh"], [0.5, 0.25])
    left.scatter([0, 1, 2], [5, 6, 4], label="class 0")
    image = right.imshow(np.arange(12.0).reshape(3, 4))
    fig.colorbar(image)
    right.text(0, 0, "dead: 12 %")
    text = describe(fig)
    assert text.startswith("Figure “Two views”. Panel 1: bars: relu 0.5, tanh 0.25.")
    assert "“class 0”: 3 points, x from 0 to 2, y from 4 to 6" in text
    assert "Panel 2: an image of 3 × 4 values from 0 to 11. “dead: 12 %”." in text
    assert "Panel 3" not in text  # the colour bar


def test_arrows_are_told_by_their_name_and_where_they_point():
    fig, ax = plt.subplots()
    ax.text(0, 0, "origin")
    ax.annotate("", xy=(0.9923, 0.124), xytext=(0, 0), arrowprops={"arrowstyle": "->"},
                label="clipped by global norm")
    ax.annotate("", xy=(1, 1), xytext=(0, 0), arrowprops={"arrowstyle": "->"})
    ax.annotate("×40", xy=(3, 4), xytext=(8, 6), textcoords="offset points", arrowprops={"arrowstyle": "->"})
    ax.annotate("no arrow", xy=(3, 4))
    text = describe(fig)
    assert text == ("One plot: “origin”. Arrow “clipped by global norm”: from (0, 0) to (0.992, 0.124). "
                    "Arrow 2: from (0, 0) to (1, 1). Arrow “×40”: pointing at (3, 4). “no arrow”."), text


def test_a_figure_it_cannot_read_is_still_described():
    fig, ax = plt.subplots()
    ax.plot(["a", "b"], ["c", "d"])  # categories: no numbers to tell
    assert describe(fig).startswith("One plot")


def test_the_description_speaks_the_students_language():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4], label="perda")
    set_language("pt")
    text = describe(fig)
    assert "“perda”" in text and "points" not in text and "One plot" not in text


def test_in_a_kernel_a_figure_carries_alt_text_and_a_collapsed_description():
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    sources = ["%matplotlib inline\nimport matplotlib.pyplot as plt\nimport grader",
               "plt.plot([1, 2, 3], [3, 1, 2], label='loss')\nplt.xlabel('step');", "x = 1"]
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    figure, words = nb.cells[1].outputs
    expected = "One plot: x axis “step”. Line “loss”: 3 points, from 3 at 1 to 2 at 3; lowest 1 at 2."
    assert figure.metadata["image/png"]["alt"] == expected
    assert words.data["text/markdown"] == (f"<details><summary>Figure in words</summary>\n\n{expected}\n\n"
                                           "</details>")
    assert not nb.cells[2].outputs  # shown once, below the figure's own cell
