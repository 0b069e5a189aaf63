"""Tamper detection, part 1: static analysis of the cells a student wrote (in the main process).
The worker's side of the in-kernel guard is guard_host.py; cell_names.py parses the cells.

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from grader.instructor.grading.cell_names import is_module, module_aliases, parse, python_source
from grader.instructor.grading.records import Finding

from . import _kernel_guard

__all__ = ["module_aliases", "parse", "python_source", "scan_cell"]

BUILTIN_NAMES = frozenset(dir(builtins))
#: IPython machinery a student cell must not touch: what the in-kernel guard watches at run time
#: (_kernel_guard.SHELL_HOOKS), plus what only the static scan can see being reached.
_SHELL_HOOKS = set(_kernel_guard.SHELL_HOOKS) | {
    "events",
    "ast_transformers",
    "input_transformers_cleanup",
    "input_transformers_post",
    "input_transformer_manager",
    "custom_exceptions",
    "CustomTB",
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
_CODE_ATTRS = {"__code__", "__class__", "__dict__", "__defaults__"}
_REWRITTEN_DUNDERS = {
    "__code__",
    "__class__",
    "__defaults__",
    "__kwdefaults__",
    "__globals__",
    "__builtins__",
}
_MUTATORS = {"update", "setdefault", "pop", "clear", "__setitem__", "__delitem__"}
_MAGIC_RUNNERS = {"run_line_magic", "run_cell_magic", "magic"}
_RISKY_MAGICS = {"load_ext", "run", "load", "config", "alias", "xmode", "autoreload", "aimport"}
#: Top-level modules whose attributes are imported to tell functions from settings.
_INSPECTABLE = {
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
}
_SUSPICIOUS_CALLS = {"exec", "eval", "compile", "__import__", "globals", "vars", "breakpoint"}
_HISTORY_NAMES = {"In", "Out", "_ih", "_oh", "_dh", "_i", "_ii", "_iii"}



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

    if module.split(".")[0] not in _INSPECTABLE:
        return True
    try:
        value = getattr(importlib.import_module(module), attr)
    except Exception:
        return True
    return callable(value) or type(value).__name__ == "module"


@dataclass(frozen=True)
class _Scope:
    """What every rule needs: the notebook's module aliases and the names bound to the shell."""

    aliases: dict[str, str]
    shell_names: frozenset[str]

    def base_module(self, parts: list[str]) -> str | None:
        """The module a dotted target lives in (np.linalg.norm -> numpy.linalg), or None."""
        if not parts or parts[0] not in self.aliases:
            return None
        module = self.aliases[parts[0]]
        for p in parts[1:-1]:
            if not is_module(f"{module}.{p}"):
                break
            module = f"{module}.{p}"
        return module


def _shell_names(tree: ast.Module) -> frozenset[str]:
    """`get_ipython()` and every name a cell binds to it (`ip = get_ipython()`)."""
    names = {"get_ipython()"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            by_name = isinstance(func, ast.Name) and func.id == "get_ipython"
            if by_name or _dotted(node.value) == ["get_ipython()"]:
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(names)


# ------------------------------------------------------------------------------ subjects of rules
# A rule looks at the subjects one of these yields for each node of the cell's AST.


def _targets(node: ast.AST):
    """What an assignment, augmented assignment or `del` writes to."""
    if isinstance(node, ast.Assign | ast.Delete):
        targets = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        targets = [node.target]
    else:
        return
    for target in targets:
        yield from _stored(target)


def _nodes(*types: type):
    def subjects(node: ast.AST):
        if isinstance(node, types):
            yield node

    return subjects


def _imported(node: ast.AST):
    """The module names of an import statement."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        yield node.module or ""


def _lambda_names(node: ast.AST):
    """The plain names `name = lambda ...` binds."""
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
        yield from (t for t in node.targets if isinstance(t, ast.Name))


def _call_parts(node: ast.Call) -> list[str] | None:
    parts = _dotted(node.func)
    return parts if parts and len(parts) >= 2 else None


# ------------------------------------------------------------------------------ patterns
# Each takes a subject and the scope, and returns the message of what it found, or None.


def _opaque_code_write(t, s: _Scope) -> str | None:
    if isinstance(t, ast.Attribute) and _dotted(t) is None and t.attr in _CODE_ATTRS | _FRAME_ATTRS:
        return f"assigns to `.{t.attr}` (rewrites code or frames)"
    return None


def _shell_write(t, s: _Scope) -> str | None:
    parts = _dotted(t) if isinstance(t, ast.Attribute) else None
    if parts and parts[0] in s.shell_names:
        return f"changes IPython's machinery (`{'.'.join(parts)} = ...`)"
    return None


def _dunder_write(t, s: _Scope) -> str | None:
    parts = _dotted(t) if isinstance(t, ast.Attribute) else None
    if parts and parts[0] not in s.shell_names and parts[-1] in _REWRITTEN_DUNDERS:
        return f"rewrites `{'.'.join(parts)}`"
    return None


def _module_write(t, s: _Scope) -> tuple[list[str], str] | None:
    """(target, module) of `module.attr = ...` (not the shell, not a dunder), or None."""
    parts = _dotted(t) if isinstance(t, ast.Attribute) else None
    if not parts or len(parts) < 2 or parts[0] in s.shell_names or parts[-1] in _REWRITTEN_DUNDERS:
        return None
    module = s.base_module(parts)
    return (parts, module) if module is not None else None


def _monkeypatch(t, s: _Scope) -> str | None:
    hit = _module_write(t, s)
    if hit and _attribute_is_callable(hit[1], hit[0][-1]):
        return f"monkeypatches `{'.'.join(hit[0])}` (module {hit[1]})"
    return None


def _module_setting(t, s: _Scope) -> str | None:
    hit = _module_write(t, s)
    if hit and not _attribute_is_callable(hit[1], hit[0][-1]):
        return f"changes the module setting `{'.'.join(hit[0])}`"
    return None


def _namespace_item_write(t, s: _Scope) -> str | None:
    parts = _dotted(t.value) if isinstance(t, ast.Subscript) else None
    if parts and (parts[-1] in {"modules", "__dict__", "__builtins__"} or parts[0] == "__builtins__"):
        return f"rewrites `{'.'.join(parts)}[...]`"
    return None


def _builtins_rebound(t, s: _Scope) -> str | None:
    return "rebinds `__builtins__`" if isinstance(t, ast.Name) and t.id == "__builtins__" else None


def _setattr_on_module(node: ast.Call, s: _Scope) -> str | None:
    name = node.func.id if isinstance(node.func, ast.Name) else None
    if name not in {"setattr", "delattr"} or not node.args:
        return None
    target = _dotted(node.args[0])
    if target and (target[0] in s.aliases or target[0] in s.shell_names or target[0] == "__builtins__"):
        return f"{name}() on `{'.'.join(target)}`"
    if isinstance(node.args[0], ast.Call):
        return f"{name}() on an imported object"
    return None


def _suspicious_call(node: ast.Call, s: _Scope) -> str | None:
    name = node.func.id if isinstance(node.func, ast.Name) else None
    return f"calls {name}()" if name in _SUSPICIOUS_CALLS else None


def _tamper_call(node: ast.Call, s: _Scope) -> str | None:
    parts = _call_parts(node)
    if parts is None:
        return None
    module = s.aliases.get(parts[0], parts[0])
    key = (module, parts[-1]) if len(parts) == 2 else (".".join([module, *parts[1:-1]]), parts[-1])
    return _TAMPER_CALLS.get(key)


def _shell_hook_call(node: ast.Call, s: _Scope) -> str | None:
    parts = _call_parts(node)
    if parts and parts[0] in s.shell_names and parts[1] in _SHELL_HOOKS:
        return f"changes IPython's machinery (`{'.'.join(parts)}(...)`)"
    return None


def _namespace_mutation(node: ast.Call, s: _Scope) -> str | None:
    parts = _call_parts(node)
    if parts is None or parts[-1] not in _MUTATORS:
        return None
    owner = parts[:-1]
    if owner[-1] in {"modules", "__dict__"} or owner[0] == "__builtins__":
        return f"rewrites `{'.'.join(owner)}`"
    return None


def _magic_call(node: ast.Call, s: _Scope) -> str | None:
    parts = _call_parts(node)
    if not parts or parts[0] not in s.shell_names or parts[1] not in _MAGIC_RUNNERS:
        return None
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant) and first.value in _RISKY_MAGICS:
        return f"runs the IPython magic %{first.value}"
    return None


def _frame_access(node: ast.Attribute, s: _Scope) -> str | None:
    if node.attr in _FRAME_ATTRS:
        return f"reaches into interpreter frames or closures (`.{node.attr}`)"
    return None


def _shell_access(node: ast.Attribute, s: _Scope) -> str | None:
    parts = _dotted(node)
    if node.attr not in _FRAME_ATTRS and parts and len(parts) > 1:
        if parts[0] in s.shell_names and parts[1] in _SHELL_HOOKS:
            return f"reaches IPython's machinery (`{'.'.join(parts)}`)"
    return None


def _sys_modules_read(node: ast.Attribute, s: _Scope) -> str | None:
    parts = _dotted(node)
    if node.attr in _FRAME_ATTRS or not parts or len(parts) != 2:
        return None
    if s.aliases.get(parts[0]) == "sys" and parts[1] == "modules":
        return "reads sys.modules"
    return None


#: PyTorch internals that switch off, or go around, the TorchFunctionMode with which grader.by_hand
#: refuses autograd inside a hand-written backward. No exercise needs any of them. (Not
#: DisableTorchFunctionSubclass: a tensor subclass's own __torch_function__ uses it, and modes stay on.)
_AUTOGRAD_ESCAPES = frozenset({
    "DisableTorchFunction", "_pop_mode", "_pop_torch_function_stack",
    "_push_on_torch_function_stack", "_set_torch_function_mode", "_get_function_stack_at",
    "_len_torch_function_stack", "_execution_engine", "_is_torch_function_mode_enabled",
})


def _autograd_escape(node: ast.Attribute | ast.Name, s: _Scope) -> str | None:
    name = node.attr if isinstance(node, ast.Attribute) else node.id
    if name in _AUTOGRAD_ESCAPES:
        return (f"reaches PyTorch's `{name}`, which would switch off the refusal of autograd "
                "inside hand-written backward passes")
    return None


def _tamper_import(mod: str, s: _Scope) -> str | None:
    return _TAMPER_MODULES.get(mod.split(".")[0])


def _suspicious_import(mod: str, s: _Scope) -> str | None:
    top = mod.split(".")[0]
    if not _TAMPER_MODULES.get(top) and top in {"importlib", "gc", "inspect", "builtins", "signal"}:
        return f"imports {mod}"
    return None


def _builtins_use(node: ast.Name, s: _Scope) -> str | None:
    return "uses `__builtins__`" if node.id == "__builtins__" else None


def _history_read(node: ast.Name, s: _Scope) -> str | None:
    if node.id in _HISTORY_NAMES or (node.id.startswith("_i") and node.id[2:].isdigit()):
        return f"reads the cell history (`{node.id}`), which holds the tests' code"
    return None


def _builtin_name_defined(node, s: _Scope) -> str | None:
    if node.name in BUILTIN_NAMES:
        return f"defines `{node.name}`, the name of a builtin"
    return None


def _builtin_name_bound(t: ast.Name, s: _Scope) -> str | None:
    if t.id in BUILTIN_NAMES:
        return f"binds a function to `{t.id}`, the name of a builtin"
    return None


# ------------------------------------------------------------------------------ the rule table


@dataclass(frozen=True)
class Rule:
    """`pattern(subject, scope)` -> a message, for every subject `subjects(node)` yields."""

    subjects: Callable[[ast.AST], Iterable]
    pattern: Callable[..., str | None]
    severity: str  # "tamper" or "suspicious"


_CALLS, _ATTRIBUTES, _NAMES = _nodes(ast.Call), _nodes(ast.Attribute), _nodes(ast.Name)
RULES: tuple[Rule, ...] = (
    # writes: np.allclose = ..., get_ipython().run_cell = ..., sys.modules[...] = ...
    Rule(_targets, _opaque_code_write, "tamper"),
    Rule(_targets, _shell_write, "tamper"),
    Rule(_targets, _dunder_write, "tamper"),
    Rule(_targets, _monkeypatch, "tamper"),
    Rule(_targets, _module_setting, "suspicious"),
    Rule(_targets, _namespace_item_write, "tamper"),
    Rule(_targets, _builtins_rebound, "tamper"),
    # calls
    Rule(_CALLS, _setattr_on_module, "tamper"),
    Rule(_CALLS, _suspicious_call, "suspicious"),
    Rule(_CALLS, _tamper_call, "tamper"),
    Rule(_CALLS, _shell_hook_call, "tamper"),
    Rule(_CALLS, _namespace_mutation, "tamper"),
    Rule(_CALLS, _magic_call, "suspicious"),
    # reads
    Rule(_ATTRIBUTES, _frame_access, "tamper"),
    Rule(_ATTRIBUTES, _shell_access, "tamper"),
    Rule(_ATTRIBUTES, _sys_modules_read, "suspicious"),
    Rule(_ATTRIBUTES, _autograd_escape, "tamper"),
    Rule(_imported, _tamper_import, "tamper"),
    Rule(_imported, _suspicious_import, "suspicious"),
    Rule(_NAMES, _builtins_use, "tamper"),
    Rule(_NAMES, _history_read, "suspicious"),
    Rule(_NAMES, _autograd_escape, "tamper"),
    # callables named like builtins
    Rule(_nodes(ast.FunctionDef, ast.ClassDef), _builtin_name_defined, "suspicious"),
    Rule(_lambda_names, _builtin_name_bound, "suspicious"),
)

#: The rules by the subjects they look at (every rule of a subject, then the next subject).
_RULE_GROUPS: dict[Callable, list[Rule]] = {}
for _rule in RULES:
    _RULE_GROUPS.setdefault(_rule.subjects, []).append(_rule)


def scan_cell(source: str, aliases: dict[str, str]) -> list[Finding]:
    """Everything in a student's cell that could tamper with the grading machinery (once each,
    in the order found)."""
    tree = parse(source)
    if tree is None:
        return []
    scope = _Scope(aliases, _shell_names(tree))
    found: dict[tuple[str, str], Finding] = {}
    for node in ast.walk(tree):
        for subjects, rules in _RULE_GROUPS.items():
            for subject in subjects(node):
                for rule in rules:
                    message = rule.pattern(subject, scope)
                    if message:
                        found.setdefault((rule.severity, message), Finding(rule.severity, message))
    return list(found.values())


