"""The problem contexts of the hint engine, checked: norm, norm_test, running, optim, lstm,
conv and pool.

`grader.hints.diagnose` (and `check_close`) accept, as keyword context, the problem of which
`expected` is the right answer; the rules of `hint_rules_norm`, `hint_rules_optim`,
`hint_rules_lstm` and `hint_rules_conv` recompute it with one mistake switched on. This module
turns the caller's dicts into frozen dataclasses of finite float64 arrays, or raises a
ToolkitInputError saying what was expected:

- `norm` — {"x": (N, D), "gamma": (D,), "beta": (D,), "dout": (N, D) (optional), "eps": float
  (default 1e-5), "axis": 0 (batchnorm) or 1 (layernorm), default 0}; expected is out or dx
  (N, D), or dgamma or dbeta (D,);
- `norm_test` — {"x": (N, D), "gamma", "beta", "running_mean", "running_var": (D,), "eps"
  (default 1e-5)}; expected is the test-mode batchnorm out (N, D);
- `running` — {"old": S, "batch": S, "momentum": m in [0, 1]}; expected (S) is one update
  m·old + (1 − m)·batch;
- `optim` — {"rule": "sgd_momentum" | "rmsprop" | "adam", "w": S, "grads": K arrays S (a list,
  a tuple or one array (K, *S)), "config": the hyper-parameters passed (optional; missing ones
  take the issue's defaults; the rule's state keys give the initial state)}; expected is the
  trajectory (K, *S) of the K successive next_w;
- `lstm` — a sequence {"x": (N, T, D), "h0": (N, H), "Wx": (D, 4H), "Wh": (H, 4H), "b": (4H,),
  "dh": (N, T, H) (optional)} (initial cell state zeros), or one step {"x": (N, D), "prev_h",
  "prev_c": (N, H), "Wx", "Wh", "b", "dnext_h", "dnext_c": (N, H) (optional, together)}; gate
  order i, f, o, g; expected is h (N, T, H), next_h or next_c (N, H) without the upstream
  gradients, or with them dx, dh0 / dprev_h, dprev_c, dWx, dWh, db;
- `conv` — {"x": (N, C, H, W), "w": (F, C, HH, WW), "b": (F,), "dout": (N, F, H', W')
  (optional), "stride": s ≥ 1, "pad": p ≥ 0}, a cross-correlation with zero padding p on every
  side, H' = 1 + (H + 2p − HH) // s; expected is out, dx, dw or db;
- `pool` — {"x": (N, C, H, W), "dout": (N, C, H', W') (optional), "pool_height",
  "pool_width", "stride"}, a max pool without padding, H' = 1 + (H − pool_height) // stride;
  expected is out or dx.

Unknown keys are refused (a misspelt "epsilon" must not silently become the default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import describe, float64_array, fmt_shape, require_finite
from .errors import ToolkitInputError

__all__ = [
    "OPTIM_DEFAULTS",
    "OPTIM_STATE",
    "NormProblem",
    "NormTestProblem",
    "OptimProblem",
    "RunningProblem",
    "checked_norm",
    "checked_norm_test",
    "checked_optim",
    "checked_running",
    "ConvProblem",
    "LstmProblem",
    "PoolProblem",
    "checked_conv",
    "checked_lstm",
    "checked_pool",
]

#: The hyper-parameters of each update rule and their defaults (issue 14, CS231n's).
OPTIM_DEFAULTS: dict[str, dict[str, float]] = {
    "sgd_momentum": {"learning_rate": 1e-2, "momentum": 0.9},
    "rmsprop": {"learning_rate": 1e-2, "decay_rate": 0.99, "epsilon": 1e-8},
    "adam": {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
}
#: The state each rule keeps in config between calls (arrays shaped like w; adam's t a count).
OPTIM_STATE: dict[str, tuple[str, ...]] = {
    "sgd_momentum": ("velocity",),
    "rmsprop": ("cache",),
    "adam": ("m", "v", "t"),
}


@dataclass(frozen=True)
class NormProblem:
    """A train-mode normalisation layer: x (N, D), gamma and beta (D,), dout (N, D) or None,
    eps ≥ 0; axis — the axis the statistics are taken over: 0 batchnorm, 1 layernorm."""

    x: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    dout: np.ndarray | None
    eps: float
    axis: int


@dataclass(frozen=True)
class NormTestProblem:
    """A test-mode batchnorm forward: x (N, D), gamma, beta, running_mean, running_var (D,), eps."""

    x: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    running_mean: np.ndarray
    running_var: np.ndarray
    eps: float


@dataclass(frozen=True)
class RunningProblem:
    """One running-average update: old and batch (shape S), momentum m in [0, 1]."""

    old: np.ndarray
    batch: np.ndarray
    momentum: float


@dataclass(frozen=True)
class OptimProblem:
    """K steps of an update rule from w (shape S) with grads (K, *S); config holds every
    hyper-parameter (defaults filled in) and the initial state (arrays S, adam's t a float)."""

    rule: str
    w: np.ndarray
    grads: np.ndarray
    config: dict[str, Any]


def _mapping(value: Any, what: str, required: tuple[str, ...], optional: tuple[str, ...]) -> Mapping:
    """value as a mapping with every required key and no unknown one, or ToolkitInputError."""
    __tracebackhide__ = True
    keys = ", ".join(required) + (f" (and optionally {', '.join(optional)})" if optional else "")
    if not isinstance(value, Mapping):
        raise ToolkitInputError(f"{what} must be a dict with {keys}, but got {describe(value)}.")
    missing = [k for k in required if k not in value]
    unknown = sorted(str(k) for k in value if k not in required + optional)
    if missing or unknown:
        problem = (
            f"it lacks {', '.join(missing)}" if missing else f"it has the unknown key(s) {', '.join(unknown)}"
        )
        raise ToolkitInputError(f"{what} must be a dict with {keys}, but {problem}.")
    return value


def _array(value: Any, what: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """A finite float64 array (of `shape`, when given), or ToolkitInputError."""
    __tracebackhide__ = True
    arr = float64_array(value, what)
    require_finite(arr, what)
    if shape is not None and arr.shape != tuple(shape):
        raise ToolkitInputError(
            f"{what} must have shape {fmt_shape(shape)}, but it has shape {fmt_shape(arr.shape)}."
        )
    return arr


def _number(value: Any, what: str, low: float, high: float = np.inf) -> float:
    """A real number in [low, high], or ToolkitInputError."""
    __tracebackhide__ = True
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_)
    if not ok or not np.isfinite(float(value)) or not low <= float(value) <= high:
        span = f"≥ {low:g}" if high == np.inf else f"in [{low:g}, {high:g}]"
        raise ToolkitInputError(f"{what} must be a number {span}, but got {describe(value)}.")
    return float(value)


def _matrix_and_params(
    spec: Mapping, what: str, names: tuple[str, ...]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """x (N, D) and the per-feature arrays `names` (D,) of a norm or norm_test dict."""
    __tracebackhide__ = True
    x = _array(spec["x"], f"{what}['x']")
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ToolkitInputError(
            f"{what}['x'] must be a matrix (N, D), but it has shape {fmt_shape(x.shape)}."
        )
    return x, [_array(spec[k], f"{what}['{k}']", (x.shape[1],)) for k in names]


def _expected_shape(
    shape: tuple[int, ...] | None, allowed: list[tuple[int, ...]], what: str, of: str
) -> None:
    """Raise when expected's shape (None: not known yet) is none of `allowed`."""
    __tracebackhide__ = True
    if shape is not None and tuple(shape) not in allowed:
        shapes = " or ".join(fmt_shape(s) for s in allowed)
        raise ToolkitInputError(
            f"with {what}, expected must be {of}, of shape {shapes}, but it has shape "
            f"{fmt_shape(tuple(shape))}."
        )


def checked_norm(norm: Any, shape: tuple[int, ...] | None = None) -> NormProblem | None:
    """None, or the checked norm problem; shape — expected's, which must be (N, D) or (D,)."""
    __tracebackhide__ = True
    if norm is None:
        return None
    spec = _mapping(norm, "norm", ("x", "gamma", "beta"), ("dout", "eps", "axis"))
    x, (gamma, beta) = _matrix_and_params(spec, "norm", ("gamma", "beta"))
    dout = None if spec.get("dout") is None else _array(spec["dout"], "norm['dout']", x.shape)
    eps = _number(spec.get("eps", 1e-5), "norm['eps']", 0.0)
    axis = spec.get("axis", 0)
    if isinstance(axis, bool | np.bool_) or axis not in (0, 1):
        raise ToolkitInputError(
            f"norm['axis'] must be 0 (batchnorm: statistics over the batch) or 1 (layernorm: over "
            f"each example's features), but got {describe(axis)}."
        )
    _expected_shape(
        shape, [x.shape, gamma.shape], "norm", "out or dx (like x), or dgamma or dbeta (like gamma)"
    )
    return NormProblem(x, gamma, beta, dout, eps, int(axis))


def checked_norm_test(norm_test: Any, shape: tuple[int, ...] | None = None) -> NormTestProblem | None:
    """None, or the checked test-mode batchnorm problem; shape — expected's, which must be x's."""
    __tracebackhide__ = True
    if norm_test is None:
        return None
    names = ("gamma", "beta", "running_mean", "running_var")
    spec = _mapping(norm_test, "norm_test", ("x", *names), ("eps",))
    x, (gamma, beta, mean, var) = _matrix_and_params(spec, "norm_test", names)
    if np.any(var < 0):
        raise ToolkitInputError("norm_test['running_var'] must be ≥ 0 everywhere (it is a variance).")
    eps = _number(spec.get("eps", 1e-5), "norm_test['eps']", 0.0)
    _expected_shape(shape, [x.shape], "norm_test", "the test-mode out (like x)")
    return NormTestProblem(x, gamma, beta, mean, var, eps)


def checked_running(running: Any, shape: tuple[int, ...] | None = None) -> RunningProblem | None:
    """None, or the checked running-average update; shape — expected's, which must be old's."""
    __tracebackhide__ = True
    if running is None:
        return None
    spec = _mapping(running, "running", ("old", "batch", "momentum"), ())
    old = _array(spec["old"], "running['old']")
    batch = _array(spec["batch"], "running['batch']", old.shape)
    momentum = _number(spec["momentum"], "running['momentum']", 0.0, 1.0)
    _expected_shape(shape, [old.shape], "running", "the updated running average (like old)")
    return RunningProblem(old, batch, momentum)


def checked_optim(optim: Any, shape: tuple[int, ...] | None = None) -> OptimProblem | None:
    """None, or the checked optimiser problem; shape — expected's, which must be (K, *w.shape)."""
    __tracebackhide__ = True
    if optim is None:
        return None
    spec = _mapping(optim, "optim", ("rule", "w", "grads"), ("config",))
    rule = spec["rule"]
    if not isinstance(rule, str) or rule not in OPTIM_DEFAULTS:
        raise ToolkitInputError(
            f"optim['rule'] must be one of {', '.join(map(repr, OPTIM_DEFAULTS))}, but got {describe(rule)}"
            f"{f' ({rule!r})' if isinstance(rule, str) else ''}."
        )
    w = _array(spec["w"], "optim['w']")
    grads = _grads(spec["grads"], w.shape)
    config = _config(spec.get("config"), rule, w.shape)
    _expected_shape(
        shape, [(grads.shape[0], *w.shape)], "optim", f"the trajectory of the {grads.shape[0]} next_w"
    )
    return OptimProblem(rule, w, grads, config)


def _grads(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The K gradients as one array (K, *shape): from a list or tuple of arrays, or one array."""
    __tracebackhide__ = True
    if isinstance(value, list | tuple):
        if not value:
            raise ToolkitInputError("optim['grads'] must hold at least one gradient, but it is empty.")
        return np.stack([_array(g, f"optim['grads'][{i}]", shape) for i, g in enumerate(value)])
    grads = _array(value, "optim['grads']")
    if grads.shape[1:] != tuple(shape) or grads.ndim == 0 or grads.shape[0] < 1:
        raise ToolkitInputError(
            f"optim['grads'] must be a list of K arrays shaped like w, {fmt_shape(shape)}, or one array "
            f"(K, *w.shape), but it has shape {fmt_shape(grads.shape)}."
        )
    return grads


def _config(value: Any, rule: str, shape: tuple[int, ...]) -> dict[str, Any]:
    """The rule's hyper-parameters (given, else the defaults) and its initial state (else zeros)."""
    __tracebackhide__ = True
    value = {} if value is None else value
    defaults, state = OPTIM_DEFAULTS[rule], OPTIM_STATE[rule]
    spec = _mapping(value, f"optim['config'] (for {rule})", (), (*defaults, *state))
    config: dict[str, Any] = {}
    for key, default in defaults.items():
        high = 1.0 if key in ("momentum", "decay_rate", "beta1", "beta2") else np.inf
        config[key] = _number(spec.get(key, default), f"optim['config']['{key}']", 0.0, high)
    for key in state:
        if key == "t":
            config["t"] = _number(spec.get("t", 0), "optim['config']['t']", 0.0)
        elif spec.get(key) is None:
            config[key] = np.zeros(shape)
        else:
            config[key] = _array(spec[key], f"optim['config']['{key}']", shape)
    return config


# ----------------------------------------------------------------------------- layers: lstm, conv, pool


@dataclass(frozen=True)
class LstmProblem:
    """An LSTM (gate order i, f, o, g) over T steps from (h0, c0): x (N, T, D), h0 and c0 (N, H),
    wx (D, 4H), wh (H, 4H), b (4H,); dh (N, T, H) and dc (N, H) — the upstream gradients of
    every hidden state and of the last cell state (zeros for a sequence), or None (forward
    only); step — given as one step (x (N, D), prev_h, prev_c, dnext_h, dnext_c), T = 1."""

    x: np.ndarray
    h0: np.ndarray
    c0: np.ndarray
    wx: np.ndarray
    wh: np.ndarray
    b: np.ndarray
    dh: np.ndarray | None
    dc: np.ndarray | None
    step: bool


#: The keys of an lstm dict: (required, optional) for a sequence and for one step.
LSTM_KEYS = {
    False: (("x", "h0", "Wx", "Wh", "b"), ("dh",)),
    True: (("x", "prev_h", "prev_c", "Wx", "Wh", "b"), ("dnext_h", "dnext_c")),
}
_LSTM_FORMS = (
    "x (N, T, D), h0 (N, H), Wx (D, 4H), Wh (H, 4H), b (4H,), dh (N, T, H) for a sequence, or "
    "x (N, D), prev_h, prev_c (N, H), Wx, Wh, b, dnext_h, dnext_c (N, H) for one step"
)


def checked_lstm(lstm: Any, shape: tuple[int, ...] | None = None) -> LstmProblem | None:
    """None, or the checked LSTM problem (one step becomes a sequence of length T = 1); shape —
    expected's, which must be the shape of one of the problem's quantities."""
    __tracebackhide__ = True
    if lstm is None:
        return None
    if not isinstance(lstm, Mapping):
        raise ToolkitInputError(f"lstm must be a dict with {_LSTM_FORMS}, but got {describe(lstm)}.")
    step = "prev_h" in lstm or "prev_c" in lstm
    what = "lstm (one step)" if step else "lstm (a sequence)"
    spec = _mapping(lstm, what, *LSTM_KEYS[step])
    optional = LSTM_KEYS[step][1]
    arr = {k: _array(v, f"lstm['{k}']") for k, v in spec.items() if v is not None or k not in optional}
    if step and ("dnext_h" in arr) != ("dnext_c" in arr):
        raise ToolkitInputError("lstm (one step) needs dnext_h and dnext_c together (or neither).")
    x = arr["x"][:, None, :] if step and arr["x"].ndim == 2 else arr["x"]
    h0 = arr["prev_h" if step else "h0"]
    up = arr.get("dnext_h" if step else "dh")
    if step and up is not None and up.ndim == 2:
        up = up[:, None, :]
    if not _lstm_fits(x, h0, arr, up, step):
        given = ", ".join(f"{k} {fmt_shape(v.shape)}" for k, v in arr.items())
        raise ToolkitInputError(f"the arrays of lstm do not fit together ({given}); expected {_LSTM_FORMS}.")
    c0 = arr["prev_c"] if step else np.zeros_like(h0)
    dc = None if up is None else (arr["dnext_c"] if step else np.zeros_like(h0))
    p = LstmProblem(x, h0, c0, arr["Wx"], arr["Wh"], arr["b"], up, dc, step)
    _expected_shape(shape, _lstm_shapes(p), "lstm", "one of the LSTM's values or gradients")
    return p


def _lstm_fits(x: np.ndarray, h0: np.ndarray, arr: dict, up: np.ndarray | None, step: bool) -> bool:
    """Do the shapes of an lstm dict fit together (x already (N, T, D))?"""
    b, wx, wh = arr["b"], arr["Wx"], arr["Wh"]
    if x.ndim != 3 or (step and arr["x"].ndim != 2) or b.ndim != 1 or b.shape[0] % 4 or not b.size:
        return False
    (n, t, d), h = x.shape, b.shape[0] // 4
    ok = h0.shape == (n, h) and wx.shape == (d, 4 * h) and wh.shape == (h, 4 * h)
    ok = ok and (not step or arr["prev_c"].shape == (n, h))
    if up is not None:
        ok = ok and up.shape == (n, t, h)
        ok = ok and (not step or (arr["dnext_h"].ndim == 2 and arr["dnext_c"].shape == (n, h)))
    return ok and t >= 1


def _lstm_shapes(p: LstmProblem) -> list[tuple[int, ...]]:
    """The shapes of the quantities expected may be: h or next_h/next_c, dx, dh0, dWx, dWh, db."""
    n, t, d = p.x.shape
    values = [(n, p.h0.shape[1])] if p.step else [(n, t, p.h0.shape[1])]
    if p.dh is None:
        return values
    return [*values, (n, d) if p.step else p.x.shape, p.h0.shape, p.wx.shape, p.wh.shape, p.b.shape]


def _integer(value: Any, what: str, low: int) -> int:
    """An int ≥ low (NumPy ints accepted, bools refused), or ToolkitInputError."""
    __tracebackhide__ = True
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or value < low:
        raise ToolkitInputError(f"{what} must be an int ≥ {low}, but got {describe(value)}.")
    return int(value)


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
    spec = _mapping(conv, "conv", ("x", "w", "b", "stride", "pad"), ("dout",))
    x, w = _array(spec["x"], "conv['x']"), _array(spec["w"], "conv['w']")
    stride, pad = _integer(spec["stride"], "conv['stride']", 1), _integer(spec["pad"], "conv['pad']", 0)
    fits = x.ndim == 4 and w.ndim == 4 and w.shape[1] == x.shape[1]
    if not fits or x.shape[2] + 2 * pad < w.shape[2] or x.shape[3] + 2 * pad < w.shape[3]:
        raise ToolkitInputError(
            f"conv['x'] must be (N, C, H, W) and conv['w'] (F, C, HH, WW) with the same C and a kernel "
            f"no larger than the padded input, but they have shapes {fmt_shape(x.shape)} and "
            f"{fmt_shape(w.shape)} (pad {pad})."
        )
    b = _array(spec["b"], "conv['b']", (w.shape[0],))
    p = ConvProblem(x, w, b, None, stride, pad)
    if spec.get("dout") is not None:
        p = ConvProblem(x, w, b, _array(spec["dout"], "conv['dout']", p.out_shape), stride, pad)
    _expected_shape(shape, [p.out_shape, x.shape, w.shape, b.shape], "conv", "out, dx, dw or db")
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
    spec = _mapping(pool, "pool", ("x", "pool_height", "pool_width", "stride"), ("dout",))
    x = _array(spec["x"], "pool['x']")
    ph = _integer(spec["pool_height"], "pool['pool_height']", 1)
    pw = _integer(spec["pool_width"], "pool['pool_width']", 1)
    stride = _integer(spec["stride"], "pool['stride']", 1)
    if x.ndim != 4 or x.shape[2] < ph or x.shape[3] < pw:
        raise ToolkitInputError(
            f"pool['x'] must be (N, C, H, W) with H ≥ pool_height and W ≥ pool_width ({ph} × {pw}), "
            f"but it has shape {fmt_shape(x.shape)}."
        )
    p = PoolProblem(x, None, ph, pw, stride)
    if spec.get("dout") is not None:
        p = PoolProblem(x, _array(spec["dout"], "pool['dout']", p.out_shape), ph, pw, stride)
    _expected_shape(shape, [p.out_shape, x.shape], "pool", "out or dx")
    return p
