"""Argument checking and number formatting shared by the toolkit modules.

Everything here either returns a clean float64 ndarray or raises a `ToolkitInputError` whose
message says what was expected and what was received.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from numbers import Real
from types import TracebackType
from typing import Any, TypeVar

import numpy as np

from .errors import CheckFailed, ToolkitInputError
from .i18n import _, ngettext
from .trusted import plain_ndarray, verify_environment

_F = TypeVar("_F", bound=Callable[..., Any])
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

__all__ = [
    "describe",
    "dtype_problem",
    "float64_array",
    "fmt_entry",
    "fmt_index",
    "fmt_num",
    "fmt_shape",
    "is_tensor",
    "max_abs",
    "optional_batch_size",
    "optional_kind",
    "optional_mask",
    "positive_float",
    "require_finite",
    "short_traceback",
    "to_numpy",
    "writable_float64_array",
]


# ----------------------------------------------------------------------------- tracebacks


def short_traceback(func: _F) -> _F:
    """Decorate a public function so its failures show one toolkit frame, not the whole path.

    Every toolkit function sets `__tracebackhide__ = True` (pytest and IPython hide such
    frames), but IPython always shows the frame that raised. When a CheckFailed or
    ToolkitInputError went only through toolkit frames, it is re-raised from here with a
    fresh traceback: the student sees their cell, this one line and the message.
    """

    @functools.wraps(func)
    def grader_toolkit(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        try:
            verify_environment()
            return func(*args, **kwargs)
        except (CheckFailed, ToolkitInputError) as failure:
            if not _only_toolkit_frames(failure.__traceback__):
                raise
            caught = failure
        raise caught.with_traceback(None)

    return grader_toolkit  # type: ignore[return-value]


#: Frames in these folders of grader/ are not the toolkit's: the lessons' helpers call student
#: code, and the instructor's tools and the lab launcher are not in a student's traceback at all.
_NOT_TOOLKIT = tuple(os.path.join(_PACKAGE_DIR, sub) + os.sep for sub in ("lessons", "instructor", "lab"))


def _only_toolkit_frames(tb: TracebackType | None) -> bool:
    """Is every frame of `tb` in the toolkit (grader/ and its packages but lessons/, instructor/, lab/)?"""
    while tb is not None:
        filename = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE_DIR + os.sep) or filename.startswith(_NOT_TOOLKIT):
            return False
        tb = tb.tb_next
    return True


# ----------------------------------------------------------------------------- formatting


def fmt_shape(shape: tuple[int, ...]) -> str:
    """`(3, 4)`, `(3,)`, or `() (a scalar)`."""
    return _("() (a scalar)") if shape == () else str(tuple(int(n) for n in shape))


def fmt_index(index: tuple[int, ...]) -> str:
    """`[1, 2]` for an index into an array (`[]` for a 0-d array)."""
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def fmt_entry(name: str, index: tuple[int, ...]) -> str:
    """`x[1, 2]` for an entry of the array `name`; just `x` when it is 0-d (index `()`)."""
    return name if len(index) == 0 else f"{name}{fmt_index(index)}"


def fmt_num(value: float) -> str:
    """A number with 3 significant digits (`0.123`, `1.23e-05`, `nan`)."""
    return f"{float(value):.3g}"


def is_tensor(value: Any) -> bool:
    """True for a torch.Tensor (checked without importing torch)."""
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def describe(value: Any) -> str:
    """A short description of any value for error messages: `None`, `a tuple of 2 items`..."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return _("an array of shape {shape} and dtype {dtype}").format(
            shape=fmt_shape(value.shape), dtype=value.dtype)
    if is_tensor(value):
        return _("a torch.Tensor of shape {shape} and dtype {dtype}").format(
            shape=fmt_shape(tuple(value.shape)), dtype=value.dtype)
    if type(value) is tuple:
        count = len(value)
        return ngettext("a tuple of {count} item", "a tuple of {count} items", count).format(count=count)
    if type(value) is list:
        count = len(value)
        return ngettext("a list of {count} item", "a list of {count} items", count).format(count=count)
    if isinstance(value, tuple | list):  # a subclass: its own name
        kind = type(value).__name__
        count = len(value)
        return ngettext("a {kind} of {count} item", "a {kind} of {count} items", count).format(
            kind=kind, count=count)
    if isinstance(value, bool | np.bool_):
        return _("the bool {value}").format(value=value)
    if isinstance(value, np.generic):
        return _("a NumPy {dtype} scalar ({value})").format(dtype=value.dtype, value=value)
    if isinstance(value, Real):
        return _("the {type} {value}").format(type=type(value).__name__, value=value)
    return _("a {type}").format(type=type(value).__name__)


# ----------------------------------------------------------------------------- conversion


#: `value` as a fresh plain ndarray with its real dtype, or None when it is not array-like: the
#: toolkit's one trusted path (grader.trusted.plain_ndarray), under the name the modules use.
to_numpy = plain_ndarray


def dtype_problem(arr: np.ndarray) -> str | None:
    """None for float64; otherwise why this dtype cannot be used, with what to do instead."""
    dtype = arr.dtype
    if dtype == np.float64:
        return None
    if dtype.kind == "f":
        return _(
            "dtype {dtype}: too imprecise for gradient checks (float32 has about 7 significant "
            "digits); keep everything in float64 (`.astype(np.float64)`, `torch.float64`)"
        ).format(dtype=dtype)
    if dtype.kind in "iu":
        return _(
            "integer dtype {dtype}: it cannot hold fractions, so values get truncated; make it "
            "float64 (e.g. `np.zeros(shape)` or `.astype(np.float64)`, not `dtype=int`)"
        ).format(dtype=dtype)
    if dtype.kind == "b":
        return _("dtype bool; convert it with `.astype(np.float64)` (a mask times dout is float)")
    if dtype.kind == "c":
        return _("complex dtype {dtype}; gradients here are real float64 numbers").format(dtype=dtype)
    return _("dtype {dtype}, which is not a number type; expected float64").format(dtype=dtype)


def float64_array(value: Any, what: str) -> np.ndarray:
    """`value` as a float64 ndarray, or a ToolkitInputError naming `what`.

    Accepted: float64 arrays and NumPy float64 scalars, float64 torch tensors, Python
    ints/floats and (nested) lists of Python numbers. Refused: None, tuples,
    integer/bool/float32/complex arrays, anything else.
    """
    __tracebackhide__ = True
    if isinstance(value, bool | np.bool_):
        raise ToolkitInputError(_("{what} must be a float64 array, but got {got}.").format(
            what=what, got=describe(value)))
    arr = to_numpy(value)
    if arr is None:
        hint = _(" — did you forget `return`?") if value is None else ""
        raise ToolkitInputError(_("{what} must be a float64 array, but got {got}{hint}.").format(
            what=what, got=describe(value), hint=hint))
    problem = dtype_problem(arr)
    if problem is not None:
        raise ToolkitInputError(_("{what} must be a float64 array, but it has {problem}.").format(
            what=what, problem=problem))
    return arr


def require_finite(arr: np.ndarray, what: str) -> None:
    """Raise a ToolkitInputError when `arr` holds NaN or inf (says how many and where)."""
    __tracebackhide__ = True
    bad = ~np.isfinite(arr)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ToolkitInputError(
            _("{what} must hold finite numbers, but {bad} of its {size} entries "
              "are NaN or inf (the first at {index}: {value}).").format(
                what=what, bad=int(bad.sum()), size=arr.size, index=fmt_index(first), value=arr[first])
        )


def positive_float(value: Any, what: str) -> float:
    """A positive finite real number as a float, or a ToolkitInputError."""
    __tracebackhide__ = True
    ok = isinstance(value, Real) and not isinstance(value, bool | np.bool_)
    if not ok or not math.isfinite(float(value)) or float(value) <= 0:
        raise ToolkitInputError(_("{what} must be a positive number, but got {got}.").format(
            what=what, got=describe(value)))
    return float(value)


def optional_batch_size(value: Any) -> int | None:
    """None, or a positive int (NumPy ints accepted)."""
    __tracebackhide__ = True
    if value is None:
        return None
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or value < 1:
        raise ToolkitInputError(_("batch_size must be None or a positive int, but got {got}.").format(
            got=describe(value)))
    return int(value)


#: What a checked quantity is; it changes the wording of some hints (see grader.hints).
KINDS = ("gradient", "value")


def optional_kind(kind: Any) -> str | None:
    """None, "gradient" or "value"."""
    __tracebackhide__ = True
    if kind is None or (isinstance(kind, str) and kind in KINDS):
        return kind
    raise ToolkitInputError(
        _("kind must be None, 'gradient' or 'value', but got {got}{repr}.").format(
            got=describe(kind), repr=f" ({kind!r})" if isinstance(kind, str) else "")
    )


def optional_mask(mask: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """None, or a boolean ndarray of exactly `shape`."""
    __tracebackhide__ = True
    if mask is None:
        return None
    arr = to_numpy(mask)
    if arr is None or arr.dtype != np.bool_:
        raise ToolkitInputError(
            _("mask must be a boolean array shaped like expected {shape} "
              "(e.g. x > 0), but got {got}.").format(shape=fmt_shape(shape), got=describe(mask))
        )
    if arr.shape != tuple(shape):
        raise ToolkitInputError(
            _("mask must have the shape of expected, {shape}, but it has shape {got}.").format(
                shape=fmt_shape(shape), got=fmt_shape(arr.shape))
        )
    return arr


def max_abs(arr: np.ndarray) -> float:
    """The largest |entry| of `arr` (0.0 for an empty array)."""
    return float(np.max(np.abs(arr))) if arr.size else 0.0


def writable_float64_array(x: Any) -> np.ndarray:
    """x itself when it is a writeable, finite float64 ndarray (numerical gradients nudge it)."""
    __tracebackhide__ = True
    if not isinstance(x, np.ndarray):
        raise ToolkitInputError(
            _("x must be a float64 NumPy array (it is nudged in place), but got {got}.").format(
                got=describe(x))
        )
    problem = dtype_problem(x)
    if problem is not None:
        raise ToolkitInputError(
            _("x must be a float64 array, but it has {problem}. "
              "Numerical gradients nudge x by tiny steps h, so it must be float64.").format(problem=problem)
        )
    if not x.flags.writeable:
        raise ToolkitInputError(
            _("x must be writeable (it is nudged in place and restored), but it is read-only; "
              "pass a copy: x.copy().")
        )
    require_finite(x, "x")
    return x
