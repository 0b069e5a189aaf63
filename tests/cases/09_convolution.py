"""Alternative correct solutions and typical mistakes for course/09_convolution (convolution and
pooling by hand).

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Graded cells: test_conv_forward (2); test_conv_backward_dx (2), test_conv_backward_dw (2),
test_conv_backward_db (1); test_max_pool_forward (1), test_max_pool_backward (2);
test_conv_forward_im2col (2); test_conv_im2col_dx (2), test_conv_im2col_dw (2), test_conv_im2col_db (1).

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
