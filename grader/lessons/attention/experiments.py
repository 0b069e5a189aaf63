"""The attention lesson's measurements, each through the student's own functions.

- `scale_sweep`: why scores are divided by sqrt(d) (the gradient reaching q, and how peaked the
  softmax rows are, against d, with the scale and without it);
- `residual_reach`: the gradient reaching the input of the first of `layers` blocks, with the
  residual connections and without them;
- `cache_memory`: the bytes attention_forward's cache keeps alive, against the length T;
- `attention_weights`: a trained model's attention weights, layer by layer and head by head.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...i18n import returned_by
from ...referees import referee_all
from ..student_calls import call_student, student_array, student_items
from .model import CharModel, block_inputs, init_model
from .reference import layernorm_backward, layernorm_forward

__all__ = ["ScaleSweep", "attention_weights", "cache_memory", "residual_reach", "scale_sweep"]


@dataclass(frozen=True)
class ScaleSweep:
    """Per d (dims): medians over the softmax rows of the norm of the gradient reaching the row's
    query, ‖∂L/∂q_t‖, of the largest weight in the row, and the fraction of rows whose scores get a
    gradient below 1e-3 (the softmax lets almost nothing through); `scaled_*` for scores
    q kᵀ / sqrt(d), `raw_*` for q kᵀ."""

    dims: np.ndarray
    scaled_grad: np.ndarray
    raw_grad: np.ndarray
    scaled_peak: np.ndarray
    raw_peak: np.ndarray
    scaled_dead: np.ndarray
    raw_dead: np.ndarray


def _attention(attention_forward: Callable, q, k, v) -> tuple[np.ndarray, object]:
    out, cache = student_items(attention_forward, "attention_forward", 2, q, k, v)
    return student_array(out, q.shape[:-1] + v.shape[-1:], returned_by("attention_forward", "out")), cache


def _dq(attention_backward: Callable, dout: np.ndarray, cache: object, shape: tuple[int, ...]) -> np.ndarray:
    grads = student_items(attention_backward, "attention_backward", 3, dout, cache)
    return student_array(grads[0], shape, returned_by("attention_backward", "dq"))


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True)


def scale_sweep(
    attention_forward: Callable,
    attention_backward: Callable,
    dims: Sequence[int] = (4, 16, 64, 256, 1024),
    T: int = 16,
    trials: int = 50,
    seed: int = 0,
) -> ScaleSweep:
    """q and k with independent N(0, 1) entries, so that a score q·k has variance d. Without the
    scale (q handed to the student's attention_forward multiplied by sqrt(d), which cancels its
    division; the gradient multiplied back), the rows saturate as d grows. The loss is
    sum(out * dout) with dout ~ N(0, 1); dq comes from the student's attention_backward, the
    weights and the scores' gradient from the formulas (to measure them, not to grade)."""
    rng = np.random.default_rng(seed)
    stats = {f"{arm}_{what}": [] for what in ("grad", "peak", "dead") for arm in ("scaled", "raw")}
    for d in dims:
        rows = {name: [] for name in stats}
        for _ in range(trials):
            q, k, v, dout = (rng.normal(size=s) for s in ((T, d), (T, d), (T, 8), (T, 8)))
            for arm, factor in (("scaled", 1.0), ("raw", np.sqrt(d))):
                _, cache = _attention(attention_forward, q * factor, k, v)
                dq = factor * _dq(attention_backward, dout, cache, q.shape)
                w = _softmax_rows(factor * q @ k.T / np.sqrt(d))
                dw = dout @ v.T
                dscores = w * (dw - (dw * w).sum(axis=-1, keepdims=True))
                rows[f"{arm}_grad"].extend(np.linalg.norm(dq, axis=-1))
                rows[f"{arm}_peak"].extend(w.max(axis=-1))
                rows[f"{arm}_dead"].extend(np.linalg.norm(dscores, axis=-1) < 1e-3)
        for name, values in rows.items():
            stats[name].append(np.mean(values) if name.endswith("dead") else np.median(values))
    return ScaleSweep(np.array(dims), **{name: np.array(v) for name, v in stats.items()})


def _plain_block(x, p, num_heads, student):
    """The block without its two skip connections: MLP(LN2(MHA(LN1(x)))), from the student's parts."""
    a, c1 = layernorm_forward(x, p["ln1_gamma"], p["ln1_beta"])
    mask = np.tril(np.ones((x.shape[1], x.shape[1]), dtype=bool))
    m, c2 = student_items(
        student["multihead_attention_forward"],
        "multihead_attention_forward",
        2,
        *(a, p["Wq"], p["Wk"], p["Wv"], p["Wo"], num_heads, mask),
    )
    m = student_array(m, x.shape, returned_by("multihead_attention_forward", "out"))
    b, c3 = layernorm_forward(m, p["ln2_gamma"], p["ln2_beta"])
    g, c4 = student_items(student["gelu_forward"], "gelu_forward", 2, b @ p["W1"] + p["b1"])
    g = student_array(g, b.shape[:-1] + p["W1"].shape[1:], returned_by("gelu_forward", "out"))
    return g @ p["W2"] + p["b2"], (c1, c2, c3, c4)


def _plain_block_backward(dout, cache, p, student):
    c1, c2, c3, c4 = cache
    dg = dout @ p["W2"].T
    dz = call_student(student["gelu_backward"], "gelu_backward", dg, c4)
    db = np.asarray(dz, dtype=np.float64) @ p["W1"].T
    dm = layernorm_backward(db, c3)[0]
    da = student_items(student["multihead_attention_backward"], "multihead_attention_backward", 5, dm, c2)[0]
    return layernorm_backward(np.asarray(da, dtype=np.float64), c1)[0]


def residual_reach(
    student: Mapping[str, Callable],
    layers: int = 8,
    N: int = 4,
    T: int = 16,
    D: int = 32,
    num_heads: int = 4,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """The norm of the gradient reaching the input of every block of a fresh stack of `layers`
    blocks, for the loss sum(out · u) with a fixed random u: {"with": (layers,), "without":
    (layers,)}, entry 0 the first block. "with" goes through the student's
    transformer_block_forward/backward, "without" through their multi-head attention and GELU
    passes (and lesson 8's layer norm) with both skip connections removed. `student` maps those six
    names to the student's functions."""
    model = init_model(2, D, num_heads, 4 * D, T, layers, seed)
    rng = np.random.default_rng(seed + 1)
    x, u = rng.normal(size=(N, T, D)), rng.normal(size=(N, T, D))
    reach = {}
    for arm in ("with", "without"):
        h, caches = x, []
        for p in model.blocks:
            if arm == "with":
                out = student_items(
                    student["transformer_block_forward"], "transformer_block_forward", 2, h, p, num_heads
                )
                label = returned_by("transformer_block_forward", "out")
                h, cache = student_array(out[0], x.shape, label), out[1]
            else:
                h, cache = _plain_block(h, p, num_heads, student)
            caches.append(cache)
        grad, norms = u, []
        for p, cache in zip(reversed(model.blocks), reversed(caches), strict=True):
            if arm == "with":
                dx = student_items(
                    student["transformer_block_backward"], "transformer_block_backward", 2, grad, cache
                )[0]
                grad = student_array(dx, x.shape, returned_by("transformer_block_backward", "dx"))
            else:
                grad = student_array(
                    _plain_block_backward(grad, cache, p, student), x.shape, "the block's dx"
                )
            norms.append(np.linalg.norm(grad))
        reach[arm] = np.array(norms[::-1])
    return reach


def cache_memory(
    attention_forward: Callable,
    lengths: Sequence[int] = (64, 128, 256, 512, 1024),
    heads: int = 4,
    d: int = 16,
    seed: int = 0,
) -> np.ndarray:
    """The bytes still allocated after attention_forward returns, its output excepted (what its cache
    keeps alive for the backward pass), for one sequence of every length in `lengths` and `heads`
    heads of size d: an array like `lengths`. Measured with tracemalloc (NumPy reports to it)."""
    rng = np.random.default_rng(seed)
    kept = []
    for T in lengths:
        q, k, v = (rng.normal(size=(heads, T, d)) for _ in range(3))
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            out, cache = _attention(attention_forward, q, k, v)
            kept.append(tracemalloc.get_traced_memory()[0] - before - out.nbytes)
        finally:
            tracemalloc.stop()
        del out, cache
    return np.array(kept)


def attention_weights(model: CharModel, ids: np.ndarray, causal: bool = True) -> np.ndarray:
    """The attention weights of every layer and head of `model` reading `ids` (T,): (L, H, T, T),
    computed from the parameters (the student's caches are theirs to lay out)."""
    steps = len(ids)
    mask = np.tril(np.ones((steps, steps), dtype=bool)) if causal else np.ones((steps, steps), dtype=bool)
    maps = []
    for h, block in zip(block_inputs(model, ids), model.blocks, strict=True):
        a, _ = layernorm_forward(h, block["ln1_gamma"], block["ln1_beta"])
        D = a.shape[-1]
        dh = D // model.num_heads
        q = (a @ block["Wq"]).reshape(steps, model.num_heads, dh).transpose(1, 0, 2)
        k = (a @ block["Wk"]).reshape(steps, model.num_heads, dh).transpose(1, 0, 2)
        maps.append(_softmax_rows(np.where(mask, q @ k.transpose(0, 2, 1) / np.sqrt(dh), -np.inf)))
    return np.array(maps)


referee_all(globals())
