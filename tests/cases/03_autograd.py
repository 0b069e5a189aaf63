"""Alternative correct solutions and typical mistakes for course/03_autograd.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

The engine is written in four solution cells that build on each other: `value` (the Value class
with the local rules of *, **, tanh, exp, log, sigmoid, relu), `topological_order`, `backward`
(attached to Value) and `composite_ops` (-, /, and a number on the left, attached to Value). A
different engine therefore replaces all four at once (the first entry of MISTAKES, with nothing
that must fail). Most mistakes are one-line edits of a correct engine, made here with `_edit`
from the instructor's solution cell (or from the alternative engine) so that each one differs
from a right answer by exactly the bug it names; `_edit` fails loudly if the line it edits is gone.

Graded cells and points (28): test_collapse (2), test_mul_pow_rules (3), test_unary_functions (4),
test_circuit_by_hand (2), test_topological_order (2), test_backward_order (3), test_node_used_twice (0.5),
test_accumulate_across_calls (0.5) (these two pass once backward seeds and walks in reverse),
test_add_sub_neg (1), test_mul_div_pow (1), test_reflected (1),
test_vs_torch (1), test_mlp_structure (1), test_mlp_gradients (1), test_neuron_backward (4),
test_train_step (1).
"""

from tests.nbgrader_harness import course_solutions
from tests.nbgrader_harness import edit_once as _edit


def _solution(grade_id: str) -> str:
    return course_solutions("03_autograd")[grade_id]


# A different engine, cell by cell: micrograd's set of parents, slopes written from the output
# where the instructor's closure keeps a local, every composite operator with a rule of its own
# (no composition), an iterative topological sort with an explicit stack (no recursion limit),
# and a backward() that needs no topological list at all: Kahn's algorithm, counting for every
# node the consumers that have still to hand their gradient on.
_VALUE_OWN = """\
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
        out = Value(0.5 * (1 + math.tanh(0.5 * self.data)), (self,), "sigmoid")

        def _backward():
            self.grad += out.data * (1 - out.data) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(0.0, self.data), (self,), "relu")

        def _backward():
            if self.data > 0:
                self.grad += out.grad

        out._backward = _backward
        return out
"""

_COMPOSITE_OWN = """\
def _own_rule(data, parents, op, slopes):
    out = Value(data, parents, op)

    def _backward():
        for parent, slope in zip(parents, slopes()):
            parent.grad += slope * out.grad

    out._backward = _backward
    return out


def neg(self):
    return _own_rule(-self.data, (self,), "neg", lambda: (-1.0,))


def sub(self, other):
    other = other if isinstance(other, Value) else Value(other)
    return _own_rule(self.data - other.data, (self, other), "-", lambda: (1.0, -1.0))


def truediv(self, other):
    other = other if isinstance(other, Value) else Value(other)
    return _own_rule(self.data / other.data, (self, other), "/",
                     lambda: (1 / other.data, -self.data / other.data ** 2))


def radd(self, other):
    return Value(other) + self


def rsub(self, other):
    return Value(other) - self


def rmul(self, other):
    return Value(other) * self


def rtruediv(self, other):
    return Value(other) / self


Value.__neg__, Value.__sub__, Value.__truediv__ = neg, sub, truediv
Value.__radd__, Value.__rsub__, Value.__rmul__, Value.__rtruediv__ = radd, rsub, rmul, rtruediv
"""

_TOPOLOGICAL_STACK = """\
def topological_order(root):
    order, done = [], set()
    stack = [(root, False)]
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
    return order
"""

_BACKWARD_KAHN = """\
def backward(self):
    waiting, seen, todo = {}, {self}, [self]
    while todo:
        node = todo.pop()
        for parent in node._prev:
            waiting[parent] = waiting.get(parent, 0) + 1
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    self.grad = 1.0
    ready = [self]
    while ready:
        node = ready.pop()
        node._backward()
        for parent in node._prev:
            waiting[parent] -= 1
            if waiting[parent] == 0:
                ready.append(parent)


Value.backward = backward
"""

ALTERNATIVES = {
    # Push the identity through the stack: a linear map is fixed by where it sends the basis
    # vectors, and the bias is where it sends 0.
    "collapse": """\
def collapse(layers):
    def stack(v):
        for W, b in layers:
            v = W @ v + b
        return v

    n_in = layers[0][0].shape[1]
    b = stack(np.zeros(n_in))
    W = np.column_stack([stack(e) - b for e in np.eye(n_in)])
    return W, b
""",
    # The other valid order: b before a.
    "circuit_by_hand": """\
def circuit_by_hand(x, y):
    x, y = Value(x), Value(y)
    nodes = []
    a = x * y; nodes.append(a)
    b = x + y; nodes.append(b)
    c = a * b; nodes.append(c)
    d = c.tanh(); nodes.append(d)
    L = d + x; nodes.append(L)
    L.grad = 1.0
    for node in reversed(nodes):
        node._backward()
    return float(x.grad), float(y.grad)
""",
    # The slope as 1 / cosh(z)^2, einsum, and the batch sums spelled out as loops.
    "neuron_backward": """\
def neuron_backward(w, b, X, y):
    z = np.einsum("nd,d->n", X, w) + b
    t = np.tanh(z)
    loss = float(((t - y) ** 2).sum())
    dz = 2.0 * (t - y) / np.cosh(z) ** 2
    dw = np.zeros_like(w)
    db = 0.0
    for n in range(X.shape[0]):
        dw += dz[n] * X[n]
        db += dz[n]
    dX = dz[:, None] * w[None, :]
    return loss, dw, db, dX
""",
    # The reset first, then the loss; the update written out; the loss summed in a loop.
    "train_step": """\
def train_step(model, data, lr, zero_grad=True):
    if zero_grad:
        for p in model.parameters():
            p.grad = 0
    loss = 0
    for x, y in data:
        loss = loss + (model(x) - y) * (model(x) - y)
    loss.backward()
    for p in model.parameters():
        p.data = p.data - lr * p.grad
    return float(loss.data)
""",
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
_NEURON = _solution("neuron_backward")

MISTAKES = [
    {
        # Not a mistake: the alternative engine of the four cells above must score full marks.
        "name": "a different engine (own rules, set of parents, explicit stack, Kahn's backward)",
        "cells": {
            "value": _VALUE_OWN,
            "composite_ops": _COMPOSITE_OWN,
            "topological_order": _TOPOLOGICAL_STACK,
            "backward": _BACKWARD_KAHN,
        },
        "must_fail": [],
    },
    {
        # `=` instead of `+=`: right on chains, wrong wherever a value has several consumers or
        # a grad already holds something, so a * a by hand, and everything built on * (and
        # -x = x * -1) that reuses a value.
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
            "test_mul_pow_rules",
            "test_circuit_by_hand",
            "test_backward_order",
            "test_node_used_twice",
            "test_accumulate_across_calls",
            "test_add_sub_neg",
            "test_mul_div_pow",
            "test_reflected",
            "test_vs_torch",
            "test_mlp_gradients",
            "test_train_step",
        ],
    },
    {
        # The multiplication records no parents: its rule is right when run by hand (so the
        # circuit done by hand still comes out right), but backward() never reaches x and y
        # through it, so every check built on * and backward() fails as well.
        "name": "mul forgets its parents",
        "cells": {
            "value": _edit(
                _VALUE,
                'out = Value(self.data * other.data, (self, other), "*")',
                'out = Value(self.data * other.data, (), "*")',
            )
        },
        "must_fail": [
            "test_mul_pow_rules",
            "test_backward_order",
            "test_node_used_twice",
            "test_accumulate_across_calls",
            "test_add_sub_neg",
            "test_mul_div_pow",
            "test_reflected",
            "test_vs_torch",
            "test_mlp_gradients",
            "test_train_step",
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
        "must_fail": [
            "test_unary_functions",
            "test_circuit_by_hand",
            "test_vs_torch",
            "test_mlp_gradients",
            "test_train_step",
        ],
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
            "test_mul_pow_rules",
            "test_node_used_twice",
            "test_mul_div_pow",
            "test_reflected",
            "test_vs_torch",
            "test_mlp_gradients",
            "test_train_step",
        ],
    },
    {
        # An own rule for a / b whose denominator gradient lost its minus sign.
        "name": "division rule without the minus sign",
        "cells": {
            "composite_ops": _edit(
                _COMPOSITE_OWN,
                "lambda: (1 / other.data, -self.data / other.data ** 2))",
                "lambda: (1 / other.data, self.data / other.data ** 2))",
            )
        },
        "must_fail": ["test_mul_div_pow", "test_reflected", "test_vs_torch"],
    },
    {
        # 1 - v computed as v - 1.
        "name": "reflected subtraction in the wrong order",
        "cells": {
            "composite_ops": _edit(
                _solution("composite_ops"),
                "return as_value(other) + (-self)",
                "return self - as_value(other)",
            )
        },
        "must_fail": ["test_reflected", "test_vs_torch"],
    },
    {
        # 2 + v computed as v - 2: sum() still works (it starts from 0), so only the reflected
        # operators' check sees it, and its visible part already does (2 + (...) in its expression).
        "name": "reflected addition subtracts",
        "cells": {
            "composite_ops": _edit(
                _solution("composite_ops"),
                "    return self + other\n",
                "    return self - other\n",
            )
        },
        "must_fail": ["test_reflected"],
        "message": "2 + (1 - 2 / x) + 3 * x",
    },
    {
        # Depth-first search without a visited set: a node reachable along several paths is
        # listed (and its rule run) once per path. Chains, trees and graphs where only inputs
        # are shared still come out right.
        "name": "topological sort without a visited set",
        "cells": {
            "topological_order": _edit(
                _solution("topological_order"),
                "        if v not in visited:\n",
                "        if True:\n",
            )
        },
        "must_fail": [
            "test_topological_order",
            "test_backward_order",
            "test_node_used_twice",
            "test_vs_torch",
            "test_mlp_gradients",
            "test_train_step",
        ],
    },
    {
        # Breadth-first from the output: each node is visited once, but possibly before a
        # deeper consumer has added its share. Right when all paths to a node have one length;
        # in an MLP with two hidden layers the units feed later sums at different depths (the
        # small nets and data of test_train_step happen to come out right).
        "name": "breadth-first order instead of reverse topological",
        "cells": {
            "backward": _edit(
                _solution("backward"),
                """    self.grad = 1.0
    for v in reversed(topological_order(self)):
        v._backward()
""",
                """    self.grad = 1.0
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
        # The seed forgotten: every grad is still 0.0 when the rules run, so nothing moves.
        "name": "backward() without the seed",
        "cells": {"backward": _edit(_solution("backward"), "    self.grad = 1.0\n", "")},
        "must_fail": ["test_backward_order", "test_node_used_twice", "test_accumulate_across_calls",
                      "test_add_sub_neg", "test_mul_div_pow", "test_reflected", "test_vs_torch",
                      "test_mlp_gradients", "test_train_step"],
        "message": "no gradient entered the graph",
        "message_cells": ["test_backward_order", "test_node_used_twice"],
    },
    {
        # The topological order walked as it comes, parents first: each rule runs on a grad of 0.
        "name": "backward() in topological order, not reversed",
        "cells": {"backward": _edit(_solution("backward"), "reversed(topological_order(self))",
                                    "topological_order(self)")},
        "must_fail": ["test_backward_order", "test_node_used_twice", "test_accumulate_across_calls",
                      "test_add_sub_neg", "test_mul_div_pow", "test_reflected", "test_vs_torch",
                      "test_mlp_gradients", "test_train_step"],
        "message": "the gradient did not get through",
        "message_cells": ["test_backward_order"],
    },
    {
        # The seed forgotten by hand too.
        "name": "by hand: no seed",
        "cells": {"circuit_by_hand": _edit(_solution("circuit_by_hand"), "    L.grad = 1.0\n", "")},
        "must_fail": ["test_circuit_by_hand"],
        "message": "no gradient entered the graph",
        "message_cells": ["test_circuit_by_hand"],
    },
    {
        # c's rule runs before d's: c hands on a gradient of 0, so only the direct path counts.
        "name": "by hand: c before d",
        "cells": {
            "circuit_by_hand": _edit(
                _solution("circuit_by_hand"),
                "    d._backward()\n    c._backward()\n",
                "    c._backward()\n    d._backward()\n",
            )
        },
        "must_fail": ["test_circuit_by_hand"],
    },
    {
        # The bias is carried through unchanged: W is right, b misses W_k b.
        "name": "collapse adds the biases without transforming them",
        "cells": {
            "collapse": _edit(_solution("collapse"), "W, b = Wk @ W, Wk @ b + bk", "W, b = Wk @ W, b + bk")
        },
        "must_fail": ["test_collapse"],
    },
    {
        # The tanh slope is left out: dz = 2 (t - y).
        "name": "neuron without the tanh slope",
        "cells": {"neuron_backward": _edit(_NEURON, "dz = dt * (1 - t**2)", "dz = dt")},
        "must_fail": ["test_neuron_backward"],
    },
    {
        # dw from the first example only (no sum over the batch).
        "name": "neuron dw from one example",
        "cells": {"neuron_backward": _edit(_NEURON, "dw = X.T @ dz", "dw = X[0] * dz[0]")},
        "must_fail": ["test_neuron_backward"],
    },
    {
        # The reset after backward(): the step uses zero gradients and nothing moves.
        "name": "train_step resets the grads after backward()",
        "cells": {
            "train_step": _edit(
                _edit(_solution("train_step"), "    loss.backward()\n", ""),
                "    params = model.parameters()\n",
                "    params = model.parameters()\n    loss.backward()\n",
            )
        },
        "must_fail": ["test_train_step"],
        "message": "the parameters did not move",
    },
    {
        # No reset at all: the left-over grads join this step's gradient.
        "name": "train_step never resets the grads",
        "cells": {"train_step": _edit(_solution("train_step"), "    if zero_grad:\n", "    if False:\n")},
        "must_fail": ["test_train_step"],
        "message": "left over from before went into the step",
        "message_cells": ["test_train_step"],
    },
    {
        "name": "train_step returns the loss after the step",
        "cells": {"train_step": _edit(_solution("train_step"), "    return loss.data\n",
                                      "    return sum((model(x) - y) ** 2 for x, y in data).data\n")},
        "must_fail": ["test_train_step"],
        "message": "loss after the step",
    },
    {
        "name": "train_step steps uphill",
        "cells": {"train_step": _edit(_solution("train_step"), "p.data -= lr * p.grad",
                                      "p.data += lr * p.grad")},
        "must_fail": ["test_train_step"],
        "message": "uphill",
    },
    {
        # Neuron.parameters() forgets the bias: 9 Values fewer in MLP(3, [4, 4, 1]); the biases
        # would never be trained. The gradients of the listed parameters are still right.
        "name": "parameters() without the biases",
        "cells": {"mlp": _edit(_solution("mlp"), "return self.w + [self.b]", "return self.w")},
        "must_fail": ["test_mlp_structure"],
    },
]

# Shortcuts the declaration in the setup cell (graded = Exercises(...)) refuses, in the visible checks
# and the hidden tests alike: PyTorch inside the engine the lesson builds (it is the engine the checks
# compare with), the engine inside the gradient derived by hand, and nudging where the rules are asked.
_PYTORCH = "PyTorch is the referee of the checks, not the answer"
MISTAKES += [
    {
        # tanh's value from PyTorch: every check that runs a tanh node of the engine refuses it.
        "name": "engine: tanh computed by PyTorch",
        "cells": {"value": _edit(_VALUE, "t = math.tanh(self.data)",
                                 "t = torch.tanh(torch.tensor(self.data, dtype=torch.float64)).item()")},
        "must_fail": ["test_unary_functions", "test_circuit_by_hand", "test_vs_torch", "test_mlp_structure",
                      "test_mlp_gradients", "test_train_step"],
        "message": _PYTORCH,
    },
    {
        # The local rule of * read off PyTorch's autograd instead of derived.
        "name": "engine: the product's local rule from PyTorch's autograd",
        "cells": {"value": _edit(_VALUE, """        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
""", """        def _backward():
            a = torch.tensor(self.data, dtype=torch.float64, requires_grad=True)
            b = torch.tensor(other.data, dtype=torch.float64, requires_grad=True)
            (a * b).backward(torch.tensor(out.grad, dtype=torch.float64))
            self.grad += a.grad.item()
            other.grad += b.grad.item()
""")},
        "must_fail": ["test_mul_pow_rules", "test_circuit_by_hand", "test_backward_order",
                      "test_node_used_twice", "test_accumulate_across_calls", "test_add_sub_neg",
                      "test_mul_div_pow", "test_reflected", "test_vs_torch", "test_mlp_gradients",
                      "test_train_step"],
        "message": _PYTORCH,
    },
    {
        "name": "collapse multiplied out by PyTorch",
        "cells": {"collapse": '''\
def collapse(layers):
    W, b = (torch.as_tensor(a, dtype=torch.float64) for a in layers[0])
    for Wk, bk in layers[1:]:
        Wk, bk = torch.as_tensor(Wk, dtype=torch.float64), torch.as_tensor(bk, dtype=torch.float64)
        W, b = Wk @ W, Wk @ b + bk
    return W.numpy(), b.numpy()
'''},
        "must_fail": ["test_collapse"],
        "message": _PYTORCH,
    },
    {
        # The gradient asked for by hand, handed to the engine built in this lesson.
        "name": "neuron_backward by the Value engine",
        "cells": {"neuron_backward": '''\
def neuron_backward(w, b, X, y):
    W = [Value(float(v)) for v in w]
    B = Value(float(b))
    Xs = [[Value(float(v)) for v in row] for row in X]
    loss = sum((sum((wi * xi for wi, xi in zip(W, row)), B).tanh() - float(t)) ** 2 for row, t in zip(Xs, y))
    loss.backward()
    return (loss.data, np.array([v.grad for v in W]), B.grad,
            np.array([[v.grad for v in row] for row in Xs]))
'''},
        "must_fail": ["test_neuron_backward"],
        "message": "plain numpy, no Values",
    },
    {
        "name": "neuron_backward by PyTorch's autograd",
        "cells": {"neuron_backward": '''\
def neuron_backward(w, b, X, y):
    tw, tb, tX = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (w, b, X))
    loss = ((torch.tanh(tX @ tw + tb) - torch.as_tensor(y)) ** 2).sum()
    loss.backward()
    return loss.item(), tw.grad.numpy(), tb.grad.item(), tX.grad.numpy()
'''},
        "must_fail": ["test_neuron_backward"],
        "message": _PYTORCH,
    },
    {
        # Nudged, not derived: the visible check compares with PyTorch too now, as the hidden ones do.
        "name": "neuron_backward by centred differences",
        "cells": {"neuron_backward": '''\
def neuron_backward(w, b, X, y, h=1e-5):
    def loss(w, b, X):
        return float(np.sum((np.tanh(X @ w + b) - y) ** 2))

    def nudged(arr, f):
        grad = np.zeros(arr.shape)
        for idx in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += h
            minus[idx] -= h
            grad[idx] = (f(plus) - f(minus)) / (2 * h)
        return grad

    dw = nudged(w, lambda v: loss(v, b, X))
    db = (loss(w, b + h, X) - loss(w, b - h, X)) / (2 * h)
    dX = nudged(X, lambda v: loss(w, b, v))
    return loss(w, b, X), dw, db, dX
'''},
        "must_fail": ["test_neuron_backward"],
    },
    {
        # The order chosen by a topological sort of its own: allowed (the refusal is of the lesson's).
        "name": "circuit_by_hand with the order written as a list",
        "cells": {"circuit_by_hand": '''\
def circuit_by_hand(x, y):
    x, y = Value(x), Value(y)
    a = x * y
    b = x + y
    c = a * b
    d = c.tanh()
    L = d + x
    L.grad = 1.0
    for node in [L, d, c, b, a]:
        node._backward()
    return x.grad, y.grad
'''},
        "must_fail": [],
    },
]
