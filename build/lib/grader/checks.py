"""Student-facing checks: print one ✓/✗ line per quantity, then raise CheckFailed on failure.

    ✓ dx  relative error 2.3e-10
    ✗ db  relative error 6.7e-01 (needs < 1e-07)
        Hint: your db is 1/5 of the expected one, and 5 is the batch size: ...  [sum-vs-mean]

Toolkit frames set `__tracebackhide__ = True`, which IPython and pytest honour, so a failed
check shows the student's cell and the message, not the toolkit's internals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ._validate import (
    describe,
    dtype_problem,
    float64_array,
    fmt_entry,
    fmt_shape,
    optional_mask,
    positive_float,
    require_finite,
    short_traceback,
    to_numpy,
    writable_float64_array,
)
from .by_hand import by_hand
from .errors import BadReturnValue, CheckFailed, ToolkitInputError
from .hints import Hint, HintArgs, diagnose_with, hint_args
from .hints.context import context_for, trailing_block
from .i18n import _, ngettext
from .numgrad import (
    eval_numerical_gradient,
    numerical_gradient_array,
    rel_error,
)
from .report_lines import emit, fail_line, hint_line, pass_line, summary_hint
from .trusted import plain_items

__all__ = ["CheckResult", "check_close", "check_gradient", "check_layer", "checked_name", "compare", "report"]

_DOUT_STREAM = 0xD0D7  # check_layer draws dout from default_rng([_DOUT_STREAM, seed])


@dataclass
class CheckResult:
    """The outcome for one quantity. rel_error is inf when the value could not be compared."""

    name: str
    passed: bool
    rel_error: float
    hint: Hint | None

    def _ipython_display_(self) -> None:
        """The check already printed its ✓/✗ line: show nothing more as a cell's last value."""


@short_traceback
def check_close(name: str, actual: Any, expected: Any, *, tol: float = 1e-7, **hints: Any) -> CheckResult:
    """Compare a value (forward output or gradient) with a reference; print; raise on failure.

    Inputs: name — shown in the line ("out", "dx"); actual — the student's array, shape S;
    expected — float64 reference, shape S; tol — largest accepted relative error; hints — what
    the hint engine may use to explain a failure, checked even when the value is right (see
    `grader.hints.hint_args`): batch_size, mask, upstream (the dout given to the backward
    pass), layer_input and layer_output (x and out of an elementwise layer, shape S), kind
    ("gradient" or "value", the wording; by default guessed from the name: dx, dW1, dL/dx, a
    name with "grad" or "slope" is a gradient; out, loss, scores a value), weights (a W shaped
    like expected, or square), reg (the L2 strength) and problem ({name: dict}, the problem of
    which expected is the answer: rnn, norm, norm_test, running, optim, lstm, conv or pool).
    Returns: the CheckResult (only when it passed; otherwise CheckFailed is raised).
    """
    __tracebackhide__ = True
    name = checked_name(name)
    tol = positive_float(tol, "tol")
    exp = float64_array(expected, "expected")
    require_finite(exp, "expected")
    args = hint_args(exp.shape, **hints)
    result, line = compare(name, actual, exp, tol=tol, args=args)
    report([(result, line)])
    return result


@short_traceback
def check_gradient(
    name: str,
    f: Callable[[np.ndarray], Any],
    x: np.ndarray,
    analytic: Any,
    *,
    dout: Any = None,
    tol: float = 1e-7,
    h: float = 1e-5,
    **hints: Any,
) -> CheckResult:
    """Compare an analytic gradient with the numerical gradient of f at x; print; raise.

    Inputs: f — scalar function of x (dout None) or array function of x with upstream
    gradient dout (shaped like f(x)); x — float64 array, shape S (restored afterwards; f must
    not change it in place: that is checked after every call of f); analytic — the student's
    gradient, shape S; hints — passed to the hint engine as by check_close (see
    `grader.hints.hint_args`); batch_size defaults to dout.shape[0] when dout has 2 or more
    axes, upstream to dout (for the gradient of a regularised loss with respect to a weight
    matrix x: weights=x, reg=reg; for a batchnorm's dx: problem={"norm": {...}}).
    Returns: the CheckResult (only when it passed; otherwise CheckFailed is raised).
    """
    __tracebackhide__ = True
    name = checked_name(name)
    tol = positive_float(tol, "tol")
    x = writable_float64_array(x)
    args = replace(hint_args(x.shape, **hints), kind="gradient")  # the numerical gradient is one
    if dout is None:
        numeric = eval_numerical_gradient(f, x, h)
    else:
        up = float64_array(dout, "dout")
        require_finite(up, "dout")
        batch = args.batch if args.batch is not None or up.ndim < 2 else up.shape[0]
        args = replace(args, batch=batch, upstream=up if args.upstream is None else args.upstream)
        numeric = numerical_gradient_array(f, x, up, positive_float(h, "h"))
    result, line = compare(name, analytic, numeric, tol=tol, args=args)
    report([(result, line)])
    return result


@short_traceback
def check_layer(
    forward: Callable[..., Any],
    backward: Callable[[np.ndarray, Any], Any],
    inputs: Mapping[str, np.ndarray],
    *,
    tol: float = 1e-7,
    seed: int = 0,
    extra_args: Sequence[Any] = (),
    h: float = 1e-5,
    masks: Mapping[str, Any] | None = None,
) -> list[CheckResult]:
    """Check every gradient of a layer against numerical gradients of its forward pass.

    Inputs: forward(*inputs.values(), *extra_args) -> (out, cache); backward(dout, cache) ->
    the gradients in the order of `inputs` (a tuple, or one array for one input); inputs —
    name → float64 array (x: (N, ...), w, b...); seed — for the random dout (shaped like out,
    drawn from default_rng([0xD0D7, seed]) so it never equals an input made with
    default_rng(seed)); masks — optional name → bool mask (shaped like that input) for the
    hints. The hints take batch_size from the first input's first axis, and as weights the
    first other input that is a square matrix fitting this input's last axes (dx = dout @ W.T).
    Inputs are copied, so forward cannot corrupt them; forward or backward changing them (or
    dout) in place is reported as a failure, and so is a forward that is not deterministic.
    The backward runs through `by_hand`: PyTorch's autograd refuses to compute inside it.
    Returns: one CheckResult per input (named "d<input>"), when all passed.
    """
    __tracebackhide__ = True
    tol = positive_float(tol, "tol")
    h = positive_float(h, "h")
    names, originals = _checked_inputs(inputs)
    extra = _checked_extra_args(extra_args)
    seed = _checked_seed(seed)
    masks = _checked_masks(masks, names, originals)
    fname, bname = _func_name(forward, "forward"), _func_name(backward, "backward")
    problems: list[str] = []

    work = [v.copy() for v in originals]
    out, cache = _run_forward(forward, fname, work, extra)
    problems += _modified(work, originals, names, _("{function} changed its input").format(function=fname))
    after_forward = [v.copy() for v in work]
    _check_deterministic(forward, fname, originals, extra, out)

    # A stream of its own: default_rng(seed) would give dout == x for x drawn with that seed.
    dout = np.random.default_rng([_DOUT_STREAM, seed]).standard_normal(out.shape)
    dout_given = dout.copy()
    grads = _split_grads(by_hand(backward, bname)(dout_given, cache), bname, names)
    if not np.array_equal(dout_given, dout):
        problems.append(
            _("{function} changed dout in place; compute into a new array (dx = dout * mask, not "
              "dout[mask] = 0), since dout may be shared with other layers.").format(function=bname)
        )
    problems += _modified(
        work, after_forward, names, _("{function} changed (through the cache) input").format(function=bname)
    )

    first = originals[0]
    batch_size = first.shape[0] if first.ndim >= 1 and first.shape[0] > 0 else None
    rows = []
    for i, key in enumerate(names):
        numeric = _layer_numeric(forward, fname, originals, extra, i, names, dout, h)
        args = HintArgs(
            batch=batch_size,
            mask=masks.get(key),
            upstream=dout,
            layer=(originals[i], out) if out.shape == originals[i].shape else None,
            kind="gradient",
            weights=_square_other_input(originals, i),
        )
        rows.append(compare(f"d{key}", grads[i], numeric, tol=tol, args=args))
    report(rows, problems, who=bname)
    return [r for r, _line in rows]


# ----------------------------------------------------------------------------- comparison


def compare(
    name: str, actual: Any, expected: np.ndarray, *, tol: float, args: HintArgs | None = None
) -> tuple[CheckResult, str]:
    """The CheckResult of actual against expected (finite float64, shape S, checked) and its ✓/✗
    line, without printing; the hint engine is asked (with `args`, checked by
    `grader.hints.hint_args`) only when it failed. For checkers built on the toolkit's lines."""
    __tracebackhide__ = True
    arr = to_numpy(actual)
    err = math.inf
    if arr is None or arr.dtype.kind not in "biuf":
        status = _("got {what}, expected an array of shape {shape}").format(
            what=describe(actual), shape=fmt_shape(expected.shape))
    elif arr.shape != expected.shape:
        status = _("shape {shape}, expected {expected}").format(
            shape=fmt_shape(arr.shape), expected=fmt_shape(expected.shape))
    else:
        err = rel_error(arr.astype(np.float64), expected)
        status = _("relative error {error} (needs < {tol})").format(error=f"{err:.1e}", tol=_fmt_tol(tol))
        if dtype_problem(arr) is not None:
            status = _("dtype {dtype}, needs float64 ({status})").format(dtype=arr.dtype, status=status)
        elif err < tol:
            result = CheckResult(name, True, err, None)
            return result, pass_line(name, _("relative error {error}").format(error=f"{err:.1e}"))
    ctx = context_for(expected, args or HintArgs(), name)
    hint = diagnose_with(arr if arr is not None else actual, ctx)
    return CheckResult(name, False, err, hint), fail_line(name, status)


def report(rows: list[tuple[CheckResult, str]], problems: Sequence[str] = (), who: str = "") -> None:
    """Show every line (and hint; `grader.report_lines.emit`: the hints also as data, for the
    class report), then raise CheckFailed if anything failed (one summary line: `who`, then
    every failed quantity with its status and hint, then `problems`)."""
    __tracebackhide__ = True
    lines: list[str] = []
    for result, line in rows:
        lines.append(line)
        if result.hint is not None:
            lines.append(hint_line(result.hint.message, result.hint.code))
    lines += [f"✗ {problem}" for problem in problems]
    emit(lines, [(r.hint.code, r.hint.message) for r, _line in rows if r.hint is not None])
    if all(r.passed for r, _line in rows) and not problems:
        return
    raise CheckFailed(_summary(rows, problems, who), results=[r for r, _line in rows])


def _summary(rows: list[tuple[CheckResult, str]], problems: Sequence[str], who: str) -> str:
    """One line: every failed quantity with its status and hint, then the other problems."""
    parts = []
    for result, line in rows:
        if result.passed:
            continue
        hint = summary_hint(result.hint.message, result.hint.code) if result.hint else ""
        parts.append(line.removeprefix("✗ ").replace("  ", " ", 1) + hint)
    parts += list(problems)
    prefix = f"{who}: " if who and len(parts) > len(problems) else ""
    return prefix + "; ".join(parts)


def _fmt_tol(tol: float) -> str:
    short = f"{tol:.0e}"
    return short if float(short) == tol else f"{tol:.2g}"


# ----------------------------------------------------------------------------- check_layer


def _square_other_input(originals: list[np.ndarray], i: int) -> np.ndarray | None:
    """The first input other than i that is a square matrix (K, K), K the size of input i's last axes."""
    for j, w in enumerate(originals):
        square = w.ndim == 2 and w.shape[0] == w.shape[1] > 1
        if j != i and square and trailing_block(originals[i].shape, w.shape[0]):
            return w
    return None


def checked_name(name: Any) -> str:
    __tracebackhide__ = True
    if not isinstance(name, str) or not name:
        raise ToolkitInputError(_("name must be a non-empty string, but got {what}.").format(
            what=describe(name)))
    return name


def _checked_inputs(inputs: Any) -> tuple[list[str], list[np.ndarray]]:
    __tracebackhide__ = True
    if not isinstance(inputs, Mapping) or not inputs:
        raise ToolkitInputError(
            _("inputs must be a non-empty dict of name → float64 array, e.g. "
              "{{'x': x, 'w': w, 'b': b}}, but got {what}.").format(what=describe(inputs))
        )
    names, arrays = [], []
    for key, value in inputs.items():
        if not isinstance(key, str) or not key:
            raise ToolkitInputError(_("the names in inputs must be strings, got {what}.").format(
                what=describe(key)))
        if not isinstance(value, np.ndarray):
            raise ToolkitInputError(
                _("inputs['{key}'] must be a float64 NumPy array, but got {what}.").format(
                    key=key, what=describe(value))
            )
        arr = float64_array(value, f"inputs['{key}']")
        require_finite(arr, f"inputs['{key}']")
        names.append(key)
        arrays.append(arr.copy())
    return names, arrays


def _checked_seed(seed: Any) -> int:
    __tracebackhide__ = True
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ToolkitInputError(_("seed must be a non-negative int, but got {what}.").format(
            what=describe(seed)))
    return int(seed)


def _checked_masks(masks: Any, names: list[str], originals: list[np.ndarray]) -> dict[str, np.ndarray]:
    __tracebackhide__ = True
    if masks is None:
        return {}
    if not isinstance(masks, Mapping):
        raise ToolkitInputError(
            _("masks must be a dict of input name → bool array, but got {what}.").format(what=describe(masks))
        )
    checked = {}
    for key, mask in masks.items():
        if key not in names:
            raise ToolkitInputError(
                _("masks has the key {key}, but the inputs are {inputs}.").format(
                    key=repr(key), inputs=", ".join(map(repr, names)))
            )
        checked[key] = optional_mask(mask, originals[names.index(key)].shape)
    return checked


def _checked_extra_args(extra_args: Any) -> tuple[Any, ...]:
    __tracebackhide__ = True
    if not isinstance(extra_args, tuple | list):
        raise ToolkitInputError(
            _("extra_args must be a tuple of the arguments forward takes after the inputs, e.g. "
              "(conv_param,), but got {what}.").format(what=describe(extra_args))
        )
    return tuple(extra_args)


def _func_name(func: Any, role: str) -> str:
    __tracebackhide__ = True
    if not callable(func):
        raise ToolkitInputError(_("{role} must be a function, but got {what}.").format(
            role=role, what=describe(func)))
    return getattr(func, "__name__", role)


def _run_forward(
    forward: Callable[..., Any], fname: str, args: list[np.ndarray], extra: tuple[Any, ...]
) -> tuple[np.ndarray, Any]:
    """Call forward and return (out as float64 array, cache), or raise BadReturnValue."""
    __tracebackhide__ = True
    returned = forward(*args, *extra)
    if returned is None:
        raise BadReturnValue(
            _("{function} returned None, expected (out, cache) — did you forget `return`?").format(
                function=fname)
        )
    items = plain_items(returned)
    if items is None or len(items) != 2:
        raise BadReturnValue(_("{function} must return (out, cache), but it returned {what}.").format(
            function=fname, what=describe(returned)))
    out, cache = items
    arr = to_numpy(out)
    if arr is None or arr.dtype.kind not in "biuf":
        raise BadReturnValue(
            _("{function} returned (out, cache) with out = {what}; out must be a float64 array.").format(
                function=fname, what=describe(out))
        )
    problem = dtype_problem(arr)
    if problem is not None:
        raise BadReturnValue(_("{function}'s out has {problem}.").format(function=fname, problem=problem))
    if not np.all(np.isfinite(arr)):
        raise BadReturnValue(
            _("{function}'s out contains NaN or inf: the gradients cannot be checked (an overflow "
              "in exp? use a stable formula: subtract the max before exp, exp(−|x|) rather than "
              "exp(−x); or 0·inf, a division by zero, log(0)?).").format(function=fname)
        )
    return arr, cache  # float64 (checked above), and a fresh copy (to_numpy's)


def _check_deterministic(
    forward: Callable[..., Any],
    fname: str,
    originals: list[np.ndarray],
    extra: tuple[Any, ...],
    out: np.ndarray,
) -> None:
    __tracebackhide__ = True
    again, _cache = _run_forward(forward, fname, [v.copy() for v in originals], extra)
    if again.shape != out.shape or not np.array_equal(again, out):
        raise BadReturnValue(
            _("{function} returned different outputs for the same inputs; numerical gradients "
              "need a deterministic forward (fix the random seed, e.g. through extra_args).").format(
                  function=fname)
        )


def _split_grads(returned: Any, bname: str, names: list[str]) -> list[Any]:
    """backward's return value as one item per input, or BadReturnValue naming the count."""
    __tracebackhide__ = True
    wanted = ", ".join(f"d{k}" for k in names)
    n = len(names)
    if returned is None:
        raise BadReturnValue(
            _("{function} returned None, expected {arrays}: ({wanted}) — did you forget `return`?").format(
                function=bname, arrays=_arrays(n), wanted=wanted)
        )
    items = plain_items(returned)
    if items is not None:
        if len(items) == n:
            return list(items)
        raise BadReturnValue(_("{function} returned {arrays}, expected {n}: ({wanted})").format(
            function=bname, arrays=_arrays(len(items)), n=n, wanted=wanted))
    if n == 1:
        return [returned]
    raise BadReturnValue(_("{function} returned {what}, expected {n} arrays: ({wanted})").format(
        function=bname, what=describe(returned), n=n, wanted=wanted))


def _arrays(n: int) -> str:
    return ngettext("{n} array", "{n} arrays", n).format(n=n)


def _modified(work: list[np.ndarray], originals: list[np.ndarray], names: list[str], what: str) -> list[str]:
    """One message per input that no longer equals its original."""
    messages = []
    for key, now, before in zip(names, work, originals, strict=True):
        changed = now != before
        if changed.any():
            first = tuple(int(i) for i in np.argwhere(changed)[0])
            messages.append(
                _("{what} {key} in place ({count} entries, e.g. {entry}: {before} → {now}); build new "
                  "arrays instead (np.maximum(x, 0), not x[x < 0] = 0).").format(
                    what=what, key=key, count=int(changed.sum()), entry=fmt_entry(key, first),
                    before=f"{before[first]:.3g}", now=f"{now[first]:.3g}")
            )
    return messages


def _layer_numeric(
    forward: Callable[..., Any],
    fname: str,
    originals: list[np.ndarray],
    extra: tuple[Any, ...],
    i: int,
    names: list[str],
    dout: np.ndarray,
    h: float,
) -> np.ndarray:
    """Numerical gradient of sum(forward(...)[0] * dout) with respect to input i."""
    __tracebackhide__ = True
    x = originals[i].copy()

    def f(v: np.ndarray) -> Any:
        __tracebackhide__ = True
        args = [(v if j == i else a).copy() for j, a in enumerate(originals)]
        return _run_forward(forward, fname, args, extra)[0]

    return numerical_gradient_array(
        f, x, dout, h, f_name=_("{function} (out, as a function of {name})").format(
            function=fname, name=names[i]), x_name=names[i]
    )
