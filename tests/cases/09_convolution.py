"""Alternative correct solutions and typical mistakes for course/09_convolution (convolution and
pooling by hand).

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Graded cells: test_conv_forward (2); test_conv_backward_dx (2), test_conv_backward_dw (2),
test_conv_backward_db (1); test_max_pool_forward (1), test_max_pool_backward (2);
test_conv_forward_im2col (2); test_conv_im2col_dx (2), test_conv_im2col_dw (2), test_conv_im2col_db (1).

Every check calls the student's functions through the setup cell's declaration (graded.<name>):
NumPy only, every argument left unchanged; the im2col versions without the loop versions and
within a budget of lines of Python (the end of this file).

Mistakes are the instructor's solution with one fragment changed (`_mistake`, which fails loudly
when the fragment is gone). An alternative that replaces a forward and its backward together
(its own cache) is a MISTAKES entry with an empty must_fail.
"""

from tests.nbgrader_harness import course_solutions, edited_solution
from tests.nbgrader_harness import edit_once as _edit


def _solution(grade_id: str) -> str:
    return course_solutions("09_convolution")[grade_id]


def _mistake(gid: str, *edits: tuple[str, str]) -> dict[str, str]:
    """{gid: the solution of `gid` with each fragment `old` (exactly once) replaced by `new`}."""
    return edited_solution("09_convolution", gid, *edits)


ALTERNATIVES = {
    # The winner found with a boolean mask of the window's maximum, the loops over n and c vectorised.
    "max_pool_backward_naive": '''\
def max_pool_backward_naive(dout, cache):
    x, pool_param = cache
    ph, pw, s = pool_param["pool_height"], pool_param["pool_width"], pool_param["stride"]
    dx = np.zeros(x.shape)
    for i in range(dout.shape[2]):
        for j in range(dout.shape[3]):
            window = x[:, :, i * s:i * s + ph, j * s:j * s + pw]
            is_max = window == window.max(axis=(2, 3), keepdims=True)
            dx[:, :, i * s:i * s + ph, j * s:j * s + pw] += is_max * dout[:, :, i:i + 1, j:j + 1]
    return dx
''',
}

# im2col written inside the "naive" cells: the windows gathered by a loop over output positions,
# then one matrix product; the backward scatters the columns' gradients back with the same loop.
_NAIVE_AS_IM2COL = {
    "conv_forward_naive": '''\
def conv_forward_naive(x, w, b, conv_param):
    s, p = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    Ho, Wo = (H + 2 * p - HH) // s + 1, (W + 2 * p - WW) // s + 1
    xp = np.pad(x, [(0, 0), (0, 0), (p, p), (p, p)], mode="constant")
    cols = np.empty((N, Ho, Wo, C * HH * WW))
    for i in range(Ho):
        for j in range(Wo):
            cols[:, i, j] = xp[:, :, i * s:i * s + HH, j * s:j * s + WW].reshape(N, -1)
    out = (cols @ w.reshape(F, -1).T + b).transpose(0, 3, 1, 2)
    return out, (xp.shape, cols, w.copy(), dict(conv_param), (H, W))
''',
    "conv_backward_naive": '''\
def conv_backward_naive(dout, cache):
    xp_shape, cols, w, conv_param, (H, W) = cache
    s, p = conv_param["stride"], conv_param["pad"]
    F, C, HH, WW = w.shape
    d = dout.transpose(0, 2, 3, 1)
    db = d.reshape(-1, F).sum(axis=0)
    dw = np.tensordot(d, cols, axes=([0, 1, 2], [0, 1, 2])).reshape(w.shape)
    dcols = d @ w.reshape(F, -1)
    N, Ho, Wo, _ = dcols.shape
    dxp = np.zeros(xp_shape)
    for i in range(Ho):
        for j in range(Wo):
            dxp[:, :, i * s:i * s + HH, j * s:j * s + WW] += dcols[:, i, j].reshape(N, C, HH, WW)
    return dxp[:, :, p:p + H, p:p + W], dw, db
''',
}

# Stride tricks and einsum; dx as the full convolution of the dilated dout with the flipped kernel.
_IM2COL_AS_STRIDED = {
    "conv_forward_im2col": '''\
from numpy.lib.stride_tricks import sliding_window_view


def conv_forward_im2col(x, w, b, conv_param):
    s, p = conv_param["stride"], conv_param["pad"]
    HH, WW = w.shape[2:]
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    windows = sliding_window_view(xp, (HH, WW), axis=(2, 3))[:, :, ::s, ::s]
    out = np.einsum("ncijrs,fcrs->nfij", windows, w, optimize=True) + b[None, :, None, None]
    return out, (x.copy(), w.copy(), dict(conv_param))
''',
    "conv_backward_im2col": '''\
from numpy.lib.stride_tricks import sliding_window_view


def conv_backward_im2col(dout, cache):
    x, w, conv_param = cache
    s, p = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    _, _, Ho, Wo = dout.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    windows = sliding_window_view(xp, (HH, WW), axis=(2, 3))[:, :, ::s, ::s]
    dw = np.einsum("ncijrs,nfij->fcrs", windows, dout, optimize=True)
    db = dout.sum(axis=(0, 2, 3))
    dilated = np.zeros((N, F, (Ho - 1) * s + 1, (Wo - 1) * s + 1))
    dilated[:, :, ::s, ::s] = dout
    full = np.pad(dilated, ((0, 0), (0, 0), (HH - 1, HH - 1), (WW - 1, WW - 1)))
    part = np.einsum("nfabrs,fcrs->ncab", sliding_window_view(full, (HH, WW), axis=(2, 3)),
                     w[:, :, ::-1, ::-1], optimize=True)
    dxp = np.zeros((N, C, H + 2 * p, W + 2 * p))
    dxp[:, :, :part.shape[2], :part.shape[3]] = part
    return dxp[:, :, p:p + H, p:p + W], dw, db
''',
}

# The argmax's flat index kept in the cache; the backward adds dout at those indices (np.add.at).
_POOL_ARGMAX = {
    "max_pool_forward_naive": '''\
def max_pool_forward_naive(x, pool_param):
    ph, pw, s = pool_param["pool_height"], pool_param["pool_width"], pool_param["stride"]
    N, C, H, W = x.shape
    Ho, Wo = (H - ph) // s + 1, (W - pw) // s + 1
    out = np.empty((N, C, Ho, Wo))
    idx = np.empty((N, C, Ho, Wo), dtype=np.int64)
    for i in range(Ho):
        for j in range(Wo):
            win = x[:, :, i * s:i * s + ph, j * s:j * s + pw].reshape(N, C, -1)
            k = win.argmax(axis=2)
            out[:, :, i, j] = np.take_along_axis(win, k[..., None], axis=2)[..., 0]
            idx[:, :, i, j] = (i * s + k // pw) * W + (j * s + k % pw)
    return out, (x.shape, idx)
''',
    "max_pool_backward_naive": '''\
def max_pool_backward_naive(dout, cache):
    (N, C, H, W), idx = cache
    base = (np.arange(N)[:, None] * C + np.arange(C)[None, :]) * (H * W)
    dx = np.zeros(N * C * H * W)
    np.add.at(dx, (base[:, :, None, None] + idx).ravel(), dout.ravel())
    return dx.reshape(N, C, H, W)
''',
}

_POOL_SCATTER = ("r, s = np.unravel_index(np.argmax(window), window.shape)\n"
                 "                    dx[n, c, i * stride + r, j * stride + s] += dout[n, c, i, j]")

MISTAKES = [
    {
        "name": "not a mistake: im2col inside the naive cells (their own cache)",
        "cells": _NAIVE_AS_IM2COL,
        "must_fail": [],
    },
    {
        # The textbook convolution: the kernel flipped, in the forward and (consistently) the backward.
        "name": "a true convolution: the kernel flipped",
        "cells": {**_mistake("conv_forward_naive",
                             ("np.sum(window * w[f])", "np.sum(window * w[f, :, ::-1, ::-1])")),
                  **_mistake("conv_backward_naive",
                             ("dw[f] += x_pad[n, :, rows, cols] * dout[n, f, i, j]",
                              "dw[f] += (x_pad[n, :, rows, cols] * dout[n, f, i, j])[:, ::-1, ::-1]"),
                             ("dx_pad[n, :, rows, cols] += w[f] * dout[n, f, i, j]",
                              "dx_pad[n, :, rows, cols] += w[f, :, ::-1, ::-1] * dout[n, f, i, j]"))},
        "must_fail": ["test_conv_forward", "test_conv_backward_dx", "test_conv_backward_dw"],
    },
    {
        "name": "conv_backward_naive returns dx with the padding",
        "cells": _mistake("conv_backward_naive",
                          ("dx = dx_pad[:, :, pad:pad + H, pad:pad + W]", "dx = dx_pad")),
        "must_fail": ["test_conv_backward_dx"],
    },
    {
        # One bias gradient per example: summed over the positions only, shape (N, F).
        "name": "conv_backward_naive's db not summed over the batch",
        "cells": _mistake("conv_backward_naive",
                          ("db = np.sum(dout, axis=(0, 2, 3))", "db = np.sum(dout, axis=(2, 3))")),
        "must_fail": ["test_conv_backward_db"],
    },
    {
        # The windows of the backward pass start at i, j: right for stride 1 only.
        "name": "conv_backward_naive ignores the stride",
        "cells": _mistake("conv_backward_naive",
                          ("rows = slice(i * stride, i * stride + HH)", "rows = slice(i, i + HH)"),
                          ("cols = slice(j * stride, j * stride + WW)", "cols = slice(j, j + WW)")),
        "must_fail": ["test_conv_backward_dx", "test_conv_backward_dw"],
    },
    {
        "name": "not a mistake: argmax indices in the pooling cache, np.add.at",
        "cells": _POOL_ARGMAX,
        "must_fail": [],
    },
    {
        "name": "max_pool_backward_naive sends dout to every element of the window",
        "cells": _mistake("max_pool_backward_naive", (
            _POOL_SCATTER,
            "dx[n, c, i * stride:i * stride + ph, j * stride:j * stride + pw] += dout[n, c, i, j]")),
        "must_fail": ["test_max_pool_backward"],
    },
    {
        "name": "max_pool_backward_naive sends dout to the window's first element",
        "cells": _mistake("max_pool_backward_naive", (
            "r, s = np.unravel_index(np.argmax(window), window.shape)", "r, s = 0, 0")),
        "must_fail": ["test_max_pool_backward"],
    },
    {
        # `=` instead of `+=`: a pixel that wins two overlapping windows keeps the last one's gradient.
        "name": "max_pool_backward_naive overwrites where windows overlap",
        "cells": _mistake("max_pool_backward_naive", (
            "dx[n, c, i * stride + r, j * stride + s] += dout[n, c, i, j]",
            "dx[n, c, i * stride + r, j * stride + s] = dout[n, c, i, j]")),
        "must_fail": ["test_max_pool_backward"],
    },
    {
        "name": "not a mistake: im2col by sliding_window_view and einsum, dx as a full convolution",
        "cells": _IM2COL_AS_STRIDED,
        "must_fail": [],
    },
    {
        # Section 2's full convolution written as a correlation: the padded, dilated dout slid over
        # the kernel as it is, without turning it by 180°.
        "name": "dx as a full convolution of dout with the kernel not flipped",
        "cells": {**_IM2COL_AS_STRIDED,
                  "conv_backward_im2col": _edit(_IM2COL_AS_STRIDED["conv_backward_im2col"],
                                                "w[:, :, ::-1, ::-1], optimize=True)", "w, optimize=True)")},
        "must_fail": ["test_conv_im2col_dx"],
    },
    {
        # The shortcut: the fast version's names around the loops (it scored 7 of 17 over a blank
        # notebook while the loop versions were there to call).
        "name": "im2col versions that call the loop versions",
        "cells": {
            "conv_forward_im2col": """\
def conv_forward_im2col(x, w, b, conv_param):
    return conv_forward_naive(x, w, b, conv_param)
""",
            "conv_backward_im2col": """\
def conv_backward_im2col(dout, cache):
    return conv_backward_naive(dout, cache)
""",
        },
        "must_fail": ["test_conv_forward_im2col", "test_conv_im2col_dx", "test_conv_im2col_dw",
                      "test_conv_im2col_db"],
        "message": "this exercise asks you not to call conv_",
    },
    {
        # The work handed to PyTorch's forward convolution, which by_hand lets run: the forward is the
        # setup's torch_conv, the backward section 2's full convolution computed by torch_conv (dx) and
        # dw as the correlation of x with the dilated dout, also by torch_conv.
        "name": "im2col versions that hand the convolutions to torch_conv",
        "cells": {
            "conv_forward_im2col": """\
def conv_forward_im2col(x, w, b, conv_param):
    return torch_conv(x, w, b, conv_param["stride"], conv_param["pad"]), (x, w, conv_param)
""",
            "conv_backward_im2col": """\
def conv_backward_im2col(dout, cache):
    x, w, cp = cache
    s, p = cp["stride"], cp["pad"]
    N, C, H, W = x.shape
    F_, _, HH, WW = w.shape
    _, _, Ho, Wo = dout.shape
    dil = np.zeros((N, F_, H + 2 * p - HH + 1, W + 2 * p - WW + 1))
    dil[:, :, ::s, ::s][:, :, :Ho, :Wo] = dout
    full = np.pad(dil, ((0, 0), (0, 0), (HH - 1, HH - 1), (WW - 1, WW - 1)))
    dxp = torch_conv(full, w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1].copy(), np.zeros(C), 1, 0)
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    dw = torch_conv(xp.transpose(1, 0, 2, 3).copy(), dil.transpose(1, 0, 2, 3).copy(), np.zeros(F_), 1, 0)
    return dxp[:, :, p:p + H, p:p + W], dw.transpose(1, 0, 2, 3), dout.sum(axis=(0, 2, 3))
""",
        },
        "must_fail": ["test_conv_forward_im2col", "test_conv_im2col_dx", "test_conv_im2col_dw",
                      "test_conv_im2col_db"],
        "message": "PyTorch is the referee of the checks, not the answer",
    },
    {
        # The loop exercises handed to PyTorch: the forward is torch_conv, the pool forward torch_pool.
        "name": "naive forwards that call torch_conv and torch_pool",
        "cells": {
            "conv_forward_naive": """\
def conv_forward_naive(x, w, b, conv_param):
    return torch_conv(x, w, b, conv_param["stride"], conv_param["pad"]), (x, w, b, conv_param)
""",
            "max_pool_forward_naive": """\
def max_pool_forward_naive(x, pool_param):
    p = pool_param
    return torch_pool(x, p["pool_height"], p["pool_width"], p["stride"]), (x, pool_param)
""",
        },
        "must_fail": ["test_conv_forward", "test_conv_backward_dx", "test_conv_backward_dw",
                      "test_conv_backward_db", "test_max_pool_forward", "test_max_pool_backward"],
        "message": "PyTorch is the referee of the checks, not the answer",
    },
    {
        # cols from np.lib.stride_tricks.sliding_window_view instead of a loop over the offsets.
        "name": "alternative: im2col with sliding_window_view",
        "cells": {"conv_forward_im2col": """\
def conv_forward_im2col(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(x_pad, (HH, WW), axis=(2, 3))[:, :, ::stride, ::stride]
    H_out, W_out = win.shape[2], win.shape[3]
    cols = win.transpose(1, 4, 5, 0, 2, 3).reshape(C * HH * WW, N * H_out * W_out)
    out = (w.reshape(F, -1) @ cols + b[:, None]).reshape(F, N, H_out, W_out).transpose(1, 0, 2, 3)
    return out, (x.shape, w, cols, conv_param)
"""},
        "must_fail": [],
    },
]

# The declaration in the setup cell (graded = Exercises(...)): the im2col versions run with the loop
# versions refused and a budget of lines of Python (max_lines), in the visible checks and the hidden
# tests alike; the visible checks include a batch of 4 images of 32 × 32 (a loop over the output
# positions runs thousands of lines), a batch of 1000 images of 5 × 5 (a loop over the examples runs
# at least 1000) and 1000 filters (a loop over the filters, the same). Every argument must come back
# unchanged.
_NOT_LOOPS = "never over the examples, the filters or the output positions"


def _renamed(gid: str, new_name: str) -> str:
    """The instructor's solution of `gid` (markers removed), the function renamed to new_name."""
    source = _solution(gid)
    assert source.count(f"def {gid}(") == 1, gid
    return source.replace(f"def {gid}(", f"def {new_name}(")


MISTAKES += [
    {
        # The shortcut the review found (7 points): the loops of sections 1 and 2 pasted into the
        # im2col cells under the new names.
        "name": "im2col versions that are the loop versions pasted",
        "cells": {"conv_forward_im2col": _renamed("conv_forward_naive", "conv_forward_im2col"),
                  "conv_backward_im2col": _renamed("conv_backward_naive", "conv_backward_im2col")},
        "must_fail": ["test_conv_forward_im2col", "test_conv_im2col_dx", "test_conv_im2col_dw",
                      "test_conv_im2col_db"],
        "message": _NOT_LOOPS,
    },
    {
        # Half-vectorised: a loop over the output positions, the examples and filters in one product.
        "name": "im2col versions with a loop over the output positions",
        "cells": {"conv_forward_im2col": '''\
def conv_forward_im2col(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    H_out = 1 + (H + 2 * pad - HH) // stride
    W_out = 1 + (W + 2 * pad - WW) // stride
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((N, F, H_out, W_out))
    for i in range(H_out):
        for j in range(W_out):
            window = x_pad[:, :, i * stride:i * stride + HH, j * stride:j * stride + WW]
            out[:, :, i, j] = window.reshape(N, -1) @ w.reshape(F, -1).T + b
    return out, (x, w, b, conv_param)
''', "conv_backward_im2col": '''\
def conv_backward_im2col(dout, cache):
    x, w, b, conv_param = cache
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    _, _, H_out, W_out = dout.shape
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    dx_pad = np.zeros_like(x_pad)
    dw = np.zeros_like(w)
    for i in range(H_out):
        for j in range(W_out):
            rows, cols = slice(i * stride, i * stride + HH), slice(j * stride, j * stride + WW)
            dw += (dout[:, :, i, j].T @ x_pad[:, :, rows, cols].reshape(N, -1)).reshape(w.shape)
            dx_pad[:, :, rows, cols] += (dout[:, :, i, j] @ w.reshape(F, -1)).reshape(N, C, HH, WW)
    return dx_pad[:, :, pad:pad + H, pad:pad + W], dw, dout.sum(axis=(0, 2, 3))
'''},
        "must_fail": ["test_conv_forward_im2col", "test_conv_im2col_dx", "test_conv_im2col_dw",
                      "test_conv_im2col_db"],
        "message": _NOT_LOOPS,
    },
    {
        # col2im by a loop over the output positions (each window's gradient added back where the
        # forward read it), the forward vectorised: the backward alone runs over its budget.
        "name": "im2col backward with col2im looping over the output positions",
        "cells": {"conv_backward_im2col": '''\
def conv_backward_im2col(dout, cache):
    x_shape, w, cols, conv_param = cache
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x_shape
    F, _, HH, WW = w.shape
    _, _, H_out, W_out = dout.shape
    dout_mat = dout.transpose(1, 0, 2, 3).reshape(F, -1)
    dw = (dout_mat @ cols.T).reshape(w.shape)
    db = dout_mat.sum(axis=1)
    dwindows = (w.reshape(F, -1).T @ dout_mat).reshape(C, HH, WW, N, H_out, W_out)
    dx_pad = np.zeros((N, C, H + 2 * pad, W + 2 * pad))
    for i in range(H_out):
        for j in range(W_out):
            rows, columns = slice(i * stride, i * stride + HH), slice(j * stride, j * stride + WW)
            dx_pad[:, :, rows, columns] += dwindows[..., i, j].transpose(3, 0, 1, 2)
    return dx_pad[:, :, pad:pad + H, pad:pad + W], dw, db
'''},
        "must_fail": ["test_conv_im2col_dx", "test_conv_im2col_dw", "test_conv_im2col_db"],
        "message": "conv_backward_im2col ran",
    },
    {
        # The brief allows a loop over the kernel's offsets; one over the channels too stays far
        # below the line budget (about 460 lines for a 5 × 5 kernel over 4 channels, of 1000).
        "name": "not a mistake: im2col with loops over the channels and the kernel offsets",
        "cells": {"conv_forward_im2col": '''\
def conv_forward_im2col(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    H_out = 1 + (H + 2 * pad - HH) // stride
    W_out = 1 + (W + 2 * pad - WW) // stride
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    cols = np.empty((C * HH * WW, N * H_out * W_out))
    for c in range(C):
        for r in range(HH):
            for s in range(WW):
                rows = slice(r, r + stride * H_out, stride)
                columns = slice(s, s + stride * W_out, stride)
                cols[(c * HH + r) * WW + s] = x_pad[:, c, rows, columns].reshape(-1)
    out = (w.reshape(F, -1) @ cols + b[:, None]).reshape(F, N, H_out, W_out).transpose(1, 0, 2, 3)
    return out, (x.shape, w, cols, conv_param)
''', "conv_backward_im2col": '''\
def conv_backward_im2col(dout, cache):
    (N, C, H, W), w, cols, conv_param = cache
    stride, pad = conv_param["stride"], conv_param["pad"]
    F, _, HH, WW = w.shape
    _, _, H_out, W_out = dout.shape
    dout_mat = dout.transpose(1, 0, 2, 3).reshape(F, -1)
    dcols = w.reshape(F, -1).T @ dout_mat
    dx_pad = np.zeros((N, C, H + 2 * pad, W + 2 * pad))
    for c in range(C):
        for r in range(HH):
            for s in range(WW):
                rows = slice(r, r + stride * H_out, stride)
                columns = slice(s, s + stride * W_out, stride)
                dx_pad[:, c, rows, columns] += dcols[(c * HH + r) * WW + s].reshape(N, H_out, W_out)
    dx = dx_pad[:, :, pad:pad + H, pad:pad + W]
    return dx, (dout_mat @ cols.T).reshape(w.shape), dout_mat.sum(axis=1)
'''},
        "must_fail": [],
    },
    {
        # im2col one example at a time: the windows of each image cut out and multiplied in a loop
        # over the batch (the reader's variant, round 2), within the budget for 4 images of 32 × 32.
        "name": "im2col forward looping over the examples",
        "cells": {"conv_forward_im2col": '''\
def conv_forward_im2col(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    H_out = 1 + (H + 2 * pad - HH) // stride
    W_out = 1 + (W + 2 * pad - WW) // stride
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(x_pad, (HH, WW), axis=(2, 3))[:, :, ::stride, ::stride]
    out = np.empty((N, F, H_out, W_out))
    for n in range(N):
        cols = win[n].transpose(0, 3, 4, 1, 2).reshape(C * HH * WW, H_out * W_out)
        out[n] = (w.reshape(F, -1) @ cols + b[:, None]).reshape(F, H_out, W_out)
    cols = win.transpose(1, 4, 5, 0, 2, 3).reshape(C * HH * WW, N * H_out * W_out)
    return out, (x.shape, w, cols, conv_param)
'''},
        "must_fail": ["test_conv_forward_im2col", "test_conv_im2col_dx", "test_conv_im2col_dw",
                      "test_conv_im2col_db"],
        "message": _NOT_LOOPS,
    },
    {
        # dw one filter at a time, in a one-line comprehension: the rest of the solution unchanged.
        "name": "im2col backward with dw looping over the filters",
        "cells": _mistake("conv_backward_im2col", (
            "dw = (dout_mat @ cols.T).reshape(w.shape)",
            "dw = np.stack([dout_mat[f] @ cols.T for f in range(F)]).reshape(w.shape)")),
        "must_fail": ["test_conv_im2col_dx", "test_conv_im2col_dw", "test_conv_im2col_db"],
        "message": _NOT_LOOPS,
    },
    {
        # The forward vectorised with einsum over the examples and filters, a loop over the kernel
        # offsets only, accumulating the product offset by offset (no cols kept): full marks.
        "name": "not a mistake: im2col forward accumulated over the kernel offsets",
        "cells": {"conv_forward_im2col": '''\
def conv_forward_im2col(x, w, b, conv_param):
    stride, pad = conv_param["stride"], conv_param["pad"]
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    H_out = 1 + (H + 2 * pad - HH) // stride
    W_out = 1 + (W + 2 * pad - WW) // stride
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.broadcast_to(b[None, :, None, None], (N, F, H_out, W_out)).copy()
    patches = np.empty((N, C, HH, WW, H_out, W_out))
    for r in range(HH):
        for s in range(WW):
            patch = x_pad[:, :, r:r + stride * H_out:stride, s:s + stride * W_out:stride]
            patches[:, :, r, s] = patch
            out += np.einsum("ncij,fc->nfij", patch, w[:, :, r, s])
    cols = patches.transpose(1, 2, 3, 0, 4, 5).reshape(C * HH * WW, N * H_out * W_out)
    return out, (x.shape, w, cols, conv_param)
'''},
        "must_fail": [],
    },
    {
        # The im2col forward as a wrapper that reaches the loop version under another name (an
        # alias bound at definition time: the name alone is not what the check refuses).
        "name": "im2col forward reaching the loop version through an alias",
        "cells": {"conv_forward_im2col": '''\
def conv_forward_im2col(x, w, b, conv_param, loops=conv_forward_naive):
    out, (x, w, b, conv_param) = loops(x, w, b, conv_param)
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    stride, pad = conv_param["stride"], conv_param["pad"]
    H_out, W_out = out.shape[2:]
    x_pad = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    patches = np.zeros((N, C, HH, WW, H_out, W_out))
    for r in range(HH):
        for s in range(WW):
            patches[:, :, r, s] = x_pad[:, :, r:r + stride * H_out:stride, s:s + stride * W_out:stride]
    cols = patches.transpose(1, 2, 3, 0, 4, 5).reshape(C * HH * WW, N * H_out * W_out)
    return out, (x.shape, w, cols, conv_param)
'''},
        "must_fail": ["test_conv_forward_im2col", "test_conv_im2col_dx", "test_conv_im2col_dw",
                      "test_conv_im2col_db"],
        "message": "this exercise asks you not to call conv_forward_naive",
    },
    {
        # Forward handed to PyTorch directly (not through the setup's torch_conv).
        "name": "conv_forward_naive computed by torch.nn.functional.conv2d",
        "cells": {"conv_forward_naive": '''\
def conv_forward_naive(x, w, b, conv_param):
    out = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                                     stride=conv_param["stride"], padding=conv_param["pad"])
    return out.numpy(), (x, w, b, conv_param)
'''},
        "must_fail": ["test_conv_forward", "test_conv_backward_dx", "test_conv_backward_dw",
                      "test_conv_backward_db"],
        "message": "PyTorch is the referee of the checks, not the answer",
    },
    {
        # Reshaping by assigning .shape changes the caller's array: dout comes back (N, F, H'·W').
        "name": "conv_backward_naive reshapes dout in place",
        "cells": _mistake("conv_backward_naive", (
            "db = np.sum(dout, axis=(0, 2, 3))",
            "dout.shape = (N, F, H_out * W_out)\n    db = np.sum(dout, axis=(0, 2))")),
        "must_fail": ["test_conv_backward_dx", "test_conv_backward_dw", "test_conv_backward_db"],
        "message": "changed its argument dout in place",
    },
    {
        # The demo net's own 2×2 max pool (grader.lessons.convolution.experiments), right for the visible
        # check's 2 × 2 windows at stride 2 only: a referee, refused there too.
        "name": "max pool forward by the conv net's 2×2 pool of the package",
        "cells": {"max_pool_forward_naive": '''\
def max_pool_forward_naive(x, pool_param):
    from grader.lessons.convolution.experiments import _pool2_forward
    return _pool2_forward(x)[0], (x, pool_param)
'''},
        "must_fail": ["test_max_pool_forward", "test_max_pool_backward"],
        "message": "is one of the course's references",
    },
]
