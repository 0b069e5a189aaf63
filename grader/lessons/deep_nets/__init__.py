"""Lesson 08 (training deep nets by hand): comparing a hand-written gradient with autograd, and
the views and experiments of the lesson.

- `compare_to_torch(name, mine, reference)` prints one row: whether a gradient you computed
  is bitwise equal to PyTorch's (exact), equal up to rounding (close, ``np.allclose``'s default
  tolerances) and the largest absolute difference; `comparison_table(rows)` prints several
  under one header. Karpathy's "becoming a backprop ninja" checks each hand-written
  intermediate this way.
- `show_digits(X, y)`: a row of digits as 8×8 images.
- `array_passes(backward, dout, cache)`: how many NumPy operations a backward pass runs on whole
  (N, D) arrays, counted as it runs (a deterministic measure of its work, unlike a timing).

Nothing here implements a graded function. The experiments (`grader.lessons.deep_nets.experiments`)
and the widget (`grader.lessons.deep_nets.views`) *call* the student's batchnorm functions,
passed in by the notebook, through `grader.lessons.student_calls`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validate import describe, fmt_shape
from ...errors import ToolkitInputError
from ...i18n import N_
from ...i18n import lesson_text as _
from ...referees import referee_all
from ...trusted import plain_ndarray
from ..student_calls import NotReady, call_student
from .experiments import DeepNetRun, deep_net_gradients, train_deep_net
from .views import BatchNormExplorer

__all__ = [
    "BatchNormExplorer",
    "Comparison",
    "DeepNetRun",
    "NotReady",
    "array_passes",
    "call_student",
    "compare",
    "compare_to_torch",
    "comparison_table",
    "deep_net_gradients",
    "show_digits",
    "train_deep_net",
]

_HEADER = N_("{quantity:<14} {exact:>5} {close:>5}   largest |difference|")


@dataclass(frozen=True)
class Comparison:
    """How a hand-written gradient compares with the reference.

    name — what it is; exact — bitwise equal; close — np.allclose (rtol 1e-5, atol 1e-8);
    max_diff — the largest absolute difference (inf when the shapes differ or a value is
    missing); problem — why the comparison could not be made ("" when it could).
    """

    name: str
    exact: bool
    close: bool
    max_diff: float
    problem: str = ""

    def row(self) -> str:
        """The comparison as one line under `comparison_table`'s header."""
        if self.problem:
            return f"{self.name:<14} {_('no'):>5} {_('no'):>5}   {self.problem}"
        yes = {True: _("yes"), False: _("no")}
        return f"{self.name:<14} {yes[self.exact]:>5} {yes[self.close]:>5}   {self.max_diff:.1e}"


def _reference_array(reference: Any, name: str) -> np.ndarray:
    """The reference gradient: a tensor's .grad (float64), or an array as it is."""
    import torch

    if isinstance(reference, torch.Tensor):
        if not (reference.is_leaf or reference.retains_grad) or reference.grad is None:
            raise ToolkitInputError(
                f"the reference tensor for {name} has no .grad: call .retain_grad() on it before "
                "loss.backward() (tensors computed from others keep no gradient otherwise).")
        return reference.grad.detach().cpu().to(torch.float64).numpy().copy()
    arr = plain_ndarray(reference)
    if arr is None or arr.dtype.kind not in "biuf":
        raise ToolkitInputError(_("the reference for {name} must be a torch tensor with a .grad or a "
                                  "numeric array, got {got}.").format(name=name, got=describe(reference)))
    return np.array(arr, dtype=np.float64)


def compare(name: str, mine: Any, reference: Any) -> Comparison:
    """`mine` (any array-like, e.g. a student's numpy gradient) against `reference`, silently.

    Inputs: name — a label; mine — the gradient computed by hand; reference — a PyTorch tensor
    whose .grad is the reference (autograd after .retain_grad()), or an array.
    Returns: a `Comparison`. Raises ToolkitInputError when the reference is unusable.
    """
    if not isinstance(name, str):
        raise ToolkitInputError(_("name must be a string, got {got}.").format(got=describe(name)))
    ref = _reference_array(reference, name)
    arr = plain_ndarray(mine)
    if arr is None or arr.dtype.kind not in "biuf":
        return Comparison(name, False, False, float("inf"), f"yours is {describe(mine)}")
    arr = np.array(arr, dtype=np.float64)
    if arr.shape != ref.shape:
        return Comparison(name, False, False, float("inf"),
                          f"yours has shape {fmt_shape(arr.shape)}, PyTorch's {fmt_shape(ref.shape)}")
    with np.errstate(all="ignore"):
        diff = np.abs(arr - ref)
    max_diff = float(diff.max(initial=0.0)) if np.all(np.isfinite(diff)) else float("inf")
    return Comparison(name, bool(np.array_equal(arr, ref)), bool(np.allclose(arr, ref)), max_diff)


def compare_to_torch(name: str, mine: Any, reference: Any) -> Comparison:
    """Print one row (name, exact, close, largest difference) and return the `Comparison`."""
    result = compare(name, mine, reference)
    print(result.row())
    return result


def comparison_table(rows: Iterable[Sequence[Any]]) -> list[Comparison]:
    """Print a header and one row per (name, mine, reference) triple; return the Comparisons."""
    triples = list(rows)
    for row in triples:
        if not isinstance(row, Sequence) or len(row) != 3:
            raise ToolkitInputError(
                f"every row must be a (name, mine, reference) triple, got {describe(row)}.")
    print(_(_HEADER).format(quantity=_("quantity"), exact=_("exact"), close=_("close")))
    return [compare_to_torch(*row) for row in triples]


def show_digits(X: np.ndarray, y: np.ndarray, count: int = 10) -> Any:
    """The first `count` rows of X as 8×8 images, titled with their labels; returns the Figure."""
    import matplotlib.pyplot as plt

    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 64 or len(y) != len(X):
        raise ToolkitInputError(_("show_digits needs X of shape (N, 64) and y of shape (N,), got "
                                  "{x} and {y}.").format(x=fmt_shape(X.shape), y=fmt_shape(y.shape)))
    count = min(count, len(X))
    fig, axes = plt.subplots(1, count, figsize=(1.1 * count, 1.4))
    for ax, image, label in zip(np.atleast_1d(axes), X[:count], y[:count], strict=True):
        ax.imshow(image.reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
        ax.set_title(str(label), fontsize=10)
        ax.axis("off")
    return fig


class _Counted(np.ndarray):
    """An ndarray that counts the NumPy operations run on it (and on what is computed from it)."""

    tally: dict[str, int] | None = None  # {"full": N * D, "count": ...} while array_passes runs

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, out: Any = None,
                        **kwargs: Any) -> Any:
        plain = [np.asarray(a) if isinstance(a, _Counted) else a for a in inputs]
        if out is not None:
            kwargs["out"] = tuple(np.asarray(o) if isinstance(o, _Counted) else o for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        results = result if isinstance(result, tuple) else (result,)
        tally = _Counted.tally
        if tally is not None and max(np.size(a) for a in [*plain, *results]) >= tally["full"]:
            tally["count"] += 1
        if out is not None:
            return out[0] if len(out) == 1 else out
        wrapped = tuple(r.view(_Counted) if isinstance(r, np.ndarray) else r for r in results)
        return wrapped if isinstance(result, tuple) else wrapped[0]


def _counted(obj: Any) -> Any:
    """obj with every ndarray in it (through dicts, tuples and lists) replaced by a counting copy."""
    if isinstance(obj, np.ndarray):
        return np.array(obj).view(_Counted)
    if isinstance(obj, dict):
        return {key: _counted(value) for key, value in obj.items()}
    if isinstance(obj, (tuple, list)):
        return type(obj)(_counted(value) for value in obj)
    return obj


def array_passes(backward: Callable[..., Any], dout: np.ndarray, cache: Any) -> int:
    """How many NumPy operations `backward(dout, cache)` runs on whole (N, D) arrays.

    Inputs: backward — e.g. a student's batchnorm_backward; dout — array (N, D); cache — what the
    matching forward returned (the arrays in a dict, tuple or list are followed).
    Returns the number of ufunc calls (``*``, ``+``, ``-``, ``/``, ``**``, ``np.sqrt``, ``.sum``,
    ``.mean``, ...) with an operand or a result of at least N·D entries: each costs about N·D
    additions or multiplications, while the operations on (D,) statistics, N times cheaper, are
    not counted. Deterministic, unlike a timing. Operations on arrays the function makes plain
    again (``np.asarray``) or that are not ufuncs (``np.einsum``) escape the count. Errors raised
    by `backward` propagate.
    """
    dout = np.asarray(dout, dtype=np.float64)
    if dout.ndim != 2:
        message = _("array_passes needs dout of shape (N, D), got {shape}.")
        raise ToolkitInputError(message.format(shape=fmt_shape(dout.shape)))
    counted_dout, counted_cache = _counted(dout), _counted(cache)
    _Counted.tally = {"full": dout.size, "count": 0}
    try:
        backward(counted_dout, counted_cache)
        return _Counted.tally["count"]
    finally:
        _Counted.tally = None


referee_all(globals())
