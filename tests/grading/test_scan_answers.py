"""The static tamper scan flags no honest answer of any lesson.

backprop-grade scans every cell a student wrote (grader/instructor/grading/tamper.py,
`scan_cell`) and zeroes or flags what could tamper with the grading. An honest answer must never
be caught: for every lesson, the instructor's solution cells and every alternative and typical
mistake of tests/cases/ are scanned, with the module aliases of the notebook they would sit in,
and none may give a finding. A new lesson is covered as soon as its folder exists.
"""

from __future__ import annotations

import nbformat
import pytest

from grader.instructor.build import assignments
from grader.instructor.grading import tamper
from tests.nbgrader_harness import REPO, case_sources, solution_sources


@pytest.mark.parametrize("name", assignments())
def test_no_honest_answer_is_flagged(name: str) -> None:
    source_nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    cells = [c.source for c in source_nb.cells if c.cell_type == "code"]
    answers = [(f"the solution of {gid}", src) for gid, src in solution_sources(source_nb).items()]
    answers += [(f"case {i} of {gid}", src) for gid, srcs in case_sources(name).items()
                for i, src in enumerate(srcs)]
    assert len(answers) > len(cells) // 10, f"{name}: almost nothing to scan ({len(answers)} answers)"
    aliases = tamper.module_aliases([*cells, *(src for _, src in answers)])
    flagged = {}
    for label, src in answers:
        found = tamper.scan_cell(src, aliases)
        if found:
            flagged[label] = [f"{f.severity}: {f.message}" for f in found]
    assert not flagged, f"{name}: the tamper scan flags honest answers: {flagged}"


@pytest.mark.parametrize("escape", [
    "with torch._C.DisableTorchFunction():\n    loss.backward()",
    "from torch.overrides import _pop_mode\n_pop_mode()",
    "engine = torch.autograd.Variable._execution_engine",
    "m = torch._C._pop_torch_function_stack()",
])
def test_a_way_around_the_autograd_refusal_is_tampering(escape: str) -> None:
    aliases = tamper.module_aliases(["import torch"])
    found = tamper.scan_cell(escape, aliases)
    assert [f.severity for f in found] == ["tamper"], found
    assert "refusal of autograd" in found[0].message
