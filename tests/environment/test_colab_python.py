"""On Colab's Python (3.12, with Colab's numpy 2.0.2 and ipywidgets 7.7.1, no PyTorch: see
tests/environment/colab_like.py), in a real kernel of that Python with the checkout's toolkit on
its path:

- lesson 01's graded cells (its contract cut, tests/graded_cells.py) run with the instructor's
  solution; every graded cell scores but the two that compare with PyTorch, which stop at
  `import torch` (the second at the helper the first defines after it) and nothing else;
- both lesson widgets (`SliderPlot`, `LiveFigure`) display as widgets with a picture of their
  default state, and a moved control draws a new picture.

The lessons themselves (all of them need PyTorch) run on Colab's ipywidgets in
tests/grading/test_solution_and_release.py, on Python 3.11.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from grader.instructor.build import REPO
from tests.environment import colab_like
from tests.graded_cells import contract_cut

pytestmark = pytest.mark.slow

WIDGETS = r"""
import io, json, sys
import ipywidgets, numpy
import matplotlib.pyplot as plt
from IPython.display import display
from grader.lessons.live_figure import LiveFigure
from grader.lessons.live_plot import SliderPlot

def line(a):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, a])
    ax.set_ylim(-3, 3)
    return fig

class Bar(LiveFigure):
    def __init__(self):
        h = ipywidgets.IntSlider(value=1, min=0, max=5)
        super().__init__({"h": h}, css_class="probe", figsize=(3, 2))

    def setup(self, fig):
        self.ax = fig.add_subplot()
        self.ax.set_ylim(0, 5)
        (self.bar,) = self.ax.bar([0], [1])

    def compute(self, h):
        return h

    def draw(self, h):
        self.bar.set_height(h)

    def describe(self, h):
        return f"height {h}"

slider_plot = SliderPlot(line, a=ipywidgets.FloatSlider(value=1.0, min=-2, max=2, step=0.5))
bar = Bar()
display(slider_plot)
display(bar)
"""

DRIVE = r"""
drawn = []
for live, control in ((slider_plot, "a"), (bar, "h")):
    before = live.png()
    live.controls[control].value = live.controls[control].value + live.controls[control].step
    drawn.append({"widget": type(live).__name__, "redraws": live.redraws,
                  "new_picture": live.png() != before})
print(json.dumps({"python": list(sys.version_info[:2]), "numpy": numpy.__version__,
                  "ipywidgets": ipywidgets.__version__, "drawn": drawn}))
"""


def _kernel_spec(root: Path, python: Path) -> str:
    """A kernel spec for the Colab-like Python, with the checkout's toolkit on its path."""
    spec = root / "kernels" / "colab312"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Colab-like Python 3.12", "language": "python",
        "env": {"PYTHONPATH": str(REPO), "MPLBACKEND": "module://matplotlib_inline.backend_inline"},
    }))
    return "colab312"


def test_lesson_01_and_the_widgets_on_colabs_python(tmp_path, monkeypatch) -> None:
    python = colab_like.python312()
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    name = "01_derivatives"
    nb = contract_cut(nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4))
    nb.cells += [nbformat.v4.new_code_cell(WIDGETS), nbformat.v4.new_code_cell(DRIVE)]
    NotebookClient(nb, kernel_name=_kernel_spec(tmp_path, python), timeout=300, allow_errors=True,
                   resources={"metadata": {"path": str(REPO / "course" / name)}}).execute()

    report = json.loads("".join(o.get("text", "") for o in nb.cells[-1].outputs))
    assert (report["python"], report["numpy"], report["ipywidgets"]) == ([3, 12], "2.0.2", "7.7.1"), report
    assert report["drawn"] == [{"widget": "SliderPlot", "redraws": 1, "new_picture": True},
                               {"widget": "Bar", "redraws": 1, "new_picture": True}], report
    shown = [o for o in nb.cells[-2].outputs if o.get("output_type") == "display_data"]
    assert sum(colab_like.WIDGET_VIEW in o["data"] for o in shown) == 2, [list(o["data"]) for o in shown]
    assert sum("image/png" in o["data"] for o in shown) == 2, "each widget's default picture"

    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert graded
    errors = {c.metadata["nbgrader"]["grade_id"]: [f"{o['ename']}: {o['evalue']}" for o in c.outputs
                                                   if o.get("output_type") == "error"] for c in graded}
    needs_torch = {gid for gid, c in zip(errors, graded, strict=True) if "torch" in c.source}
    assert needs_torch == {"test_grad_L_x", "test_grad_L_y"}, needs_torch
    assert {gid: e for gid, e in errors.items() if gid not in needs_torch and e} == {}
    # both ask the lesson's PyTorch reference (grader.lessons.derivatives), which imports torch
    for gid in needs_torch:
        assert errors[gid] == ["ModuleNotFoundError: No module named 'torch'"], errors
