"""Convolution and max-pool rules: the kernel flipped, the padding kept, the stride ignored, the
pool's gradient sent to the wrong entries or overwritten.

The problems (`problem={"conv": {...}}` or `{"pool": {...}}`): `conv` — {"x": (N, C, H, W), "w":
(F, C, HH, WW), "b": (F,), "dout": (N, F, H', W') (optional), "stride": s ≥ 1, "pad": p ≥ 0},
H' = 1 + (H + 2p − HH) // s, expected out, dx, dw or db; `pool` — {"x": (N, C, H, W), "dout":
(N, C, H', W') (optional), "pool_height", "pool_width", "stride"}, H' = 1 + (H − pool_height) //
stride, expected out or dx. conv is a cross-correlation with zero padding p on every side and
stride s: with xpad the padded x, out[n, f, i, j] = Σ_c,k,l w[f, c, k, l] · xpad[n, c, i·s + k,
j·s + l] + b[f]; pool a max pool of pool_height × pool_width windows at stride s, without
padding. As in `rnn`, a rule recomputes the layer with one mistake switched on (vectorised: one
matrix product, and loops over the kernel's or the window's offsets only) and fires only when
expected is one of the layer's right quantities (out, dx, dw, db) and actual matches the
mistaken one exactly:

- `conv-flipped-kernel`: a true convolution, w[:, :, ::-1, ::-1] (out, dx, or dw flipped);
- `conv-stride-ignored`: the backward's windows at positions (i, j) instead of (i·s, j·s), or
  with the stride along one axis only (dx, dw); in the shape rule, an out of the stride-1 shape;
- `conv-padding-not-removed` (a shape rule): dx of the padded shape (N, C, H + 2p, W + 2p);
- a db of shape (N, F, H', W'), (F, H', W') or (N, F) is dout summed over too few axes: the
  shape rules say so under the code `not-summed-over-batch` (with conv, naming the axes left;
  without, `summed_over_too_few_axes`, from the numbers alone);
- `pool-every-element`: dout sent to every element of each window (or shared among them);
- `pool-first-element`: dout sent to each window's first (top-left) element;
- `pool-overwrite`: `=` instead of `+=` where windows overlap (the whole window assigned, or
  only its maximum, the windows visited row by row or column by column).
Each value rule takes (actual, ctx) with actual float64, finite, shaped like expected and not
close to it; each shape rule (`conv_shape`, the conv problem's) an actual of another shape. Both return a Hint
or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .._validate import fmt_shape
from ..errors import ToolkitInputError
from ..i18n import N_, _
from .context import Hint, HintContext, close, mistake_matches, pair_tol, problem_of
from .problem import Problem, checked_mapping, expected_shape_in, finite_array, int_at_least


@dataclass(frozen=True)
class ConvProblem:
    """A convolution layer (cross-correlation) with zero padding pad on every side: x (N, C, H, W),
    w (F, C, HH, WW), b (F,), dout (N, F, H', W') or None, stride ≥ 1, pad ≥ 0."""

    x: np.ndarray
    w: np.ndarray
    b: np.ndarray
    dout: np.ndarray | None
    stride: int
    pad: int

    @property
    def out_shape(self) -> tuple[int, int, int, int]:
        """(N, F, H', W') with H' = 1 + (H + 2·pad − HH) // stride."""
        (n, _, h, w), (f, _, hh, ww) = self.x.shape, self.w.shape
        s, p = self.stride, self.pad
        return n, f, 1 + (h + 2 * p - hh) // s, 1 + (w + 2 * p - ww) // s


def checked_conv(conv: Any, shape: tuple[int, ...] | None = None) -> ConvProblem | None:
    """None, or the checked convolution problem; shape — expected's: out, dx, dw or db's."""
    __tracebackhide__ = True
    if conv is None:
        return None
    spec = checked_mapping(conv, "conv", ("x", "w", "b", "stride", "pad"), ("dout",))
    x, w = finite_array(spec["x"], "conv['x']"), finite_array(spec["w"], "conv['w']")
    stride = int_at_least(spec["stride"], "conv['stride']", 1)
    pad = int_at_least(spec["pad"], "conv['pad']", 0)
    fits = x.ndim == 4 and w.ndim == 4 and w.shape[1] == x.shape[1]
    if not fits or x.shape[2] + 2 * pad < w.shape[2] or x.shape[3] + 2 * pad < w.shape[3]:
        raise ToolkitInputError(
            _("conv['x'] must be (N, C, H, W) and conv['w'] (F, C, HH, WW) with the same C and a kernel "
              "no larger than the padded input, but they have shapes {x} and {w} (pad {pad}).").format(
                x=fmt_shape(x.shape), w=fmt_shape(w.shape), pad=pad)
        )
    b = finite_array(spec["b"], "conv['b']", (w.shape[0],))
    p = ConvProblem(x, w, b, None, stride, pad)
    if spec.get("dout") is not None:
        p = ConvProblem(x, w, b, finite_array(spec["dout"], "conv['dout']", p.out_shape), stride, pad)
    expected_shape_in(shape, [p.out_shape, x.shape, w.shape, b.shape], "conv", "out, dx, dw or db")
    return p


@dataclass(frozen=True)
class PoolProblem:
    """A max pool without padding: x (N, C, H, W), dout (N, C, H', W') or None, the window
    height × width, stride ≥ 1."""

    x: np.ndarray
    dout: np.ndarray | None
    height: int
    width: int
    stride: int

    @property
    def out_shape(self) -> tuple[int, int, int, int]:
        """(N, C, H', W') with H' = 1 + (H − pool_height) // stride."""
        n, c, h, w = self.x.shape
        return n, c, 1 + (h - self.height) // self.stride, 1 + (w - self.width) // self.stride


def checked_pool(pool: Any, shape: tuple[int, ...] | None = None) -> PoolProblem | None:
    """None, or the checked max-pool problem; shape — expected's: out or dx's."""
    __tracebackhide__ = True
    if pool is None:
        return None
    spec = checked_mapping(pool, "pool", ("x", "pool_height", "pool_width", "stride"), ("dout",))
    x = finite_array(spec["x"], "pool['x']")
    ph = int_at_least(spec["pool_height"], "pool['pool_height']", 1)
    pw = int_at_least(spec["pool_width"], "pool['pool_width']", 1)
    stride = int_at_least(spec["stride"], "pool['stride']", 1)
    if x.ndim != 4 or x.shape[2] < ph or x.shape[3] < pw:
        raise ToolkitInputError(
            _("pool['x'] must be (N, C, H, W) with H ≥ pool_height and W ≥ pool_width ({ph} × {pw}), "
              "but it has shape {got}.").format(ph=ph, pw=pw, got=fmt_shape(x.shape))
        )
    p = PoolProblem(x, None, ph, pw, stride)
    if spec.get("dout") is not None:
        p = PoolProblem(x, finite_array(spec["dout"], "pool['dout']", p.out_shape), ph, pw, stride)
    expected_shape_in(shape, [p.out_shape, x.shape], "pool", "out or dx")
    return p


#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "conv-flipped-kernel": "a convolution out, dx or dw computed with the kernel flipped (a true "
    "convolution instead of the cross-correlation) (needs conv).",
    "conv-padding-not-removed": "a convolution dx of the padded input's shape (N, C, H + 2p, W + 2p): "
    "the padding not cropped away (needs conv).",
    "conv-stride-ignored": "a convolution backward with its windows at (i, j) instead of "
    "(i·stride, j·stride), or an out of the stride-1 shape (needs conv).",
    "pool-every-element": "a max-pool dx with each window's gradient sent to (or shared among) "
    "every element of the window instead of its maximum (needs pool).",
    "pool-first-element": "a max-pool dx with each window's gradient sent to the window's first "
    "(top-left) element instead of its maximum (needs pool).",
    "pool-overwrite": "a max-pool dx written with `=` where overlapping windows must add their "
    "gradients (+=) (needs pool).",
}

__all__ = [
    "CODES",
    "PROBLEMS",
    "checked_conv",
    "checked_pool",
    "conv_shape",
    "ConvProblem",
    "flipped_kernel",
    "pool_every_element",
    "pool_first_element",
    "pool_overwrite",
    "PoolProblem",
    "stride_ignored",
]


Steps = tuple[int, int]  # the step between windows along the rows and along the columns


def _windows(xp: np.ndarray, size: tuple[int, int], step: Steps, count: tuple[int, int]) -> np.ndarray:
    """The count[0] × count[1] windows of `size` of xp (N, C, H, W), `step` apart: (N, C, h', w', *size)."""
    view = sliding_window_view(xp, size, axis=(2, 3))
    (r, c), (ho, wo) = step, count
    return view[:, :, : r * (ho - 1) + 1 : r, : c * (wo - 1) + 1 : c]


def _add_at_offsets(dxp: np.ndarray, parts: np.ndarray, step: Steps) -> None:
    """dxp (N, C, Hp, Wp) += each window's gradient parts (N, C, h', w', k, l), the windows
    `step` apart: one strided slice per offset (k, l) of the window."""
    _, _, ho, wo, kh, kw = parts.shape
    r, c = step
    for k in range(kh):
        for m in range(kw):
            rows, cols = slice(k, k + r * (ho - 1) + 1, r), slice(m, m + c * (wo - 1) + 1, c)
            dxp[:, :, rows, cols] += parts[..., k, m]


# ----------------------------------------------------------------------------- convolution


def _conv(p: ConvProblem, *, flip: bool = False, back_step: Steps | None = None) -> dict[str, np.ndarray]:
    """out (N, F, H', W') and, when p.dout is given, dx (like x), dx_padded (the padded x's
    shape), dw (like w) and db (F,) of the convolution p.

    flip — the kernel rotated by 180° (a true convolution, forward and backward); back_step —
    the steps between the backward's windows along the rows and the columns (default the stride).
    """
    n, c, h, w = p.x.shape
    f, _, kh, kw = p.w.shape
    _, _, ho, wo = p.out_shape
    pad = p.pad
    xp = np.pad(p.x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kernel = (p.w[:, :, ::-1, ::-1] if flip else p.w).reshape(f, -1)
    stride = (p.stride, p.stride)
    cols = _windows(xp, (kh, kw), stride, (ho, wo)).transpose(0, 2, 3, 1, 4, 5).reshape(n * ho * wo, -1)
    out = (cols @ kernel.T).reshape(n, ho, wo, f).transpose(0, 3, 1, 2) + p.b[None, :, None, None]
    if p.dout is None:
        return {"out": out}
    step = stride if back_step is None else back_step
    if step != stride:
        cols = _windows(xp, (kh, kw), step, (ho, wo)).transpose(0, 2, 3, 1, 4, 5).reshape(n * ho * wo, -1)
    d = p.dout.transpose(0, 2, 3, 1).reshape(-1, f)  # (N·H'·W', F)
    dw = (d.T @ cols).reshape(p.w.shape)
    parts = (d @ kernel).reshape(n, ho, wo, c, kh, kw).transpose(0, 3, 1, 2, 4, 5)
    dxp = np.zeros(xp.shape)
    _add_at_offsets(dxp, parts, step)
    return {
        "out": out,
        "dx": dxp[:, :, pad : pad + h, pad : pad + w],
        "dx_padded": dxp,
        "dw": dw[:, :, ::-1, ::-1] if flip else dw,
        "db": p.dout.sum(axis=(0, 2, 3)),
    }


def _conv_which(ctx: HintContext) -> tuple[str, dict[str, np.ndarray]] | None:
    """(name, the right quantities) when expected is out, dx, dw or db of problem_of(ctx, ConvProblem)."""
    if problem_of(ctx, ConvProblem) is None:
        return None
    right = _conv(problem_of(ctx, ConvProblem))
    e = ctx.expected
    for name in ("out", "dx", "dw", "db"):
        value = right.get(name)
        if value is not None and value.shape == e.shape and close(value, e, pair_tol(value, e)):
            return name, right
    return None


_FLIP_WHERE = {
    "out": N_("the forward's product of each window with w: the kernel lies on the window as it is, "
              "entry (k, l) on the window's entry (k, l)"),
    "dx": N_("how w enters dx: each output's gradient goes back to its window weighted by w as it lay "
             "on the window in the forward pass (written as a correlation of the zero-padded dout, that "
             "needs the kernel rotated by 180°, once)"),
    "dw": N_("the indices of the window you pair with dout: dw[f, c, k, l] collects the input entries "
             "at offset (k, l) of each window, not at (HH − 1 − k, WW − 1 − l)"),
}


def flipped_kernel(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is out, dx or dw of a true convolution (the kernel flipped)."""
    found = _conv_which(ctx)
    if found is None or found[0] not in _FLIP_WHERE:
        return None
    name, right = found
    if not mistake_matches(a, right[name], _conv(problem_of(ctx, ConvProblem), flip=True)[name]):
        return None
    return Hint(
        "conv-flipped-kernel",
        _("{who} is what a true convolution gives, with the kernel flipped (w[:, :, ::-1, ::-1]): "
          "this layer is a cross-correlation, as PyTorch's conv2d computes it. Look at "
          "{where}.").format(who=ctx.who, where=_(_FLIP_WHERE[name])),
    )


def stride_ignored(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is dx or dw with the backward's windows at (i, j) instead of (i·stride, j·stride)."""
    found = _conv_which(ctx)
    if found is None or found[0] not in ("dx", "dw") or problem_of(ctx, ConvProblem).stride == 1:
        return None
    name, right = found
    s = problem_of(ctx, ConvProblem).stride
    steps = {(1, 1): _("row i, column j"), (1, s): _("row i, column j·{s}").format(s=s),
             (s, 1): _("row i·{s}, column j").format(s=s)}
    where = next(
        (
            w
            for step, w in steps.items()
            if mistake_matches(a, right[name], _conv(problem_of(ctx, ConvProblem), back_step=step)[name])
        ),
        None,
    )
    if where is None:
        return None
    return Hint(
        "conv-stride-ignored",
        _("{who} is what you get when the backward pass puts output (i, j)'s window at {where} "
          "of the padded input instead of row i·{s}, column j·{s} (stride = {s}): each "
          "output's gradient goes back to the window it was computed from. Look at where the "
          "backward's window starts (the loop indices, or the positions of its im2col).").format(
            who=ctx.who, where=where, s=s),
    )


def _padding_not_removed(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """The shape hint for a dx of the padded input's shape."""
    p, e = problem_of(ctx, ConvProblem), ctx.expected
    n, c, h, w = p.x.shape
    if p.pad == 0 or a.shape != (n, c, h + 2 * p.pad, w + 2 * p.pad):
        return None
    q = p.pad
    inner = a[:, :, q:-q, q:-q]
    verdict = (
        _("its inside is exactly the expected dx")
        if close(inner, e, pair_tol(inner, e))
        else _("its inside is not the expected dx yet either, so check the rest too")
    )
    return Hint(
        "conv-padding-not-removed",
        _("{who} has shape {got}, the shape of the padded input (pad = {pad} on "
          "every side), but dx must be shaped like x, {want}: the padding is not part "
          "of the input, so its gradient is dropped — remove the {pad} padded rows and columns on each "
          "side of the padded gradient ({verdict}).").format(
            who=ctx.who, got=fmt_shape(a.shape), pad=q, want=fmt_shape(e.shape), verdict=verdict),
    )


def _stride_one_out(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """The shape hint for an out of the shape a stride-1 convolution has."""
    p = problem_of(ctx, ConvProblem)
    n, f = p.out_shape[:2]
    (h, w), (kh, kw), q = p.x.shape[2:], p.w.shape[2:], p.pad
    if p.stride == 1 or a.shape != (n, f, h + 2 * q - kh + 1, w + 2 * q - kw + 1):
        return None
    return Hint(
        "conv-stride-ignored",
        _("{who} has shape {got}, that of a convolution with stride 1, but the "
          "stride is {stride}: the expected out is {want}, H' = 1 + "
          "(H + 2·pad − HH) // stride. Look at how far the window moves between two outputs.").format(
            who=ctx.who, got=fmt_shape(a.shape), stride=p.stride, want=fmt_shape(ctx.expected.shape)),
    )


def _db_not_summed(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """The shape hint for a db that is dout summed over some of the axes (0, 2, 3) but not all."""
    p = problem_of(ctx, ConvProblem)
    if p.dout is None or a.ndim not in (1, 2, 3, 4) or a.ndim == 1 and a.shape == ctx.expected.shape:
        return None
    for kept in (c for r in (1, 2) for c in combinations((0, 2, 3), r)):
        axes = tuple(ax for ax in (0, 2, 3) if ax not in kept)
        for value in (p.dout.sum(axis=axes), p.dout.sum(axis=axes, keepdims=True)):
            if value.shape == a.shape and close(a, value, pair_tol(a, value)):
                return _db_hint(a, ctx, kept)
    if a.shape == p.dout.shape:
        return _db_hint(a, ctx, (0, 2, 3))
    return None


def _db_hint(a: np.ndarray, ctx: HintContext, kept: tuple[int, ...]) -> Hint:
    """not-summed-over-batch for a conv db that kept the axes `kept` of dout."""
    words = {0: _("the batch"), 2: _("the rows"), 3: _("the columns")}
    left = _(" and ").join(words[ax] for ax in kept)
    return Hint(
        "not-summed-over-batch",
        _("{who} has shape {got}, but db has one entry per filter, "
          "{want}: it still has an axis for {left}. b[f] is added to every "
          "output position of every example, so its gradient sums dout over the batch and over "
          "every position of the output.").format(
            who=ctx.who, got=fmt_shape(a.shape), want=fmt_shape(ctx.expected.shape), left=left),
    )


def _name_from_shape(ctx: HintContext) -> str | None:
    """The quantity expected is, told by its shape alone (when no other quantity has it): for
    an expected that is not the problem's value (no dout given, or another problem's)."""
    p = problem_of(ctx, ConvProblem)
    shapes = {"out": p.out_shape, "dx": p.x.shape, "dw": p.w.shape, "db": p.b.shape}
    names = [k for k, shape in shapes.items() if tuple(shape) == ctx.expected.shape]
    return names[0] if len(names) == 1 else None


def conv_shape(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """A shape rule: dx of the padded shape, out of the stride-1 shape, db summed over too few axes
    (expected known as one of the layer's quantities by its value, else by an unambiguous shape)."""
    if problem_of(ctx, ConvProblem) is None:
        return None
    found = _conv_which(ctx)
    if found is None:
        name = _name_from_shape(ctx)
        if name is None:
            return None
    else:
        name = found[0]
    if name == "dx":
        return _padding_not_removed(a, ctx)
    if name == "out":
        return _stride_one_out(a, ctx)
    return _db_not_summed(a, ctx) if name == "db" else None


# ----------------------------------------------------------------------------- max pool


def _pool(p: PoolProblem, mistake: str = "") -> dict[str, np.ndarray]:
    """out (N, C, H', W') and, when p.dout is given, dx (like x) of the max pool p.

    mistake — "" (none), "every" (dout added to every element of the window), "mean" (shared
    among them), "first" (added to the top-left element), "assign-window" / "assign-window-cols"
    (each window assigned: its one-hot mask times dout, the windows row by row / column by
    column), "assign-max" / "assign-max-cols" (only each window's maximum assigned).
    """
    n, c, _, _ = p.x.shape
    _, _, ho, wo = p.out_shape
    size = p.height * p.width
    flat = _windows(p.x, (p.height, p.width), (p.stride, p.stride), (ho, wo)).reshape(n, c, ho, wo, size)
    arg = flat.argmax(axis=-1)
    out = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    if p.dout is None:
        return {"out": out}
    dx = np.zeros(p.x.shape)
    if mistake.startswith("assign"):
        _assign_windows(dx, p, arg, mistake)
        return {"out": out, "dx": dx}
    if mistake in ("every", "mean", "first"):
        share = np.zeros(size)
        share[: 1 if mistake == "first" else size] = 1 / size if mistake == "mean" else 1
        onehot = np.broadcast_to(share, arg.shape + (size,))
    else:
        onehot = np.eye(size)[arg]
    parts = (onehot * p.dout[..., None]).reshape(n, c, ho, wo, p.height, p.width)
    _add_at_offsets(dx, parts, (p.stride, p.stride))
    return {"out": out, "dx": dx}


def _assign_windows(dx: np.ndarray, p: PoolProblem, arg: np.ndarray, mistake: str) -> None:
    """dx filled window by window with `=` (see `_pool`'s mistakes), in place."""
    n, c, ho, wo = arg.shape
    s, ph, pw = p.stride, p.height, p.width
    cells = [(i, j) for i in range(ho) for j in range(wo)]
    if mistake.endswith("-cols"):
        cells.sort(key=lambda cell: (cell[1], cell[0]))
    rows, chans = np.arange(n)[:, None], np.arange(c)[None, :]
    for i, j in cells:
        k = arg[:, :, i, j]
        if mistake.startswith("assign-max"):
            dx[rows, chans, i * s + k // pw, j * s + k % pw] = p.dout[:, :, i, j]
        else:
            mask = np.eye(ph * pw)[k].reshape(n, c, ph, pw)
            dx[:, :, i * s : i * s + ph, j * s : j * s + pw] = mask * p.dout[:, :, i, j, None, None]


def _pool_fits(a: np.ndarray, ctx: HintContext, *mistakes: str) -> str | None:
    """The first of `mistakes` whose dx a matches exactly, when expected is the pool's dx."""
    if problem_of(ctx, PoolProblem) is None or problem_of(ctx, PoolProblem).dout is None:
        return None
    right = _pool(problem_of(ctx, PoolProblem))["dx"]
    if right.shape != ctx.expected.shape or not close(right, ctx.expected, pair_tol(right, ctx.expected)):
        return None
    for mistake in mistakes:
        if mistake_matches(a, right, _pool(problem_of(ctx, PoolProblem), mistake)["dx"]):
            return mistake
    return None


def pool_every_element(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is a max-pool dx with dout sent to every element of each window (or shared)."""
    found = _pool_fits(a, ctx, "every", "mean")
    if found is None:
        return None
    how = (
        _("added to every element of its window")
        if found == "every"
        else _("shared equally among its window's elements (as an average pool's)")
    )
    return Hint(
        "pool-every-element",
        _("{who} is what you get with each window's gradient {how}: the output of a max pool is "
          "the window's maximum alone, so only that element (where x equals the output) receives "
          "dout; the others get 0. Look at the line that adds dout into the window of dx.").format(
            who=ctx.who, how=how),
    )


def pool_first_element(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is a max-pool dx with dout sent to each window's top-left element."""
    if _pool_fits(a, ctx, "first") is None:
        return None
    return Hint(
        "pool-first-element",
        _("{who} is what you get with each window's gradient sent to the window's first "
          "(top-left) element: it belongs to the window's maximum, wherever that lies. Look at how "
          "the position inside the window is found (an argmax over the flattened window has to be "
          "turned back into a row and a column, np.unravel_index).").format(who=ctx.who),
    )


def pool_overwrite(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is a max-pool dx written with `=` where overlapping windows must add (+=)."""
    order = ("assign-window", "assign-window-cols", "assign-max", "assign-max-cols")
    if _pool_fits(a, ctx, *order) is None:
        return None
    pool = problem_of(ctx, PoolProblem)
    s, ph, pw = pool.stride, pool.height, pool.width
    return Hint(
        "pool-overwrite",
        _("{who} is what you get when each window's gradient is written with `=`: with stride "
          "{s} and {ph} × {pw} windows, neighbouring windows overlap, and an element that is the "
          "maximum of several windows receives the gradient of each of them. Look at the line that "
          "writes into dx: add (+=) instead of assigning.").format(who=ctx.who, s=s, ph=ph, pw=pw),
    )


PROBLEMS = (
    Problem("conv", checked_conv, (flipped_kernel, stride_ignored), shape_rules=(conv_shape,)),
    Problem("pool", checked_pool, (pool_first_element, pool_every_element, pool_overwrite)),
)
