"""Alternative correct solutions and typical mistakes for course/04_layers.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.
Each case replaces whole solution cells; the other cells keep the instructor's solution, so a
replaced forward pass must keep the solution's cache format ((x, w, b) for affine, x for relu,
out for sigmoid and tanh, the sigmoid's cache for tanh_from_sigmoid, (fc_cache, relu_cache) for
affine_relu) unless its backward pass is replaced too. A mistake in a layer also costs the cells
of the layers built from it (affine_relu from affine and relu, tanh_from_sigmoid from sigmoid,
affine_backward_loop from affine_single_backward), and a forward pass also costs the cells of its
backward pass, whose checks get the cache from it: every check calls the student's functions
through the setup cell's declaration (graded = Exercises(...)), which refuses PyTorch, the course's
reference layers and a changed input wherever a function runs for a grade.
"""

ALTERNATIVES = {
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
    # Entry by entry, the index form of hint 2.
    "affine_single_backward": '''\
def affine_single_backward(dout, cache):
    x, w, b = cache
    D, M = w.shape
    dx, dw = np.zeros(D), np.zeros((D, M))
    for d in range(D):
        for m in range(M):
            dw[d, m] = x[d] * dout[m]
            dx[d] += w[d, m] * dout[m]
    return dx, dw, np.array(dout, dtype=float)
''',
    # The per-example gradients collected in lists, then stacked and summed.
    "affine_backward_loop": '''\
def affine_backward_loop(dout, cache):
    x, w, b = cache
    rows = x.reshape(len(x), -1)
    parts = [affine_single_backward(dout[n], (rows[n], w, b)) for n in range(len(x))]
    dx = np.stack([p[0] for p in parts]).reshape(x.shape)
    dw = np.sum([p[1] for p in parts], axis=0)
    db = np.sum([p[2] for p in parts], axis=0)
    return dx, dw, db
''',
    "tanh_from_sigmoid_forward": '''\
def tanh_from_sigmoid_forward(x):
    s, cache = sigmoid_forward(x + x)
    return s + s - 1.0, cache
''',
    # The two factors of 2 in one (sigmoid_backward is linear in dout).
    "tanh_from_sigmoid_backward": '''\
def tanh_from_sigmoid_backward(dout, cache):
    return 4.0 * sigmoid_backward(dout, cache)
''',
}

# Alternatives for the layers that affine_relu is built from travel together, as one case that
# must keep full marks: each of them reaches the sandwich's cells, so one case each would need
# one autograde run each.
_LAYER_ALTERNATIVES = {
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
    "affine_relu_forward": '''\
def affine_relu_forward(x, w, b):
    fc = affine_forward(x, w, b)
    r = relu_forward(fc[0])
    return r[0], (fc[1], r[1])
''',
    "affine_relu_backward": '''\
def affine_relu_backward(dout, cache):
    fc_cache, relu_cache = cache
    return affine_backward(relu_backward(dout, relu_cache), fc_cache)
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


_REFUSED = "PyTorch is the referee of the checks, not the answer"
_REFEREE = "one of the course's references"

MISTAKES = [
    {
        # Correct for 2-D x only: for (N, 2, 3) inputs dx comes out as (N, 6).
        "name": "affine dx not reshaped to x's shape",
        "cells": {"affine_backward": _affine_backward(dx="dout @ w.T")},
        "must_fail": ["test_affine_backward_dx", "test_affine_relu_backward"],
    },
    {
        # The transpose hidden by a reshape: right shape, scrambled numbers.
        "name": "affine dx transposed, then reshaped",
        "cells": {"affine_backward": _affine_backward(dx="(w @ dout.T).reshape(x.shape)")},
        "must_fail": ["test_affine_backward_dx", "test_affine_relu_backward"],
    },
    {
        # Operands swapped: shape (M, D) instead of (D, M).
        "name": "affine dw missing transpose",
        "cells": {"affine_backward": _affine_backward(dw="dout.T @ x.reshape(N, -1)")},
        "must_fail": ["test_affine_backward_dw", "test_affine_relu_backward"],
    },
    {
        "name": "affine db averaged over the batch",
        "cells": {"affine_backward": _affine_backward(db="dout.mean(axis=0)")},
        "must_fail": ["test_affine_backward_db", "test_affine_relu_backward"],
    },
    {
        # Shape (N, M) instead of (M,).
        "name": "affine db not summed over the batch",
        "cells": {"affine_backward": _affine_backward(db="dout")},
        "must_fail": ["test_affine_backward_db", "test_affine_relu_backward"],
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
        "must_fail": ["test_relu_forward", "test_relu_backward"],
        "message": "changed its argument x in place",
    },
    {
        # The gate opened by the sign of the upstream gradient instead of the input.
        "name": "relu mask from dout instead of x",
        "cells": {"relu_backward": '''\
def relu_backward(dout, cache):
    return dout * (dout > 0)
'''},
        "must_fail": ["test_relu_backward", "test_affine_relu_backward"],
        # the check's helper (grader.lessons.layers.checks) tells the hints where the gate is open
        "message": "your mask comes from dout",
        "message_cells": ["test_relu_backward"],
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
        # the sandwich's backward hands its own dout on to relu_backward: changed in place too
        "must_fail": ["test_relu_backward", "test_affine_relu_backward"],
        "message": "changed its argument dout in place",
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
        # the message names the failure, not the cure (no exp(-|x|) before the exercise is solved)
        "message": "find a form of the sigmoid in which none can",
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
        "must_fail": ["test_sigmoid_backward", "test_tanh_from_sigmoid_backward"],
    },
    {
        "name": "tanh slope from the input (1 - x**2)",
        "cells": {
            "tanh_forward": '''\
def tanh_forward(x):
    z = np.exp(-2.0 * np.abs(x))
    return np.sign(x) * (1.0 - z) / (1.0 + z), x
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
        # Right numbers, but the exercise is the stable formula: the library's tanh is refused.
        "name": "tanh_forward with np.tanh",
        "cells": {"tanh_forward": '''\
def tanh_forward(x):
    out = np.tanh(x)
    return out, out
'''},
        "must_fail": ["test_tanh_forward"],
        "message": "no library tanh here",
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
    z = np.exp(-2.0 * np.abs(x))
    return np.sign(x) * (1.0 - z) / (1.0 + z), x
''',
            "tanh_backward": '''\
def tanh_backward(dout, cache):
    return dout / np.cosh(np.clip(cache, -350, 350)) ** 2
''',
        },
        "must_fail": [],
    },
    {
        "name": "tanh_from_sigmoid_forward calls np.tanh, and its sigmoid_forward only for show",
        "cells": {
            "tanh_from_sigmoid_forward": '''\
def tanh_from_sigmoid_forward(x):
    s, cache = sigmoid_forward(2.0 * x)
    return np.tanh(x), cache
''',
        },
        "must_fail": ["test_tanh_from_sigmoid_forward"],
        "message": "no library tanh here",
    },
    {
        # Equivalent, not a mistake: tanh(x) = 1 - 2 sigmoid(-2x), the other choice of constants,
        # and the slope 4 sigmoid'(-2x). Where tanh saturates it rounds differently from PyTorch
        # (the sigmoid near 0, not near 1): the hidden tests' points must still give it full marks.
        "name": "tanh_from_sigmoid as 1 - 2 sigmoid(-2x) (equivalent)",
        "cells": {
            "tanh_from_sigmoid_forward": '''\
def tanh_from_sigmoid_forward(x):
    s, cache = sigmoid_forward(-2.0 * x)
    return 1.0 - 2.0 * s, cache
''',
            "tanh_from_sigmoid_backward": '''\
def tanh_from_sigmoid_backward(dout, cache):
    return 4.0 * sigmoid_backward(dout, cache)
''',
        },
        "must_fail": [],
    },
    {
        # Equivalent, not a mistake: the cache is tanh's output, and the sigmoid's cache (its own
        # output, s = (1 + tanh) / 2) is rebuilt from it. Its round-off where tanh saturates is
        # yet another; full marks on the hidden tests' points too.
        "name": "tanh_from_sigmoid caching the tanh output (equivalent)",
        "cells": {
            "tanh_from_sigmoid_forward": '''\
def tanh_from_sigmoid_forward(x):
    s, _ = sigmoid_forward(2.0 * x)
    out = 2.0 * s - 1.0
    return out, out
''',
            "tanh_from_sigmoid_backward": '''\
def tanh_from_sigmoid_backward(dout, cache):
    ds = sigmoid_backward(2.0 * dout, (1.0 + cache) / 2.0)
    return 2.0 * ds
''',
        },
        "must_fail": [],
    },
    {
        # Operands of the outer product swapped: (M, D) instead of (D, M).
        "name": "affine_single_backward: dw = outer(dout, x)",
        "cells": {"affine_single_backward": """\
def affine_single_backward(dout, cache):
    x, w, b = cache
    return w @ dout, np.outer(dout, x), dout.copy()
"""},
        "must_fail": ["test_affine_single_backward", "test_affine_backward_loop"],
    },
    {
        # dout @ w is w.T @ dout: it only runs when w is square, and then it is wrong.
        "name": "affine_single_backward: dx without the transpose",
        "cells": {"affine_single_backward": """\
def affine_single_backward(dout, cache):
    x, w, b = cache
    return dout @ w, np.outer(x, dout), dout.copy()
"""},
        "must_fail": ["test_affine_single_backward", "test_affine_backward_loop"],
    },
    {
        # = instead of +=: dw and db of the last example only.
        "name": "affine_backward_loop keeps the last example's dw and db",
        "cells": {"affine_backward_loop": """\
def affine_backward_loop(dout, cache):
    x, w, b = cache
    N = x.shape[0]
    x_flat = x.reshape(N, -1)
    dx_flat = np.zeros(x_flat.shape)
    for n in range(N):
        dx_flat[n], dw, db = affine_single_backward(dout[n], (x_flat[n], w, b))
    return dx_flat.reshape(x.shape), dw, db
"""},
        "must_fail": ["test_affine_backward_loop"],
    },
    {
        # One factor of 2 only: the chain rule through u = 2x forgotten.
        "name": "tanh_from_sigmoid_backward with one factor of 2",
        "cells": {"tanh_from_sigmoid_backward": """\
def tanh_from_sigmoid_backward(dout, cache):
    return 2 * sigmoid_backward(dout, cache)
"""},
        "must_fail": ["test_tanh_from_sigmoid_backward"],
    },
    {
        # 2 sigmoid(x) - 1: the inner 2 forgotten (and its cache, used by the backward pass, is off too).
        "name": "tanh_from_sigmoid_forward: sigmoid of x instead of 2x",
        "cells": {"tanh_from_sigmoid_forward": """\
def tanh_from_sigmoid_forward(x):
    s, cache = sigmoid_forward(x)
    return 2 * s - 1, cache
"""},
        "must_fail": ["test_tanh_from_sigmoid_forward", "test_tanh_from_sigmoid_backward"],
    },
    {
        # np.tanh instead of the sigmoid, with the very cache the sigmoid would have left: the
        # backward pass still works, the forward skipped the exercise (the check counts the calls).
        "name": "tanh_from_sigmoid_forward with np.tanh and no sigmoid",
        "cells": {"tanh_from_sigmoid_forward": """\
def tanh_from_sigmoid_forward(x):
    out = np.tanh(x)
    return out, (out + 1.0) / 2.0
"""},
        "must_fail": ["test_tanh_from_sigmoid_forward", "test_tanh_from_sigmoid_backward"],
        "message": "build it from your sigmoid_forward",
        "message_cells": ["test_tanh_from_sigmoid_forward"],
    },
    {
        # A tanh formula of its own, from the sigmoid's cache: right numbers, no sigmoid_backward.
        "name": "tanh_from_sigmoid_backward with its own tanh slope",
        "cells": {"tanh_from_sigmoid_backward": """\
def tanh_from_sigmoid_backward(dout, cache):
    t = 2.0 * cache - 1.0
    return dout * (1.0 - t * t)
"""},
        "must_fail": ["test_tanh_from_sigmoid_backward"],
        "message": "called sigmoid_backward 0 times",
    },
    {
        # The ReLU forgotten in both passes: a plain affine layer with a sandwich's name.
        "name": "affine_relu without the ReLU, forward and backward",
        "cells": {
            "affine_relu_forward": """\
def affine_relu_forward(x, w, b):
    return affine_forward(x, w, b)
""",
            "affine_relu_backward": """\
def affine_relu_backward(dout, cache):
    return affine_backward(dout, cache)
""",
        },
        "must_fail": ["test_affine_relu_forward", "test_affine_relu_backward"],
    },
    {
        # Right gradients, but the cache holds only the inputs and the backward pass runs both
        # forward passes again (the brief rules that out: the cache is the exercise).
        "name": "affine_relu caching its inputs, its backward re-running the forward passes",
        "cells": {
            "affine_relu_forward": """\
def affine_relu_forward(x, w, b):
    a, _ = affine_forward(x, w, b)
    out, _ = relu_forward(a)
    return out, (x, w, b)
""",
            "affine_relu_backward": """\
def affine_relu_backward(dout, cache):
    x, w, b = cache
    a, fc_cache = affine_forward(x, w, b)
    _, relu_cache = relu_forward(a)
    return affine_backward(relu_backward(dout, relu_cache), fc_cache)
""",
        },
        "must_fail": ["test_affine_relu_backward"],
        "message": "the forward pass already ran",
    },
    {
        "name": "alternative affine, relu and affine_relu layers (equivalent)",
        "cells": _LAYER_ALTERNATIVES,
        "must_fail": [],
    },

    # Shortcuts: the work handed to PyTorch's autograd (uses="numpy" refuses every PyTorch call).
    {
        "name": "affine_backward computed by Tensor.backward",
        "cells": {"affine_backward": """\
def affine_backward(dout, cache):
    x, w, b = cache
    xt, wt, bt = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (x, w, b))
    out = xt.reshape(len(x), -1) @ wt + bt
    out.backward(torch.from_numpy(np.asarray(dout, dtype=float)))
    return xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()
"""},
        "must_fail": ["test_affine_backward_dx", "test_affine_backward_dw", "test_affine_backward_db",
                      "test_affine_relu_backward"],
        "message": _REFUSED,
    },
    {
        "name": "relu_backward computed by torch.autograd.grad",
        "cells": {"relu_backward": """\
def relu_backward(dout, cache):
    x = torch.tensor(cache, dtype=torch.float64, requires_grad=True)
    (dx,) = torch.autograd.grad(torch.relu(x), x, torch.from_numpy(np.asarray(dout, dtype=float)))
    return dx.numpy()
"""},
        "must_fail": ["test_relu_backward", "test_affine_relu_backward"],
        "message": _REFUSED,
    },
    {
        "name": "tanh_backward computed by torch.func.vjp (the input cached for it)",
        "cells": {
            "tanh_forward": """\
def tanh_forward(x):
    z = np.exp(-2.0 * np.abs(x))
    return np.sign(x) * (1.0 - z) / (1.0 + z), x
""",
            "tanh_backward": """\
def tanh_backward(dout, cache):
    _, vjp = torch.func.vjp(torch.tanh, torch.from_numpy(np.asarray(cache, dtype=float)))
    return vjp(torch.from_numpy(np.asarray(dout, dtype=float)))[0].numpy()
""",
        },
        "must_fail": ["test_tanh_backward"],
        "message": _REFUSED,
    },
    {
        # The loop's point is the per-example rule: a vectorised pass inside the loop's name.
        "name": "affine_backward_loop that never calls affine_single_backward",
        "cells": {"affine_backward_loop": """\
def affine_backward_loop(dout, cache):
    x, w, b = cache
    rows = x.reshape(len(x), -1)
    return (dout @ w.T).reshape(x.shape), rows.T @ dout, dout.sum(axis=0)
"""},
        "must_fail": ["test_affine_backward_loop"],
        "message": "once per example",
    },
    # Correct answers that must keep every point.
    {
        "name": "affine_backward with np.einsum (equivalent)",
        "cells": {"affine_backward": """\
def affine_backward(dout, cache):
    x, w, b = cache
    rows = x.reshape(x.shape[0], -1)
    dx = np.einsum("nm,dm->nd", dout, w).reshape(x.shape)
    return dx, np.einsum("nd,nm->dm", rows, dout), np.einsum("nm->m", dout)
"""},
        "must_fail": [],
    },
    {
        "name": "tanh caching its input, the backward recomputing tanh (equivalent)",
        "cells": {
            "tanh_forward": """\
def tanh_forward(x):
    z = np.exp(-2.0 * np.abs(x))
    return np.sign(x) * (1.0 - z) / (1.0 + z), np.array(x, dtype=float)
""",
            "tanh_backward": """\
def tanh_backward(dout, cache):
    return dout * (1.0 - np.tanh(cache) ** 2)
""",
        },
        "must_fail": [],
    },
]

# Shortcuts the declaration in the setup cell refuses (in the visible checks and the hidden tests
# alike), and the rules of the briefs it enforces.
_AFFINE_FORWARD_CELLS = ["test_affine_forward", "test_affine_backward_loop", "test_affine_backward_dx",
                         "test_affine_backward_dw", "test_affine_backward_db", "test_affine_relu_forward",
                         "test_affine_relu_backward"]
_AFFINE_BACKWARD_CELLS = ["test_affine_backward_dx", "test_affine_backward_dw", "test_affine_backward_db"]
MISTAKES += [
    {
        # The course's layer from the package every student installs (lesson 6 says where it is).
        "name": "shortcut: affine_forward is grader.lessons.two_layer_net.layers' affine_forward",
        "cells": {"affine_forward": """\
def affine_forward(x, w, b):
    import grader.lessons.two_layer_net.layers
    return grader.lessons.two_layer_net.layers.affine_forward(x, w, b)
"""},
        "must_fail": _AFFINE_FORWARD_CELLS,
        "message": _REFEREE,
    },
    {
        "name": "shortcut: affine_backward is grader.lessons.two_layer_net.layers' affine_backward",
        "cells": {"affine_backward": """\
def affine_backward(dout, cache):
    from grader.lessons.two_layer_net.layers import affine_backward as course_affine_backward
    return course_affine_backward(dout, cache)
"""},
        "must_fail": _AFFINE_BACKWARD_CELLS + ["test_affine_relu_backward"],
        "message": _REFEREE,
    },
    {
        "name": "shortcut: relu_backward is grader.lessons.two_layer_net.layers' relu_backward",
        "cells": {"relu_backward": """\
def relu_backward(dout, cache):
    from grader.lessons.two_layer_net import layers
    return layers.relu_backward(dout, cache)
"""},
        "must_fail": ["test_relu_backward", "test_affine_relu_backward"],
        "message": _REFEREE,
    },
    {
        # A forward handed to PyTorch: its backward cells get their cache from it, so they go too.
        "name": "shortcut: sigmoid_forward is torch.sigmoid",
        "cells": {"sigmoid_forward": """\
def sigmoid_forward(x):
    out = torch.sigmoid(torch.from_numpy(x)).numpy()
    return out, out
"""},
        "must_fail": ["test_sigmoid_forward", "test_sigmoid_stable", "test_sigmoid_backward",
                      "test_tanh_from_sigmoid_forward", "test_tanh_from_sigmoid_backward"],
        "message": _REFUSED,
    },
    {
        "name": "shortcut: affine_forward is F.linear",
        "cells": {"affine_forward": """\
def affine_forward(x, w, b):
    rows = torch.from_numpy(x.reshape(x.shape[0], -1))
    out = F.linear(rows, torch.from_numpy(w.T), torch.from_numpy(b)).numpy()
    return out, (x, w, b)
"""},
        "must_fail": _AFFINE_FORWARD_CELLS,
        "message": _REFUSED,
    },
    {
        # Each branch is stable where np.where keeps it, but np.where computes both: exp(2000).
        "name": "tanh_forward with two branches in np.where (overflows in the discarded one)",
        "cells": {"tanh_forward": """\
def tanh_forward(x):
    out = np.where(x >= 0, (1 - np.exp(-2 * x)) / (1 + np.exp(-2 * x)),
                   (np.exp(2 * x) - 1) / (np.exp(2 * x) + 1))
    return out, out
"""},
        "must_fail": ["test_tanh_forward"],
        "message": "overflow",
    },
    {
        # Right numbers, but the brief asks for no loop: a batch of 16 runs too many lines.
        "name": "affine_backward with a loop over the examples",
        "cells": {"affine_backward": """\
def affine_backward(dout, cache):
    x, w, b = cache
    rows = x.reshape(x.shape[0], -1)
    dx = np.array([w @ dout[n] for n in range(len(rows))]).reshape(x.shape)
    dw = sum(np.outer(rows[n], dout[n]) for n in range(len(rows)))
    return dx, dw, dout.sum(axis=0)
"""},
        "must_fail": _AFFINE_BACKWARD_CELLS,
        "message": "not Python loops",
    },
    {
        "name": "affine_backward that calls affine_backward_loop",
        "cells": {"affine_backward": """\
def affine_backward(dout, cache):
    return affine_backward_loop(dout, cache)
"""},
        "must_fail": _AFFINE_BACKWARD_CELLS,
        "message": "not Python loops",
    },
    {
        # The sandwich written out in NumPy, with the very caches the layers would have left.
        "name": "affine_relu_forward without the layers",
        "cells": {"affine_relu_forward": """\
def affine_relu_forward(x, w, b):
    a = x.reshape(x.shape[0], -1) @ w + b
    return np.maximum(a, 0.0), ((x, w, b), a)
"""},
        "must_fail": ["test_affine_relu_forward", "test_affine_relu_backward"],
        "message": "asks you to call",
    },
    {
        "name": "affine_relu_backward without the layers' backward passes",
        "cells": {"affine_relu_backward": """\
def affine_relu_backward(dout, cache):
    (x, w, b), a = cache
    da = dout * (a > 0)
    return (da @ w.T).reshape(x.shape), x.reshape(x.shape[0], -1).T @ da, da.sum(axis=0)
"""},
        "must_fail": ["test_affine_relu_backward"],
        "message": "asks you to call",
    },
]
