"""The house limits on grader/: no module over 700 lines, no function over 80 (issue 12)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GRADER = Path(__file__).resolve().parents[2] / "grader"
MODULES = sorted(GRADER.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(GRADER).as_posix())
def test_module_and_function_sizes(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 700, f"{path.name} has {len(text.splitlines())} lines (at most 700)"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines, line {node.lineno})"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno >= 80
    ]
    assert not long, f"{path.name}: functions over 80 lines: {long}"
