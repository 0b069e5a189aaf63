"""Alternative correct solutions and typical mistakes for course/01_derivatives.

Graded cells (26 points): test_numerical_derivative_slope (1), test_numerical_derivative_centred (3),
test_taylor_forward (1), test_taylor_centred (2), test_best_nudge_forward (2),
test_best_nudge_centred (2), test_partial_derivatives (1), test_grad_L_x (2), test_grad_L_y (2),
test_directional_derivative (1), test_numerical_gradient_values, test_numerical_gradient_restores_x,
test_numerical_gradient_in_place (1 each), test_numerical_gradient_array_elementwise,
test_numerical_gradient_array_shapes, test_numerical_gradient_array_views (1 each),
test_gradient_check (3).

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.
"""

ALTERNATIVES = {
    # Same centred formula, written differently (two named evaluations, h + h).
    "numerical_derivative": '''\
def numerical_derivative(f, x, h=1e-5):
    f_plus = f(x + h)
    f_minus = f(x - h)
    return float(f_plus - f_minus) / (h + h)
''',
    # np.nditer with readwrite, astype instead of asarray, try/finally restore, empty_like.
    "numerical_gradient": '''\
def numerical_gradient(f, x, h=1e-5):
    if x.dtype != np.float64:
        x = x.astype(np.float64)
    grad = np.empty_like(x)
    it = np.nditer(x, flags=["multi_index"], op_flags=["readwrite"])
    while not it.finished:
        i = it.multi_index
        saved = x[i]
        try:
            x[i] = saved + h
            up = f(x)
            x[i] = saved - h
            down = f(x)
        finally:
            x[i] = saved
        grad[i] = (up - down) / (2 * h)
        it.iternext()
    return grad
''',
    # Reduce to the scalar case: the gradient of sum(f(x) * dout) is a numerical_gradient.
    "numerical_gradient_array": '''\
def numerical_gradient_array(f, x, dout, h=1e-5):
    return numerical_gradient(lambda z: np.sum(f(z) * dout), x, h)
''',
    # Both terms from numpy's abs, h * h instead of h**2, no intermediate names.
    "taylor_errors": '''\
def taylor_errors(h, f2, f3):
    return np.abs(f2) * h * 0.5, np.abs(f3) * h * h / 6.0
''',
    # np.sqrt and np.cbrt, the absolute values taken once.
    "best_nudges": '''\
def best_nudges(f0, f2, f3, eps=np.finfo(np.float64).eps):
    size, curve, third = np.abs(f0), np.abs(f2), np.abs(f3)
    return float(np.sqrt(2 * eps * size / curve)), float(np.cbrt(3 * eps * size / third))
''',
    # Own centred differences instead of numerical_derivative.
    "partial_derivatives": '''\
def partial_derivatives(f, x, y, h=1e-5):
    dfdx = (f(x + h, y) - f(x - h, y)) / (2 * h)
    dfdy = (f(x, y + h) - f(x, y - h)) / (2 * h)
    return dfdx, dfdy
''',
    # Through the two intermediates a = xy, b = x + y, with tanh' = 1 / cosh^2.
    "grad_L": '''\
def grad_L(x, y):
    a, b = x * y, x + y
    sech2 = 1.0 / np.cosh(a * b) ** 2
    return sech2 * (y * b + a) + 1.0, sech2 * (x * b + a)
''',
    # The walk nudged directly, the direction normalised with np.hypot.
    "directional_derivative": '''\
def directional_derivative(f, x, y, u, h=1e-5):
    ux, uy = float(u[0]), float(u[1])
    n = np.hypot(ux, uy)
    ux, uy = ux / n, uy / n
    return (f(x + h * ux, y + h * uy) - f(x - h * ux, y - h * uy)) / (2 * h)
''',
    # The same verdict through np.fmax, a float64 copy of dx and .max().
    "gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    b = numerical_gradient_array(f, x, dout, h)
    a = np.array(dx, dtype=np.float64)
    return float((np.abs(a - b) / np.fmax(np.abs(a) + np.abs(b), 1e-8)).max())
''',
}

MISTAKES = [
    {
        # Accurate to ~1e-5 only: passes the loose slope check, fails the 1e-8 bar.
        "name": "forward difference",
        "cells": {"numerical_derivative": '''\
def numerical_derivative(f, x, h=1e-5):
    return (f(x + h) - f(x)) / h
'''},
        "must_fail": ["test_numerical_derivative_centred"],
    },
    {
        # Centred nudges, but divided by h: every slope comes out twice too big.
        "name": "centred difference divided by h",
        "cells": {"numerical_derivative": '''\
def numerical_derivative(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / h
'''},
        "must_fail": ["test_numerical_derivative_slope", "test_numerical_derivative_centred",
                      "test_partial_derivatives", "test_directional_derivative"],
    },
    {
        # Right numbers, collected in a list: a flat array, whatever the shape of x.
        "name": "returns a flat gradient",
        "cells": {"numerical_gradient": '''\
def numerical_gradient(f, x, h=1e-5):
    x = np.asarray(x, dtype=np.float64)
    grad = []
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + h
        f_plus = f(x)
        x[idx] = old - h
        f_minus = f(x)
        x[idx] = old
        grad.append((f_plus - f_minus) / (2 * h))
    return np.array(grad)
'''},
        "must_fail": ["test_numerical_gradient_values"],
    },
    {
        # Written for vectors: on a matrix, x[i] is a whole row, nudged all at once.
        "name": "iterates over the first axis only",
        "cells": {"numerical_gradient": '''\
def numerical_gradient(f, x, h=1e-5):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros(x.shape)
    for i in range(x.shape[0]):
        old = x[i].copy()
        x[i] = old + h
        f_plus = f(x)
        x[i] = old - h
        f_minus = f(x)
        x[i] = old
        grad[i] = (f_plus - f_minus) / (2 * h)
    return grad
'''},
        "must_fail": ["test_numerical_gradient_values"],
    },
    {
        # Every entry of x is left at old - h; the values still come out right for
        # separable f, which is exactly why this one goes unnoticed.
        "name": "forgets to put x back",
        "cells": {"numerical_gradient": '''\
def numerical_gradient(f, x, h=1e-5):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + h
        f_plus = f(x)
        x[idx] = old - h
        f_minus = f(x)
        grad[idx] = (f_plus - f_minus) / (2 * h)
    return grad
'''},
        "must_fail": ["test_numerical_gradient_restores_x"],
    },
    {
        # Nudges copies of x: fine for f(x) that uses its argument, zero for f reading x by
        # reference, and integer copies cannot hold the nudge.
        "name": "nudges a copy of x",
        "cells": {"numerical_gradient": '''\
def numerical_gradient(f, x, h=1e-5):
    grad = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        x_plus = x.copy()
        x_plus[idx] += h
        x_minus = x.copy()
        x_minus[idx] -= h
        grad[idx] = (f(x_plus) - f(x_minus)) / (2 * h)
    return grad
'''},
        "must_fail": ["test_numerical_gradient_in_place"],
    },
    {
        # Sums the output change without weighting it by dout.
        "name": "ignores dout",
        "cells": {"numerical_gradient_array": '''\
def numerical_gradient_array(f, x, dout, h=1e-5):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + h
        out_plus = np.array(f(x))
        x[idx] = old - h
        out_minus = np.array(f(x))
        x[idx] = old
        grad[idx] = np.sum(out_plus - out_minus) / (2 * h)
    return grad
'''},
        "must_fail": [
            "test_numerical_gradient_array_elementwise",
            "test_numerical_gradient_array_shapes",
            "test_gradient_check",
        ],
    },
    {
        # Treats f as elementwise: reads only out[idx] and dout[idx], as if out[k] depended
        # on x[k] alone (and as if out were shaped like x).
        "name": "assumes f is elementwise",
        "cells": {"numerical_gradient_array": '''\
def numerical_gradient_array(f, x, dout, h=1e-5):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + h
        out_plus = np.array(f(x))
        x[idx] = old - h
        out_minus = np.array(f(x))
        x[idx] = old
        grad[idx] = (out_plus[idx] - out_minus[idx]) * dout[idx] / (2 * h)
    return grad
'''},
        "must_fail": [
            "test_numerical_gradient_array_shapes",
            "test_numerical_gradient_array_views",
            "test_gradient_check",
        ],
    },
    {
        # h^3/3 f‴ is what the subtraction leaves before the division by 2h.
        "name": "centred error term not divided by 2h",
        "cells": {"taylor_errors": '''\
def taylor_errors(h, f2, f3):
    return h / 2 * abs(f2), h**2 / 3 * abs(f3)
'''},
        "must_fail": ["test_taylor_centred"],
    },
    {
        # h^2 f'' without its 1/2!: the forward term twice too big.
        "name": "forward error term without the 1/2 of 2!",
        "cells": {"taylor_errors": '''\
def taylor_errors(h, f2, f3):
    return h * abs(f2), h**2 / 6 * abs(f3)
'''},
        "must_fail": ["test_taylor_forward"],
        "message": "Which one divides the h² term?",
    },
    {
        # The h^3 terms of f(x+h) and f(x-h) taken as cancelling once, not doubling: half the centred term.
        "name": "centred error term with the h^3 terms not doubled",
        "cells": {"taylor_errors": '''\
def taylor_errors(h, f2, f3):
    return h / 2 * abs(f2), h**2 / 12 * abs(f3)
'''},
        "must_fail": ["test_taylor_centred"],
        "message": "the h³ terms do not cancel, they add up",
    },
    {
        # A signed error term: negative for f'' < 0 or f‴ < 0.
        "name": "error terms without absolute values",
        "cells": {"taylor_errors": '''\
def taylor_errors(h, f2, f3):
    return h / 2 * f2, h**2 / 6 * f3
'''},
        "must_fail": ["test_taylor_forward", "test_taylor_centred"],
    },
    {
        # The centred term signed (no abs on f‴): a visible case has f‴ < 0, so no ✓ turns
        # into lost points.
        "name": "centred error term without absolute value",
        "cells": {"taylor_errors": '''\
def taylor_errors(h, f2, f3):
    return h / 2 * abs(f2), h**2 / 6 * f3
'''},
        "must_fail": ["test_taylor_centred"],
        "message": "a size is never negative: the sign of f‴ does not matter.",
    },
    {
        # A complex-step derivative through the notebook's L: a nudge in disguise, refused by L.
        "name": "grad_L by the complex step",
        "cells": {"grad_L": '''\
def grad_L(x, y):
    h = 1e-30
    return np.imag(L(x + 1j * h, y)) / h, np.imag(L(x, y + 1j * h)) / h
'''},
        "must_fail": ["test_grad_L_x", "test_grad_L_y"],
        "message": "a complex argument is a complex-step derivative",
    },
    {
        # d/dh of h^2/6 taken as h/6: h^3 = 6 eps |f| / |f‴|.
        "name": "centred best nudge with a wrong derivative",
        "cells": {"best_nudges": '''\
def best_nudges(f0, f2, f3, eps=np.finfo(np.float64).eps):
    return (2 * eps * abs(f0) / abs(f2)) ** 0.5, (6 * eps * abs(f0) / abs(f3)) ** (1 / 3)
'''},
        "must_fail": ["test_best_nudge_centred"],
    },
    {
        # Holds the wrong input fixed: the two partial derivatives come out swapped.
        "name": "partial derivatives swapped",
        "cells": {"partial_derivatives": '''\
def partial_derivatives(f, x, y, h=1e-5):
    return numerical_derivative(lambda t: f(x, t), y, h), numerical_derivative(lambda t: f(t, y), x, h)
'''},
        "must_fail": ["test_partial_derivatives"],
    },
    {
        # Forgets that L = tanh(c) + x has a second route for x.
        "name": "grad_L without the lone + x",
        "cells": {"grad_L": '''\
def grad_L(x, y):
    c = x * y * (x + y)
    slope = 1 - np.tanh(c) ** 2
    return slope * (2 * x * y + y**2), slope * (x**2 + 2 * x * y)
'''},
        "must_fail": ["test_grad_L_x"],
    },
    {
        # math.tanh: right at single points, a TypeError on the grids.
        "name": "grad_L with math.tanh",
        "cells": {"grad_L": '''\
import math

def grad_L(x, y):
    c = x * y * (x + y)
    slope = 1 - math.tanh(c) ** 2
    return slope * (2 * x * y + y**2) + 1, slope * (x**2 + 2 * x * y)
'''},
        "must_fail": ["test_grad_L_x", "test_grad_L_y"],
    },
    {
        # Walks along u itself: the slope comes out |u| times too big.
        "name": "directional derivative along u not normalised",
        "cells": {"directional_derivative": '''\
def directional_derivative(f, x, y, u, h=1e-5):
    return numerical_derivative(lambda t: f(x + t * u[0], y + t * u[1]), 0.0, h)
'''},
        "must_fail": ["test_directional_derivative"],
    },
    {
        # The mean hides one bad entry among many good ones.
        "name": "gradient check averages instead of taking the worst entry",
        "cells": {"gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    numeric = numerical_gradient_array(f, x, dout, h)
    return float(np.mean(np.abs(dx - numeric) / np.maximum(1e-8, np.abs(dx) + np.abs(numeric))))
'''},
        "must_fail": ["test_gradient_check"],

        # the visible check has one bad entry among twelve, and names the mean
        "message": "The worst entry decides",
    },
    {
        # 1.5 times the larger of |a| and |b|: symmetric, and 1/3 where a = 2b, but 4/3 where
        # a = -b; the second calibration point of the brief tells it from |a| + |b|.
        "name": "gradient check with 1.5 max(|a|, |b|) as the size",
        "cells": {"gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    numeric = numerical_gradient_array(f, x, dout, h)
    size = np.maximum(1e-8, 1.5 * np.maximum(np.abs(dx), np.abs(numeric)))
    return float(np.max(np.abs(dx - numeric) / size))
'''},
        "must_fail": ["test_gradient_check"],
    },
    {
        # The toolkit's referee does the loop: float64 conversion, then eval_numerical_gradient_array
        # (the setup cell does not import it: the student imports it into the notebook).
        "name": "numerical_gradient handed to the toolkit's numerical gradient",
        "cells": {"numerical_gradient": '''\
from grader import eval_numerical_gradient_array


def numerical_gradient(f, x, h=1e-5):
    x = np.asarray(x, dtype=np.float64)
    return eval_numerical_gradient_array(lambda z: np.asarray(f(z), dtype=np.float64), x, np.array(1.0), h)
'''},
        "must_fail": ["test_numerical_gradient_values", "test_numerical_gradient_restores_x",
                      "test_numerical_gradient_in_place"],
        "message": "not to call eval_numerical_gradient_array",
    },
    {
        # The same for arrays: every rule of the brief holds, and none of the loop is the student's.
        "name": "numerical_gradient_array handed to the toolkit's numerical gradient",
        "cells": {"numerical_gradient_array": '''\
from grader import eval_numerical_gradient_array


def numerical_gradient_array(f, x, dout, h=1e-5):
    x = np.asarray(x, dtype=np.float64)
    return eval_numerical_gradient_array(f, x, dout, h)
'''},
        # gradient_check calls it too: a referee is refused in every graded call
        "must_fail": ["test_numerical_gradient_array_elementwise", "test_numerical_gradient_array_shapes",
                      "test_numerical_gradient_array_views", "test_gradient_check"],
        "message": "not to call eval_numerical_gradient_array",
        "message_cells": ["test_numerical_gradient_array_elementwise", "test_numerical_gradient_array_shapes",
                          "test_numerical_gradient_array_views"],
    },
    {
        # Nudged, not derived: the closed form asked for, replaced by lesson 1's own referee.
        "name": "grad_L by partial_derivatives",
        "cells": {"grad_L": '''\
def grad_L(x, y):
    return partial_derivatives(L, x, y)
'''},
        "must_fail": ["test_grad_L_x", "test_grad_L_y"],
        "message": "not to call partial_derivatives",
    },
    {
        # The toolkit's rel_error computes the verdict: the work the exercise asks for, handed over.
        "name": "gradient check handed to the toolkit's rel_error",
        "cells": {"gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    return rel_error(dx, numerical_gradient_array(f, x, dout, h))
'''},
        "must_fail": ["test_gradient_check"],
        "message": "not to call rel_error",
    },
    {
        # An absolute error: depends on the gradient's scale.
        "name": "gradient check with an absolute error",
        "cells": {"gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    return float(np.max(np.abs(dx - numerical_gradient_array(f, x, dout, h))))
'''},
        "must_fail": ["test_gradient_check"],
    },
]

MISTAKES += [
    {
        # Correct: the brief says the checks compare with the bottom of each model on a fine grid, so
        # the bottom found on such a grid keeps full marks in the hidden tests too.
        "name": "best_nudges found on a fine grid, as the brief describes the checks",
        "cells": {"best_nudges": '''\
def best_nudges(f0, f2, f3, eps=np.finfo(np.float64).eps):
    h = np.logspace(-12, -2, 200001)
    forward = h / 2 * abs(f2) + eps * abs(f0) / h
    centred = h**2 / 6 * abs(f3) + eps * abs(f0) / h
    return float(h[np.argmin(forward)]), float(h[np.argmin(centred)])
'''},
        "must_fail": [],
    },
]

# Shortcuts the declaration in the setup cell (graded = Exercises(...)) refuses, in the visible check
# and the hidden tests alike: the toolkit's numerical gradients reached under another name, the
# refused helpers reached through an alias, PyTorch, and nudging written out where the rules of
# calculus are asked for. And the closed forms that must keep full marks within float64 rounding's margin
# (rounding_margin, grader.lessons.derivatives.checks), saturated tanh included.
_GRAD_L_CELLS = ["test_grad_L_x", "test_grad_L_y"]
MISTAKES += [
    {
        # The toolkit's referee under the module's own name: refused by its code, not by a name.
        "name": "numerical_gradient by grader.numgrad imported inside the function",
        "cells": {"numerical_gradient": '''\
def numerical_gradient(f, x, h=1e-5):
    import grader.numgrad as g
    x = np.asarray(x, dtype=np.float64)
    return g.eval_numerical_gradient(lambda z: float(f(z)), x, h)
'''},
        "must_fail": ["test_numerical_gradient_values", "test_numerical_gradient_restores_x",
                      "test_numerical_gradient_in_place"],
        "message": "eval_numerical_gradient is one of the course's references",
    },
    {
        "name": "numerical_gradient_array by grader.numgrad imported inside the function",
        "cells": {"numerical_gradient_array": '''\
def numerical_gradient_array(f, x, dout, h=1e-5):
    import grader.numgrad as g
    x = np.asarray(x, dtype=np.float64)
    return g.eval_numerical_gradient_array(f, x, dout, h)
'''},
        # gradient_check calls it too: a referee is refused in every graded call
        "must_fail": ["test_numerical_gradient_array_elementwise", "test_numerical_gradient_array_shapes",
                      "test_numerical_gradient_array_views", "test_gradient_check"],
        "message": "eval_numerical_gradient_array is one of the course's references",
        "message_cells": ["test_numerical_gradient_array_elementwise", "test_numerical_gradient_array_shapes",
                          "test_numerical_gradient_array_views"],
    },
    {
        # The notebook's own name bound to another one before the check runs.
        "name": "grad_L by partial_derivatives under another name",
        "cells": {"grad_L": '''\
measure = partial_derivatives

def grad_L(x, y):
    return measure(L, x, y)
'''},
        "must_fail": _GRAD_L_CELLS,
        "message": "not to call partial_derivatives",
    },
    {
        "name": "grad_L by numerical_derivative under another name",
        "cells": {"grad_L": '''\
slope_of = numerical_derivative

def grad_L(x, y):
    return slope_of(lambda t: L(t, y), x), slope_of(lambda t: L(x, t), y)
'''},
        "must_fail": _GRAD_L_CELLS,
        "message": "not to call numerical_derivative",
    },
    {
        "name": "gradient_check by rel_error imported from the toolkit's module",
        "cells": {"gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    from grader import numgrad
    return numgrad.rel_error(dx, numerical_gradient_array(f, x, dout, h))
'''},
        "must_fail": ["test_gradient_check"],
        "message": "not to call rel_error",
    },
    {
        # Nudging written out inside grad_L: about 1e-11 to 1e-9 from PyTorch, forty times float64
        # rounding's margin or more.
        "name": "grad_L by a centred difference written inside it",
        "cells": {"grad_L": '''\
def grad_L(x, y, h=1e-5):
    L = lambda x, y: np.tanh(x * y * (x + y)) + x
    return (L(x + h, y) - L(x - h, y)) / (2 * h), (L(x, y + h) - L(x, y - h)) / (2 * h)
'''},
        "must_fail": _GRAD_L_CELLS,
        "message": "as close as nudging gets",
    },
    *[{
        # At the ends of the range of steps: truncation (1e-3) or round-off (1e-8) dominates.
        "name": f"grad_L by a centred difference with h = {h}",
        "cells": {"grad_L": f'''\
def grad_L(x, y):
    h = {h}
    L = lambda x, y: np.tanh(x * y * (x + y)) + x
    return (L(x + h, y) - L(x - h, y)) / (2 * h), (L(x, y + h) - L(x, y - h)) / (2 * h)
'''},
        "must_fail": _GRAD_L_CELLS,
    } for h in ("1e-3", "1e-8")],
    {
        "name": "grad_L by a forward difference with h = 1e-8",
        "cells": {"grad_L": '''\
def grad_L(x, y):
    h = 1e-8
    L = lambda x, y: np.tanh(x * y * (x + y)) + x
    return (L(x + h, y) - L(x, y)) / h, (L(x, y + h) - L(x, y)) / h
'''},
        "must_fail": _GRAD_L_CELLS,
    },
    {
        # The same with a smaller nudge, near the bottom of lesson 1's error valley.
        "name": "grad_L by a centred difference with h = 3e-6",
        "cells": {"grad_L": '''\
def grad_L(x, y):
    h = 3e-6
    L = lambda x, y: np.tanh(x * y * (x + y)) + x
    return (L(x + h, y) - L(x - h, y)) / (2 * h), (L(x, y + h) - L(x, y - h)) / (2 * h)
'''},
        "must_fail": _GRAD_L_CELLS,
    },
    {
        # The whole exercise handed to PyTorch's autograd.
        "name": "grad_L by PyTorch's autograd",
        "cells": {"grad_L": '''\
import torch


def grad_L(x, y):
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    (torch.tanh(tx * ty * (tx + ty)) + tx).sum().backward()
    return tx.grad.numpy(), ty.grad.numpy()
'''},
        "must_fail": _GRAD_L_CELLS,
        "message": "PyTorch is the referee of the checks, not the answer",
    },
    {
        # PyTorch as a calculator for tanh: a forward handed over, refused too.
        "name": "grad_L with torch.tanh",
        "cells": {"grad_L": '''\
import torch


def grad_L(x, y):
    c = x * y * (x + y)
    slope = 1 - torch.tanh(torch.as_tensor(c, dtype=torch.float64)).numpy() ** 2
    return slope * (2 * x * y + y**2) + 1, slope * (x**2 + 2 * x * y)
'''},
        "must_fail": _GRAD_L_CELLS,
        "message": "PyTorch is the referee of the checks, not the answer",
    },
    {
        "name": "numerical_derivative by PyTorch's autograd on a tensor",
        "cells": {"numerical_derivative": '''\
def numerical_derivative(f, x, h=1e-5):
    import torch

    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    return float((f(t + h) - f(t - h)) / (2 * h))
'''},
        "must_fail": ["test_numerical_derivative_slope", "test_numerical_derivative_centred",
                      "test_partial_derivatives", "test_directional_derivative"],
        "message": "PyTorch is the referee of the checks, not the answer",
        "message_cells": ["test_numerical_derivative_slope", "test_numerical_derivative_centred"],
    },
]

# Correct closed forms, each written its own way: all within float64 rounding's margin at every point
# checked, the saturated ones included.
MISTAKES += [
    {"name": f"grad_L closed form: {label}", "cells": {"grad_L": code}, "must_fail": []}
    for label, code in [
        ("tanh from exp(2c)", '''\
def grad_L(x, y):
    c = x * y * (x + y)
    e = np.exp(2 * c)
    t = (e - 1) / (e + 1)
    return (1 - t**2) * (2 * x * y + y**2) + 1, (1 - t**2) * (x**2 + 2 * x * y)
'''),
        ("1 - sinh^2 / cosh^2", '''\
def grad_L(x, y):
    c = x * y * (x + y)
    s = 1 - np.sinh(c) ** 2 / np.cosh(c) ** 2
    return s * (2 * x * y + y**2) + 1, s * (x**2 + 2 * x * y)
'''),
        ("(1 - t)(1 + t) and factored inner slopes", '''\
def grad_L(x, y):
    t = np.tanh(x**2 * y + x * y**2)
    s = (1 - t) * (1 + t)
    return s * y * (2 * x + y) + 1, s * x * (x + 2 * y)
'''),
        ("4 / (e^c + e^-c)^2", '''\
def grad_L(x, y):
    c = x * y * (x + y)
    s = 4 / (np.exp(c) + np.exp(-c)) ** 2
    return 1 + s * (2 * x * y + y * y), s * (x * x + 2 * x * y)
'''),
        ("the product rule on a = xy, b = x + y, with cosh^-2", '''\
def grad_L(x, y):
    a, b = x * y, x + y
    s = np.cosh(a * b) ** -2.0
    return s * (y * b + a) + 1, s * (x * b + a)
'''),
        ("1 - t * t, paths summed one by one", '''\
def grad_L(x, y):
    t = np.tanh(x * y * (x + y))
    dc = 1 - t * t
    dx = dc * y * (x + y)
    dx = dx + dc * x * y
    return dx + 1.0, dc * x * (x + y) + dc * x * y
'''),
    ]
]

MISTAKES += [
    {
        # Normalised in place: the slope is right, and the caller's u is gone (the declaration compares
        # every argument with a copy taken before the call; the visible check passes an array too).
        "name": "directional derivative normalises the caller's u in place",
        "cells": {"directional_derivative": '''\
def directional_derivative(f, x, y, u, h=1e-5):
    u = np.asarray(u, dtype=np.float64)
    u /= np.sqrt(np.sum(u**2))
    return numerical_derivative(lambda t: f(x + t * u[0], y + t * u[1]), 0.0, h)
'''},
        "must_fail": ["test_directional_derivative"],
        "message": "changed its argument u in place",
    },
]

# The slips of the derivations the briefs ask for, each named by its check (visible and hidden alike).
MISTAKES += [
    {
        # Python reads / 2 * h as (/ 2) * h: every slope about h^2 = 1e-10 times too small.
        "name": "centred difference written / 2 * h",
        "cells": {"numerical_derivative": '''\
def numerical_derivative(f, x, h=1e-5):
    return (f(x + h) - f(x - h)) / 2 * h
'''},
        "must_fail": ["test_numerical_derivative_slope", "test_numerical_derivative_centred",
                      "test_partial_derivatives", "test_directional_derivative"],
        "message": "divides by 2 and then multiplies by h",
        "message_cells": ["test_numerical_derivative_slope", "test_numerical_derivative_centred"],
    },
    {
        # f'' kept in the centred term: right only where f'' = f‴ (exp), as at the first point.
        "name": "centred error term with f'' instead of f‴",
        "cells": {"taylor_errors": '''\
def taylor_errors(h, f2, f3):
    return h / 2 * abs(f2), h**2 / 6 * abs(f2)
'''},
        "must_fail": ["test_taylor_centred"],
        "message": "the f'' terms cancel",
    },
    {
        # Each h* from the other model's derivative: right only where f'' = f‴.
        "name": "best nudges with f'' and f‴ swapped",
        "cells": {"best_nudges": '''\
def best_nudges(f0, f2, f3, eps=np.finfo(np.float64).eps):
    return (2 * eps * abs(f0) / abs(f3)) ** 0.5, (3 * eps * abs(f0) / abs(f2)) ** (1 / 3)
'''},
        "must_fail": ["test_best_nudge_forward", "test_best_nudge_centred"],
        "message": "model's truncation term carries",
    },
    {
        # No absolute values: a complex h* as soon as f, f'' or f‴ is negative.
        "name": "best nudges without absolute values",
        "cells": {"best_nudges": '''\
def best_nudges(f0, f2, f3, eps=np.finfo(np.float64).eps):
    return (2 * eps * f0 / f2) ** 0.5, (3 * eps * f0 / f3) ** (1 / 3)
'''},
        "must_fail": ["test_best_nudge_forward", "test_best_nudge_centred"],
        "message": "is not a real number",
    },
    {
        # The larger of |a| and |b| as the size: 1/2 where the calibration asks for 1/3.
        "name": "gradient check with max(|a|, |b|) as the size",
        "cells": {"gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    numeric = numerical_gradient_array(f, x, dout, h)
    size = np.maximum(1e-8, np.maximum(np.abs(dx), np.abs(numeric)))
    return float(np.max(np.abs(dx - numeric) / size))
'''},
        "must_fail": ["test_gradient_check"],
        "message": "the larger of |a| and |b|",
    },
    {
        # The toolkit's check_close as the verdict: refused like rel_error.
        "name": "gradient check by the toolkit's check_close",
        "cells": {"gradient_check": '''\
def gradient_check(f, x, dout, dx, h=1e-5):
    return check_close("dx", dx, numerical_gradient_array(f, x, dout, h), tol=1.0).rel_error
'''},
        "must_fail": ["test_gradient_check"],
        "message": "not to call check_close",
    },
]
