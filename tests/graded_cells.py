"""The graded-cell contract, and the cut of a lesson it makes sound.

The contract: a graded cell reads only names bound by the setup cell, locked cells and solution
cells (and by itself), never a demonstration's variable; so do the solution cells' function
bodies. A student may edit or skip every other code cell (they are demonstrations: training
loops, sweeps, figures, widgets), and no grade depends on them. tests/course/test_contract.py
checks it statically; tests/cases/test_corpus.py shows it dynamically, since it grades on the
contract cut alone and the instructor's solution must score full marks there.

`contract_cut(nb)` is the lesson with only those cells: the setup, locked, solution and graded
code cells, in order. It is what the in-process case runner executes and what the liar corpus
grades with nbgrader.
"""

from __future__ import annotations

import ast
import shutil
import symtable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from grader.instructor.grading.cell_names import python_source
from grader.instructor.notebook_cells import nbgrader_meta as meta


def is_graded(cell) -> bool:
    return bool(meta(cell).get("grade"))


def is_solution(cell) -> bool:
    return bool(meta(cell).get("solution"))


def in_contract(cell) -> bool:
    """A code cell the graded cells may read from: setup, locked, solution or graded."""
    m = meta(cell)
    return cell.cell_type == "code" and bool(
        m.get("locked") or m.get("solution") or m.get("grade") or m.get("grade_id") == "setup")


def contract_cut(nb) -> nbformat.NotebookNode:
    """A copy of `nb` with only its setup, locked, solution and graded code cells, in order."""
    cut = nbformat.from_dict(nb)
    cut.cells = [cell for cell in cut.cells if in_contract(cell)]
    return cut


def write_contract_cut(folder: Path, name: str, target: Path, transform=None) -> Path:
    """A copy of the lesson folder `folder` in target/<name> whose notebook is its contract cut;
    `transform(nb)` (the liars' hidden-only graded cells, say) is applied first."""
    dest = target / name
    shutil.copytree(folder, dest)
    path = dest / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbformat.write(contract_cut(transform(nb) if transform else nb), path)
    return dest


def _python(source: str) -> ast.Module:
    """The cell as the Python IPython runs (magics become `get_ipython()` calls)."""
    return ast.parse(python_source(source))


def _bound(tree: ast.Module) -> set[str]:
    """Names a cell binds at the top level (assignments anywhere outside functions and classes)."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            return
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def _globals_read(table: symtable.SymbolTable) -> set[str]:
    """Globals read anywhere in the nested scopes (functions, classes, lambdas) of `table`."""
    found: set[str] = set()
    for child in table.get_children():
        found |= {s.get_name() for s in child.get_symbols() if s.is_global() and s.is_referenced()}
        found |= _globals_read(child)
    return found


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _loads(node: ast.AST | None) -> set[str]:
    """Names an expression reads in the scope it runs in (nested scopes' globals come from
    symtable; a comprehension's first iterable runs in the enclosing scope)."""
    if node is None:
        return set()
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return _loads(node.generators[0].iter)
    if isinstance(node, _SCOPES):
        return set()
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) else set()
    return set().union(*(_loads(child) for child in ast.iter_child_nodes(node)))


def _stores(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _in_order(statements: list[ast.stmt], bound: set[str], found: set[str]) -> None:
    """Add to `found` the names `statements` read before binding them (`bound` grows as they bind)."""
    def read(*nodes: ast.AST | None) -> None:
        for node in nodes:
            found.update(_loads(node) - bound)

    for st in statements:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            read(*st.decorator_list, *st.args.defaults, *st.args.kw_defaults)
            bound.add(st.name)
        elif isinstance(st, ast.ClassDef):
            read(*st.decorator_list, *st.bases, *(k.value for k in st.keywords))
            bound.add(st.name)
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            read(st.iter)
            bound.update(_stores(st.target))
            _in_order(st.body + st.orelse, bound, found)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            for item in st.items:
                read(item.context_expr)
                if item.optional_vars is not None:
                    bound.update(_stores(item.optional_vars))
            _in_order(st.body, bound, found)
        elif isinstance(st, (ast.If, ast.While)):
            read(st.test)
            _in_order(st.body + st.orelse, bound, found)
        elif isinstance(st, ast.Try):
            _in_order(st.body, bound, found)
            for handler in st.handlers:
                read(handler.type)
                bound.update({handler.name} if handler.name else set())
                _in_order(handler.body, bound, found)
            _in_order(st.orelse + st.finalbody, bound, found)
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            read(st.value)
            for target in getattr(st, "targets", None) or [st.target]:
                read(target)  # the loads inside a target: `a` and `i` of `a[i] = ...`
                bound.update(_stores(target))
        elif isinstance(st, ast.AugAssign):
            read(st.value, st.target)
            if isinstance(st.target, ast.Name) and st.target.id not in bound:
                found.add(st.target.id)  # `x += 1` reads x first
        else:
            read(st)
            bound.update(_bound(ast.Module(body=[st], type_ignores=[])))


def reads(source: str) -> set[str]:
    """Names a cell reads that it has not bound itself before: in its own statements, in order,
    and in the bodies of its functions, classes, lambdas and comprehensions (which read globals
    when they run)."""
    tree = _python(source)
    found: set[str] = set()
    _in_order(tree.body, set(), found)
    found |= _globals_read(symtable.symtable(ast.unparse(tree), "<cell>", "exec")) - _bound(tree)
    return found - {"get_ipython", "display"}


def _function_reads(source: str) -> dict[str, set[str]]:
    """name -> the globals it reads when called, for every top-level function and class of a cell."""
    tree = _python(source)
    table = symtable.symtable(ast.unparse(tree), "<cell>", "exec")
    out: dict[str, set[str]] = {}
    for child in table.get_children():
        if child.get_type() in ("function", "class") and child.get_name() in _bound(tree):
            globs = {s.get_name() for s in child.get_symbols() if s.is_global() and s.is_referenced()}
            out[child.get_name()] = globs | _globals_read(child)
    return out


def _reached(names: set[str], functions: dict[str, set[str]]) -> set[str]:
    """`names` and every global the functions and classes among them read, transitively."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += functions.get(name, ())
    return seen


@dataclass(frozen=True)
class Leak:
    """A cell of the contract reading a name whose value, at that point, a demonstration bound."""

    grade_id: str
    name: str
    bound_by: int  # index in nb.cells of the demonstration cell that last bound it

    def __str__(self) -> str:
        return (f"{self.grade_id} reads {self.name!r}, last bound before it by cell {self.bound_by}, "
                "a demonstration")


def leaks(nb) -> list[Leak]:
    """Every name a setup, locked, solution or graded cell reads whose last binding before it
    (outside the cell itself) is in a demonstration cell: read directly, or by a function or
    class it calls (as that body reads its globals at the call), a builtin included when a
    demonstration rebinds it."""
    found: list[Leak] = []
    last: dict[str, tuple[int, bool]] = {}  # name -> (cell index, bound by a contract cell)
    functions: dict[str, set[str]] = {}  # function or class -> the globals it reads when called
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if in_contract(cell):
            for name in sorted(_reached(reads(cell.source), functions)):
                where, ours = last.get(name, (-1, True))
                if not ours:
                    found.append(Leak(meta(cell)["grade_id"], name, where))
        for name in _bound(_python(cell.source)):
            last[name] = (index, in_contract(cell))
            functions.pop(name, None)
        functions.update(_function_reads(cell.source))
    return found
