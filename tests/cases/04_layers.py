"""Alternative correct solutions and typical mistakes for course/04_layers.

Autograded with the real nbgrader by tests/test_grading.py: every alternative must score full
marks; every mistake must score 0 on exactly the cells in `must_fail` and full marks elsewhere.
Each case replaces whole solution cells; the other cells keep the instructor's solution, so a
replaced forward pass must keep the solution's cache format ((x, w, b) for affine, x for relu,
out for sigmoid and tanh) unless its backward pass is replaced too.
"""

ALTERNATIVES = {
    # einsum, and the flattened size spelled out with np.prod instead of -1.
    "affine_forward": '''\
def affine_forward(x, w, b):
    x_flat = x.reshape(x.shape[0], int(np.prod(x.shape[1:])))
    out = np.einsum("nd,dm->nm", x_flat, w) + b[np.newaxis, :]
    return out, (x, w, b)
''',
    # np.dot / einsum, the batch sum as a product with a vector of ones, reshape(*shape).
    "affine_backward": '''\
def affine_backward(dout, cache):
    x, w, b = cache
    N = x.shape[0]
    x_flat = x.reshape(N, -1)
    dx = np.dot(dout, w.T).reshape(*x.shape)
    dw = np.einsum("nd,nm->dm", x_flat, dout)
    db = np.ones(N) @ dout
    return dx, dw, db
''',
    # Multiply by the mask (gives -0.0 for negative entries: still equal to 0).
    "relu_forward": '''\
def relu_forward(x):
    out = x * (x > 0)
    return out, x
''',
    # The other subgradient at 0 (x >= 0), and np.where instead of a product.
    "relu_backward": '''\
def relu_backward(dout, cache):
    x = cache
    return np.where(x >= 0, dout, 0.0)
''',
    # No exp at all: sigmoid(x) = (1 + tanh(x / 2)) / 2.
    "sigmoid_forward": '''\
def sigmoid_forward(x):
    out = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out, out
''',
    "sigmoid_backward": '''\
def sigmoid_backward(dout, cache):
    s = cache
    return dout * (s - s * s)
''',
    # A stable hand-written tanh: exp(-2|x|) never overflows.
    "tanh_forward": '''\
def tanh_forward(x):
    z = np.exp(-2.0 * np.abs(x))
    out = np.sign(x) * (1.0 - z) / (1.0 + z)
    return out, out
''',
    "tanh_backward": '''\
def tanh_backward(dout, cache):
    t = cache
    return dout * (1.0 - t) * (1.0 + t)
''',
}

_AFFINE_BACKWARD = '''\
def affine_backward(dout, cache):
    x, w, b = cache
    N = x.shape[0]
    dx = {dx}
    dw = {dw}
    db = {db}
    return dx, dw, db
'''


def _affine_backward(dx="(dout @ w.T).reshape(x.shape)", dw="x.reshape(N, -1).T @ dout",
                     db="dout.sum(axis=0)"):
    return _AFFINE_BACKWARD.format(dx=dx, dw=dw, db=db)


MISTAKES = [
    {
        # Correct for 2-D x only: for (N, 2, 3) inputs dx comes out as (N, 6).
        "name": "affine dx not reshaped to x's shape",
        "cells": {"affine_backward": _affine_backward(dx="dout @ w.T")},
        "must_fail": ["test_affine_backward_dx"],
    },
    {
        # The transpose hidden by a reshape: right shape, scrambled numbers.
        "name": "affine dx transposed, then reshaped",
        "cells": {"affine_backward": _affine_backward(dx="(w @ dout.T).reshape(x.shape)")},
        "must_fail": ["test_affine_backward_dx"],
    },
    {
        # Operands swapped: shape (M, D) instead of (D, M).
        "name": "affine dw missing transpose",
        "cells": {"affine_backward": _affine_backward(dw="dout.T @ x.reshape(N, -1)")},
        "must_fail": ["test_affine_backward_dw"],
    },
    {
        "name": "affine db averaged over the batch",
        "cells": {"affine_backward": _affine_backward(db="dout.mean(axis=0)")},
        "must_fail": ["test_affine_backward_db"],
    },
    {
        # Shape (N, M) instead of (M,).
        "name": "affine db not summed over the batch",
        "cells": {"affine_backward": _affine_backward(db="dout")},
        "must_fail": ["test_affine_backward_db"],
    },
    {
        # The output is right, but the caller's x is overwritten (and aliased to the cache).
        "name": "relu_forward modifies x in place",
        "cells": {"relu_forward": '''\
def relu_forward(x):
    x[x < 0] = 0
    out = x
    cache = x
    return out, cache
'''},
        "must_fail": ["test_relu_forward"],
    },
    {
        # The gate opened by the sign of the upstream gradient instead of the input.
        "name": "relu mask from dout instead of x",
        "cells": {"relu_backward": '''\
def relu_backward(dout, cache):
    return dout * (dout > 0)
'''},
        "must_fail": ["test_relu_backward"],
    },
    {
        # Right values, but the upstream gradient (maybe shared with other layers) is zeroed.
        "name": "relu_backward modifies dout in place",
        "cells": {"relu_backward": '''\
def relu_backward(dout, cache):
    x = cache
    dout[x <= 0] = 0
    return dout
'''},
        "must_fail": ["test_relu_backward"],
    },
    {
        # Right values up to |x| ~ 700, overflow warnings (errors in the test) beyond.
        "name": "naive sigmoid overflows for large negative x",
        "cells": {"sigmoid_forward": '''\
def sigmoid_forward(x):
    out = 1 / (1 + np.exp(-x))
    return out, out
'''},
        "must_fail": ["test_sigmoid_stable"],
    },
    {
        # The forward pass is right; the backward pass takes the slope at the input.
        "name": "sigmoid slope from the input (x(1 - x))",
        "cells": {
            "sigmoid_forward": '''\
def sigmoid_forward(x):
    z = np.exp(-np.abs(x))
    out = np.where(x >= 0, 1 / (1 + z), z / (1 + z))
    return out, x
''',
            "sigmoid_backward": '''\
def sigmoid_backward(dout, cache):
    x = cache
    return dout * x * (1 - x)
''',
        },
        "must_fail": ["test_sigmoid_backward"],
    },
    {
        "name": "tanh slope from the input (1 - x**2)",
        "cells": {
            "tanh_forward": '''\
def tanh_forward(x):
    return np.tanh(x), x
''',
            "tanh_backward": '''\
def tanh_backward(dout, cache):
    x = cache
    return dout * (1 - x**2)
''',
        },
        "must_fail": ["test_tanh_backward"],
    },
    {
        # The textbook formula: inf / inf = NaN at |x| = 1000.
        "name": "tanh from the exp formula overflows",
        "cells": {"tanh_forward": '''\
def tanh_forward(x):
    out = (np.exp(x) - np.exp(-x)) / (np.exp(x) + np.exp(-x))
    return out, out
'''},
        "must_fail": ["test_tanh_forward"],
    },
    {
        # Equivalent, not a mistake: both caches hold the input x and the slopes are recomputed
        # from it (stably for the sigmoid, including where it saturates). Must keep full marks:
        # the reference is PyTorch's autograd, which takes the slope from the output.
        "name": "slopes recomputed from the cached input (equivalent)",
        "cells": {
            "sigmoid_forward": '''\
def sigmoid_forward(x):
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + z), z / (1 + z)), x
''',
            "sigmoid_backward": '''\
def sigmoid_backward(dout, cache):
    z = np.exp(-np.abs(cache))
    return dout * z / (1 + z) ** 2
''',
            "tanh_forward": '''\
def tanh_forward(x):
    return np.tanh(x), x
''',
            "tanh_backward": '''\
def tanh_backward(dout, cache):
    return dout / np.cosh(np.clip(cache, -350, 350)) ** 2
''',
        },
        "must_fail": [],
    },
]
