"""Alternative correct solutions and typical mistakes for course/10_rnn.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Graded cells (32 points):
  test_rnn_step_forward (1),
  test_rnn_step_backward_dx / _dprev_h / _dWx / _dWh / _db (1 each),
  test_rnn_forward (1),
  test_rnn_backward_dx (2), _dh0 (1), _dWx (1), _dWh (3), _db (1),
  test_clip_scaling, test_clip_unchanged_below, test_clip_total_norm (1 each; the cells
  clip_inputs_check and clip_keys_check are practice, not graded, and the hidden tests of the
  first two check the same),
  test_stretch_bounds (2), test_backward_step_matrix (2),
  test_word_embedding_forward (1), test_word_embedding_backward (2),
  test_temporal_affine_forward (1), test_temporal_affine_backward_dx / _dw / _db (1 each),
  test_temporal_softmax_loss (1), test_temporal_softmax_loss_dx (2).

The backward checks compare each gradient with the true gradient of the layer (PyTorch's nn.RNN
and the temporal affine layer, by autograd) once the student's forward matches it: a forward
mistake costs the backward cells too, which then say "fix it first". Every check calls the
student's functions through the setup cell's declaration (graded.<name>): NumPy only, the
lesson's references refused, every argument left unchanged.
Each mistake below is a reference cell with one or two lines changed (`_variant`).
"""

# The reference cells, as a student would write them (markers removed).
_REFERENCE = {
    "rnn_step_forward": '''\
def rnn_step_forward(x, prev_h, Wx, Wh, b):
    next_h = np.tanh(x @ Wx + prev_h @ Wh + b)
    cache = (x, prev_h, Wx, Wh, next_h)
    return next_h, cache
''',
    "rnn_step_backward": '''\
def rnn_step_backward(dnext_h, cache):
    x, prev_h, Wx, Wh, next_h = cache
    da = dnext_h * (1.0 - next_h ** 2)
    dx = da @ Wx.T
    dprev_h = da @ Wh.T
    dWx = x.T @ da
    dWh = prev_h.T @ da
    db = da.sum(axis=0)
    return dx, dprev_h, dWx, dWh, db
''',
    "rnn_forward": '''\
def rnn_forward(x, h0, Wx, Wh, b):
    N, T, _ = x.shape
    h = np.zeros((N, T, h0.shape[1]))
    cache = []
    prev_h = h0
    for t in range(T):
        prev_h, step_cache = rnn_step_forward(x[:, t, :], prev_h, Wx, Wh, b)
        h[:, t, :] = prev_h
        cache.append(step_cache)
    return h, cache
''',
    "rnn_backward": '''\
def rnn_backward(dh, cache):
    N, T, H = dh.shape
    dx_steps = [None] * T
    dWx = dWh = db = 0.0
    dprev_h = np.zeros((N, H))
    for t in reversed(range(T)):
        dh_t = dh[:, t, :] + dprev_h
        dx_steps[t], dprev_h, dWx_t, dWh_t, db_t = rnn_step_backward(dh_t, cache[t])
        dWx = dWx + dWx_t
        dWh = dWh + dWh_t
        db = db + db_t
    dx = np.stack(dx_steps, axis=1)
    dh0 = dprev_h
    return dx, dh0, dWx, dWh, db
''',
    "clip_gradients": '''\
def clip_gradients(grads, max_norm):
    total_norm = float(np.sqrt(sum(np.sum(g * g) for g in grads.values())))
    scale = max_norm / total_norm if total_norm > max_norm else 1.0
    clipped = {name: g * scale for name, g in grads.items()}
    return clipped, total_norm
''',
    "stretch_bounds": '''\
def stretch_bounds(M):
    eigenvalues = np.linalg.eigvals(M)
    rho = float(np.max(np.abs(eigenvalues)))
    sigma_max = float(np.linalg.svd(M, compute_uv=False)[0])
    return rho, sigma_max
''',
    "backward_step_matrix": '''\
def backward_step_matrix(Wh, next_h):
    slopes = 1.0 - next_h ** 2
    J = slopes[:, None] * Wh.T
    return J
''',
    "word_embedding_backward": '''\
def word_embedding_backward(dout, cache):
    x, shape = cache
    dW = np.zeros(shape)
    np.add.at(dW, x, dout)
    return dW
''',
    "temporal_affine_backward": '''\
def temporal_affine_backward(dout, cache):
    x, w, b = cache
    N, T, D = x.shape
    M = b.shape[0]
    dout2 = dout.reshape(N * T, M)
    dx = (dout2 @ w.T).reshape(N, T, D)
    dw = x.reshape(N * T, D).T @ dout2
    db = dout2.sum(axis=0)
    return dx, dw, db
''',
    "temporal_softmax_loss": '''\
def temporal_softmax_loss(x, y, mask):
    N, T, V = x.shape
    x_flat = x.reshape(N * T, V)
    y_flat = y.reshape(N * T)
    weight = mask.reshape(N * T) / N
    shifted = x_flat - x_flat.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    rows = np.arange(N * T)
    loss = -np.sum(weight * log_probs[rows, y_flat])
    dx_flat = np.exp(log_probs)
    dx_flat[rows, y_flat] -= 1.0
    dx = (dx_flat * weight[:, None]).reshape(N, T, V)
    return float(loss), dx
''',
}


def _variant(cell: str, *edits: tuple[str, str]) -> dict[str, str]:
    """{cell: the reference cell with each `old` text (which must occur exactly once) replaced}."""
    source = _REFERENCE[cell]
    for old, new in edits:
        assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in {cell}"
        source = source.replace(old, new)
    return {cell: source}


_STEP_BACKWARD = [f"test_rnn_step_backward_{g}" for g in ("dx", "dprev_h", "dWx", "dWh", "db")]
_RNN_BACKWARD = [f"test_rnn_backward_{g}" for g in ("dx", "dh0", "dWx", "dWh", "db")]

# rnn_step_forward keeping the pre-activation a in its cache instead of next_h.
_STEP_CACHES_PRE_ACTIVATION = _variant(
    "rnn_step_forward",
    ("next_h = np.tanh(x @ Wx + prev_h @ Wh + b)",
     "a = x @ Wx + prev_h @ Wh + b\n    next_h = np.tanh(a)"),
    ("cache = (x, prev_h, Wx, Wh, next_h)", "cache = (x, prev_h, Wx, Wh, a)"),
)

ALTERNATIVES = {
    # np.dot, the bias added in place to a fresh array.
    "rnn_step_forward": '''\
def rnn_step_forward(x, prev_h, Wx, Wh, b):
    a = np.dot(x, Wx) + np.dot(prev_h, Wh)
    a += b
    next_h = np.tanh(a)
    return next_h, (x, prev_h, Wx, Wh, next_h)
''',
    # einsum everywhere, the slope written as (1 - h)(1 + h).
    "rnn_step_backward": '''\
def rnn_step_backward(dnext_h, cache):
    x, prev_h, Wx, Wh, next_h = cache
    da = dnext_h * (1 - next_h) * (1 + next_h)
    return (
        np.einsum("nh,dh->nd", da, Wx),
        np.einsum("nh,kh->nk", da, Wh),
        np.einsum("nd,nh->dh", x, da),
        np.einsum("nk,nh->kh", prev_h, da),
        np.einsum("nh->h", da),
    )
''',
    # Loop over the time axis moved to the front; states stacked at the end; a tuple cache.
    "rnn_forward": '''\
def rnn_forward(x, h0, Wx, Wh, b):
    states, caches = [], []
    h_t = h0
    for x_t in np.moveaxis(x, 1, 0):
        h_t, c = rnn_step_forward(x_t, h_t, Wx, Wh, b)
        states.append(h_t)
        caches.append(c)
    return np.stack(states, axis=1), tuple(caches)
''',
    # Inline, without rnn_step_backward: all da_t first (carrying the gradient backwards), then
    # the shared weights' gradients summed over time and batch in one einsum each.
    "rnn_backward": '''\
def rnn_backward(dh, cache):
    N, T, H = dh.shape
    xs = np.stack([c[0] for c in cache], axis=1)
    prevs = np.stack([c[1] for c in cache], axis=1)
    hs = np.stack([c[4] for c in cache], axis=1)
    Wx, Wh = cache[0][2], cache[0][3]
    da = np.empty_like(dh)
    carry = np.zeros((N, H))
    for t in range(T - 1, -1, -1):
        da[:, t] = (dh[:, t] + carry) * (1 - hs[:, t] ** 2)
        carry = da[:, t] @ Wh.T
    dx = da @ Wx.T
    dWx = np.einsum("ntd,nth->dh", xs, da)
    dWh = np.einsum("ntk,nth->kh", prevs, da)
    db = da.sum(axis=(0, 1))
    return dx, carry, dWx, dWh, db
''',
    # PyTorch's clip_grad_norm_: coef = max_norm / (norm + 1e-6), clamped at 1. The epsilon
    # changes the clipped values by a relative error of about 5e-7 / norm (2e-7 at norm 2.5),
    # and all-zero gradients come back unchanged (coef = min(1e6, 1) = 1).
    "clip_gradients": '''\
def clip_gradients(grads, max_norm):
    total_norm = float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))
    coef = min(max_norm / (total_norm + 1e-6), 1.0)
    return {k: g * coef for k, g in grads.items()}, total_norm
''',
    # The largest singular value as the square root of the largest eigenvalue of M^T M; the
    # moduli of the eigenvalues with np.hypot; numpy floats returned.
    "stretch_bounds": '''\
def stretch_bounds(M):
    lam = np.linalg.eigvals(M)
    rho = np.hypot(lam.real, lam.imag).max()
    sigma_max = np.sqrt(np.linalg.eigvalsh(M.T @ M).max())
    return rho, sigma_max
''',
    # The diagonal matrix written out.
    "backward_step_matrix": '''\
def backward_step_matrix(Wh, next_h):
    return np.diag(1 - next_h * next_h) @ Wh.T
''',
    # np.take (the cache as the reference backward reads it).
    "word_embedding_forward": '''\
def word_embedding_forward(x, W):
    return np.take(W, x, axis=0), (x, np.shape(W))
''',
    # A loop over the positions (cache as in the reference forward: (x, W.shape)).
    "word_embedding_backward": '''\
def word_embedding_backward(dout, cache):
    x, shape = cache
    dW = np.zeros(shape)
    for n in range(x.shape[0]):
        for t in range(x.shape[1]):
            dW[x[n, t]] += dout[n, t]
    return dW
''',
    # einsum on the 3-D arrays, no reshape (the cache as the reference backward reads it).
    "temporal_affine_forward": '''\
def temporal_affine_forward(x, w, b):
    out = np.einsum("ntd,dm->ntm", x, w) + b
    return out, (x, w, b)
''',
    # a loop over time for the shared parameters (cache as in the reference forward: (x, w, b)).
    "temporal_affine_backward": '''\
def temporal_affine_backward(dout, cache):
    x, w, _ = cache
    dx = dout @ w.T
    dw = np.zeros_like(w)
    db = np.zeros(w.shape[1])
    for t in range(x.shape[1]):
        dw += x[:, t].T @ dout[:, t]
        db += dout[:, t].sum(axis=0)
    return dx, dw, db
''',
    # a loop over the time steps, probabilities by division, the log-probabilities by the
    # log-sum-exp (log(p) itself would be -inf for scores of 1000), boolean indexing for the mask.
    "temporal_softmax_loss": '''\
def temporal_softmax_loss(x, y, mask):
    N, T, V = x.shape
    loss, dx = 0.0, np.zeros_like(x)
    for t in range(T):
        shifted = x[:, t] - x[:, t].max(axis=1, keepdims=True)
        e = np.exp(shifted)
        p = e / e.sum(axis=1, keepdims=True)
        keep = mask[:, t]
        rows = np.arange(N)[keep]
        loss -= (shifted[rows, y[rows, t]] - np.log(e[rows].sum(axis=1))).sum()
        p[rows, y[rows, t]] -= 1
        p[~keep] = 0.0
        dx[:, t] = p / N
    return loss / N, dx
''',
}

MISTAKES = [
    {
        # Equivalent, not a mistake: the step caches the pre-activation and recomputes tanh's
        # slope from it correctly, 1 - tanh(a)**2. rnn_backward (calling it) keeps working.
        "name": "step caches the pre-activation, slope 1 - tanh(a)**2 (equivalent)",
        "cells": {
            **_STEP_CACHES_PRE_ACTIVATION,
            **_variant(
                "rnn_step_backward",
                ("x, prev_h, Wx, Wh, next_h = cache", "x, prev_h, Wx, Wh, a = cache"),
                ("da = dnext_h * (1.0 - next_h ** 2)", "da = dnext_h * (1.0 - np.tanh(a) ** 2)"),
            ),
        },
        "must_fail": [],
    },
    {
        # Equivalent, not a mistake: forward and backward written over whole arrays, with a
        # cache of their own (a dict), neither calling the step functions.
        "name": "sequence functions with their own dict cache (equivalent)",
        "cells": {
            "rnn_forward": '''\
def rnn_forward(x, h0, Wx, Wh, b):
    N, T, _ = x.shape
    h = np.empty((N, T, Wh.shape[0]))
    prev = h0
    for t in range(T):
        prev = np.tanh(x[:, t] @ Wx + prev @ Wh + b)
        h[:, t] = prev
    return h, {"x": x, "h0": h0, "h": h, "Wx": Wx, "Wh": Wh}
''',
            "rnn_backward": '''\
def rnn_backward(dh, cache):
    x, h, Wx, Wh = cache["x"], cache["h"], cache["Wx"], cache["Wh"]
    prev = np.concatenate([cache["h0"][:, None, :], h[:, :-1]], axis=1)
    dx, dWx, dWh = np.zeros_like(x), np.zeros_like(Wx), np.zeros_like(Wh)
    db = np.zeros(Wh.shape[0])
    carry = np.zeros_like(cache["h0"])
    for t in reversed(range(x.shape[1])):
        da = (dh[:, t] + carry) * (1 - h[:, t] ** 2)
        dx[:, t] = da @ Wx.T
        dWx += x[:, t].T @ da
        dWh += prev[:, t].T @ da
        db += da.sum(axis=0)
        carry = da @ Wh.T
    return dx, carry, dWx, dWh, db
''',
        },
        "must_fail": [],
    },
    {
        # Equivalent, not a mistake (the former alternative for clip_gradients): the norm via
        # np.vdot (an np.float64, not a float), a 1e-12 epsilon, min(1, ...), a loop building the dict.
        "name": "clip with np.vdot, a 1e-12 epsilon and a loop (equivalent)",
        "cells": {
            "clip_gradients": '''\
def clip_gradients(grads, max_norm):
    total_norm = np.sqrt(sum(np.vdot(g, g) for g in grads.values()))
    factor = min(1.0, max_norm / (total_norm + 1e-12))
    clipped = {}
    for name in grads:
        clipped[name] = grads[name] * factor
    return clipped, total_norm
''',
        },
        "must_fail": [],
    },
    {
        # The classic BPTT bug: each step gets only its own dh[:, t], nothing from step t+1.
        "name": "rnn_backward ignores the gradient carried from step t+1",
        "cells": _variant("rnn_backward", ("dh_t = dh[:, t, :] + dprev_h", "dh_t = dh[:, t, :]")),
        "must_fail": _RNN_BACKWARD,
    },
    {
        # `=` instead of summing: the shared weights keep the share of the last step visited (t = 0).
        "name": "shared weight gradients overwritten instead of summed over time",
        "cells": _variant(
            "rnn_backward",
            ("dWx = dWx + dWx_t", "dWx = dWx_t"),
            ("dWh = dWh + dWh_t", "dWh = dWh_t"),
            ("db = db + db_t", "db = db_t"),
        ),
        "must_fail": ["test_rnn_backward_dWx", "test_rnn_backward_dWh", "test_rnn_backward_db"],
    },
    {
        # tanh's slope from the pre-activation a (1 - a**2) instead of the cached output.
        # rnn_backward calls rnn_step_backward, so every gradient of both is wrong.
        "name": "tanh slope taken from the pre-activation",
        "cells": {
            **_STEP_CACHES_PRE_ACTIVATION,
            **_variant(
                "rnn_step_backward",
                ("x, prev_h, Wx, Wh, next_h = cache", "x, prev_h, Wx, Wh, a = cache"),
                ("da = dnext_h * (1.0 - next_h ** 2)", "da = dnext_h * (1.0 - a ** 2)"),
            ),
        },
        "must_fail": _STEP_BACKWARD + _RNN_BACKWARD,
    },
    {
        # dh0 never computed: zeros returned.
        "name": "dh0 returned as zeros",
        "cells": _variant("rnn_backward", ("dh0 = dprev_h", "dh0 = np.zeros_like(dprev_h)")),
        "must_fail": ["test_rnn_backward_dh0"],
    },
    {
        # The recurrence starts from zeros instead of h0. The backward cells check the backward
        # pass against this forward: they all pass except dh0 (h0 no longer matters at all).
        "name": "rnn_forward starts from zeros instead of h0",
        "cells": _variant("rnn_forward", ("prev_h = h0", "prev_h = np.zeros_like(h0)")),
        # The backward cells check the RNN's true gradient once the forward matches nn.RNN.
        "must_fail": ["test_rnn_forward", "test_rnn_backward_dx", "test_rnn_backward_dh0",
                      "test_rnn_backward_dWx", "test_rnn_backward_dWh", "test_rnn_backward_db"],
        "message": "Start the recurrence from h0",
        "message_cells": ["test_rnn_backward_dx", "test_rnn_backward_dh0", "test_rnn_backward_dWx",
                          "test_rnn_backward_dWh", "test_rnn_backward_db"],
    },
    {
        # Operands of dWh swapped: square, so the shape is right and only the values are wrong.
        "name": "dWh transposed in rnn_step_backward",
        "cells": _variant("rnn_step_backward", ("dWh = prev_h.T @ da", "dWh = da.T @ prev_h")),
        "must_fail": ["test_rnn_step_backward_dWh", "test_rnn_backward_dWh"],
    },
    {
        # np.clip on every value: changes the direction; harmless when the norm is small.
        "name": "clip every value instead of the global norm",
        "cells": _variant(
            "clip_gradients",
            ("clipped = {name: g * scale for name, g in grads.items()}",
             "clipped = {name: np.clip(g, -max_norm, max_norm) for name, g in grads.items()}"),
        ),
        "must_fail": ["test_clip_scaling"],
        "message": "every value into",
    },
    {
        # Every array clipped by its own norm: right only for a single array.
        "name": "clip every array by its own norm",
        "cells": _variant(
            "clip_gradients",
            ("clipped = {name: g * scale for name, g in grads.items()}",
             "clipped = {name: g * min(1.0, max_norm / np.linalg.norm(g)) for name, g in grads.items()}"),
        ),
        "must_fail": ["test_clip_scaling"],
        "message": "every array by its own norm",
    },
    {
        # The input arrays scaled in place (g *= scale); the values returned are right.
        "name": "clip modifies the input arrays in place",
        "cells": _variant(
            "clip_gradients",
            ("clipped = {name: g * scale for name, g in grads.items()}",
             "for g in grads.values():\n        g *= scale\n    clipped = dict(grads)"),
        ),
        # refused by the declaration wherever the gradients are clipped (below max_norm, scale 1
        # leaves them as they were; the hidden tests of test_clip_unchanged_below clip some too)
        "must_fail": ["test_clip_scaling", "test_clip_total_norm", "test_clip_unchanged_below"],
        "message": "changed its argument grads in place",
    },
    {
        # Below max_norm the input dict itself comes back (the visible check says so).
        "name": "clip returns the input dict when nothing is clipped",
        "cells": _variant(
            "clip_gradients",
            ("clipped = {name: g * scale for name, g in grads.items()}",
             "clipped = grads if scale == 1.0 else {name: g * scale for name, g in grads.items()}"),
        ),
        "must_fail": ["test_clip_unchanged_below"],
        "message": "returned the dict it was given",
    },
    {
        # Always rescaled to max_norm, also when the norm was already below (and 0/0 for zeros).
        "name": "clip always rescales to max_norm",
        "cells": _variant(
            "clip_gradients",
            ("scale = max_norm / total_norm if total_norm > max_norm else 1.0",
             "scale = max_norm / total_norm"),
        ),
        "must_fail": ["test_clip_unchanged_below"],
        "message": "already at most max_norm",
    },
    {
        # The norm after clipping returned instead of the norm before.
        "name": "clip returns the norm after clipping",
        "cells": _variant(
            "clip_gradients", ("return clipped, total_norm", "return clipped, min(total_norm, max_norm)")
        ),
        "must_fail": ["test_clip_total_norm"],
        "message": "the norm after clipping",
    },
    {
        # tanh's slope applied after the product with Wh when passing the gradient back:
        # dprev_h = (dnext_h @ Wh.T) * (1 - h^2). Only dprev_h of one step is wrong, but
        # rnn_backward carries it, so every gradient of the sequence is (the last step's dx aside).
        "name": "tanh slope applied after the matmul (rnn-slope-after-matmul)",
        "cells": _variant(
            "rnn_step_backward",
            ("dprev_h = da @ Wh.T",
             "dprev_h = (dnext_h @ Wh.T) * (1.0 - next_h ** 2)"),
        ),
        "must_fail": ["test_rnn_step_backward_dprev_h"] + _RNN_BACKWARD,
    },
    {
        # The largest singular value taken as the Frobenius norm (np.linalg.norm's default).
        "name": "sigma_max as the Frobenius norm",
        "cells": _variant(
            "stretch_bounds",
            ("float(np.linalg.svd(M, compute_uv=False)[0])",
             "float(np.linalg.norm(M))"),
        ),
        "must_fail": ["test_stretch_bounds"],
        "message": "Frobenius norm",
    },
    {
        # The largest real part instead of the largest modulus of the eigenvalues.
        "name": "rho from the real parts of the eigenvalues",
        "cells": _variant(
            "stretch_bounds",
            ("float(np.max(np.abs(eigenvalues)))",
             "float(np.max(eigenvalues.real))"),
        ),
        "must_fail": ["test_stretch_bounds"],
        "message": "real parts",
    },
    {
        # The slopes scale the columns of Wh.T (after the matmul) instead of its rows.
        "name": "step matrix with the slopes after Wh.T",
        "cells": _variant(
            "backward_step_matrix",
            ("J = slopes[:, None] * Wh.T",
             "J = Wh.T * slopes[None, :]"),
        ),
        "must_fail": ["test_backward_step_matrix"],
        "message": "puts the slopes after",
    },
    {
        # Wh where Wh.T belongs: J[j, i] instead of J[i, j] = d next_h[i] / d prev_h[j].
        "name": "step matrix without the transpose of Wh",
        "cells": _variant(
            "backward_step_matrix",
            ("J = slopes[:, None] * Wh.T",
             "J = slopes[:, None] * Wh"),
        ),
        "must_fail": ["test_backward_step_matrix"],
        "message": "transpose of the step's matrix",
    },
    {
        # Buffered fancy-index assignment: a row picked several times gets only one addition.
        "name": "embedding backward with dW[x] += dout",
        "cells": _variant("word_embedding_backward", ("np.add.at(dW, x, dout)", "dW[x] += dout")),
        "must_fail": ["test_word_embedding_backward"],
        "message": "lost the repeats",
    },
    {
        # db summed over the batch only: one bias gradient per time step, shape (T, M).
        "name": "temporal db not summed over time",
        "cells": _variant("temporal_affine_backward", ("db = dout2.sum(axis=0)", "db = dout.sum(axis=0)")),
        "must_fail": ["test_temporal_affine_backward_db"],
        "message": "summed over the batch only",
    },
    {
        # dw from the last time step alone (the = instead of += of the shared weights).
        "name": "temporal dw from the last step only",
        "cells": _variant(
            "temporal_affine_backward",
            ("dw = x.reshape(N * T, D).T @ dout2",
             "dw = x[:, -1].T @ dout[:, -1]"),
        ),
        "must_fail": ["test_temporal_affine_backward_dw"],
        "message": "share of one time step alone",
    },
    {
        # The mean over all N*T positions (the lesson's former convention), not CS231n's sum
        # over time averaged over N: loss and dx both T times too small (or so, with the mask).
        "name": "temporal softmax averaged over N*T",
        "cells": _variant(
            "temporal_softmax_loss",
            ("weight = mask.reshape(N * T) / N",
             "weight = mask.reshape(N * T) / (N * T)"),
        ),
        "must_fail": ["test_temporal_softmax_loss", "test_temporal_softmax_loss_dx"],
    },
    {
        # The mask applied to the loss but not to the gradient.
        "name": "temporal softmax mask missing from dx",
        "cells": _variant(
            "temporal_softmax_loss",
            ("dx = (dx_flat * weight[:, None]).reshape(N, T, V)",
             "dx = (dx_flat / N).reshape(N, T, V)"),
        ),
        "must_fail": ["test_temporal_softmax_loss_dx"],
    },
    {
        # The mask ignored everywhere.
        "name": "temporal softmax ignores the mask",
        "cells": _variant(
            "temporal_softmax_loss",
            ("weight = mask.reshape(N * T) / N",
             "weight = np.ones(N * T) / N"),
        ),
        "must_fail": ["test_temporal_softmax_loss", "test_temporal_softmax_loss_dx"],
    },
]

# The declaration in the setup cell (graded = Exercises(...)): NumPy only, the lesson's references
# refused, every argument left unchanged, in the visible checks and the hidden tests alike. The
# visible checks include scores of ±1000, one sequence of one step and all-zero gradients; the
# softmax's dx and the embedding's dW are compared with PyTorch's gradients, not with the
# student's own forward.
_REFUSED = "PyTorch is the referee of the checks, not the answer"
_REFEREE = "is one of the course's references"

MISTAKES += [
    {
        # The review's experiment: each step's carry added into dh[:, t - 1] in place. The gradients
        # are right; the caller's dh is not.
        "name": "rnn_backward adds the carry into dh in place",
        "cells": {"rnn_backward": '''\
def rnn_backward(dh, cache):
    N, T, H = dh.shape
    dx_steps = [None] * T
    dWx = dWh = db = 0.0
    for t in reversed(range(T)):
        dx_steps[t], dprev_h, dWx_t, dWh_t, db_t = rnn_step_backward(dh[:, t, :], cache[t])
        if t > 0:
            dh[:, t - 1, :] += dprev_h
        dWx = dWx + dWx_t
        dWh = dWh + dWh_t
        db = db + db_t
    return np.stack(dx_steps, axis=1), dprev_h, dWx, dWh, db
'''},
        "must_fail": _RNN_BACKWARD,
        "message": "changed its argument dh in place",
    },
    {
        # x.reshape is a view of x: shifting it in place shifts the caller's scores.
        "name": "temporal softmax shifts x in place",
        "cells": _variant(
            "temporal_softmax_loss",
            ("shifted = x_flat - x_flat.max(axis=1, keepdims=True)",
             "x_flat -= x_flat.max(axis=1, keepdims=True)\n    shifted = x_flat"),
        ),
        "must_fail": ["test_temporal_softmax_loss", "test_temporal_softmax_loss_dx"],
        "message": "changed its argument x in place",
    },
    {
        # CS231n's temporal_softmax_loss: log of the shifted probabilities. At scores of ±1000 a
        # target's probability underflows to 0: log(0) = -inf, and 0 · (-inf) = NaN at a masked
        # position. Its dx, from the probabilities, is right.
        "name": "CS231n's loss, the log of the probabilities (NaN at ±1000)",
        "cells": {"temporal_softmax_loss": '''\
def temporal_softmax_loss(x, y, mask):
    N, T, V = x.shape
    x_flat = x.reshape(N * T, V)
    y_flat = y.reshape(N * T)
    mask_flat = mask.reshape(N * T)
    probs = np.exp(x_flat - np.max(x_flat, axis=1, keepdims=True))
    probs /= np.sum(probs, axis=1, keepdims=True)
    loss = -np.sum(mask_flat * np.log(probs[np.arange(N * T), y_flat])) / N
    dx_flat = probs.copy()
    dx_flat[np.arange(N * T), y_flat] -= 1
    dx_flat /= N
    dx_flat *= mask_flat[:, None]
    dx = dx_flat.reshape(N, T, V)
    return loss, dx
'''},
        "must_fail": ["test_temporal_softmax_loss"],
        "message": "log(0) = −inf",
    },
    {
        # The stable form: log-probabilities from the log-sum-exp (here np.logaddexp.reduce).
        "name": "not a mistake: CS231n's loss with the log-sum-exp (np.logaddexp.reduce)",
        "cells": {"temporal_softmax_loss": '''\
def temporal_softmax_loss(x, y, mask):
    N, T, V = x.shape
    x_flat = x.reshape(N * T, V)
    y_flat = y.reshape(N * T)
    mask_flat = mask.reshape(N * T)
    log_probs = x_flat - np.logaddexp.reduce(x_flat, axis=1, keepdims=True)
    loss = -np.sum(mask_flat * log_probs[np.arange(N * T), y_flat]) / N
    dx_flat = np.exp(log_probs)
    dx_flat[np.arange(N * T), y_flat] -= 1
    dx_flat *= mask_flat[:, None] / N
    return loss, dx_flat.reshape(N, T, V)
'''},
        "must_fail": [],
    },
    {
        # The loss counts the masked positions; dx is right, and is now checked against PyTorch's
        # gradient (not the numerical gradient of this loss): the dx cell keeps its points.
        "name": "temporal softmax loss unmasked, dx right",
        "cells": _variant(
            "temporal_softmax_loss",
            ("loss = -np.sum(weight * log_probs[rows, y_flat])",
             "loss = -np.sum(log_probs[rows, y_flat]) / N"),
        ),
        "must_fail": ["test_temporal_softmax_loss"],
    },
    {
        # The out of the lookup with the batch and time axes swapped; the cache and the backward
        # are right, and dW (checked against PyTorch's gradient) keeps its points.
        "name": "embedding forward with the batch and time axes swapped",
        "cells": {"word_embedding_forward": '''\
def word_embedding_forward(x, W):
    return W[x.T], (x, W.shape)
'''},
        "must_fail": ["test_word_embedding_forward"],
    },
    {
        # The review's experiment C2: the step's tanh computed by PyTorch. rnn_forward calls it, and
        # every backward check needs the forward first.
        "name": "rnn_step_forward with torch.tanh",
        "cells": {"rnn_step_forward": '''\
def rnn_step_forward(x, prev_h, Wx, Wh, b):
    next_h = torch.tanh(torch.from_numpy(x @ Wx + prev_h @ Wh + b)).numpy()
    return next_h, (x, prev_h, Wx, Wh, next_h)
'''},
        "must_fail": ["test_rnn_step_forward", *_STEP_BACKWARD, "test_rnn_forward", *_RNN_BACKWARD],
        "message": _REFUSED,
    },
    {
        # The lesson's referee, torch_rnn (imported in the setup cell), as the answer.
        "name": "rnn_forward calls the referee torch_rnn",
        "cells": {"rnn_forward": '''\
def rnn_forward(x, h0, Wx, Wh, b):
    h = torch_rnn(x, h0, Wx, Wh, b)
    prev = np.concatenate([h0[:, None, :], h[:, :-1]], axis=1)
    return h, [(x[:, t], prev[:, t], Wx, Wh, h[:, t]) for t in range(x.shape[1])]
'''},
        "must_fail": ["test_rnn_forward", *_RNN_BACKWARD],
        "message": _REFEREE,
    },
    {
        # Lesson 5's softmax loss from the course's package, on the kept positions.
        "name": "temporal softmax by the package's softmax_loss",
        "cells": {"temporal_softmax_loss": '''\
def temporal_softmax_loss(x, y, mask):
    from grader.lessons.two_layer_net.layers import softmax_loss
    N, T, V = x.shape
    keep = mask.reshape(-1)
    count = int(keep.sum())
    loss, dkept = softmax_loss(x.reshape(-1, V)[keep], y.reshape(-1)[keep])
    dx = np.zeros((N * T, V))
    dx[keep] = dkept * count / N
    return loss * count / N, dx.reshape(N, T, V)
'''},
        "must_fail": ["test_temporal_softmax_loss", "test_temporal_softmax_loss_dx"],
        "message": _REFEREE,
    },
    {
        # Lesson 4's affine layer from the course's package, on N·T rows.
        "name": "temporal affine forward by the package's affine_forward",
        "cells": {"temporal_affine_forward": '''\
def temporal_affine_forward(x, w, b):
    from grader.lessons.two_layer_net.layers import affine_forward
    N, T, D = x.shape
    out, _ = affine_forward(x.reshape(N * T, D), w, b)
    return out.reshape(N, T, -1), (x, w, b)
'''},
        "must_fail": ["test_temporal_affine_forward", "test_temporal_affine_backward_dx",
                      "test_temporal_affine_backward_dw", "test_temporal_affine_backward_db"],
        "message": _REFEREE,
    },
    {
        # max_norm / total_norm computed before the test: 0/0 for all-zero gradients (a Python float
        # raises ZeroDivisionError), now in the visible check.
        "name": "clip divides by the norm before testing it",
        "cells": _variant(
            "clip_gradients",
            ("scale = max_norm / total_norm if total_norm > max_norm else 1.0",
             "scale = min(1.0, max_norm / total_norm)"),
        ),
        "must_fail": ["test_clip_unchanged_below"],
        "message": "ZeroDivisionError",
    },
]
