"""Lesson 6's building blocks: the layers of lessons 4 and 5, and a check of the student's own.

In Colab a notebook opens alone, so lesson 6 cannot see the functions a student wrote in lessons
4 and 5. This module holds the course's versions, computed by PyTorch (forwards by its functions,
backwards by its autograd: referees, not NumPy answers to copy, and refused inside every graded
call of lessons 4 and 5), with the same names, signatures and caches as
those lessons' exercises (the cache of `affine_forward` is ``(x, w, b)``, that of `relu_forward`
is ``x``), so that a student's own forward can be paired with the course's backward and back:

- `affine_forward(x, w, b) -> (out, cache)`, `affine_backward(dout, cache) -> (dx, dw, db)`;
- `relu_forward(x) -> (out, cache)`, `relu_backward(dout, cache) -> dx`;
- `softmax_loss(x, y) -> (loss, dx)`, the mean softmax cross-entropy, stable for any scores.

`check_layers(functions)` runs whatever the notebook has bound under those five names against
these references (each backward fed the cache of the notebook's own forward) and prints one line
per function: whose it is (the student's, or the course's), and whether it agrees.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from ..._validate import float64_array
from ...checks import compare, report
from ...errors import CheckFailed
from ...hints import hint_args
from ...i18n import N_
from ...i18n import lesson_text as _
from ...referees import referee, referee_all, refereeing

__all__ = ["LAYER_NAMES", "affine_forward", "affine_backward", "relu_forward", "relu_backward",
           "softmax_loss", "check_layers"]

LAYER_NAMES = ("affine_forward", "affine_backward", "relu_forward", "relu_backward", "softmax_loss")


def _leaf(a: Any) -> torch.Tensor:
    """A float64 tensor copy of `a` that records its gradient."""
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


def _grads(out: torch.Tensor, dout: Any, *leaves: torch.Tensor) -> list[np.ndarray]:
    """The gradients of sum(out * dout) with respect to `leaves`, by autograd, as NumPy arrays."""
    out.backward(torch.as_tensor(np.asarray(dout, dtype=np.float64)))
    return [leaf.grad.numpy() for leaf in leaves]


@referee
def affine_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, tuple]:
    """out = x flattened to (N, D), times w (D, M), plus b (M,): shape (N, M); cache (x, w, b).
    Computed by PyTorch (`F.linear`), in float64."""
    with refereeing():
        x64, w64, b64 = (torch.as_tensor(np.asarray(a, dtype=np.float64)) for a in (x, w, b))
        return F.linear(x64.reshape(x64.shape[0], -1), w64.T, b64).numpy(), (x, w, b)


@referee
def affine_backward(dout: np.ndarray, cache: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dout (N, M) and affine_forward's cache -> (dx shaped like x, dw (D, M), db (M,)), by PyTorch's
    autograd through the same F.linear."""
    with refereeing():
        x, w, b = (_leaf(a) for a in cache)
        out = F.linear(x.reshape(x.shape[0], -1), w.T, b)
        dx, dw, db = _grads(out, dout, x, w, b)
        return dx, dw, db


@referee
def relu_forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ReLU of x entry by entry (a new array, by `torch.relu`), and the cache x."""
    with refereeing():
        return torch.relu(torch.as_tensor(np.asarray(x, dtype=np.float64))).numpy(), x


@referee
def relu_backward(dout: np.ndarray, cache: np.ndarray) -> np.ndarray:
    """The gradient of the ReLU at the cached input x for the upstream dout, by PyTorch's autograd."""
    with refereeing():
        x = _leaf(cache)
        (dx,) = _grads(torch.relu(x), dout, x)
        return dx


@referee
def softmax_loss(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean softmax cross-entropy of scores x (N, C) for labels y (N,), and its gradient (N, C):
    `F.cross_entropy` and its autograd, in float64 (stable for any scores)."""
    with refereeing():
        scores = _leaf(x)
        loss = F.cross_entropy(scores, torch.as_tensor(np.asarray(y), dtype=torch.int64))
        loss.backward()
        return float(loss.item()), scores.grad.numpy()


_COURSE = {name: globals()[name] for name in LAYER_NAMES}


def check_close(name: str, actual: Any, expected: Any) -> None:
    """Silent when actual agrees with expected (relative error < 1e-7); else the ✗ line, its hint, and
    CheckFailed."""
    exp = float64_array(expected, "expected")
    row = compare(name, actual, exp, tol=1e-7, args=hint_args(exp.shape))
    if not row[0].passed:
        report([row])


def _problems(rng: np.random.Generator) -> list[dict[str, Any]]:
    """Fresh inputs: a batch with trailing axes, a batch of one, scores of size 1000."""
    cases = []
    for x_shape, m in [((4, 3, 2), 5), ((1, 7), 3)]:
        d = int(np.prod(x_shape[1:]))
        cases.append({"x": rng.normal(size=x_shape), "w": rng.normal(size=(d, m)), "b": rng.normal(size=m),
                      "dout": rng.normal(size=(x_shape[0], m)),
                      "label": _("x of shape {shape}").format(shape=x_shape)})
    return cases


def _check_affine(forward: Callable, backward: Callable, case: dict) -> None:
    out, cache = forward(case["x"].copy(), case["w"].copy(), case["b"].copy())
    expected_out = affine_forward(case["x"], case["w"], case["b"])[0]
    check_close(_("affine_forward's out ({label})").format(label=case["label"]), out, expected_out)
    expected = affine_backward(case["dout"], (case["x"], case["w"], case["b"]))
    got = backward(case["dout"].copy(), cache)
    for index, name in enumerate(("dx", "dw", "db")):
        label = _("affine_backward's {name} ({label})").format(name=name, label=case["label"])
        check_close(label, got[index], expected[index])


def _check_relu(forward: Callable, backward: Callable, case: dict) -> None:
    x = case["x"].reshape(case["x"].shape[0], -1)
    out, cache = forward(x.copy())
    check_close(_("relu_forward's out (x of shape {shape})").format(shape=x.shape), out, relu_forward(x)[0])
    dout = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    label = _("relu_backward's dx (x of shape {shape})").format(shape=x.shape)
    check_close(label, backward(dout.copy(), cache), relu_backward(dout, x))


def _check_softmax_loss(loss_fn: Callable, rng: np.random.Generator) -> None:
    cases = [(rng.normal(size=(5, 4)), _("5 examples")),
             (np.array([[1000.0, 0.0, -1000.0]]), _("scores ±1000"))]
    for x, label in cases:
        y = rng.integers(0, x.shape[1], size=x.shape[0])
        expected = softmax_loss(x, y)
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            loss, dx = loss_fn(x.copy(), y.copy())
        check_close(_("softmax_loss's loss ({label})").format(label=label), loss, expected[0])
        check_close(_("softmax_loss's dx ({label})").format(label=label), dx, expected[1])


def _whose(functions: Mapping[str, Any], names: tuple[str, ...]) -> str:
    mine = [name for name in names if functions.get(name) is not _COURSE[name]]
    if not mine:
        return _("the course's")
    if len(mine) == len(names):
        return _("yours")
    return _("yours ({names}) with the course's").format(names=", ".join(mine))


def _run(title: str, check: Callable[[], None]) -> bool:
    """One group of checks; prints and returns whether it passed (an exception counts as a failure)."""
    try:
        check()
    except CheckFailed:
        print(_("✗ {title}: see the line above").format(title=title))
        return False
    except Exception as err:  # a student's function that raises: say so, and go on with the rest
        line = _("✗ {title} raised {error}: {message}")
        print(line.format(title=title, error=type(err).__name__, message=err))
        return False
    return True


def check_layers(functions: Mapping[str, Any]) -> bool:
    """Check the five layer functions bound in `functions` (the notebook's globals()).

    Prints, for each layer, whose functions are bound (the student's or the course's) and the
    checks' ✓/✗ lines; returns True when all agree with the references of this module.
    """
    missing = [name for name in LAYER_NAMES if not callable(functions.get(name))]
    if missing:
        print(_("✗ no function named {names}: run the cell that imports the course's layers").format(
            names=", ".join(missing)
        ))
        return False
    rng = np.random.default_rng(606)
    groups = [
        (("affine_forward", "affine_backward"), N_("the affine layer"),
         lambda: [_check_affine(functions["affine_forward"], functions["affine_backward"], case)
                  for case in _problems(rng)]),
        (("relu_forward", "relu_backward"), N_("the ReLU"),
         lambda: [_check_relu(functions["relu_forward"], functions["relu_backward"], case)
                  for case in _problems(rng)]),
        (("softmax_loss",), "softmax_loss", lambda: _check_softmax_loss(functions["softmax_loss"], rng)),
    ]
    passed = True
    for names, title, check in groups:
        whose = _whose(functions, names)
        shown = _("{title}, {whose}").format(title=_(title), whose=whose)
        if _run(shown, check):
            lesson = 5 if title == "softmax_loss" else 4
            print(_("✓ {title}: agrees with lesson {lesson}").format(title=shown, lesson=lesson))
        else:
            passed = False
    if passed:
        print(_("All five agree with lessons 4 and 5: section 5 can compose them."))
    else:
        print(_("Fix the function named above, or run the cell that imports the course's layers again "
                "to use those instead: section 5, and your TwoLayerNet if it calls a forward layer, use "
                "whatever these names hold when they run."))
    return passed


referee_all(globals())
