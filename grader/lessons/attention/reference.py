"""The attention lesson's referees and test problems: PyTorch in float64, with our conventions.

Our attention: scores = q kᵀ / sqrt(d), masked scores get weight exactly 0, softmax over the keys
(the last axis), out = weights v. `mask` is None or a boolean array broadcastable to (..., T, S),
**True where a query may attend to a key**: PyTorch's boolean `attn_mask` of
`scaled_dot_product_attention` means the same, but `nn.MultiheadAttention`'s boolean `attn_mask`
is the opposite (True = masked), so that referee is handed `~mask`.

Multi-head attention: x (N, T, D), Wq, Wk, Wv, Wo (D, D), no biases, dh = D // H; head h uses
columns h·dh:(h+1)·dh of x Wq, x Wk, x Wv; heads concatenated in head order, then times Wo. It is
`nn.MultiheadAttention(D, H, bias=False, batch_first=True)` with in_proj_weight = cat(Wqᵀ, Wkᵀ,
Wvᵀ) and out_proj.weight = Woᵀ.

The block (pre-LN, causal): h = x + MHA(LN1(x)), out = h + GELU(LN2(h) W1 + b1) W2 + b2, layer norm
over the last axis with biased variance and eps 1e-5, GELU's tanh approximation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import torch
import torch.nn.functional as F

from ...errors import ToolkitInputError
from ...referees import referee, referee_all, refereeing

__all__ = [
    "BLOCK_KEYS",
    "attention_problem",
    "block_problem",
    "layernorm_backward",
    "layernorm_forward",
    "mha_problem",
    "torch_attention",
    "torch_block",
    "torch_block_tensors",
    "torch_gelu",
    "torch_mha",
]

#: The keys of a transformer block's params, in the order the lesson lists them.
BLOCK_KEYS = (
    "ln1_gamma",
    "ln1_beta",
    "Wq",
    "Wk",
    "Wv",
    "Wo",
    "ln2_gamma",
    "ln2_beta",
    "W1",
    "b1",
    "W2",
    "b2",
)
EPS = 1e-5


def _float64(name: str, value: object) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype != np.float64:
        raise ToolkitInputError(f"{name} must be a float64 NumPy array, not {type(value).__name__}")
    return value


def _tensors(*arrays: np.ndarray, grad: bool) -> list[torch.Tensor]:
    return [torch.tensor(a, requires_grad=grad) for a in arrays]


def _backward(out: torch.Tensor, dout: np.ndarray | None) -> bool:
    if dout is None:
        return False
    if dout.shape != tuple(out.shape):
        raise ToolkitInputError(f"dout must have the output's shape {tuple(out.shape)}, not {dout.shape}")
    out.backward(torch.tensor(dout))
    return True


@referee
def torch_attention(q, k, v, mask=None, dout=None):
    """Scaled dot-product attention by `torch.nn.functional.scaled_dot_product_attention`.

    Inputs: q (..., T, d), k (..., S, d), v (..., S, dv), float64; mask None or boolean,
    broadcastable to (..., T, S), True where a query may attend to a key; dout None or (..., T, dv).
    Returns out (..., T, dv); with dout, (out, {"dq", "dk", "dv"}): the gradients of sum(out * dout).
    """
    q, k, v = (_float64(n, a) for n, a in (("q", q), ("k", k), ("v", v)))
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ToolkitInputError(
            f"expected q (..., T, d), k (..., S, d), v (..., S, dv); got {q.shape}, {k.shape}, {v.shape}"
        )
    tq, tk, tv = _tensors(q, k, v, grad=dout is not None)
    attn_mask = None if mask is None else torch.tensor(np.asarray(mask, dtype=bool))
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=attn_mask)
    if not _backward(out, dout):
        return out.detach().numpy()
    return out.detach().numpy(), {"dq": tq.grad.numpy(), "dk": tk.grad.numpy(), "dv": tv.grad.numpy()}


@referee
def torch_mha(x, Wq, Wk, Wv, Wo, num_heads, mask=None, dout=None, query_path_only=False):
    """Our multi-head self-attention by `torch.nn.MultiheadAttention` (bias=False, batch_first).

    Inputs: x (N, T, D), Wq, Wk, Wv, Wo (D, D), num_heads dividing D, mask None or (T, T) boolean
    (True = may attend, handed to PyTorch as ~mask); dout None or (N, T, D); query_path_only — x's
    gradient only through the queries (keys and values read a detached x: a classic mistake).
    Returns out (N, T, D); with dout, (out, {"dx", "dWq", "dWk", "dWv", "dWo"}).
    """
    x = _float64("x", x)
    ws = [_float64(n, w) for n, w in zip(("Wq", "Wk", "Wv", "Wo"), (Wq, Wk, Wv, Wo), strict=True)]
    n_embed = x.shape[-1]
    if any(w.shape != (n_embed, n_embed) for w in ws) or n_embed % num_heads:
        raise ToolkitInputError(
            f"expected x (N, T, D), every W (D, D) and num_heads dividing D; got x "
            f"{x.shape}, W {[w.shape for w in ws]}, num_heads {num_heads}"
        )
    mha = torch.nn.MultiheadAttention(n_embed, num_heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(np.concatenate([w.T for w in ws[:3]])))
        mha.out_proj.weight.copy_(torch.tensor(ws[3].T))
    (tx,) = _tensors(x, grad=dout is not None)
    attn_mask = None if mask is None else torch.tensor(~np.asarray(mask, dtype=bool))
    kv = tx.detach() if query_path_only else tx
    out, _ = mha(tx, kv, kv, attn_mask=attn_mask, need_weights=False)
    if not _backward(out, dout):
        return out.detach().numpy()
    g = mha.in_proj_weight.grad.numpy()
    grads = {
        "dx": tx.grad.numpy(),
        "dWq": g[:n_embed].T.copy(),
        "dWk": g[n_embed : 2 * n_embed].T.copy(),
        "dWv": g[2 * n_embed :].T.copy(),
        "dWo": mha.out_proj.weight.grad.numpy().T.copy(),
    }
    return out.detach().numpy(), grads


@referee
def torch_gelu(x, dout=None):
    """GELU with the tanh approximation, `F.gelu(x, approximate="tanh")`; with dout also dx.

    dx is autograd's gradient of the same function written as x * sigmoid(2u) (0.5 (1 + tanh u) is
    sigmoid(2u)): PyTorch's own GELU backward computes 1 + tanh(u), which loses every digit for
    x < -5, where the slope is below 1e-8; the sigmoid form keeps them."""
    (tx,) = _tensors(_float64("x", x), grad=dout is not None)
    out = F.gelu(tx, approximate="tanh")
    if dout is None:
        return out.detach().numpy()
    u = math.sqrt(2 / math.pi) * (tx + 0.044715 * tx**3)
    _backward(tx * torch.sigmoid(2 * u), dout)
    return out.detach().numpy(), tx.grad.numpy()


@referee
def torch_block_tensors(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    num_heads: int,
    residual: bool,
    skip_grad: tuple[bool, bool] = (True, True),
    layout: tuple[str, str] = ("pre", "pre"),
) -> torch.Tensor:
    """The block on tensors. residual=False drops both skip connections; skip_grad[i] False keeps
    skip i's value but sends no gradient straight through it (h = x + ..., then out = h + ...).
    layout[i] places sublayer i's layer norm (classic mistakes but "pre"): "pre" x + S(LN(x)) (this
    block), "post" LN(x + S(x)) (the 2017 Transformer), "skip_after" LN(x) + S(LN(x)) (the skip
    leaving after the norm), "grad_through" x + S(LN(x)) whose skip sends its gradient through the
    norm's backward (the value of "pre", the gradient of "skip_after")."""
    n, steps, n_embed = x.shape

    def attention(a: torch.Tensor) -> torch.Tensor:
        def heads(w: torch.Tensor) -> torch.Tensor:
            return (a @ w).reshape(n, steps, num_heads, n_embed // num_heads).transpose(1, 2)

        att = F.scaled_dot_product_attention(heads(p["Wq"]), heads(p["Wk"]), heads(p["Wv"]), is_causal=True)
        return att.transpose(1, 2).reshape(n, steps, n_embed) @ p["Wo"]

    def mlp(b: torch.Tensor) -> torch.Tensor:
        return F.gelu(b @ p["W1"] + p["b1"], approximate="tanh") @ p["W2"] + p["b2"]

    def sublayer(i: int, stream: torch.Tensor, inner) -> torch.Tensor:
        def norm(t: torch.Tensor) -> torch.Tensor:
            return F.layer_norm(t, (n_embed,), p[f"ln{i + 1}_gamma"], p[f"ln{i + 1}_beta"], eps=EPS)

        if layout[i] == "post":
            return norm(stream + inner(stream) if residual else inner(stream))
        normed = norm(stream)
        if not residual:
            return inner(normed)
        skips = {"pre": stream, "skip_after": normed, "grad_through": normed + (stream - normed).detach()}
        skip = skips[layout[i]]
        return (skip if skip_grad[i] else skip.detach()) + inner(normed)

    return sublayer(1, sublayer(0, x, attention), mlp)


@referee
def torch_block(
    x, params, num_heads, dout=None, residual=True, skip_grad=(True, True), layout=("pre", "pre")
):
    """The pre-LN causal transformer block in PyTorch (float64).

    Inputs: x (N, T, D); params with BLOCK_KEYS (W1 (D, F), b1 (F,), W2 (F, D), the rest (D, D) or
    (D,)); dout None or (N, T, D); residual=False drops both skip connections (an experiment);
    skip_grad and layout as torch_block_tensors' (classic mistakes of the forward and backward passes).
    Returns out (N, T, D); with dout, (out, dx, grads) with grads keyed like params.
    """
    x = _float64("x", x)
    missing = [k for k in BLOCK_KEYS if k not in params]
    if missing:
        raise ToolkitInputError(f"params lacks {missing}; a block needs {list(BLOCK_KEYS)}")
    tp = {k: torch.tensor(_float64(k, params[k]), requires_grad=dout is not None) for k in BLOCK_KEYS}
    (tx,) = _tensors(x, grad=dout is not None)
    out = torch_block_tensors(tx, tp, num_heads, residual, skip_grad, layout)
    if not _backward(out, dout):
        return out.detach().numpy()
    return out.detach().numpy(), tx.grad.numpy(), {k: t.grad.numpy() for k, t in tp.items()}


@referee
def layernorm_forward(x, gamma, beta):
    """Layer normalisation over the last axis (lesson 8's), biased variance, eps 1e-5, computed by
    `torch.nn.functional.layer_norm` in float64 (a referee, not an answer to copy).

    Inputs: x (..., D), gamma and beta (D,). Returns (out, cache), out shaped like x.
    """
    with refereeing():
        x, gamma, beta = (np.asarray(a, dtype=np.float64) for a in (x, gamma, beta))
        tx, tgamma, tbeta = (torch.from_numpy(a) for a in (x, gamma, beta))
        out = F.layer_norm(tx, (x.shape[-1],), tgamma, tbeta, eps=EPS)
        return out.numpy(), (x.copy(), gamma.copy(), beta.copy())


@referee
def layernorm_backward(dout, cache):
    """The gradients (dx, dgamma, dbeta) of layernorm_forward, by PyTorch's autograd; dout shaped like x."""
    with refereeing():
        x, gamma, beta = (torch.tensor(a, requires_grad=True) for a in cache)
        out = F.layer_norm(x, (x.shape[-1],), gamma, beta, eps=EPS)
        out.backward(torch.as_tensor(np.asarray(dout, dtype=np.float64)))
        return x.grad.numpy(), gamma.grad.numpy(), beta.grad.numpy()


def attention_problem(
    shape_q: tuple[int, ...], S: int, dv: int, seed: int, scale: float = 1.0, keep: float | None = None
) -> dict[str, np.ndarray]:
    """q of shape `shape_q` (..., T, d), k (..., S, d), v (..., S, dv) and dout (..., T, dv) drawn
    from `seed`; `scale` multiplies q and k (large: saturated softmax rows); with `keep`, a
    boolean mask (T, S) keeping about that fraction of the keys, every row keeping one at least."""
    rng = np.random.default_rng(seed)
    *lead, steps, d = shape_q
    p = {
        "q": scale * rng.normal(size=shape_q),
        "k": scale * rng.normal(size=(*lead, S, d)),
        "v": rng.normal(size=(*lead, S, dv)),
        "dout": rng.normal(size=(*lead, steps, dv)),
    }
    if keep is not None:
        mask = rng.random((steps, S)) < keep
        mask[np.arange(steps), rng.integers(0, S, size=steps)] = True
        p["mask"] = mask
    return p


def mha_problem(N: int, T: int, D: int, num_heads: int, seed: int, causal: bool = True) -> dict:
    """x (N, T, D), Wq, Wk, Wv, Wo (D, D) scaled by 1/sqrt(D), num_heads, mask (causal or None)
    and dout (N, T, D), drawn from `seed`."""
    rng = np.random.default_rng(seed)
    p = {"x": rng.normal(size=(N, T, D))}
    for name in ("Wq", "Wk", "Wv", "Wo"):
        p[name] = rng.normal(size=(D, D)) / np.sqrt(D)
    p["num_heads"] = num_heads
    p["mask"] = np.tril(np.ones((T, T), dtype=bool)) if causal else None
    p["dout"] = rng.normal(size=(N, T, D))
    return p


def block_problem(
    N: int, T: int, D: int, F_: int, num_heads: int, seed: int
) -> tuple[np.ndarray, dict, np.ndarray]:
    """(x (N, T, D), params, dout (N, T, D)) drawn from `seed`: every parameter random (gammas
    around 1, non-zero betas and biases) so that no term of the backward pass hides behind a
    zero or a one."""
    rng = np.random.default_rng(seed)
    params = {
        "ln1_gamma": 1 + 0.3 * rng.normal(size=D),
        "ln1_beta": 0.3 * rng.normal(size=D),
        "ln2_gamma": 1 + 0.3 * rng.normal(size=D),
        "ln2_beta": 0.3 * rng.normal(size=D),
        "W1": rng.normal(size=(D, F_)) / np.sqrt(D),
        "b1": 0.3 * rng.normal(size=F_),
        "W2": rng.normal(size=(F_, D)) / np.sqrt(F_),
        "b2": 0.3 * rng.normal(size=D),
    }
    for name in ("Wq", "Wk", "Wv", "Wo"):
        params[name] = rng.normal(size=(D, D)) / np.sqrt(D)
    params = {k: params[k] for k in BLOCK_KEYS}
    return rng.normal(size=(N, T, D)), params, rng.normal(size=(N, T, D))


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
