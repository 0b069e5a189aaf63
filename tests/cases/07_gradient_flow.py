"""Alternative correct solutions and typical mistakes for course/07_gradient_flow.

Autograded with the real nbgrader by tests/test_grading.py: every alternative must score full
marks; every mistake must score 0 on exactly the cells in `must_fail` and full marks elsewhere.

Graded cells: test_layer_gradient_norms_tanh (2), test_layer_gradient_norms_activations (2),
test_layer_gradient_norms_residual (2), test_xavier_init_variance (2), test_xavier_init_rng (1),
test_he_init_variance (2), test_he_init_rng (1), test_dead_fraction (2),
test_dead_fraction_zeros (1).
"""

# The reference answers as a student would write them (markers removed); mistakes change one line.
_NORMS = '''\
def layer_gradient_norms(weights, x, dout, activation="tanh", residual=False):
    _, slope = ACTIVATIONS[activation]
    zs, hs = net_forward(weights, x, activation, residual)
    norms = np.zeros(len(weights))
    dh = dout
    for i in reversed(range(len(weights))):
        dz = dh * slope(zs[i])
        norms[i] = np.linalg.norm(hs[i].T @ dz)
        dh_below = dz @ weights[i].T
        dh = dh_below + dh if residual else dh_below
    return norms
'''

_XAVIER = '''\
def xavier_init(fan_in, fan_out, rng):
    std = np.sqrt(2.0 / (fan_in + fan_out))
    return rng.normal(0.0, std, size=(fan_in, fan_out))
'''

_HE = '''\
def he_init(fan_in, fan_out, rng):
    return rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
'''

_DEAD = '''\
def dead_fraction(pre_activations):
    never_positive = np.all(pre_activations <= 0, axis=0)
    return float(np.mean(never_positive))
'''


def _edit(source: str, old: str, new: str) -> str:
    """`source` with the line fragment `old` (which must occur exactly once) replaced by `new`."""
    assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times"
    return source.replace(old, new)


ALTERNATIVES = {
    # Its own forward pass (no net_forward), caches as (input, z) pairs, einsum for dW, the norm
    # as a square root of a sum, the skip path added before the matrix product is taken.
    "layer_gradient_norms": '''\
def layer_gradient_norms(weights, x, dout, activation="tanh", residual=False):
    act, slope = ACTIVATIONS[activation]
    caches = []
    h = x
    for w in weights:
        z = h @ w
        caches.append((h, z))
        h = act(z) + h if residual else act(z)
    grads = []
    upstream = dout.copy()
    for w, (h_in, z) in zip(weights[::-1], caches[::-1]):
        local = upstream * slope(z)
        dw = np.einsum("ni,nj->ij", h_in, local)
        grads.append(np.sqrt(np.sum(dw * dw)))
        skip = upstream if residual else 0.0
        upstream = local @ w.T + skip
    return np.array(grads[::-1], dtype=np.float64)
''',
    # Glorot *uniform*: U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) has the same variance.
    "xavier_init": '''\
def xavier_init(fan_in, fan_out, rng):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, size=(fan_in, fan_out))
''',
    # standard_normal scaled afterwards, fans converted to float first.
    "he_init": '''\
def he_init(fan_in, fan_out, rng):
    variance = 2.0 / float(fan_in)
    return np.sqrt(variance) * rng.standard_normal((fan_in, fan_out))
''',
    # "alive" = positive somewhere; count them; works for any N >= 1.
    "dead_fraction": '''\
def dead_fraction(pre_activations):
    alive = (pre_activations > 0).any(axis=0)
    n_units = pre_activations.shape[1]
    return (n_units - np.count_nonzero(alive)) / n_units
''',
}

MISTAKES = [
    {
        # LeCun's variance 1/fan_in: it only keeps the forward pass steady.
        "name": "xavier_init with variance 1/fan_in",
        "cells": {"xavier_init": _edit(_XAVIER, "np.sqrt(2.0 / (fan_in + fan_out))",
                                       "np.sqrt(1.0 / fan_in)")},
        "must_fail": ["test_xavier_init_variance"],
    },
    {
        # Numbers from numpy's global generator: right variance, not reproducible from rng.
        "name": "xavier_init draws from np.random",
        "cells": {"xavier_init": _edit(_XAVIER, "rng.normal(0.0, std, size=(fan_in, fan_out))",
                                       "std * np.random.randn(fan_in, fan_out)")},
        "must_fail": ["test_xavier_init_rng"],
    },
    {
        # fan_out where fan_in belongs.
        "name": "he_init with variance 2/fan_out",
        "cells": {"he_init": _edit(_HE, "np.sqrt(2.0 / fan_in)", "np.sqrt(2.0 / fan_out)")},
        "must_fail": ["test_he_init_variance"],
    },
    {
        # The variance passed as rng.normal's scale, which is the standard deviation.
        "name": "he_init passes the variance as the standard deviation",
        "cells": {"he_init": _edit(_HE, "np.sqrt(2.0 / fan_in)", "2.0 / fan_in")},
        "must_fail": ["test_he_init_variance"],
    },
    {
        # One verdict per input instead of per unit: "every unit off for this input".
        "name": "dead_fraction per input (axis=1)",
        "cells": {"dead_fraction": _edit(_DEAD, "axis=0", "axis=1")},
        "must_fail": ["test_dead_fraction", "test_dead_fraction_zeros"],
    },
    {
        # z < 0 instead of z <= 0: a unit stuck at exactly 0 counted as alive.
        "name": "dead_fraction counts exact zeros as alive",
        "cells": {"dead_fraction": _edit(_DEAD, "pre_activations <= 0", "pre_activations < 0")},
        "must_fail": ["test_dead_fraction_zeros"],
    },
    {
        # The slope evaluated at the layer's output h instead of its input z. Wrong for sigmoid
        # and tanh; and with skip connections h = relu(z) + (input) can be positive where z is not.
        "name": "slope taken at the output h instead of z",
        "cells": {"layer_gradient_norms": _edit(_NORMS, "slope(zs[i])", "slope(hs[i + 1])")},
        "must_fail": ["test_layer_gradient_norms_tanh", "test_layer_gradient_norms_activations",
                      "test_layer_gradient_norms_residual"],
    },
    {
        # The skip path forgotten in the backward pass (the forward pass has it).
        "name": "skip connections: gradient not passed on through the skip path",
        "cells": {"layer_gradient_norms": _edit(_NORMS, "dh = dh_below + dh if residual else dh_below",
                                                "dh = dh_below")},
        "must_fail": ["test_layer_gradient_norms_residual"],
    },
]
