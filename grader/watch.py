"""The watch around one graded call (grader.exercise): what the student's code may not do while it
runs, seen as it happens.

- A `sys.settrace` hook sees every Python call (C calls cost nothing) and refuses a referee by the
  identity of its code (`grader.referees`), whatever name reached it; a referee the exercise may
  call runs trusted, nothing refused inside it, until it calls the student's code back (a function
  handed to `eval_numerical_gradient`), which is watched again. It counts the calls the exercise
  asks for and, with a line budget, the lines of notebook code, stopping at the budget.
- A TorchFunctionMode refuses PyTorch (uses="numpy"), or its autograd and the functions that would
  be the answer itself (uses="torch"), outside trusted referees.
- While the call runs, the ways to switch the hook off or to run code it cannot see are stand-ins
  that refuse: `sys.settrace`, `sys.setprofile`, `sys.gettrace` (which would hand out the hook),
  threading's, a new thread, a new process. A hook found gone when the call ends is refused too.
- An exercise's memory budget is traced with tracemalloc.

A refusal is raised where it happens and remembered: a student's code that catches it still fails.
"""

from __future__ import annotations

import _thread
import os
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from contextlib import ExitStack, contextmanager
from types import CodeType
from typing import Any

from .by_hand import AUTOGRAD_MESSAGE, AutogradForbidden, ForbiddenCall, _refuse, _torch_intact
from .errors import CheckFailed
from .i18n import N_, _
from .referees import REFEREES, codes_of, referee_name

__all__ = ["watched"]

TORCH_MESSAGE = N_("this exercise is written in NumPy: PyTorch is the referee of the checks, not the "
                   "answer")
REFEREE_MESSAGE = N_("{referee} is one of the course's references: it judges this exercise, it cannot "
                     "answer it")
HOOK_MESSAGE = N_("the grader watches the calls your function makes; code that switches that off "
                  "cannot be graded")

# The real functions, bound once: the watch installs and removes itself with these, never with
# what the modules hold while a call runs (a stand-in, or a nested watch's).
_REAL_SETTRACE, _REAL_GETTRACE = sys.settrace, sys.gettrace
_REAL_THREADING_SETTRACE = threading.settrace


def _switch_stand_in(*args: Any, **kwargs: Any) -> None:
    """What a way of switching the hook off is while a graded call runs: the watch sees this
    Python function called, and refuses it."""


def _gettrace_stand_in() -> None:
    """sys.gettrace and threading.gettrace while a graded call runs: the hook is not handed out."""


def _spawn_stand_in(*args: Any, **kwargs: Any) -> None:
    """A new thread or process while a graded call runs (the hook would not see it): refused."""


_STAND_INS: list[tuple[Any, str, Callable[..., Any]]] = [
    (sys, "settrace", _switch_stand_in), (sys, "setprofile", _switch_stand_in),
    (threading, "settrace", _switch_stand_in), (threading, "setprofile", _switch_stand_in),
    (sys, "gettrace", _gettrace_stand_in), (threading, "gettrace", _gettrace_stand_in),
    (threading.Thread, "start", _spawn_stand_in), (_thread, "start_new_thread", _spawn_stand_in),
    (_thread, "start_new", _spawn_stand_in), (subprocess.Popen, "__init__", _spawn_stand_in),
    (os, "system", _spawn_stand_in), (os, "fork", _spawn_stand_in),
]
_SWITCH, _SPAWN = id(_switch_stand_in.__code__), id(_spawn_stand_in.__code__)


def _is_cell(filename: str, own: str) -> bool:
    """Whether a code object's file is a notebook cell, like the exercise's own (`own`): IPython's
    `<ipython-input-N-...>`, or ipykernel's files in one folder."""
    if own.startswith("<ipython-input-"):
        return filename.startswith("<ipython-input-")
    folder = os.path.dirname(own)
    return bool(folder) and os.path.dirname(filename) == folder


class _Watch:
    """The trace hook of one graded call (module docstring)."""

    def __init__(self, label: str, rules: Any, refused: dict[int, tuple[str, str]], trusted: set[int],
                 counted: dict[int, str], own_file: str | None, trusted_parts: set[int],
                 autograd: dict[int, str]) -> None:
        self.label, self.rules = label, rules
        self.refused, self.trusted, self.counted = refused, trusted, counted
        self.trusted_parts = trusted_parts   # the code inside a trusted referee (comprehensions...)
        # autograd's Python entry points, refused by their code too: a Function's backward runs
        # without the TorchFunctionMode (autograd's engine does not carry it)
        self.autograd = autograd
        self.watched = (frozenset(refused) | frozenset(trusted) | frozenset(counted) | frozenset(autograd)
                        | {_SWITCH, _SPAWN})
        self.calls = dict.fromkeys(counted.values(), 0)
        self.own_file, self.lines = own_file, 0
        self._cells: dict[int, bool] = {}
        # (frame, trusted?, the guard's mode entered for it?) of the regions now running
        self.regions: list[tuple[Any, bool, bool]] = []
        # with `check_drives`: the student's own code (the exercise's functions and methods), and the
        # TorchFunctionMode to enter where autograd's engine runs it without one
        self.student: frozenset[int] = frozenset()
        self.mode: Any = None
        self.violation: CheckFailed | None = None
        self.closing = self.aborted = False

    @property
    def trusting(self) -> bool:
        return bool(self.regions) and self.regions[-1][1]

    def _enter_mode(self) -> bool:
        """Enter the guard's TorchFunctionMode for a student's region that runs without any mode
        (autograd's engine does not carry the modes into a Function's backward); True if entered."""
        if self.mode is None:
            return False
        import torch

        if torch._C._len_torch_function_stack():
            return False
        self.mode.__enter__()
        return True

    def fail(self, error: CheckFailed) -> CheckFailed:
        """Remember the first refusal (shown once), and return it to raise."""
        if self.violation is None:
            self.violation = error
        return self.violation

    def _cell(self, code: CodeType) -> bool:
        known = self._cells.get(id(code))
        if known is None:
            known = self._cells[id(code)] = self.own_file is not None and _is_cell(code.co_filename,
                                                                                   self.own_file)
        return known

    def __call__(self, frame: Any, event: str, arg: Any) -> Any:
        """The global trace function, called for every new Python frame; it returns a local trace
        function for the frames whose return or lines it must see."""
        if self.closing:
            return None
        code = frame.f_code
        key = id(code)
        if self.trusting:
            if (key in self.student or self._cell(code)) and key not in self.trusted_parts:
                self.regions.append((frame, False, self._enter_mode()))   # the student's, called back
                return self._local
            return None
        if key not in self.watched:
            return self._local if self.rules.max_lines is not None and self._cell(code) else None
        if key in self.trusted:
            self.regions.append((frame, True, False))
            frame.f_trace_lines = False
            return self._local
        if key in self.counted:
            self.calls[self.counted[key]] += 1
            return self._local if self.rules.max_lines is not None else None
        if key in self.autograd:
            raise self.fail(_refuse(AutogradForbidden, self.label,
                                    _("called {function}").format(function=self.autograd[key]),
                                    _(AUTOGRAD_MESSAGE), "autograd-by-hand"))
        if key in self.refused:
            name, reason = self.refused[key]
            asked_not = _("this exercise asks you not to call {name} ({reason})")
            message = (asked_not.format(name=name, reason=reason) if reason
                       else _(REFEREE_MESSAGE).format(referee=name))
            raise self.fail(_refuse(ForbiddenCall, self.label, _("called {name}").format(name=name), message,
                                    "forbidden-call"))
        if key == _SPAWN:
            raise self.fail(_refuse(ForbiddenCall, self.label, _("started a thread or a process"),
                                    _(HOOK_MESSAGE), "forbidden-call"))
        raise self.switched_off()

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if self.closing:
            return None
        if event == "line" and not self.trusting and self.rules.max_lines is not None:
            self.lines += 1
            if self.lines > self.rules.max_lines:     # stop a loop at its budget, not at its end
                raise self.fail(self._over_budget())
        elif event == "return" and self.regions and self.regions[-1][0] is frame:
            if self.regions.pop()[2]:
                self.mode.__exit__(None, None, None)
        return self._local

    def switched_off(self) -> CheckFailed:
        return self.fail(_refuse(ForbiddenCall, self.label, _("switched off the grader"), _(HOOK_MESSAGE),
                                 "forbidden-call"))

    def _over_budget(self) -> CheckFailed:
        status = _("ran {lines} lines of Python").format(lines=self.lines)
        if self.rules.max_lines_reason:
            message = _("{reason}: a version that does so runs at most {most} lines here").format(
                reason=self.rules.max_lines_reason, most=self.rules.max_lines)
        else:
            message = _("this exercise asks for array operations, not Python loops: a version without "
                        "loops runs at most {most} lines here").format(most=self.rules.max_lines)
        return _refuse(CheckFailed, self.label, status, message, "not-vectorised")

    def judge_counts(self) -> None:
        """After the call: the calls the exercise asks for."""
        for name, wanted in self.rules.calls.items():
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


def _torch_guard(watch: _Watch, rules: Any, entry: dict[Any, str]) -> Any:
    """The TorchFunctionMode of a graded call; its rules live in this closure, not on the mode
    (which torch's mode stack hands to anyone who asks)."""
    from torch.overrides import TorchFunctionMode

    uses, refused, label = rules.uses, frozenset(rules.torch_refused), watch.label

    def refuse(error: type[CheckFailed], status: str, message: str, code: str) -> CheckFailed:
        return watch.fail(_refuse(error, label, status, message, code))

    class GradedTorch(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if not watch.trusting:
                called = getattr(func, "__name__", None) or str(func)
                if uses == "numpy":
                    message = _("{message} (it called torch's {called})").format(
                        message=_(TORCH_MESSAGE), called=called)
                    raise refuse(ForbiddenCall, _("called torch's {called}").format(called=called), message,
                                 "forbidden-call")
                if func in entry:
                    raise refuse(AutogradForbidden, _("called {function}").format(function=entry[func]),
                                 _(AUTOGRAD_MESSAGE), "autograd-by-hand")
                if called in refused:
                    message = _("this exercise asks you to compute what torch's {called} computes").format(
                        called=called)
                    raise refuse(ForbiddenCall, _("called torch's {called}").format(called=called), message,
                                 "forbidden-call")
            return func(*args, **(kwargs or {}))

    return GradedTorch()


def _torch_available() -> bool:
    """Whether PyTorch can be used here: imported now (so that a function importing it itself
    cannot escape the guard), unless it is not installed (then no answer can use it either)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _nested(code: CodeType) -> Iterator[CodeType]:
    """`code` and the code objects defined inside it (its comprehensions, lambdas, inner functions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _nested(const)


def _rules_by_code(rules: Any, namespace: MutableMapping[str, Any],
                   seen: Mapping[str, Iterable[CodeType]]) -> tuple[dict, dict, dict]:
    """(refused, trusted, counted), keyed by id(code), for an exercise in a notebook's namespace
    (trusted holds the code objects, for the code nested in them);
    `seen`: the code objects each name was bound to at earlier graded calls (a function the brief
    forbids stays forbidden after its name is rebound to something else)."""
    refused = {key: (name, "") for key, (_code, name) in REFEREES.items()}
    for name, reason in rules.reasons().items():
        for code in (*codes_of(namespace.get(name)), *seen.get(name, ())):
            refused[id(code)] = (name, reason)
    # a referee the exercise may call, bound under its own name: never the student's code, nor
    # another referee bound to that name
    trusted = {id(code): code for name in rules.may_call for code in codes_of(namespace.get(name))
               if referee_name(code) == name}
    for key in trusted:
        refused.pop(key, None)
    # a name the brief says to call, bound to a referee, is still refused (not counted)
    counted = {id(code): name for name in rules.calls for code in codes_of(namespace.get(name))
               if id(code) not in refused}
    return refused, trusted, counted


@contextmanager
def watched(label: str, rules: Any, namespace: MutableMapping[str, Any],
            seen: Mapping[str, Iterable[CodeType]] | None = None,
            check_drives: bool = False) -> Iterator[None]:
    """The block runs under the exercise's rules (`rules`: its grader.exercise.Exercise); a refusal
    the student's code caught is raised when the block ends. With `check_drives`, the block itself
    is trusted, as a referee is, and the student's code it reaches is watched (the check's own call
    of autograd, which runs the student's backward)."""
    __tracebackhide__ = True
    codes = list(codes_of(namespace.get(rules.name)))
    # the cell the exercise was written in: a code object named after it (a class can hold a library
    # function as a staticmethod, whose file is not the notebook's)
    own = next((c for c in codes if c.co_qualname.split(".")[0] == rules.name), codes[0] if codes else None)
    refused, trusted, counted = _rules_by_code(rules, namespace, seen or {})
    parts = {id(part) for code in trusted.values() for part in _nested(code)}
    guarded = rules.uses != "any" and _torch_available()
    entry = _torch_intact(label) if guarded and rules.uses == "torch" else {}
    autograd = {id(fn.__code__): where for fn, where in entry.items() if hasattr(fn, "__code__")}
    watch = _Watch(label, rules, refused, set(trusted), counted, own.co_filename if own else None, parts,
                   autograd)
    if check_drives:
        watch.regions.append((None, True, False))
        watch.student = frozenset(id(part) for code in codes for part in _nested(code))
    previous, previous_threads = _REAL_GETTRACE(), threading._trace_hook
    present = [(owner, name, stand_in) for owner, name, stand_in in _STAND_INS if name in vars(owner)]
    saved = [(owner, name, vars(owner)[name]) for owner, name, _stand_in in present]
    with ExitStack() as stack:
        if guarded:
            mode = stack.enter_context(_torch_guard(watch, rules, entry))
            watch.mode = mode if check_drives else None
        if rules.max_bytes is not None:
            stack.enter_context(_peak_memory(watch, rules.max_bytes))
        try:
            _REAL_THREADING_SETTRACE(watch)
            for owner, name, stand_in in present:
                setattr(owner, name, stand_in)
            _REAL_SETTRACE(watch)
            yield
        except BaseException:
            watch.aborted = True       # an exception (a refusal, an interrupt) ends the call
            raise
        finally:
            watch.closing = True
            still = _REAL_GETTRACE()
            _REAL_SETTRACE(previous)
            for owner, name, original in saved:
                setattr(owner, name, original)
            _REAL_THREADING_SETTRACE(previous_threads)
            if still is not watch and not watch.aborted and watch.violation is None:
                watch.switched_off()
    if rules.uses == "torch" and "torch" in sys.modules:
        _torch_intact(label)
    if watch.violation is None:
        watch.judge_counts()
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
