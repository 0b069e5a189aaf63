"""Numerical gradients by centred differences, and the CS231n relative error.

All arithmetic is float64. `x` (any shape S) is nudged in place, one entry at a time, and
restored bit for bit afterwards, even when `f` raises; every gradient returned has shape S.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._validate import (
    describe,
    dtype_problem,
    float64_array,
    fmt_entry,
    fmt_shape,
    positive_float,
    require_finite,
    short_traceback,
    to_numpy,
    writable_float64_array,
)
from .errors import ToolkitInputError
from .i18n import _, ngettext
from .referees import referee

__all__ = [
    "eval_numerical_gradient",
    "eval_numerical_gradient_array",
    "grad_check_sparse",
    "rel_error",
]


@short_traceback
def rel_error(x: Any, y: Any) -> float:
    """The relative error between x and y, CS231n's: each entry's difference measured against the
    size of the two entries (a size never taken below 1e-8), and the worst entry reported. Lesson 01
    asks you to design it (gradient_check), so its definition is not spelled out here.

    Inputs: x, y — float64 arrays of the same shape S (or Python / float64 scalars).
    Returns: a float (0.0 when x and y are equal, and for empty arrays), or nan when an entry is NaN.
    """
    __tracebackhide__ = True
    a = float64_array(x, "rel_error: x")
    b = float64_array(y, "rel_error: y")
    if a.shape != b.shape:
        raise ToolkitInputError(
            _("rel_error needs two arrays of the same shape, but x has shape {x} and y has shape "
              "{y}.").format(
                x=fmt_shape(a.shape), y=fmt_shape(b.shape))
        )
    if a.size == 0:
        return 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        return float(np.max(np.abs(a - b) / np.maximum(1e-8, np.abs(a) + np.abs(b))))


@short_traceback
@referee
def eval_numerical_gradient(f: Callable[[np.ndarray], Any], x: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Gradient of a scalar function by centred differences.

    Inputs: f — ndarray → number (float or 0-d array); x — float64 array, shape S, nudged in
    place and restored; h — step.
    Returns: df/dx, float64 array of shape S.
    """
    __tracebackhide__ = True
    x = writable_float64_array(x)
    h = positive_float(h, "h")
    _checked_callable(f, "f")

    def evaluate(where: str) -> np.ndarray:
        __tracebackhide__ = True
        return _scalar_output(f(x), where)

    return _centred_differences(evaluate, x, h, lambda fp, fm: float(fp - fm) / (2 * h))


@short_traceback
@referee
def eval_numerical_gradient_array(
    f: Callable[[np.ndarray], Any], x: np.ndarray, dout: np.ndarray, h: float = 1e-5
) -> np.ndarray:
    """Gradient of `sum(f(x) * dout)` with respect to x, by centred differences.

    Inputs: f — ndarray → ndarray of shape T; x — float64 array, shape S, nudged in place and
    restored; dout — float64 array, shape T (the upstream gradient); h — step.
    Returns: float64 array of shape S.
    """
    __tracebackhide__ = True
    x = writable_float64_array(x)
    dout = float64_array(dout, "dout")
    require_finite(dout, "dout")
    h = positive_float(h, "h")
    _checked_callable(f, "f")
    return numerical_gradient_array(f, x, dout, h)


@referee
def numerical_gradient_array(
    f: Callable[[np.ndarray], Any],
    x: np.ndarray,
    dout: np.ndarray,
    h: float,
    *,
    f_name: str = "f",
    x_name: str = "x",
) -> np.ndarray:
    """`eval_numerical_gradient_array` on checked arguments; names used in the messages."""
    __tracebackhide__ = True

    def evaluate(where: str) -> np.ndarray:
        __tracebackhide__ = True
        return _array_output(f(x), dout.shape, where, f_name)

    def combine(fp: np.ndarray, fm: np.ndarray) -> float:
        return float(np.sum((fp - fm) * dout)) / (2 * h)

    return _centred_differences(evaluate, x, h, combine, f_name=f_name, x_name=x_name)


@short_traceback
@referee
def grad_check_sparse(
    f: Callable[[np.ndarray], Any],
    x: np.ndarray,
    analytic_grad: np.ndarray,
    num_checks: int = 10,
    h: float = 1e-5,
    seed: int = 0,
    *,
    verbose: bool = False,
) -> float:
    """Check `num_checks` randomly chosen entries of a large gradient.

    Inputs: f — ndarray → number; x — float64 array, shape S (restored afterwards);
    analytic_grad — float64 array, shape S; seed — picks the entries (without repetition).
    Returns: the largest relative error over the checked entries. `verbose` prints each one.
    """
    __tracebackhide__ = True
    x = writable_float64_array(x)
    analytic = float64_array(analytic_grad, "analytic_grad")
    if analytic.shape != x.shape:
        raise ToolkitInputError(
            _("analytic_grad must have the shape of x, {shape}, but it has shape {got}.").format(
                shape=fmt_shape(x.shape), got=fmt_shape(analytic.shape))
        )
    h = positive_float(h, "h")
    _checked_callable(f, "f")
    if isinstance(num_checks, bool) or not isinstance(num_checks, int | np.integer):
        raise ToolkitInputError(_("num_checks must be a positive int, got {got}.").format(
            got=describe(num_checks)))
    if num_checks < 1:
        raise ToolkitInputError(_("num_checks must be a positive int, got {got}.").format(got=num_checks))
    if x.size == 0:
        return 0.0
    rng = np.random.default_rng(seed)
    flat = rng.choice(x.size, size=min(int(num_checks), x.size), replace=False)
    picked = [tuple(int(i) for i in np.unravel_index(int(k), x.shape)) for k in flat]

    def evaluate(where: str) -> np.ndarray:
        __tracebackhide__ = True
        return _scalar_output(f(x), where)

    numerics = _centred_differences(evaluate, x, h, lambda fp, fm: float(fp - fm) / (2 * h), indices=picked)
    worst = 0.0
    for idx, numeric in zip(picked, numerics, strict=True):
        err = rel_error(numeric, float(analytic[idx]))
        if verbose:
            print(
                _("{entry}: numerical {numeric} analytic {analytic}, relative error {error}").format(
                    entry=fmt_entry("x", idx), numeric=f"{numeric:.6e}",
                    analytic=f"{float(analytic[idx]):.6e}",
                    error=f"{err:.2e}")
            )
        worst = err if np.isnan(err) else max(worst, err)
    return worst


# ----------------------------------------------------------------------------- internals


def _checked_callable(f: Any, what: str) -> None:
    __tracebackhide__ = True
    if not callable(f):
        raise ToolkitInputError(_("{what} must be a function, but got {got}.").format(
            what=what, got=describe(f)))


def _centred_differences(
    evaluate: Callable[[str], np.ndarray],
    x: np.ndarray,
    h: float,
    combine: Callable[[np.ndarray, np.ndarray], float],
    *,
    indices: list[tuple[int, ...]] | None = None,
    f_name: str = "f",
    x_name: str = "x",
) -> np.ndarray:
    """Nudge entries of x by ±h; `evaluate(where)` calls f at the current x.

    Returns combine(f(x + h), f(x - h)) for every entry, shaped like x; with `indices`, only
    for those entries, as a 1-D array in their order. x is restored bit for bit, even on error.

    After every call of f, x is compared with what it must hold (x0 with the one nudged
    entry), so an f that edits x in place is caught on the call where it does, even when it
    only does so for some nudges (np.clip(x, ..., out=x) near a threshold) or only edits the
    nudged entry (which the next nudge would otherwise overwrite).
    """
    __tracebackhide__ = True
    x0 = x.copy()
    ref = x0.copy()  # what x must hold during each call of f
    where_to = list(np.ndindex(x.shape)) if indices is None else indices
    values = np.zeros(len(where_to), dtype=np.float64)

    def call(where: str) -> np.ndarray:
        __tracebackhide__ = True
        value = evaluate(where)
        _check_unchanged(x, ref, f_name, x_name, where)
        return value

    try:
        call(_("at x"))
        for k, idx in enumerate(where_to):
            old = x0[idx]
            x[idx] = ref[idx] = old + h
            fp = call(_("with {entry} + h").format(entry=fmt_entry(x_name, idx)))
            x[idx] = ref[idx] = old - h
            fm = call(_("with {entry} - h").format(entry=fmt_entry(x_name, idx)))
            x[idx] = ref[idx] = old
            values[k] = combine(fp, fm)
    finally:
        np.copyto(x, x0)
    return values.reshape(x.shape) if indices is None else values


def _check_unchanged(x: np.ndarray, ref: np.ndarray, f_name: str, x_name: str, where: str) -> None:
    """Raise when f changed x during the call made `where` (x no longer equals ref)."""
    __tracebackhide__ = True
    if np.array_equal(x, ref):
        return
    changed = ~((x == ref) | (np.isnan(x) & np.isnan(ref)))
    count = int(changed.sum())
    first = tuple(int(i) for i in np.argwhere(changed)[0])
    entry = fmt_entry(x_name, first)
    entries = entry if count == 1 else _("{count} entries changed, e.g. {entry}").format(
        count=count, entry=entry)
    raise ToolkitInputError(
        _("{f} changed its input {x} in place when called {where} ({entries} went from "
          "{before} to {now}); a numerical gradient needs {f} to leave "
          "{x} unchanged on every call, or the nudges are lost: build a new array "
          "(np.maximum(x, 0), not x[x < 0] = 0) or work on x.copy().").format(
            f=f_name, x=x_name, where=where, entries=entries, before=f"{ref[first]:.6g}",
            now=f"{x[first]:.6g}")
    )


def _scalar_output(value: Any, where: str) -> np.ndarray:
    """f's return value as a 0-d float64 array, or a ToolkitInputError saying what went wrong."""
    __tracebackhide__ = True
    if value is None:
        raise ToolkitInputError(
            _("f must return a number, but it returned None ({where}) — did you forget `return`?").format(
                where=where)
        )
    if isinstance(value, tuple | list):
        raise ToolkitInputError(
            _("f must return a number, but it returned {what} ({where}); if it returns "
              "(loss, grad) or (out, cache), pass `lambda x: f(x)[0]` instead.").format(
                what=describe(value), where=where)
        )
    arr = to_numpy(value)
    if arr is None or arr.dtype.kind not in "iuf":
        raise ToolkitInputError(_("f must return a number, but it returned {what}.").format(
            what=describe(value)))
    if arr.shape != ():
        raise ToolkitInputError(
            _("f must return a single number, but it returned {what} ({where}); for "
              "an array-valued f use eval_numerical_gradient_array(f, x, dout), for a loss sum or "
              "average it.").format(what=describe(value), where=where)
        )
    if arr.dtype.kind == "f" and arr.dtype != np.float64:
        raise ToolkitInputError(
            _("f must return a float64 number, but it returned one of {problem}.").format(
                problem=dtype_problem(arr))
        )
    if not np.isfinite(arr):
        raise ToolkitInputError(
            _("f returned {value} {where}: a numerical gradient needs finite values (overflow? "
              "log of 0? division by 0?).").format(value=arr, where=where)
        )
    return arr.astype(np.float64, copy=False)


def _array_output(value: Any, shape: tuple[int, ...], where: str, f_name: str) -> np.ndarray:
    """f's return value as a float64 copy of `shape`, or a ToolkitInputError."""
    __tracebackhide__ = True
    if value is None:
        raise ToolkitInputError(
            _("{f} must return an array shaped like dout {shape}, but it returned "
              "None ({where}) — did you forget `return`?").format(
                  f=f_name, shape=fmt_shape(shape), where=where)
        )
    if isinstance(value, tuple):
        raise ToolkitInputError(
            _("{f} must return an array shaped like dout {shape}, but it returned "
              "{what} ({where}); if it returns (out, cache), pass "
              "`lambda x: f(x)[0]` instead.").format(
                  f=f_name, shape=fmt_shape(shape), what=describe(value), where=where)
        )
    arr = to_numpy(value)
    if arr is None or arr.dtype.kind not in "biuf":
        raise ToolkitInputError(
            _("{f} must return an array shaped like dout {shape}, but it returned {what} ({where}).").format(
                f=f_name, shape=fmt_shape(shape), what=describe(value), where=where)
        )
    if arr.dtype.kind == "f" and arr.dtype != np.float64:
        raise ToolkitInputError(
            _("{f} must return float64 values, but its output has {problem}.").format(
                f=f_name, problem=dtype_problem(arr))
        )
    if arr.shape != tuple(shape):
        raise ToolkitInputError(
            _("dout must have the shape of {f}'s output, but {f} returned shape "
              "{got} ({where}) and dout has shape {shape}.").format(
                f=f_name, got=fmt_shape(arr.shape), where=where, shape=fmt_shape(tuple(shape)))
        )
    if not np.all(np.isfinite(arr)):
        bad = int(np.sum(~np.isfinite(arr)))
        raise ToolkitInputError(
            ngettext("{f} returned {bad} NaN/inf value {where}: a numerical "
                     "gradient needs finite values (overflow? log of 0? division by 0?).",
                     "{f} returned {bad} NaN/inf values {where}: a numerical "
                     "gradient needs finite values (overflow? log of 0? division by 0?).", bad).format(
                f=f_name, bad=bad, where=where)
        )
    # to_numpy made a fresh copy already, so an f returning a view of x cannot move with x.
    return arr.astype(np.float64, copy=False)
