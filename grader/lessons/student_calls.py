"""Calling a student's function from a lesson view: failures become `NotReady`, results are checked.

A view must keep running while an exercise is unfinished (it raises ``NotImplementedError``)
or broken; it then says which function is the problem where its picture would be.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .._validate import describe, fmt_shape
from ..i18n import N_
from ..i18n import lesson_text as _
from ..referees import referee_all

__all__ = [
    "NotReady", "call_student", "for_cell", "needs", "student_dead_fraction", "student_items",
    "student_weights",
]

#: How call_student's messages end: words for a widget, which `for_cell` rewords for a cell.
_IN_VIEW, _IN_CELL = N_("then move a control here."), N_("then run this cell again.")


class NotReady(Exception):
    """A student function the view needs is unfinished or broke; the message says which."""


def call_student(func: Callable[..., Any], name: str, *args: Any) -> Any:
    """func(*args), with NotImplementedError or any other failure turned into NotReady."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(*args)
    except NotImplementedError as unfinished:
        raise NotReady(
            _("{name} is not written yet: finish its exercise, run that cell, {then}").format(
                name=_unfinished(unfinished, func, name), then=_(_IN_VIEW)
            )
        ) from None
    except Exception as err:  # a student's bug must not break the widget
        message = str(err).splitlines()[0] if str(err) else ""
        raise NotReady(
            _("{name} raised {error}: {message}").format(
                name=name, error=type(err).__name__, message=message[:160]
            )
        ) from None


def _unfinished(err: NotImplementedError, func: Callable[..., Any], called: str) -> str:
    """The function that raised `err`: `called` when `func` itself did, else the one it called
    ("gelu_backward", when a finished transformer_block_backward calls an unfinished gelu_backward)."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    if code is None or code is getattr(func, "__code__", None) or not code.co_name.isidentifier():
        return called
    return code.co_name


@contextmanager
def needs(*names: str) -> Iterator[None]:
    """A demo cell's block that runs the student's `names`: while one of them is unfinished (it
    raises NotImplementedError) the block stops with "Write ... first, then run this cell again."
    instead of a traceback. Other errors are the student's to see, as they are."""
    try:
        yield
    except NotImplementedError:
        print(_("Write {names} first, then run this cell again.").format(names=", ".join(names)))


def student_items(func: Callable[..., Any], name: str, count: int, *args: Any) -> tuple:
    """func(*args) through `call_student`, which must return a tuple of `count` items; else NotReady."""
    out = call_student(func, name, *args)
    if not isinstance(out, tuple) or len(out) != count:
        raise NotReady(_("{name} should return {count} values, got {got}.").format(
            name=name, count=count, got=describe(out)
        ))
    return out


def for_cell(message: str) -> str:
    """A NotReady message worded for a notebook cell rather than for a widget's controls."""
    return message.replace(_(_IN_VIEW), _(_IN_CELL))


def numeric(value: Any) -> bool:
    """Whether `value` converts to an array of booleans, integers or floats."""
    try:
        arr = np.asarray(value)
    except Exception:
        return False
    return arr.dtype.kind in "biuf"


def student_array(value: Any, shape: tuple[int, ...], what: str, verb: str = "is") -> np.ndarray:
    """A student's result as a new float64 array of `shape` with finite entries.

    Otherwise NotReady, naming `what`: "<what> <verb> <value>; expected an array of shape ...", or
    for NaN or infinite entries "<what> holds NaN ..." ("<what> returned NaN ..." for verb
    "returned").
    """
    if not numeric(value) or np.shape(value) != shape:
        text = (
            _("{what} is {value}; expected an array of shape {shape}.")
            if verb == "is"
            else _("{what} returned {value}; expected an array of shape {shape}.")
            if verb == "returned"
            else f"{what} {verb} {{value}}; expected an array of shape {{shape}}."
        )
        raise NotReady(text.format(what=what, value=describe(value), shape=fmt_shape(shape)))
    arr = np.array(value, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        if verb in ("is", "returned"):
            text = (
                _("{what} holds NaN or infinite values.")
                if verb == "is"
                else _("{what} returned NaN or infinite values.")
            )
            raise NotReady(text.format(what=what))
        raise NotReady(f"{what} {verb} NaN or infinite values.")
    return arr


def student_weights(
    init: Callable, name: str, fan_in: int, fan_out: int, rng: np.random.Generator
) -> np.ndarray:
    """init(fan_in, fan_out, rng) as float64, shape (fan_in, fan_out), finite; else NotReady."""
    w = call_student(init, name, fan_in, fan_out, rng)
    if not isinstance(w, np.ndarray) or w.shape != (fan_in, fan_out) or not np.all(np.isfinite(w)):
        raise NotReady(_("{call} returned {got}; expected finite numbers of shape {shape}.").format(
            call=f"{name}({fan_in}, {fan_out}, rng)", got=describe(w), shape=fmt_shape((fan_in, fan_out))
        ))
    return w.astype(np.float64)


def student_dead_fraction(dead_fraction: Callable, z: np.ndarray) -> float:
    """dead_fraction(a copy of z), z of shape (N, H), as one float in [0, 1]; else NotReady."""
    value = call_student(dead_fraction, "dead_fraction", z.copy())
    if not numeric(value) or np.ndim(value) != 0 or not 0 <= float(value) <= 1:
        message = _("dead_fraction returned {got}; expected one number in [0, 1].")
        raise NotReady(message.format(got=describe(value)))
    return float(value)


referee_all(globals())
