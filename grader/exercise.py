"""One declaration per exercise, and the one graded call every check makes.

A lesson's setup cell declares its exercises once, before the student meets the first one:

    graded = Exercises(globals(),
        Exercise("huber_loss"),                                   # NumPy only, inputs unchanged
        Exercise("gradient_errors", may_call=("eval_numerical_gradient",)),   # a referee it may use
        Exercise("StableSoftplus", uses="torch"),                 # PyTorch forwards, no autograd
        Exercise("sgd", changes=("w", "config")),                 # CS231n updates w in place
    )

and every check of an exercise, the visible one and the hidden tests alike, calls the student's
function through that declaration, so that a rule the brief states is enforced wherever a grade
is given:

    loss, dpred = graded.huber_loss(pred, target)       # the notebook's huber_loss, now
    with graded.running("FixedNet"):                    # a class, a method, a callback: the block
        _, grads = net.loss(X, y)

While the student's code runs:

- `uses="numpy"` (the default): every PyTorch function is refused, whatever name reached it;
  `uses="torch"`: PyTorch computes forwards, and its autograd is refused (grader.by_hand);
  `uses="any"`: PyTorch is not watched.
- every **referee** is refused: the functions the toolkit and the lessons check answers with
  (marked by `referee`), and the functions of the notebook the exercise names in `must_not_call`
  (a locked cell's reference, the loop version of a vectorised exercise). They are recognised by
  their code, so no other name, alias or import reaches them. A referee the exercise lists in
  `may_call` runs trusted (lesson 06's network calls the course's layers), until it calls the
  student's code back.
- the calls and lines it runs are counted where the brief sets a number, and the memory it holds;
- the watch (grader/watch.py) cannot be switched off, handed out or escaped by a thread unnoticed.

Afterwards every argument is compared with a copy taken before the call, except the ones the
exercise lists in `changes`: an argument changed in place is named ("huber_loss changed its
argument pred in place"). A refusal or a changed input prints its ✗ line and hint (codes
`forbidden-call`, `autograd-by-hand`, `input-modified`, `call-count`, `not-vectorised`,
`too-much-memory`) and raises a `CheckFailed`, so the cell scores nothing, even when the student's
code caught the refusal and carried on.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Literal

import numpy as np

from .by_hand import _refuse
from .errors import CheckFailed, ToolkitInputError
from .i18n import _
from .referees import codes_of
from .watch import watched

__all__ = ["Exercise", "Exercises", "InputModified", "UnknownExercise"]

Uses = Literal["numpy", "torch", "any"]

class UnknownExercise(ToolkitInputError, AttributeError):
    """`graded.<name>` for a name the lesson does not declare (an AttributeError too, so that
    hasattr and a variable inspector work)."""


class InputModified(CheckFailed):
    """A graded function changed one of its arguments in place."""


@dataclass(frozen=True)
class Exercise:
    """What one exercise's brief promises, declared once (module docstring).

    - name: the notebook name of the student's function or class;
    - uses: "numpy" (every PyTorch function refused), "torch" (autograd refused) or "any";
    - must_not_call: notebook names the brief forbids, with the reason shown when one is called
      (a tuple of names takes the default reason, "one of the course's references");
    - may_call: referees the student's code may call, trusted, by the name the notebook binds them
      to (lesson 06's course layers; a name bound to the student's own function trusts nothing);
    - changes: the arguments the function may change in place (CS231n's optimisers update w and
      config); every other argument must come back unchanged;
    - torch_refused: with uses="torch", the PyTorch functions (by name: "softplus") that would be
      the answer itself;
    - calls: notebook functions the brief says to call, and how often: {"attention_forward": 1}, or
      (least, most) ("call your six steps": {"exp_backward": (1, 1), ...});
    - max_lines: "vectorised", "no loops", "one expression": the most lines of notebook code the call
      may run (its own and the notebook functions it calls), counted as Python runs them, so a loop
      over the entries of its input exceeds it; max_lines_reason: what the brief asks, shown when
      the budget is exceeded (default: array operations, not Python loops);
    - max_bytes: "without building the (N, C, C) Jacobian": the most memory (bytes, traced with
      tracemalloc) the call may hold at once.
    """

    name: str
    uses: Uses = "numpy"
    must_not_call: dict[str, str] | tuple[str, ...] = ()
    may_call: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()
    torch_refused: tuple[str, ...] = ()
    calls: dict[str, int | tuple[int, int]] = field(default_factory=dict)
    max_lines: int | None = None
    max_lines_reason: str = ""
    max_bytes: int | None = None

    def __post_init__(self) -> None:
        if self.uses not in ("numpy", "torch", "any"):
            raise ToolkitInputError(f"Exercise({self.name!r}): uses must be 'numpy', 'torch' or 'any', "
                                    f"got {self.uses!r}")
        for name in ("may_call", "changes", "torch_refused"):
            if isinstance(getattr(self, name), str):
                raise ToolkitInputError(f"Exercise({self.name!r}): {name} is a tuple of names, "
                                        f"got the string {getattr(self, name)!r}")

    def reasons(self) -> dict[str, str]:
        """must_not_call as name -> reason ("": the default, the watch's REFEREE_MESSAGE)."""
        if isinstance(self.must_not_call, dict):
            return dict(self.must_not_call)
        return dict.fromkeys(self.must_not_call, "")


# ----------------------------------------------------------------------------- inputs unchanged


def _copy(value: Any, depth: int = 0) -> Any:
    """A copy of every array inside value (tuples, lists and dicts of them, three levels deep);
    other values as they are."""
    if isinstance(value, np.ndarray):
        return np.array(value, copy=True, subok=False)
    if depth < 3 and type(value) in (tuple, list):
        return type(value)(_copy(item, depth + 1) for item in value)
    if depth < 3 and type(value) is dict:
        return {key: _copy(item, depth + 1) for key, item in value.items()}
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return value.detach().clone()
    return value


def _same(before: Any, after: Any, depth: int = 0) -> bool:
    """Whether `after` still holds what `_copy` saw (arrays equal entry by entry, NaN included)."""
    if isinstance(before, np.ndarray):
        if not isinstance(after, np.ndarray) or after.shape != before.shape:
            return False
        try:
            return bool(np.array_equal(np.array(after, subok=False), before,
                                       equal_nan=before.dtype.kind in "fcmM"))
        except (TypeError, ValueError):     # an object array of arrays: not one the checks compare
            return True
    if depth < 3 and type(before) in (tuple, list):
        return (type(after) is type(before) and len(after) == len(before)
                and all(_same(b, a, depth + 1) for b, a in zip(before, after, strict=True)))
    if depth < 3 and type(before) is dict:
        return (type(after) is dict and after.keys() == before.keys()
                and all(_same(before[k], after[k], depth + 1) for k in before))
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(before, torch.Tensor):
        if not isinstance(after, torch.Tensor) or after.shape != before.shape:
            return False
        after = after.detach()
        same = after == before
        if before.is_floating_point() or before.is_complex():
            same |= after.isnan() & before.isnan()
        return bool(same.all())
    if type(before) in _PLAIN:        # a number or a string in a dict (conv_param["pad"])
        return type(after) is type(before) and (after == before or before != before and after != after)
    return True


#: the values _same compares by value (their own ==, which a student's object cannot replace)
_PLAIN = (int, float, bool, str, type(None))


def _argument_names(fn: Any, args: tuple, kwargs: dict) -> list[tuple[str, Any]]:
    """(parameter name, value) for every argument of the call, by fn's signature where it has one."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return [(f"#{i + 1}", a) for i, a in enumerate(args)] + list(kwargs.items())
    named = []
    for name, value in bound.arguments.items():
        kind = bound.signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            named += [(f"{name}[{i}]", v) for i, v in enumerate(value)]
        elif kind is inspect.Parameter.VAR_KEYWORD:
            named += list(value.items())
        else:
            named.append((name, value))
    return named


def _check_unchanged(label: str, saved: list[tuple[str, Any, Any]]) -> None:
    __tracebackhide__ = True
    for name, value, before in saved:
        if not _same(before, value):
            raise _refuse(InputModified, label, _("changed its argument {name} in place").format(name=name),
                          _("the checks, and the code that called yours, still need the {name} they "
                            "passed; leave it as it is and build new arrays").format(name=name),
                          "input-modified")


# ----------------------------------------------------------------------------- the declaration


class Exercises:
    """A lesson's exercises, declared once; `graded.<name>(...)` calls the notebook's function of
    that name under its rules (module docstring)."""

    def __init__(self, namespace: MutableMapping[str, Any], *exercises: Exercise) -> None:
        names = [e.name for e in exercises]
        if len(set(names)) != len(names):
            raise ToolkitInputError(f"Exercises: an exercise is declared twice: {names}")
        self._namespace = namespace
        self._declared = {e.name: e for e in exercises}
        # every code object the declared and forbidden names were bound to at a graded call
        self._names = set(self._declared) | {n for e in exercises for n in e.reasons()}
        self._seen: dict[str, dict[int, CodeType]] = {name: {} for name in self._names}

    def _remember(self) -> dict[str, list[CodeType]]:
        """Note what each name is bound to now; return every code object each was ever bound to."""
        for name in self._names:
            self._seen[name].update((id(code), code) for code in codes_of(self._namespace.get(name)))
        return {name: list(codes.values()) for name, codes in self._seen.items()}

    def __iter__(self) -> Iterator[Exercise]:
        return iter(self._declared.values())

    def declaration(self, name: str) -> Exercise:
        if name not in self._declared:
            raise ToolkitInputError(f"{name} is not one of this lesson's exercises: "
                                    f"{', '.join(self._declared)}")
        return self._declared[name]

    def student(self, name: str) -> Any:
        """What the notebook binds to `name` now (a message, not a KeyError, when nothing does)."""
        self.declaration(name)
        if name not in self._namespace:
            message = _("{name} is not defined: run the cell where you wrote it, then this one")
            raise CheckFailed(message.format(name=name))
        return self._namespace[name]

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """`graded.<name>`: a function that calls the notebook's `name` graded (it can be called at
        once, or handed to a check or a training loop that calls it later)."""
        if name.startswith("_") or name not in self._declared:
            declared = ", ".join(self._declared)
            raise UnknownExercise(f"{name} is not one of this lesson's exercises: {declared}")

        def graded_call(*args: Any, **kwargs: Any) -> Any:
            __tracebackhide__ = True
            return self.call(name, *args, **kwargs)

        graded_call.__name__ = graded_call.__qualname__ = name
        return graded_call

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """The notebook's `name`(*args, **kwargs) under its exercise's rules, its inputs checked."""
        __tracebackhide__ = True
        exercise, fn = self.declaration(name), self.student(name)
        saved = [(arg, value, _copy(value)) for arg, value in _argument_names(fn, args, kwargs)
                 if arg not in exercise.changes]
        with watched(name, exercise, self._namespace, self._remember()):
            result = fn(*args, **kwargs)
        _check_unchanged(name, saved)
        return result

    @contextmanager
    def running(self, name: str, label: str | None = None) -> Iterator[None]:
        """The block runs under exercise `name`'s rules (for a class's methods, or a function the
        check calls through a helper); inputs are not compared here."""
        __tracebackhide__ = True
        with watched(label or name, self.declaration(name), self._namespace, self._remember()):
            yield

    @contextmanager
    def calling_back(self, name: str, label: str | None = None) -> Iterator[None]:
        """The block is the check's own (PyTorch's autograd included) and the library it calls runs
        the student's code back (autograd running a Function's backward): the student's code, and
        only it, runs under exercise `name`'s rules."""
        __tracebackhide__ = True
        rules = self.declaration(name)
        with watched(label or name, rules, self._namespace, self._remember(), check_drives=True):
            yield
