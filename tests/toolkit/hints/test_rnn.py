"""grader.hints.rnn: backpropagation through time (the `rnn` problem)."""

from __future__ import annotations

import numpy as np
import pytest

from grader import HINT_CODES, diagnose
from tests.toolkit.hints.fixtures import codes_of, fires


def rnn_problem(n: int, t: int, d: int, h: int, seed: int) -> dict[str, np.ndarray]:
    """A vanilla RNN problem as lesson 10 builds it (x, h0, Wx, Wh, b, dh)."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((n, t, d)),
        "h0": rng.uniform(-1, 1, size=(n, h)),
        "Wx": rng.standard_normal((d, h)) / np.sqrt(d),
        "Wh": rng.standard_normal((h, h)) / np.sqrt(h),
        "b": 0.5 * rng.standard_normal(h),
        "dh": rng.standard_normal((n, t, h)),
    }


def rnn_backward(p: dict, *, carry: bool = True, accumulate: bool = True, slope_after: bool = False) -> dict:
    """BPTT written as a student would, with one of the three mistakes switched on."""
    x, h0, wx, wh, b, dh = (p[k] for k in ("x", "h0", "Wx", "Wh", "b", "dh"))
    states = [h0]
    for t in range(x.shape[1]):
        states.append(np.tanh(x[:, t] @ wx + states[-1] @ wh + b))
    dx, dwx, dwh, db = np.zeros(x.shape), np.zeros(wx.shape), np.zeros(wh.shape), np.zeros(b.shape)
    dprev = np.zeros(h0.shape)
    for t in reversed(range(x.shape[1])):
        g = dh[:, t] + dprev if carry else dh[:, t]
        da = g * (1 - states[t + 1] ** 2)
        dx[:, t] = da @ wx.T
        dprev = g @ wh.T * (1 - states[t + 1] ** 2) if slope_after else da @ wh.T
        if accumulate:
            dwx, dwh, db = dwx + x[:, t].T @ da, dwh + states[t].T @ da, db + da.sum(0)
        else:
            dwx, dwh, db = x[:, t].T @ da, states[t].T @ da, da.sum(0)
    return {"dx": dx, "dh0": dprev, "dWx": dwx, "dWh": dwh, "db": db}


RNN_P = rnn_problem(3, 4, 2, 5, seed=81)


RNN_RIGHT = rnn_backward(RNN_P)


RNN_STEP = {  # one step of the same problem, as lesson 10's step_problem
    "x": RNN_P["x"][:, 0],
    "prev_h": RNN_P["h0"],
    "Wx": RNN_P["Wx"],
    "Wh": RNN_P["Wh"],
    "b": RNN_P["b"],
    "dnext_h": RNN_P["dh"][:, 0],
}


RNN_STEP_P = {k: RNN_P[k][:, :1] if k in ("x", "dh") else RNN_P[k] for k in RNN_P}


#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "rnn-no-carry",
        rnn_backward(RNN_P, carry=False)["dx"],
        RNN_RIGHT["dx"],
        {"problem": {"rnn": RNN_P}},
        [r"each step only receives dh\[:, t\]", r"from step t\+1", r"plus the dprev_h"],
    ),
    (
        "rnn-no-carry",
        rnn_backward(RNN_P, carry=False)["dWh"],
        RNN_RIGHT["dWh"],
        {"problem": {"rnn": RNN_P}},
        [r"t\+1"],
    ),
    (
        "rnn-one-step",
        rnn_backward(RNN_P, accumulate=False)["dWx"],
        RNN_RIGHT["dWx"],
        {"problem": {"rnn": RNN_P}},
        [r"share of time step t = 0 alone \(of 4 steps\)", r"add \(\+=\)", r"overwriting it \(=\)"],
    ),
    (
        "rnn-slope-after-matmul",
        rnn_backward(RNN_P, slope_after=True)["dh0"],
        RNN_RIGHT["dh0"],
        {"problem": {"rnn": RNN_P}},
        [r"slope after the product with Wh:", r"da = dnext_h \* \(1 − next_h²\)", r"before the weights"],
    ),
    (
        "rnn-slope-after-matmul",
        rnn_backward(RNN_STEP_P, slope_after=True)["dh0"],
        rnn_backward(RNN_STEP_P)["dh0"],
        {"problem": {"rnn": RNN_STEP}},
        [r"then dprev_h = da @ Wh\.T"],
    ),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_rnn_rules_need_expected_to_match_the_problem():
    other = rnn_problem(3, 4, 2, 5, seed=82)
    mistaken = rnn_backward(RNN_P, carry=False)["dx"]
    rnn_codes = {code for code in HINT_CODES if code.startswith("rnn-")}
    hint = diagnose(mistaken, RNN_RIGHT["dx"], problem={"rnn": other})  # another problem
    assert codes_of(hint) not in rnn_codes
    assert codes_of(diagnose(mistaken, RNN_RIGHT["dx"])) not in rnn_codes  # no problem given
    # one step (T = 1): no carry and no `+=` to get wrong
    step = rnn_backward(RNN_STEP_P)
    no_carry = rnn_backward(RNN_STEP_P, carry=False)["dWh"]
    assert diagnose(no_carry, step["dWh"], problem={"rnn": RNN_STEP}) is None
