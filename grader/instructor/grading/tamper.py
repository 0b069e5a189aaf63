"""Tamper detection, part 1: static analysis of the cells a student wrote (in the main process),
and the worker's side of the in-kernel integrity guard (`_kernel_guard.py`).

A student's code runs in the same interpreter as the hidden tests, so it could make them pass
without solving anything: `np.allclose = lambda *a, **k: True`, a redefined `check_close`, an
IPython AST transformer that deletes asserts, a trace function, a patched builtin... Three layers:

1. `scan_cell`: an AST scan of every cell the student wrote or changed. Patching modules,
   builtins, sys.modules or IPython's machinery, trace/profile hooks, frame/gc/ctypes tricks and
   `os._exit` are "tamper" (the notebook scores 0 and is flagged for review); exec/eval/
   `__import__`, reading the cell history (`In`, `_ih`: hidden tests of earlier cells) and
   callables named like builtins are "suspicious" (flagged for review, points kept).
2. The guard in the kernel compares, around every graded cell, what the tests use with a
   snapshot taken by trusted code (see `_kernel_guard.py`).
3. Flagging: tampered notebooks get an error output in every graded cell (so nbgrader itself
   scores them 0), `needs_manual_grade` in the gradebook, and a line in the class report.

Honest limits: a determined student can still hide a patch from a static scan (strings built at
run time reaching attributes through the few routes not listed), and in-process checks can be
defeated by code that reaches the guard's own memory. Both routes need constructs this scan
flags (exec, getattr on strings, gc, ctypes, frames), so they end up in front of a human.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

GUARD_SOURCE = (Path(__file__).parent / "_kernel_guard.py").read_text(encoding="utf-8")

#: Modules whose attributes the guard watches (".*": with all submodules).
WATCHED_MODULES = [
    "builtins",
    "sys",
    "math",
    "cmath",
    "operator",
    "functools",
    "numbers",
    "warnings",
    "numpy",
    "numpy.linalg",
    "numpy.testing",
    "numpy.random",
    "numpy.lib",
    "numpy.ma",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.autograd",
    "torch.testing",
    "torch.linalg",
    "grader",
    "grader.*",
    "IPython.core.interactiveshell",
]

BUILTIN_NAMES = frozenset(dir(builtins))
_SHELL_HOOKS = {
    "events",
    "ast_transformers",
    "input_transformers_cleanup",
    "input_transformers_post",
    "input_transformer_manager",
    "set_custom_exc",
    "custom_exceptions",
    "CustomTB",
    "showtraceback",
    "_showtraceback",
    "showsyntaxerror",
    "run_cell",
    "run_cell_async",
    "run_ast_nodes",
    "run_code",
    "transform_cell",
    "transform_ast",
    "user_ns",
    "user_global_ns",
    "register_magic_function",
    "displayhook",
    "display_pub",
    "InteractiveTB",
    "SyntaxTB",
    "excepthook",
    "compile",
    "ns_table",
    "kernel",
}
_FRAME_ATTRS = {
    "f_globals",
    "f_locals",
    "f_back",
    "f_builtins",
    "f_code",
    "tb_frame",
    "gi_frame",
    "cr_frame",
    "ag_frame",
    "f_trace",
    "__globals__",
    "__closure__",
}
_TAMPER_CALLS = {
    ("sys", "settrace"): "installs a trace function (sys.settrace)",
    ("sys", "setprofile"): "installs a profile function (sys.setprofile)",
    ("threading", "settrace"): "installs a trace function (threading.settrace)",
    ("threading", "setprofile"): "installs a profile function (threading.setprofile)",
    ("sys", "_getframe"): "inspects interpreter frames (sys._getframe)",
    ("sys", "addaudithook"): "installs an audit hook",
    ("inspect", "currentframe"): "inspects interpreter frames (inspect.currentframe)",
    ("inspect", "stack"): "inspects interpreter frames (inspect.stack)",
    ("inspect", "getouterframes"): "inspects interpreter frames",
    ("inspect", "trace"): "inspects interpreter frames",
    ("os", "_exit"): "ends the kernel (os._exit)",
    ("os", "kill"): "sends signals to processes (os.kill)",
    ("os", "killpg"): "sends signals to processes (os.killpg)",
    ("os", "abort"): "ends the kernel (os.abort)",
    ("gc", "get_objects"): "walks the interpreter's objects (gc.get_objects)",
    ("gc", "get_referrers"): "walks the interpreter's objects (gc.get_referrers)",
    ("gc", "get_referents"): "walks the interpreter's objects (gc.get_referents)",
    ("signal", "signal"): "changes signal handlers (signal.signal)",
    ("signal", "alarm"): "sets signal timers (signal.alarm)",
    ("signal", "setitimer"): "sets signal timers (signal.setitimer)",
    ("faulthandler", "enable"): "changes the interpreter's crash handler",
}
_TAMPER_MODULES = {
    "ctypes": "uses ctypes (raw memory access)",
    "gc": None,
    "_ctypes": "uses ctypes",
    "cffi": "uses cffi (raw memory access)",
    "importlib": None,
}
_SUSPICIOUS_CALLS = {"exec", "eval", "compile", "__import__", "globals", "vars", "breakpoint"}
_HISTORY_NAMES = {"In", "Out", "_ih", "_oh", "_dh", "_i", "_ii", "_iii"}


@dataclass
class Finding:
    severity: str  # "tamper" or "suspicious"
    message: str

    def to_dict(self) -> dict:
        return {"severity": self.severity, "message": self.message}


@dataclass
class CellInfo:
    """What the worker needs to know about one code cell."""

    kind: str  # "student", "trusted" (instructor code, locked or unchanged) or "graded"
    free: list[str] = field(default_factory=list)  # names it reads before binding them
    bound: list[str] = field(default_factory=list)  # names it binds at top level


# ------------------------------------------------------------------------------ parsing


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
                    if _is_module(full):
                        aliases[a.asname or a.name] = full
    return aliases


@cache
def _is_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False


# ------------------------------------------------------------------------------ the scan


def _dotted(node: ast.AST) -> list[str] | None:
    """`a.b.c` -> ['a', 'b', 'c']; `get_ipython().x` -> ['get_ipython()', 'x']."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "get_ipython":
        parts.append("get_ipython()")
    else:
        return None
    return parts[::-1]


def _stored(target: ast.AST):
    """The nodes an assignment target writes to (not the index expressions inside it)."""
    if isinstance(target, ast.Tuple | ast.List):
        for elt in target.elts:
            yield from _stored(elt)
    elif isinstance(target, ast.Starred):
        yield from _stored(target.value)
    else:
        yield target


def _attribute_is_callable(module: str, attr: str) -> bool:
    """Does `module.attr` hold a function, class or module (not a plain setting)?"""
    import importlib

    if module.split(".")[0] not in {
        "numpy",
        "math",
        "torch",
        "grader",
        "builtins",
        "sys",
        "os",
        "matplotlib",
        "scipy",
        "cmath",
        "operator",
        "functools",
    }:
        return True
    try:
        obj = importlib.import_module(module)
        value = getattr(obj, attr)
    except Exception:
        return True
    return callable(value) or type(value).__name__ == "module"


def scan_cell(source: str, aliases: dict[str, str]) -> list[Finding]:
    """Everything in a student's cell that could tamper with the grading machinery."""
    tree = parse(source)
    if tree is None:
        return []
    found: list[Finding] = []

    def tamper(msg: str) -> None:
        found.append(Finding("tamper", msg))

    def suspicious(msg: str) -> None:
        found.append(Finding("suspicious", msg))

    shell_names = {"get_ipython()"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            d = _dotted(node.value)
            if d == ["get_ipython()"] or (
                isinstance(node.value.func, ast.Name) and node.value.func.id == "get_ipython"
            ):
                shell_names |= {t.id for t in node.targets if isinstance(t, ast.Name)}

    def base_module(parts: list[str]) -> str | None:
        """The module a dotted target lives in (np.linalg.norm -> numpy.linalg), or None."""
        if not parts or parts[0] not in aliases:
            return None
        module = aliases[parts[0]]
        for p in parts[1:-1]:
            if _is_module(f"{module}.{p}"):
                module = f"{module}.{p}"
            else:
                return module if len(parts) > 2 else module
        return module

    for node in ast.walk(tree):
        # assignments to attributes: np.allclose = ..., get_ipython().run_cell = ...
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        for target in targets:
            for t in _stored(target):
                if isinstance(t, ast.Attribute):
                    parts = _dotted(t)
                    if parts is None:
                        if t.attr in _FRAME_ATTRS | {"__code__", "__class__", "__dict__", "__defaults__"}:
                            tamper(f"assigns to `.{t.attr}` (rewrites code or frames)")
                        continue
                    if parts[0] in shell_names:
                        tamper(f"changes IPython's machinery (`{'.'.join(parts)} = ...`)")
                    elif parts[-1] in {
                        "__code__",
                        "__class__",
                        "__defaults__",
                        "__kwdefaults__",
                        "__globals__",
                        "__builtins__",
                    }:
                        tamper(f"rewrites `{'.'.join(parts)}`")
                    else:
                        module = base_module(parts)
                        if module is not None and len(parts) >= 2:
                            what = f"`{'.'.join(parts)}`"
                            if _attribute_is_callable(module, parts[-1]):
                                tamper(f"monkeypatches {what} (module {module})")
                            else:
                                suspicious(f"changes the module setting {what}")
                elif isinstance(t, ast.Subscript):
                    parts = _dotted(t.value)
                    if parts and (
                        parts[-1] in {"modules", "__dict__", "__builtins__"} or parts[0] == "__builtins__"
                    ):
                        tamper(f"rewrites `{'.'.join(parts)}[...]`")
                elif isinstance(t, ast.Name) and t.id == "__builtins__":
                    tamper("rebinds `__builtins__`")
        if isinstance(node, ast.Call):
            func = node.func
            parts = _dotted(func)
            name = func.id if isinstance(func, ast.Name) else None
            if name in {"setattr", "delattr"} and node.args:
                target = _dotted(node.args[0])
                if target and (
                    target[0] in aliases or target[0] in shell_names or target[0] == "__builtins__"
                ):
                    tamper(f"{name}() on `{'.'.join(target)}`")
                elif isinstance(node.args[0], ast.Call):
                    tamper(f"{name}() on an imported object")
            if name in _SUSPICIOUS_CALLS:
                suspicious(f"calls {name}()")
            if parts and len(parts) >= 2:
                module = aliases.get(parts[0], parts[0])
                key = (
                    (module, parts[-1]) if len(parts) == 2 else (".".join([module, *parts[1:-1]]), parts[-1])
                )
                if key in _TAMPER_CALLS:
                    tamper(_TAMPER_CALLS[key])
                if parts[0] in shell_names and parts[1] in _SHELL_HOOKS:
                    tamper(f"changes IPython's machinery (`{'.'.join(parts)}(...)`)")
                if parts[-1] in {"update", "setdefault", "pop", "clear", "__setitem__", "__delitem__"}:
                    owner = parts[:-1]
                    if owner and (owner[-1] in {"modules", "__dict__"} or owner[0] == "__builtins__"):
                        tamper(f"rewrites `{'.'.join(owner)}`")
                if parts[0] in shell_names and parts[1] in {"run_line_magic", "run_cell_magic", "magic"}:
                    if (
                        node.args
                        and isinstance(node.args[0], ast.Constant)
                        and node.args[0].value
                        in {
                            "load_ext",
                            "run",
                            "load",
                            "config",
                            "alias",
                            "xmode",
                            "autoreload",
                            "aimport",
                        }
                    ):
                        suspicious(f"runs the IPython magic %{node.args[0].value}")
        if isinstance(node, ast.Attribute):
            parts = _dotted(node)
            if node.attr in _FRAME_ATTRS:
                tamper(f"reaches into interpreter frames or closures (`.{node.attr}`)")
            elif parts and parts[0] in shell_names and len(parts) > 1 and parts[1] in _SHELL_HOOKS:
                tamper(f"reaches IPython's machinery (`{'.'.join(parts)}`)")
            elif parts and len(parts) == 2 and aliases.get(parts[0]) == "sys" and parts[1] == "modules":
                suspicious("reads sys.modules")
        if isinstance(node, ast.Import | ast.ImportFrom):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for mod in mods:
                top = mod.split(".")[0]
                if top in _TAMPER_MODULES and _TAMPER_MODULES[top]:
                    tamper(_TAMPER_MODULES[top])
                elif top in {"importlib", "gc", "inspect", "builtins", "signal"}:
                    suspicious(f"imports {mod}")
        if isinstance(node, ast.Name):
            if node.id == "__builtins__":
                tamper("uses `__builtins__`")
            elif node.id in _HISTORY_NAMES or (node.id.startswith("_i") and node.id[2:].isdigit()):
                suspicious(f"reads the cell history (`{node.id}`), which holds the tests' code")
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name in BUILTIN_NAMES:
            suspicious(f"defines `{node.name}`, the name of a builtin")
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id in BUILTIN_NAMES:
                    suspicious(f"binds a function to `{t.id}`, the name of a builtin")
    unique: dict[tuple[str, str], Finding] = {}
    for f in found:
        unique.setdefault((f.severity, f.message), f)
    return list(unique.values())


# ------------------------------------------------------------------------------ the guard protocol


def new_guard() -> tuple[str, str]:
    """(module name, HMAC key) for one notebook's guard."""
    return f"_bpg_{secrets.token_hex(8)}", secrets.token_hex(32)


def install_code(token: str, key: str, roots: list[str]) -> str:
    return (
        GUARD_SOURCE
        + f"\n_bpg_install({token!r}, {key!r}, {tuple(roots)!r}, {WATCHED_MODULES!r})\n"
        + "del _bpg_install\n"
    )


def call_expression(token: str, method: str, nonce: str, *args) -> str:
    arguments = ", ".join(repr(a) for a in (nonce, *args))
    return f"__import__('sys').modules[{token!r}].{method}({arguments})"


def read_answer(reply: dict, key: str, nonce: str) -> dict | None:
    """The guard's signed answer from an execute_reply's user_expressions, or None if forged."""
    try:
        expr = reply["content"]["user_expressions"]["r"]
        if expr.get("status") != "ok":
            return None
        text = ast.literal_eval(expr["data"]["text/plain"])
        outer = json.loads(text)
        mac = hmac.new(bytes.fromhex(key), (nonce + outer["body"]).encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, outer["mac"]):
            return None
        return json.loads(outer["body"])
    except Exception:
        return None
