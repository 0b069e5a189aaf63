"""The attention lesson's helpers: the PyTorch referees, the character model and the measurements.

The "student" functions here are stand-ins built on the referees (a forward that keeps its
inputs as the cache, a backward that asks PyTorch), so that each helper is tested on its own.
"""

from __future__ import annotations

import numpy as np
import pytest

from grader import (
    CheckFailed,
    Exercise,
    Exercises,
    ToolkitInputError,
    eval_numerical_gradient_array,
    rel_error,
)
from grader.lessons.attention.checks import (
    SLIPS,
    check_attention_backward,
    check_attention_forward,
    check_block_backward,
    check_block_forward,
    check_causal_mask,
    check_gelu_backward,
    check_gelu_forward,
    check_mha_backward,
    check_mha_forward,
)
from grader.lessons.attention.experiments import attention_weights, cache_memory, residual_reach, scale_sweep
from grader.lessons.attention.model import Corpus, init_model, model_loss, sample, train, train_torch
from grader.lessons.attention.reference import (
    BLOCK_KEYS,
    attention_problem,
    block_problem,
    layernorm_backward,
    layernorm_forward,
    mha_problem,
    torch_attention,
    torch_block,
    torch_gelu,
    torch_mha,
)
from grader.lessons.student_calls import NotReady


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _attention(q, k, v, mask=None):
    """Attention written with einsum, independently of the referees."""
    s = np.einsum("...td,...sd->...ts", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -1e300)
    return np.einsum("...ts,...sv->...tv", _softmax(s), v)


# -- stand-in student functions, on the referees
def _block_forward(x, params, num_heads):
    return torch_block(x, params, num_heads), (x, params, num_heads)


def _block_backward(dout, cache):
    x, params, num_heads = cache
    _, dx, grads = torch_block(x, params, num_heads, dout=dout)
    return dx, grads


def _attention_forward(q, k, v, mask=None):
    return torch_attention(q, k, v, mask), (q, k, v, mask)


def _attention_backward(dout, cache):
    q, k, v, mask = cache
    grads = torch_attention(q, k, v, mask, dout=dout)[1]
    return grads["dq"], grads["dk"], grads["dv"]


def _mha_forward(x, Wq, Wk, Wv, Wo, num_heads, mask=None):
    return torch_mha(x, Wq, Wk, Wv, Wo, num_heads, mask), (x, Wq, Wk, Wv, Wo, num_heads, mask)


def _mha_backward(dout, cache):
    g = torch_mha(*cache, dout=dout)[1]
    return g["dx"], g["dWq"], g["dWk"], g["dWv"], g["dWo"]


def _gelu_forward(x):
    return torch_gelu(x), x


def _gelu_backward(dout, x):
    return torch_gelu(x, dout=dout)[1]


STUDENT = {
    "transformer_block_forward": _block_forward,
    "transformer_block_backward": _block_backward,
    "multihead_attention_forward": _mha_forward,
    "multihead_attention_backward": _mha_backward,
    "gelu_forward": _gelu_forward,
    "gelu_backward": _gelu_backward,
}


# -- referees
def test_attention_referee_masks_softmaxes_over_keys_and_differentiates():
    p = attention_problem((2, 3, 4), S=5, dv=6, seed=0, keep=0.5)
    out, grads = torch_attention(p["q"], p["k"], p["v"], p["mask"], dout=p["dout"])
    assert rel_error(out, _attention(p["q"], p["k"], p["v"], p["mask"])) < 1e-12
    # a masked key changes nothing, however its value changes
    v2 = p["v"].copy()
    v2[..., ~p["mask"].any(axis=0), :] += 100.0
    assert rel_error(torch_attention(p["q"], p["k"], v2, p["mask"]), out) < 1e-12
    for name in ("q", "k", "v"):

        def f(a, name=name):
            args = {n: p[n] for n in ("q", "k", "v")}
            return torch_attention(**{**args, name: a}, mask=p["mask"])

        num = eval_numerical_gradient_array(f, p[name].copy(), p["dout"])
        assert rel_error(grads[f"d{name}"], num) < 1e-7, name


def test_attention_problem_keeps_a_key_in_every_row():
    p = attention_problem((7, 4), S=9, dv=2, seed=3, keep=0.05)
    assert p["mask"].shape == (7, 9) and p["mask"].any(axis=1).all() and (~p["mask"]).sum() > 40


def test_mha_referee_is_heads_of_attention_concatenated():
    p = mha_problem(N=2, T=5, D=8, num_heads=2, seed=1)
    out, grads = torch_mha(p["x"], p["Wq"], p["Wk"], p["Wv"], p["Wo"], 2, p["mask"], dout=p["dout"])
    q, k, v = (p["x"] @ p[w] for w in ("Wq", "Wk", "Wv"))
    heads = [
        _attention(
            q[..., h * 4 : (h + 1) * 4], k[..., h * 4 : (h + 1) * 4], v[..., h * 4 : (h + 1) * 4], p["mask"]
        )
        for h in range(2)
    ]
    assert rel_error(out, np.concatenate(heads, axis=-1) @ p["Wo"]) < 1e-12
    num = eval_numerical_gradient_array(
        lambda W: torch_mha(p["x"], p["Wq"], W, p["Wv"], p["Wo"], 2, p["mask"]), p["Wk"].copy(), p["dout"]
    )
    assert rel_error(grads["dWk"], num) < 1e-7


def test_gelu_referee_is_the_tanh_approximation():
    x = np.linspace(-6, 6, 25)
    c = np.sqrt(2 / np.pi)
    # 1 + tanh(u) cancels for u << 0: two correct formulations differ by ~1e-12 relative at x = -6
    # (a tolerance the lesson's checks must allow)
    assert rel_error(torch_gelu(x), 0.5 * x * (1 + np.tanh(c * (x + 0.044715 * x**3)))) < 1e-10


def test_block_referee_and_its_parts():
    x, params, dout = block_problem(N=2, T=4, D=8, F_=12, num_heads=2, seed=2)
    out, dx, grads = torch_block(x, params, 2, dout=dout)
    a = layernorm_forward(x, params["ln1_gamma"], params["ln1_beta"])[0]
    causal = np.tril(np.ones((4, 4), dtype=bool))
    h = x + torch_mha(a, params["Wq"], params["Wk"], params["Wv"], params["Wo"], 2, causal)
    b = layernorm_forward(h, params["ln2_gamma"], params["ln2_beta"])[0]
    assert (
        rel_error(out, h + torch_gelu(b @ params["W1"] + params["b1"]) @ params["W2"] + params["b2"]) < 1e-12
    )
    assert set(grads) == set(BLOCK_KEYS)
    num = eval_numerical_gradient_array(lambda z: torch_block(z, params, 2), x.copy(), dout)
    assert rel_error(dx, num) < 1e-7
    plain = torch_block(x, params, 2, residual=False)
    assert rel_error(plain, out) > 1e-3


def test_layernorm_matches_its_numerical_gradient():
    rng = np.random.default_rng(4)
    x, gamma, beta, dout = (
        rng.normal(size=(3, 2, 6)),
        rng.normal(size=6),
        rng.normal(size=6),
        rng.normal(size=(3, 2, 6)),
    )
    out, cache = layernorm_forward(x, gamma, beta)
    assert np.allclose(((out - beta) / gamma).mean(axis=-1), 0) and np.allclose(
        ((out - beta) / gamma).var(axis=-1), 1, atol=1e-4
    )
    dx, dgamma, _ = layernorm_backward(dout, cache)
    assert (
        rel_error(dx, eval_numerical_gradient_array(lambda z: layernorm_forward(z, gamma, beta)[0], x, dout))
        < 1e-7
    )
    assert (
        rel_error(
            dgamma, eval_numerical_gradient_array(lambda g: layernorm_forward(x, g, beta)[0], gamma, dout)
        )
        < 1e-7
    )


def test_referees_refuse_what_they_cannot_grade():
    with pytest.raises(ToolkitInputError, match="float64"):
        torch_attention(np.ones((2, 3), dtype=np.float32), np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ToolkitInputError, match="num_heads"):
        torch_mha(np.ones((1, 2, 6)), *[np.eye(6)] * 4, num_heads=4)
    with pytest.raises(ToolkitInputError, match="lacks"):
        torch_block(np.ones((1, 2, 4)), {"Wq": np.eye(4)}, 1)


# -- the model
TEXT = "the long way back, and the long way home; the way back is long.\n" * 3


def test_training_with_hand_backward_follows_autograd():
    corpus = Corpus.of(TEXT)
    model = init_model(len(corpus.chars), D=8, num_heads=2, F_=16, context=8, layers=2, seed=0)
    ours = train(model.copy(), corpus, _block_forward, _block_backward, steps=5, batch=3)
    theirs = train_torch(model, corpus, steps=5, batch=3)
    assert np.abs(ours - theirs).max() < 1e-12 and ours[-1] < ours[0]


def test_model_loss_gradients_are_the_loss_gradients():
    corpus = Corpus.of(TEXT)
    model = init_model(len(corpus.chars), D=8, num_heads=2, F_=16, context=6, layers=1, seed=1)
    x, y = next(corpus.batches(6, 2, seed=0))
    _, grads = model_loss(model, x, y, _block_forward, _block_backward)
    for name in ("tok", "pos", "block0.Wv", "Wout"):
        array = model.arrays()[name]
        num = eval_numerical_gradient_array(
            lambda _: np.array(model_loss(model, x, y, _block_forward)[0]), array, np.array(1.0)
        )
        assert rel_error(grads[name], num) < 1e-6, name


def test_sample_is_seeded_and_reads_its_context():
    corpus = Corpus.of(TEXT)
    model = init_model(len(corpus.chars), D=8, num_heads=2, F_=16, context=4, layers=1)
    one = sample(model, corpus, _block_forward, start="the", length=10, seed=3)
    assert one == sample(model, corpus, _block_forward, start="the", length=10, seed=3)
    assert len(one) == 13 and one.startswith("the")
    with pytest.raises(ToolkitInputError, match="not characters"):
        sample(model, corpus, _block_forward, start="Z")


def test_an_unfinished_block_is_named():
    corpus = Corpus.of(TEXT)
    model = init_model(len(corpus.chars), D=8, num_heads=2, F_=16, context=4, layers=1)

    def unfinished(*args):
        raise NotImplementedError

    with pytest.raises(NotReady, match="transformer_block_forward is not written yet"):
        sample(model, corpus, unfinished, start="t")


def test_attention_maps_are_causal_distributions():
    corpus = Corpus.of(TEXT)
    model = init_model(len(corpus.chars), D=8, num_heads=2, F_=16, context=8, layers=2)
    maps = attention_weights(model, corpus.ids[:8])
    assert maps.shape == (2, 2, 8, 8)
    assert np.allclose(maps.sum(axis=-1), 1) and np.triu(maps, 1).max() == 0
    above = np.triu_indices(8, 1)
    assert attention_weights(model, corpus.ids[:8], causal=False)[..., above[0], above[1]].min() > 0


# -- the measurements
def test_without_the_scale_the_softmax_saturates_and_the_gradient_dies():
    sweep = scale_sweep(_attention_forward, _attention_backward, dims=(4, 256, 1024), T=8, trials=3)
    assert sweep.raw_peak[-1] > 0.99 and sweep.scaled_peak.max() < 0.6
    assert sweep.raw_grad[-1] < 1e-2 * sweep.scaled_grad[-1]
    assert sweep.scaled_dead.max() == 0 and sweep.raw_dead[-1] > 0.3


def test_the_residual_stream_carries_the_gradient_down():
    reach = residual_reach(STUDENT, layers=4, N=2, T=4, D=8, num_heads=2)
    assert reach["with"].shape == reach["without"].shape == (4,)
    ratios = reach["with"][:-1] / reach["with"][1:]
    assert np.all((ratios > 0.8) & (ratios < 1.5))


def test_the_cache_memory_counts_what_the_forward_keeps():
    def keeps_weights(q, k, v, mask=None):
        w = _softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]))
        return w @ v, (q, k, v, w)

    kept = cache_memory(keeps_weights, lengths=(32, 64, 128), heads=2, d=4)
    assert np.allclose(kept, [2 * T * T * 8 for T in (32, 64, 128)], rtol=0.05)
    assert np.all(cache_memory(_attention_forward, lengths=(32, 64), heads=2, d=4) < 2 * 32 * 32 * 8)


# -- the checks, and the mistakes they name
def _np_attention(q, k, v, mask=None, scale=None, axis=-1, after=False, invert=False):
    """Attention with one mistake switched on; the cache keeps what the backward stand-ins read."""
    s = np.einsum("...td,...sd->...ts", q, k) * (q.shape[-1] ** -0.5 if scale is None else scale)
    keep = None if mask is None else (~mask if invert else mask)
    if keep is not None and not after:
        s = np.where(keep, s, -np.inf)
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    w = e / e.sum(axis=axis, keepdims=True)
    if keep is not None and after:
        w = np.where(keep, w, 0.0)
    return w @ v, (q, k, v, w)


def _np_attention_backward(dout, cache, sum_term=True, scale=True, transpose=True):
    q, k, v, w = cache
    c = q.shape[-1] ** -0.5 if scale else 1.0
    dw = dout @ np.swapaxes(v, -1, -2)
    ds = w * (dw - (w * dw).sum(axis=-1, keepdims=True)) if sum_term else w * dw
    dk = np.swapaxes(ds, -1, -2) @ q if transpose else ds @ q
    return ds @ k * c, dk * c, np.swapaxes(w, -1, -2) @ dout


def _heads(a, H):
    n, t, d = a.shape
    return a.reshape(n, t, H, d // H).transpose(0, 2, 1, 3)


def _mha_np(x, Wq, Wk, Wv, Wo, H, mask=None, bare=False):
    split = (lambda a: a.reshape(a.shape[0], H, a.shape[1], -1)) if bare else (lambda a: _heads(a, H))
    out, cache = _np_attention(split(x @ Wq), split(x @ Wk), split(x @ Wv), mask)
    concat = out.reshape(x.shape) if bare else out.transpose(0, 2, 1, 3).reshape(x.shape)
    return concat @ Wo, (x, Wq, Wk, Wv, Wo, H, cache, concat)


def _mha_np_backward(dout, cache, paths=3):
    x, Wq, Wk, Wv, Wo, H, att, concat = cache
    D = x.shape[-1]
    dq, dk, dv = _np_attention_backward(_heads(dout @ Wo.T, H), att)
    merged = [g.transpose(0, 2, 1, 3).reshape(x.shape) for g in (dq, dk, dv)]
    dx = sum(g @ W.T for g, W in list(zip(merged, (Wq, Wk, Wv), strict=True))[:paths])
    grads = [x.reshape(-1, D).T @ g.reshape(-1, D) for g in merged]
    return (dx, *grads, concat.reshape(-1, D).T @ dout.reshape(-1, D))


def _gelu_no_cubic_backward(dout, x):
    c = np.sqrt(2 / np.pi)
    t = np.tanh(c * (x + 0.044715 * x**3))
    return dout * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * c)


_ATT = attention_problem((4, 3), S=4, dv=2, seed=11, keep=0.7)
_ATT["mask"] = (np.arange(4)[:, None] + np.arange(4)) % 2 == 0  # inverted, every row still keeps a key
_MHA = mha_problem(N=2, T=4, D=6, num_heads=2, seed=12)
_X = np.linspace(-3, 3, 13)
_BLOCK = block_problem(N=1, T=3, D=4, F_=6, num_heads=2, seed=13)


def _block_np_forward(x, p, heads):
    """The block in NumPy (the checks refuse PyTorch inside the student's functions)."""
    a = layernorm_forward(x, p["ln1_gamma"], p["ln1_beta"])[0]
    causal = np.tril(np.ones((x.shape[1],) * 2, dtype=bool))
    h = x + _mha_np(a, p["Wq"], p["Wk"], p["Wv"], p["Wo"], heads, causal)[0]
    b = layernorm_forward(h, p["ln2_gamma"], p["ln2_beta"])[0]
    return h + _gelu_np_forward(b @ p["W1"] + p["b1"])[0] @ p["W2"] + p["b2"], None


def _block_np_layout(x, p, heads, layout):
    """The block in NumPy, its layer norms placed as `layout` says ("post", "skip_after"; per sublayer)."""
    causal = np.tril(np.ones((x.shape[1],) * 2, dtype=bool))

    def sublayer(i, stream, inner):
        def norm(t):
            return layernorm_forward(t, p[f"ln{i}_gamma"], p[f"ln{i}_beta"])[0]

        if layout[i - 1] == "post":
            return norm(stream + inner(stream))
        normed = norm(stream)
        return (normed if layout[i - 1] == "skip_after" else stream) + inner(normed)

    h = sublayer(1, x, lambda a: _mha_np(a, p["Wq"], p["Wk"], p["Wv"], p["Wo"], heads, causal)[0])
    return sublayer(2, h, lambda b: _gelu_np_forward(b @ p["W1"] + p["b1"])[0] @ p["W2"] + p["b2"]), None


_SKIPLESS_DX = torch_block(_BLOCK[0], _BLOCK[1], 2, dout=_BLOCK[2], skip_grad=(False, True))[1]
# dh without dout: the attention half's parameters miss it too
_NO_DOUT_WQ = torch_block(_BLOCK[0], _BLOCK[1], 2, dout=_BLOCK[2], skip_grad=(True, False))[2]["Wq"]
# dh = LN2'(dout + the MLP's gradient): the skip's gradient sent through the layer norm
_THROUGH_LN_DX = torch_block(_BLOCK[0], _BLOCK[1], 2, dout=_BLOCK[2], layout=("pre", "grad_through"))[1]


def _block_grads(**grads):
    return {k: grads.get(k, np.zeros_like(v)) for k, v in _BLOCK[1].items()}


def _gelu_np_forward(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))), x


def _gelu_np_backward(dout, x):
    c = np.sqrt(2 / np.pi)
    t = np.tanh(c * (x + 0.044715 * x**3))
    return dout * (0.5 * (1 + t) + 0.5 * x * (1 - t**2) * c * (1 + 3 * 0.044715 * x**2))


def _gelu_exact_forward(x):
    from math import erf

    return x * 0.5 * (1 + np.vectorize(erf)(x / np.sqrt(2))), x


def _gelu_exact_backward(dout, x):
    from math import erf

    cdf = 0.5 * (1 + np.vectorize(erf)(x / np.sqrt(2)))
    return dout * (cdf + x * np.exp(-x**2 / 2) / np.sqrt(2 * np.pi))


POSITIVE = [
    ("gelu-exact-erf", lambda: check_gelu_forward(_gelu_exact_forward, _X)),
    (
        "gelu-exact-erf-slope",
        lambda: check_gelu_backward(_gelu_np_forward, _gelu_exact_backward, _X, np.ones_like(_X)),
    ),
    (
        "attention-no-scale",
        lambda: check_attention_forward(lambda q, k, v, m=None: _np_attention(q, k, v, m, 1.0), _ATT),
    ),
    (
        "attention-scale-d",
        lambda: check_attention_forward(lambda q, k, v, m=None: _np_attention(q, k, v, m, 1 / 3), _ATT),
    ),
    (
        "attention-softmax-queries",
        lambda: check_attention_forward(lambda q, k, v, m=None: _np_attention(q, k, v, m, axis=-2), _ATT),
    ),
    (
        "attention-mask-after-softmax",
        lambda: check_attention_forward(lambda q, k, v, m=None: _np_attention(q, k, v, m, after=True), _ATT),
    ),
    (
        "attention-mask-inverted",
        lambda: check_attention_forward(lambda q, k, v, m=None: _np_attention(q, k, v, m, invert=True), _ATT),
    ),
    (
        "attention-softmax-sum-term",
        lambda: check_attention_backward(
            "dq", _np_attention, lambda d, c: _np_attention_backward(d, c, sum_term=False), _ATT
        ),
    ),
    (
        "attention-backward-scale",
        lambda: check_attention_backward(
            "dk", _np_attention, lambda d, c: _np_attention_backward(d, c, scale=False), _ATT
        ),
    ),
    (
        "attention-no-transpose",
        lambda: check_attention_backward(
            "dk", _np_attention, lambda d, c: _np_attention_backward(d, c, transpose=False), _ATT
        ),
    ),
    ("mha-bare-reshape", lambda: check_mha_forward(lambda *a, **k: _mha_np(*a, **k, bare=True), _MHA)),
    (
        "mha-one-path",
        lambda: check_mha_backward("dx", _mha_np, lambda d, c: _mha_np_backward(d, c, paths=1), _MHA),
    ),
    (
        "gelu-no-cubic",
        lambda: check_gelu_backward(_gelu_np_forward, _gelu_no_cubic_backward, _X, np.ones_like(_X)),
    ),
    (
        "block-no-residual-grad",
        lambda: check_block_backward(
            ("dx",), _block_np_forward, lambda d, c: (_SKIPLESS_DX, {}), _BLOCK[0], _BLOCK[1], 2, _BLOCK[2]
        ),
    ),
    (
        "block-no-residual-grad",
        lambda: check_block_backward(
            ("Wq",), _block_np_forward, lambda d, c: (_SKIPLESS_DX, _block_grads(Wq=_NO_DOUT_WQ)),
            _BLOCK[0], _BLOCK[1], 2, _BLOCK[2]
        ),
    ),
    (
        "block-skip-grad-through-ln",
        lambda: check_block_backward(
            ("dx",), _block_np_forward, lambda d, c: (_THROUGH_LN_DX, {}), _BLOCK[0], _BLOCK[1], 2, _BLOCK[2]
        ),
    ),
    (
        "block-post-ln",
        lambda: check_block_forward(lambda x, p, h: _block_np_layout(x, p, h, ("post", "post")),
                                    _BLOCK[0], _BLOCK[1], 2),
    ),
    (
        "block-post-ln",  # named in a backward cell too, which asks for the forward first
        lambda: check_block_backward(
            ("dx",), lambda x, p, h: _block_np_layout(x, p, h, ("post", "post")),
            lambda d, c: (_SKIPLESS_DX, {}), _BLOCK[0], _BLOCK[1], 2, _BLOCK[2]
        ),
    ),
    (
        "block-skip-after-ln",
        lambda: check_block_forward(lambda x, p, h: _block_np_layout(x, p, h, ("skip_after", "pre")),
                                    _BLOCK[0], _BLOCK[1], 2),
    ),
    ("causal-mask-upper", lambda: check_causal_mask(lambda T: np.triu(np.ones((T, T), dtype=bool)), 4)),
    (
        "attention-batch-transpose",
        lambda: check_attention_forward(
            lambda q, k, v, m=None: (_softmax(q @ k.T / 2) @ v, None),
            attention_problem((2, 3, 2, 4), S=3, dv=5, seed=1),
        ),
    ),
]


@pytest.mark.parametrize("code, run", POSITIVE, ids=[p[0] for p in POSITIVE])
def test_each_mistake_is_named(code, run, capsys):
    with pytest.raises(CheckFailed) as failure:
        run()
    assert SLIPS[code].lower() in str(failure.value).lower()  # capitalised after "fix it first."
    out = capsys.readouterr().out
    assert f"[{code}]" in out
    # the named mistake's hint alone: not after the toolkit's generic one (which would read a missing
    # 1/sqrt(4) as "twice too big: ... a difference divided by h instead of 2h")
    assert out.count("Hint:") <= 1, out


def test_right_answers_pass_every_check(capsys):
    check_attention_forward(_np_attention, _ATT)
    for name in ("dq", "dk", "dv"):
        check_attention_backward(name, _np_attention, _np_attention_backward, _ATT)
    check_mha_forward(_mha_np, _MHA)
    for name in ("dx", "dWq", "dWk", "dWv", "dWo"):
        check_mha_backward(name, _mha_np, _mha_np_backward, _MHA)
    check_gelu_forward(_gelu_np_forward, _X)
    check_gelu_backward(_gelu_np_forward, _gelu_np_backward, _X, np.ones_like(_X))
    check_block_forward(_block_np_forward, _BLOCK[0], _BLOCK[1], 2)  # the block's backward: tests/cases
    assert "✗" not in capsys.readouterr().out


def test_a_forward_that_is_not_attention_is_refused_before_its_backward():
    with pytest.raises(CheckFailed, match="fix it first"):
        check_attention_backward(
            "dq", lambda q, k, v, m=None: _np_attention(q, k, v, m, 1.0), _np_attention_backward, _ATT
        )


def _declared(**functions):
    """The stand-ins as a lesson declares them (graded.<name>): the checks are handed these."""
    return Exercises(functions, *(Exercise(name, changes=("cache",) if "backward" in name else ())
                                  for name in functions))


def test_the_declaration_refuses_pytorch_inside_a_students_function():
    import torch
    import torch.nn.functional as F

    def attention_forward(q, k, v, mask=None):
        m = None if mask is None else torch.tensor(mask)
        out = F.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), attn_mask=m)
        return out.numpy(), None

    def gelu_forward(x):
        return F.gelu(torch.tensor(x), approximate="tanh").numpy(), x

    graded = _declared(attention_forward=attention_forward, gelu_forward=gelu_forward)
    with pytest.raises(CheckFailed, match="NumPy"):
        check_attention_forward(graded.attention_forward, _ATT)
    with pytest.raises(CheckFailed, match="NumPy"):
        check_gelu_forward(graded.gelu_forward, _X)


def test_the_checks_own_numpy_recomputations_are_referees():
    from grader.lessons.attention import checks as attention_checks

    def forward(q, k, v, mask=None):
        w = attention_checks._weights(q, k, mask, q.shape[-1] ** -0.5)
        return w @ v, (q, k, v, w)

    def plain_forward(q, k, v, mask=None):
        s = np.einsum("...td,...sd->...ts", q, k) / np.sqrt(q.shape[-1])
        w = _softmax(s if mask is None else np.where(mask, s, -np.inf))
        return w @ v, (q, k, v, w)

    def backward(dout, cache):
        q, k, v, w = cache
        g = attention_checks._attention_grads(q, k, v, None, dout, q.shape[-1] ** -0.5)
        return g["dq"], g["dk"], g["dv"]

    with pytest.raises(CheckFailed, match="one of the course's references"):
        check_attention_forward(_declared(attention_forward=forward).attention_forward, _ATT)
    graded = _declared(attention_forward=plain_forward, attention_backward=backward)
    with pytest.raises(CheckFailed, match="one of the course's references"):
        check_attention_backward("dq", graded.attention_forward, graded.attention_backward, _ATT)
    # outside a graded call they run, for the checks' own slips
    assert np.isfinite(attention_checks._weights(_ATT["q"], _ATT["k"], None, 1.0)).all()


def test_the_checks_hand_over_the_problems_own_arrays():
    """So that an input changed in place is named as such, in the visible check too."""

    def scaled_in_place(q, k, v, mask=None):
        q /= np.sqrt(q.shape[-1])
        return _np_attention(q, k, v, mask, 1.0)

    p = attention_problem((3, 4), S=5, dv=2, seed=3)
    with pytest.raises(CheckFailed, match="changed its argument q in place"):
        check_attention_forward(_declared(attention_forward=scaled_in_place).attention_forward, p)


def _gelu_sigmoid_backward(dout, x):
    """The same slope written as x sigmoid(2u) (exact in the negative tail, unlike 1 + tanh u)."""
    c = np.sqrt(2 / np.pi)
    u = c * (x + 0.044715 * x**3)
    s = np.exp(-np.logaddexp(0.0, -2 * u))
    return dout * (s + x * s * (1 - s) * 2 * c * (1 + 3 * 0.044715 * x**2))


@pytest.mark.parametrize("backward", [_gelu_np_backward, _gelu_sigmoid_backward],
                         ids=["tanh form", "sigmoid form"])
def test_every_correct_gelu_backward_passes_on_random_wide_inputs(backward) -> None:
    """Both ways of writing the slope pass at spread 4 (the tail where 1 + tanh u cancels), on 30 draws:
    the reference is exact there, and the check allows a few roundings of the terms."""
    rng = np.random.default_rng(12)
    for _ in range(30):
        x = 4 * rng.normal(size=(4, 50))
        check_gelu_backward(_gelu_np_forward, backward, x, rng.normal(size=x.shape))


def test_the_gelu_reference_slope_is_exact_in_the_negative_tail() -> None:
    x = np.array([-7.0, -6.5, -6.0, -5.5, -1.0, 0.5, 3.0])
    _, dx = torch_gelu(x, dout=np.ones_like(x))
    assert rel_error(dx, _gelu_sigmoid_backward(np.ones_like(x), x)) < 1e-13


def test_an_unfinished_helper_is_named_not_its_caller():
    """transformer_block_backward written, gelu_backward not: the message names gelu_backward."""
    from grader.lessons.student_calls import NotReady, call_student

    def gelu_backward(dout, cache):
        raise NotImplementedError()

    def transformer_block_backward(dout, cache):
        return gelu_backward(dout, cache)

    with pytest.raises(NotReady, match="^gelu_backward is not written yet"):
        call_student(transformer_block_backward, "transformer_block_backward", None, None)
    with pytest.raises(NotReady, match="^gelu_backward is not written yet"):
        call_student(gelu_backward, "gelu_backward", None, None)


def test_a_slip_that_does_not_fit_the_shapes_is_not_a_crash():
    """A mistake recognised by arithmetic that needs T == S is skipped when T != S (a student's sign
    slip in the softmax backward once crashed the check with NumPy's matmul error)."""
    from grader.lessons.attention.checks import _slip

    def needs_square():
        return np.ones((3, 5)) @ np.ones((3, 5))  # ValueError: matmul shapes

    slips = [("never", needs_square), ("zeros", lambda: np.zeros((3, 5)))]
    assert _slip(np.zeros((3, 5)), (3, 5), slips) == "zeros"
