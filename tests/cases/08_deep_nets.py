"""Alternative correct solutions and typical mistakes for course/08_deep_nets (batch norm, the
whole-net backward pass one intermediate at a time, layer norm).

Autograded with the real nbgrader by tests/test_grading.py: every alternative must score full
marks; every mistake must score 0 on exactly the cells in `must_fail` and full marks elsewhere.

Graded cells: test_batchnorm_train (2), test_batchnorm_running (1), test_batchnorm_test (1);
the steps test_softmax_loss_backward (1), test_scale_shift_backward (1), test_variance_backward
(1), test_centred_backward (1), test_mean_backward (1); test_batchnorm_backward_dx (2),
test_batchnorm_backward_dgamma (1), test_batchnorm_backward_dbeta (1),
test_batchnorm_backward_alt (2); test_layernorm_forward (1), test_layernorm_dx (2),
test_layernorm_dparams (1).

Mistakes are the instructor's solution with one fragment changed (`_edit`, which fails loudly
when the fragment is gone). Packing (tests/case_packs.py): every batch-norm backward cell calls
batchnorm_forward for its cache, so a forward case cannot share a run with a backward one; the
three forward mistakes plus the two cases of batchnorm_backward make the five runs of this
lesson, and everything else fits beside them. For that reason the transposed-batch-norm layer
norm below carries its own batch norm instead of calling batchnorm_forward (which would tie the
layer-norm cells to every batch-norm case).
"""

from tests.nbgrader_harness import course_solutions
from tests.nbgrader_harness import edit_once as _edit


def _solution(grade_id: str) -> str:
    return course_solutions("08_deep_nets")[grade_id]


def _mistake(gid: str, *edits: tuple[str, str]) -> dict[str, str]:
    """{gid: the solution of `gid` with each fragment `old` (exactly once) replaced by `new`}."""
    source = _solution(gid)
    for old, new in edits:
        source = _edit(source, old, new)
    return {gid: source}


ALTERNATIVES = {
    # The simplified backward pass, dx in one expression (the alt's formula), in the staged cell.
    "batchnorm_backward": '''\
def batchnorm_backward(dout, cache):
    xhat, inv_std, gamma = cache["xhat"], cache["inv_std"], cache["gamma"]
    N = dout.shape[0]
    dbeta = np.sum(dout, axis=0)
    dgamma = np.sum(dout * xhat, axis=0)
    dx = (gamma * inv_std / N) * (N * dout - dbeta - xhat * dgamma)
    return dx, dgamma, dbeta
''',
    # Means instead of sums over the batch, gamma folded into g first.
    "batchnorm_backward_alt": '''\
def batchnorm_backward_alt(dout, cache):
    xhat, inv_std, gamma = cache["xhat"], cache["inv_std"], cache["gamma"]
    g = gamma * dout
    dx = inv_std * (g - g.mean(axis=0) - xhat * (g * xhat).mean(axis=0))
    return dx, (dout * xhat).sum(axis=0), dout.sum(axis=0)
''',
    # The log-sum-exp written out, the one-hot matrix built explicitly.
    "softmax_loss_backward": '''\
def softmax_loss_backward(logits, y):
    n, c = logits.shape
    m = logits.max(axis=1, keepdims=True)
    log_z = m + np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return (np.exp(logits - log_z) - np.eye(c)[y]) / n
''',
    # einsum, dbeta as a product with a vector of ones.
    "scale_shift_backward": '''\
def scale_shift_backward(da, xhat, gamma):
    dxhat = np.einsum("nd,d->nd", da, gamma)
    dgamma = np.einsum("nd,nd->d", da, xhat)
    dbeta = np.ones(da.shape[0]) @ da
    return dxhat, dgamma, dbeta
''',
    # dvar from the variance recovered from inv_std, the power rule with (var + eps) ** -1.5.
    "variance_backward": '''\
def variance_backward(dxhat, xc, inv_std):
    dinv_std = np.sum(dxhat * xc, axis=0)
    var_plus_eps = 1.0 / inv_std ** 2
    return dinv_std, -0.5 * var_plus_eps ** -1.5 * dinv_std
''',
    # The two paths computed separately and added; the mean of xc**2's derivative as 2 xc / N.
    "centred_backward": '''\
def centred_backward(dxhat, dvar, xc, inv_std):
    through_xhat = dxhat * inv_std[None, :]
    through_var = (2.0 / xc.shape[0]) * xc * dvar[None, :]
    return through_xhat + through_var
''',
    # A loop over the features, one column at a time.
    "mean_backward": '''\
def mean_backward(dxc):
    N, D = dxc.shape
    dz, dmu = np.empty((N, D)), np.empty(D)
    for j in range(D):
        dmu[j] = -np.sum(dxc[:, j])
        dz[:, j] = dxc[:, j] + dmu[j] / N
    return dz, dmu
''',
    # A loop over the examples, np.std for the spread; the same cache as the instructor's.
    "layernorm_forward": '''\
def layernorm_forward(x, gamma, beta, ln_param):
    eps = ln_param.get("eps", 1e-5)
    xhat, inv_std = np.empty(x.shape), np.empty((x.shape[0], 1))
    for i, row in enumerate(x):
        inv_std[i, 0] = 1.0 / np.sqrt(np.std(row) ** 2 + eps)
        xhat[i] = (row - np.mean(row)) * inv_std[i, 0]
    return gamma * xhat + beta, {"xhat": xhat, "inv_std": inv_std, "gamma": gamma}
''',
}

# Layer norm through a transposed batch norm (a batch norm over axis 0 of x.T, gamma = 1, beta = 0),
# its own copy of a staged batch norm so that the layer-norm cells stay apart from the batch-norm ones.
_LN_TRANSPOSED_FORWARD = '''\
def _bn_train(x, eps):
    mu = x.mean(axis=0)
    xc = x - mu
    inv_std = 1.0 / np.sqrt((xc ** 2).mean(axis=0) + eps)
    return xc * inv_std, (xc, inv_std)


def _bn_train_backward(dxhat, cache):
    xc, inv_std = cache
    N = dxhat.shape[0]
    dvar = -0.5 * inv_std ** 3 * (dxhat * xc).sum(axis=0)
    dxc = dxhat * inv_std + dvar * 2.0 * xc / N
    return dxc - dxc.sum(axis=0) / N


def layernorm_forward(x, gamma, beta, ln_param):
    xhat_t, bn_cache = _bn_train(x.T, ln_param.get("eps", 1e-5))
    xhat = xhat_t.T
    return gamma * xhat + beta, (xhat, gamma, bn_cache)
'''

_LN_TRANSPOSED_BACKWARD = '''\
def layernorm_backward(dout, cache):
    xhat, gamma, bn_cache = cache
    dx = _bn_train_backward((dout * gamma).T, bn_cache).T
    return dx, (dout * xhat).sum(axis=0), dout.sum(axis=0)
'''

# Kratzert's staged batch norm backward written in the alt cell, with the term of dmu that flows
# through the variance, dvar * mean(-2 xc), left out: that term is exactly zero in exact arithmetic
# (the centred batch sums to zero), so leaving it out is not a mistake.
_ALT_WITHOUT_ZERO_TERM = '''\
def batchnorm_backward_alt(dout, cache):
    xhat, xc, inv_std, gamma = cache["xhat"], cache["xc"], cache["inv_std"], cache["gamma"]
    N = dout.shape[0]
    dxhat = dout * gamma
    dvar = np.sum(dxhat * xc, axis=0) * -0.5 * inv_std ** 3
    dmu = np.sum(-dxhat * inv_std, axis=0)      # + dvar * np.mean(-2.0 * xc, axis=0), which is 0
    dx = dxhat * inv_std + dvar * 2.0 * xc / N + dmu / N
    return dx, np.sum(dout * xhat, axis=0), np.sum(dout, axis=0)
'''

MISTAKES = [
    {
        # np.var's ddof=1 habit (and PyTorch's running_var): the normalisation divided by N - 1.
        # The cache holds the wrong x-hat and 1/std, so dx, dgamma and the alt's dx are off too.
        "name": "batchnorm_forward normalises with the unbiased variance",
        "cells": _mistake("batchnorm_forward", ("var = (xc ** 2).mean(axis=0)",
                                                "var = (xc ** 2).sum(axis=0) / (x.shape[0] - 1)")),
        "must_fail": ["test_batchnorm_train", "test_batchnorm_running", "test_batchnorm_backward_dx",
                      "test_batchnorm_backward_dgamma", "test_batchnorm_backward_alt"],
    },
    {
        # Test mode normalises with the batch's own statistics, as in training.
        "name": "batchnorm_forward uses the batch statistics at test time",
        "cells": _mistake("batchnorm_forward", (
            "out = gamma * (x - running_mean) / np.sqrt(running_var + eps) + beta",
            "out = gamma * (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps) + beta")),
        "must_fail": ["test_batchnorm_test"],
    },
    {
        # PyTorch's convention read into ours: the batch statistic gets the weight `momentum`.
        "name": "batchnorm_forward's running averages with the momentum swapped",
        "cells": _mistake(
            "batchnorm_forward",
            ("running_mean = momentum * running_mean + (1 - momentum) * mu",
             "running_mean = (1 - momentum) * running_mean + momentum * mu"),
            ("running_var = momentum * running_var + (1 - momentum) * var",
             "running_var = (1 - momentum) * running_var + momentum * var")),
        "must_fail": ["test_batchnorm_running"],
    },
    {
        # The gradient that flows through the mean (dmu / N) forgotten: dx = dL/dxc.
        "name": "batchnorm_backward without the path through the mean",
        "cells": _mistake("batchnorm_backward", ("dx = dxc + dmu / N", "dx = dxc")),
        "must_fail": ["test_batchnorm_backward_dx"],
    },
    {
        "name": "not a mistake: the staged alt without dmu's zero term through the variance",
        "cells": {"batchnorm_backward_alt": _ALT_WITHOUT_ZERO_TERM},
        "must_fail": [],
    },
    {
        # dgamma left as one row per example, (N, D).
        "name": "scale_shift_backward's dgamma not summed over the batch",
        "cells": _mistake("scale_shift_backward", ("dgamma = (da * xhat).sum(axis=0)", "dgamma = da * xhat")),
        "must_fail": ["test_scale_shift_backward"],
    },
    {
        # Only the path through x-hat: the variance's share of dL/dxc forgotten.
        "name": "centred_backward without the path through the variance",
        "cells": _mistake("centred_backward", ("return dxhat * inv_std + dvar * 2.0 * xc / N",
                                               "return dxhat * inv_std")),
        "must_fail": ["test_centred_backward"],
    },
    {
        # z reaches xc directly only: dz = dxc (dmu itself is right).
        "name": "mean_backward without the path through the mean",
        "cells": _mistake("mean_backward", ("dz = dxc + dmu / N", "dz = dxc")),
        "must_fail": ["test_mean_backward"],
    },
    {
        # Batch norm's axis: statistics over the batch instead of each example's features.
        "name": "layernorm_forward normalises over the wrong axis (the batch)",
        "cells": _mistake(
            "layernorm_forward",
            ("mu = x.mean(axis=1, keepdims=True)", "mu = x.mean(axis=0, keepdims=True)"),
            ("var = (xc ** 2).mean(axis=1, keepdims=True)", "var = (xc ** 2).mean(axis=0, keepdims=True)")),
        "must_fail": ["test_layernorm_forward", "test_layernorm_dx", "test_layernorm_dparams"],
    },
    {
        "name": "not a mistake: layer norm through a transposed batch norm",
        "cells": {"layernorm_forward": _LN_TRANSPOSED_FORWARD, "layernorm_backward": _LN_TRANSPOSED_BACKWARD},
        "must_fail": [],
    },
]
