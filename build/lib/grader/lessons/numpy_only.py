"""Points only for the work asked, when the work is NumPy: `numpy_only(fn)` runs `fn` with every
PyTorch function refused.

Lesson 09's setup gives the checks PyTorch's convolution and pooling (`torch_conv`, `torch_pool`, the
module `F`) as referees. A function the lesson asks the student to write in NumPy could hand its whole
computation to them: a forward pass that is `torch_conv(x, w, b, stride, pad)`, a backward pass that is a
full convolution by `F.conv2d`, `F.conv_transpose2d` or `torch.nn.grad.conv2d_input` (none of which is
autograd, so `grader.by_hand` lets them run). While a function wrapped by `numpy_only` runs, a
TorchFunctionMode refuses every torch function, whatever name the student reached it by (`torch.conv2d`,
a Tensor method, `torch.ops.aten...`): the check prints the refusal (code `forbidden-call`, the one of
`grader.forbid_calls`) and raises `ForbiddenCall`, so the cell scores nothing.

    out, cache = numpy_only(conv_forward_naive)(x, w, b, conv_param)
    dx, dw, db = numpy_only(by_hand(conv_backward_naive))(dout, cache)
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from ..by_hand import ForbiddenCall
from ..i18n import N_
from ..i18n import lesson_text as _
from ..report_lines import emit, fail_line, hint_line

__all__ = ["TORCH_MESSAGE", "numpy_only"]

TORCH_MESSAGE = N_("this exercise is written in NumPy: PyTorch is the referee of the checks, not the "
                   "answer")


@functools.cache
def _no_torch_class() -> type:
    """The TorchFunctionMode that refuses every torch function (a class made once, torch imported)."""
    from torch.overrides import TorchFunctionMode

    class NoTorch(TorchFunctionMode):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def __torch_function__(self, func, types, args=(), kwargs=None):
            called = getattr(func, "__name__", None) or str(func)
            message = _("{message} (it called torch's {called})")
            message = message.format(message=_(TORCH_MESSAGE), called=called)
            status = _("called torch's {called}").format(called=called)
            emit([fail_line(self.name, status), hint_line(message, "forbidden-call")],
                 [("forbidden-call", message)])
            raise ForbiddenCall(
                _("{name} called torch's {called} — {message} [forbidden-call]").format(
                    name=self.name, called=called, message=message
                )
            )

    return NoTorch


def numpy_only(fn: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
    """`fn`, run with every PyTorch function refused (module docstring). In a kernel that has not
    imported torch, fn runs as it is, and once more, guarded, if it imported torch."""
    label = name or getattr(fn, "__name__", "your function")

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        if "torch" not in sys.modules:
            result = fn(*args, **kwargs)
            if "torch" not in sys.modules:
                return result
        with _no_torch_class()(label):
            return fn(*args, **kwargs)

    return run
