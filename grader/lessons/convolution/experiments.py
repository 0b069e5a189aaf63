"""Lesson 09's numerical experiments (convolution and pooling by hand), without any widget.

Every experiment calls the student's functions, passed in by the notebook, through
`grader.lessons.student_calls`: while one is unfinished or broken, the experiment raises
`NotReady` saying which. Nothing here implements a graded function; the tiny net's own 2×2 max pool
(`_pool2_forward`, `_pool2_backward`) is marked as a referee, refused inside a graded call.

- `conv_speed`: seconds of one forward and one backward pass of several convolution
  implementations (the student's naive and im2col ones, and PyTorch's) on the same input;
- `train_conv_net`: a tiny conv net, conv → ReLU → 2×2 max pool → affine → softmax, trained
  with minibatch SGD on the digits, the convolution being the student's;
- `unit_input_gradient`: ∂out/∂x for one output unit of a stack of convolutions (the receptive
  field), through the student's forward and backward passes; `central_unit` says which unit;
- `transposed_conv`: the student's dx next to PyTorch's `conv_transpose2d` of dout (the whole
  map dout -> dx is the transposed convolution);
- `pool_routing`: the gradient a max pool sends back, through the student's pooling functions.

Conventions (CS231n's): x (N, C, H, W), w (F, C, HH, WW), b (F,), conv_param {"stride", "pad"},
pool_param {"pool_height", "pool_width", "stride"}; out (N, F, H', W') with
H' = 1 + (H + 2 pad − HH) // stride.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validate import describe, fmt_shape
from ...errors import ToolkitInputError
from ...i18n import lesson_text as _
from ...i18n import returned_by
from ...referees import referee, referee_all
from ..student_calls import NotReady, call_student, for_cell, student_array

__all__ = ["ConvNetRun", "NotReady", "central_unit", "compare_convs", "conv_out_shape", "conv_speed",
           "pool_routing", "student_conv", "train_conv_net", "transposed_conv", "unit_input_gradient"]


def conv_out_shape(x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: int,
                   pad: int) -> tuple[int, ...]:
    """(N, F, H', W') of a convolution of x (N, C, H, W) with w (F, C, HH, WW); ToolkitInputError if empty."""
    n, _c, h, w = x_shape
    f, _cw, hh, ww = w_shape
    h_out, w_out = 1 + (h + 2 * pad - hh) // stride, 1 + (w + 2 * pad - ww) // stride
    if h_out < 1 or w_out < 1 or stride < 1 or pad < 0:
        raise ToolkitInputError(_("a kernel {hh}×{ww} with stride {stride} and padding {pad} does not fit "
                                  "an input {h}×{w}: expected stride ≥ 1, pad ≥ 0 and HH, WW ≤ H + 2 pad, "
                                  "W + 2 pad.").format(hh=hh, ww=ww, stride=stride, pad=pad, h=h, w=w))
    return (n, f, h_out, w_out)


def _call(func: Callable, name: str, *args: Any, in_view: bool = False) -> Any:
    """call_student, its messages worded for a cell ("run this cell again") unless `in_view`."""
    try:
        return call_student(func, name, *args)
    except NotReady as why:
        if in_view:
            raise
        raise NotReady(for_cell(str(why))) from None


def _pair(value: Any, what: str) -> tuple[Any, Any]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        message = _("{what} returned {got}; expected a tuple (out, cache).")
        raise NotReady(message.format(what=what, got=describe(value)))
    return value[0], value[1]


@dataclass
class StudentConv:
    """A student's convolution: forward(x, w, b, conv_param) -> (out, cache) and
    backward(dout, cache) -> (dx, dw, db), called with copies and their results checked."""

    forward: Callable
    backward: Callable
    name: str = "conv"  # the implementation's name in messages: "conv_forward_im2col" ...
    in_view: bool = False  # messages for a widget ("move a control") or for a cell ("run it again")

    def fwd(self, x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int,
            pad: int) -> tuple[np.ndarray, Any]:
        """(out (N, F, H', W'), cache)."""
        shape = conv_out_shape(x.shape, w.shape, stride, pad)
        what = (f"{self.forward.__name__}(x of shape {fmt_shape(x.shape)}, "
                f"w of shape {fmt_shape(w.shape)}, ...)")
        out, cache = _pair(_call(self.forward, self.forward.__name__, x.copy(), w.copy(), b.copy(),
                                 {"stride": stride, "pad": pad}, in_view=self.in_view), what)
        return student_array(out, shape, f"the out of {what}"), cache

    def bwd(self, dout: np.ndarray, cache: Any, x_shape: tuple, w_shape: tuple) -> tuple[np.ndarray, ...]:
        """(dx, dw, db), checked against the shapes of x, w and b."""
        name = self.backward.__name__
        grads = _call(self.backward, name, dout.copy(), cache, in_view=self.in_view)
        if not isinstance(grads, (tuple, list)) or len(grads) != 3:
            raise NotReady(_("{name} returned {got}; expected a tuple (dx, dw, db).").format(
                name=name, got=describe(grads)))
        shapes = (x_shape, w_shape, (w_shape[0],))
        return tuple(student_array(g, s, returned_by(name, label))
                     for g, s, label in zip(grads, shapes, ("dx", "dw", "db"), strict=True))


def student_conv(forward: Callable, backward: Callable, in_view: bool = False) -> StudentConv:
    """The student's pair of convolution functions, wrapped for the experiments (in_view: for a widget)."""
    if not callable(forward) or not callable(backward):
        raise ToolkitInputError(_("expected two functions (forward, backward), got {forward} "
                                  "and {backward}.").format(
            forward=describe(forward), backward=describe(backward)))
    return StudentConv(forward, backward, getattr(forward, "__name__", "conv"), in_view)


def _best_time(fn: Callable[[], Any], repeats: int) -> float:
    best = float("inf")
    for _repeat in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _torch_times(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, pad: int,
                 dout: np.ndarray, repeats: int) -> tuple[float, float]:
    import torch
    import torch.nn.functional as F

    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    dt = torch.tensor(dout)
    fwd = _best_time(lambda: F.conv2d(xt, wt, bt, stride=stride, padding=pad), repeats)

    def backward() -> None:
        out = F.conv2d(xt, wt, bt, stride=stride, padding=pad)
        torch.autograd.grad(out, (xt, wt, bt), dt)

    return fwd, max(_best_time(backward, repeats) - fwd, 0.0)


def conv_speed(impls: Mapping[str, tuple[Callable, Callable, int]], x: np.ndarray, w: np.ndarray,
               b: np.ndarray, conv_param: Mapping[str, int], *, torch_repeats: int = 20,
               seed: int = 0) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """Seconds of one forward and one backward pass per implementation, on the same input.

    Inputs: impls — label -> (forward, backward, repeats) (each timed `repeats` times, the best
    kept); x, w, b, conv_param — the convolution; torch_repeats — for PyTorch's conv2d (float64),
    added as the row "PyTorch" (its backward: autograd's time minus a forward). dout is seeded.
    Returns (times, missing): label -> (forward s, backward s); label -> why it could not run.
    """
    stride, pad = int(conv_param["stride"]), int(conv_param["pad"])
    dout = np.random.default_rng(seed).normal(size=conv_out_shape(x.shape, w.shape, stride, pad))
    times: dict[str, tuple[float, float]] = {}
    missing: dict[str, str] = {}
    for label, (forward, backward, repeats) in impls.items():
        conv = student_conv(forward, backward)
        try:
            out, cache = conv.fwd(x, w, b, stride, pad)  # checked once, untimed
            conv.bwd(dout, cache, x.shape, w.shape)
            t_fwd = _best_time(lambda f=forward, n=label: _call(f, n, x, w, b, dict(conv_param)), repeats)
            t_bwd = _best_time(lambda f=backward, n=label, c=cache: _call(f, n, dout, c), repeats)
        except NotReady as why:
            missing[label] = str(why)
            continue
        times[label] = (t_fwd, t_bwd)
    times["PyTorch"] = _torch_times(x, w, b, stride, pad, dout, torch_repeats)
    return times, missing


# ----------------------------------------------------------------------------- the tiny conv net


def _windows(a: np.ndarray) -> np.ndarray:
    """a (N, F, H, W), H and W even -> its 2×2 windows (N, F, H/2, W/2, 4)."""
    n, f, h, w = a.shape
    return a.reshape(n, f, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, f, h // 2, w // 2, 4)


@referee
def _pool2_forward(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2×2 max pool, stride 2: (out (N, F, H/2, W/2), one-hot (N, F, H/2, W/2, 4) of each window's
    first maximum)."""
    windows = _windows(a)
    first = windows.argmax(axis=-1)
    return np.take_along_axis(windows, first[..., None], axis=-1)[..., 0], np.eye(4)[first]


@referee
def _pool2_backward(dout: np.ndarray, is_max: np.ndarray) -> np.ndarray:
    """The gradient of `_pool2_forward`: dout to the (first) maximum of each window."""
    n, f, h2, w2 = dout.shape
    d = (is_max * dout[..., None]).reshape(n, f, h2, w2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    return d.reshape(n, f, 2 * h2, 2 * w2)


@dataclass
class ConvNetRun:
    """A training run: losses (per step), train_acc and val_acc (after training), w1 (the filters
    after training) and w1_init (the same filters at initialisation)."""

    losses: np.ndarray
    train_acc: float
    val_acc: float
    w1: np.ndarray
    seconds: float
    w1_init: np.ndarray | None = None


def _init_net(filters: int, kernel: int, classes: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    hidden = filters * 4 * 4  # 8×8 images, 'same' padding, 2×2 pool
    return {"w1": rng.normal(size=(filters, 1, kernel, kernel)) * np.sqrt(2.0 / kernel ** 2),
            "b1": np.zeros(filters),
            "w2": rng.normal(size=(hidden, classes)) * np.sqrt(2.0 / hidden),
            "b2": np.zeros(classes)}


def _net_loss(conv: StudentConv, p: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray | None,
              pad: int) -> tuple[Any, ...]:
    """Logits, or (loss, grads) when y is given; conv → ReLU → pool → affine → softmax."""
    a, cache = conv.fwd(x, p["w1"], p["b1"], 1, pad)
    h = np.maximum(a, 0.0)
    pooled, is_max = _pool2_forward(h)
    flat = pooled.reshape(len(x), -1)
    logits = flat @ p["w2"] + p["b2"]
    if y is None:
        return (logits,)
    z = logits - logits.max(axis=1, keepdims=True)
    prob = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    loss = -np.mean(np.log(prob[np.arange(len(y)), y]))
    dlogits = prob.copy()
    dlogits[np.arange(len(y)), y] -= 1.0
    dlogits /= len(y)
    grads = {"w2": flat.T @ dlogits, "b2": dlogits.sum(axis=0)}
    dh = _pool2_backward((dlogits @ p["w2"].T).reshape(pooled.shape), is_max)
    _, grads["w1"], grads["b1"] = conv.bwd(dh * (a > 0), cache, x.shape, p["w1"].shape)
    return loss, grads


def train_conv_net(conv_forward: Callable, conv_backward: Callable,
                   data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], *, filters: int = 8,
                   kernel: int = 5, epochs: int = 6, batch: int = 50, lr: float = 0.05,
                   momentum: float = 0.9, seed: int = 0) -> ConvNetRun:
    """Train conv(filters, kernel×kernel, 'same' padding) → ReLU → 2×2 pool → affine → softmax.

    Inputs: the student's convolution forward and backward; data — digits_split()'s X_train
    (N, 64), y_train, X_val, y_val (reshaped to (N, 1, 8, 8) here); kernel odd; SGD with momentum.
    Returns a ConvNetRun. Raises NotReady when the student's functions are unfinished or broken.
    """
    if kernel % 2 != 1 or not 1 <= kernel <= 7:
        message = _("kernel must be odd, from 1 to 7 ('same' padding), got {kernel}.")
        raise ToolkitInputError(message.format(kernel=repr(kernel)))
    start = time.perf_counter()
    conv = student_conv(conv_forward, conv_backward)
    X_train, y_train, X_val, y_val = data
    X_train, X_val = X_train.reshape(-1, 1, 8, 8), X_val.reshape(-1, 1, 8, 8)
    rng = np.random.default_rng(seed)
    p = _init_net(filters, kernel, int(max(y_train.max(), y_val.max())) + 1, rng)
    w1_init = p["w1"].copy()
    velocity = {k: np.zeros_like(v) for k, v in p.items()}
    losses = []
    for _repeat in range(epochs):
        order = rng.permutation(len(X_train))
        for i in range(0, len(order) - batch + 1, batch):
            idx = order[i:i + batch]
            loss, grads = _net_loss(conv, p, X_train[idx], y_train[idx], kernel // 2)
            losses.append(loss)
            for k in p:
                velocity[k] = momentum * velocity[k] - lr * grads[k]
                p[k] = p[k] + velocity[k]

    def accuracy(X: np.ndarray, y: np.ndarray) -> float:
        return float(np.mean(_net_loss(conv, p, X, None, kernel // 2)[0].argmax(axis=1) == y))

    return ConvNetRun(np.array(losses), accuracy(X_train, y_train), accuracy(X_val, y_val), p["w1"].copy(),
                      time.perf_counter() - start, w1_init)


# ----------------------------------------------------------------------------- gradients as pictures


def central_unit(size: int, kernel: int, stride: int, pad: int, layers: int, out_size: int) -> int:
    """The row (and column) of the unit of the last layer's map (out_size wide) whose receptive field
    is centred nearest the middle of the size×size input, for `layers` stacked identical convolutions.

    Unit i of a layer reads the previous map's rows i·stride − pad ... i·stride − pad + kernel − 1,
    centred on i·stride − pad + (kernel − 1)/2; composing that map `layers` times gives the centre in
    input pixels. Ties go to the smaller index. With a stride, the middle index (out_size − 1) // 2
    of the last map can sit far from the middle of the input (the left-over rows are at the end).
    """
    def centre(i: float) -> float:
        for _repeat in range(layers):
            i = i * stride - pad + (kernel - 1) / 2
        return i

    middle = (size - 1) / 2
    return min(range(out_size), key=lambda i: (abs(centre(i) - middle), i))


def unit_input_gradient(conv_forward: Callable, conv_backward: Callable, size: int, kernel: int,
                        stride: int = 1, pad: int = 0, layers: int = 1,
                        in_view: bool = False) -> tuple[np.ndarray, list[tuple]]:
    """|∂out/∂x| for the central unit (`central_unit`) of the last of `layers` stacked 1-channel
    convolutions.

    Every kernel is all ones (so the gradient counts the paths from each pixel to the unit),
    biases 0, input size×size. Returns (the (size, size) gradient image, the output shape of
    every layer). Raises NotReady when a layer's output would be empty or the student's code fails
    (in_view: its messages worded for a widget).
    """
    conv = student_conv(conv_forward, conv_backward, in_view)
    w = np.ones((1, 1, kernel, kernel))
    b = np.zeros(1)
    x = np.random.default_rng(0).normal(size=(1, 1, size, size))
    caches, shapes = [], []
    for _layer in range(layers):
        try:
            conv_out_shape(x.shape, w.shape, stride, pad)
        except ToolkitInputError:
            raise NotReady(_("after {count} layer(s) the map is {height}×{width}: a "
                             "{kernel}×{kernel} kernel with padding {pad} no longer fits. Fewer layers "
                             "or a larger input.").format(
                count=len(shapes), height=x.shape[2], width=x.shape[3], kernel=kernel, pad=pad)) from None
        out, cache = conv.fwd(x, w, b, stride, pad)
        caches.append((cache, x.shape))
        shapes.append(out.shape)
        x = out
    dout = np.zeros(x.shape)
    unit = central_unit(size, kernel, stride, pad, layers, x.shape[2])
    dout[0, 0, unit, unit] = 1.0
    for cache, x_shape in reversed(caches):
        dout = conv.bwd(dout, cache, x_shape, w.shape)[0]
    return np.abs(dout[0, 0]), shapes


def pool_routing(pool_forward: Callable, pool_backward: Callable, x: np.ndarray,
                 pool_param: Mapping[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(out, dx) of the student's max pool on x (N, C, H, W) with dout all ones.

    dx shows where the gradient goes: the count of windows whose maximum each pixel is.
    Raises NotReady when the student's functions are unfinished or broken.
    """
    ph, pw, s = (int(pool_param[k]) for k in ("pool_height", "pool_width", "stride"))
    n, c, h, w = x.shape
    shape = (n, c, 1 + (h - ph) // s, 1 + (w - pw) // s)
    what = f"max_pool_forward_naive(x of shape {fmt_shape(x.shape)}, {dict(pool_param)})"
    out, cache = _pair(_call(pool_forward, "max_pool_forward_naive", x.copy(), dict(pool_param)), what)
    out = student_array(out, shape, f"the out of {what}")
    dx = _call(pool_backward, "max_pool_backward_naive", np.ones(shape), cache)
    return out, student_array(dx, x.shape, returned_by("max_pool_backward_naive", "dx"))


def compare_convs(first: tuple[Callable, Callable], second: tuple[Callable, Callable], x: np.ndarray,
                  w: np.ndarray, b: np.ndarray, conv_param: Mapping[str, int],
                  seed: int = 0) -> dict[str, float]:
    """Relative errors (CS231n's) between two convolutions' out, dx, dw and db on the same input.

    Inputs: first, second — (forward, backward) pairs; x, w, b, conv_param — the convolution;
    dout is seeded. Raises NotReady when either implementation is unfinished or broken.
    """
    from ...numgrad import rel_error

    stride, pad = int(conv_param["stride"]), int(conv_param["pad"])
    dout = np.random.default_rng(seed).normal(size=conv_out_shape(x.shape, w.shape, stride, pad))
    results = []
    for forward, backward in (first, second):
        conv = student_conv(forward, backward)
        out, cache = conv.fwd(x, w, b, stride, pad)
        results.append((out, *conv.bwd(dout, cache, x.shape, w.shape)))
    names = ("out", "dx", "dw", "db")
    return {name: float(rel_error(a, c)) for name, a, c in zip(names, *results, strict=True)}


def transposed_conv(conv_forward: Callable, conv_backward: Callable, x: np.ndarray, w: np.ndarray,
                    b: np.ndarray, conv_param: Mapping[str, int], seed: int = 0) -> dict[str, Any]:
    """The student's dx next to PyTorch's transposed convolution of dout with the same filters.

    Inputs: the student's convolution (forward, backward); x (N, C, H, W), w (F, C, HH, WW), b (F,),
    conv_param; dout is seeded. `conv_transpose2d(dout, w, stride, padding, output_padding)` has
    (H' − 1)·stride − 2·pad + HH + output_padding rows: output_padding is the (H + 2·pad − HH) % stride
    rows (and columns) no window reached, which it adds as zeros.
    Returns {"output_padding": (rows, cols), "without": the shape conv_transpose2d gives with
    output_padding 0, "error": rel_error(student's dx, conv_transpose2d with output_padding)}.
    Raises NotReady when the student's functions are unfinished or broken.
    """
    import torch
    import torch.nn.functional as F

    from ...numgrad import rel_error

    stride, pad = int(conv_param["stride"]), int(conv_param["pad"])
    dout = np.random.default_rng(seed).normal(size=conv_out_shape(x.shape, w.shape, stride, pad))
    conv = student_conv(conv_forward, conv_backward)
    _, cache = conv.fwd(x, w, b, stride, pad)
    dx = conv.bwd(dout, cache, x.shape, w.shape)[0]
    extra = tuple((n + 2 * pad - k) % stride for n, k in zip(x.shape[2:], w.shape[2:], strict=True))
    dt, wt = torch.from_numpy(dout), torch.from_numpy(w)
    without = tuple(F.conv_transpose2d(dt, wt, stride=stride, padding=pad).shape)
    full = F.conv_transpose2d(dt, wt, stride=stride, padding=pad, output_padding=extra).numpy()
    return {"output_padding": extra, "without": without, "error": float(rel_error(dx, full))}


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
