"""Referees: the functions that judge an exercise, which no graded call may use as its answer.

The toolkit's numerical gradients, the lessons' reference implementations and a locked cell's
reference are marked once, where they are defined:

    @referee
    def eval_numerical_gradient(f, x, h=1e-5): ...

`grader.exercise` refuses a marked function while a student's function runs for a grade, unless
that exercise lists it in `may_call`. A referee is recognised by its code object, so an alias,
another import or a copy of the function object reaches the same refusal; nothing wraps it, so
there is nothing to unwrap.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType, FunctionType, MappingProxyType
from typing import Any

__all__ = ["REFEREES", "codes_of", "referee", "referee_all", "referee_name", "refereeing"]

# id(code) -> (code, the referee's name), for every function marked with `referee`: keyed by
# identity, since code objects compare by value (a student's dataclass would equal a toolkit one)
# and hashing one could run a student's __hash__; the code is kept, so its id stays its own.
_REFEREES: dict[int, tuple[CodeType, str]] = {}
#: a read-only view of the registry
REFEREES = MappingProxyType(_REFEREES)


def referee_name(code: CodeType) -> str | None:
    """The name `code` is a referee under, or None."""
    entry = _REFEREES.get(id(code))
    return entry[1] if entry is not None and entry[0] is code else None


def codes_of(obj: Any) -> Iterator[CodeType]:
    """The code objects of a function (the one it wraps, for a functools.wraps decorator), of a
    class's methods (its own, and those inherited from classes of the same module), of a
    staticmethod, classmethod or property, or of a bound method."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        for part in (obj.fget, obj.fset, obj.fdel):
            if part is not None:
                yield from codes_of(part)
        return
    if inspect.ismethod(obj):
        obj = obj.__func__
    if isinstance(obj, FunctionType):
        obj = inspect.unwrap(obj)       # a decorator's wrapper shares its code with other functions
        yield obj.__code__
    elif isinstance(obj, type):
        # its own methods and those it inherits from classes of its own module: never those of a
        # library base (collections.abc.Mapping's mixins serve every mapping in the kernel)
        for klass in obj.__mro__[:-1]:
            if klass is obj or klass.__module__ == obj.__module__:
                for member in vars(klass).values():
                    if isinstance(member, (FunctionType, staticmethod, classmethod, property)):
                        yield from codes_of(member)


def referee(obj: Any = None, *, name: str | None = None) -> Any:
    """Mark a function, or every method of a class, as a referee (module docstring) and return it
    unchanged: `@referee`, `@referee(name="...")` or `referee(fn)`."""
    if obj is None:
        return functools.partial(referee, name=name)
    label = name or getattr(obj, "__name__", repr(obj))
    for code in codes_of(obj):
        _REFEREES.setdefault(id(code), (code, label))
    return obj


def referee_all(namespace: dict[str, Any]) -> None:
    """Mark every function and class a module defines as a referee: `referee_all(globals())` at the
    end of a lesson's checks or references (its hints compute right answers too)."""
    name = namespace["__name__"]
    for obj in list(namespace.values()):
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == name:
            referee(obj)


@contextmanager
def refereeing() -> Iterator[None]:
    """The body of a referee that computes with PyTorch and is given to students as a building block
    (lesson 06's layers, lesson 12's layer norm): a graded call's refusal of PyTorch does not apply
    inside it, since the call reached it only if its exercise allows it (`may_call`); otherwise the
    referee was refused before its body ran."""
    import torch

    with torch._C.DisableTorchFunction():
        yield


referee(refereeing)    # a student's own `with refereeing():` would switch the PyTorch guard off
