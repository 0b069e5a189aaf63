"""Points only for the work an exercise asks for: a backward derived by hand, a vectorised version
that does not call the loops.

    dx, dw, db = by_hand(affine_backward)(dout, cache)       # autograd may not compute this
    with forbid_calls(globals(), conv_forward_naive="the loop version"):
        out, cache = conv_forward_im2col(x, w, b, conv_param)
    with count_calls(globals(), "affine_single_backward") as calls:
        affine_backward_loop(dout, cache)
    assert calls.count == N

- `by_hand(fn)`: a callable that runs `fn` with PyTorch's autograd switched off (in a kernel that
  has not imported torch, fn runs as it is, and once more, guarded, if it imported torch): while it runs,
  `Tensor.backward`, `torch.autograd.grad`, `torch.autograd.backward`, forward-mode dual
  numbers and, through them, every `torch.func` and `torch.autograd.functional` transform raise
  `AutogradForbidden`. Forward computations with PyTorch stay allowed. (A TorchFunctionMode: every
  one of those entry points asks the active modes first, whatever name the student reached it by.)
- `forbid_calls(namespace, **reasons)`: while the block runs, each named function of the notebook is
  replaced by one that raises `ForbiddenCall` ("... must not call conv_forward_naive: ...").
- `count_calls(namespace, name)`: counts the calls to a function of the notebook during the block.

The hidden tests use them around the student's function; the errors are `CheckFailed`, so the
cell scores nothing, and each shows its hint through `grader.report_lines`, so that the class
report lists the shortcut (codes `autograd-by-hand`, `forbidden-call`).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

from .errors import CheckFailed
from .i18n import N_, _
from .numgrad import rel_error
from .report_lines import emit, fail_line, hint_line
from .trusted import plain_ndarray

__all__ = ["AutogradForbidden", "ForbiddenCall", "by_hand", "count_calls", "forbid_calls", "forward_first"]

AUTOGRAD_MESSAGE = N_("this exercise asks for the backward pass by hand; autograd is the referee here, "
                      "not the answer")


class AutogradForbidden(CheckFailed):
    """A function the brief asks to derive by hand called PyTorch's autograd."""


class ForbiddenCall(CheckFailed):
    """A function called another that its exercise asks it not to use."""


def _refuse(error: type[CheckFailed], name: str, status: str, message: str, code: str) -> CheckFailed:
    """Show `✗ name  status` and the hint `message [code]`; the error to raise says both."""
    emit([fail_line(name, status), hint_line(message, code)], [(code, message)])
    return error(f"{name} {status} — {message} [{code}]")


def _entry_points() -> dict[str, Any]:
    """The functions that start a gradient computation, as torch binds them now."""
    import torch
    import torch.autograd.forward_ad
    import torch.func

    points = {"Tensor.backward": torch.Tensor.backward, "torch.autograd.grad": torch.autograd.grad,
              "torch.autograd.backward": torch.autograd.backward, "torch._make_dual": torch._make_dual,
              "torch.autograd.forward_ad.make_dual": torch.autograd.forward_ad.make_dual}
    # the transforms, refused by their own code too where no TorchFunctionMode runs (a Function's
    # backward inside autograd's engine)
    for name in ("grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"):
        points[f"torch.func.{name}"] = getattr(torch.func, name)
    return points


def _torch_intact(name: str) -> dict[Any, str]:
    """The entry points, checked to be torch's own (a rebound `torch.autograd.grad` would reach the
    mode under the student's name, and run unasked)."""
    import torch

    root = os.path.dirname(os.path.abspath(torch.__file__))
    points = _entry_points()
    for where, fn in points.items():
        code = getattr(fn, "__code__", None)
        own = (os.path.abspath(code.co_filename).startswith(root) if code is not None
               else type(fn).__name__ == "builtin_function_or_method")
        if not own:
            raise _refuse(AutogradForbidden, name, _("cannot be graded: {where} was replaced").format(
                where=where),
                          _("{message}; restart the kernel and run the notebook from the top").format(
                              message=_(AUTOGRAD_MESSAGE)),
                          "autograd-by-hand")
    return {fn: where for where, fn in points.items()}


@functools.cache
def _no_autograd_class() -> type:
    """The TorchFunctionMode that refuses the entry points (a class made once, torch imported)."""
    from torch.overrides import TorchFunctionMode

    class NoAutograd(TorchFunctionMode):
        def __init__(self, name: str, entry: dict[Any, str]) -> None:
            super().__init__()
            self.name, self.entry = name, entry

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func in self.entry:
                raise _refuse(AutogradForbidden, self.name, _("called {function}").format(
                    function=self.entry[func]),
                              _(AUTOGRAD_MESSAGE), "autograd-by-hand")
            return func(*args, **(kwargs or {}))

    return NoAutograd


def by_hand(fn: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
    """`fn`, run with PyTorch's autograd refusing to compute anything (module docstring)."""
    label = name or (fn.__name__ if hasattr(fn, "__name__") else _("your function"))

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        if "torch" not in sys.modules:  # no PyTorch in this kernel (yet): no autograd to refuse,
            result = fn(*args, **kwargs)  # unless fn imported it: then it runs again, guarded
            if "torch" not in sys.modules:
                return result
        with _no_autograd_class()(label, _torch_intact(label)):
            result = fn(*args, **kwargs)
        _torch_intact(label)
        return result

    return run


@contextmanager
def forbid_calls(namespace: MutableMapping[str, Any], *, allowed_within: Iterable[Callable[..., Any]] = (),
                 **reasons: str) -> Iterator[None]:
    """Each `name=reason`: namespace[name] raises ForbiddenCall while the block runs. Also a
    decorator: `forbid_calls(globals(), ...)(fn)` is fn, run with those names forbidden.

    `allowed_within`: functions inside which (at any depth) the names still work: a layer built
    on the student's own sigmoid may not call np.tanh itself, but that sigmoid may."""
    saved = {name: namespace[name] for name in reasons if name in namespace}
    allowed = {getattr(fn, "__code__", None) for fn in allowed_within} - {None}

    def inside_allowed() -> bool:
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code in allowed:
                return True
            frame = frame.f_back
        return False

    def forbidden(name: str, reason: str) -> Callable[..., Any]:
        def stand_in(*args: Any, **kwargs: Any) -> Any:
            if allowed and name in saved and inside_allowed():
                return saved[name](*args, **kwargs)
            raise _refuse(ForbiddenCall, name, _("was called"),
                          _("this exercise asks you not to call {name} ({reason})").format(
                              name=name, reason=reason),
                          "forbidden-call")
        return stand_in

    namespace.update({name: forbidden(name, reason) for name, reason in reasons.items()})
    try:
        yield
    finally:
        for name in reasons:
            if name in saved:
                namespace[name] = saved[name]
            else:
                namespace.pop(name, None)


class _Calls:
    count = 0


@contextmanager
def count_calls(namespace: MutableMapping[str, Any], name: str) -> Iterator[_Calls]:
    """`calls.count`: how often namespace[name] was called while the block ran."""
    original = namespace[name]
    calls = _Calls()

    @functools.wraps(original)
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.count += 1
        return original(*args, **kwargs)

    namespace[name] = counted
    try:
        yield calls
    finally:
        namespace[name] = original


def forward_first(
    actual: Any, expected: Any, what: str, layer: str, advice: str = "", tol: float = 1e-8
) -> None:
    """Refuse to grade a backward whose forward is another layer than `layer` (its output `expected`,
    to a relative error `tol`): the backward is checked against the true gradient of `layer`, which
    it cannot match."""
    __tracebackhide__ = True
    mine, truth = plain_ndarray(actual), plain_ndarray(expected)
    why = _("(the backward pass is checked against the true gradient of {layer}, not of your "
            "forward)").format(layer=layer)
    if mine is None or mine.shape != truth.shape:
        raise CheckFailed(_("your {what} is not shaped like the output of {layer}, {shape}: fix the "
                            "forward pass first {why}").format(
                                what=what, layer=layer, shape=truth.shape, why=why))
    if not rel_error(mine.astype(float), truth) <= tol:  # NaN too
        raise CheckFailed(_("your {what} does not match {layer}: fix it first {why}.{advice}").format(
            what=what, layer=layer, why=why, advice=advice))
