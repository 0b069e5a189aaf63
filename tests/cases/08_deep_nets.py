"""Alternative correct solutions and typical mistakes for course/08_deep_nets (batch norm, the
whole-net backward pass one intermediate at a time, layer norm; then, from "Optimisers and
dropout" on, sgd_momentum, rmsprop, adam, dropout).

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Graded cells (36 points): test_batchnorm_train (1), test_batchnorm_running (1),
test_batchnorm_test (1); the steps test_softmax_loss_backward (1), test_scale_shift_backward (1),
test_variance_backward (1), test_centred_backward (1), test_mean_backward (1);
test_batchnorm_backward_dx (1), test_batchnorm_backward_dgamma (1), test_batchnorm_backward_dbeta
(1), test_batchnorm_backward_alt (5, the one derivation on paper); test_layernorm_forward (1),
test_layernorm_dx (3), test_layernorm_dparams (1); and the optimisers and dropout below.

Mistakes are the instructor's solution with one fragment changed (`_edit`, which fails loudly
when the fragment is gone). The transposed-batch-norm layer norm below carries its own batch
norm instead of calling batchnorm_forward, so that it stands alone whatever batchnorm_forward is.
"""

from tests.nbgrader_harness import course_solutions, edited_solution
from tests.nbgrader_harness import edit_once as _edit


def _solution(grade_id: str) -> str:
    return course_solutions("08_deep_nets")[grade_id]


def _mistake(gid: str, *edits: tuple[str, str]) -> dict[str, str]:
    """{gid: the solution of `gid` with each fragment `old` (exactly once) replaced by `new`}."""
    return edited_solution("08_deep_nets", gid, *edits)


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

# Kratzert's staged batch norm backward, with the term of dmu that flows through the variance,
# dvar * mean(-2 xc), left out: that term is exactly zero in exact arithmetic (the centred batch
# sums to zero), so leaving it out is not a mistake. (Staged, it belongs in batchnorm_backward: the
# alt cell asks for dx in one expression.)
_STAGED_WITHOUT_ZERO_TERM = '''\
def batchnorm_backward(dout, cache):
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
        "name": "not a mistake: the staged backward without dmu's zero term through the variance",
        "cells": {"batchnorm_backward": _STAGED_WITHOUT_ZERO_TERM},
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
        "message": "path through x̂ alone",
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


# ---------------------------------------------------------------- optimisers and dropout
# Graded cells: optim_sgd_momentum_steps (2), optim_sgd_momentum_config (1), optim_rmsprop_steps
# (2), optim_rmsprop_config (1), optim_adam_steps (2), optim_adam_first_step (1),
# optim_adam_config (1), dropout_forward_train (1), dropout_forward_seed (1), dropout_forward_test
# (1), dropout_backward_train (1), dropout_backward_test (1). Mistakes change one or two lines of
# the reference answers (`_answer`: the solution without its markers). The backward cells of
# dropout call the forward, so dropout_forward and dropout_backward cases share their cells.



_SOLUTIONS = course_solutions("08_deep_nets")


def _answer(gid: str) -> str:
    """The reference solution cell `gid` as a student would submit it (markers removed)."""
    lines = _SOLUTIONS[gid].splitlines(keepends=True)
    return "".join(line for line in lines if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


_MOMENTUM = _answer("optim_sgd_momentum")
_RMSPROP = _answer("optim_rmsprop")
_ADAM = _answer("optim_adam")
_DROPOUT_FORWARD = _answer("dropout_forward")
_DROPOUT_BACKWARD = _answer("dropout_backward")

_OPTIM_ALTERNATIVES = {
    # one entry at a time, the defaults merged into a new dict, the velocity copied before the loop.
    "optim_sgd_momentum": '''\
def sgd_momentum(w, dw, config=None):
    config = {"learning_rate": 1e-2, "momentum": 0.9, **(config or {})}
    lr, mu = config["learning_rate"], config["momentum"]
    velocity = np.array(config.get("velocity", np.zeros(w.shape)), dtype=np.float64)
    next_w = np.empty(w.shape)
    for index in np.ndindex(w.shape):
        velocity[index] = mu * velocity[index] - lr * dw[index]
        next_w[index] = w[index] + velocity[index]
    config["velocity"] = velocity
    return next_w, config
''',
    # defaults without setdefault, the cache scaled and accumulated in place (on a fresh array).
    "optim_rmsprop": '''\
def rmsprop(w, dw, config=None):
    if config is None:
        config = {}
    for key, value in (("learning_rate", 1e-2), ("decay_rate", 0.99), ("epsilon", 1e-8)):
        if key not in config:
            config[key] = value
    rho = config["decay_rate"]
    cache = config["cache"] * rho if "cache" in config else np.zeros_like(w)
    cache += (1.0 - rho) * np.square(dw)
    config["cache"] = cache
    step = config["learning_rate"] * dw / (np.sqrt(cache) + config["epsilon"])
    return w - step, config
''',
    # torch.optim.Adam's arrangement: m by lerp, step size lr / (1 - beta1^t), and
    # denominator sqrt(v) / sqrt(1 - beta2^t) + eps.
    "optim_adam": '''\
def adam(w, dw, config=None):
    config = {} if config is None else config
    for key, value in {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "t": 0}.items():
        config.setdefault(key, value)
    config.setdefault("m", np.zeros_like(w))
    config.setdefault("v", np.zeros_like(w))
    config["t"] += 1
    t, beta1, beta2 = config["t"], config["beta1"], config["beta2"]
    config["m"] = config["m"] + (1 - beta1) * (dw - config["m"])
    config["v"] = config["v"] * beta2 + (1 - beta2) * dw * dw
    bias_correction1 = 1 - beta1 ** t
    bias_correction2 = 1 - beta2 ** t
    step_size = config["learning_rate"] / bias_correction1
    denom = np.sqrt(config["v"]) / np.sqrt(bias_correction2) + config["epsilon"]
    return w - step_size * config["m"] / denom, config
''',
}

# An alternative pair for dropout (np.random.seed and np.random.rand, a boolean mask in the cache,
# the test-mode input returned itself, the backward pass a loop over the kept units). Written as
# one case, so that the two cells, which the backward checks both reach, cost one autograde run.
_DROPOUT_ALTERNATIVE = {
    "dropout_forward": '''\
def dropout_forward(x, dropout_param):
    p = dropout_param["p"]
    if dropout_param["mode"] == "test":
        return x, ("test", None, p)
    if "seed" in dropout_param:
        np.random.seed(dropout_param["seed"])
    keep = np.random.rand(*x.shape) < p
    out = np.where(keep, x / p, 0.0)
    return out, ("train", keep, p)
''',
    "dropout_backward": '''\
def dropout_backward(dout, cache):
    mode, keep, p = cache
    if mode == "test":
        return dout
    dx = np.zeros_like(dout)
    for index in zip(*np.nonzero(keep)):
        dx[index] = dout[index] / p
    return dx
''',
}

_OPTIM_MISTAKES = [
    {
        # Not a mistake: w updated in place and returned, as CS231n's own sgd does (the checks
        # hand the rule copies, so the trajectory they keep is not changed behind their back).
        "name": "not a mistake: sgd_momentum updates w in place",
        "cells": {"optim_sgd_momentum": '''\
def sgd_momentum(w, dw, config=None):
    if config is None:
        config = {}
    config.setdefault("learning_rate", 1e-2)
    config.setdefault("momentum", 0.9)
    v = config.get("velocity", np.zeros_like(w))
    v = config["momentum"] * v - config["learning_rate"] * dw
    w += v
    config["velocity"] = v
    return w, config
'''},
        "must_fail": [],
    },
    # --- sgd_momentum
    {
        # The new velocity is computed but never stored: every step starts again from zero.
        "name": "sgd_momentum: velocity not stored in config",
        "cells": {"optim_sgd_momentum": _edit(_MOMENTUM, '    config["velocity"] = v\n', "")},
        "must_fail": ["optim_sgd_momentum_steps", "optim_sgd_momentum_config"],
    },
    {
        # The velocity points downhill, the step is taken the other way.
        "name": "sgd_momentum: the step goes uphill (w - v)",
        "cells": {"optim_sgd_momentum": _edit(_MOMENTUM, "next_w = w + v", "next_w = w - v")},
        # the config cell checks next_w for a given learning rate and velocity too
        "must_fail": ["optim_sgd_momentum_steps", "optim_sgd_momentum_config"],
    },
    {
        # PyTorch's convention, b = m b + dw and w - lr b: the same trajectory at a constant
        # learning rate, but the stored velocity is not the v = next_w - w the brief asks for.
        "name": "sgd_momentum: the velocity stored in torch's convention",
        "cells": {"optim_sgd_momentum": _edit(
            _MOMENTUM, 'v = config["momentum"] * v - config["learning_rate"] * dw\n    next_w = w + v',
            'v = config["momentum"] * v + dw\n    next_w = w - config["learning_rate"] * v')},
        "must_fail": ["optim_sgd_momentum_config"],
    },
    {
        # The unrolled sum read as an average: the new gradient weighted by (1 - mu) as in RMSProp's
        # cache, so every step is a tenth of momentum's.
        "name": "sgd_momentum: the velocity as an average, (1 - mu) on the new gradient",
        "cells": {"optim_sgd_momentum": _edit(
            _MOMENTUM, 'v = config["momentum"] * v - config["learning_rate"] * dw',
            'v = config["momentum"] * v - (1 - config["momentum"]) * config["learning_rate"] * dw')},
        "must_fail": ["optim_sgd_momentum_steps", "optim_sgd_momentum_config"],
    },
    # --- rmsprop
    {
        # The recursion without its (1 - rho): the cache sums the squares instead of averaging them.
        "name": "rmsprop: the newest square not weighted by 1 - rho",
        "cells": {"optim_rmsprop": _edit(_RMSPROP, '(1 - config["decay_rate"]) * dw ** 2', "dw ** 2")},
        "must_fail": ["optim_rmsprop_steps", "optim_rmsprop_config"],
    },
    {
        # A fresh cache at every step: every step is lr / sqrt(1 - rho), ten times lr, for ever.
        "name": "rmsprop: the cache never stored",
        "cells": {"optim_rmsprop": _edit(_RMSPROP, '    config["cache"] = cache\n', "")},
        "must_fail": ["optim_rmsprop_steps", "optim_rmsprop_config"],
    },
    {
        "name": "rmsprop: the cache not square-rooted",
        "cells": {"optim_rmsprop": _edit(_RMSPROP, '(np.sqrt(cache) + config["epsilon"])',
                                         '(cache + config["epsilon"])')},
        "must_fail": ["optim_rmsprop_steps"],
    },
    # --- adam
    {
        # Adam's paper's "efficient" ordering: the corrections folded into the learning rate, and
        # epsilon added to sqrt(v) uncorrected. A hair away from torch's; within the tolerance.
        "name": "adam: the corrections folded into the learning rate (equivalent)",
        "cells": {"optim_adam": _edit(
            _ADAM,
            '    m_hat = m / (1 - beta1 ** t)\n    v_hat = v / (1 - beta2 ** t)\n'
            '    next_w = w - config["learning_rate"] * m_hat / (np.sqrt(v_hat) + config["epsilon"])\n',
            '    lr_t = config["learning_rate"] * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)\n'
            '    next_w = w - lr_t * m / (np.sqrt(v) + config["epsilon"])\n')},
        "must_fail": [],
    },
    {
        "name": "adam: no bias correction",
        "cells": {"optim_adam": _edit(
            _edit(_ADAM, "m_hat = m / (1 - beta1 ** t)", "m_hat = m"),
            "v_hat = v / (1 - beta2 ** t)", "v_hat = v")},
        "must_fail": ["optim_adam_steps", "optim_adam_first_step"],
    },
    {
        # Only the first moment corrected: the steps are too small by sqrt(1 - beta2^t) early on.
        "name": "adam: v not corrected",
        "cells": {"optim_adam": _edit(_ADAM, "v_hat = v / (1 - beta2 ** t)", "v_hat = v")},
        "must_fail": ["optim_adam_steps", "optim_adam_first_step"],
    },
    {
        # The correction made with the t of the previous step (0 at the first: a division by 0);
        # the count stored afterwards is right, and so are m and v.
        "name": "adam: t incremented after its use",
        "cells": {"optim_adam": _edit(
            _edit(_ADAM, 't = config.get("t", 0) + 1', 't = config.get("t", 0)'),
            'config["m"], config["v"], config["t"] = m, v, t',
            'config["m"], config["v"], config["t"] = m, v, t + 1')},
        "must_fail": ["optim_adam_steps", "optim_adam_first_step"],
    },
    # --- dropout
    {
        "name": "dropout: np.random.rand, a boolean mask, a loop (equivalent)",
        "cells": _DROPOUT_ALTERNATIVE,
        "must_fail": [],
    },
    {
        # Kept units equal x: the next layer sees inputs a factor p smaller than at test time.
        # The backward pass multiplies by the same unscaled mask.
        "name": "dropout not rescaled by 1/p",
        "cells": {"dropout_forward": _edit(_DROPOUT_FORWARD, "mask = (rng.random(x.shape) < p) / p",
                                           "mask = rng.random(x.shape) < p")},
        "must_fail": ["dropout_forward_train", "dropout_backward_train"],
    },
    {
        "name": "dropout applied at test time too",
        "cells": {"dropout_forward": _edit(_DROPOUT_FORWARD, '    if mode == "train":\n',
                                           "    if True:  # the mode is never looked at\n")},
        # dropout_backward reads the mode from the cache: in test mode it still returns dout
        "must_fail": ["dropout_forward_test"],
    },
    {
        "name": "dropout: p taken as the drop probability",
        "cells": {"dropout_forward": _edit(_DROPOUT_FORWARD, "mask = (rng.random(x.shape) < p) / p",
                                           "mask = (rng.random(x.shape) >= p) / (1 - p)")},
        "must_fail": ["dropout_forward_train", "dropout_backward_train"],
    },
    {
        # A fresh mask in the backward pass: the gradient flows through units that were off.
        "name": "dropout_backward draws a new mask",
        "cells": {"dropout_backward": _edit(
            _DROPOUT_BACKWARD, "dx = dout * mask",
            'p = dropout_param["p"]\n'
            '        dx = dout * (np.random.default_rng().random(dout.shape) < p) / p')},
        "must_fail": ["dropout_backward_train"],
    },
]

ALTERNATIVES |= _OPTIM_ALTERNATIVES
MISTAKES += _OPTIM_MISTAKES

# The shortcut the one-expression exercise invites (it scored 2 of 35 over a blank notebook while
# the staged backward was there to call), and a dgamma mistake the check now sees.
MISTAKES += [
    {
        "name": "batchnorm_backward_alt that calls batchnorm_backward",
        "cells": {"batchnorm_backward_alt": """\
def batchnorm_backward_alt(dout, cache):
    return batchnorm_backward(dout, cache)
"""},
        "must_fail": ["test_batchnorm_backward_alt"],
        "message": "not to call batchnorm_backward",
    },
    {
        "name": "batchnorm_backward_alt returning dbeta as dgamma",
        "cells": {"batchnorm_backward_alt": """\
def batchnorm_backward_alt(dout, cache):
    xhat, inv_std, gamma = cache["xhat"], cache["inv_std"], cache["gamma"]
    N = dout.shape[0]
    dgamma = (dout * xhat).sum(axis=0)
    dbeta = dout.sum(axis=0)
    dx = gamma * inv_std / N * (N * dout - dbeta - xhat * dgamma)
    return dx, dbeta, dbeta
"""},
        "must_fail": ["test_batchnorm_backward_alt"],
    },
]


# What the declaration in the setup cell (graded = Exercises(...)) enforces, in the visible checks
# and the hidden tests alike: NumPy only, the course's references refused, every argument left as
# it came in except an update rule's w and config and batch norm's bn_param; the one-expression
# batchnorm_backward_alt without the staged steps, in at most 9 lines of Python.
_TORCH = "PyTorch is the referee of the checks, not the answer"
_REFERENCE = "one of the course's references"
_BN_TRAIN_CELLS = ["test_batchnorm_train", "test_batchnorm_running", "test_batchnorm_backward_dx",
                   "test_batchnorm_backward_dgamma", "test_batchnorm_backward_dbeta",
                   "test_batchnorm_backward_alt"]
_LN_CELLS = ["test_layernorm_forward", "test_layernorm_dx", "test_layernorm_dparams"]
_LN_FORWARD = _answer("layernorm_forward")

MISTAKES += [
    # --- batchnorm_backward_alt: one expression, not the staged steps
    {
        # The staged backward pasted as it stands: 10 lines of Python where the budget is 9.
        "name": "batchnorm_backward_alt: the staged steps pasted inline",
        "cells": {"batchnorm_backward_alt": _answer("batchnorm_backward").replace(
            "def batchnorm_backward(", "def batchnorm_backward_alt(")},
        "must_fail": ["test_batchnorm_backward_alt"],
        "message": "ran 10 lines of Python",
    },
    {
        "name": "batchnorm_backward_alt that calls scale_shift_backward",
        "cells": {"batchnorm_backward_alt": """\
def batchnorm_backward_alt(dout, cache):
    xhat, inv_std, gamma = cache["xhat"], cache["inv_std"], cache["gamma"]
    g, dgamma, dbeta = scale_shift_backward(dout, xhat, gamma)
    dx = inv_std * (g - g.mean(axis=0) - xhat * (g * xhat).mean(axis=0))
    return dx, dgamma, dbeta
"""},
        "must_fail": ["test_batchnorm_backward_alt"],
        "message": "not to call scale_shift_backward",
    },
    {
        # Means of dout instead of sums of g (gamma is the same for the whole batch).
        "name": "not a mistake: batchnorm_backward_alt with means of dout",
        "cells": {"batchnorm_backward_alt": """\
def batchnorm_backward_alt(dout, cache):
    xhat, inv_std, gamma = cache["xhat"], cache["inv_std"], cache["gamma"]
    dx = gamma * inv_std * (dout - np.mean(dout, axis=0) - xhat * np.mean(dout * xhat, axis=0))
    return dx, np.sum(dout * xhat, axis=0), np.sum(dout, axis=0)
"""},
        "must_fail": [],
    },
    {
        # The longest one-expression writing the budget is for: every read, g and both gradients on
        # a line of their own (9 lines).
        "name": "not a mistake: batchnorm_backward_alt one step per line",
        "cells": {"batchnorm_backward_alt": """\
def batchnorm_backward_alt(dout, cache):
    xhat = cache["xhat"]
    inv_std = cache["inv_std"]
    gamma = cache["gamma"]
    N = dout.shape[0]
    g = gamma * dout
    dgamma = np.sum(dout * xhat, axis=0)
    dbeta = np.sum(dout, axis=0)
    dx = (inv_std / N) * (N * g - g.sum(axis=0) - xhat * (g * xhat).sum(axis=0))
    return dx, dgamma, dbeta
"""},
        "must_fail": [],
    },
    {
        # Hint 4's code with dx wrapped over two lines: counted 3, so 9 lines in all, as the hint says.
        "name": "not a mistake: batchnorm_backward_alt as hint 4, dx wrapped over two lines",
        "cells": {"batchnorm_backward_alt": """\
def batchnorm_backward_alt(dout, cache):
    xhat, inv_std, gamma = cache["xhat"], cache["inv_std"], cache["gamma"]
    N = dout.shape[0]
    g = gamma * dout
    dx = inv_std / N * (N * g - g.sum(axis=0)
                        - xhat * (g * xhat).sum(axis=0))
    dgamma = (dout * xhat).sum(axis=0)
    dbeta = dout.sum(axis=0)
    return dx, dgamma, dbeta
"""},
        "must_fail": [],
    },
    {
        # The same dx wrapped over three lines: counted 5, 11 lines in all (hint 4 says so); the check
        # stops at the 10th.
        "name": "batchnorm_backward_alt as hint 4, dx wrapped over three lines",
        "cells": {"batchnorm_backward_alt": """\
def batchnorm_backward_alt(dout, cache):
    xhat, inv_std, gamma = cache["xhat"], cache["inv_std"], cache["gamma"]
    N = dout.shape[0]
    g = gamma * dout
    dx = inv_std / N * (N * g
                        - g.sum(axis=0)
                        - xhat * (g * xhat).sum(axis=0))
    dgamma = (dout * xhat).sum(axis=0)
    dbeta = dout.sum(axis=0)
    return dx, dgamma, dbeta
"""},
        "must_fail": ["test_batchnorm_backward_alt"],
        "message": "ran 10 lines of Python",
    },
    # --- inputs changed in place: ✓ in the visible checks, then lost in the hidden tests, before
    {
        "name": "batchnorm_forward centres x in place",
        "cells": _mistake("batchnorm_forward", ("xc = x - mu", "xc = x\n        xc -= mu")),
        "must_fail": _BN_TRAIN_CELLS,
        "message": "changed its argument x in place",
    },
    {
        # Test mode updates the running averages with the test batch, as train mode does.
        "name": "batchnorm_forward updates the running averages in test mode",
        "cells": _mistake("batchnorm_forward", (
            "    elif mode == \"test\":\n",
            "    elif mode == \"test\":\n"
            '        bn_param["running_mean"] = momentum * running_mean + (1 - momentum) * x.mean(0)\n')),
        "must_fail": ["test_batchnorm_test"],
        "message": "test mode changed bn_param",
    },
    {
        # CS231n's layout: the running averages stored back after the if/else, in both modes; in
        # test mode they are the same values, so nothing changes.
        "name": "not a mistake: batchnorm_forward stores the running averages back in test mode too",
        "cells": _mistake(
            "batchnorm_forward",
            ('        bn_param["running_mean"] = running_mean   # stored back: the next call must see them\n'
             "        bn_param[\"running_var\"] = running_var\n", ""),
            ("    return out, cache\n",
             "    bn_param[\"running_mean\"] = running_mean\n"
             "    bn_param[\"running_var\"] = running_var\n"
             "    return out, cache\n")),
        "must_fail": [],
    },
    {
        # CS231n's interface lets bn_param change: its arrays updated in place are the same update.
        "name": "not a mistake: batchnorm_forward updates the running averages in place",
        "cells": _mistake(
            "batchnorm_forward",
            ("        running_mean = momentum * running_mean + (1 - momentum) * mu\n"
             "        running_var = momentum * running_var + (1 - momentum) * var\n",
             "        running_mean *= momentum\n        running_mean += (1 - momentum) * mu\n"
             "        running_var *= momentum\n        running_var += (1 - momentum) * var\n"),
            ('running_mean = bn_param.get("running_mean", np.zeros(D))',
             'running_mean = bn_param.setdefault("running_mean", np.zeros(D))'),
            ('running_var = bn_param.get("running_var", np.zeros(D))',
             'running_var = bn_param.setdefault("running_var", np.zeros(D))')),
        "must_fail": [],
    },
    {
        # The learning rate folded into dw in place: the trajectory is right (the checks hand the
        # rule copies), the caller's gradient is not.
        "name": "sgd_momentum scales dw in place",
        "cells": {"optim_sgd_momentum": _edit(
            _MOMENTUM, 'v = config["momentum"] * v - config["learning_rate"] * dw',
            'dw *= config["learning_rate"]\n    v = config["momentum"] * v - dw')},
        "must_fail": ["optim_sgd_momentum_steps", "optim_sgd_momentum_config"],
        "message": "changed its argument dw in place",
    },
    {
        "name": "layernorm_backward scales dout by gamma in place",
        "cells": _mistake("layernorm_backward", ("g = dout * gamma", "g = dout\n    g *= gamma")),
        "must_fail": ["test_layernorm_dx", "test_layernorm_dparams"],
        "message": "changed its argument dout in place",
    },
    {
        # The mask kept in a global instead of the cache: right after one forward call, wrong when
        # a backward call follows another forward call.
        "name": "dropout: the mask of the last forward call, from a global",
        "cells": {"dropout_forward": _edit(_DROPOUT_FORWARD, "    cache = (dropout_param, mask)\n",
                                           "    global last_mask\n    last_mask = mask\n"
                                           "    cache = (dropout_param, mask)\n"),
                  "dropout_backward": _edit(_DROPOUT_BACKWARD, "dx = dout * mask", "dx = dout * last_mask")},
        "must_fail": ["dropout_backward_train"],
    },
    # --- shortcuts: the exercise handed to PyTorch, or to one of the course's references
    {
        "name": "shortcut: batchnorm_forward's output from torch.nn.functional.batch_norm",
        "cells": _mistake(
            "batchnorm_forward",
            ("        out = gamma * xhat + beta\n",
             "        t = [torch.tensor(a) for a in (x, gamma, beta)]\n"
             "        F = torch.nn.functional\n"
             "        out = F.batch_norm(t[0], None, None, *t[1:], training=True, eps=eps).numpy()\n"),
            ("        out = gamma * (x - running_mean) / np.sqrt(running_var + eps) + beta\n",
             "        t = [torch.tensor(a) for a in (x, running_mean, running_var, gamma, beta)]\n"
             "        out = torch.nn.functional.batch_norm(*t, training=False, eps=eps).numpy()\n")),
        "must_fail": ["test_batchnorm_test", *_BN_TRAIN_CELLS],
        "message": _TORCH,
    },
    {
        "name": "shortcut: batchnorm_forward's running averages from running_averages",
        "cells": _mistake(
            "batchnorm_forward",
            ("        running_mean = momentum * running_mean + (1 - momentum) * mu\n"
             "        running_var = momentum * running_var + (1 - momentum) * var\n",
             "        ((running_mean, running_var),) = running_averages(\n"
             "            [x], momentum, running_mean, running_var)\n")),
        "must_fail": _BN_TRAIN_CELLS,
        "message": _REFERENCE,
    },
    {
        "name": "shortcut: sgd_momentum is optimiser_reference",
        "cells": {"optim_sgd_momentum": """\
def sgd_momentum(w, dw, config=None):
    config = {} if config is None else config
    trajectory, state = optimiser_reference("sgd_momentum", w, [dw], config)
    config.update({**DEFAULTS["sgd_momentum"], **config, **state})
    return trajectory[-1], config
"""},
        "must_fail": ["optim_sgd_momentum_steps", "optim_sgd_momentum_config"],
        "message": _REFERENCE,
    },
    {
        "name": "shortcut: rmsprop is optimiser_reference",
        "cells": {"optim_rmsprop": """\
def rmsprop(w, dw, config=None):
    config = {} if config is None else config
    trajectory, state = optimiser_reference("rmsprop", w, [dw], config)
    config.update({**DEFAULTS["rmsprop"], **config, **state})
    return trajectory[-1], config
"""},
        "must_fail": ["optim_rmsprop_steps", "optim_rmsprop_config"],
        "message": _REFERENCE,
    },
    {
        # imported under another name, inside the function
        "name": "shortcut: adam is optimiser_reference",
        "cells": {"optim_adam": """\
def adam(w, dw, config=None):
    from grader.lessons.deep_nets import reference as ref
    config = {} if config is None else config
    trajectory, state = ref.optimiser_reference("adam", w, [dw], config)
    config.update({**DEFAULTS["adam"], **config, **state, "t": int(state["t"])})
    return trajectory[-1], config
"""},
        "must_fail": ["optim_adam_steps", "optim_adam_first_step", "optim_adam_config"],
        "message": _REFERENCE,
    },
    {
        # lesson 11's and 12's training runs use an Adam the course ships: a lesson helper, refused
        "name": "shortcut: adam is grader.lessons.adam's Adam",
        "cells": {"optim_adam": """\
def adam(w, dw, config=None):
    from grader.lessons.adam import Adam
    config = {} if config is None else config
    for key, value in DEFAULTS["adam"].items():
        config.setdefault(key, value)
    opt = Adam({"w": w}, lr=config["learning_rate"], beta1=config["beta1"], beta2=config["beta2"],
               eps=config["epsilon"])
    opt.m["w"] = config.get("m", np.zeros_like(w))
    opt.v["w"] = config.get("v", np.zeros_like(w))
    opt.t = config.get("t", 0)
    next_w = w.copy()
    opt.params["w"] = next_w
    opt.step({"w": dw})
    config.update(m=opt.m["w"], v=opt.v["w"], t=opt.t)
    return next_w, config
"""},
        "must_fail": ["optim_adam_steps", "optim_adam_first_step", "optim_adam_config"],
        "message": _REFERENCE,
    },
    {
        "name": "shortcut: dropout_backward is dropout_dx",
        "cells": {"dropout_backward": _edit(_DROPOUT_BACKWARD, "dx = dout * mask",
                                            'dx = dropout_dx(mask, dout, dropout_param["p"])')},
        "must_fail": ["dropout_backward_train"],
        "message": _REFERENCE,
    },
    {
        # lesson 12's reference layer norm (PyTorch's, eps 1e-5), its own cache beside.
        "name": "shortcut: layernorm_forward is lesson 12's reference",
        "cells": {"layernorm_forward": _edit(
            _LN_FORWARD, "    out = gamma * xhat + beta\n",
            "    from grader.lessons.attention.reference import layernorm_forward as reference\n"
            "    out, _ = reference(x, gamma, beta)\n")},
        "must_fail": _LN_CELLS,
        "message": _REFERENCE,
    },
    {
        "name": "shortcut: layernorm_backward is lesson 12's reference",
        "cells": {"layernorm_forward": _edit(_LN_FORWARD,
                                             'cache = {"xhat": xhat, "inv_std": inv_std, "gamma": gamma}',
                                             'cache = {"x": x, "gamma": gamma, "beta": beta}'),
                  "layernorm_backward": """\
def layernorm_backward(dout, cache):
    from grader.lessons.attention.reference import layernorm_backward as reference
    return reference(dout, (cache["x"], cache["gamma"], cache["beta"]))
"""},
        "must_fail": ["test_layernorm_dx", "test_layernorm_dparams"],
        "message": _REFERENCE,
    },
]


_LN_DX = ("dx = inv_std / D * (D * g - g.sum(axis=1, keepdims=True)"
          " - xhat * (g * xhat).sum(axis=1, keepdims=True))")

# The slips students make in the backward passes, each named by its check (grader.lessons.deep_nets.slips)
# rather than left with a bare relative error.
MISTAKES += [
    {
        # a = gamma * xhat + beta read as a = xhat + beta on the way back.
        "name": "scale_shift_backward forgets gamma in dxhat",
        "cells": _mistake("scale_shift_backward", ("dxhat = da * gamma", "dxhat = da")),
        "must_fail": ["test_scale_shift_backward"],
        "message": "without γ",
    },
    {
        # d/dvar (var + eps)^(-1/2) written with r itself, or r squared, in place of r cubed.
        "name": "variance_backward with r instead of r cubed",
        "cells": _mistake("variance_backward", ("dvar = -0.5 * inv_std ** 3 * dinv_std",
                                                "dvar = -0.5 * inv_std * dinv_std")),
        "must_fail": ["test_variance_backward"],
        "message": "wrong power of r",
    },
    {
        "name": "variance_backward with r squared instead of r cubed",
        "cells": _mistake("variance_backward", ("dvar = -0.5 * inv_std ** 3 * dinv_std",
                                                "dvar = -0.5 * inv_std ** 2 * dinv_std")),
        "must_fail": ["test_variance_backward"],
        "message": "wrong power of r",
    },
    {
        # The variance's path with d(var)/d(xc) = xc / N: the 2 of the square forgotten.
        "name": "centred_backward forgets the 2 of the square",
        "cells": _mistake("centred_backward", ("dvar * 2.0 * xc / N", "dvar * xc / N")),
        "must_fail": ["test_centred_backward"],
        "message": "off by a constant factor",
    },
    {
        "name": "centred_backward forgets the 2/N",
        "cells": _mistake("centred_backward", ("dvar * 2.0 * xc / N", "dvar * xc")),
        "must_fail": ["test_centred_backward"],
        "message": "off by a constant factor",
    },
    {
        # gamma forgotten in the staged backward: dx is off, dgamma and dbeta are not.
        "name": "batchnorm_backward forgets gamma",
        "cells": _mistake("batchnorm_backward", ("dxhat = dout * gamma", "dxhat = dout")),
        "must_fail": ["test_batchnorm_backward_dx"],
        "message": "without γ",
    },
    {
        "name": "batchnorm_backward_alt forgets gamma",
        "cells": _mistake("batchnorm_backward_alt", ("dx = gamma * inv_std / N", "dx = inv_std / N")),
        "must_fail": ["test_batchnorm_backward_alt"],
        "message": "without γ",
    },
    {
        # The bracket without the 1/N in front: N times the gradient.
        "name": "batchnorm_backward_alt loses the 1/N",
        "cells": _mistake("batchnorm_backward_alt", ("dx = gamma * inv_std / N", "dx = gamma * inv_std")),
        "must_fail": ["test_batchnorm_backward_alt"],
        "message": "times the true gradient",
    },
    {
        # Batch norm's one expression, reused with dbeta and dgamma: gamma taken out of sums over the
        # features, where it changes from term to term.
        "name": "layernorm_backward takes gamma out of the sums over the features",
        "cells": _mistake("layernorm_backward", (
            _LN_DX,
            "dx = gamma * inv_std / D * (D * dout - dout.sum(axis=1, keepdims=True)"
            " - xhat * (dout * xhat).sum(axis=1, keepdims=True))")),
        "must_fail": ["test_layernorm_dx"],
        "message": "takes γ out of the sums",
    },
    {
        # Batch norm's axis kept in the sums of the backward pass.
        "name": "layernorm_backward sums over the batch",
        "cells": _mistake("layernorm_backward", (
            _LN_DX,
            "dx = inv_std / D * (D * g - g.sum(axis=0) - xhat * (g * xhat).sum(axis=0))")),
        "must_fail": ["test_layernorm_dx"],
        "message": "sums over the batch",
    },
    {
        # epsilon under the square root: a hair off, and named (grader.hints.optim).
        "name": "rmsprop: epsilon under the square root",
        "cells": {"optim_rmsprop": _edit(_RMSPROP, '(np.sqrt(cache) + config["epsilon"])',
                                         'np.sqrt(cache + config["epsilon"])')},
        "must_fail": ["optim_rmsprop_steps"],
        "message": "under the square root",
    },
    {
        # v corrected with the count before its increment: 1 - beta2**0 = 0, v_hat infinite, a first
        # step of exactly 0 (named, not "a small term is off").
        "name": "adam: v's correction with t - 1",
        "cells": {"optim_adam": _edit(_ADAM, "v_hat = v / (1 - beta2 ** t)",
                                      "v_hat = v / (1 - beta2 ** (t - 1))")},
        "must_fail": ["optim_adam_steps", "optim_adam_first_step"],
        "message": "does not move the weights",
    },
    {
        # A default seed of 0: every call without a seed draws the same mask, so training would
        # drop the same units at every step.
        "name": "dropout: the same mask at every call without a seed",
        "cells": {"dropout_forward": _edit(_DROPOUT_FORWARD, 'dropout_param.get("seed")',
                                           'dropout_param.get("seed", 0)')},
        "must_fail": ["dropout_forward_seed"],
        "message": "every call draws a fresh mask",
    },
]
