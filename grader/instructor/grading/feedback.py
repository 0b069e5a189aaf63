"""Feedback without the hidden tests.

nbgrader's `generate_feedback` renders the autograded notebook, hidden tests included
(nbgrader #917); its `ClearHiddenTests` removes them from the cell sources, but tracebacks and
printed output can still quote them. The feedback preprocessors here are nbgrader's, plus:

- `ScrubHiddenTests` (runs before ClearHiddenTests, while the hidden lines are still known):
  in every instructor cell (graded or locked), an error's traceback is replaced by its type and
  message (`AssertionError: slope of cos(x) at x = -0.7: expected ...`: the hidden assert
  messages say what was checked); in every cell, any output line that quotes a line of a hidden
  test is replaced by "[hidden test line removed]" (a student could print `In[...]`).
- `ClearHiddenTests`, with `enforce_metadata` off so it works on any cell.

So students see which check failed, the check's own message and the hint lines the checks
print (`Hint: ... [sum-vs-mean]`), never the test code.
"""

from __future__ import annotations

import html
import re

from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from nbgrader.utils import is_locked

from grader.report_lines import CHECK_MIME

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
REMOVED = "[hidden test line removed]"


def _delimiters(config) -> tuple[str, str]:
    pp = ClearHiddenTests(config=config)
    return pp.begin_test_delimeter, pp.end_test_delimeter


def hidden_lines(nb, begin: str = "BEGIN HIDDEN TESTS", end: str = "END HIDDEN TESTS") -> set[str]:
    """The distinctive lines of every hidden test region of a notebook (stripped)."""
    hidden: set[str] = set()
    visible: set[str] = set()
    for cell in nb.cells:
        inside = False
        for line in cell.source.splitlines():
            if begin in line:
                inside = True
                continue
            if end in line:
                inside = False
                continue
            (hidden if inside else visible).add(line.strip())
    # A hidden line that is part of a visible one (the tail of a wrapped call) gives nothing away.
    shown = "\n".join(visible)
    return {line for line in hidden - visible if distinctive(line) and line not in shown}


def distinctive(line: str) -> bool:
    """Long enough to identify a test line (not `)`, `else:`, `pass`...)."""
    return len(line) >= 12 and sum(ch.isalnum() for ch in line) >= 6


def _scrub_text(text: str, hidden: set[str]) -> str:
    if not hidden:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        plain = _ANSI.sub("", line).strip()
        if plain and any(h in plain for h in hidden):
            out.append(REMOVED + ("\n" if line.endswith("\n") else ""))
        else:
            out.append(line)
    return "".join(out)


def scrub_notebook(nb, hidden: set[str]) -> None:
    """Short tracebacks in instructor cells; hidden lines removed from every output."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        instructor = is_locked(cell)     # nbgrader's: graded or locked, and no solution cell
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                if instructor:
                    evalue = _scrub_text(str(out.get("evalue", "")), hidden)
                    out["evalue"] = evalue
                    out["traceback"] = [f"{out.get('ename', 'Error')}: {evalue}"]
                else:
                    out["traceback"] = [_scrub_text(t, hidden) for t in out.get("traceback", [])]
                    out["evalue"] = _scrub_text(str(out.get("evalue", "")), hidden)
            elif out.get("output_type") == "stream":
                out["text"] = _scrub_text(out.get("text", ""), hidden)
            elif "data" in out:
                out["data"].pop(CHECK_MIME, None)  # the hints as data are the class report's
                for mime, value in list(out["data"].items()):
                    if mime.startswith("text/") and isinstance(value, str):
                        out["data"][mime] = _scrub_text(value, hidden)


class ScrubHiddenTests(NbGraderPreprocessor):
    """Remove every trace of the hidden tests from a notebook's outputs (before ClearHiddenTests)."""

    def preprocess(self, nb, resources):
        begin, end = _delimiters(self.config)
        scrub_notebook(nb, hidden_lines(nb, begin, end))
        return nb, resources


class ClearAllHiddenTests(ClearHiddenTests):
    """nbgrader's ClearHiddenTests on every cell (not only cells with grade metadata)."""

    def preprocess(self, nb, resources):
        self.enforce_metadata = False
        return super().preprocess(nb, resources)


#: For nbgrader_config.py, so that plain `nbgrader generate_feedback` hides the tests too.
FEEDBACK_PREPROCESSORS = [
    "nbgrader.preprocessors.GetGrades",
    "grader.instructor.grading.feedback.ScrubHiddenTests",
    "grader.instructor.grading.feedback.ClearAllHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]


def feedback_preprocessors(configured: list) -> list:
    """nbgrader's feedback preprocessors with ours placed before the HTML styling."""
    scrub, clear = ScrubHiddenTests, ClearAllHiddenTests
    kept = [p for p in configured if not (isinstance(p, type) and issubclass(p, ClearHiddenTests))]
    insert_at = next(
        (i for i, p in enumerate(kept) if getattr(p, "__name__", "") == "CSSHTMLHeaderPreprocessor"),
        len(kept),
    )
    return kept[:insert_at] + [scrub, clear] + kept[insert_at:]


def leaks(html_text: str, hidden: set[str]) -> list[str]:
    """Hidden test lines that appear in a feedback page (empty when it is clean)."""
    text = html.unescape(re.sub(r"<[^>]+>", "", html_text))
    return sorted(h for h in hidden if h in text or html.escape(h) in html_text)
