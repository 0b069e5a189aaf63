"""A lesson cut down to what its graded cells need, for grading tests that do not need the rest.

Most of a lesson's execution time is demonstrations (training loops, sweeps, figures, widgets)
that no graded cell reads. `cut(nb)` keeps, in order:

- every cell nbgrader cares about (the `setup` cell, every solution, graded or task cell);
- every other code cell that may bind or change a name a later kept cell can read, transitively;
- every code cell the analysis cannot see through ("opaque"), when a kept cell follows it;

and drops everything else (markdown too). The analysis is static and errs towards keeping:

- What a cell reads: the names it reads before binding them itself, in order through its
  loops, branches, `with` and `try` blocks (a name counts as bound only after an unconditional
  assignment, def, class, import or `with ... as`; a loop variable inside its loop), and the
  globals its lambdas, comprehensions, functions and classes read (scopes by `symtable`); closed
  through every statement of the notebook that binds a name it reads and did not bind itself (a
  function or class body looks its globals up when it is called; a value built with functions,
  classes or lambdas may call them later).
- What a cell may change: every name it stores anywhere (also inside if/for/try), `del`s or
  declares `global` in a function it reaches, the root name of every attribute or item it stores
  to, of every method it calls (but modules') or `with` it enters, of every value it passes to a
  call (but print, len, repr, str, isinstance, ...) or iterates over, and the same through every
  function it reaches. Passing or iterating over functions, classes, modules (names the notebook
  binds only with def, class or import) or names bound only to immutable literals changes nothing.
- Hidden state is a pseudo-name: the global random generators `@numpy.random`, `@random` and
  `@torch.random` (any draw, layer construction or init that consumes them, but a torch draw with
  a `generator=` of its own; `np.random.seed(...)` / `random.seed(...)` / `torch.manual_seed(...)`
  as a statement binds it again).
- Opaque cells: IPython magics and shell lines, star imports, imports of `grader` modules, calls
  that set module state (`set_*`, `use_*`, `filterwarnings`, `seterr`, ...), stores into modules,
  anything of `sys`, `os`, `importlib`, `builtins`, files opened to write or saved, and `exec`,
  `eval`, `globals`, `locals`, `vars`, `setattr`, `delattr`, `__import__`, `get_ipython`. A kept
  cell that reaches one of those dynamic names itself keeps every cell before it.

`extra` adds alternative sources of solution cells (tests/cases): their reads and changes count
as the solution's. The proof that a cut keeps what matters is dynamic: tests/test_grading.py runs
the instructor solution on the cut lesson and expects exactly the full lesson's score.
"""

from __future__ import annotations

import ast
import re
import shutil
import symtable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

RNG_NUMPY, RNG_PYTHON, RNG_TORCH = "@numpy.random", "@random", "@torch.random"
_NUMPY_SAFE = {"default_rng", "Generator", "RandomState", "SeedSequence", "BitGenerator",
               "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"}
_TORCH_DRAWS = {
    "manual_seed", "seed", "rand", "randn", "randint", "randperm", "rand_like", "randn_like",
    "randint_like", "normal", "bernoulli", "multinomial", "poisson", "dropout", "dropout1d",
    "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "Dropout", "Dropout1d",
    "Dropout2d", "Dropout3d", "AlphaDropout", "Linear", "Bilinear", "LazyLinear", "Conv1d",
    "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "RNN", "LSTM",
    "GRU", "RNNCell", "LSTMCell", "GRUCell", "Embedding", "EmbeddingBag", "MultiheadAttention",
    "Transformer", "TransformerEncoderLayer", "TransformerDecoderLayer", "get_rng_state",
    "set_rng_state", "fork_rng", "rrelu", "RReLU", "gumbel_softmax", "reset_parameters",
}
_TENSOR_DRAWS = {"uniform_", "normal_", "random_", "bernoulli_", "exponential_", "geometric_",
                 "cauchy_", "log_normal_"}
_RESEEDS = {"numpy.random.seed": RNG_NUMPY, "random.seed": RNG_PYTHON,
            "torch.manual_seed": RNG_TORCH, "torch.random.manual_seed": RNG_TORCH}
DYNAMIC = {"exec", "eval", "globals", "locals", "vars", "setattr", "delattr", "__import__",
           "get_ipython", "compile", "__builtins__"}
_SETTER = re.compile(r"^(set_|use_|filterwarnings$|simplefilter$|resetwarnings$|seterr$|rc$|"
                     r"rcdefaults$|seed$|manual_seed$)")
_SYSTEM = ("sys", "os", "importlib", "builtins", "shutil", "subprocess")


@dataclass
class Cut:
    """The cut notebook and, per cell of the original, why it was kept or that it was dropped."""

    notebook: nbformat.NotebookNode
    kept: dict[int, str]  # index in the original -> reason
    dropped: list[int]
    needs: dict[int, set[str]]  # kept code cell -> the names it reads (closed through bodies)


def _python(source: str) -> tuple[str, str]:
    """(source with magic and shell lines blanked, why it is opaque or "")."""
    lines, opaque = [], ""
    for line in source.splitlines():
        if line.lstrip().startswith(("%", "!")):
            opaque = opaque or f"IPython line {line.strip()[:40]!r}"
            line = ""
        lines.append(line)
    return "\n".join(lines), opaque


def _aliases(trees: list[ast.Module]) -> dict[str, str]:
    """alias -> dotted module path (or module attribute) from every import in the notebook."""
    found = {"np": "numpy", "torch": "torch", "random": "random", "plt": "matplotlib.pyplot"}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    found[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


def _root(node: ast.AST, calls: bool = True) -> ast.Name | None:
    """The name at the bottom of an attribute / item (/ call) chain: `a` of `a.b[c].d()`."""
    kinds = ast.Attribute | ast.Subscript | ast.Starred | (ast.Call if calls else ast.Starred)
    while isinstance(node, kinds):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """`np.random.seed` -> "numpy.random.seed" (None unless the chain starts at an import)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _channel(path: str) -> str | None:
    """The global random generator a dotted path draws from or seeds, if any."""
    head, _, rest = path.partition(".")
    last = path.rsplit(".", 1)[-1]
    parts = path.split(".")
    if parts[:2] == ["numpy", "random"] and (len(parts) == 2 or parts[2] not in _NUMPY_SAFE):
        return RNG_NUMPY
    if head == "random" and rest and rest.split(".")[0] not in {"Random", "SystemRandom"}:
        return RNG_PYTHON
    if head == "torch" and (last in _TORCH_DRAWS or ".init." in path or path.startswith("torch.random")):
        return RNG_TORCH
    return None


@dataclass
class Statement:
    """What one top-level statement of a cell reads, binds and may change (raw, per statement)."""

    reads: set[str] = field(default_factory=set)  # names, pseudo-names; nested scopes' globals
    binds: set[str] = field(default_factory=set)  # bound for sure: simple top-level bindings
    stores: set[str] = field(default_factory=set)  # every name it may bind (also conditionally)
    roots: set[str] = field(default_factory=set)  # roots of stored attributes/items, `with` roots
    called_on: set[str] = field(default_factory=set)  # roots of called methods
    passed: set[str] = field(default_factory=set)  # roots of values passed to calls, iterated over
    reseeds: set[str] = field(default_factory=set)  # generators it seeds again, as a statement
    late: set[str] = field(default_factory=set)  # globals its nested scopes (lambdas...) read
    values: dict[str, set[str]] = field(default_factory=dict)  # name -> what its new value may
    # look up when used later: the names its expression reads, of which the analysis keeps the
    # functions and classes, and the globals of the lambdas and generators in it
    literal: bool = False  # binds its names to immutable literals (numbers, strings, tuples of them)
    kind: str = "other"  # "def" (def, class, `f = lambda`), "import" or "other"
    opaque: str = ""  # why the analysis cannot see through it ("" when it can)


_READERS = {"print", "len", "repr", "str", "format", "isinstance", "issubclass", "type", "id",
            "hash", "float", "int", "bool", "abs", "round", "callable"}
_CONSUMERS = {"sum", "tuple", "list", "set", "frozenset", "dict", "min", "max", "any", "all",
              "sorted"}
_EAGER = {"listcomp", "setcomp", "dictcomp"}  # nested scopes that run at once (not genexpr)


def _scopes(table: symtable.SymbolTable, late: bool = False) -> tuple[set[str], set[str], set[str]]:
    """(globals read in the nested scopes of `table`, those of them read later, when a function,
    lambda or generator runs, and the globals they assign through `global`)."""
    reads, later, writes = set(), set(), set()
    for child in table.get_children():
        deferred = late or (child.get_type() == "function" and child.get_name() not in _EAGER)
        for sym in child.get_symbols():
            if sym.is_global() and (sym.is_referenced() or sym.is_assigned()):
                reads.add(sym.get_name())
                if deferred:
                    later.add(sym.get_name())
            if sym.is_declared_global() and sym.is_assigned():
                writes.add(sym.get_name())
        more = _scopes(child, deferred)
        reads, later, writes = reads | more[0], later | more[1], writes | more[2]
    return reads, later, writes


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)
_WRITERS = {"savefig", "to_csv", "write_text", "write_bytes", "tofile", "save", "savez",
            "savez_compressed", "savetxt", "dump"}


class _Walker:
    """Fills a Statement from its nodes; inside nested scopes only names global there count."""

    def __init__(self, st: Statement, aliases: dict[str, str], shared: set[str], tree: ast.AST,
                 readers: frozenset[str]):
        self.st, self.aliases, self.shared, self.readers = st, aliases, shared, readers
        self.late = st.late
        self.inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        # torch.randn(..., generator=g) draws from g, not from the global generator
        self.own_generator = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)
                              and any(k.arg == "generator" for k in n.keywords)}

    def visit(self, node: ast.AST, nested: bool = False) -> None:
        self._node(node, nested)
        for child in ast.iter_child_nodes(node):
            self.visit(child, nested or isinstance(node, _NESTED))

    def _add(self, bucket: set[str], root: ast.Name | None, nested: bool) -> None:
        if root is not None and (not nested or root.id in self.shared):
            bucket.add(root.id)

    def _target(self, node: ast.AST, nested: bool) -> None:
        if isinstance(node, ast.Name):
            if not nested:
                self.st.stores.add(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for elt in node.elts:
                self._target(elt, nested)
        elif isinstance(node, ast.Starred):
            self._target(node.value, nested)
        else:
            self._add(self.st.roots, _root(node), nested)
            root = _root(node)
            if root is not None and root.id in self.aliases and isinstance(node, ast.Attribute):
                self.st.opaque = self.st.opaque or f"stores into {self.aliases[root.id]}"

    def _value(self, targets: list[ast.AST], value: ast.AST | None, nested: bool) -> None:
        """Record what the values bound to `targets` may look up later (see Statement.values)."""
        if value is None or nested:
            return
        eager = set()
        for call in ast.walk(value):  # generators consumed at once: sum(x for x in ...)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in _CONSUMERS:
                eager |= {id(a) for a in call.args if isinstance(a, ast.GeneratorExp)}
        if isinstance(value, ast.GeneratorExp) and any(isinstance(t, ast.Tuple | ast.List) for t in targets):
            eager.add(id(value))
        late = {n.id for sub in ast.walk(value) if isinstance(sub, ast.Lambda | ast.GeneratorExp)
                and id(sub) not in eager for n in ast.walk(sub) if isinstance(n, ast.Name)}
        found = _loads(value) | (late & self.late)
        for target in targets:
            root = _root(target)
            for name in _unpacked(target) | ({root.id} if root is not None else set()):
                self.st.values.setdefault(name, set()).update(found)

    def _node(self, node: ast.AST, nested: bool) -> None:
        st = self.st
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
            self._value(node.targets if isinstance(node, ast.Assign) else [node.target], node.value, nested)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self._value([node.target], node.iter, nested)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._value([node.optional_vars], node.context_expr, nested)
        if isinstance(node, ast.Assign | ast.Delete):
            for target in node.targets:
                self._target(target, nested)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.NamedExpr):
            self._target(node.target, nested)
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            self._target(node.target, nested or isinstance(node, ast.comprehension))
            self._add(st.passed, _root(node.iter, calls=False), nested)
        elif isinstance(node, ast.withitem):
            if node.optional_vars is not None:
                self._target(node.optional_vars, nested)
            self._add(st.called_on, _root(node.context_expr), nested)
        elif isinstance(node, ast.ExceptHandler) and node.name and not nested:
            st.stores.add(node.name)
        elif isinstance(node, ast.Call):
            self._call(node, nested)
        elif isinstance(node, ast.Name) and node.id in DYNAMIC:
            st.opaque = st.opaque or f"uses {node.id}"
            st.reads.add(node.id)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(a.name == "*" for a in node.names):
                st.opaque = st.opaque or "star import"
            if any(m.split(".")[0] == "grader" for m in modules):
                st.opaque = st.opaque or "imports a grader module"
        if isinstance(node, ast.Attribute) and node.attr in _TENSOR_DRAWS:
            st.reads.add(RNG_TORCH)
        if isinstance(node, ast.Attribute | ast.Name) and id(node) not in self.inner:
            path = _dotted(node, self.aliases)
            if path and (channel := _channel(path)) and id(node) not in self.own_generator:
                st.reads.add(channel)
            if path and path.split(".")[0] in _SYSTEM:
                st.opaque = st.opaque or f"uses {path}"

    def _call(self, node: ast.Call, nested: bool) -> None:
        st, func = self.st, node.func
        path = _dotted(func, self.aliases)
        if isinstance(func, ast.Name) and func.id == "open":
            mode = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "mode"), ast.Constant("r"))
            if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)
                    and not set(mode.value) & set("wax+")):
                st.opaque = st.opaque or "opens a file to write"
        if isinstance(func, ast.Attribute):
            self._add(st.called_on, _root(func), nested)
            if func.attr in _WRITERS:
                st.opaque = st.opaque or f"may write a file (.{func.attr})"
            if path and _SETTER.match(func.attr) and not _channel(path):
                st.opaque = st.opaque or f"sets module state ({path})"
        if isinstance(func, ast.Name) and func.id in self.readers:
            return  # print(x), len(x), ... read their arguments (unless the notebook rebinds them)
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            self._add(st.passed, _root(arg, calls=False), nested)


def _statement(node: ast.stmt, aliases: dict[str, str], readers: frozenset[str]) -> Statement:
    """The facts of one top-level statement (scopes by symtable, the rest by walking its AST)."""
    st = Statement()
    try:
        source = ast.unparse(node)
        table = symtable.symtable(source, "<cell>", "exec")
    except SyntaxError as error:
        return Statement(opaque=f"cannot analyse it ({error})")
    node = ast.parse(source).body[0]  # the line numbers symtable knows
    top = {sym.get_name() for sym in table.get_symbols() if sym.is_referenced()}
    nested, late, writes = _scopes(table)
    st.reads |= _block_reads([node], set(), _scope_globals(table), nested)
    st.late = late
    st.stores |= writes
    _Walker(st, aliases, top | nested, node, readers).visit(node)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        st.kind, st.binds = "def", {node.name}
        st.stores.add(node.name)
    elif isinstance(node, ast.Import | ast.ImportFrom):
        st.kind = "import"
        st.binds = {a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"}
        st.stores |= st.binds
    elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        st.binds = set().union(*(_unpacked(t) for t in targets))
        simple = all(isinstance(t, ast.Name) for t in targets)
        st.literal = simple and _literal(node.value)
        if isinstance(node.value, ast.Lambda) and simple and len(targets) == 1:
            st.kind = "def"
    elif isinstance(node, ast.With):
        st.binds = set().union(*(_unpacked(i.optional_vars) for i in node.items if i.optional_vars))
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        channel = _RESEEDS.get(_dotted(node.value.func, aliases) or "")
        if channel and not node.value.args or channel and all(
                isinstance(a, ast.Constant | ast.Name) for a in node.value.args):
            st.reseeds = {channel}
            st.reads.discard(channel)
    return st


_SCOPE_NAMES = {ast.Lambda: "lambda", ast.ListComp: "listcomp", ast.SetComp: "setcomp",
                ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}
Scopes = dict[tuple[str, int], set[str]]  # (scope name, line) -> the globals read inside it


def _scope_globals(table: symtable.SymbolTable) -> Scopes:
    """The globals read (or assigned) inside each nested scope of `table`, its own nested ones
    included, keyed as `_here` finds them in the AST."""
    found: Scopes = {}
    for child in table.get_children():
        inner = _scope_globals(child)
        names = {sym.get_name() for sym in child.get_symbols()
                 if sym.is_global() and (sym.is_referenced() or sym.is_assigned())}
        names = names.union(*inner.values())
        found.setdefault((child.get_name(), child.get_lineno()), set()).update(names)
    return found


def _here(node: ast.AST, scopes: Scopes, fallback: set[str]) -> set[str]:
    """Names an expression or simple statement reads when it runs: its own loads, and for a
    nested function, lambda, class or comprehension the globals it reads inside (by symtable;
    `fallback`, all the statement's, when the scope is not found)."""
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) else set()
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return _here(node.value, scopes, fallback) | {node.target.id}
    found = set()
    if isinstance(node, _NESTED):
        name = _SCOPE_NAMES.get(type(node), getattr(node, "name", ""))
        found = scopes.get((name, node.lineno), fallback)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        args = node.args
        parts = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        parts += getattr(node, "decorator_list", [])
    elif isinstance(node, ast.ClassDef):
        parts = [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        parts = [node.generators[0].iter]
    else:
        parts = list(ast.iter_child_nodes(node))
    return found.union(*(_here(p, scopes, fallback) for p in parts))


def _definite(node: ast.stmt) -> set[str]:
    """What a statement binds for sure once it completes (not in loops, branches, try)."""
    if isinstance(node, ast.Assign):
        return set().union(*(_unpacked(t) for t in node.targets))
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return _unpacked(node.target)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"}
    if isinstance(node, ast.With):
        return set().union(*(_unpacked(i.optional_vars) for i in node.items if i.optional_vars))
    return set()


def _block_reads(body: list[ast.stmt], bound: set[str], scopes: Scopes, fallback: set[str]) -> set[str]:
    """Names a block reads before it has bound them itself, statement by statement."""
    def here(node: ast.AST) -> set[str]:
        return _here(node, scopes, fallback)

    def block(nodes: list[ast.stmt], names: set[str]) -> set[str]:
        return _block_reads(nodes, names, scopes, fallback)

    free: set[str] = set()
    for node in body:
        if isinstance(node, ast.For | ast.AsyncFor):
            free |= here(node.iter) - bound
            free |= block(node.body, bound | _unpacked(node.target)) | block(node.orelse, bound)
        elif isinstance(node, ast.While | ast.If):
            free |= here(node.test) - bound
            free |= block(node.body, bound) | block(node.orelse, bound)
        elif isinstance(node, ast.With | ast.AsyncWith):
            free |= set().union(*(here(i.context_expr) for i in node.items)) - bound
            free |= block(node.body, bound | _definite(node))
        elif isinstance(node, ast.Try):
            free |= block(node.body, bound) | block(node.orelse, bound) | block(node.finalbody, bound)
            for handler in node.handlers:
                free |= (here(handler.type) if handler.type else set()) - bound
                free |= block(handler.body, bound | ({handler.name} if handler.name else set()))
        else:
            free |= here(node) - bound
        bound = bound | _definite(node)
    return free


def _unpacked(target: ast.AST) -> set[str]:
    """The names an assignment target binds by unpacking (`a, (b, *c)` -> a, b, c)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        return set().union(*(_unpacked(e) for e in target.elts))
    if isinstance(target, ast.Starred):
        return _unpacked(target.value)
    return set()


def _loads(*nodes: ast.AST) -> set[str]:
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}


def _literal(node: ast.AST) -> bool:
    """An immutable value built from constants only: `1e-6`, `-2`, `("a", 3)`, `2 * 1e-3`."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _literal(node.left) and _literal(node.right)
    return False


def _statements(source: str, aliases: dict[str, str], readers: frozenset[str]) -> list[Statement]:
    python, opaque = _python(source)
    try:
        tree = ast.parse(python)
    except SyntaxError as error:
        return [Statement(opaque=f"cannot parse it ({error.msg})")]
    found = [_statement(node, aliases, readers) for node in tree.body]
    if opaque:
        found.append(Statement(opaque=opaque))
    return found


def _parsed(source: str) -> ast.Module:
    try:
        return ast.parse(_python(source)[0])
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def _mandatory(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return meta.get("grade_id") == "setup" or any(meta.get(k) for k in ("solution", "grade", "task"))


class _Analysis:
    """The notebook-wide facts: what each name's binding statements read and may change."""

    def __init__(self, statements: list[Statement]):
        kinds: dict[str, set[str]] = {}
        for st in statements:
            for name in st.stores | st.binds:
                kinds.setdefault(name, set()).add(st.kind)
        literal = {n for st in statements if st.literal for n in st.binds}
        literal -= {n for st in statements if not st.literal for n in st.stores | st.binds}
        # a name no cell binds (a builtin) or bound to immutable literals only cannot be changed
        self.mutable = set(kinds) - literal
        self.imports = {n for n, k in kinds.items() if k == {"import"}}
        self.static = {n for n, k in kinds.items() if k <= {"import", "def"}}
        functions = {n for n, k in kinds.items() if "def" in k}
        # what a name's value may look up when it is used: a function or class body's globals; for
        # a value, the functions and classes it was built with (their methods, the closures they
        # return) and its lambdas' globals
        self.bodies: dict[str, set[str]] = {}
        self.body_changes: dict[str, set[str]] = {}
        for st in statements:
            for name in st.stores | st.binds:
                if st.kind == "def":
                    self.bodies.setdefault(name, set()).update(st.reads)
                elif st.kind == "other":
                    found = st.values.get(name, st.reads) & functions | st.values.get(name, st.late) & st.late
                    self.bodies.setdefault(name, set()).update(found)
                if st.kind == "def":
                    self.body_changes.setdefault(name, set()).update(self.changes(st) - {name})

    def changes(self, st: Statement) -> set[str]:
        channels = {r for r in st.reads if r.startswith("@")}
        uses = (st.roots | (st.called_on - self.imports) | (st.passed - self.static)) & self.mutable
        return st.stores | uses | st.reseeds | channels

    def closure(self, names: set[str]) -> set[str]:
        seen, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += self.bodies.get(name, ())
        return seen

    def cell(self, sources: list[list[Statement]]) -> tuple[set[str], set[str], str]:
        """(names the cell reads before binding them, names it may change, why it is opaque)."""
        free: set[str] = set()
        touches: set[str] = set()
        opaque = ""
        for statements in sources:
            bound: set[str] = set()
            for st in statements:
                # a name bound above in this cell holds a value built there, from what that
                # statement read (already counted): only the others are looked up further
                free |= self.closure(st.reads - bound) - bound
                bound |= st.binds | st.reseeds
                touches |= self.changes(st)
                opaque = opaque or st.opaque
        for name in self.closure({r for statements in sources for st in statements for r in st.reads}):
            touches |= self.body_changes.get(name, set())
        return free, touches, opaque


def _rebound(trees: list[ast.Module]) -> set[str]:
    """Every name the notebook binds (a builtin it rebinds is no longer the builtin)."""
    found = set()
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                found.add(n.id)
            elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.add(n.name)
    return found


def _facts(nb, extra: dict[str, list[str]]) -> tuple[dict[int, list[list[Statement]]], _Analysis]:
    """code cell index -> the statements of each of its sources (solution cells: also `extra`)."""
    sources = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            meta = cell.metadata.get("nbgrader", {})
            more = extra.get(meta.get("grade_id", ""), []) if meta.get("solution") else []
            sources[i] = [cell.source, *more]
    trees = [_parsed(s) for group in sources.values() for s in group]
    aliases = _aliases(trees)
    readers = frozenset(_READERS - _rebound(trees) - set(aliases))
    parsed = {i: [_statements(s, aliases, readers) for s in group] for i, group in sources.items()}
    return parsed, _Analysis([st for group in parsed.values() for src in group for st in src])


def cut(nb, extra: dict[str, list[str]] | None = None) -> Cut:
    """`nb` cut to what its graded cells need; `extra`: solution grade_id -> other sources of it."""
    parsed, analysis = _facts(nb, extra or {})
    kept: dict[int, str] = {}
    needs: dict[int, set[str]] = {}
    needed: set[str] = set()
    everything_before = ""
    for i in reversed(range(len(nb.cells))):
        cell = nb.cells[i]
        if cell.cell_type != "code":
            if _mandatory(cell):
                kept[i] = "nbgrader cell"
            continue
        free, touches, opaque = analysis.cell(parsed[i])
        reason = everything_before or ("nbgrader cell" if _mandatory(cell) else "")
        if not reason and touches & needed:
            reason = "may change " + ", ".join(sorted(touches & needed)[:6])
        if not reason and opaque and kept:
            reason = f"opaque ({opaque}) before a kept cell"
        if reason:
            kept[i], needs[i] = reason, free
            needed |= free
            if free & DYNAMIC and not everything_before:
                everything_before = f"before cell {i}, which reaches {sorted(free & DYNAMIC)}"
    out = nbformat.from_dict(nb)
    out.cells = [out.cells[i] for i in sorted(kept)]
    dropped = [i for i in range(len(nb.cells)) if i not in kept]
    return Cut(out, dict(sorted(kept.items())), dropped, needs)


def write_cut(folder: Path, name: str, target: Path, transform=None,
              extra: dict[str, list[str]] | None = None) -> tuple[Path, Cut]:
    """A copy of the lesson folder `folder` in target/<name> whose notebook is cut.

    `transform(nb)` (e.g. the liars' hidden-only cells) is applied before the cut.
    """
    dest = target / name
    shutil.copytree(folder, dest)
    path = dest / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    if transform is not None:
        nb = transform(nb)
    result = cut(nb, extra)
    nbformat.write(result.notebook, path)
    return dest, result


def suspects(nb, result: Cut, grade_id: str, limit: int = 4) -> str:
    """What the cut dropped that the cell `grade_id` may have needed, for a failure message."""
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    index = ids.index(grade_id)
    needs = result.needs.get(index, set())
    before = [i for i in reversed(result.dropped) if i < index and nb.cells[i].cell_type == "code"]
    if not before:
        return "the cut dropped no code cell before it"
    named = []
    for i in before:
        tree = _parsed(nb.cells[i].source)
        binds, mentions = _rebound([tree]) & needs, _loads(tree) & needs
        if binds or mentions:
            what = [f"binds {', '.join(sorted(binds)[:5])}"] if binds else []
            what += [f"mentions {', '.join(sorted(mentions - binds)[:5])}"] if mentions - binds else []
            named.append(f"cell {i} ({'; '.join(what)})")
    if not named:  # nothing it reads by name: the nearest dropped cells
        named = [f"cell {i}: {nb.cells[i].source.strip().splitlines()[0][:60]!r}" for i in before]
    return f"the cut dropped {len(before)} code cells before it; suspects: " + "; ".join(named[:limit])
