"""Alternative correct solutions and typical mistakes for course/03_autograd.

Autograded with the real nbgrader by tests/test_grading.py: every alternative must score full
marks; every mistake must score 0 on exactly the cells in `must_fail` and full marks elsewhere.

Most mistakes are one-line edits of a correct engine, made here with `_edit` from the
instructor's solution cell (or from the alternative below) so that each one differs from a
right answer by exactly the bug it names; `_edit` fails loudly if the line it edits is gone.
"""

import json
from pathlib import Path

_NOTEBOOK = Path(__file__).resolve().parents[2] / "course" / "03_autograd" / "03_autograd.ipynb"


def _solution(grade_id: str) -> str:
    cells = json.loads(_NOTEBOOK.read_text())["cells"]
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution") and meta.get("grade_id") == grade_id:
            return "".join(cell["source"])
    raise KeyError(f"no solution cell {grade_id!r} in {_NOTEBOOK}")


def _edit(source: str, old: str, new: str) -> str:
    if source.count(old) != 1:
        raise ValueError(f"expected exactly one {old!r} in the source, found {source.count(old)}")
    return source.replace(old, new)


# A different engine: every operation with a rule of its own (no composition), micrograd's set
# of parents, an iterative topological sort with an explicit stack (no recursion limit),
# sigmoid built from exp, + and / (so its graph has four nodes, not one), relu via max.
_VALUE_OWN_RULES = """\
import math


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = float(data)
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __repr__(self):
        return f"Value({self.data}, grad={self.grad})"

    @staticmethod
    def _wrap(other):
        return other if isinstance(other, Value) else Value(other)

    def __add__(self, other):
        other = Value._wrap(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Value._wrap(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data ** k, (self,), "pow")

        def _backward():
            self.grad += k * (self.data ** (k - 1)) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        out = Value(-self.data, (self,), "neg")

        def _backward():
            self.grad -= out.grad

        out._backward = _backward
        return out

    def __sub__(self, other):
        other = Value._wrap(other)
        out = Value(self.data - other.data, (self, other), "-")

        def _backward():
            self.grad += out.grad
            other.grad -= out.grad

        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = Value._wrap(other)
        out = Value(self.data / other.data, (self, other), "/")

        def _backward():
            self.grad += out.grad / other.data
            other.grad += -self.data / other.data ** 2 * out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return Value._wrap(other) + self

    def __rsub__(self, other):
        return Value._wrap(other) - self

    def __rmul__(self, other):
        return Value._wrap(other) * self

    def __rtruediv__(self, other):
        return Value._wrap(other) / self

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward():
            self.grad += (1 - out.data ** 2) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += math.exp(self.data) * out.grad

        out._backward = _backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), "log")

        def _backward():
            self.grad += (1 / self.data) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        return 1 / (1 + (-self).exp())

    def relu(self):
        out = Value(max(0.0, self.data), (self,), "relu")

        def _backward():
            if self.data > 0:
                self.grad += out.grad

        out._backward = _backward
        return out

    def backward(self):
        order, done = [], set()
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)  # after all of its parents
                continue
            if node in done:
                continue
            done.add(node)
            stack.append((node, True))
            for parent in node._prev:
                if parent not in done:
                    stack.append((parent, False))
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
"""

ALTERNATIVES = {
    "value": _VALUE_OWN_RULES,
    # Layers that always return lists (the MLP unwraps a single output), biases listed first,
    # Gaussian initial weights, and an explicit loop instead of sum().
    "mlp": """\
import random


class Neuron:
    def __init__(self, nin):
        self.w = [Value(random.gauss(0.0, 0.7)) for _ in range(nin)]
        self.b = Value(random.gauss(0.0, 0.1))

    def __call__(self, x):
        total = self.b
        for i in range(len(self.w)):
            total = total + self.w[i] * x[i]
        return total.tanh()

    def parameters(self):
        return [self.b, *self.w]


class Layer:
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]

    def __call__(self, x):
        return [neuron(x) for neuron in self.neurons]

    def parameters(self):
        params = []
        for neuron in self.neurons:
            params.extend(neuron.parameters())
        return params


class MLP:
    def __init__(self, nin, nouts):
        self.layers = []
        for nout in nouts:
            self.layers.append(Layer(nin, nout))
            nin = nout

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x[0] if len(x) == 1 else x

    def parameters(self):
        biases = [p for layer in self.layers for n in layer.neurons for p in [n.b]]
        weights = [w for layer in self.layers for n in layer.neurons for w in n.w]
        return biases + weights
""",
}

_VALUE = _solution("value")

MISTAKES = [
    {
        # `=` instead of `+=`: right on chains, wrong wherever a value has several consumers,
        # so everything built on * (and -x = x * -1) that reuses a value.
        "name": "mul rule assigns instead of accumulating",
        "cells": {
            "value": _edit(
                _edit(
                    _VALUE,
                    "self.grad += other.data * out.grad",
                    "self.grad = other.data * out.grad",
                ),
                "other.grad += self.data * out.grad",
                "other.grad = self.data * out.grad",
            )
        },
        "must_fail": [
            "test_add_sub_neg",
            "test_mul_div_pow",
            "test_unary_functions",
            "test_reflected",
            "test_backward_order",
            "test_node_used_twice",
            "test_accumulate_across_calls",
            "test_vs_torch",
            "test_mlp_gradients",
        ],
    },
    {
        # The derivative of tanh taken from the input: 1 - x^2 instead of 1 - tanh(x)^2.
        "name": "tanh slope from the input",
        "cells": {
            "value": _edit(
                _VALUE,
                "self.grad += (1.0 - t * t) * out.grad",
                "self.grad += (1.0 - self.data**2) * out.grad",
            )
        },
        "must_fail": ["test_unary_functions", "test_vs_torch", "test_mlp_gradients"],
    },
    {
        # The exponent is not lowered: k * a**k instead of k * a**(k-1). Division (a * b**-1)
        # and the squared-error loss are built on **, so they break too.
        "name": "power rule keeps the exponent",
        "cells": {
            "value": _edit(
                _VALUE,
                "self.grad += k * self.data ** (k - 1) * out.grad",
                "self.grad += k * self.data**k * out.grad",
            )
        },
        "must_fail": [
            "test_mul_div_pow",
            "test_reflected",
            "test_node_used_twice",
            "test_vs_torch",
            "test_mlp_gradients",
        ],
    },
    {
        # An own rule for a / b whose denominator gradient lost its minus sign (in the
        # alternative engine, whose sigmoid is 1 / (1 + exp(-x)): sigmoid breaks as well).
        "name": "division rule without the minus sign",
        "cells": {
            "value": _edit(
                _VALUE_OWN_RULES,
                "other.grad += -self.data / other.data ** 2 * out.grad",
                "other.grad += self.data / other.data ** 2 * out.grad",
            )
        },
        "must_fail": [
            "test_mul_div_pow",
            "test_unary_functions",
            "test_reflected",
            "test_node_used_twice",
            "test_vs_torch",
        ],
    },
    {
        # 1 - v computed as v - 1.
        "name": "reflected subtraction in the wrong order",
        "cells": {
            "value": _edit(_VALUE, "return as_value(other) + (-self)", "return self - as_value(other)")
        },
        "must_fail": ["test_reflected", "test_vs_torch"],
    },
    {
        # Depth-first search without a visited set: a node reachable along several paths is
        # listed (and its rule run) once per path. Chains, trees and graphs where only inputs
        # are shared still come out right, so the per-operation checks pass.
        "name": "topological sort without a visited set",
        "cells": {
            "value": _edit(
                _VALUE,
                "            if v not in visited:\n",
                "            if True:\n",
            )
        },
        "must_fail": ["test_backward_order", "test_node_used_twice", "test_vs_torch", "test_mlp_gradients"],
    },
    {
        # Breadth-first from the output: each node is visited once, but possibly before a
        # deeper consumer has added its share. Right when all paths to a node have one length;
        # in an MLP the hidden units feed the next layer's sums at different depths.
        "name": "breadth-first order instead of reverse topological",
        "cells": {
            "value": _edit(
                _VALUE,
                """        order, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for parent in v._prev:
                    build(parent)
                order.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()
""",
                """        self.grad = 1.0
        queue, visited = [self], {self}
        while queue:
            v = queue.pop(0)
            v._backward()
            for parent in v._prev:
                if parent not in visited:
                    visited.add(parent)
                    queue.append(parent)
""",
            )
        },
        "must_fail": ["test_backward_order", "test_vs_torch", "test_mlp_gradients"],
    },
    {
        # Neuron.parameters() forgets the bias: 9 Values fewer in MLP(3, [4, 4, 1]); the biases
        # would never be trained. The gradients of the listed parameters are still right.
        "name": "parameters() without the biases",
        "cells": {"mlp": _edit(_solution("mlp"), "return self.w + [self.b]", "return self.w")},
        "must_fail": ["test_mlp_structure"],
    },
]
