"""grader.figure_colours finds lines told apart by colour alone that a colour-blind reader cannot
tell apart, and texts under 4.5:1; grader.figure_style's cycle and live_figure's `readable` pass."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from grader import figure_colours, figure_style
from grader.lessons.live_figure import readable


def _two_lines(**styles) -> Figure:
    fig = Figure()
    ax = fig.add_subplot()
    x = np.linspace(0, 1, 5)
    ax.plot(x, x, label="one", **styles.get("one", {}))
    ax.plot(x, 1 - x, label="two", **styles.get("two", {}))
    return fig


def test_red_and_green_of_the_same_style_look_alike_to_a_deuteranope() -> None:
    found = figure_colours.problems(_two_lines(one={"color": "tab:red"}, two={"color": "tab:green"}))
    assert len(found) == 1 and "deuteranopia" in found[0] and "“one” and “two”" in found[0], found


def test_a_second_line_style_or_a_distant_colour_is_enough() -> None:
    assert figure_colours.problems(_two_lines(one={"color": "tab:red"},
                                              two={"color": "tab:green", "linestyle": "--"})) == []
    assert figure_colours.problems(_two_lines(one={"color": "#0072B2"}, two={"color": "#D55E00"})) == []


def test_the_course_cycle_never_differs_by_colour_alone() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    ax.set_prop_cycle(figure_style.cycle())
    for k in range(len(figure_style.COLOURS)):
        ax.plot([0, 1], [k, k + 1], label=str(k))
    assert figure_colours.problems(fig) == []


def test_light_text_is_found_and_readable_darkens_it() -> None:
    fig = _two_lines()
    ax = fig.axes[0]
    ax.text(0.5, 0.5, "pale", color="#ffbb78")
    ax.text(0.5, 0.4, "fixed", color=readable("#ffbb78"))
    found = figure_colours.problems(fig)
    assert len(found) == 1 and "“pale”" in found[0], found
    assert figure_colours.contrast(readable("#ff7f0e"), "white") >= figure_colours.TEXT_CONTRAST


def test_known_values() -> None:
    assert abs(figure_colours.contrast("#767676", "white") - 4.54) < 0.01  # WCAG's own example
    assert figure_colours.contrast("black", "white") == 21.0
    assert figure_colours.distance("white", "white")[0] == 0.0
