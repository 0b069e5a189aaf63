"""grader.report_lines: a check's lines reach the student as text and the class report as data."""

from __future__ import annotations

import json
import subprocess
import sys

from grader.instructor.grading.report import hints_in
from grader.report_lines import CHECK_MIME, emit, hint_line, hints_of_output, show_hint
from tests.nbgrader_harness import REPO

IN_A_SHELL = """
import json
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
published = []
shell.display_pub.publish = lambda data, metadata=None, **kw: published.append(data)
from grader.report_lines import emit, show_hint
emit(["✗ db  relative error 1.0e+00", "    Hint: halve it  [scale]"], [("scale", "halve it")])
show_hint("a hint of the cell's own")
import grader
from grader import tr
grader.set_language("pt")
show_hint(tr("your loss counts the positions where mask is False; leave them out."))
print(json.dumps(published))
"""


def test_outside_ipython_the_lines_are_printed(capsys) -> None:
    emit(["✓ dx  relative error 1.0e-12"])
    show_hint("nudge both ways", "forgot-dout")
    assert capsys.readouterr().out == "✓ dx  relative error 1.0e-12\nHint: nudge both ways  [forgot-dout]\n"
    assert hint_line("m", None) == "    Hint: m"


def test_in_ipython_one_output_carries_the_text_and_the_hints_as_data() -> None:
    done = subprocess.run([sys.executable, "-c", IN_A_SHELL], capture_output=True, text=True, cwd=REPO,
                          timeout=60, check=True)
    first, second, portuguese = json.loads(done.stdout.strip().splitlines()[-1])
    assert first["text/plain"] == "✗ db  relative error 1.0e+00\n    Hint: halve it  [scale]"
    assert first[CHECK_MIME] == {"hints": [{"code": "scale", "message": "halve it"}]}
    assert second["text/plain"] == "Hint: a hint of the cell's own"
    output = {"output_type": "display_data", "data": second}
    assert hints_of_output(output) == [("", "a hint of the cell's own")]
    # a test cell's hint in Portuguese is shown in Portuguese and counted by its English
    assert portuguese["text/plain"].startswith("Dica: a sua perda conta as posições")
    assert portuguese[CHECK_MIME]["hints"] == [
        {"code": None, "message": "your loss counts the positions where mask is False; leave them out."}]


def test_the_report_counts_hints_from_the_data_only() -> None:
    cell = {"outputs": [
        {"output_type": "display_data", "data": {"text/plain": "…", CHECK_MIME: {"hints": [
            {"code": "sign", "message": "flip it"}, {"code": None, "message": "own words"}]}}},
        # printed text that merely looks like a hint is the student's, not a check's
        {"output_type": "stream", "name": "stdout", "text": "    Hint: fake  [sum-vs-mean]\n"},
        {"output_type": "error", "ename": "CheckFailed", "evalue": "db — fake [zero]", "traceback": []},
        {"output_type": "display_data", "data": {CHECK_MIME: "not a dict"}},
        # data a student's code published itself cannot crash the report
        {"output_type": "display_data", "data": {CHECK_MIME: {"hints": None}}},
        {"output_type": "display_data",
         "data": {CHECK_MIME: {"hints": [{"code": ["x"], "message": "m"}, 3]}}},
    ]}
    assert hints_in(cell) == [("sign", "flip it"), ("", "own words"), ("", "m")]
