"""Alternative correct solutions and typical mistakes for course/05_softmax.

Autograded with the real nbgrader by tests/test_grading.py: every alternative must score full
marks; every mistake must score 0 on exactly the cells in `must_fail` and full marks elsewhere.
"""

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
        "must_fail": ["test_softmax_loss_value"],
    },
]
