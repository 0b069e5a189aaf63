"""Lesson 13's references and hints for its visible checks (Huber loss, FLOP count, softplus, the
paths out of h) and for the bug hunt of section 5, kept out of the notebook so that the check cells
a student reads do not spell out the formulas the exercises ask them to derive.

Every function reads what a student's code returned through the trusted path first
(`grader.trusted`), and prints hints through `grader.show_hint`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from ...checks import compare, report
from ...hints import Hint, hint_args
from ...i18n import N_, returned_by
from ...i18n import lesson_text as _
from ...referees import referee_all
from ...report_lines import show_hint
from ...trusted import as_array, as_float

__all__ = ["HINT_CODES", "check_flops", "dh_parts_reference", "gradient_symptoms", "huber_hints",
           "huber_loss_hints", "softplus_reference_dx"]

#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "flops-first-layer-dx": "a backward FLOP count with the input gradient of the first layer, which the "
    "network's input does not need (lesson 13).",
    "flops-one-backward-product": "a backward FLOP count with one matrix product per layer, the weight "
    "gradient or the input gradient missing (lesson 13).",
    "flops-no-factor-two": "a FLOP count of a·b·c for an (a, b) by (b, c) product, the multiply-add counted "
    "once instead of twice (lesson 13).",
}


def _huber_dpred(err: np.ndarray, delta: float) -> np.ndarray:
    """dL/dpred of the mean Huber loss for the errors err (any shape, M entries)."""
    return np.clip(err, -delta, delta) / err.size


def huber_loss_hints(pred: np.ndarray, target: np.ndarray, loss: float) -> None:
    """Print a hint when a Huber loss value (delta = 1) is the mean of ½·clip(e, −1, 1)²."""
    err = np.asarray(pred, dtype=np.float64) - np.asarray(target, dtype=np.float64)
    value = float(as_array(loss, returned_by("huber_loss", "loss"), shape=()))
    if np.isclose(value, np.mean(0.5 * np.clip(err, -1, 1) ** 2), rtol=1e-9):
        show_hint(_("your loss is the mean of ½·clip(e)², the clipped error squared: "
                  "that is the DQN bug, not Huber."))


def huber_hints(pred: np.ndarray, target: np.ndarray, delta: float, dpred: Any) -> None:
    """Print a hint when dpred (any shape; read as plain data) matches a known wrong Huber gradient.

    pred, target: float64 arrays of one shape S; delta > 0; dpred: what huber_loss returned.
    """
    dpred = as_array(dpred, returned_by("huber_loss", "dpred"))      # plain data from here on
    err = np.asarray(pred, dtype=np.float64) - np.asarray(target, dtype=np.float64)
    M = err.size
    if dpred.shape != err.shape:
        return
    right = _huber_dpred(err, delta)

    def same(candidate: np.ndarray) -> bool:
        return bool(np.allclose(dpred, candidate, rtol=1e-6, atol=1e-12))

    if M > 1 and same(right * M):
        show_hint(_("your dpred is {M} times too big: the loss is a mean over all {M} elements, "
                    "divide by pred.size.").format(M=M))
    elif err.ndim > 1 and same(right * M / err.shape[0]):
        show_hint(_("you divided by N = pred.shape[0] = {N}; the mean is over all {M} elements "
                    "(pred.size).").format(N=err.shape[0], M=M))
    elif same(err * (np.abs(err) < delta) / M):
        show_hint(_("your dpred is zero wherever |error| > delta: that is the gradient of the clipped error, "
                  "squared (the DQN bug). Look again at the slope of the linear piece."))
    elif delta != 1.0 and same(_huber_dpred(err, 1.0)):
        show_hint(_("your dpred switches pieces at 1, but delta = {delta}: use the delta you are "
                    "given.").format(delta=delta))
    elif delta != 1.0 and same(np.clip(err / delta, -1.0, 1.0) / M):
        show_hint(_("your dpred is lesson 7's slope taken at e / delta, as it is: "
                  "l_delta(e) = delta² · l_1(e / delta), so the chain rule also brings in "
                  "the factor delta² in front and the slope 1/delta of e / delta."))
    elif delta != 1.0 and same(delta**2 * np.clip(err / delta, -1.0, 1.0) / M):
        show_hint(_("your dpred is delta² times lesson 7's slope at e / delta: "
                  "the chain rule through e / delta also multiplies by its slope, 1/delta."))

def _flops_slips(B: int, n: int, depth: int, forward: float, backward: float) -> dict[int, str]:
    """{row: hint code} for the counts (forward, backward) a known slip gives (row 0 forward, 1 backward)."""
    one = 2 * B * n * n                                 # one (B, n) by (n, n) product
    slips = {}
    if depth > 1 and backward == 2 * depth * one:
        slips[1] = "flops-first-layer-dx"
    elif depth > 1 and backward == depth * one:
        slips[1] = "flops-one-backward-product"
    elif backward * 2 == (2 * depth - 1) * one:
        slips[1] = "flops-no-factor-two"
    if forward * 2 == depth * one:
        slips[0] = "flops-no-factor-two"
    return slips


#: code -> the hint shown when a FLOP count equals what that slip gives.
_FLOPS_HINTS: dict[str, str] = {
    "flops-first-layer-dx": N_("your backward count has two products per layer: the first layer's input is "
                               "the network's input, which needs no gradient, so nothing computes its dX."),
    "flops-one-backward-product": N_("your backward count has one product per layer, as many as the "
                                     "forward pass: which gradients does a layer's backward compute, and "
                                     "which of them does somebody need?"),
    "flops-no-factor-two": N_("this count is half the measured one: a product of an (a, b) matrix by a "
                              "(b, c) matrix counts 2abc FLOPs, a multiplication and an addition for each of "
                              "its abc terms."),
}


def check_flops(B: int, n: int, depth: int, counts: tuple[Any, Any], measured: tuple[float, float],
                labels: tuple[str, str]) -> None:
    """predicted_flops(B, n, depth)'s (forward, backward) against the measured counts, one ✓/✗ line
    each (labelled `labels`); when a wrong count is what a known slip gives, its line's hint names
    that slip (and CheckFailed carries it). Raises CheckFailed when either count is off."""
    __tracebackhide__ = True
    whats = ("the forward FLOPs", "the backward FLOPs")
    counts = tuple(as_float(value, what) for value, what in zip(counts, whats, strict=True))
    slips = _flops_slips(B, n, depth, *counts)
    rows = []
    for row, (label, count, truth) in enumerate(zip(labels, counts, measured, strict=True)):
        result, line = compare(label, count, np.float64(truth), tol=1e-7)
        if not result.passed and row in slips:
            code = slips[row]
            result = replace(result, hint=Hint(code, _(_FLOPS_HINTS[code])))
        rows.append((result, line))
    report(rows)


def dh_parts_reference(dr: np.ndarray, dg: np.ndarray, W2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(through_skip, through_W2): the gradient reaching h through each of its two uses alone, by
    autograd in float64, for r = relu(g) + h and g = h @ W2 + b2 with the upstream dr at r and dg at g."""
    h = torch.zeros(np.shape(dr), dtype=torch.float64, requires_grad=True)
    (skip,) = torch.autograd.grad(h * 1.0, h, torch.tensor(np.asarray(dr, dtype=np.float64)))
    (layer,) = torch.autograd.grad(h @ torch.tensor(np.asarray(W2, dtype=np.float64)), h,
                                   torch.tensor(np.asarray(dg, dtype=np.float64)))
    return skip.numpy(), layer.numpy()


#: hint code -> what that slip looks like in one of the buggy network's gradients, in words, without
#: its repair: section 5's demonstrations show the evidence, and each folded "Bug N, found" explains it.
_SYMPTOMS: dict[str, str] = {
    "sum-vs-mean": N_("{name} is 1/{n} of the right value, and {n} is the batch size."),
    "sum-vs-mean-times": N_("{name} is {n} times the right value, and {n} is the batch size."),
    "transpose": N_("{name} is the right matrix transposed: its shape is right only because the matrix "
                    "is square."),
    "slope-from-input": N_("{name} is the gradient the tanh received times 1 − a², its slope taken at its "
                           "input a."),
}


def gradient_symptoms(found: Mapping[str, Any], reference: Mapping[str, Any], names: Sequence[str],
                      **hints: Any) -> None:
    """For each name in names: one ✓/✗ line, d<name> and its relative error, of found[name] against
    reference[name] (float64 arrays of one shape); under a wrong one whose slip the toolkit's hint
    engine recognises (hints: the engine's keyword arguments, batch_size, upstream, layer_input,
    layer_output), what is off, in words, and not how to repair it. Prints; raises nothing.
    For the buggy network of section 5, whose arrays are the lesson's, not a student's."""
    for name in names:
        expected = np.asarray(reference[name], dtype=np.float64)
        label = f"d{name}"
        # 1e-6: the lesson's threshold for "right" everywhere in section 5 (first_wrong's tol)
        result, line = compare(label, found[name], expected, tol=1e-6,
                               args=hint_args(expected.shape, **hints))
        print(line)
        code = result.hint.code if result.hint is not None else None
        if result.passed or code not in _SYMPTOMS:
            continue
        n = hints.get("batch_size")
        if code == "sum-vs-mean" and n and np.allclose(np.asarray(found[name], dtype=np.float64),
                                                       n * expected):
            code = "sum-vs-mean-times"
        print("    → " + _(_SYMPTOMS[code]).format(name=label, n=n))


def softplus_reference_dx(x: Any, upstream: Any = None) -> np.ndarray:
    """dL/dx of L = sum(upstream * softplus(x)) as a float64 array of x's shape (upstream: ones
    when None), computed without overflow. x, upstream: tensors or arrays of one shape."""
    x = np.asarray(x, dtype=np.float64)
    small = np.exp(-np.abs(x))                         # in (0, 1]
    slope = np.where(x >= 0, 1.0 / (1.0 + small), small / (1.0 + small))
    return slope if upstream is None else np.asarray(upstream, dtype=np.float64) * slope


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
