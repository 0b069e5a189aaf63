"""Alternative correct solutions and typical mistakes for course/11_lstm.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Graded cells (23 points):
  test_lstm_step_forward_next_h (2), _next_c (1),
  test_lstm_step_backward_dx (1), _dprev_h (2), _dprev_c (2), _dWx (1), _dWh (1), _db (1),
  test_lstm_forward (2),
  test_lstm_backward_dx (2), _dh0 (1), _dWx (1), _dWh (2), _db (1),
  test_tbptt_one_chunk, test_tbptt_carry, test_tbptt_truncated (1 each).

Every check compares with PyTorch: the backward checks with the true gradient of the LSTM
(LSTMCell's or LSTM's autograd), once the student's forward matches PyTorch's (a wrong forward
costs its backward cells too, with "fix it first"). The reference lstm_backward is written inline
(it does not call lstm_step_backward), and so is every lstm_backward below: a step-backward
mistake then reaches the step and truncated-BPTT cells only.
"""

_STEP_BACKWARD = [f"test_lstm_step_backward_{g}" for g in ("dx", "dprev_h", "dprev_c", "dWx", "dWh", "db")]
_SEQUENCE_BACKWARD = [f"test_lstm_backward_{g}" for g in ("dx", "dh0", "dWx", "dWh", "db")]
_ALL = ["test_lstm_step_forward_next_h", "test_lstm_step_forward_next_c", *_STEP_BACKWARD,
        "test_lstm_forward", *_SEQUENCE_BACKWARD,
        "test_tbptt_one_chunk", "test_tbptt_carry", "test_tbptt_truncated"]

# The reference cells, as a student would write them (markers removed).
_REFERENCE = {
    "lstm_step_forward": '''\
def lstm_step_forward(x, prev_h, prev_c, Wx, Wh, b):
    H = prev_h.shape[1]
    a = x @ Wx + prev_h @ Wh + b
    i = sigmoid(a[:, :H])
    f = sigmoid(a[:, H:2 * H])
    o = sigmoid(a[:, 2 * H:3 * H])
    g = np.tanh(a[:, 3 * H:])
    next_c = f * prev_c + i * g
    tanh_c = np.tanh(next_c)
    next_h = o * tanh_c
    cache = (x, prev_h, prev_c, Wx, Wh, i, f, o, g, tanh_c)
    return next_h, next_c, cache
''',
    "lstm_step_backward": '''\
def lstm_step_backward(dnext_h, dnext_c, cache):
    x, prev_h, prev_c, Wx, Wh, i, f, o, g, tanh_c = cache
    dc = dnext_c + dnext_h * o * (1.0 - tanh_c ** 2)
    do = dnext_h * tanh_c
    di = dc * g
    df = dc * prev_c
    dg = dc * i
    dprev_c = dc * f
    da = np.concatenate([di * i * (1 - i), df * f * (1 - f), do * o * (1 - o), dg * (1 - g ** 2)], axis=1)
    dx = da @ Wx.T
    dprev_h = da @ Wh.T
    dWx = x.T @ da
    dWh = prev_h.T @ da
    db = da.sum(axis=0)
    return dx, dprev_h, dprev_c, dWx, dWh, db
''',
    "lstm_forward": '''\
def lstm_forward(x, h0, Wx, Wh, b):
    N, T, _ = x.shape
    H = h0.shape[1]
    h = np.zeros((N, T, H))
    prev_h, prev_c = h0, np.zeros((N, H))
    cache = []
    for t in range(T):
        prev_h, prev_c, step_cache = lstm_step_forward(x[:, t, :], prev_h, prev_c, Wx, Wh, b)
        h[:, t, :] = prev_h
        cache.append(step_cache)
    return h, cache
''',
    "lstm_backward": '''\
def lstm_backward(dh, cache):
    N, T, H = dh.shape
    dx_steps = [None] * T
    dWx = dWh = db = 0.0
    dprev_h = np.zeros((N, H))
    dprev_c = np.zeros((N, H))
    for t in reversed(range(T)):
        x, prev_h, prev_c, Wx, Wh, i, f, o, g, tanh_c = cache[t]
        dnext_h = dh[:, t, :] + dprev_h
        dc = dprev_c + dnext_h * o * (1.0 - tanh_c ** 2)
        da = np.concatenate([dc * g * i * (1 - i), dc * prev_c * f * (1 - f),
                             dnext_h * tanh_c * o * (1 - o), dc * i * (1 - g ** 2)], axis=1)
        dx_steps[t] = da @ Wx.T
        dprev_h = da @ Wh.T
        dprev_c = dc * f
        dWx = dWx + x.T @ da
        dWh = dWh + prev_h.T @ da
        db = db + da.sum(axis=0)
    dx = np.stack(dx_steps, axis=1)
    dh0 = dprev_h
    return dx, dh0, dWx, dWh, db
''',
    "lstm_truncated_bptt": '''\
def lstm_truncated_bptt(x, h0, Wx, Wh, b, dh, chunk):
    N, T, _ = x.shape
    H = h0.shape[1]
    h = np.zeros((N, T, H))
    dWx, dWh, db = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    prev_h, prev_c = h0, np.zeros((N, H))
    for start in range(0, T, chunk):
        steps = range(start, min(start + chunk, T))
        caches = []
        for t in steps:
            prev_h, prev_c, step_cache = lstm_step_forward(x[:, t, :], prev_h, prev_c, Wx, Wh, b)
            h[:, t, :] = prev_h
            caches.append(step_cache)
        dnext_h, dnext_c = np.zeros((N, H)), np.zeros((N, H))
        for t, step_cache in zip(reversed(steps), reversed(caches)):
            grads = lstm_step_backward(dh[:, t, :] + dnext_h, dnext_c, step_cache)
            _, dnext_h, dnext_c, dWx_t, dWh_t, db_t = grads
            dWx += dWx_t
            dWh += dWh_t
            db += db_t
    return h, dWx, dWh, db
'''
}


def _variant(cell: str, *edits: tuple[str, str]) -> dict[str, str]:
    """{cell: the reference cell with each `old` text (which must occur exactly once) replaced}."""
    source = _REFERENCE[cell]
    for old, new in edits:
        assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in {cell}"
        source = source.replace(old, new)
    return {cell: source}


_STEP_BACKWARD = [f"test_lstm_step_backward_{g}" for g in ("dx", "dprev_h", "dprev_c", "dWx", "dWh", "db")]
_LSTM_BACKWARD = [f"test_lstm_backward_{g}" for g in ("dx", "dh0", "dWx", "dWh", "db")]
_TBPTT_GRADS = ["test_tbptt_one_chunk", "test_tbptt_truncated"]

ALTERNATIVES = {
    # The time axis moved to the front, the states stacked at the end, a tuple cache.
    "lstm_forward": '''\
def lstm_forward(x, h0, Wx, Wh, b):
    states, caches = [], []
    h_t, c_t = h0, np.zeros_like(h0)
    for x_t in np.moveaxis(x, 1, 0):
        h_t, c_t, step = lstm_step_forward(x_t, h_t, c_t, Wx, Wh, b)
        states.append(h_t)
        caches.append(step)
    return np.stack(states, axis=1), tuple(caches)
''',
    # Inline again, but all da_t first (the two carries), then the shared weights in one einsum each.
    "lstm_backward": '''\
def lstm_backward(dh, cache):
    N, T, H = dh.shape
    xs = np.stack([c[0] for c in cache], axis=1)
    prevs = np.stack([c[1] for c in cache], axis=1)
    Wx, Wh = cache[0][3], cache[0][4]
    da = np.empty((N, T, 4 * H))
    carry_h, carry_c = np.zeros((N, H)), np.zeros((N, H))
    for t in range(T - 1, -1, -1):
        _, _, prev_c, _, _, i, f, o, g, tc = cache[t]
        gh = dh[:, t] + carry_h
        gc = carry_c + gh * o * (1 - tc * tc)
        da[:, t] = np.hstack([gc * g * i * (1 - i), gc * prev_c * f * (1 - f),
                              gh * tc * o * (1 - o), gc * i * (1 - g * g)])
        carry_h, carry_c = da[:, t] @ Wh.T, gc * f
    dx = da @ Wx.T
    dWx = np.einsum("ntd,ntk->dk", xs, da)
    dWh = np.einsum("nth,ntk->hk", prevs, da)
    return dx, carry_h, dWx, dWh, da.sum(axis=(0, 1))
''',
}

MISTAKES = [
    {
        # Equivalent, not a mistake: the four gates as four separate matrix products (Wx, Wh, b
        # split into blocks), a dict cache holding the pre-activations and next_c instead of
        # tanh(next_c), which the backward pass recomputes; dWx and dWh concatenated from the
        # four blocks. lstm_backward (inline, reading this cache) and the truncated BPTT (a
        # while loop over the chunks) written to match.
        "name": "four gate matrices, a dict cache, tanh(next_c) recomputed (equivalent)",
        "cells": {
            "lstm_step_forward": '''\
def lstm_step_forward(x, prev_h, prev_c, Wx, Wh, b):
    Wxi, Wxf, Wxo, Wxg = np.split(Wx, 4, axis=1)
    Whi, Whf, Who, Whg = np.split(Wh, 4, axis=1)
    bi, bf, bo, bg = np.split(b, 4)
    ai = x @ Wxi + prev_h @ Whi + bi
    af = x @ Wxf + prev_h @ Whf + bf
    ao = x @ Wxo + prev_h @ Who + bo
    ag = x @ Wxg + prev_h @ Whg + bg
    i, f, o, g = sigmoid(ai), sigmoid(af), sigmoid(ao), np.tanh(ag)
    next_c = f * prev_c + i * g
    next_h = o * np.tanh(next_c)
    cache = {"x": x, "prev_h": prev_h, "prev_c": prev_c, "Wx": Wx, "Wh": Wh,
             "a": (ai, af, ao, ag), "next_c": next_c}
    return next_h, next_c, cache
''',
            "lstm_step_backward": '''\
def lstm_step_backward(dnext_h, dnext_c, cache):
    ai, af, ao, ag = cache["a"]
    i, f, o, g = sigmoid(ai), sigmoid(af), sigmoid(ao), np.tanh(ag)
    tc = np.tanh(cache["next_c"])
    dc = dnext_c + dnext_h * o * (1 - tc) * (1 + tc)
    blocks = [dc * g * i * (1 - i), dc * cache["prev_c"] * f * (1 - f), dnext_h * tc * o * (1 - o),
              dc * i * (1 - g) * (1 + g)]
    Wx_blocks = np.split(cache["Wx"], 4, axis=1)
    Wh_blocks = np.split(cache["Wh"], 4, axis=1)
    dx = sum(d @ w.T for d, w in zip(blocks, Wx_blocks))
    dprev_h = sum(d @ w.T for d, w in zip(blocks, Wh_blocks))
    dWx = np.concatenate([cache["x"].T @ d for d in blocks], axis=1)
    dWh = np.concatenate([cache["prev_h"].T @ d for d in blocks], axis=1)
    db = np.concatenate([d.sum(axis=0) for d in blocks])
    return dx, dprev_h, dc * f, dWx, dWh, db
''',
            "lstm_backward": '''\
def lstm_backward(dh, cache):
    N, T, H = dh.shape
    dx = np.zeros((N, T, cache[0]["x"].shape[1]))
    dWx, dWh, db = 0, 0, 0
    gh_next, gc_next = np.zeros((N, H)), np.zeros((N, H))
    for t in reversed(range(T)):
        step = cache[t]
        ai, af, ao, ag = step["a"]
        i, f, o, g = sigmoid(ai), sigmoid(af), sigmoid(ao), np.tanh(ag)
        tc = np.tanh(step["next_c"])
        gh = dh[:, t] + gh_next
        gc = gc_next + gh * o * (1 - tc ** 2)
        da = np.concatenate([gc * g * i * (1 - i), gc * step["prev_c"] * f * (1 - f),
                             gh * tc * o * (1 - o), gc * i * (1 - g ** 2)], axis=1)
        dx[:, t] = da @ step["Wx"].T
        dWx += step["x"].T @ da
        dWh += step["prev_h"].T @ da
        db += da.sum(axis=0)
        gh_next, gc_next = da @ step["Wh"].T, gc * f
    return dx, gh_next, dWx, dWh, db
''',
            "lstm_truncated_bptt": '''\
def lstm_truncated_bptt(x, h0, Wx, Wh, b, dh, chunk):
    N, T, _ = x.shape
    states = []
    grads = [np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)]
    h, c = h0.copy(), np.zeros_like(h0)
    start = 0
    while start < T:
        stop = min(T, start + chunk)
        caches = []
        for t in range(start, stop):
            h, c, step = lstm_step_forward(x[:, t], h, c, Wx, Wh, b)
            states.append(h)
            caches.append(step)
        gh, gc = np.zeros_like(h), np.zeros_like(c)
        for t in range(stop - 1, start - 1, -1):
            _, gh, gc, *shares = lstm_step_backward(dh[:, t] + gh, gc, caches[t - start])
            grads = [total + share for total, share in zip(grads, shares)]
        start = stop
    return (np.stack(states, axis=1), *grads)
''',
        },
        "must_fail": [],
    },
    {
        # PyTorch's gate order i, f, g, o used throughout (forward slices, backward blocks): the
        # backward passes are right for that forward, which is not this lesson's LSTM, so every
        # value checked against PyTorch is wrong.
        "name": "gates in PyTorch's order i, f, g, o (lstm-gate-order)",
        "cells": {
            **_variant(
                "lstm_step_forward",
                ("o = sigmoid(a[:, 2 * H:3 * H])", "o = sigmoid(a[:, 3 * H:])"),
                ("g = np.tanh(a[:, 3 * H:])", "g = np.tanh(a[:, 2 * H:3 * H])"),
            ),
            **_variant(
                "lstm_step_backward",
                ("do * o * (1 - o), dg * (1 - g ** 2)]", "dg * (1 - g ** 2), do * o * (1 - o)]"),
            ),
            **_variant(
                "lstm_backward",
                ("dnext_h * tanh_c * o * (1 - o), dc * i * (1 - g ** 2)]",
                 "dc * i * (1 - g ** 2), dnext_h * tanh_c * o * (1 - o)]"),
            ),
        },
        "must_fail": ["test_lstm_step_forward_next_h", "test_lstm_step_forward_next_c", "test_lstm_forward",
                      *_STEP_BACKWARD, *_SEQUENCE_BACKWARD,
                      "test_tbptt_one_chunk", "test_tbptt_carry", "test_tbptt_truncated"],
        "message": "fix it first",
        "message_cells": [*_STEP_BACKWARD, *_SEQUENCE_BACKWARD],
    },
    {
        # The total cell gradient without the path through next_h = o * tanh(next_c).
        "name": "dnext_h's path through tanh(next_c) missing from dc (lstm-no-tanh-c-path)",
        "cells": _variant("lstm_step_backward",
                          ("dc = dnext_c + dnext_h * o * (1.0 - tanh_c ** 2)", "dc = dnext_c")),
        "must_fail": _STEP_BACKWARD + _TBPTT_GRADS,
    },
    {
        # The gradient passed to the previous cell state without the forget gate.
        "name": "dprev_c without the forget gate (lstm-no-forget-in-dprev-c)",
        "cells": _variant("lstm_step_backward", ("dprev_c = dc * f", "dprev_c = dc")),
        "must_fail": ["test_lstm_step_backward_dprev_c"] + _TBPTT_GRADS,
    },
    {
        # next_c where tanh(next_c) belongs, in the output gate's gradient (next_c recovered
        # from the cached tanh(next_c), the numbers of a student who cached next_c itself).
        "name": "do = dnext_h * next_c instead of dnext_h * tanh(next_c) (lstm-c-for-tanh-c)",
        "cells": _variant("lstm_step_backward",
                          ("do = dnext_h * tanh_c", "do = dnext_h * np.arctanh(tanh_c)")),
        "must_fail": [g for g in _STEP_BACKWARD if g != "test_lstm_step_backward_dprev_c"] + _TBPTT_GRADS,
    },
    {
        # Step t's cell gradient starts from its own tanh path only: nothing carried from t+1.
        "name": "cell gradient not carried across time (lstm-no-cell-carry)",
        "cells": _variant("lstm_backward",
                          ("dc = dprev_c + dnext_h * o * (1.0 - tanh_c ** 2)",
                           "dc = dnext_h * o * (1.0 - tanh_c ** 2)")),
        "must_fail": _LSTM_BACKWARD,
    },
    {
        # `=` instead of summing: the shared weights keep the share of the last step visited (t = 0).
        "name": "shared weight gradients overwritten instead of summed (lstm-one-step)",
        "cells": _variant(
            "lstm_backward",
            ("dWx = dWx + x.T @ da", "dWx = x.T @ da"),
            ("dWh = dWh + prev_h.T @ da", "dWh = prev_h.T @ da"),
            ("db = db + da.sum(axis=0)", "db = da.sum(axis=0)"),
        ),
        "must_fail": ["test_lstm_backward_dWx", "test_lstm_backward_dWh", "test_lstm_backward_db"],
        # The lesson counts steps from 1 (array index t is step t + 1): the hint says both.
        "message": "t = 0 alone (of 4 steps), step 1 when counted from 1",
    },
    {
        # The memory reset at every chunk (as lstm_forward per chunk would do): h is no longer the
        # full forward pass, and the gradients follow; with one chunk nothing changes.
        "name": "truncated BPTT resets the cell state at every chunk",
        "cells": _variant("lstm_truncated_bptt",
                          ("        caches = []\n",
                           "        caches = []\n        prev_c = np.zeros((N, H))\n")),
        "must_fail": ["test_tbptt_carry", "test_tbptt_truncated"],
    },
    {
        # A layer that is not an LSTM, with the backward pass of that layer: right for its own
        # forward, wrong for the LSTM the brief defines (it scored 8 of 23 when the backward was
        # checked against the student's own forward). Blank-equivalent now.
        "name": "not an LSTM (next_h = tanh(x Wx[:, :H]), next_c = c / 2) with its own backward",
        "cells": {
            "lstm_step_forward": """\
def lstm_step_forward(x, prev_h, prev_c, Wx, Wh, b):
    H = prev_h.shape[1]
    next_h = np.tanh(x @ Wx[:, :H])
    return next_h, 0.5 * prev_c, (x, Wx, next_h, H)
""",
            "lstm_step_backward": """\
def lstm_step_backward(dnext_h, dnext_c, cache):
    x, Wx, next_h, H = cache
    da = dnext_h * (1 - next_h ** 2)
    dWx = np.zeros_like(Wx)
    dWx[:, :H] = x.T @ da
    return da @ Wx[:, :H].T, np.zeros_like(next_h), 0.5 * dnext_c, dWx, np.zeros((H, 4 * H)), np.zeros(4 * H)
""",
        },
        "must_fail": _ALL,
        "message": "fix it first",
        "message_cells": _STEP_BACKWARD,
    },
    {
        # The forward passes handed to the lesson's referees (no autograd, so by_hand alone let them
        # run: 5 of 23 points). With PyTorch refused inside every graded function, the forwards score
        # nothing, and neither do the backward cells, which need the student's forward first.
        "name": "forwards that call torch_lstm_step and torch_lstm",
        "cells": {
            "lstm_step_forward": """\
def lstm_step_forward(x, prev_h, prev_c, Wx, Wh, b):
    next_h, next_c = torch_lstm_step(x, prev_h, prev_c, Wx, Wh, b)[:2]
    return next_h, next_c, (x, prev_h, prev_c, Wx, Wh, b)
""",
            "lstm_forward": """\
def lstm_forward(x, h0, Wx, Wh, b):
    return torch_lstm(x, h0, Wx, Wh, b), (x, h0, Wx, Wh, b)
""",
        },
        "must_fail": _ALL,
        "message": "torch_lstm_step is one of the course's references",
        "message_cells": ["test_lstm_step_forward_next_h", "test_lstm_step_forward_next_c", *_STEP_BACKWARD],
    },
    {
        # The whole sequence handed to torch.nn.LSTM, the weights copied in PyTorch's layout: refused
        # as PyTorch inside a NumPy exercise, in the visible check as in the hidden tests.
        "name": "lstm_forward handed to torch.nn.LSTM",
        "cells": {"lstm_forward": """\
def lstm_forward(x, h0, Wx, Wh, b):
    N, T, D = x.shape
    H = h0.shape[1]
    order = np.r_[0:2 * H, 3 * H:4 * H, 2 * H:3 * H]   # i, f, o, g -> PyTorch's i, f, g, o
    lstm = torch.nn.LSTM(D, H, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        lstm.weight_ih_l0.copy_(torch.tensor(Wx[:, order].T))
        lstm.weight_hh_l0.copy_(torch.tensor(Wh[:, order].T))
        lstm.bias_ih_l0.copy_(torch.tensor(b[order]))
        lstm.bias_hh_l0.zero_()
    c0 = torch.zeros(1, N, H, dtype=torch.float64)
    h, _ = lstm(torch.tensor(x), (torch.tensor(h0)[None], c0))
    return h.detach().numpy(), (x, h0, Wx, Wh, b)
"""},
        "must_fail": ["test_lstm_forward", *_LSTM_BACKWARD],
        "message": "PyTorch is the referee of the checks, not the answer",
    },
    {
        # The forget gate applied to prev_c in place: next_c is right, the caller's prev_c is not
        # (and the cache now holds f * prev_c where the backward pass needs prev_c).
        "name": "lstm_step_forward scales prev_c by the forget gate in place",
        "cells": _variant("lstm_step_forward", ("next_c = f * prev_c + i * g",
                                                "prev_c *= f\n    next_c = prev_c + i * g")),
        # inside lstm_forward prev_c is the loop's own array, so h stays right; the cached prev_c
        # does not, and every gradient that reads it is off
        "must_fail": ["test_lstm_step_forward_next_h", "test_lstm_step_forward_next_c", *_STEP_BACKWARD,
                      *_LSTM_BACKWARD, *_TBPTT_GRADS],
        "message": "changed its argument prev_c in place",
        "message_cells": ["test_lstm_step_forward_next_h", "test_lstm_step_forward_next_c", *_STEP_BACKWARD],
    },
    {
        # A backward pass may use up its cache (the declaration lists cache in `changes`): popping the
        # steps off the list is a correct walk (equivalent).
        "name": "lstm_backward pops the steps off its cache (equivalent)",
        "cells": _variant("lstm_backward", ("x, prev_h, prev_c, Wx, Wh, i, f, o, g, tanh_c = cache[t]",
                                            "x, prev_h, prev_c, Wx, Wh, i, f, o, g, tanh_c = cache.pop()")),
        "must_fail": [],
    },
    {
        # "Do not change dh in place": the carried gradient added into dh itself.
        "name": "lstm_backward adds the carried gradient into dh",
        "cells": _variant("lstm_backward", ("dnext_h = dh[:, t, :] + dprev_h",
                                            "dnext_h = dh[:, t, :]\n        dnext_h += dprev_h")),
        "must_fail": _LSTM_BACKWARD,
        "message": "changed its argument dh in place",
    },
    {
        # Truncated BPTT from the lesson's other functions (equivalent; section 6's Hint 2): one
        # lstm_forward over the whole sequence (its h is the full forward pass), then lstm_backward
        # on each chunk's slice of dh and of the per-step list cache (it starts from zero carries
        # and drops the first step's dprev_h, dprev_c: the truncation).
        "name": "truncated BPTT: one lstm_forward, lstm_backward on each chunk's slice (equivalent)",
        "cells": {"lstm_truncated_bptt": """\
def lstm_truncated_bptt(x, h0, Wx, Wh, b, dh, chunk):
    h, cache = lstm_forward(x, h0, Wx, Wh, b)
    dWx, dWh, db = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    for s in range(0, x.shape[1], chunk):
        _, _, dWx_c, dWh_c, db_c = lstm_backward(dh[:, s:s + chunk], cache[s:s + chunk])
        dWx, dWh, db = dWx + dWx_c, dWh + dWh_c, db + db_c
    return h, dWx, dWh, db
"""},
        "must_fail": [],
    },
    {
        # Four gate matrices sliced out of Wx and Wh, each gate its own product (equivalent).
        "name": "alternative: lstm_step_forward with four separate gate matrices",
        "cells": {"lstm_step_forward": """\
def lstm_step_forward(x, prev_h, prev_c, Wx, Wh, b):
    H = prev_h.shape[1]
    gate = lambda k: x @ Wx[:, k * H:(k + 1) * H] + prev_h @ Wh[:, k * H:(k + 1) * H] + b[k * H:(k + 1) * H]
    i, f, o = (1 / (1 + np.exp(-gate(k))) for k in range(3))
    g = np.tanh(gate(3))
    next_c = f * prev_c + i * g
    tanh_c = np.tanh(next_c)
    return o * tanh_c, next_c, (x, prev_h, prev_c, Wx, Wh, i, f, o, g, tanh_c)
"""},
        "must_fail": [],
    },
]
