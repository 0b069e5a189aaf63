"""Alternative correct solutions and typical mistakes for course/05_softmax.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Every check calls the student's functions through the setup cell's declaration (graded =
Exercises(...)): PyTorch, the course's references and a changed input are refused wherever a
function runs for a grade, softmax_loss_steps must call the six steps, softmax_backward must stay
within 2 MB on rows of 1000 classes and more, and softmax_loss may not call the steps. sum_backward's
check refuses a read-only view (np.broadcast_to) with a message naming it.
"""

_REFUSED = "PyTorch is the referee of the checks, not the answer"
_REFEREE = "one of the course's references"
_SOFTMAX_LOSS_CELLS = ["test_softmax_loss_value", "test_softmax_loss_dx", "test_softmax_loss_stable"]

ALTERNATIVES = {
    # np.logaddexp.reduce for log-sum-exp, a one-hot matrix from np.eye, no in-place edits.
    "softmax_loss": '''\
def softmax_loss(x, y):
    N, C = x.shape
    lse = np.logaddexp.reduce(x, axis=1)            # log sum_k exp(x[i, k]), stably
    loss = np.mean(lse - x[np.arange(N), y])
    probs = np.exp(x - lse[:, np.newaxis])
    dx = (probs - np.eye(C)[y]) / N
    return float(loss), dx
''',
    # The six steps chained in another order of writing: the two paths into e summed first,
    # the rows as a list.
    "softmax_loss_steps": '''\
def softmax_loss_steps(x, y):
    rows = list(range(len(y)))
    e = np.exp(x)
    s = np.sum(e, axis=1)[:, None]
    p = e / s
    l = -np.log(p[rows, y])
    de_p, ds = divide_backward(pick_backward(neg_log_backward(mean_backward(1.0, l), p[rows, y]), p, y), e, s)
    return l.mean(), exp_backward(sum_backward(ds, e) + de_p, e)
''',
    # Loops over the entries, the shift by the max written as np.amax.
    "softmax_jacobian": '''\
def softmax_jacobian(z):
    C = z.shape[0]
    ez = np.exp(z - np.amax(z))
    p = ez / np.sum(ez)
    J = np.empty((C, C))
    for c in range(C):
        for k in range(C):
            J[c, k] = p[c] * ((1.0 if c == k else 0.0) - p[k])
    return J
''',
    # The Jacobian-vector product written with einsum.
    "softmax_backward": '''\
def softmax_backward(dout, p):
    inner = np.einsum("nc,nc->n", dout, p)
    return p * dout - p * inner[:, None]
''',
    # np.logaddexp.reduce does the log-sum-exp.
    "log_softmax": '''\
def log_softmax(x):
    return x - np.logaddexp.reduce(x, axis=1, keepdims=True)
''',
}

# Every step of section 2 written another valid way (they all feed softmax_loss_steps, so they
# travel together as one case that must keep full marks).
_STEPS_EQUIVALENT = {
    "mean_backward": '''\
def mean_backward(dout, l):
    return dout * np.ones_like(l) / len(l)
''',
    "neg_log_backward": '''\
def neg_log_backward(dout, q):
    return np.negative(dout) * np.reciprocal(q)
''',
    "pick_backward": '''\
def pick_backward(dout, p, y):
    return np.eye(p.shape[1])[y] * dout[:, None]
''',
    "divide_backward": '''\
def divide_backward(dout, e, s):
    de = dout * (1.0 / s)
    ds = -(dout * e).sum(axis=1, keepdims=True) / s**2
    return de, ds
''',
    "sum_backward": '''\
def sum_backward(dout, e):
    return np.repeat(dout, e.shape[1], axis=1)
''',
    "exp_backward": '''\
def exp_backward(dout, e):
    return np.multiply(e, dout)
''',
}

_TEMPLATE = '''\
def softmax_loss(x, y):
    N = x.shape[0]
    rows = np.arange(N)
    {shift}
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    {loss}
    {dx}
    return loss, dx
'''

_SHIFT = "shifted = x - x.max(axis=1, keepdims=True)"
_LOSS = "loss = -log_p[rows, y].mean()"
_DX = "dx = np.exp(log_p)\n    dx[rows, y] -= 1\n    dx /= N"


def _softmax_loss(shift=_SHIFT, loss=_LOSS, dx=_DX):
    return _TEMPLATE.format(shift=shift, loss=loss, dx=dx)


MISTAKES = [
    {
        # Right for small scores; exp(1000) overflows to inf and inf / inf is NaN.
        "name": "softmax without subtracting the max",
        "cells": {"softmax_loss": _softmax_loss(shift="shifted = x")},
        "must_fail": ["test_softmax_loss_stable"],
    },
    {
        # Shifted, but the log is taken of the probability: p underflows to 0, -log 0 = inf.
        "name": "log of the shifted probabilities instead of log-sum-exp",
        "cells": {"softmax_loss": '''\
def softmax_loss(x, y):
    N = x.shape[0]
    rows = np.arange(N)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    loss = -np.log(p[rows, y]).mean()
    dx = p.copy()
    dx[rows, y] -= 1
    return loss, dx / N
'''},
        "must_fail": ["test_softmax_loss_stable"],
    },
    {
        # A stable loss, but dx from scores clipped to +-700 instead of shifted: finite, and right on
        # the visible rows, yet no longer the softmax once a row is shifted by 1000s. The brief says
        # the hidden tests add that shift; this case proves they catch it.
        "name": "dx from clipped scores instead of shifted ones",
        "cells": {"softmax_loss": '''\
def softmax_loss(x, y):
    N = x.shape[0]
    rows = np.arange(N)
    m = x.max(axis=1, keepdims=True)
    log_p = x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    loss = -log_p[rows, y].mean()
    e = np.exp(np.clip(x, -700.0, 700.0))
    dx = e / e.sum(axis=1, keepdims=True)
    dx[rows, y] -= 1
    return loss, dx / N
'''},
        "must_fail": ["test_softmax_loss_stable"],
    },
    {
        "name": "dx divided by N twice",
        "cells": {"softmax_loss": _softmax_loss(dx=_DX.replace("dx /= N", "dx /= N * N"))},
        "must_fail": ["test_softmax_loss_dx"],
    },
    {
        "name": "dx not divided by N",
        "cells": {"softmax_loss": _softmax_loss(dx=_DX.replace("\n    dx /= N", ""))},
        "must_fail": ["test_softmax_loss_dx"],
    },
    {
        # Subtracts 1 in the columns y of every row (once per distinct label).
        "name": "dx[:, y] instead of dx[range(N), y]",
        "cells": {"softmax_loss": _softmax_loss(dx=_DX.replace("dx[rows, y]", "dx[:, y]"))},
        "must_fail": ["test_softmax_loss_dx"],
    },
    {
        # Forgets the correct class entirely: dx = p / N.
        "name": "dx without the one-hot term",
        "cells": {"softmax_loss": _softmax_loss(dx="dx = np.exp(log_p) / N")},
        "must_fail": ["test_softmax_loss_dx"],
    },
    {
        "name": "loss summed over the batch instead of averaged",
        "cells": {"softmax_loss": _softmax_loss(loss="loss = -log_p[rows, y].sum()")},
        "must_fail": ["test_softmax_loss_value"],
    },
    {
        # p[:, y] is an N x N matrix: the mean of every example's log p at every label.
        "name": "loss from log_p[:, y] (whole columns)",
        "cells": {"softmax_loss": _softmax_loss(loss="loss = -log_p[:, y].mean()")},
        "must_fail": ["test_softmax_loss_value"],
    },
    {
        # Right loss and dx, but the caller's scores are shifted in place.
        "name": "x shifted in place (x -= max)",
        "cells": {"softmax_loss": _softmax_loss(shift="x -= x.max(axis=1, keepdims=True)\n    shifted = x")},
        # the brief forbids it for the function, so every cell that grades it says so
        "must_fail": ["test_softmax_loss_value", "test_softmax_loss_dx", "test_softmax_loss_stable"],
        "message": "changed its argument x in place",
    },
    {
        "name": "every step of section 2 written another way (equivalent)",
        "cells": _STEPS_EQUIVALENT,
        "must_fail": [],
    },
    {
        # dout / N is right; dout alone (the mean taken for a sum) is N times too big.
        "name": "mean_backward: the slope of a sum (no 1/N)",
        "cells": {"mean_backward": """\
def mean_backward(dout, l):
    return np.full(l.shape[0], float(dout))
"""},
        "must_fail": ["test_mean_backward", "test_softmax_loss_steps"],
    },
    {
        # Right when dout = 1 (as in softmax_loss_steps), wrong for any other upstream gradient.
        "name": "mean_backward ignores dout",
        "cells": {"mean_backward": """\
def mean_backward(dout, l):
    return np.full(l.shape[0], 1 / l.shape[0])
"""},
        "must_fail": ["test_mean_backward"],
    },
    {
        "name": "neg_log_backward without the minus sign",
        "cells": {"neg_log_backward": """\
def neg_log_backward(dout, q):
    return dout / q
"""},
        "must_fail": ["test_neg_log_backward", "test_softmax_loss_steps"],
    },
    {
        "name": "neg_log_backward forgets dout",
        "cells": {"neg_log_backward": """\
def neg_log_backward(dout, q):
    return -1 / q
"""},
        "must_fail": ["test_neg_log_backward", "test_softmax_loss_steps"],
    },
    {
        # dp[:, y] writes dout into the label columns of every row.
        "name": "pick_backward writes whole columns (dp[:, y])",
        "cells": {"pick_backward": """\
def pick_backward(dout, p, y):
    dp = np.zeros_like(p)
    dp[:, y] = dout
    return dp
"""},
        "must_fail": ["test_pick_backward", "test_softmax_loss_steps"],
    },
    {
        # The fan-out forgotten: ds keeps one entry per (row, class) instead of a row sum.
        "name": "divide_backward: ds not summed over the row",
        "cells": {"divide_backward": """\
def divide_backward(dout, e, s):
    return dout / s, dout * (-e / s**2)
"""},
        "must_fail": ["test_divide_backward", "test_softmax_loss_steps"],
    },
    {
        # Broadcasts to the right thing inside softmax_loss_steps, but is not the (N, C) array asked for.
        "name": "sum_backward returns dout unbroadcast (N, 1)",
        "cells": {"sum_backward": """\
def sum_backward(dout, e):
    return dout
"""},
        "must_fail": ["test_sum_backward"],
    },
    {
        # Right shape and values, but a read-only view of dout: a later `de += ...` on it fails.
        "name": "sum_backward returns np.broadcast_to(dout, e.shape), a read-only view",
        "cells": {"sum_backward": """\
def sum_backward(dout, e):
    return np.broadcast_to(dout, e.shape)
"""},
        "must_fail": ["test_sum_backward"],
        "message": "is a read-only view (such as np.broadcast_to returns)",
    },
    {
        # The same view copied into an array of its own: the full (N, C) array the brief asks for.
        "name": "sum_backward copies np.broadcast_to(dout, e.shape) (equivalent)",
        "cells": {"sum_backward": """\
def sum_backward(dout, e):
    return np.broadcast_to(dout, e.shape).copy()
"""},
        "must_fail": [],
    },
    {
        "name": "exp_backward forgets dout",
        "cells": {"exp_backward": """\
def exp_backward(dout, e):
    return e.copy()
"""},
        "must_fail": ["test_exp_backward", "test_softmax_loss_steps"],
    },
    {
        # Only the path through the division: the path through the sum is dropped.
        "name": "softmax_loss_steps adds only one path into e",
        "cells": {"softmax_loss_steps": """\
def softmax_loss_steps(x, y):
    N = x.shape[0]
    rows = np.arange(N)
    e = np.exp(x)
    s = e.sum(axis=1, keepdims=True)
    p = e / s
    q = p[rows, y]
    l = -np.log(q)
    dp = pick_backward(neg_log_backward(mean_backward(1.0, l), q), p, y)
    de, ds = divide_backward(dp, e, s)
    return l.mean(), exp_backward(de, e)
"""},
        "must_fail": ["test_softmax_loss_steps"],
    },
    {
        # No forward pass of its own: the six steps run on the notebook's e, s, p, q, l (section 2's
        # forward cell), so it is right for the notebook's x and y and wrong for any other scores.
        "name": "softmax_loss_steps reads the notebook's forward pass instead of its arguments",
        "cells": {"softmax_loss_steps": """\
def softmax_loss_steps(x, y):
    dl = mean_backward(1.0, l)
    dq = neg_log_backward(dl, q)
    dp = pick_backward(dq, p, y)
    de_from_p, ds = divide_backward(dp, e, s)
    return L, exp_backward(de_from_p + sum_backward(ds, e), e)
"""},
        "must_fail": ["test_softmax_loss_steps"],
        "message": "does it read variables from the notebook instead of its arguments?",
    },
    {
        # Fine for small scores; exp(1000) overflows.
        "name": "softmax_jacobian without the shift",
        "cells": {"softmax_jacobian": """\
def softmax_jacobian(z):
    p = np.exp(z) / np.exp(z).sum()
    return np.diag(p) - np.outer(p, p)
"""},
        "must_fail": ["test_softmax_jacobian"],
    },
    {
        # Only the diagonal, p(1 - p): the sigmoid's slope, as if each output saw one score.
        "name": "softmax_backward with the diagonal of the Jacobian only",
        "cells": {"softmax_backward": """\
def softmax_backward(dout, p):
    return dout * p * (1 - p)
"""},
        "must_fail": ["test_softmax_backward"],
    },
    {
        # Shifted, but the log taken of p: p underflows to 0 for [1000, 0, -1000], log 0 = -inf.
        "name": "log_softmax as the log of the shifted softmax",
        "cells": {"log_softmax": """\
def log_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return np.log(e / e.sum(axis=1, keepdims=True))
"""},
        "must_fail": ["test_log_softmax"],
    },
]

# The fused gradient handed to the step-by-step functions (numerically right once shifted), and
# the same handed to autograd: both score nothing on the three softmax_loss cells.
MISTAKES += [
    {
        "name": "softmax_loss that calls softmax_loss_steps on shifted scores",
        "cells": {"softmax_loss": """\
def softmax_loss(x, y):
    return softmax_loss_steps(x - x.max(axis=1, keepdims=True), y)
"""},
        "must_fail": ["test_softmax_loss_value", "test_softmax_loss_dx", "test_softmax_loss_stable"],
        "message": "not to call softmax_loss_steps",
    },
    {
        "name": "softmax_loss whose dx comes from torch.autograd.grad",
        "cells": {"softmax_loss": """\
def softmax_loss(x, y):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(t, torch.as_tensor(y))
    (dx,) = torch.autograd.grad(loss, t)
    return loss.item(), dx.numpy()
"""},
        "must_fail": _SOFTMAX_LOSS_CELLS,
        "message": _REFUSED,
    },
]

# Shortcuts the declaration refuses, the rules of the briefs it enforces, and correct answers that
# keep every point.
_JACOBIAN_CELLS = ["test_softmax_backward"]
_TOO_BIG = "do not build the big intermediate array"
MISTAKES += [
    {
        # The course's softmax_loss from the package every student installs (lesson 6 names it).
        "name": "shortcut: softmax_loss is grader.lessons.two_layer_net.layers' softmax_loss",
        "cells": {"softmax_loss": """\
def softmax_loss(x, y):
    from grader.lessons.two_layer_net.layers import softmax_loss as course_softmax_loss
    return course_softmax_loss(x, y)
"""},
        "must_fail": _SOFTMAX_LOSS_CELLS,
        "message": _REFEREE,
    },
    {
        "name": "shortcut: log_softmax is torch.log_softmax",
        "cells": {"log_softmax": """\
def log_softmax(x):
    return torch.log_softmax(torch.from_numpy(x), dim=1).numpy()
"""},
        "must_fail": ["test_log_softmax"],
        "message": _REFUSED,
    },
    {
        # The loss from PyTorch's forward, dx written by hand: the forward is still PyTorch's.
        "name": "shortcut: softmax_loss's loss from F.cross_entropy",
        "cells": {"softmax_loss": """\
def softmax_loss(x, y):
    N = x.shape[0]
    loss = F.cross_entropy(torch.from_numpy(x), torch.from_numpy(y)).item()
    shifted = x - x.max(axis=1, keepdims=True)
    dx = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    dx[np.arange(N), y] -= 1
    return loss, dx / N
"""},
        "must_fail": _SOFTMAX_LOSS_CELLS,
        "message": _REFUSED,
    },
    {
        # Right numbers, one C x C Jacobian per row: 8 MB for a row of 1000 classes.
        "name": "softmax_backward through each row's Jacobian",
        "cells": {"softmax_backward": """\
def softmax_backward(dout, p):
    dx = np.empty_like(dout)
    for i in range(p.shape[0]):
        J = np.diag(p[i]) - np.outer(p[i], p[i])
        dx[i] = J.T @ dout[i]
    return dx
"""},
        "must_fail": _JACOBIAN_CELLS,
        "message": _TOO_BIG,
    },
    {
        # The whole (N, C, C) Jacobian at once, contracted with einsum.
        "name": "softmax_backward through the (N, C, C) Jacobian",
        "cells": {"softmax_backward": """\
def softmax_backward(dout, p):
    J = p[:, :, None] * np.eye(p.shape[1]) - p[:, :, None] * p[:, None, :]
    return np.einsum("nck,nc->nk", J, dout)
"""},
        "must_fail": _JACOBIAN_CELLS,
        "message": _TOO_BIG,
    },
    {
        "name": "softmax_backward calling softmax_jacobian row by row",
        "cells": {"softmax_backward": """\
def softmax_backward(dout, p):
    return np.stack([softmax_jacobian(np.log(row)) @ up for row, up in zip(p, dout)])
"""},
        "must_fail": _JACOBIAN_CELLS,
        "message": _TOO_BIG,
    },
    {
        # The fused gradient under the steps' name: none of the six steps is called.
        "name": "softmax_loss_steps without the steps",
        "cells": {"softmax_loss_steps": """\
def softmax_loss_steps(x, y):
    N = x.shape[0]
    p = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    dx = p.copy()
    dx[np.arange(N), y] -= 1
    return -np.log(p[np.arange(N), y]).mean(), dx / N
"""},
        "must_fail": ["test_softmax_loss_steps"],
        "message": "asks you to call",
    },
    {
        # Five steps called, the last one replaced by its formula.
        "name": "softmax_loss_steps with exp_backward's formula inline",
        "cells": {"softmax_loss_steps": """\
def softmax_loss_steps(x, y):
    N = x.shape[0]
    rows = np.arange(N)
    e = np.exp(x)
    s = e.sum(axis=1, keepdims=True)
    p = e / s
    q = p[rows, y]
    l = -np.log(q)
    dp = pick_backward(neg_log_backward(mean_backward(1.0, l), q), p, y)
    de, ds = divide_backward(dp, e, s)
    return l.mean(), (de + sum_backward(ds, e)) * e
"""},
        "must_fail": ["test_softmax_loss_steps"],
        "message": "asks you to call exp_backward",
    },
    {
        # Correct: exp_backward is linear in dout, so each of e's two gradients may go through it.
        "name": "softmax_loss_steps with exp_backward once per path into e (equivalent)",
        "cells": {"softmax_loss_steps": """\
def softmax_loss_steps(x, y):
    N = x.shape[0]
    rows = np.arange(N)
    e = np.exp(x)
    s = e.sum(axis=1, keepdims=True)
    p = e / s
    q = p[rows, y]
    l = -np.log(q)
    dp = pick_backward(neg_log_backward(mean_backward(1.0, l), q), p, y)
    de, ds = divide_backward(dp, e, s)
    return l.mean(), exp_backward(de, e) + exp_backward(sum_backward(ds, e), e)
"""},
        "must_fail": [],
    },
    {
        # CS231n's softmax_loss (assignment 2's layers.py): log-sum-exp after the shift, at +-1000.
        "name": "CS231n-style stable softmax loss (equivalent)",
        "cells": {"softmax_loss": """\
def softmax_loss(x, y):
    shifted_logits = x - np.max(x, axis=1, keepdims=True)
    Z = np.sum(np.exp(shifted_logits), axis=1, keepdims=True)
    log_probs = shifted_logits - np.log(Z)
    probs = np.exp(log_probs)
    N = x.shape[0]
    loss = -np.sum(log_probs[np.arange(N), y]) / N
    dx = probs.copy()
    dx[np.arange(N), y] -= 1
    dx /= N
    return loss, dx
"""},
        "must_fail": [],
    },
]
