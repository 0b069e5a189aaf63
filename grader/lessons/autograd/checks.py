"""Lesson 03's checks: the backward passes against their references, with the usual mistakes named.

`circuit_formula(x, y)` is lesson 2's circuit differentiated as one formula, the reference `HAND`
of the lesson (the formula itself is shown in the lesson only after the local rules are written).
`check_circuit` and `check_backward` compare a backward pass's gradients with theirs and name a
backward pass that never seeded the output's grad, or that ran a rule before its node's grad was
complete. `check_train_step` runs one step of the student's `train_step` and compares the loss it
returned and the parameters after it with numerical gradients, naming the usual slips (the
reset after `backward()`, left-over grads, the loss after the step, a step uphill).
`check_mlp_gradients` calls the student's `backward()` on a network's loss and compares every
parameter's grad with a numerical gradient (the harness stays out of the notebook's view, since it
is most of a training step).

Every check prints the toolkit's ✓/✗ line (`grader.checks.compare` and `report`, as `check_close`
does); a known mistake's hint (`SLIPS`, code in `HINT_CODES`) replaces the toolkit's generic one.
What the student's code returned is read through the toolkit's trusted path first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...checks import check_gradient, compare, report
from ...hints import Hint
from ...i18n import N_, returned_by
from ...i18n import lesson_text as _
from ...numgrad import eval_numerical_gradient, rel_error
from ...referees import referee_all
from ...trusted import as_float

__all__ = ["HINT_CODES", "SLIPS", "check_backward", "check_circuit", "check_mlp_gradients",
           "check_train_step", "circuit_formula"]

#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "autograd-no-seed": "a backward pass that never put dL/dL = 1 in the output's grad, so every rule "
    "handed on 0 (lesson 03).",
    "autograd-order": "a backward pass that ran a node's rule before that node's grad was complete "
    "(parents first, or c before d) (lesson 03).",
    "autograd-step-no-move": "a training step whose parameters did not move: grads reset after "
    "backward(), or no update (lesson 03).",
    "autograd-step-leftover": "a training step that let the grads left over from before into the update "
    "(no reset before backward()) (lesson 03).",
    "autograd-step-resets": "a training step that reset the grads although zero_grad=False (lesson 03).",
    "autograd-step-loss-after": "a training step that returned the loss after the update instead of "
    "before it (lesson 03).",
    "autograd-step-uphill": "a training step that moved the parameters along the gradient instead of "
    "against it (lesson 03).",
}

#: code -> the hint shown when a result is what that mistake gives.
SLIPS: dict[str, str] = {
    "autograd-no-seed": N_(
        "no gradient entered the graph: when the first rule ran, the output's grad was not dL/dL, so "
        "every rule handed on 0. What is dL/dL?"),
    "autograd-order": N_(
        "the gradient did not get through: some rules ran while their node's grad was still "
        "incomplete. When is a node's grad complete, and which order of the nodes guarantees it?"),
    "autograd-step-no-move": N_(
        "the parameters did not move: the step used gradients of 0. Were the grads reset after "
        "backward() instead of before it, or was the update left out?"),
    "autograd-step-leftover": N_(
        "the grads left over from before went into the step: backward() adds to every grad, so "
        "with zero_grad=True they must be reset before it."),
    "autograd-step-resets": N_(
        "the grads were reset although zero_grad=False: that switch must leave them as they are."),
    "autograd-step-loss-after": N_("this is the loss after the step; train_step returns the loss before it."),
    "autograd-step-uphill": N_(
        "the parameters moved along the gradient, uphill: gradient descent steps against it."),
}

#: A result "is" a known mistake when it equals what that mistake gives to this relative error.
SLIP_RTOL = 1e-7


def circuit_formula(x: float, y: float) -> tuple[float, float]:
    """(dL/dx, dL/dy) of lesson 2's circuit L = tanh(xy(x + y)) + x, from its closed form."""
    c = x * y * (x + y)
    slope = 1.0 - math.tanh(c) ** 2
    return slope * (2 * x * y + y * y) + 1.0, slope * (x * x + 2 * x * y)


def _report(name: str, actual: Any, expected: Any, tol: float,
            slips: Sequence[tuple[str, Callable[[], Any]]]) -> None:
    """One ✓/✗ line; when `actual` is what a slip gives (SLIP_RTOL), that slip's hint; CheckFailed."""
    __tracebackhide__ = True
    expected = np.asarray(expected, dtype=np.float64)
    result, line = compare(name, actual, expected, tol=tol)
    if not result.passed:
        mine = np.asarray(actual, dtype=np.float64)   # actual: plain floats, read by the caller
        for code, value in slips:
            wrong = np.asarray(value(), dtype=np.float64)
            if wrong.shape == mine.shape and np.isfinite(wrong).all() and rel_error(mine, wrong) < SLIP_RTOL:
                result = replace(result, hint=Hint(code, _(SLIPS[code])))
                break
    report([(result, line)])


def check_circuit(label: str, grads: Sequence[float], expected: Sequence[float]) -> None:
    """The (dL/dx, dL/dy) a hand-run backward pass of lesson 2's circuit returned (plain floats)
    against `expected`: nothing arrived (no seed), or only the direct path x -> L (a rule ran too
    early), is named."""
    __tracebackhide__ = True
    slips = [("autograd-no-seed", lambda: (0.0, 0.0)), ("autograd-order", lambda: (1.0, 0.0))]
    _report(label, np.array(grads, dtype=np.float64), expected, 1e-7, slips)


def check_backward(label: str, grad: float, expected: float, output_grad: float) -> None:
    """An input's grad after `out.backward()` (plain float) against `expected`, with the output's own
    grad afterwards: a grad that is not 1 there is a missing seed; a seed and an input grad of 0 is a
    rule run before its node's grad was complete."""
    __tracebackhide__ = True
    slips = [("autograd-no-seed", lambda: grad if output_grad != 1.0 else math.nan),
             ("autograd-order", lambda: 0.0 if output_grad == 1.0 else math.nan)]
    _report(label, np.float64(grad), expected, 1e-7, slips)


def _squared_error(model: Any, params: Sequence[Any], data: Sequence[tuple[Any, float]]
                   ) -> tuple[np.ndarray, Callable[[np.ndarray], float]]:
    """(theta, loss_at): the parameters' values now, shape (P,), and the function that sets them to
    `values` (P,) and returns the model's summed squared error on `data`, a float."""
    theta = np.array([as_float(p.data, f"parameter {i}'s .data") for i, p in enumerate(params)])

    def loss_at(values: np.ndarray) -> float:
        for p, value in zip(params, values, strict=True):
            p.data = float(value)
        return as_float(sum((model(x) - y) ** 2 for x, y in data).data, "the loss's .data")

    return theta, loss_at


def check_train_step(train_step: Callable[..., Any], model: Any, params: Sequence[Any],
                     data: Sequence[tuple[Sequence[float], float]], lr: float, planted: float,
                     zero_grad: bool = True, *, loss_label: str, params_label: str) -> None:
    """One call `train_step(model, data, lr, zero_grad=zero_grad)` after every parameter's grad was
    set to `planted` (left over from an earlier step), against numerical gradients: the loss it
    returned (before the step) and the parameters after it. `params` are model.parameters(), read
    by the caller. Prints two ✓/✗ lines, with the hint of a known slip; CheckFailed when one fails."""
    __tracebackhide__ = True
    theta, loss_at = _squared_error(model, params, data)

    grad = eval_numerical_gradient(loss_at, theta.copy())
    loss = loss_at(theta)                       # puts the parameters back
    for p in params:
        p.grad = planted                        # left over from an earlier step
    expected = theta - lr * (grad if zero_grad else grad + planted)
    loss_returned = as_float(train_step(model, data, lr, zero_grad=zero_grad), returned_by("train_step"))
    now = np.array([as_float(p.data, f"parameter {i}'s .data after the step") for i, p in enumerate(params)])
    loss_after = loss_at(now)                   # the parameters stay where the step put them
    _report(loss_label, np.float64(loss_returned), loss, 1e-9,
            [("autograd-step-loss-after", lambda: loss_after)])
    wrong_reset = ("autograd-step-leftover", lambda: theta - lr * (grad + planted)) if zero_grad else (
        "autograd-step-resets", lambda: theta - lr * grad)
    slips = [("autograd-step-no-move", lambda: theta), wrong_reset,
             ("autograd-step-uphill", lambda: 2 * theta - expected)]
    _report(params_label, now, expected, 1e-6, [s for s in slips if rel_error(s[1](), expected) > 1e-4])



def check_mlp_gradients(graded: Any, net: Any, params: Sequence[Any],
                        data: Sequence[tuple[Sequence[float], float]], label: str, tol: float = 1e-6) -> None:
    """The grads that `backward()` leaves on every parameter of `net` (`params`: its parameters(),
    read by the caller) from the sum of squared errors over `data`, starting from grads of 0, against
    numerical gradients (each parameter's data nudged). The student's code (the network and the
    engine) runs under exercise "MLP"'s rules of `graded`; the parameters get their values back.
    Prints the toolkit's ✓/✗ line; CheckFailed when it fails."""
    __tracebackhide__ = True
    theta, loss_at = _squared_error(net, params, data)

    try:
        for p in params:
            p.grad = 0.0
        with graded.running("MLP"):
            sum((net(x) - y) ** 2 for x, y in data).backward()
        analytic = np.array([as_float(p.grad, f"parameter {i}'s .grad after backward()")
                             for i, p in enumerate(params)])
        check_gradient(label, loss_at, theta.copy(), analytic, tol=tol)
    finally:
        for p, value in zip(params, theta, strict=True):   # the parameters as they were
            p.data = float(value)


referee_all(globals())
