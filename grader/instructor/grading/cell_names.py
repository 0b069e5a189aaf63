"""What the cells of a notebook bind and read: parsing with IPython's transforms, top-level
names, the module aliases of the notebook's imports. The static scan (tamper.py) and the
autograde step (autograde.py: which instructor cells a student's names may shadow) use it, and
so do the translation tools (what a locked cell shows, the `tr` messages a cell holds).
"""

from __future__ import annotations

import ast
import importlib.util
from functools import cache


@cache
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


def python_source(cell_source: str) -> str:
    """The Python code IPython runs for a cell (magics and `!cmd` turned into calls)."""
    try:
        return _transformer().transform_cell(cell_source)
    except Exception:
        return cell_source


def parse(cell_source: str) -> ast.Module | None:
    try:
        return ast.parse(python_source(cell_source))
    except (SyntaxError, ValueError):
        return None


def bound_and_free(tree: ast.Module | None) -> tuple[list[str], list[str]]:
    """(names bound at the top level of a cell, names it reads that it never binds)."""
    if tree is None:
        return [], []
    top: set[str] = set()
    for node in tree.body:
        for sub in _top_level_binders(node):
            top.add(sub)
    stored: set[str] = set()
    loaded: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stored.add(node.name)
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
        elif isinstance(node, ast.alias):
            stored.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            stored.add(node.name)
    return sorted(top), sorted(loaded - stored)


def _top_level_binders(node: ast.AST) -> list[str]:
    names: list[str] = []
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    for sub in ast.walk(node):
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.append(sub.id)
    return names


def module_aliases(sources: list[str]) -> dict[str, str]:
    """alias -> module name, from the import statements of a whole notebook."""
    aliases = {
        "np": "numpy",
        "torch": "torch",
        "math": "math",
        "plt": "matplotlib.pyplot",
        "grader": "grader",
        "builtins": "builtins",
        "sys": "sys",
        "os": "os",
    }
    for source in sources:
        tree = parse(source)
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                for a in node.names:
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if is_module(full):
                        aliases[a.asname or a.name] = full
    return aliases


@cache
def is_module(name: str) -> bool:

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False
