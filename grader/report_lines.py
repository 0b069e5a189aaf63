"""The one format of the lines a check prints, and its parser (used by the class report).

    ✓ dx  relative error 2.3e-10
    ✗ db  relative error 6.7e-01 (needs < 1e-07)
        Hint: your db is 1/5 of the expected one, and 5 is the batch size: ...  [sum-vs-mean]

Every check of the toolkit and of the lesson helpers prints through these functions, and
`grader.instructor.grading.report` reads hints back with `parse_hint_line`, so the format is
written once.
"""

from __future__ import annotations

import re

__all__ = [
    "HINT_PREFIX",
    "fail_line",
    "hint_line",
    "hints_in_text",
    "parse_hint_line",
    "pass_line",
    "summary_hint",
]

HINT_PREFIX = "Hint: "
_HINT = re.compile(r"Hint: (?P<msg>.+?)(?:\s+\[(?P<code>[a-z0-9][a-z0-9-]*)\])?\s*$")
_SUMMARY_HINT = re.compile(r"— (?P<msg>[^;]+?) \[(?P<code>[a-z0-9-]+)\]")


def pass_line(name: str, status: str) -> str:
    """`✓ dx  relative error 2.3e-10`."""
    return f"✓ {name}  {status}"


def fail_line(name: str, status: str) -> str:
    """`✗ db  relative error 6.7e-01 (needs < 1e-07)`."""
    return f"✗ {name}  {status}"


def hint_line(message: str, code: str) -> str:
    """`    Hint: your db is 1/5 of the expected one ...  [sum-vs-mean]` (indented under its check)."""
    return f"    {HINT_PREFIX}{message}  [{code}]"


def parse_hint_line(line: str) -> tuple[str, str | None] | None:
    """(message, code) of a printed hint line (code None when it has no [slug]); None otherwise."""
    index = line.find(HINT_PREFIX)
    if index < 0:
        return None
    match = _HINT.match(line[index:].rstrip())
    return (match.group("msg"), match.group("code")) if match else None


def summary_hint(message: str, code: str) -> str:
    """` — message [code]`: how a hint appears inside a CheckFailed message (one line)."""
    return f" — {message} [{code}]"


def hints_in_text(text: str) -> list[tuple[str, str]]:
    """(code or "", message) of every hint in printed text: hint lines and CheckFailed messages."""
    found = []
    for line in text.splitlines():
        parsed = parse_hint_line(line.strip())
        if parsed is not None:
            found.append((parsed[1] or "", parsed[0]))
            continue
        found += [(m.group("code"), m.group("msg")) for m in _SUMMARY_HINT.finditer(line)]
    return found
