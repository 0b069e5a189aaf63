"""The LSTM hints (lstm=): each fires on its mistake, never on right or unrelated answers.

The mistakes are written here as a student would write them (`student_step_forward` /
`student_step_backward` / `student_backward`, CS231n's signatures, with switches), independently
of grader.hint_rules_lstm's reference. Gate order i, f, o, g.
"""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed, ToolkitInputError, check_close, check_gradient, diagnose
from grader.numgrad import eval_numerical_gradient_array
from tests.toolkit.hints.fixtures import fires

LSTM_CODES = {
    "lstm-gate-order",
    "lstm-no-tanh-c-path",
    "lstm-no-forget-in-dprev-c",
    "lstm-no-cell-carry",
    "lstm-c-for-tanh-c",
    "lstm-one-step",
}
PYTORCH = (0, 1, 3, 2)  # the block of a holding i, f, o, g when a is sliced as i, f, g, o


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-z))


def student_step_forward(x, prev_h, prev_c, Wx, Wh, b, *, order=(0, 1, 2, 3), c_out=False):
    """lstm_step_forward with switches: order — the block each gate i, f, o, g is read from;
    c_out — next_h = o * next_c."""
    H = prev_h.shape[1]
    a = x @ Wx + prev_h @ Wh + b
    block = [a[:, k * H : (k + 1) * H] for k in range(4)]
    i, f, o, g = (
        sigmoid(block[order[0]]),
        sigmoid(block[order[1]]),
        sigmoid(block[order[2]]),
        np.tanh(block[order[3]]),
    )
    next_c = f * prev_c + i * g
    next_h = o * (next_c if c_out else np.tanh(next_c))
    return next_h, next_c, (x, prev_h, prev_c, Wx, Wh, i, f, o, g, next_c, order, c_out)


def student_step_backward(dnext_h, dnext_c, cache, **mistakes):
    """lstm_step_backward with switches: tanh_path, forget, back_order, do_c, slope_c."""
    x, prev_h, prev_c, Wx, Wh, i, f, o, g, next_c, order, c_out = cache
    order = mistakes.get("back_order", order)
    tc = np.tanh(next_c)
    out_c = next_c if c_out or mistakes.get("do_c") else tc
    slope = 1.0 if c_out else (1 - next_c**2 if mistakes.get("slope_c") else 1 - tc**2)
    dc = dnext_c + (dnext_h * o * slope if mistakes.get("tanh_path", True) else 0)
    di, df, do, dg = dc * g, dc * prev_c, dnext_h * out_c, dc * i
    dprev_c = dc * f if mistakes.get("forget", True) else dc
    parts = [di * i * (1 - i), df * f * (1 - f), do * o * (1 - o), dg * (1 - g**2)]
    blocks = [None] * 4
    for gate, block in enumerate(order):
        blocks[block] = parts[gate]
    da = np.hstack(blocks)
    return da @ Wx.T, da @ Wh.T, dprev_c, x.T @ da, prev_h.T @ da, da.sum(axis=0)


def student_forward(x, h0, Wx, Wh, b, **switches):
    N, T, _ = x.shape
    h, c = h0, np.zeros_like(h0)
    hs, caches = [], []
    for t in range(T):
        h, c, cache = student_step_forward(x[:, t], h, c, Wx, Wh, b, **switches)
        hs.append(h)
        caches.append(cache)
    return np.stack(hs, axis=1), caches


def student_backward(dh, caches, *, carry_c=True, accumulate=True, **mistakes):
    N, T, H = dh.shape
    D = caches[0][0].shape[1]
    dx = np.zeros((N, T, D))
    dWx, dWh, db = 0, 0, 0
    dprev_h, dprev_c = np.zeros((N, H)), np.zeros((N, H))
    for t in reversed(range(T)):
        dnext_c = dprev_c if carry_c else np.zeros((N, H))
        dx[:, t], dprev_h, dprev_c, dwx, dwh, dbb = student_step_backward(
            dh[:, t] + dprev_h, dnext_c, caches[t], **mistakes
        )
        if accumulate:
            dWx, dWh, db = dWx + dwx, dWh + dwh, db + dbb
        else:
            dWx, dWh, db = dwx, dwh, dbb
    return {"dx": dx, "dh0": dprev_h, "dWx": dWx, "dWh": dWh, "db": db}


def lstm_problem(n: int, t: int, d: int, h: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((n, t, d)),
        "h0": rng.standard_normal((n, h)),
        "Wx": rng.standard_normal((d, 4 * h)) / np.sqrt(d),
        "Wh": rng.standard_normal((h, 4 * h)) / np.sqrt(h),
        "b": 0.3 * rng.standard_normal(4 * h),
        "dh": rng.standard_normal((n, t, h)),
    }


def solve_seq(p: dict, *, forward: dict | None = None, **mistakes) -> dict[str, np.ndarray]:
    """h and every gradient of the sequence p, with mistakes in the forward and the backward."""
    h, caches = student_forward(p["x"], p["h0"], p["Wx"], p["Wh"], p["b"], **(forward or {}))
    return {"h": h} | student_backward(p["dh"], caches, **mistakes)


def step_problem(n: int, d: int, h: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((n, d)),
        "prev_h": rng.standard_normal((n, h)),
        "prev_c": rng.standard_normal((n, h)),
        "Wx": rng.standard_normal((d, 4 * h)) / np.sqrt(d),
        "Wh": rng.standard_normal((h, 4 * h)) / np.sqrt(h),
        "b": 0.3 * rng.standard_normal(4 * h),
        "dnext_h": rng.standard_normal((n, h)),
        "dnext_c": rng.standard_normal((n, h)),
    }


def solve_step(p: dict, *, forward: dict | None = None, **mistakes) -> dict[str, np.ndarray]:
    args = (p["x"], p["prev_h"], p["prev_c"], p["Wx"], p["Wh"], p["b"])
    next_h, next_c, cache = student_step_forward(*args, **(forward or {}))
    grads = student_step_backward(p["dnext_h"], p["dnext_c"], cache, **mistakes)
    names = ("dx", "dprev_h", "dprev_c", "dWx", "dWh", "db")
    return {"next_h": next_h, "next_c": next_c} | dict(zip(names, grads, strict=True))


SEQ = lstm_problem(3, 4, 5, 4, seed=150)
STEP = step_problem(3, 5, 4, seed=151)
SEQ_RIGHT, STEP_RIGHT = solve_seq(SEQ), solve_step(STEP)
SEQ_FORWARD = {k: v for k, v in SEQ.items() if k != "dh"}
STEP_FORWARD = {k: v for k, v in STEP.items() if k not in ("dnext_h", "dnext_c")}

# (code, {"forward": ..., backward mistakes}, the quantities it changes) for a sequence / a step
SEQ_MISTAKES = [
    ("lstm-gate-order", {"forward": {"order": PYTORCH}}, ("h", "dx", "dh0", "dWx", "dWh", "db")),
    ("lstm-gate-order", {"forward": {"order": (3, 0, 1, 2)}}, ("h", "dx", "dWx")),
    ("lstm-gate-order", {"back_order": PYTORCH}, ("dx", "dh0", "dWx", "dWh", "db")),
    ("lstm-no-tanh-c-path", {"tanh_path": False}, ("dx", "dh0", "dWx", "dWh", "db")),
    ("lstm-no-forget-in-dprev-c", {"forget": False}, ("dx", "dh0", "dWx", "dWh", "db")),
    ("lstm-no-cell-carry", {"carry_c": False}, ("dx", "dh0", "dWx", "dWh", "db")),
    ("lstm-c-for-tanh-c", {"forward": {"c_out": True}}, ("h", "dx", "dh0", "dWx", "dWh", "db")),
    ("lstm-c-for-tanh-c", {"do_c": True}, ("dx", "dh0", "dWx", "db")),
    ("lstm-c-for-tanh-c", {"slope_c": True}, ("dx", "dWh")),
    ("lstm-c-for-tanh-c", {"do_c": True, "slope_c": True}, ("dx", "db")),
    ("lstm-one-step", {"accumulate": False}, ("dWx", "dWh", "db")),
]
STEP_MISTAKES = [
    ("lstm-gate-order", {"forward": {"order": PYTORCH}}, ("next_h", "next_c", "dx", "dprev_c", "dWx")),
    ("lstm-gate-order", {"back_order": PYTORCH}, ("dx", "dprev_h", "dWh", "db")),
    ("lstm-no-tanh-c-path", {"tanh_path": False}, ("dx", "dprev_h", "dprev_c", "dWx", "db")),
    ("lstm-no-forget-in-dprev-c", {"forget": False}, ("dprev_c",)),
    ("lstm-c-for-tanh-c", {"forward": {"c_out": True}}, ("next_h", "dx", "dprev_c", "dWh")),
    ("lstm-c-for-tanh-c", {"do_c": True}, ("dx", "dprev_h", "db")),
    ("lstm-c-for-tanh-c", {"slope_c": True}, ("dprev_c", "dWx")),
]
CASES = [("seq", code, mistakes, q) for code, mistakes, qs in SEQ_MISTAKES for q in qs] + [
    ("step", code, mistakes, q) for code, mistakes, qs in STEP_MISTAKES for q in qs
]


@pytest.mark.parametrize(("form", "code", "mistakes", "quantity"), CASES)
def test_each_lstm_mistake_is_named(form, code, mistakes, quantity):
    p, right, solve = (SEQ, SEQ_RIGHT, solve_seq) if form == "seq" else (STEP, STEP_RIGHT, solve_step)
    wrong = solve(p, **mistakes)[quantity]
    hint = diagnose(wrong, right[quantity], name=quantity, problem={"lstm": p})
    assert hint is not None and hint.code == code, hint
    assert f"your {quantity}" in hint.message and ("Look at" in hint.message or "(+=)" in hint.message)


def test_the_forward_values_need_no_upstream_gradient():
    for p, right, name in ((SEQ_FORWARD, SEQ_RIGHT, "h"), (STEP_FORWARD, STEP_RIGHT, "next_h")):
        solve = solve_seq if name == "h" else solve_step
        full = SEQ if name == "h" else STEP
        wrong = solve(full, forward={"order": PYTORCH})[name]
        hint = diagnose(wrong, right[name], name=name, problem={"lstm": p})
        assert hint.code == "lstm-gate-order" and "PyTorch's order" in hint.message


def test_gate_order_names_the_order():
    wrong = solve_step(STEP, forward={"order": PYTORCH})["dx"]
    message = diagnose(wrong, STEP_RIGHT["dx"], name="dx", problem={"lstm": STEP}).message
    assert "i, f, g, o — PyTorch's order" in message and "a[:, 2H:3H] the output gate o" in message
    wrong = solve_seq(SEQ, back_order=PYTORCH)["dWx"]
    hint = diagnose(wrong, SEQ_RIGHT["dWx"], problem={"lstm": SEQ})
    assert "puts their gradients back into da" in hint.message


def test_one_step_names_the_step():
    wrong = solve_seq(SEQ, accumulate=False)["dWh"]
    assert "t = 0 alone (of 4 steps)" in diagnose(wrong, SEQ_RIGHT["dWh"], problem={"lstm": SEQ}).message


def four_matrix_step(x, prev_h, prev_c, Wx, Wh, b):
    """A correct alternative: the four gates as separate matrices, tanh(next_c) recomputed."""
    H = prev_h.shape[1]
    gates = []
    for k in range(4):
        cols = slice(k * H, (k + 1) * H)
        gates.append(x @ Wx[:, cols] + prev_h @ Wh[:, cols] + b[cols])
    i, f, o, g = sigmoid(gates[0]), sigmoid(gates[1]), sigmoid(gates[2]), np.tanh(gates[3])
    next_c = f * prev_c + i * g
    return o * np.tanh(next_c), next_c


@pytest.mark.parametrize("form", ["seq", "step"])
def test_right_answers_give_none(form):
    p, right = (SEQ, SEQ_RIGHT) if form == "seq" else (STEP, STEP_RIGHT)
    rng = np.random.default_rng(5)
    for name, value in right.items():
        assert diagnose(value.copy(), value, name=name, problem={"lstm": p}) is None
        noisy = value + 1e-10 * rng.standard_normal(value.shape)
        assert diagnose(noisy, value, name=name, problem={"lstm": p}) is None
    next_h, next_c = four_matrix_step(*(STEP[k] for k in ("x", "prev_h", "prev_c", "Wx", "Wh", "b")))
    assert diagnose(next_h, STEP_RIGHT["next_h"], problem={"lstm": STEP}) is None
    assert diagnose(next_c, STEP_RIGHT["next_c"], problem={"lstm": STEP}) is None


def test_numerical_gradients_are_recognised_as_expected():
    """check_gradient's expected is a numerical gradient: the rules still know which it is."""
    p = STEP

    def f(x):
        return np.concatenate(
            student_step_forward(x, *(p[k] for k in ("prev_h", "prev_c", "Wx", "Wh", "b")))[:2], 1
        )

    dout = np.concatenate([p["dnext_h"], p["dnext_c"]], axis=1)
    numeric = eval_numerical_gradient_array(f, p["x"].copy(), dout)
    wrong = solve_step(p, tanh_path=False)["dx"]
    assert diagnose(wrong, numeric, name="dx", problem={"lstm": p}).code == "lstm-no-tanh-c-path"
    with pytest.raises(CheckFailed) as failure:
        check_gradient("dx", f, p["x"].copy(), wrong, dout=dout, problem={"lstm": p})
    assert failure.value.results[0].hint.code == "lstm-no-tanh-c-path"


@pytest.mark.parametrize("form", ["seq", "step"])
def test_unrelated_wrong_arrays_get_no_lstm_hint(form):
    p, right = (SEQ, SEQ_RIGHT) if form == "seq" else (STEP, STEP_RIGHT)
    rng = np.random.default_rng(6)
    for value in right.values():
        for _ in range(10):
            other = rng.standard_normal(value.shape)
            assert getattr(diagnose(other, value, problem={"lstm": p}), "code", None) not in LSTM_CODES
            near = value * (1 + 0.05 * rng.standard_normal(value.shape))
            assert getattr(diagnose(near, value, problem={"lstm": p}), "code", None) not in LSTM_CODES


def test_the_mistakes_need_the_problem_of_expected():
    wrong = solve_seq(SEQ, carry_c=False)["dx"]
    assert getattr(diagnose(wrong, SEQ_RIGHT["dx"]), "code", None) not in LSTM_CODES  # no context
    other = lstm_problem(3, 4, 5, 4, seed=152)
    assert getattr(diagnose(wrong, SEQ_RIGHT["dx"], problem={"lstm": other}), "code", None) not in LSTM_CODES
    # one step of length 1: nothing to carry, nothing to accumulate
    short = lstm_problem(2, 1, 3, 2, seed=153)
    right = solve_seq(short)
    for mistake in ({"carry_c": False}, {"accumulate": False}, {"forget": False}):
        assert diagnose(solve_seq(short, **mistake)["dWx"], right["dWx"], problem={"lstm": short}) is None


def test_generic_hints_still_win_where_no_lstm_mistake_fits():
    assert diagnose(-SEQ_RIGHT["dx"], SEQ_RIGHT["dx"], problem={"lstm": SEQ}).code == "sign"
    assert diagnose(SEQ_RIGHT["dWx"].T, SEQ_RIGHT["dWx"], problem={"lstm": SEQ}).code == "transpose"
    db_rows = np.ones((3, 16))
    hint = diagnose(db_rows, SEQ_RIGHT["db"], problem={"lstm": SEQ})
    assert hint.code in ("shape", "not-summed-over-batch")


def test_check_close_takes_lstm():
    with pytest.raises(CheckFailed) as failure:
        wrong = solve_step(STEP, forget=False)["dprev_c"]
        check_close("dprev_c", wrong, STEP_RIGHT["dprev_c"], problem={"lstm": STEP})
    assert failure.value.results[0].hint.code == "lstm-no-forget-in-dprev-c"
    assert check_close("dx", SEQ_RIGHT["dx"], SEQ_RIGHT["dx"], problem={"lstm": SEQ}).passed


@pytest.mark.parametrize(
    ("lstm", "words"),
    [
        ("x", r"lstm must be a dict with x \(N, T, D\), h0"),
        ({"x": SEQ["x"]}, r"lstm \(a sequence\) must be a dict with x, h0, Wx, Wh, b .*lacks h0"),
        (SEQ | {"c0": SEQ["h0"]}, r"unknown key\(s\) c0"),
        (STEP | {"dh": SEQ["dh"]}, r"lstm \(one step\) .*unknown key\(s\) dh"),
        (SEQ | {"Wh": np.ones((4, 4))}, r"the arrays of lstm do not fit together .*Wh \(4, 4\)"),
        (SEQ | {"b": np.ones(15)}, r"do not fit together"),
        (SEQ | {"dh": np.ones((3, 4, 5))}, r"do not fit together"),
        (STEP | {"x": SEQ["x"]}, r"do not fit together"),
        ({k: v for k, v in STEP.items() if k != "dnext_c"}, r"dnext_h and dnext_c together"),
        (SEQ | {"x": SEQ["x"].astype(np.float32)}, r"lstm\['x'\] must be a float64 array"),
        (SEQ | {"h0": np.full((3, 4), np.nan)}, r"lstm\['h0'\] must hold finite numbers"),
    ],
)
def test_bad_context_is_refused(lstm, words):
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(SEQ_RIGHT["dx"], SEQ_RIGHT["dx"], problem={"lstm": lstm})


def test_an_expected_of_no_lstm_shape_is_refused():
    with pytest.raises(ToolkitInputError, match=r"with lstm, expected must be one of the LSTM's"):
        check_close("dx", np.ones(7), np.ones(7), problem={"lstm": SEQ})
    with pytest.raises(ToolkitInputError, match=r"with lstm, expected must be"):
        diagnose(SEQ_RIGHT["dx"], SEQ_RIGHT["dx"], problem={"lstm": SEQ_FORWARD})  # gradients need dh


#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "lstm-gate-order",
        solve_step(STEP, forward={"order": PYTORCH})["dx"],
        STEP_RIGHT["dx"],
        {"problem": {"lstm": STEP}},
        [r"in the order i, f, g, o — PyTorch's order", r"slice a into the gates"],
    ),
    (
        "lstm-no-tanh-c-path",
        solve_seq(SEQ, tanh_path=False)["dx"],
        SEQ_RIGHT["dx"],
        {"problem": {"lstm": SEQ}},
        [r"only receives dnext_c", r"through the output gate and the tanh"],
    ),
    (
        "lstm-no-forget-in-dprev-c",
        solve_step(STEP, forget=False)["dprev_c"],
        STEP_RIGHT["dprev_c"],
        {"problem": {"lstm": STEP}},
        [r"scaled by the forget gate", r"the line that computes dprev_c"],
    ),
    (
        "lstm-no-cell-carry",
        solve_seq(SEQ, carry_c=False)["dWh"],
        SEQ_RIGHT["dWh"],
        {"problem": {"lstm": SEQ}},
        [r"zero cell gradient", r"the dprev_c that step t\+1 returned"],
    ),
    (
        "lstm-c-for-tanh-c",
        solve_step(STEP, forward={"c_out": True})["next_h"],
        STEP_RIGHT["next_h"],
        {"problem": {"lstm": STEP}},
        [r"next_c where tanh\(next_c\) belongs", r"the line that computes next_h"],
    ),
    (
        "lstm-one-step",
        solve_seq(SEQ, accumulate=False)["db"],
        SEQ_RIGHT["db"],
        {"problem": {"lstm": SEQ}},
        [r"t = 0 alone \(of 4 steps\)", r"\(\+=\)"],
    ),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)
