"""Alternative correct solutions and typical mistakes for course/12_attention.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the cells in
`must_fail` and full marks elsewhere.

Graded cells (33 points, weighted by the work: the definition's transcription little, the
softmax backward most): test_attention_forward (1), _mask (1), test_causal_mask (1),
test_attention_backward_dv (2), _dq, _dk (3 each), test_mha_forward (2), test_mha_backward_dWo,
_dWv, _dWq, _dWk (1 each), _dx (2), test_gelu_forward (1), test_gelu_backward (2),
test_block_forward (2), test_block_backward_dx (2), _W1, _b1, _W2, _b2 (1 each), _Wq, _Wk, _Wv,
_Wo, _ln1, _ln2 (0.5 each: they follow from the student's own multi-head attention and layer norm
backward once dx is right).

The later exercises call the earlier ones (multi-head attention calls attention_forward and
attention_backward, the block calls all of them), and every backward check first asks that the
forward match PyTorch: a mistake costs every cell that builds on it, with "fix it first" where a
forward is off.
"""

from tests.nbgrader_harness import edited_solution

NAME = "12_attention"

_ATT_BACKWARD = [f"test_attention_backward_{g}" for g in ("dv", "dq", "dk")]
_MHA_BACKWARD = [f"test_mha_backward_{g}" for g in ("dWo", "dWv", "dWq", "dWk", "dx")]
_BLOCK_BACKWARD = [
    f"test_block_backward_{g}" for g in ("dx", "Wq", "Wk", "Wv", "Wo", "W1", "b1", "W2", "b2", "ln1", "ln2")
]


def _block(*grads: str) -> list[str]:
    return [f"test_block_backward_{g}" for g in grads]


_MHA_AND_BLOCK = ["test_mha_forward", *_MHA_BACKWARD, "test_block_forward", *_BLOCK_BACKWARD]
_ATTENTION_ON = ["test_attention_forward", "test_attention_forward_mask", *_ATT_BACKWARD, *_MHA_AND_BLOCK]


def _edit(grade_id: str, *edits: tuple[str, str]) -> dict[str, str]:
    return edited_solution(NAME, grade_id, *edits)


ALTERNATIVES: dict[str, str] = {}  # every alternative here changes a cache: see the pairs in MISTAKES

_EQUIVALENT = [
    {
        "name": "einsum, -1e30 for the mask, the weights recomputed from q and k, the softmax Jacobian "
        "written out (equivalent)",
        "cells": {
            "attention_forward": """\
def attention_forward(q, k, v, mask=None):
    scores = np.einsum("...td,...sd->...ts", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e30)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out = np.einsum("...ts,...sv->...tv", e / e.sum(axis=-1, keepdims=True), v)
    return out, {"q": q, "k": k, "v": v, "mask": mask}
""",
            "attention_backward": """\
def attention_backward(dout, cache):
    q, k, v, mask = cache["q"], cache["k"], cache["v"], cache["mask"]
    d = q.shape[-1]
    scores = np.einsum("...td,...sd->...ts", q, k) / np.sqrt(d)
    if mask is not None:
        scores = np.where(mask, scores, -1e30)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = e / e.sum(axis=-1, keepdims=True)
    dv = np.einsum("...ts,...tv->...sv", w, dout)
    dw = np.einsum("...tv,...sv->...ts", dout, v)
    jacobian = np.einsum("...ij,jk->...ijk", w, np.eye(w.shape[-1])) - w[..., :, None] * w[..., None, :]
    ds = np.einsum("...tj,...tjk->...tk", dw, jacobian)
    return ds @ k / np.sqrt(d), np.einsum("...ts,...td->...sd", ds, q) / np.sqrt(d), dv
""",
        },
        "must_fail": [],
    },
    {
        "name": "GELU as x·σ(2u), its slope from that form (equivalent)",
        "cells": {
            "gelu_forward": """\
GELU_C = np.sqrt(2 / np.pi)


def gelu_forward(x):
    u = GELU_C * (x + 0.044715 * x**3)
    s = np.exp(-np.logaddexp(0.0, -2 * u))
    return x * s, (x, s)
""",
            "gelu_backward": """\
def gelu_backward(dout, cache):
    x, s = cache
    du = GELU_C * (1 + 3 * 0.044715 * x**2)
    return dout * (s + x * 2 * s * (1 - s) * du)
""",
        },
        "must_fail": [],
    },
]

_LOOP_OVER_HEADS = {
    "name": "a loop over the heads, attention_forward and attention_backward called once per head",
    "cells": {
        "multihead_attention_forward": """\
def multihead_attention_forward(x, Wq, Wk, Wv, Wo, num_heads, mask=None):
    dh = x.shape[-1] // num_heads
    Q, K, V = x @ Wq, x @ Wk, x @ Wv
    heads, caches = [], []
    for h in range(num_heads):
        cols = slice(h * dh, (h + 1) * dh)
        out_h, cache_h = attention_forward(Q[..., cols], K[..., cols], V[..., cols], mask)
        heads.append(out_h)
        caches.append(cache_h)
    concat = np.concatenate(heads, axis=-1)
    return concat @ Wo, [x, Wq, Wk, Wv, Wo, dh, caches, concat]
""",
        "multihead_attention_backward": """\
def multihead_attention_backward(dout, cache):
    x, Wq, Wk, Wv, Wo, dh, caches, concat = cache
    D = x.shape[-1]
    dWo = np.einsum("ntd,nte->de", concat, dout)
    dconcat = dout @ Wo.T
    dQ, dK, dV = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    for h, cache_h in enumerate(caches):
        cols = slice(h * dh, (h + 1) * dh)
        dQ[..., cols], dK[..., cols], dV[..., cols] = attention_backward(dconcat[..., cols], cache_h)
    grads = [np.einsum("ntd,nte->de", x, g) for g in (dQ, dK, dV)]
    return (dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T, *grads, dWo)
""",
    },
    # the brief: "called once for all the heads (its batch axes are there for that)"
    "must_fail": ["test_mha_forward", *_MHA_BACKWARD],
    "message": "asks you to call attention_forward 1 times",
}


MISTAKES = [
    *_EQUIVALENT,
    {
        "name": "scores without the 1/sqrt(d) scale",
        "cells": _edit("attention_forward", ("/ np.sqrt(d)", "")),
        "must_fail": _ATTENTION_ON,
        "message": "sqrt(d)",
        "message_cells": ["test_attention_forward"],
    },
    {
        "name": "scores divided by d",
        "cells": _edit("attention_forward", ("/ np.sqrt(d)", "/ d")),
        "must_fail": _ATTENTION_ON,
        "message": "1/sqrt(d)",
        "message_cells": ["test_attention_forward"],
    },
    {
        "name": "softmax over the queries",
        "cells": _edit(
            "attention_forward",
            ("scores.max(axis=-1, keepdims=True)", "scores.max(axis=-2, keepdims=True)"),
            ("w.sum(axis=-1, keepdims=True)", "w.sum(axis=-2, keepdims=True)"),
        ),
        "must_fail": _ATTENTION_ON,
        "message": "over the queries",
        "message_cells": ["test_attention_forward"],
    },
    {
        "name": "mask applied after the softmax",
        "cells": _edit(
            "attention_forward",
            ("        scores = np.where(mask, scores, -np.inf)\n", "        pass\n"),
            (
                "    out = w @ v\n",
                "    if mask is not None:\n        w = np.where(mask, w, 0.0)\n    out = w @ v\n",
            ),
        ),
        "must_fail": ["test_attention_forward_mask", *_ATT_BACKWARD, *_MHA_AND_BLOCK],
        "message": "after the softmax",
        "message_cells": ["test_attention_forward_mask"],
    },
    {
        "name": "mask read nn.MultiheadAttention's way (True = hidden)",
        "cells": _edit(
            "attention_forward", ("np.where(mask, scores, -np.inf)", "np.where(mask, -np.inf, scores)")
        ),
        "must_fail": [
            "test_attention_forward_mask",
            *_ATT_BACKWARD,
            "test_mha_forward",
            *_MHA_BACKWARD,
            "test_block_forward",
            *_BLOCK_BACKWARD,
        ],
    },
    {
        "name": "softmax backward without its weighted-sum term",
        "cells": _edit(
            "attention_backward", ("ds = w * (dw - (w * dw).sum(axis=-1, keepdims=True))", "ds = w * dw")
        ),
        "must_fail": [
            "test_attention_backward_dq",
            "test_attention_backward_dk",
            "test_mha_backward_dWq",
            "test_mha_backward_dWk",
            "test_mha_backward_dx",
            *_block("dx", "Wq", "Wk", "ln1"),
        ],
        "message": "w * dw",
        "message_cells": ["test_attention_backward_dq", "test_attention_backward_dk"],
    },
    {
        "name": "dk without the transpose",
        "cells": _edit("attention_backward", ("dk = np.swapaxes(ds, -1, -2) @ q", "dk = ds @ q")),
        # with T != S the product does not fit and attention_backward raises: all three cells
        "must_fail": [
            *_ATT_BACKWARD,
            "test_mha_backward_dWk",
            "test_mha_backward_dx",
            *_block("dx", "Wk", "ln1"),
        ],
    },
    {
        "name": "dv without the transpose",
        "cells": _edit("attention_backward", ("dv = np.swapaxes(w, -1, -2) @ dout", "dv = w @ dout")),
        "must_fail": [
            *_ATT_BACKWARD,
            "test_mha_backward_dWv",
            "test_mha_backward_dx",
            *_block("dx", "Wv", "ln1"),
        ],
    },
    {
        "name": "heads split by a bare reshape",
        "cells": _edit(
            "multihead_attention_forward",
            (
                "return a.reshape(N, T, num_heads, dh).transpose(0, 2, 1, 3)",
                "return a.reshape(N, num_heads, T, dh)",
            ),
            ("concat = heads.transpose(0, 2, 1, 3).reshape(N, T, D)", "concat = heads.reshape(N, T, D)"),
        ),
        "must_fail": _MHA_AND_BLOCK,
        "message": "bare reshape",
        "message_cells": ["test_mha_forward"],
    },
    {
        "name": "only the query path reaches dx",
        "cells": _edit(
            "multihead_attention_backward", ("dx = dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T", "dx = dQ @ Wq.T")
        ),
        "must_fail": ["test_mha_backward_dx", *_block("dx", "ln1")],
        "message": "paths add up",
        "message_cells": ["test_mha_backward_dx"],
    },
    {
        "name": "the softmax without each row's maximum subtracted (exp overflows on saturated rows)",
        "cells": _edit(
            "attention_forward", ("    scores = scores - scores.max(axis=-1, keepdims=True)\n", "")
        ),
        "must_fail": ["test_attention_forward"],
        "message": "overflow in exp",
    },
    {
        "name": "dWo transposed",
        "cells": _edit(
            "multihead_attention_backward",
            (
                "dWo = concat.reshape(-1, D).T @ dout.reshape(-1, D)",
                "dWo = dout.reshape(-1, D).T @ concat.reshape(-1, D)",
            ),
        ),
        "must_fail": ["test_mha_backward_dWo", *_block("Wo")],
        "message": "transposed",
        "message_cells": ["test_mha_backward_dWo"],
    },
    {
        "name": "GELU's slope without the cubic term",
        "cells": _edit("gelu_backward", ("du = GELU_C * (1 + 3 * 0.044715 * x**2)", "du = GELU_C")),
        "must_fail": ["test_gelu_backward", *_block("dx", "Wq", "Wk", "Wv", "Wo", "W1", "b1", "ln1", "ln2")],
        "message": "cubic",
        "message_cells": ["test_gelu_backward"],
    },
    {
        # the brief asks for the tanh approximation; the exact GELU x·Φ(x) is up to 5e-4 away from it
        "name": "the exact GELU x·Φ(x) (erf form) and its slope, where the brief asks for the tanh form",
        "cells": {
            "gelu_forward": """\
import math

GELU_C = np.sqrt(2 / np.pi)
ERF = np.vectorize(math.erf, otypes=[np.float64])


def gelu_forward(x):
    cdf = 0.5 * (1 + ERF(x / np.sqrt(2)))
    return x * cdf, (x, cdf)
""",
            "gelu_backward": """\
def gelu_backward(dout, cache):
    x, cdf = cache
    return dout * (cdf + x * np.exp(-0.5 * x**2) / np.sqrt(2 * np.pi))
""",
        },
        "must_fail": ["test_gelu_forward", "test_gelu_backward", "test_block_forward", *_BLOCK_BACKWARD],
        "message": "yours is the exact GELU",
        "message_cells": ["test_gelu_forward"],
    },
    {
        "name": "the tanh GELU with the exact GELU's slope Φ(x) + x φ(x)",
        "cells": _edit(
            "gelu_backward",
            ("    dx = dout * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * du)\n",
             "    import math\n"
             "    dx = dout * (0.5 * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))\n"
             "                 + x * np.exp(-0.5 * x**2) / np.sqrt(2 * np.pi))\n"),
        ),
        "must_fail": ["test_gelu_backward", *_block("dx", "Wq", "Wk", "Wv", "Wo", "W1", "b1", "ln1", "ln2")],
        "message": "exact GELU x·Φ(x) (erf form)",
        "message_cells": ["test_gelu_backward"],
    },
    {
        "name": "the residual gradient not added to dx",
        "cells": _edit("transformer_block_backward", ("    dx = dh + dx_ln\n", "    dx = dx_ln\n")),
        "must_fail": ["test_block_backward_dx"],
        "message": "skip",
        "message_cells": ["test_block_backward_dx"],
    },
    {
        # every gradient of the attention half misses dout: named in each of their cells, not only in dx's
        "name": "the residual gradient not added to dh",
        "cells": _edit("transformer_block_backward", ("    dh = dout + db_\n", "    dh = db_\n")),
        "must_fail": [*_block("dx", "Wq", "Wk", "Wv", "Wo", "ln1")],
        "message": "flows straight through a skip connection",
        "message_cells": [*_block("dx", "Wq", "Wk", "Wv", "Wo", "ln1")],
    },
    {
        "name": "the block written post-LN, LN(x + sublayer(x)) (forward)",
        "cells": _edit(
            "transformer_block_forward",
            ("multihead_attention_forward(a, ", "multihead_attention_forward(x, "),
            ("    h = x + m\n", '    h, ln1_cache = layernorm_forward(x + m, p["ln1_gamma"], p["ln1_beta"])'
                               "\n"),
            ('    b, ln2_cache = layernorm_forward(h, p["ln2_gamma"], p["ln2_beta"])\n', "    b = h\n"),
            (
                '    out = h + g @ p["W2"] + p["b2"]\n',
                '    out, ln2_cache = layernorm_forward(h + g @ p["W2"] + p["b2"], p["ln2_gamma"], '
                'p["ln2_beta"])\n',
            ),
        ),
        # the backward cells ask for the forward first, and their message names the layout too
        "must_fail": ["test_block_forward", *_BLOCK_BACKWARD],
        "message": "block is post-LN",
        "message_cells": ["test_block_forward", *_BLOCK_BACKWARD],
    },
    {
        "name": "the first skip connection leaving after the layer norm, h = LN1(x) + MHA(LN1(x))",
        "cells": _edit("transformer_block_forward", ("    h = x + m\n", "    h = a + m\n")),
        "must_fail": ["test_block_forward", *_BLOCK_BACKWARD],
        "message": "leaves after the layer norm",
        "message_cells": ["test_block_forward"],
    },
    {
        "name": "dh with the skip's gradient sent through layernorm_backward, LN2'(dout + ...)",
        "cells": _edit(
            "transformer_block_backward",
            ("    dh = dout + db_\n", '    dh = layernorm_backward(dz @ p["W1"].T + dout, ln2_cache)[0]\n'),
        ),
        "must_fail": [*_block("dx", "Wq", "Wk", "Wv", "Wo", "ln1")],
        "message": "through layernorm_backward too",
        "message_cells": [*_block("dx", "Wq", "Wk", "Wv", "Wo", "ln1")],
    },
    {
        "name": "dx with the skip's gradient sent through layernorm_backward, LN1'(da + dh)",
        "cells": _edit(
            "transformer_block_backward",
            ("    dx = dh + dx_ln\n", "    dx = layernorm_backward(da + dh, ln1_cache)[0]\n"),
        ),
        "must_fail": _block("dx"),
        "message": "through layernorm_backward too",
    },
    {
        # d = 4 in the visible checks: the generic engine would read the factor sqrt(4) = 2 as "twice too
        # big: ... a difference divided by h instead of 2h"; the check names the scale instead
        "name": "attention backward without the 1/sqrt(d) in dq and dk",
        "cells": _edit(
            "attention_backward",
            ("dq = ds @ k / np.sqrt(d)", "dq = ds @ k"),
            ("dk = np.swapaxes(ds, -1, -2) @ q / np.sqrt(d)", "dk = np.swapaxes(ds, -1, -2) @ q"),
        ),
        "must_fail": [
            "test_attention_backward_dq",
            "test_attention_backward_dk",
            "test_mha_backward_dWq",
            "test_mha_backward_dWk",
            "test_mha_backward_dx",
            *_block("dx", "Wq", "Wk", "ln1"),
        ],
        "message": "lacks the 1/sqrt(d)",
        "message_cells": ["test_attention_backward_dq", "test_attention_backward_dk"],
    },
    {
        "name": "causal_mask as the upper triangle",
        "cells": {
            "causal_mask": """\
def causal_mask(T):
    return np.triu(np.ones((T, T), dtype=bool))
"""
        },
        # the block builds its mask with causal_mask; the multi-head checks bring their own
        "must_fail": ["test_causal_mask", "test_block_forward", *_BLOCK_BACKWARD],
        "message": "upper triangle",
        "message_cells": ["test_causal_mask"],
    },
    {
        "name": "the causal mask forgotten in the block",
        "cells": _edit("transformer_block_forward", ("num_heads, causal_mask(T))", "num_heads)")),
        "must_fail": ["test_block_forward", *_BLOCK_BACKWARD],
        "message": "fix it first",
        "message_cells": _BLOCK_BACKWARD,
    },
    {
        "name": "attention_forward handed to PyTorch's scaled_dot_product_attention",
        "cells": {
            "attention_forward": """\
def attention_forward(q, k, v, mask=None):
    m = None if mask is None else torch.tensor(mask)
    q, k, v = torch.tensor(q), torch.tensor(k), torch.tensor(v)
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)
    return out.numpy(), (q.numpy(), k.numpy(), v.numpy(), mask)
"""
        },
        "must_fail": _ATTENTION_ON,
        "message": "written in NumPy",
        "message_cells": ["test_attention_forward", "test_attention_forward_mask"],
    },
    {
        "name": "attention_backward handed to autograd (refused as PyTorch, first)",
        "cells": {
            "attention_backward": """\
def attention_backward(dout, cache):
    q, k, v, w = cache
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    scores = tq @ tk.transpose(-1, -2) / np.sqrt(q.shape[-1])
    scores = scores.masked_fill(torch.tensor(w == 0), float("-inf"))
    out = torch.softmax(scores, dim=-1) @ tv
    out.backward(torch.tensor(dout))
    return tq.grad.numpy(), tk.grad.numpy(), tv.grad.numpy()
"""
        },
        "must_fail": [*_ATT_BACKWARD, *_MHA_BACKWARD, *_BLOCK_BACKWARD],
        "message": "PyTorch is the referee",
        "message_cells": _ATT_BACKWARD,
    },
    {
        "name": "attention_backward handed to the checks' own NumPy reference (refused)",
        "cells": {
            "attention_backward": """\
def attention_backward(dout, cache):
    from grader.lessons.attention.checks import _attention_grads
    q, k, v, w = cache
    mask = w > 0
    g = _attention_grads(q, k, v, mask, dout, 1 / np.sqrt(q.shape[-1]))
    return g["dq"], g["dk"], g["dv"]
"""
        },
        "must_fail": [*_ATT_BACKWARD, *_MHA_BACKWARD, *_BLOCK_BACKWARD],
        "message": "one of the course's references",
        "message_cells": _ATT_BACKWARD,
    },
    {
        # .T reverses every axis: right in 2-D, a shape error once there are batch axes (the
        # visible checks now include them)
        "name": "k.T instead of swapping the last two axes",
        "cells": _edit("attention_forward", ("q @ np.swapaxes(k, -1, -2)", "q @ k.T")),
        "must_fail": _ATTENTION_ON,
        "message": "reverses every axis",
        "message_cells": ["test_attention_forward"],
    },
    {
        "name": "attention_forward handed to the checks' own NumPy weights (refused)",
        "cells": {
            "attention_forward": """\
def attention_forward(q, k, v, mask=None):
    from grader.lessons.attention.checks import _weights
    w = _weights(q, k, mask, 1 / np.sqrt(q.shape[-1]))
    return w @ v, (q, k, v, w)
"""
        },
        "must_fail": _ATTENTION_ON,
        "message": "one of the course's references",
        "message_cells": ["test_attention_forward", "test_attention_forward_mask"],
    },
    {
        # The scale applied to q in place: out is right, the caller's q is not. The visible check hands
        # over its own arrays, so the message names the change (not a missing 1/sqrt(d)).
        "name": "attention_forward divides q by sqrt(d) in place",
        "cells": _edit(
            "attention_forward",
            (
                "scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)",
                "q /= np.sqrt(d)\n    scores = q @ np.swapaxes(k, -1, -2)",
            ),
        ),
        # in multi-head attention q is the student's own array, but its cache then holds the scaled q:
        # dk is off by 1/sqrt(d) wherever it is used
        "must_fail": [
            "test_attention_forward",
            "test_attention_forward_mask",
            *_ATT_BACKWARD,
            "test_mha_backward_dWk",
            "test_mha_backward_dx",
            *_block("dx", "Wk", "ln1"),
        ],
        "message": "changed its argument q in place",
        "message_cells": ["test_attention_forward", "test_attention_forward_mask", *_ATT_BACKWARD],
    },
    _LOOP_OVER_HEADS,
    {
        # the visible checks now run one head without a mask, as the brief announces: a forward that
        # needs a mask fails there, not only in the hidden tests
        "name": "multi-head attention that needs a mask (mask[None, None] on None)",
        "cells": _edit(
            "multihead_attention_forward", ("split(x @ Wv), mask)", "split(x @ Wv), mask[None, None])")
        ),
        "must_fail": ["test_mha_forward", *_MHA_BACKWARD],
    },
    {
        # the visible check runs the grid from -6 to 6 the brief announces (it used to stop at 3)
        "name": "GELU set to 0 below x = -5 (right on [-3, 3])",
        "cells": _edit(
            "gelu_forward",
            ("    out = 0.5 * x * (1 + t)\n", "    out = np.where(x < -5, 0.0, 0.5 * x * (1 + t))\n"),
        ),
        "must_fail": ["test_gelu_forward", "test_gelu_backward"],
    },
    {
        "name": "multi-head attention re-implemented inline, attention_forward never called",
        "cells": {
            "multihead_attention_forward": """\
def multihead_attention_forward(x, Wq, Wk, Wv, Wo, num_heads, mask=None):
    N, T, D = x.shape
    dh = D // num_heads

    def split(a):
        return a.reshape(N, T, num_heads, dh).transpose(0, 2, 1, 3)

    q, k, v = split(x @ Wq), split(x @ Wk), split(x @ Wv)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh)
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    concat = (w @ v).transpose(0, 2, 1, 3).reshape(N, T, D)
    return concat @ Wo, (x, Wq, Wk, Wv, Wo, num_heads, (q, k, v, w), concat)
"""
        },
        "must_fail": ["test_mha_forward", *_MHA_BACKWARD],
        "message": "asks you to call attention_forward 1 times",
    },
    {
        "name": "multi-head backward calls attention_backward once per head",
        "cells": {
            "multihead_attention_backward": """\
def multihead_attention_backward(dout, cache):
    x, Wq, Wk, Wv, Wo, num_heads, att_cache, concat = cache
    N, T, D = x.shape
    dh = D // num_heads
    dWo = concat.reshape(-1, D).T @ dout.reshape(-1, D)
    dconcat = dout @ Wo.T
    dQ, dK, dV = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    for h in range(num_heads):
        cols = slice(h * dh, (h + 1) * dh)
        head_cache = tuple(a[:, h] for a in att_cache)
        dQ[..., cols], dK[..., cols], dV[..., cols] = attention_backward(dconcat[..., cols], head_cache)
    flat = x.reshape(-1, D).T
    dx = dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T
    return dx, flat @ dQ.reshape(-1, D), flat @ dK.reshape(-1, D), flat @ dV.reshape(-1, D), dWo
"""
        },
        "must_fail": _MHA_BACKWARD,
        "message": "asks you to call attention_backward 1 times",
    },
]
