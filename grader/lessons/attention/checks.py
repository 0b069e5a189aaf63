"""The attention lesson's checks: the student's functions against PyTorch, and the mistakes named.

Every check prints the toolkit's ✓/✗ line (`compare`, `report`). When a value is wrong and equals,
to 1e-8, what a known mistake gives (`SLIPS`: each recomputed here, in NumPy or in PyTorch, with
that one mistake), the line's hint is the one for that mistake (code `attention-...`, `block-...`),
in place of the toolkit's generic one (which would read a missing 1/sqrt(4) as "twice too big: a
difference divided by h instead of 2h?"), and CheckFailed carries it. A backward is compared with
the true gradient of the layer (PyTorch's autograd), and only once the student's forward matches
PyTorch (`forward_first`, which names a block whose layer norms sit in the wrong place).

The checks are handed the student's functions as the lesson declares them (`graded.<name>`, see
`grader.exercise`): that call refuses PyTorch and every referee, this module's own NumPy
recomputations (`_weights`, `_attention_grads`) included, and names an argument changed in place.
So the checks hand over the problem's own arrays, never copies: what the brief says about inputs is
enforced in the visible check as in the hidden tests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...by_hand import forward_first
from ...checks import compare, report
from ...errors import CheckFailed
from ...hints import Hint, hint_args
from ...i18n import N_, returned_by
from ...i18n import lesson_text as _
from ...numgrad import rel_error
from ...referees import referee, referee_all
from ...report_lines import show_hint
from ...trusted import as_array, as_dict, as_items, plain_ndarray
from .reference import (
    BLOCK_KEYS,
    layernorm_backward,
    layernorm_forward,
    torch_attention,
    torch_block,
    torch_gelu,
    torch_mha,
)

__all__ = [
    "SLIPS",
    "check_attention_backward",
    "check_attention_forward",
    "check_block_backward",
    "check_block_forward",
    "check_causal_mask",
    "check_gelu_backward",
    "check_gelu_forward",
    "check_mha_backward",
    "check_mha_forward",
    "layernorm_backward",  # lesson 8's layer norm, given to the student: re-exported for the setup cell
    "layernorm_forward",
]

#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "attention-no-scale": "attention scores q kᵀ without the 1/sqrt(d) (lesson 12).",
    "attention-scale-d": "attention scores divided by d instead of sqrt(d) (lesson 12).",
    "attention-softmax-queries": "an attention softmax normalised over the queries (axis -2) instead of the "
    "keys (lesson 12).",
    "attention-mask-after-softmax": "a mask applied to the attention weights after the softmax, so rows no "
    "longer sum to 1 (lesson 12).",
    "attention-mask-inverted": "a boolean mask read as nn.MultiheadAttention's attn_mask (True = hidden) "
    "where True means may attend (lesson 12).",
    "attention-softmax-sum-term": "an attention backward whose softmax step is w * dw, the row-wise "
    "−w·Σ(w·dw) term missing (lesson 12).",
    "attention-backward-scale": "an attention backward without the 1/sqrt(d) of the scores in dq or dk "
    "(grader.lessons.attention.checks).",
    "attention-no-transpose": "an attention backward missing a transpose in dk or dv, right-shaped only "
    "when T == S (lesson 12).",
    "mha-bare-reshape": "multi-head attention whose heads are cut by a bare reshape to (N, H, T, dh) "
    "(grader.lessons.attention.checks).",
    "mha-one-path": "a multi-head attention dx holding only the path through the queries, not those through "
    "k and v (lesson 12).",
    "gelu-no-cubic": "a GELU slope without the derivative of the cubic term 0.044715 x³ (lesson 12).",
    "gelu-exact-erf": "the exact GELU x·Φ(x) (erf form) where the lesson asks for the tanh approximation "
    "(lesson 12).",
    "gelu-exact-erf-slope": "a GELU slope of the exact GELU, Φ(x) + x·φ(x) (erf form), where the lesson's "
    "GELU is the tanh approximation (lesson 12).",
    "block-no-residual-grad": "a transformer block's backward without the gradient a skip connection passes "
    "straight through (dx = LN1'(...) only, or dh without dout) (lesson 12).",
    "block-post-ln": "a transformer block written post-LN, LN(x + sublayer(x)), where the lesson's block is "
    "pre-LN, x + sublayer(LN(x)) (lesson 12).",
    "block-skip-after-ln": "a transformer block whose skip connection leaves after the layer norm, "
    "LN(x) + sublayer(LN(x)) (lesson 12).",
    "block-skip-grad-through-ln": "a transformer block's backward that sends a skip connection's gradient "
    "through the layer norm's backward (lesson 12).",
    "attention-batch-transpose": "an attention forward or backward that transposes with .T, which reverses "
    "the batch axes too: a matrix product then refuses its operands (lesson 12).",
    "causal-mask-upper": "a causal mask that is the upper triangle (each query reading the later positions) "
    "(lesson 12).",
}

#: code -> the hint shown when a value equals what that mistake gives.
SLIPS: dict[str, str] = {
    "attention-no-scale": N_("your scores are q kᵀ without the division by sqrt(d), d = q.shape[-1]."),
    "attention-scale-d": N_("your scores are divided by d; the scale is 1/sqrt(d)."),
    "attention-softmax-queries": N_(
        "your softmax normalises over the queries (axis -2): each query's "
        "weights must sum to 1 over the keys, the last axis."
    ),
    "attention-mask-after-softmax": N_(
        "your mask zeroes weights after the softmax, so a row's weights no "
        "longer sum to 1: mask the scores (with -inf) before the softmax."
    ),
    "attention-mask-inverted": N_(
        "your mask is read PyTorch's nn.MultiheadAttention way (True = hidden); "
        "here True means a query MAY attend to that key."
    ),
    "attention-softmax-sum-term": N_(
        "your softmax backward is w * dw: the weights of a row sum to 1, so "
        "raising one lowers the others, and the term −w · Σ(w * dw) over the row is missing."
    ),
    "attention-backward-scale": N_(
        "your gradient lacks the 1/sqrt(d) of the scores: it reaches q and k "
        "through s = q kᵀ / sqrt(d)."
    ),
    "attention-no-transpose": N_(
        "a product in your backward misses a transpose: dk comes from dsᵀ q and dv "
        "from wᵀ dout (it only has the right shape when T == S)."
    ),
    "mha-bare-reshape": N_(
        "your heads are cut by a bare reshape to (N, H, T, dh): head h must hold columns "
        "h·dh:(h+1)·dh of every position; reshape to (N, T, H, dh), then move the head axis forward."
    ),
    "mha-one-path": N_(
        "your dx holds only the path through q: x also feeds k and v, and the three "
        "paths add up (lesson 2)."
    ),
    "gelu-no-cubic": N_(
        "your GELU slope forgets the cubic term: u = sqrt(2/π)(x + 0.044715 x³) has "
        "du/dx = sqrt(2/π)(1 + 3·0.044715 x²)."
    ),
    "gelu-exact-erf": N_(
        "yours is the exact GELU, x·Φ(x) = 0.5 x (1 + erf(x/√2)) (erf form); this lesson's GELU is "
        "its tanh approximation, 0.5 x (1 + tanh(sqrt(2/π)(x + 0.044715 x³))), as in GPT-2 and "
        "F.gelu(x, approximate=\"tanh\"). The two differ by up to 5e-4."
    ),
    "gelu-exact-erf-slope": N_(
        "your slope is that of the exact GELU x·Φ(x) (erf form), Φ(x) + x·φ(x); this "
        "lesson's GELU is the tanh approximation your gelu_forward computes: its slope is the "
        "derivative of that form."
    ),
    "block-no-residual-grad": N_(
        "your gradient lacks what flows straight through a skip connection: "
        "out = h + MLP(LN2(h)) sends dout to h unchanged, so dh is dout plus the MLP branch's gradient, "
        "and h = x + MHA(LN1(x)) sends dh to x unchanged."
    ),
    "block-post-ln": N_(
        "your block is post-LN, LN(x + sublayer(x)), the layer norm after each "
        "residual addition (the 2017 Transformer's layout). This block is pre-LN, as in GPT-2: each "
        "sublayer reads a normalised copy, and the sum x + sublayer(LN(x)) is not normalised."
    ),
    "block-skip-after-ln": N_(
        "your skip connection leaves after the layer norm, LN(x) + sublayer(LN(x)): "
        "the residual stream carries x itself, un-normalised, so h = x + MHA(LN1(x))."
    ),
    "block-skip-grad-through-ln": N_(
        "your backward sends the skip connection's gradient through "
        "layernorm_backward too: the skip adds x itself, not LN(x), so dout reaches h, and dh reaches x, "
        "unchanged; only the sublayer's gradient goes back through the layer norm."
    ),
    "attention-batch-transpose": N_(
        "with batch axes, a .T (or np.transpose) reverses every axis, the batch "
        "axes too, so a matrix product no longer fits: transpose the last two axes only, "
        "np.swapaxes(k, -1, -2)."
    ),
    "causal-mask-upper": N_(
        "your mask is the upper triangle: query t would read the positions after "
        "it. Query t (a row) may read keys 0 to t (the columns up to the diagonal)."
    ),
}

MASKED = -np.inf

def _swap(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


@referee
def _weights(q, k, mask, scale, axis=-1, mask_after=False, invert=False):
    s = q @ _swap(k) * scale
    if mask is not None:
        keep = ~mask if invert else mask
        keep = np.broadcast_to(keep, s.shape)
        if not mask_after:
            s = np.where(keep, s, MASKED)
    with np.errstate(invalid="ignore"):
        e = np.exp(s - s.max(axis=axis, keepdims=True))
        w = e / e.sum(axis=axis, keepdims=True)
    if mask is not None and mask_after:
        w = np.where(keep, w, 0.0)
    return w


@referee
def _attention_grads(q, k, v, mask, dout, scale, sum_term=True, transpose=True):
    w = _weights(q, k, mask, 1 / np.sqrt(q.shape[-1]))
    dw = dout @ _swap(v)
    ds = w * (dw - (w * dw).sum(axis=-1, keepdims=True)) if sum_term else w * dw
    if transpose:
        return {"dq": ds @ k * scale, "dk": _swap(ds) @ q * scale, "dv": _swap(w) @ dout}
    return {"dq": ds @ k * scale, "dk": ds @ q * scale, "dv": w @ dout}


def _slip(actual: Any, shape: tuple[int, ...], slips: Sequence[tuple[str, Callable[[], Any]]]) -> str | None:
    """The code of the first slip (code, what that mistake gives) `actual` equals to 1e-8, or None;
    several slips may share a code (variants of one mistake)."""
    try:
        mine = as_array(actual, "your value", shape=shape)
    except CheckFailed:
        return None
    for code, value in slips:
        try:  # a slip whose arithmetic does not fit this problem's shapes is not this mistake
            with np.errstate(all="ignore"):
                wrong = np.asarray(value(), dtype=np.float64)
        except (ValueError, IndexError):
            continue
        if wrong.shape == mine.shape and np.isfinite(wrong).all() and rel_error(mine, wrong) < 1e-8:
            return code
    return None


def _check(
    label: str,
    actual: Any,
    expected: np.ndarray,
    slips: Sequence[tuple[str, Callable[[], Any]]] = (),
    tol: float = 1e-7,
    kind: str | None = None,
) -> None:
    """check_close's ✓/✗ line for `actual` against `expected`; when it fails and `actual` equals a
    slip, the line's hint is that slip's, not the toolkit's generic one. Raises CheckFailed."""
    __tracebackhide__ = True
    args = hint_args(expected.shape, **({} if kind is None else {"kind": kind}))
    result, line = compare(label, actual, expected, tol=tol, args=args)
    if not result.passed:
        code = _slip(actual, expected.shape, slips)
        if code is not None:
            result = replace(result, hint=Hint(code, _(SLIPS[code])))
    report([(result, line)])


def _batched(call: Callable[[], Any], what: str, q: np.ndarray) -> Any:
    """call(), a student's function run on q (..., T, d); when q has batch axes and a matrix product
    inside refuses its operands' shapes, the likely cause is named: a .T that reversed the batch axes."""
    __tracebackhide__ = True
    try:
        return call()
    except ValueError as err:
        if q.ndim <= 2 or "matmul" not in str(err):
            raise
        hint = _(SLIPS["attention-batch-transpose"])
        show_hint(hint, "attention-batch-transpose")
        raise CheckFailed(_("{what} raised on q of shape {shape}: {hint} (NumPy's error: {error})").format(
            what=what, shape=q.shape, hint=hint, error=f"{type(err).__name__}: {err}")) from None


def _attention_out(attention_forward: Callable, p: Mapping[str, Any]) -> tuple[Any, Any]:
    __tracebackhide__ = True
    args, mask = [p["q"], p["k"], p["v"]], p.get("mask")
    result = _batched(lambda: attention_forward(*args) if mask is None else attention_forward(*args, mask),
                      "attention_forward", p["q"])
    return tuple(as_items(result, returned_by("attention_forward"), 2, ("out", "cache")))


def check_attention_forward(attention_forward: Callable, p: Mapping[str, Any], label: str = "out") -> None:
    """Your attention_forward's out for the problem p (q, k, v, optional mask) against PyTorch's
    scaled_dot_product_attention."""
    __tracebackhide__ = True
    out = _attention_out(attention_forward, p)[0]
    q, k, v, mask = p["q"], p["k"], p["v"], p.get("mask")
    expected = torch_attention(q, k, v, mask)
    d = q.shape[-1]
    slips = [
        ("attention-no-scale", lambda: _weights(q, k, mask, 1.0) @ v),
        ("attention-scale-d", lambda: _weights(q, k, mask, 1 / d) @ v),
        ("attention-softmax-queries", lambda: _weights(q, k, mask, d**-0.5, axis=-2) @ v),
    ]
    if mask is not None:
        slips += [
            ("attention-mask-after-softmax", lambda: _weights(q, k, mask, d**-0.5, mask_after=True) @ v),
            ("attention-mask-inverted", lambda: _weights(q, k, mask, d**-0.5, invert=True) @ v),
        ]
    _check(label, out, expected, slips, kind="value")


def check_attention_backward(
    name: str,
    attention_forward: Callable,
    attention_backward: Callable,
    p: Mapping[str, Any],
    tol: float = 1e-7,
    label: str | None = None,
) -> None:
    """One of dq, dk, dv of your attention_backward for the problem p (with dout) against the true
    gradient (PyTorch's autograd of scaled_dot_product_attention), your forward matching first;
    `label` names the ✓/✗ line (default: the gradient's name)."""
    __tracebackhide__ = True
    q, k, v, mask, dout = p["q"], p["k"], p["v"], p.get("mask"), p["dout"]
    out, cache = _attention_out(attention_forward, p)
    reference, true = torch_attention(q, k, v, mask, dout=dout)
    forward_first(out, reference, returned_by("attention_forward", "out"), _("scaled dot-product attention"))
    grads = as_items(
        _batched(lambda: attention_backward(dout, cache), "attention_backward", q),
        "attention_backward's result",
        3,
        ("dq", "dk", "dv"),
    )
    actual = grads[("dq", "dk", "dv").index(name)]
    scale = 1 / np.sqrt(q.shape[-1])

    def slip(**mistake: Any) -> Callable[[], Any]:
        return lambda: _attention_grads(q, k, v, mask, dout, **{"scale": scale, **mistake})[name]

    slips = [
        ("attention-softmax-sum-term", slip(sum_term=False)),
        ("attention-backward-scale", slip(scale=1.0)),
        ("attention-no-transpose", slip(transpose=False)),
    ]
    _check(label or name, actual, true[name], slips, tol=tol)


def check_causal_mask(causal_mask: Callable, T: int) -> None:
    """Your causal_mask(T) against the lower triangle of a (T, T) boolean array, diagonal included."""
    __tracebackhide__ = True
    got = causal_mask(T)
    plain = plain_ndarray(got)
    if plain is None or plain.dtype != np.bool_:
        kind = _("nothing numeric") if plain is None else _("an array of {dtype}").format(dtype=plain.dtype)
        raise CheckFailed(
            _(
                "causal_mask({T}) must return a boolean array (True where attending is allowed), got {kind}"
            ).format(T=T, kind=kind)
        )
    mask = as_array(plain, f"causal_mask({T})", shape=(T, T))
    _check(f"causal_mask({T})", mask, np.tri(T), [("causal-mask-upper", lambda: np.tri(T).T)], kind="value")


MHA_INPUTS = ("x", "Wq", "Wk", "Wv", "Wo")
MHA_GRADS = ("dx", "dWq", "dWk", "dWv", "dWo")


def _mha_out(mha_forward: Callable, p: Mapping[str, Any]) -> tuple[Any, Any]:
    __tracebackhide__ = True
    mask = p.get("mask")
    args = [*(p[n] for n in MHA_INPUTS), p["num_heads"]]
    result = mha_forward(*args) if mask is None else mha_forward(*args, mask)
    return tuple(as_items(result, returned_by("multihead_attention_forward"), 2, ("out", "cache")))


def _bare_reshape_mha(p: Mapping[str, Any]) -> np.ndarray:
    x, heads = p["x"], p["num_heads"]
    n, steps, dim = x.shape

    def split(w: np.ndarray) -> np.ndarray:
        return (x @ w).reshape(n, heads, steps, dim // heads)

    w = _weights(split(p["Wq"]), split(p["Wk"]), p.get("mask"), (dim // heads) ** -0.5)
    return (w @ split(p["Wv"])).reshape(n, steps, dim) @ p["Wo"]


def check_mha_forward(mha_forward: Callable, p: Mapping[str, Any], label: str = "out") -> None:
    """Your multihead_attention_forward's out for the problem p against torch.nn.MultiheadAttention."""
    __tracebackhide__ = True
    out = _mha_out(mha_forward, p)[0]
    expected = torch_mha(*(p[n] for n in MHA_INPUTS), p["num_heads"], p.get("mask"))
    _check(label, out, expected, [("mha-bare-reshape", lambda: _bare_reshape_mha(p))], kind="value")


def check_mha_backward(
    name: str,
    mha_forward: Callable,
    mha_backward: Callable,
    p: Mapping[str, Any],
    tol: float = 1e-7,
    label: str | None = None,
) -> None:
    """One gradient of your multihead_attention_backward against nn.MultiheadAttention's autograd;
    `label` names the ✓/✗ line (default: the gradient's name)."""
    __tracebackhide__ = True
    out, cache = _mha_out(mha_forward, p)
    args = [p[n] for n in MHA_INPUTS]
    reference, true = torch_mha(*args, p["num_heads"], p.get("mask"), dout=p["dout"])
    forward_first(out, reference, returned_by("multihead_attention_forward", "out"), "nn.MultiheadAttention")
    grads = as_items(
        mha_backward(p["dout"], cache),
        "multihead_attention_backward's result",
        5,
        MHA_GRADS,
    )
    actual = grads[MHA_GRADS.index(name)]

    def one_path_dx() -> np.ndarray:
        mask = p.get("mask")
        return torch_mha(*args, p["num_heads"], mask, dout=p["dout"], query_path_only=True)[1]["dx"]

    slips = [("mha-one-path", one_path_dx)] if name == "dx" else []
    _check(label or name, actual, true[name], slips, tol=tol)


def check_gelu_forward(gelu_forward: Callable, x: np.ndarray, label: str = "out") -> None:
    """Your gelu_forward's out against F.gelu(x, approximate="tanh")."""
    __tracebackhide__ = True
    out = as_items(gelu_forward(x), returned_by("gelu_forward"), 2, ("out", "cache"))[0]
    _check(label, out, torch_gelu(x), [("gelu-exact-erf", lambda: x * _normal_cdf(x))], kind="value")


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    """Φ(x), the standard normal CDF, 0.5 (1 + erf(x/√2)): the exact GELU is x Φ(x)."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * (1 + erf(np.asarray(x, dtype=np.float64) / np.sqrt(2)))


def check_gelu_backward(
    gelu_forward: Callable, gelu_backward: Callable, x: np.ndarray, dout: np.ndarray, label: str = "dx"
) -> None:
    """Your gelu_backward's dx against the true gradient of the tanh-approximated GELU."""
    __tracebackhide__ = True
    out, cache = as_items(gelu_forward(x), returned_by("gelu_forward"), 2, ("out", "cache"))
    reference, true = torch_gelu(x, dout=dout)
    # 1 + tanh(u) loses digits for x << 0: correct forms differ by ~1e-8 there (check_gelu_forward's tol)
    forward_first(out, reference, returned_by("gelu_forward", "out"), _("GELU (tanh approximation)"),
                  tol=1e-7)
    dx = as_array(gelu_backward(dout, cache), returned_by("gelu_backward", "dx"), shape=x.shape)
    # Where the slope is tiny (x < -5) the brief's 0.5 (1 + tanh u) cancels: a correct formula is
    # then off by a few float64 roundings of the terms it adds, |x| (1 + x²) |dout| eps at most, which
    # the relative error (floored at 1e-8) would blow up. Differences within 64 times that count as none.
    rounding = 64 * np.finfo(np.float64).eps * (1 + np.abs(x) * (1 + x**2)) * np.abs(dout)
    dx = np.where(np.abs(dx - true) <= rounding, true, dx)

    def no_cubic() -> np.ndarray:
        c = np.sqrt(2 / np.pi)
        t = np.tanh(c * (x + 0.044715 * x**3))
        return dout * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * c)

    def exact_slope() -> np.ndarray:
        return dout * (_normal_cdf(x) + x * np.exp(-0.5 * x**2) / np.sqrt(2 * np.pi))

    _check(label, dx, true, [("gelu-no-cubic", no_cubic), ("gelu-exact-erf-slope", exact_slope)])


def _block_out(block_forward: Callable, x: np.ndarray, params: Mapping[str, np.ndarray], heads: int):
    __tracebackhide__ = True
    return as_items(
        block_forward(x, params, heads),
        "transformer_block_forward's result",
        2,
        ("out", "cache"),
    )


#: The block written with its layer norms in the wrong place (torch_block's layout), by code: every
#: mix of one such sublayer and one right one too.
_LAYOUTS = {
    "block-post-ln": (("post", "post"), ("post", "pre"), ("pre", "post")),
    "block-skip-after-ln": (("skip_after", "skip_after"), ("skip_after", "pre"), ("pre", "skip_after")),
}


def _layout_slips(x: np.ndarray, params: Mapping[str, np.ndarray], heads: int) -> list[tuple[str, Callable]]:
    return [
        (code, lambda layout=layout: torch_block(x, params, heads, layout=layout))
        for code, layouts in _LAYOUTS.items()
        for layout in layouts
    ]


def check_block_forward(
    block_forward: Callable, x: np.ndarray, params: Mapping[str, np.ndarray], heads: int, label: str = "out"
) -> None:
    """Your transformer_block_forward's out against the PyTorch block (pre-LN, causal); a block whose
    layer norms sit in the wrong place is named."""
    __tracebackhide__ = True
    out = _block_out(block_forward, x, params, heads)[0]
    _check(label, out, torch_block(x, params, heads), _layout_slips(x, params, heads), kind="value")


def _block_backward_slips(
    name: str, x: np.ndarray, params: Mapping[str, np.ndarray], heads: int, dout: np.ndarray
) -> list[tuple[str, Callable]]:
    """What `name` (dx or a key of params) is when a skip connection's gradient is lost, or sent
    through the layer norm's backward: in the first skip, the second, or both."""

    def grad(**mistake: Any) -> Callable[[], np.ndarray]:
        def value() -> np.ndarray:
            _out, dx, grads = torch_block(x, params, heads, dout=dout, **mistake)
            return dx if name == "dx" else grads[name]

        return value

    pairs = ((False, False), (False, True), (True, False))
    return [("block-no-residual-grad", grad(skip_grad=skips)) for skips in pairs] + [
        ("block-skip-grad-through-ln", grad(layout=tuple("pre" if k else "grad_through" for k in skips)))
        for skips in pairs
    ]


def check_block_backward(
    names: tuple[str, ...],
    block_forward: Callable,
    block_backward: Callable,
    x: np.ndarray,
    params: Mapping[str, np.ndarray],
    heads: int,
    dout: np.ndarray,
    tol: float = 1e-7,
) -> None:
    """Some of dx and the grads of your transformer_block_backward against the PyTorch block's autograd
    (names: "dx" and keys of params), your forward matching first."""
    __tracebackhide__ = True
    out, cache = _block_out(block_forward, x, params, heads)
    reference, true_dx, true = torch_block(x, params, heads, dout=dout)
    code = _slip(out, reference.shape, _layout_slips(x, params, heads))
    hint = "" if code is None else _(SLIPS[code])
    advice = hint and " " + hint[0].upper() + hint[1:]
    if hint and rel_error(as_array(out, "your out", shape=reference.shape), reference) > 1e-8:
        show_hint(hint, code)  # the forward is off: forward_first raises, naming the layout
    forward_first(out, reference, returned_by("transformer_block_forward", "out"), _("the transformer block"),
                  advice=advice)
    dx, grads = as_items(
        block_backward(dout, cache),
        "transformer_block_backward's result",
        2,
        ("dx", "grads"),
    )
    for name in names:
        slips = _block_backward_slips(name, x, params, heads, dout)
        if name == "dx":
            _check("dx", dx, true_dx, slips, tol=tol)
        else:
            mine = as_dict(grads, returned_by("transformer_block_backward", "grads"), keys=BLOCK_KEYS)
            _check(f"grads['{name}']", mine[name], true[name], slips, tol=tol)


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
