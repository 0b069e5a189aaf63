"""One declaration per exercise, and the one graded call every check makes.

A lesson's setup cell declares its exercises once, before the student meets the first one:

    graded = Exercises(globals(),
        Exercise("huber_loss"),                                   # NumPy only, inputs unchanged
        Exercise("huber_fit", may_call=("huber_loss",)),
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
  `may_call` runs, trusted: nothing is refused inside it (lesson 06's network calls the course's
  layers).
- the trace hook that watches this cannot be switched off unnoticed.

Afterwards every argument is compared with a copy taken before the call, except the ones the
exercise lists in `changes`: an argument changed in place is named ("huber_loss changed its
argument pred in place"). A refusal or a changed input prints its ✗ line and hint (codes
`forbidden-call`, `autograd-by-hand`, `input-modified`) and raises a `CheckFailed`, so the
cell scores nothing, even when the student's code caught the refusal and carried on.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import tracemalloc
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from types import CodeType
from typing import Any, Literal

import numpy as np

from .by_hand import AUTOGRAD_MESSAGE, AutogradForbidden, ForbiddenCall, _refuse, _torch_intact
from .errors import CheckFailed, ToolkitInputError
from .i18n import N_, _
from .referees import REFEREES, codes_of

__all__ = ["Exercise", "Exercises", "InputModified"]

Uses = Literal["numpy", "torch", "any"]

TORCH_MESSAGE = N_("this exercise is written in NumPy: PyTorch is the referee of the checks, not the "
                   "answer")
REFEREE_MESSAGE = N_("{referee} is one of the course's references: it judges this exercise, it cannot "
                     "answer it")
HOOK_MESSAGE = N_("the grader watches the calls your function makes; code that switches that off "
                  "cannot be graded")

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
        """must_not_call as name -> reason (None: the default, said by REFEREE_MESSAGE)."""
        if isinstance(self.must_not_call, dict):
            return dict(self.must_not_call)
        return dict.fromkeys(self.must_not_call, "")


# ----------------------------------------------------------------------------- the watch



def _hook_stand_in(*args: Any) -> None:
    """What sys.settrace and sys.setprofile are while a graded call runs: the watch sees this
    Python function called (a C function it could not see), and refuses it."""


_STAND_INS = dict.fromkeys(("settrace", "setprofile"), _hook_stand_in)
#: the ways to install another hook that the watch refuses (sys's C functions are replaced by
#: stand-ins while it runs; backprop-grade's static scan flags every call to them, and a hook
#: found replaced when the call ends is refused too).
_SWITCHES = frozenset({threading.settrace.__code__, threading.setprofile.__code__, _hook_stand_in.__code__})


class _Watch:
    """The trace hook of one graded call: refuses referees by code, trusts allowed ones, counts the
    calls the exercise asks for and, with a line budget, the lines of notebook code it runs."""

    def __init__(self, label: str, refused: dict[CodeType, tuple[str, str]], trusted: set[CodeType],
                 counted: dict[CodeType, str], notebook_dir: str | None) -> None:
        self.label, self.refused, self.trusted_codes, self.counted = label, refused, trusted, counted
        self.watched = frozenset(refused) | frozenset(trusted) | frozenset(counted) | _SWITCHES
        self.calls = dict.fromkeys(counted.values(), 0)
        self.notebook_dir, self.lines = notebook_dir, 0      # a line budget: count notebook lines
        self._is_notebook: dict[CodeType, bool] = {}
        self.inside_trusted: list[Any] = []   # frames of the allowed referees now running
        self.violation: CheckFailed | None = None
        self.closing = False     # set before the watch itself calls sys.settrace to leave

    @property
    def trusting(self) -> bool:
        return bool(self.inside_trusted)

    def fail(self, error: CheckFailed) -> CheckFailed:
        """Remember the first refusal (shown once), and return it to raise."""
        if self.violation is None:
            self.violation = error
        return self.violation

    def _notebook(self, code: CodeType) -> bool:
        known = self._is_notebook.get(code)
        if known is None:
            known = self._is_notebook[code] = os.path.dirname(code.co_filename) == self.notebook_dir
        return known

    def __call__(self, frame: Any, event: str, arg: Any) -> Any:
        """The global trace function: sees every Python call (C calls cost nothing); returns a local
        trace function for a trusted referee's frame (to see it return) and, with a line budget, for
        notebook code (to count its lines)."""
        code = frame.f_code
        if self.closing or self.inside_trusted:
            return None
        if code not in self.watched:
            if self.notebook_dir is not None and self._notebook(code):
                return self._count_line
            return None
        if code in self.trusted_codes:
            self.inside_trusted.append(frame)
            frame.f_trace_lines = False
            return self._leave
        if code in self.counted:
            self.calls[self.counted[code]] += 1
            return self._count_line if self.notebook_dir is not None else None
        if code in self.refused:
            referee_name, reason = self.refused[code]
            message = (_("this exercise asks you not to call {name} ({reason})").format(
                name=referee_name, reason=reason) if reason
                else _(REFEREE_MESSAGE).format(referee=referee_name))
            raise self.fail(_refuse(ForbiddenCall, self.label, _("called {name}").format(
                name=referee_name), message, "forbidden-call"))
        raise self.switched_off()  # threading.settrace or threading.setprofile

    def _count_line(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and not self.closing:
            self.lines += 1
        return self._count_line

    def _leave(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "return" and self.inside_trusted and frame is self.inside_trusted[-1]:
            self.inside_trusted.pop()
        return self._leave

    def switched_off(self) -> CheckFailed:
        return self.fail(_refuse(ForbiddenCall, self.label, _("switched off the grader"), _(HOOK_MESSAGE),
                                 "forbidden-call"))

    def judge_counts(self, exercise: Exercise) -> None:
        """After the call: the calls the exercise asks for, and its line budget."""
        for name, wanted in exercise.calls.items():
            least, most = (wanted, wanted) if isinstance(wanted, int) else wanted
            made = self.calls.get(name, 0)
            if not least <= made <= most:
                asked = str(least) if least == most else _("between {least} and {most}").format(
                    least=least, most=most)
                status = _("called {name} {made} times").format(name=name, made=made)
                message = _("this exercise asks you to call {name} {asked} times here").format(
                    name=name, asked=asked)
                self.fail(_refuse(CheckFailed, self.label, status, message, "call-count"))
                return
        if exercise.max_lines is not None and self.lines > exercise.max_lines:
            status = _("ran {lines} lines of Python").format(lines=self.lines)
            if exercise.max_lines_reason:
                message = _("{reason}: a version that does so runs at most {most} lines here").format(
                    reason=exercise.max_lines_reason, most=exercise.max_lines)
            else:
                message = _("this exercise asks for array operations, not Python loops: a version without "
                            "loops runs at most {most} lines here").format(most=exercise.max_lines)
            self.fail(_refuse(CheckFailed, self.label, status, message, "not-vectorised"))


@functools.cache
def _torch_guard_class() -> type:
    """The TorchFunctionMode of a graded call: with uses="numpy" every torch function is refused,
    with uses="torch" autograd's entry points; nothing inside a trusted referee."""
    from torch.overrides import TorchFunctionMode

    class GradedTorch(TorchFunctionMode):
        def __init__(self, watch: _Watch, exercise: Exercise, entry: dict[Any, str]) -> None:
            super().__init__()
            self.watch, self.uses, self.entry = watch, exercise.uses, entry
            self.refused = frozenset(exercise.torch_refused)

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if not self.watch.trusting:
                label = self.watch.label
                if self.uses == "numpy":
                    called = getattr(func, "__name__", None) or str(func)
                    message = _("{message} (it called torch's {called})").format(
                        message=_(TORCH_MESSAGE), called=called)
                    raise self.watch.fail(_refuse(ForbiddenCall, label, _("called torch's {called}").format(
                        called=called), message, "forbidden-call"))
                if func in self.entry:
                    raise self.watch.fail(_refuse(AutogradForbidden, label, _("called {function}").format(
                        function=self.entry[func]), _(AUTOGRAD_MESSAGE), "autograd-by-hand"))
                called = getattr(func, "__name__", "")
                if called in self.refused:
                    message = _("this exercise asks you to compute what torch's {called} computes").format(
                        called=called)
                    raise self.watch.fail(_refuse(ForbiddenCall, label, _("called torch's {called}").format(
                        called=called), message, "forbidden-call"))
            return func(*args, **(kwargs or {}))

    return GradedTorch


def _torch_available() -> bool:
    """Whether PyTorch can be used here: imported now (so that a function importing it itself
    cannot escape the guard), unless it is not installed (then no answer can use it either)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def _watched(label: str, exercise: Exercise, namespace: MutableMapping[str, Any]) -> Iterator[_Watch]:
    """The block runs under the exercise's rules (module docstring); a refusal the student's code
    caught is raised when the block ends."""
    __tracebackhide__ = True
    refused = {code: (name, "") for code, name in REFEREES.items()}
    for name, reason in exercise.reasons().items():
        for code in codes_of(namespace.get(name)):
            refused[code] = (name, reason)
    # a referee the exercise may call, as the notebook binds it now: never the student's own code
    trusted = {code for name in exercise.may_call for code in codes_of(namespace.get(name))
               if code in refused}
    for code in trusted:
        refused.pop(code, None)
    # a name the brief says to call, bound to a referee, is still refused (not counted)
    counted = {code: name for name in exercise.calls for code in codes_of(namespace.get(name))
               if code not in refused}
    own = next(codes_of(namespace.get(exercise.name)), None)
    notebook_dir = os.path.dirname(own.co_filename) if exercise.max_lines is not None and own else None
    watch = _Watch(label, refused, trusted, counted, notebook_dir)
    with ExitStack() as stack:
        if exercise.uses != "any" and _torch_available():
            entry = _torch_intact(label) if exercise.uses == "torch" else {}
            stack.enter_context(_torch_guard_class()(watch, exercise, entry))
        previous, previous_threads = sys.gettrace(), threading.gettrace()
        saved_functions = {name: getattr(sys, name) for name in _STAND_INS}
        threading.settrace(watch)
        sys.settrace(watch)
        for name, stand_in in _STAND_INS.items():
            setattr(sys, name, stand_in)
        if exercise.max_bytes is not None:
            stack.enter_context(_peak_memory(watch, exercise.max_bytes))
        try:
            yield watch
        finally:
            watch.closing = True
            for name, function in saved_functions.items():
                setattr(sys, name, function)
            still = sys.gettrace()
            sys.settrace(previous)
            threading.settrace(previous_threads)
            if still is not watch and watch.violation is None:   # a refusal raised in the hook ends it
                watch.switched_off()
    if exercise.uses == "torch" and "torch" in sys.modules:
        _torch_intact(label)
    if watch.violation is None:
        watch.judge_counts(exercise)
    if watch.violation is not None:
        raise watch.violation


@contextmanager
def _peak_memory(watch: _Watch, most: int) -> Iterator[None]:
    """The block's peak of newly allocated memory (tracemalloc, which NumPy reports to) must stay
    within `most` bytes."""
    already = tracemalloc.is_tracing()
    if not already:
        tracemalloc.start()
    tracemalloc.reset_peak()
    start = tracemalloc.get_traced_memory()[0]
    try:
        yield
    finally:
        peak = tracemalloc.get_traced_memory()[1] - start
        if not already:
            tracemalloc.stop()
    if peak > most and watch.violation is None:
        status = _("held {size} MB at once").format(size=f"{peak / 1e6:.1f}")
        message = _("this exercise can be done in at most {most} MB here: do not build the big "
                    "intermediate array").format(most=f"{most / 1e6:.1f}")
        watch.fail(_refuse(CheckFailed, watch.label, status, message, "too-much-memory"))


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
        return bool(np.array_equal(np.array(after, subok=False), before, equal_nan=before.dtype.kind in "fc"))
    if depth < 3 and type(before) in (tuple, list):
        return (type(after) is type(before) and len(after) == len(before)
                and all(_same(b, a, depth + 1) for b, a in zip(before, after, strict=True)))
    if depth < 3 and type(before) is dict:
        return (type(after) is dict and after.keys() == before.keys()
                and all(_same(before[k], after[k], depth + 1) for k in before))
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(before, torch.Tensor):
        return isinstance(after, torch.Tensor) and bool(torch.equal(after.detach(), before))
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
        if name.startswith("_"):
            raise AttributeError(name)
        self.declaration(name)

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
        with _watched(name, exercise, self._namespace):
            result = fn(*args, **kwargs)
        _check_unchanged(name, saved)
        return result

    @contextmanager
    def running(self, name: str, label: str | None = None) -> Iterator[None]:
        """The block runs under exercise `name`'s rules (for a class's methods, or a function the
        check calls through a helper); inputs are not compared here."""
        __tracebackhide__ = True
        with _watched(label or name, self.declaration(name), self._namespace):
            yield
