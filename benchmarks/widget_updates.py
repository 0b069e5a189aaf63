"""Benchmark: how long each live figure of the solved lessons takes to redraw, on ONE CPU.

    taskset -c 0 .venv/bin/python benchmarks/widget_updates.py          # every lesson with one
    taskset -c 0 .venv/bin/python benchmarks/widget_updates.py 07       # some lessons

Lesson 07 promises a redraw well under 200 ms. Each notebook of solutions/ is executed by
nbclient with one BLAS/OpenMP thread (as Binder runs it); then, in the same kernel, every
`LiveFigure` it made is redrawn once to warm up, and timed (compute + draw + PNG, the display
untouched) at its default values and at each slider's two ends. Printed: per figure, the median
and the slowest CPU time of a redraw. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy, and inherited by the kernels

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MIME = "application/x-backprop-widget-times+json"

# Run in the lesson's kernel after its last cell: finds the live figures and times them.
TIMING_CELL = f"""
import gc as _gc
from IPython.display import display as _display
from grader.lessons.live_figure import LiveFigure as _LiveFigure

def _settings(view):
    settings = [{{}}]
    for name, control in view.controls.items():
        if hasattr(control, "min") and hasattr(control, "max"):
            settings += [{{name: control.min}}, {{name: control.max}}]
    return settings

_times = {{}}
for _i, _view in enumerate(o for o in _gc.get_objects() if isinstance(o, _LiveFigure)):
    _view.render()  # warm up: fonts, caches
    _times[f"{{type(_view).__name__}} #{{_i + 1}}"] = _view.time_updates(_settings(_view))
_display({{"{MIME}": _times}}, raw=True)
"""


def time_lesson(path: Path) -> dict[str, dict[str, list[float]]]:
    """Execute one solved notebook, then time its live figures: {figure: {"cpu_ms", "wall_ms"}}."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(TIMING_CELL))
    client = NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    for output in nb.cells[-1].outputs:
        if MIME in output.get("data", {}):
            return dict(output["data"][MIME])
    return {}


def main(prefixes: list[str]) -> int:
    base = REPO / "solutions"
    folders = sorted(p for p in base.iterdir() if p.is_dir() and (p / f"{p.name}.ipynb").is_file())
    chosen = [f for f in folders if not prefixes or f.name.startswith(tuple(prefixes))]
    if not chosen:
        print(f"no lesson of solutions/ starts with {' or '.join(prefixes)}", file=sys.stderr)
        return 2
    slowest = (0.0, "")
    for folder in chosen:
        for name, times in time_lesson(folder / f"{folder.name}.ipynb").items():
            cpu = sorted(times["cpu_ms"])
            median = cpu[len(cpu) // 2]
            print(f"{folder.name:22s} {name:28s} {len(cpu):2d} redraws: median {median:5.0f} ms, "
                  f"slowest {cpu[-1]:5.0f} ms CPU", flush=True)
            slowest = max(slowest, (cpu[-1], f"{folder.name} {name}"))
    if slowest[1]:
        print(f"slowest redraw: {slowest[1]} {slowest[0]:.0f} ms CPU (lesson 07 promises well under 200 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
