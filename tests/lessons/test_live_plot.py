"""grader.lessons.live_plot: sliders that redraw a plot, with a static picture for kernel-less views."""

import base64
import textwrap

import ipywidgets as widgets
import matplotlib
import nbformat
import pytest
from nbclient import NotebookClient

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from grader.lessons.live_plot import SliderPlot, figure_png  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def line(a=1.0, n=3):
    fig = Figure(figsize=(2, 2))
    fig.add_subplot().plot(range(n), [a * i for i in range(n)])
    return fig


def test_figure_png_closes_pyplot_figures_only():
    fig = plt.figure()
    assert figure_png(fig).startswith(PNG)
    assert fig.number not in plt.get_fignums()
    assert figure_png(line()).startswith(PNG)


def test_controls_update_on_release_and_redraw_into_the_output():
    calls = []

    def draw(a, n):
        calls.append((a, n))
        return line(a, n)

    a = widgets.FloatSlider(value=1.0, min=0, max=2)
    n = widgets.IntSlider(value=3, min=2, max=10)
    p = SliderPlot(draw, a=a, n=n)
    assert a.continuous_update is False and n.continuous_update is False
    assert p.values() == {"a": 1.0, "n": 3}
    assert p.output.outputs == () and calls == []  # nothing is drawn before it is shown

    n.value = 5  # what moving the slider does
    assert calls == [(1.0, 5)] and p.redraws == 1
    (out,) = p.output.outputs
    assert out["output_type"] == "display_data"
    assert base64.b64decode(out["data"]["image/png"]).startswith(PNG)

    a.value = 0.5
    assert calls[-1] == (0.5, 5) and len(p.output.outputs) == 1  # replaced, not appended


def test_every_picture_is_told_in_words_beside_it_and_as_its_alt_text():
    n = widgets.IntSlider(value=3, min=2, max=10)
    p = SliderPlot(line, n=n)
    n.value = 5
    (out,) = p.output.outputs
    words = "One plot: line 1: 5 points, from 0 at 0 to 4 at 4."
    assert out["metadata"] == {"image/png": {"alt": words}}
    assert p.readout.value == words and p.readout in p.box.children


def test_controls_can_be_given_as_a_mapping():
    p = SliderPlot(line, {"a": widgets.FloatSlider(value=2.0)})
    assert p.values() == {"a": 2.0}
    assert p.png().startswith(PNG)


def test_needs_a_control():
    with pytest.raises(ValueError, match="at least one control"):
        SliderPlot(line)


def test_in_a_kernel_the_default_plot_is_a_plain_output_and_sliders_redraw():
    """Run it as a notebook does: the static PNG must be a cell output of its own."""
    setup = textwrap.dedent(
        """
        import ipywidgets as widgets
        from matplotlib.figure import Figure
        from grader.lessons.live_plot import SliderPlot

        def draw(a, n):
            fig = Figure(figsize=(2, 2))
            fig.add_subplot().plot(range(n), [a * i for i in range(n)])
            return fig

        p = SliderPlot(draw, a=widgets.FloatSlider(value=1.0), n=widgets.IntSlider(value=3))
        p
        """
    )
    move = "p.controls['n'].value = 7\nprint(p.redraws, len(p.output.outputs))"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell(move)]
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()

    outputs = nb.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data"] * 3
    assert base64.b64decode(outputs[0].data["image/png"]).startswith(PNG)
    alt = outputs[0].metadata["image/png"]["alt"]
    # JupyterLab and Colab show the PNG without its alt: the words follow it, collapsed
    assert "Figure in words" in outputs[1].data["text/markdown"] and alt in outputs[1].data["text/markdown"]
    assert "application/vnd.jupyter.widget-view+json" in outputs[2].data
    assert nb.cells[1].outputs[0].text == "1 1\n"
