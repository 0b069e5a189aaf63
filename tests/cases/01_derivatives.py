"""Alternative correct solutions and typical mistakes for course/01_derivatives.

Autograded with the real nbgrader by tests/test_grading.py: every alternative must score full
marks; every mistake must score 0 on exactly the cells in `must_fail` and full marks elsewhere.
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
        "must_fail": ["test_numerical_derivative_slope", "test_numerical_derivative_centred"],
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
        ],
    },
]
