"""The one trusted path from whatever a student's code returns to plain data.

A student's function may return anything: a NumPy array subclass whose `__sub__`, `__eq__`
and `__array_ufunc__` lie, a `float` subclass whose `__abs__` says 0, a dict whose
`__getitem__` makes things up. Every comparison the toolkit and the hidden tests make starts
here, so it only ever sees plain data:

- `as_float(value, what)` — an exact Python `float`;
- `as_array(value, what, shape=...)` — a fresh, writeable `np.ndarray` of float64 (not a
  subclass, not object dtype, a copy that shares no memory with the student's object);
- `as_items(value, what, count)` — the items of a returned tuple or list, read from its real
  storage (`tuple.__getitem__`, not an override);
- `as_dict(value, what, keys)` — a plain `dict` of `str` → float64 array, read with
  `dict.items` (not an override).

Values are read through the base types' own C slots (`float.__float__`, `int.__index__`,
`np.array(..., subok=False)`, which copies an ndarray subclass's buffer without calling its
Python methods), never through methods the object's class defines. When a value cannot be
turned into what was asked, a `BadReturnValue` (both a `CheckFailed` and a
`ToolkitInputError`) says what was expected and what came back.

`verify_environment()` — called by every public toolkit function — checks that the functions
the toolkit and the tests compute with (numpy's, math's, the builtins, the toolkit's own, and
the names the calling test cell uses) are still the ones bound when the toolkit was imported.
What in-process checks cannot rule out is listed in docs/instructors.md.
"""

from __future__ import annotations

import builtins
import math
import sys
from collections.abc import Iterable
from itertools import chain
from operator import call, is_not, itemgetter
from types import CodeType, ModuleType
from typing import Any

import numpy as np

from .errors import BadReturnValue, CheckFailed
from .i18n import _, ngettext

__all__ = [
    "as_array", "as_dict", "as_float", "as_items", "plain_items", "plain_ndarray", "verify_environment",
]

# Bound once, at import: later rebinding of the builtins or of numpy's attributes does not
# reach the conversions below (and verify_environment reports it).
_type, _issubclass, _len, _float, _int, _str = type, issubclass, len, float, int, str
_tuple_len, _tuple_getitem = tuple.__len__, tuple.__getitem__
_list_len, _list_getitem = list.__len__, list.__getitem__
_dict_items, _dict_len = dict.items, dict.__len__
_float_value, _int_value, _str_value = float.__float__, int.__index__, str.__str__
_np_array, _ndarray, _generic, _dtype = np.array, np.ndarray, np.generic, np.dtype
_array_dtype = np.ndarray.dtype.__get__
_array_shape = np.ndarray.shape.__get__
_FLOAT64 = np.dtype(np.float64)


# ----------------------------------------------------------------------------- conversion


def plain_ndarray(value: Any) -> np.ndarray | None:
    """`value` as a fresh plain ndarray with its real dtype, or None when it is not numeric data.

    Accepted: ndarrays and their subclasses (their buffer, copied), NumPy scalars, Python
    ints, floats and bools (subclasses read through the base type), torch tensors (detached,
    copied), and (nested) lists of plain numbers. Refused (None): None, tuples, dicts, strings,
    lists holding arrays, object-dtype arrays, anything else.
    """
    kind = _type(value)
    if _issubclass(kind, _ndarray):
        arr = _np_array(value, subok=False, copy=True)
    elif _issubclass(kind, bool):
        arr = _np_array(value is True)
    elif _issubclass(kind, float):
        arr = _np_array(_float_value(value), dtype=_FLOAT64)
    elif _issubclass(kind, int):
        arr = _np_array(_float(_int_value(value)), dtype=_FLOAT64)
    elif _issubclass(kind, _generic):
        if kind.__module__ != "numpy":
            return None
        arr = _np_array(value, subok=False, copy=True)
    elif _issubclass(kind, list):
        arr = _list_to_array(value)
    else:
        arr = _tensor_to_array(value)
    if arr is None or _array_dtype(arr).kind not in "biufc":
        return None
    return arr


def _list_to_array(value: list) -> np.ndarray | None:
    """A nested list of plain numbers as an array (Python ints become float64); else None."""
    leaves: list[Any] = []
    shape = _list_shape(value, leaves)
    if shape is None:
        return None
    if leaves and all(_type(v) is _int for v in leaves):
        leaves = [_float(v) for v in leaves]
    arr = _np_array(leaves)
    return arr.reshape(shape) if arr.size == math.prod(shape) else None


def _list_shape(value: Any, leaves: list[Any]) -> tuple[int, ...] | None:
    """The shape of a rectangular nested list, collecting its leaves as plain numbers."""
    if not _issubclass(_type(value), list):
        scalar = plain_ndarray(value) if not _issubclass(_type(value), _ndarray) else None
        if scalar is None or scalar.ndim != 0:
            return None
        leaves.append(scalar[()])
        return ()
    n = _list_len(value)
    shapes = [_list_shape(_list_getitem(value, i), leaves) for i in range(n)]
    if any(s is None for s in shapes) or _len(set(shapes)) > 1:
        return None
    return (n, *(shapes[0] if shapes else ()))


def _tensor_to_array(value: Any) -> np.ndarray | None:
    torch = sys.modules.get("torch")
    if torch is None or not _issubclass(_type(value), torch.Tensor):
        return None
    try:
        # With subclass overrides switched off, detach/cpu/numpy are torch's own.
        with torch._C.DisableTorchFunctionSubclass():
            base = torch.Tensor.cpu(torch.Tensor.detach(value))
            if base.is_complex() or base.dtype == torch.bfloat16:
                return None
            return _np_array(torch.Tensor.numpy(base), subok=False, copy=True)
    except (RuntimeError, TypeError, AttributeError):
        return None


def as_array(
    value: Any, what: str, *, shape: tuple[int, ...] | None = None, float64: bool = False
) -> np.ndarray:
    """`value` as a fresh float64 ndarray, or BadReturnValue naming `what`.

    Inputs: value — what a student's code returned; what — how to name it in a message
    ("affine_forward's out"); shape — the shape it must have (None: any); float64 — refuse
    other dtypes (int, bool, float32) instead of converting them.
    Returns: a new plain float64 array of the value's shape.
    """
    __tracebackhide__ = True
    verify_environment()
    return _as_array(value, what, shape, float64)


def _as_array(value: Any, what: str, shape: tuple[int, ...] | None, float64: bool) -> np.ndarray:
    """as_array without the environment check (for callers that made it already)."""
    __tracebackhide__ = True
    arr = plain_ndarray(value)
    if shape == ():
        wanted = _("one number")
    else:
        wanted = _("one array of shape {shape}").format(shape=_fmt_shape(shape)) if shape else _("one array")
    if arr is None:
        raise BadReturnValue(_("{what} must be {wanted}, but it is {got}.").format(
            what=what, wanted=wanted, got=_describe(value)))
    if _array_dtype(arr).kind == "c":
        raise BadReturnValue(_("{what} must hold real numbers, but it has the complex dtype {dtype}.").format(
            what=what, dtype=arr.dtype))
    if float64 and _array_dtype(arr) != _FLOAT64:
        raise BadReturnValue(
            _("{what} must be a float64 array, but it has dtype {dtype}; keep everything in "
              "float64 (e.g. np.zeros(shape), .astype(np.float64)).").format(what=what, dtype=arr.dtype)
        )
    if shape is not None and _array_shape(arr) != tuple(shape):
        raise BadReturnValue(_("{what} must be {wanted}, but it has shape {got}.").format(
            what=what, wanted=wanted, got=_fmt_shape(_array_shape(arr))))
    return arr.astype(_FLOAT64, copy=_array_dtype(arr) != _FLOAT64)


def as_float(value: Any, what: str) -> float:
    """`value` as an exact Python float (a number or a 0-d array), or BadReturnValue."""
    __tracebackhide__ = True
    arr = as_array(value, what, shape=())
    return _float(arr[()])


def plain_items(value: Any) -> tuple[Any, ...] | None:
    """The items of a tuple or list (or a subclass), read from its real storage; else None."""
    kind = _type(value)
    if _issubclass(kind, tuple):
        return tuple(_tuple_getitem(value, i) for i in range(_tuple_len(value)))
    if _issubclass(kind, list):
        return tuple(_list_getitem(value, i) for i in range(_list_len(value)))
    return None


def as_items(value: Any, what: str, count: int, names: Iterable[str] = ()) -> tuple[Any, ...]:
    """The `count` items of a tuple or list (read from its real storage), or BadReturnValue.

    An ndarray whose first axis has `count` entries gives them (a plain copy, row by row).

    names — what the items are ("dx", "dw", "db"), for the message.
    """
    __tracebackhide__ = True
    verify_environment()
    labels = ", ".join(names)
    expected = (_("{count} items ({labels})").format(count=count, labels=labels) if labels
                else _("{count} items").format(count=count))
    items = plain_items(value)
    if items is None and _issubclass(_type(value), _ndarray):
        stacked = plain_ndarray(value)  # (dx, dw, db) stacked into one array is fine too
        if stacked is not None and stacked.ndim >= 1:
            items = tuple(stacked[i] for i in range(stacked.shape[0]))
    if items is None:
        hint = _(" — did you forget `return`?") if value is None else ""
        raise BadReturnValue(_("{what} must be a tuple of {expected}, but it is {got}{hint}.").format(
            what=what, expected=expected, got=_describe(value), hint=hint))
    n = _len(items)
    if n != count:
        raise BadReturnValue(ngettext(
            "{what} must be a tuple of {expected}, but it has {n} item.",
            "{what} must be a tuple of {expected}, but it has {n} items.", n).format(
            what=what, expected=expected, n=n))
    return items


def as_dict(value: Any, what: str, keys: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """A plain dict of str → fresh float64 array, read with dict.items; or BadReturnValue.

    keys — the keys it must have, exactly (None: any string keys).
    """
    __tracebackhide__ = True
    verify_environment()
    if not _issubclass(_type(value), dict):
        raise BadReturnValue(_("{what} must be a dict of name → array, but it is {got}.").format(
            what=what, got=_describe(value)))
    plain: dict[str, np.ndarray] = {}
    for key, item in _dict_items(value):
        if not _issubclass(_type(key), str):
            raise BadReturnValue(_("{what} must have string keys, but one key is {got}.").format(
                what=what, got=_describe(key)))
        name = _str_value(key)
        plain[name] = _as_array(item, f"{what}[{name!r}]", None, False)
    if keys is not None:
        wanted = sorted(keys)
        if sorted(plain) != wanted:
            raise BadReturnValue(_("{what} must have exactly the keys {wanted}, but it has {keys}.").format(
                what=what, wanted=wanted, keys=sorted(plain)))
    return plain


def _fmt_shape(shape: tuple[int, ...]) -> str:
    return _("() (a scalar)") if tuple(shape) == () else str(tuple(_int(n) for n in shape))


def _describe(value: Any) -> str:
    """What a value is, read from its type and real storage (never its own methods)."""
    kind = _type(value)
    if value is None:
        return "None"
    if _issubclass(kind, _ndarray):
        return _("an array of shape {shape} and dtype {dtype}").format(
            shape=_fmt_shape(_array_shape(value)), dtype=_array_dtype(value))
    items = plain_items(value)
    if items is not None:
        plain = [plain_ndarray(item) for item in items]
        arrays = bool(items) and all(a is not None and a.ndim > 0 for a in plain)
        count = len(items)
        if kind is tuple:
            text = (ngettext("a tuple of {count} array", "a tuple of {count} arrays", count) if arrays
                    else ngettext("a tuple of {count} item", "a tuple of {count} items", count))
        elif kind is list:
            text = (ngettext("a list of {count} array", "a list of {count} arrays", count) if arrays
                    else ngettext("a list of {count} item", "a list of {count} items", count))
        elif arrays:
            text = ngettext("a {kind} of {count} array", "a {kind} of {count} arrays", count)
        else:
            text = ngettext("a {kind} of {count} item", "a {kind} of {count} items", count)
        return text.format(kind=kind.__name__, count=count)
    if _issubclass(kind, bool | np.bool_):
        return _("the bool {value}").format(value=bool(plain_ndarray(value)[()]))
    arr = plain_ndarray(value)
    if arr is not None and arr.ndim == 0:
        return _("the number {value} (a {type})").format(
            value=f"{_float(arr.real[()]):.6g}", type=kind.__name__)
    if arr is not None:
        return _("a {type} of shape {shape}").format(type=kind.__name__, shape=_fmt_shape(_array_shape(arr)))
    return _("a {type}").format(type=kind.__name__)


# ----------------------------------------------------------------------------- integrity

_WATCHED = ("builtins", "math", "numpy", "numpy.linalg", "numpy.random")
#: Builtins that IPython binds and unbinds by itself while a kernel runs.
_VOLATILE = {"_", "__", "___", "get_ipython", "exit", "quit", "display", "input", "raw_input",
             "getpass", "help", "copyright", "credits", "license", "__IPYTHON__"}
_snapshots: dict[str, tuple[ModuleType, dict[str, Any]]] = {}
#: Per watched module, flattened so that one C-level pass compares them all (`_nothing_rebound`):
#: its name, the module, its __dict__, an itemgetter reading the attributes it had at its snapshot,
#: and those attributes' objects then.
_flat: dict[str, list] = {"names": [], "modules": [], "dicts": [], "readers": [], "objects": []}
_exports: dict[str, Any] = {}


def _snapshot(names: Iterable[str]) -> None:
    for name in names:
        module = sys.modules.get(name)
        if module is not None and name not in _snapshots:
            items = {k: v for k, v in vars(module).items()
                     if not (name == "builtins" and k in _VOLATILE)}
            _snapshots[name] = (module, items)
            keys = list(items) * 2 if len(items) == 1 else list(items)  # itemgetter(k) gives no tuple
            if not keys:
                continue
            _flat["names"].append(name)
            _flat["modules"].append(module)
            _flat["dicts"].append(vars(module))
            _flat["readers"].append(itemgetter(*keys))
            _flat["objects"].extend(items[k] for k in keys)


def _nothing_rebound(_any=any, _map=map, _is_not=is_not, _chain=chain.from_iterable, _call=call) -> bool:
    """Whether every watched module is still in sys.modules and every attribute it had at its
    snapshot is still the same object: C-level passes (map, itemgetter, operator.is_not), since
    this runs thousands of times per graded cell. The functions it uses are bound when it is
    defined, so rebinding them later changes nothing."""
    flat = _flat
    if _any(_map(_is_not, _map(sys.modules.get, flat["names"]), flat["modules"])):
        return False
    try:
        now = _chain(_map(_call, flat["readers"], flat["dicts"]))
        return not _any(_map(_is_not, now, flat["objects"]))
    except KeyError:  # an attribute was deleted
        return False


def seal(package: ModuleType) -> None:
    """Remember the toolkit's own modules and exported names (called once, by grader/__init__)."""
    _snapshot(_WATCHED)
    _snapshot(sorted(n for n in sys.modules if n == package.__name__ or n.startswith(package.__name__ + ".")
                     and not n.startswith(package.__name__ + ".instructor")))
    _exports.update({k: getattr(package, k) for k in package.__all__})
    _exports["np"] = np
    _exports["numpy"] = np


def environment_changes(frame: Any = None) -> list[str]:
    """What was rebound since import: module attributes, and names the caller's code uses."""
    changes = []
    for name, (module, items) in ([] if _nothing_rebound() else _snapshots.items()):
        if sys.modules.get(name) is not module:
            changes.append(_("sys.modules[{name}] was replaced").format(name=repr(name)))
            continue
        current = vars(module)
        for attr, obj in items.items():
            now = current.get(attr, _MISSING)
            if now is not obj:
                changes.append((_("{name}.{attr} was deleted") if now is _MISSING
                                else _("{name}.{attr} was replaced")).format(name=name, attr=attr))
    if frame is not None:
        changes += _shadowed_names(frame)
    return changes


def _shadowed_names(frame: Any) -> list[str]:
    """Names the calling cell uses that now point elsewhere than the toolkit, numpy or builtins."""
    changes = []
    namespace = frame.f_globals
    if namespace.get("__name__") != "__main__":
        return changes
    for name in _code_names(frame.f_code):
        if name not in namespace:
            continue
        bound = namespace[name]
        if name in _exports and bound is not _exports[name]:
            changes.append(_("`{name}`, which the tests use, was redefined").format(name=name))
        elif name in _BUILTIN_CALLABLES and callable(bound) and bound is not _BUILTIN_CALLABLES[name]:
            changes.append(_("the builtin `{name}`, which the tests use, is shadowed by another "
                             "function").format(
                name=name))
    return changes


def _code_names(code: CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _code_names(const)
    return names


_BUILTIN_CALLABLES = {k: v for k, v in vars(builtins).items() if callable(v) and k not in _VOLATILE}
_MISSING = object()


def verify_environment() -> None:
    """Raise CheckFailed when something the comparisons rely on was rebound since import."""
    __tracebackhide__ = True
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(__package__):
        frame = frame.f_back
    changes = environment_changes(frame)
    if changes:
        more = _("; and {n} more").format(n=len(changes) - 5) if len(changes) > 5 else ""
        listed = "; ".join(changes[:5]) + more
        raise CheckFailed(
            _("The checks cannot be trusted in this kernel: {listed}. Code in the notebook changed "
              "functions that the checks compute with. Remove that code, restart the kernel and run "
              "the notebook from the top.").format(listed=listed)
        )
