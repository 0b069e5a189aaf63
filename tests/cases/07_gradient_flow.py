"""Alternative correct solutions and typical mistakes for course/07_gradient_flow.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Graded cells: test_layer_gradient_norms_tanh (2), test_layer_gradient_norms_activations (1),
test_layer_gradient_norms_residual (2), test_steady_variances (3), test_xavier_init_variance (2),
test_xavier_init_rng (1), test_he_init_variance (1), test_he_init_rng (1), test_dead_fraction (2),
test_dead_fraction_zeros (1); the steps test_layer_backward_dw (1), test_layer_backward_dh (1),
test_residual_layer_backward (2), test_centring_biases (1), test_layer_jacobian (2),
test_clipped_square_gradient (1), test_huber_gradient (1), test_carried_gradient_norms (2).
27 points.
"""

from tests.nbgrader_harness import edit_once as _edit

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


_STEPS = {
    "steady_variances": '''\
def steady_variances(fan_in, fan_out):
    return {"forward": 1.0 / fan_in, "backward": 1.0 / fan_out, "relu_forward": 2.0 / fan_in}
''',
    "layer_backward": '''\
def layer_backward(dout, z, h_in, w, activation):
    _, slope = ACTIVATIONS[activation]
    dz = dout * slope(z)
    dw = h_in.T @ dz
    dh_in = dz @ w.T
    return dh_in, dw
''',
    "residual_layer_backward": '''\
def residual_layer_backward(dout, z, h_in, w, activation):
    dh_layer, dw = layer_backward(dout, z, h_in, w, activation)
    return dh_layer + dout, dw
''',
    "centring_biases": '''\
def centring_biases(weights):
    first = np.zeros(weights[0].shape[1])
    return [first] + [-0.5 * w.sum(axis=0) for w in weights[1:]]
''',
    "layer_jacobian": '''\
def layer_jacobian(z, w, activation):
    _, slope = ACTIVATIONS[activation]
    return slope(z)[:, None] * w.T
''',
    "clipped_square_gradient": '''\
def clipped_square_gradient(delta):
    return np.where(np.abs(delta) <= 1.0, delta, 0.0)
''',
    "huber_gradient": '''\
def huber_gradient(delta):
    return np.clip(delta, -1.0, 1.0)
''',
    "carried_gradient_norms": '''\
def carried_gradient_norms(W_hh, g, steps):
    ratios = np.empty(steps)
    carried = g
    for k in range(steps):
        carried = W_hh.T @ carried
        ratios[k] = np.linalg.norm(carried) / np.linalg.norm(g)
    return ratios
''',
}


def _step(gid: str, old: str, new: str) -> dict[str, str]:
    """{gid: the step's reference with the fragment `old` (exactly once) replaced by `new`}."""
    return {gid: _edit(_STEPS[gid], old, new)}


ALTERNATIVES = {
    # numpy scalars, built key by key, the ReLU factor written as a division by one half.
    "steady_variances": '''\
def steady_variances(fan_in, fan_out):
    out = dict()
    out["relu_forward"] = np.float64(1) / (0.5 * fan_in)
    out["backward"] = np.reciprocal(np.float64(fan_out))
    out["forward"] = np.float64(fan_in) ** -1
    return out
''',
    # einsum, the slope looked up inline.
    "layer_backward": '''\
def layer_backward(dout, z, h_in, w, activation):
    dz = np.multiply(dout, ACTIVATIONS[activation][1](z))
    return np.einsum("nj,kj->nk", dz, w), np.einsum("nk,nj->kj", h_in, dz)
''',
    # written out without calling layer_backward.
    "residual_layer_backward": '''\
def residual_layer_backward(dout, z, h_in, w, activation):
    local = dout * ACTIVATIONS[activation][1](z)
    return dout + local @ w.T, h_in.T @ local
''',
    # ones-vector products in a loop, a tuple instead of a list.
    "centring_biases": '''\
def centring_biases(weights):
    biases = [np.zeros(len(weights[0]))]
    for w in weights[1:]:
        biases.append(-(np.ones(w.shape[0]) @ w) / 2)
    return tuple(biases)
''',
    # an explicit diagonal matrix.
    "layer_jacobian": '''\
def layer_jacobian(z, w, activation):
    return np.diag(ACTIVATIONS[activation][1](z)) @ w.T
''',
    "clipped_square_gradient": '''\
def clipped_square_gradient(delta):
    return delta * (np.abs(delta) <= 1)
''',
    "huber_gradient": '''\
def huber_gradient(delta):
    return np.where(np.abs(delta) <= 1, delta, np.sign(delta))
''',
    # matrix powers, norms as square roots of sums.
    "carried_gradient_norms": '''\
def carried_gradient_norms(W_hh, g, steps):
    size = np.sqrt(np.sum(g * g))
    out = []
    for k in range(1, steps + 1):
        v = np.linalg.matrix_power(W_hh.T, k) @ g
        out.append(np.sqrt(np.sum(v * v)) / size)
    return np.array(out)
''',
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
    # Normal draws made by hand (Box-Muller: two uniforms give a standard normal), scaled after.
    "xavier_init": '''\
def xavier_init(fan_in, fan_out, rng):
    u1 = 1.0 - rng.random((fan_in, fan_out))           # in (0, 1]: the log stays finite
    u2 = rng.random((fan_in, fan_out))
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)
    return z * np.sqrt(2.0 / (fan_in + fan_out))
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
        # the direction and, in words, how far (1/400 against 2/500: up to three times), and the
        # formula it matches; never the factor, nor the variance asked for
        "message": "up to three times too small",
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
        "message": "several times too large",
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
        "message": "a unit is a column",
    },
    {
        "name": "dead_fraction counts the alive units",
        "cells": {"dead_fraction": _edit(_DEAD, "np.all(pre_activations <= 0, axis=0)",
                                         "np.any(pre_activations > 0, axis=0)")},
        "must_fail": ["test_dead_fraction", "test_dead_fraction_zeros"],
        "message": "share of units that are alive",
    },
    {
        "name": "dead_fraction: the share of non-positive entries",
        "cells": {"dead_fraction": _edit(_DEAD, "never_positive = np.all(pre_activations <= 0, axis=0)",
                                         "never_positive = pre_activations <= 0")},
        "must_fail": ["test_dead_fraction", "test_dead_fraction_zeros"],
        "message": "share of all entries",
    },
    {
        # z < 0 instead of z <= 0: a unit stuck at exactly 0 counted as alive.
        "name": "dead_fraction counts exact zeros as alive",
        "cells": {"dead_fraction": _edit(_DEAD, "pre_activations <= 0", "pre_activations < 0")},
        "must_fail": ["test_dead_fraction_zeros"],
        "message": "exactly 0 as alive",
    },
    {
        # The slope evaluated at the layer's output h instead of its input z. Wrong for sigmoid
        # and tanh; and with skip connections h = relu(z) + (input) can be positive where z is not.
        "name": "slope taken at the output h instead of z",
        "cells": {"layer_gradient_norms": _edit(_NORMS, "slope(zs[i])", "slope(hs[i + 1])")},
        "must_fail": ["test_layer_gradient_norms_tanh", "test_layer_gradient_norms_activations",
                      "test_layer_gradient_norms_residual"],
        "message": "at each layer's output h",
    },
    {
        # The skip path forgotten in the backward pass (the forward pass has it).
        "name": "skip connections: gradient not passed on through the skip path",
        "cells": {"layer_gradient_norms": _edit(_NORMS, "dh = dh_below + dh if residual else dh_below",
                                                "dh = dh_below")},
        "must_fail": ["test_layer_gradient_norms_residual"],
        "message": "lacks the skip path",
    },
    {
        "name": "skip connections: the skip path's gradient through the slope",
        "cells": {"layer_gradient_norms": _edit(_NORMS, "dh = dh_below + dh if residual else dh_below",
                                                "dh = dh_below + dz if residual else dh_below")},
        "must_fail": ["test_layer_gradient_norms_residual"],
        "message": "went through the activation's slope",
    },
    {
        # residual ignored in both passes: the plain network's norms
        "name": "layer_gradient_norms ignores residual",
        "cells": {"layer_gradient_norms": _edit(
            _edit(_NORMS, "zs, hs = net_forward(weights, x, activation, residual)",
                  "zs, hs = net_forward(weights, x, activation)"),
            "dh = dh_below + dh if residual else dh_below", "dh = dh_below")},
        "must_fail": ["test_layer_gradient_norms_residual"],
        "message": "without* skip connections",
    },
    {
        "name": "layer_gradient_norms returns the last layer first",
        "cells": {"layer_gradient_norms": _edit(_NORMS, "    return norms\n", "    return norms[::-1]\n")},
        "must_fail": ["test_layer_gradient_norms_tanh", "test_layer_gradient_norms_activations",
                      "test_layer_gradient_norms_residual"],
        "message": "reverse order",
    },
    {
        # dW from the layer's output: a (D_out, D_out) matrix, its norm off
        "name": "layer_gradient_norms: dW from the layer's output",
        "cells": {"layer_gradient_norms": _edit(_NORMS, "hs[i].T @ dz", "hs[i + 1].T @ dz")},
        "must_fail": ["test_layer_gradient_norms_tanh", "test_layer_gradient_norms_activations",
                      "test_layer_gradient_norms_residual"],
        "message": "use each layer's output",
    },
    # --- steady_variances
    {
        # the ReLU layer treated like tanh: half of the mean square lost in every layer
        "name": "steady_variances: ReLU without the factor 2",
        "cells": _step("steady_variances", '"relu_forward": 2.0 / fan_in', '"relu_forward": 1.0 / fan_in'),
        "must_fail": ["test_steady_variances"],
        # the direction and, in words, how far: never the measured factor (with v it names the answer)
        "message": "is too small: the quantity shrinks substantially per layer",
    },
    {
        # the two sums swapped: the forward one runs over the n_in inputs
        "name": "steady_variances: forward and backward swapped",
        "cells": _step("steady_variances", '"forward": 1.0 / fan_in, "backward": 1.0 / fan_out',
                       '"forward": 1.0 / fan_out, "backward": 1.0 / fan_in'),
        "must_fail": ["test_steady_variances"],
        "message": "is too large: the quantity grows substantially per layer",
    },
    {
        # Xavier's compromise where the forward condition was asked
        "name": "steady_variances: Xavier's variance for the forward pass",
        "cells": _step("steady_variances", '"forward": 1.0 / fan_in', '"forward": 2.0 / (fan_in + fan_out)'),
        "must_fail": ["test_steady_variances"],
        "message": "v = 0.004 is too large",
    },
    # --- mistakes in the step functions
    {
        "name": "layer_backward: the slope forgotten",
        "cells": _step("layer_backward", "dz = dout * slope(z)", "dz = dout"),
        "must_fail": ["test_layer_backward_dw", "test_layer_backward_dh", "test_residual_layer_backward"],
    },
    {
        # The transpose dropped where the shapes allow it (square w): wrong values, no error.
        "name": "layer_backward: dh_in without the transpose",
        "cells": _step("layer_backward", "dh_in = dz @ w.T",
                       "dh_in = dz @ w if w.shape[0] == w.shape[1] else dz @ w.T"),
        "must_fail": ["test_layer_backward_dh", "test_residual_layer_backward"],
    },
    {
        "name": "layer_backward: dw from dout instead of dz",
        "cells": _step("layer_backward", "dw = h_in.T @ dz", "dw = h_in.T @ dout"),
        # residual_layer_backward's reference returns layer_backward's dw, which its check reads
        "must_fail": ["test_layer_backward_dw", "test_residual_layer_backward"],
    },
    {
        "name": "residual_layer_backward: the skip path forgotten",
        "cells": _step("residual_layer_backward", "return dh_layer + dout, dw", "return dh_layer, dw"),
        "must_fail": ["test_residual_layer_backward"],
        "message": "lacks the skip path",
    },
    {
        # the students' usual slip: the skip term handed down through the activation's slope
        "name": "residual_layer_backward: the skip path through the slope",
        "cells": {"residual_layer_backward": '''\
def residual_layer_backward(dout, z, h_in, w, activation):
    dz = dout * ACTIVATIONS[activation][1](z)
    return dz @ w.T + dz, h_in.T @ dz
'''},
        "must_fail": ["test_residual_layer_backward"],
        "message": "went through the activation's slope",
    },
    {
        "name": "residual_layer_backward: the skip path counted twice",
        "cells": _step("residual_layer_backward", "return dh_layer + dout, dw",
                       "return dh_layer + 2 * dout, dw"),
        "must_fail": ["test_residual_layer_backward"],
        "message": "holds the skip path twice",
    },
    {
        "name": "centring_biases: row sums instead of column sums",
        "cells": _step("centring_biases", "-0.5 * w.sum(axis=0)", "-0.5 * w.sum(axis=1)"),
        "must_fail": ["test_centring_biases"],
        "message": "add up the rows of W",
    },
    {
        "name": "layer_jacobian: transposed (D_in, D_out)",
        "cells": _step("layer_jacobian", "slope(z)[:, None] * w.T", "slope(z)[None, :] * w"),
        "must_fail": ["test_layer_jacobian"],
    },
    {
        # the Huber gradient where the clipped square's was asked for
        "name": "clipped_square_gradient: clips the gradient instead",
        "cells": _step("clipped_square_gradient", "np.where(np.abs(delta) <= 1.0, delta, 0.0)",
                       "np.clip(delta, -1.0, 1.0)"),
        "must_fail": ["test_clipped_square_gradient"],
    },
    {
        "name": "huber_gradient: zero outside [-1, 1]",
        "cells": _step("huber_gradient", "np.clip(delta, -1.0, 1.0)",
                       "np.where(np.abs(delta) <= 1.0, delta, 0.0)"),
        "must_fail": ["test_huber_gradient"],
    },
    {
        "name": "carried_gradient_norms: W_hh instead of its transpose",
        "cells": _step("carried_gradient_norms", "carried = W_hh.T @ carried", "carried = W_hh @ carried"),
        "must_fail": ["test_carried_gradient_norms"],
        "message": "norms of W_hh^k g",
    },
]

# What the declaration in the setup cell (graded = Exercises(...)) enforces, in the visible checks
# and the hidden tests alike: NumPy only, the lesson's references refused, inputs left as they came
# in; and what the checks now test that they did not (residual_layer_backward's dw, normal draws).
_TORCH = "PyTorch is the referee of the checks, not the answer"
# The lesson no longer shows the checks' reference; a student who digs it out of the toolkit:
_IMPORT_REFERENCE = "from grader.lessons.gradient_flow.steady_variance import init_variance_reference\n"
_REFERENCE = "one of the course's references"
MISTAKES += [
    {
        # Glorot *uniform*, U(-a, a) with a = sqrt(6 / (fan_in + fan_out)): the right variance, but
        # the brief asks for the normal distribution, and no uniform draw goes beyond 1.73 std.
        "name": "xavier_init draws from the uniform distribution (right variance)",
        "cells": {"xavier_init": _edit(_XAVIER, "    std = np.sqrt(2.0 / (fan_in + fan_out))\n"
                                                "    return rng.normal(0.0, std, size=(fan_in, fan_out))",
                                       "    limit = np.sqrt(6.0 / (fan_in + fan_out))\n"
                                       "    return rng.uniform(-limit, limit, size=(fan_in, fan_out))")},
        "must_fail": ["test_xavier_init_variance"],
        "message": "beyond 2 standard deviations",
    },
    {
        "name": "he_init draws from the uniform distribution (right variance)",
        "cells": {"he_init": _edit(_HE, "rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))",
                                   "rng.uniform(-np.sqrt(6.0 / fan_in), np.sqrt(6.0 / fan_in),\n"
                                   "                       size=(fan_in, fan_out))")},
        "must_fail": ["test_he_init_variance"],
        "message": "beyond 2 standard deviations",
    },
    {
        # dh_in right, dw never computed: it scored while the check read dh_in only.
        "name": "residual_layer_backward returns a dw of zeros",
        "cells": _step("residual_layer_backward", "return dh_layer + dout, dw",
                       "return dh_layer + dout, np.zeros_like(w)"),
        "must_fail": ["test_residual_layer_backward"],
    },
    # --- inputs changed in place: ✓ in the visible checks, then lost in the hidden tests, before
    {
        # dz is dout itself, scaled in place: the values are right, the caller's dout is gone
        # (residual_layer_backward hands its own dout to layer_backward).
        "name": "layer_backward scales dout in place",
        "cells": _step("layer_backward", "dz = dout * slope(z)", "dz = dout\n    dz *= slope(z)"),
        "must_fail": ["test_layer_backward_dw", "test_layer_backward_dh", "test_residual_layer_backward"],
        "message": "changed its argument dout in place",
    },
    {
        "name": "dead_fraction applies the ReLU to its input in place",
        "cells": {"dead_fraction": '''\
def dead_fraction(pre_activations):
    np.maximum(pre_activations, 0.0, out=pre_activations)
    return float(np.mean(np.all(pre_activations == 0, axis=0)))
'''},
        "must_fail": ["test_dead_fraction", "test_dead_fraction_zeros"],
        "message": "changed its argument pre_activations in place",
    },
    {
        "name": "carried_gradient_norms normalises g in place",
        "cells": _step("carried_gradient_norms", "    ratios = np.empty(steps)\n",
                       "    ratios = np.empty(steps)\n    g /= np.linalg.norm(g)\n"),
        "must_fail": ["test_carried_gradient_norms"],
        "message": "changed its argument g in place",
    },
    # --- shortcuts: the exercise handed to PyTorch, or to one of the course's references
    {
        "name": "shortcut: xavier_init is torch.nn.init.xavier_normal_",
        "cells": {"xavier_init": '''\
def xavier_init(fan_in, fan_out, rng):
    generator = torch.Generator().manual_seed(int(rng.integers(2 ** 62)))
    w = torch.empty(fan_in, fan_out, dtype=torch.float64)
    return torch.nn.init.xavier_normal_(w, generator=generator).numpy()
'''},
        "must_fail": ["test_xavier_init_variance", "test_xavier_init_rng"],
        "message": _TORCH,
    },
    {
        "name": "shortcut: layer_gradient_norms by PyTorch's autograd",
        "cells": {"layer_gradient_norms": '''\
def layer_gradient_norms(weights, x, dout, activation="tanh", residual=False):
    act = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": torch.relu,
           "leaky_relu": lambda t: torch.nn.functional.leaky_relu(t, LEAK)}[activation]
    ws = [torch.tensor(w, requires_grad=True) for w in weights]
    h = torch.tensor(x)
    for w in ws:
        h = act(h @ w) + h if residual else act(h @ w)
    (h * torch.tensor(dout)).sum().backward()
    return np.array([w.grad.norm().item() for w in ws])
'''},
        "must_fail": ["test_layer_gradient_norms_tanh", "test_layer_gradient_norms_activations",
                      "test_layer_gradient_norms_residual"],
        "message": _TORCH,
    },
    {
        # the toolkit's numerical gradient, imported inside the function under another name
        "name": "shortcut: layer_gradient_norms by the toolkit's numerical gradients",
        "cells": {"layer_gradient_norms": '''\
def layer_gradient_norms(weights, x, dout, activation="tanh", residual=False):
    from grader.numgrad import eval_numerical_gradient as nudge

    def loss(_):
        return np.sum(net_forward(weights, x, activation, residual)[1][-1] * dout)

    return np.array([np.linalg.norm(nudge(loss, w)) for w in weights])
'''},
        "must_fail": ["test_layer_gradient_norms_tanh", "test_layer_gradient_norms_activations",
                      "test_layer_gradient_norms_residual"],
        "message": _REFERENCE,
    },
    {
        "name": "shortcut: xavier_init's variance from the checks' init_variance_reference",
        "cells": {"xavier_init": _IMPORT_REFERENCE + _edit(
            _XAVIER, "np.sqrt(2.0 / (fan_in + fan_out))",
            'np.sqrt(init_variance_reference("xavier", fan_in, fan_out))')},
        "must_fail": ["test_xavier_init_variance", "test_xavier_init_rng"],
        "message": _REFERENCE,
    },
    {
        # Xavier's variance of a square layer is 1/fan: the three conditions from the reference.
        "name": "shortcut: steady_variances from the checks' init_variance_reference",
        "cells": {"steady_variances": _IMPORT_REFERENCE + '''\
def steady_variances(fan_in, fan_out):
    return {"forward": init_variance_reference("xavier", fan_in, fan_in),
            "backward": init_variance_reference("xavier", fan_out, fan_out),
            "relu_forward": init_variance_reference("he", fan_in, fan_out)}
'''},
        "must_fail": ["test_steady_variances"],
        "message": _REFERENCE,
    },
]
