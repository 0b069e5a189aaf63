"""The attention lesson's checks: the student's functions against PyTorch, and the mistakes named.

Every check prints the toolkit's ✓/✗ line (`check_close`). When a value is wrong and equals,
to 1e-8, what a known mistake gives (`SLIPS`: each recomputed here in NumPy with that one mistake),
the check shows the hint for it (`show_hint`, code `attention-...`) and raises CheckFailed with it.
A backward is compared with the true gradient of the layer (PyTorch's autograd), and only once
the student's forward matches PyTorch (`forward_first`).

The checks are handed the student's functions as the lesson declares them (`graded.<name>`, see
`grader.exercise`): that call refuses PyTorch and every referee, this module's own NumPy
recomputations (`_weights`, `_attention_grads`) included, and names an argument changed in place.
So the checks hand over the problem's own arrays, never copies: what the brief says about inputs is
enforced in the visible check as in the hidden tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...by_hand import forward_first
from ...checks import check_close
from ...errors import CheckFailed
from ...i18n import N_
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
    "block-no-residual-grad": "a transformer block's dx without the gradient a skip connection passes "
    "straight through (lesson 12).",
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
    "block-no-residual-grad": N_(
        "your dx lacks the gradient that flows straight through a skip "
        "connection: h = x + MHA(LN1(x)) sends dh to x unchanged, and out = h + FFN(...) sends dout to h."
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


def _explain(
    err: CheckFailed, actual: Any, shape: tuple[int, ...], slips: Sequence[tuple[str, Callable[[], Any]]]
) -> None:
    """Raise `err`, with the hint of the first slip (code, what that mistake gives) `actual` equals;
    several slips may share a code (variants of one mistake)."""
    __tracebackhide__ = True
    try:
        mine = as_array(actual, "your value", shape=shape)
    except CheckFailed:
        raise err from None
    for code, value in slips:
        with np.errstate(all="ignore"):
            wrong = np.asarray(value(), dtype=np.float64)
        if wrong.shape == mine.shape and np.isfinite(wrong).all() and rel_error(mine, wrong) < 1e-8:
            show_hint(_(SLIPS[code]), code)
            raise CheckFailed(f"{err} — {_(SLIPS[code])}", results=err.results) from None
    raise err from None


def _attention_out(attention_forward: Callable, p: Mapping[str, Any]) -> tuple[Any, Any]:
    __tracebackhide__ = True
    args, mask = [p["q"], p["k"], p["v"]], p.get("mask")
    result = attention_forward(*args) if mask is None else attention_forward(*args, mask)
    return tuple(as_items(result, "attention_forward's result", 2, ("out", "cache")))


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
    try:
        check_close(label, out, expected, kind="value")
    except CheckFailed as err:
        _explain(err, out, expected.shape, slips)


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
    forward_first(out, reference, "attention_forward's out", "scaled dot-product attention")
    grads = as_items(
        attention_backward(dout, cache),
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
    try:
        check_close(label or name, actual, true[name], tol=tol)
    except CheckFailed as err:
        _explain(err, actual, true[name].shape, slips)


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
    check_close(
        f"causal_mask({T})", as_array(plain, f"causal_mask({T})", shape=(T, T)), np.tri(T), kind="value"
    )


MHA_INPUTS = ("x", "Wq", "Wk", "Wv", "Wo")
MHA_GRADS = ("dx", "dWq", "dWk", "dWv", "dWo")


def _mha_out(mha_forward: Callable, p: Mapping[str, Any]) -> tuple[Any, Any]:
    __tracebackhide__ = True
    mask = p.get("mask")
    args = [*(p[n] for n in MHA_INPUTS), p["num_heads"]]
    result = mha_forward(*args) if mask is None else mha_forward(*args, mask)
    return tuple(as_items(result, "multihead_attention_forward's result", 2, ("out", "cache")))


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
    try:
        check_close(label, out, expected, kind="value")
    except CheckFailed as err:
        _explain(err, out, expected.shape, [("mha-bare-reshape", lambda: _bare_reshape_mha(p))])


def check_mha_backward(
    name: str, mha_forward: Callable, mha_backward: Callable, p: Mapping[str, Any], tol: float = 1e-7
) -> None:
    """One gradient of your multihead_attention_backward against nn.MultiheadAttention's autograd."""
    __tracebackhide__ = True
    out, cache = _mha_out(mha_forward, p)
    args = [p[n] for n in MHA_INPUTS]
    reference, true = torch_mha(*args, p["num_heads"], p.get("mask"), dout=p["dout"])
    forward_first(out, reference, "multihead_attention_forward's out", "nn.MultiheadAttention")
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

    try:
        check_close(name, actual, true[name], tol=tol)
    except CheckFailed as err:
        _explain(err, actual, true[name].shape, [("mha-one-path", one_path_dx)] if name == "dx" else [])


def check_gelu_forward(gelu_forward: Callable, x: np.ndarray, label: str = "out") -> None:
    """Your gelu_forward's out against F.gelu(x, approximate="tanh")."""
    __tracebackhide__ = True
    out = as_items(gelu_forward(x), "gelu_forward's result", 2, ("out", "cache"))[0]
    check_close(label, out, torch_gelu(x), kind="value")


def check_gelu_backward(
    gelu_forward: Callable, gelu_backward: Callable, x: np.ndarray, dout: np.ndarray, label: str = "dx"
) -> None:
    """Your gelu_backward's dx against the true gradient of the tanh-approximated GELU."""
    __tracebackhide__ = True
    out, cache = as_items(gelu_forward(x), "gelu_forward's result", 2, ("out", "cache"))
    reference, true = torch_gelu(x, dout=dout)
    # 1 + tanh(u) loses digits for x << 0: correct forms differ by ~1e-8 there (check_gelu_forward's tol)
    forward_first(out, reference, "gelu_forward's out", "GELU (tanh approximation)", tol=1e-7)
    dx = as_array(gelu_backward(dout, cache), "gelu_backward's dx", shape=x.shape)
    # Where the slope is tiny (x < -5) the brief's 0.5 (1 + tanh u) cancels: a correct formula is
    # then off by a few float64 roundings of the terms it adds, |x| (1 + x²) |dout| eps at most, which
    # the relative error (floored at 1e-8) would blow up. Differences within 64 times that count as none.
    rounding = 64 * np.finfo(np.float64).eps * (1 + np.abs(x) * (1 + x**2)) * np.abs(dout)
    dx = np.where(np.abs(dx - true) <= rounding, true, dx)

    def no_cubic() -> np.ndarray:
        c = np.sqrt(2 / np.pi)
        t = np.tanh(c * (x + 0.044715 * x**3))
        return dout * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * c)

    try:
        check_close(label, dx, true, tol=1e-7)
    except CheckFailed as err:
        _explain(err, dx, true.shape, [("gelu-no-cubic", no_cubic)])


def _block_out(block_forward: Callable, x: np.ndarray, params: Mapping[str, np.ndarray], heads: int):
    __tracebackhide__ = True
    return as_items(
        block_forward(x, params, heads),
        "transformer_block_forward's result",
        2,
        ("out", "cache"),
    )


def check_block_forward(
    block_forward: Callable, x: np.ndarray, params: Mapping[str, np.ndarray], heads: int, label: str = "out"
) -> None:
    """Your transformer_block_forward's out against the PyTorch block (pre-LN, causal)."""
    __tracebackhide__ = True
    out = _block_out(block_forward, x, params, heads)[0]
    check_close(label, out, torch_block(x, params, heads), kind="value")


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
    forward_first(out, reference, "transformer_block_forward's out", "the transformer block")
    dx, grads = as_items(
        block_backward(dout, cache),
        "transformer_block_backward's result",
        2,
        ("dx", "grads"),
    )
    for name in names:
        if name == "dx":
            try:
                check_close("dx", dx, true_dx, tol=tol)
            except CheckFailed as err:
                # the gradient not sent straight through the first skip, the second, or either
                slips = [
                    (
                        "block-no-residual-grad",
                        lambda skips=skips: torch_block(x, params, heads, dout=dout, skip_grad=skips)[1],
                    )
                    for skips in ((False, False), (False, True), (True, False))
                ]
                _explain(err, dx, x.shape, slips)
        else:
            mine = as_dict(grads, "transformer_block_backward's grads", keys=BLOCK_KEYS)
            check_close(f"grads['{name}']", mine[name], true[name], tol=tol)


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
