"""Integrity guard: executed *inside* the student's kernel by the grading worker.

Its source is sent to the kernel (silently: no output, no execution count, no history) once,
before the first cell, and executed there in a private namespace (not the notebook's), ending
with a call of `_bpg_install` (guard_host.install_code). It snapshots what the tests rely on and,
when the worker asks (before and after every graded cell, and at the end), reports what changed:

- attributes of the modules the tests use (numpy, math, torch, grader, builtins...) rebound, or
  objects defined by notebook code planted into them (`np.allclose = lambda *a, **k: True`);
- names bound by the instructor's locked cells and used by a graded cell (check_close, rel_error,
  np, helper functions...) rebound to other callables, and builtins shadowed by callables;
- IPython's execution machinery (AST/input transformers, event callbacks, custom exception
  handlers, run_cell and friends), `__builtins__` of the user namespace, sys.modules entries,
  trace and profile functions.

Every answer is signed with an HMAC key and a fresh nonce known only to the guard's closures and
the worker, so a replaced guard cannot answer "all clean". Code running in the same interpreter can
in principle defeat any in-process check (e.g. through ctypes or gc); the static scan of the
student's cells (tamper.py) flags those routes. See docs/instructors.md.

The worker calls, through `user_expressions` of silent executions:
    sys.modules[NAME].after(nonce, free, bound, check, rebase_hooks)  - after a trusted cell
    sys.modules[NAME].verify(nonce, names)  - around a graded cell (names: its free names)
    sys.modules[NAME].final(nonce)          - after the last cell
"""

import builtins as _b
import hashlib as _hashlib
import hmac as _hmac
import json as _json
import sys as _sys
import types as _types

# Bound at install time, before any student code runs: a patched builtin cannot redirect them.
_id, _type, _getattr, _isinstance, _repr = id, type, getattr, isinstance, repr
_vars, _sorted, _list, _dict, _str, _callable = vars, sorted, list, dict, str, callable
_hmac_new, _sha256, _dumps = _hmac.new, _hashlib.sha256, _json.dumps
_FunctionType, _ModuleType, _MethodType = _types.FunctionType, _types.ModuleType, _types.MethodType
_modules = _sys.modules
_MISSING = object()

VOLATILE = {
    # IPython puts get_ipython/exit/quit into builtins only while a cell runs
    "builtins": {"_", "__", "___", "input", "raw_input", "getpass", "get_ipython", "exit", "quit"},
    # `sys` attributes that change on their own while a kernel runs
    "sys": {
        "last_type",
        "last_value",
        "last_traceback",
        "last_exc",
        "ps1",
        "ps2",
        "stdout",
        "stderr",
        "stdin",
        "displayhook",
        "excepthook",
        "_last_exc",
        "_jupyter_sys",
    },
}
SHELL_HOOKS = (
    "run_cell",
    "run_cell_async",
    "run_ast_nodes",
    "run_code",
    "transform_cell",
    "transform_ast",
    "showtraceback",
    "_showtraceback",
    "showsyntaxerror",
    "set_custom_exc",
    "ex",
    "ev",
    "safe_execfile",
)


def _find_shell():
    try:
        from IPython.core.getipython import get_ipython

        return get_ipython()
    except Exception:
        return None


def _user_ns(shell):
    return shell.user_ns if shell is not None else _modules["__main__"].__dict__


def _code_of(obj, depth=0):
    if depth > 3:
        return None
    if _isinstance(obj, _MethodType):
        return _code_of(obj.__func__, depth + 1)
    if _isinstance(obj, _FunctionType):
        return obj.__code__
    func = _getattr(obj, "func", None)  # functools.partial
    if func is not None and func is not obj and _callable(func):
        return _code_of(func, depth + 1)
    return None


def _notebook_defined(obj, roots):
    """True when obj was made by notebook code (a cell), not by a library under `roots`."""
    try:
        code = _code_of(obj)
        if code is not None:
            name = code.co_filename
            return not (name.startswith(roots) or name.startswith("<"))
        if _isinstance(obj, _type):
            return _getattr(obj, "__module__", None) == "__main__"
        if _isinstance(obj, _ModuleType):
            return False
        return _getattr(_type(obj), "__module__", None) == "__main__"
    except Exception:
        return False


def _library_wrapper(value, old, attr):
    """A library re-wrapping its own function (torch wraps torch.manual_seed when
    torch._dynamo loads): library code, same name, or wrapping the original."""
    try:
        inner, depth = value, 0
        while inner is not None and depth < 6:
            if inner is old:
                return True
            inner, depth = _getattr(inner, "__wrapped__", None), depth + 1
        return _getattr(value, "__name__", None) == attr and _getattr(value, "__name__", None) == _getattr(
            old, "__name__", None
        )
    except Exception:
        return False


def _describe(obj):
    try:
        return _str(_getattr(obj, "__qualname__", None) or _type(obj).__name__)[:60]
    except Exception:
        return "?"


def _small(value):
    if _isinstance(value, (int, float, str, bool, _type(None))):
        return (_type(value).__name__, _repr(value)[:200])
    return None


def _hook_state(shell, ns):
    """Identities of IPython's execution machinery, trace/profile functions and __builtins__."""
    state = {
        "__builtins__": _id(ns.get("__builtins__")),
        "trace": _id(_sys.gettrace()),
        "profile": _id(_sys.getprofile()),
    }
    if shell is not None:
        for attr in ("ast_transformers", "input_transformers_cleanup", "input_transformers_post"):
            state[attr] = _sorted(_id(x) for x in _getattr(shell, attr, []))
        state["custom_exceptions"] = _sorted(_id(x) for x in _getattr(shell, "custom_exceptions", ()))
        state["CustomTB"] = _id(_getattr(shell, "CustomTB", None))
        events = _getattr(_getattr(shell, "events", None), "callbacks", {})
        state["events"] = {k: _sorted(_id(f) for f in v) for k, v in events.items()}
        inst = _getattr(shell, "__dict__", {})
        for attr in SHELL_HOOKS:
            state["shell." + attr] = _id(inst.get(attr))
            state["class." + attr] = _id(_getattr(_type(shell), attr, None))
    return state


def _module_findings(mod_name, mod_id, attrs, roots, tamper):
    """What changed in one watched module since its snapshot (appended to `tamper`)."""
    mod = _modules.get(mod_name)
    if mod is None:
        return
    if _id(mod) != mod_id:
        tamper.append(f"sys.modules[{mod_name!r}] was replaced")
        return
    try:
        current = _vars(mod)
    except TypeError:
        return
    skip = VOLATILE.get(mod_name, ())
    for attr, value in current.items():
        if attr in skip:
            continue
        if attr not in attrs:
            if _notebook_defined(value, roots):
                tamper.append(f"{mod_name}.{attr} was added by notebook code")
            continue
        old = attrs[attr]
        if old is value:
            continue
        if _notebook_defined(value, roots):
            tamper.append(f"{mod_name}.{attr} was replaced by notebook code (now {_describe(value)})")
        elif (_callable(old) or mod_name == "builtins") and not _library_wrapper(value, old, attr):
            tamper.append(f"{mod_name}.{attr} was replaced (now {_describe(value)})")
    for attr in attrs:
        if attr not in current and attr not in skip:
            tamper.append(f"{mod_name}.{attr} was deleted")


def _name_findings(names, ns, trusted, tamper, suspicious):
    """What student code did to the names a test reads (appended to `tamper` and `suspicious`)."""
    builtins_dict = _b.__dict__
    for name in names:
        value = ns.get(name, _MISSING)
        if name in trusted:
            old_id, was_callable, type_name, small = trusted[name]
            if value is _MISSING:
                continue  # the test will fail with a NameError by itself
            if _id(value) == old_id:
                continue
            if was_callable or _callable(value):
                tamper.append(f"`{name}`, used by the tests, was redefined (now {_describe(value)})")
            elif small is None or small != _small(value):
                suspicious.append(f"`{name}`, a value the tests use, was changed by student code")
        elif name in builtins_dict and value is not _MISSING and value is not builtins_dict[name]:
            if _callable(value):
                tamper.append(f"the builtin `{name}`, used by the tests, is shadowed by {_describe(value)}")


def _sign(key, nonce, payload):
    body = _dumps(payload, sort_keys=True)
    mac = _hmac_new(key, (nonce + body).encode(), _sha256).hexdigest()
    return _dumps({"body": body, "mac": mac})


def _watcher(watched, baselines):
    """A function that snapshots every watched module imported so far (once each)."""
    exact = {w for w in watched if not w.endswith(".*")}
    prefixes = tuple(w[:-1] for w in watched if w.endswith(".*"))

    def snapshot(name):
        mod = _modules.get(name)
        if mod is None or name in baselines:
            return
        try:
            attrs = _dict(_vars(mod))
        except TypeError:
            return
        baselines[name] = (_id(mod), attrs)  # the objects themselves (kept alive)

    def watch_new_modules():
        for name in _list(_modules):
            if name in exact or name.startswith(prefixes) or name + "." in prefixes:
                snapshot(name)

    snapshot("builtins")
    snapshot("sys")
    return watch_new_modules


def _bpg_install(token, key_hex, roots, watched):
    """Snapshot now, and register the guard as the module `sys.modules[token]`."""
    key = bytes.fromhex(key_hex)
    roots = tuple(roots)
    shell = _find_shell()
    baselines = {}  # module name -> (module id, {attr: object})
    trusted = {}  # user-namespace name -> (id, callable?, type name, small value repr)
    hooks_base = {}
    watch_new_modules = _watcher(watched, baselines)

    def findings(names):
        tamper, suspicious = [], []
        ns = _user_ns(shell)
        now = _hook_state(shell, ns)
        for k, v in hooks_base.items():
            if now.get(k) != v:
                tamper.append(f"the kernel's execution machinery was changed ({k})")
        for mod_name, (mod_id, attrs) in baselines.items():
            _module_findings(mod_name, mod_id, attrs, roots, tamper)
        _name_findings(names, ns, trusted, tamper, suspicious)
        return {"tamper": tamper, "suspicious": suspicious}

    def remember(names, rebase_hooks):
        """After a trusted cell: remember what it bound. Before any student code has run,
        what it set up in IPython (e.g. %matplotlib inline's hooks) is legitimate too."""
        ns = _user_ns(shell)
        if rebase_hooks:
            hooks_base.clear()
            hooks_base.update(_hook_state(shell, ns))
        for name in names:
            if name in ns:
                value = ns[name]
                callable_ = _callable(value) or _isinstance(value, _ModuleType)
                trusted[name] = (_id(value), callable_, _type(value).__name__, _small(value))
        watch_new_modules()

    def after(nonce, free, bound, check, rebase_hooks):
        """After a trusted cell: check what it used (if student code ran), then remember."""
        found = findings(free) if check else {"tamper": [], "suspicious": []}
        remember(bound, rebase_hooks)
        return _sign(key, nonce, found)

    def verify(nonce, names):
        return _sign(key, nonce, findings(names))

    def final(nonce):
        return _sign(key, nonce, findings([]))

    watch_new_modules()
    hooks_base.update(_hook_state(shell, _user_ns(shell)))
    guard = _ModuleType(token)
    guard.after, guard.verify, guard.final = after, verify, final
    _modules[token] = guard
    return "installed"
