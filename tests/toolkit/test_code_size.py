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


def _module_name(path: Path) -> str:
    parts = path.relative_to(GRADER.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, known: set[str]) -> set[str]:
    """The grader modules `path` imports, at the top or inside a function."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
            for alias in node.names:
                target = f"{module}.{alias.name}"
                found.add(target if target in known else module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & known - {name}


def test_no_module_of_grader_imports_itself_through_another() -> None:
    """No import circle (issue 36 found two: build/front_ends/translations and autograde/repair);
    a package's __init__ importing its own modules is not one."""
    known = {_module_name(p) for p in MODULES}
    edges = {_module_name(p): _imports(p, known) for p in MODULES}
    circles = []
    for start in edges:
        stack, seen = [(start, [start])], {start}
        while stack:
            node, path = stack.pop()
            for nxt in edges[node]:
                if nxt == start and not any(start.startswith(m + ".") for m in path[1:]):
                    circles.append(" -> ".join(path + [start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    circles = [c for c in circles if not c.split(" -> ")[1].startswith(c.split(" -> ")[0] + ".")
               and not c.split(" -> ")[0].startswith(c.split(" -> ")[1] + ".")]
    assert not circles, f"import circles: {circles[:5]}"
