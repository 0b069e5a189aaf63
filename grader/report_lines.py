"""The one format of the lines a check shows, and how they reach the class report as data.

    ✓ dx  relative error 2.3e-10
    ✗ db  relative error 6.7e-01 (needs < 1e-07)
        Hint: your db is 1/5 of the expected one, and 5 is the batch size: ...  [sum-vs-mean]

Every check of the toolkit and of the lesson helpers shows its lines with `emit`, and a test
cell its own hint with `show_hint`. In a notebook (an IPython shell) that is one display output
with two representations: the lines as text/plain, which is what the student reads, and the
hints as JSON (CHECK_MIME), which is what `grader.instructor.grading.report` counts; nothing
parses the printed text back. Outside IPython (a plain Python, the tests) the lines are printed.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .i18n import N_, _

__all__ = [
    "CHECK_MIME",
    "HINT_PREFIX",
    "emit",
    "fail_line",
    "hint_line",
    "hints_of_output",
    "pass_line",
    "show_hint",
    "summary_hint",
]

#: Shown translated (`_(HINT_PREFIX)`); nothing parses it back (the hints travel as CHECK_MIME data).
HINT_PREFIX = N_("Hint: ")
#: The mime type of the data beside a check's text: {"hints": [{"code": str | None, "message": str}]}.
CHECK_MIME = "application/vnd.backprop-course.check+json"


def pass_line(name: str, status: str) -> str:
    """`✓ dx  relative error 2.3e-10`."""
    return f"✓ {name}  {status}"


def fail_line(name: str, status: str) -> str:
    """`✗ db  relative error 6.7e-01 (needs < 1e-07)`."""
    return f"✗ {name}  {status}"


def hint_line(message: str, code: str | None) -> str:
    """`    Hint: your db is 1/5 of the expected one ...  [sum-vs-mean]` (indented under its check;
    without `[code]` for a hint a test cell words itself)."""
    return f"    {_(HINT_PREFIX)}{message}" + (f"  [{code}]" if code else "")


def summary_hint(message: str, code: str) -> str:
    """` — message [code]`: how a hint appears inside a CheckFailed message (one line)."""
    return f" — {message} [{code}]"


def _shell():
    """The running IPython shell, or None (IPython is only looked up if it is already imported)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def emit(lines: Sequence[str], hints: Sequence[tuple[str | None, str]] = ()) -> None:
    """Show a check's lines to the student and its hints ((code, message), code None for a hint
    without one) to the class report: one display output in IPython, plain print elsewhere."""
    text = "\n".join(lines)
    shell = _shell()
    if shell is None:
        print(text)
        return
    from IPython.display import publish_display_data

    data = {"hints": [{"code": code, "message": message} for code, message in hints]}
    publish_display_data({"text/plain": text, CHECK_MIME: data})


def show_hint(message: str, code: str | None = None) -> None:
    """A hint of a test cell's own (`Hint: message`), shown as the toolkit's checks show theirs,
    so that the class report counts it too (by its English, when it came from `grader.tr`)."""
    emit([hint_line(message, code).lstrip()], [(code, getattr(message, "english", message))])


def hints_of_output(output: dict) -> list[tuple[str, str]]:
    """(code or "", message) of every hint an output of a notebook carries as data (CHECK_MIME)."""
    data = output.get("data", {}) if isinstance(output, dict) else {}
    bundle = data.get(CHECK_MIME) if isinstance(data, dict) else None
    hints = bundle.get("hints") if isinstance(bundle, dict) else None
    if not isinstance(hints, list):
        return []  # not a check's output (or not one the toolkit wrote): nothing to count
    return [(h["code"] if isinstance(h.get("code"), str) else "", h["message"])
            for h in hints if isinstance(h, dict) and isinstance(h.get("message"), str)]
