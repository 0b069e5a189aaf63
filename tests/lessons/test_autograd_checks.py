"""grader.lessons.autograd.checks: lesson 03's checks name the usual slips of a backward pass and of a
training step, and pass right answers.

The small engine and model below exist only here, in the tests (grader/ holds no solutions).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from grader import CheckFailed, Exercise, Exercises
from grader.lessons.autograd import checks


class V:
    """A minimal scalar engine: +, -, *, ** and tanh, with backward()."""

    def __init__(self, data, parents=()):
        self.data, self.grad, self._prev, self._backward = float(data), 0.0, parents, lambda: None

    def __add__(self, other):
        other = other if isinstance(other, V) else V(other)
        out = V(self.data + other.data, (self, other))

        def rule():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = rule
        return out

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, V) else V(other)
        out = V(self.data * other.data, (self, other))

        def rule():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = rule
        return out

    def __sub__(self, other):
        return self + (-1.0) * (other if isinstance(other, V) else V(other))

    def __rmul__(self, other):
        return self * other

    def __pow__(self, k):
        out = V(self.data**k, (self,))

        def rule():
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = rule
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = V(t, (self,))

        def rule():
            self.grad += (1 - t * t) * out.grad
        out._backward = rule
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._prev:
                    visit(p)
                order.append(v)
        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()


class Neuron:
    def __init__(self):
        self.w, self.b = [V(0.3), V(-0.6)], V(0.1)

    def __call__(self, x):
        return sum((wi * xi for wi, xi in zip(self.w, x, strict=True)), self.b).tanh()

    def parameters(self):
        return self.w + [self.b]


DATA = [([0.5, -1.0], 1.0), ([1.5, 0.3], -1.0)]


def _step(reset="before", sign=-1.0, loss_after=False):
    def train_step(model, data, lr, zero_grad=True):
        loss = sum((model(x) - y) ** 2 for x, y in data)
        params = model.parameters()
        if reset == "before" and zero_grad or reset == "always":
            for p in params:
                p.grad = 0.0
        loss.backward()
        if reset == "after" and zero_grad:
            for p in params:
                p.grad = 0.0
        for p in params:
            p.data += sign * lr * p.grad
        return sum((model(x) - y) ** 2 for x, y in data).data if loss_after else loss.data
    return train_step


def _train_case(zero_grad=True, **slip):
    def run():
        graded = Exercises({"train_step": _step(**slip)}, Exercise("train_step"))
        model = Neuron()
        checks.check_train_step(graded.train_step, model, model.parameters(), DATA, 0.1, 0.7, zero_grad,
                                loss_label="loss", params_label="parameters")
    return run


HAND = checks.circuit_formula(0.5, 1.4)

#: code -> a function that prints that code's hint (and raises): one example per lesson-03 code, for
#: tests/lessons/test_lesson_messages_pt.py (EXAMPLES) too.
HINT_EXAMPLES = {
    "autograd-no-seed": lambda: checks.check_circuit("circuit", (0.0, 0.0), HAND),
    "autograd-order": lambda: checks.check_backward("dv/dx", 0.0, 19.96, 1.0),
    "autograd-step-no-move": _train_case(reset="after"),
    "autograd-step-leftover": _train_case(reset="never"),
    "autograd-step-resets": _train_case(zero_grad=False, reset="always"),
    "autograd-step-loss-after": _train_case(loss_after=True),
    "autograd-step-uphill": _train_case(sign=1.0),
}
#: (code, failing example) for the tests that need one example per code (tests/lessons/__init__.py).
POSITIVE = list(HINT_EXAMPLES.items())


def test_every_code_has_an_example():
    assert set(HINT_EXAMPLES) == set(checks.HINT_CODES) == set(checks.SLIPS)


@pytest.mark.parametrize("code", sorted(HINT_EXAMPLES))
def test_a_known_slip_gets_its_hint(code, capsys):
    with pytest.raises(CheckFailed) as failed:
        HINT_EXAMPLES[code]()
    out = capsys.readouterr().out
    assert f"[{code}]" in out and f"[{code}]" in str(failed.value)


def test_the_circuit_formula_is_the_circuits_gradient():
    def L(x, y):
        return math.tanh(x * y * (x + y)) + x
    h = 1e-6
    for x, y in [(0.5, 1.4), (-0.3, 0.9), (2.0, -3.0)]:
        numeric = ((L(x + h, y) - L(x - h, y)) / (2 * h), (L(x, y + h) - L(x, y - h)) / (2 * h))
        assert np.allclose(checks.circuit_formula(x, y), numeric, rtol=1e-7, atol=1e-9)


def test_right_answers_pass(capsys):
    checks.check_circuit("circuit", HAND, HAND)
    checks.check_backward("dv/dx", 19.96, 19.96, 1.0)
    for zero_grad in (True, False):
        _train_case(zero_grad=zero_grad)()
    assert "✗" not in capsys.readouterr().out


def test_a_missing_seed_is_named_whatever_the_input_grad(capsys):
    with pytest.raises(CheckFailed, match="autograd-no-seed"):
        checks.check_backward("dv/dx", 3.0, 19.96, 0.0)


class _NoSlope(Neuron):
    """A neuron whose tanh node hands its grad on without the slope 1 - t²."""

    def __call__(self, x):
        z = sum((wi * xi for wi, xi in zip(self.w, x, strict=True)), self.b)
        out = V(math.tanh(z.data), (z,))

        def rule():
            z.grad += out.grad
        out._backward = rule
        return out


@pytest.mark.parametrize(("kind", "passes"), [(Neuron, True), (_NoSlope, False)])
def test_mlp_gradients_judge_every_parameter_and_put_the_parameters_back(kind, passes, capsys):
    graded = Exercises({"MLP": kind}, Exercise("MLP"))
    model = kind()
    params = model.parameters()
    before = [p.data for p in params]
    if passes:
        checks.check_mlp_gradients(graded, model, params, DATA, "grads")
    else:
        with pytest.raises(CheckFailed):
            checks.check_mlp_gradients(graded, model, params, DATA, "grads")
    assert [p.data for p in params] == before
    assert ("✓" if passes else "✗") in capsys.readouterr().out
