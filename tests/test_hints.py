"""Tests for grader.hints: every rule fires on its pattern and never on right or random answers."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from grader import HINT_CODES, CheckFailed, Hint, ToolkitInputError, check_dropout, diagnose
from grader.hints import is_gradient_name
from tests.test_hint_rules_conv import (
    CONV,
    CONV1,
    CONV1_RIGHT,
    CONV_RIGHT,
    POOL,
    POOL2,
    POOL2_RIGHT,
    POOL_RIGHT,
    POOL_SHARED,
    POOL_SHARED_RIGHT,
    solve_conv,
    solve_pool,
)
from tests.test_hint_rules_lstm import PYTORCH, SEQ, SEQ_RIGHT, STEP, STEP_RIGHT, solve_seq, solve_step
from tests.test_hint_rules_norm import (
    BN,
    BN_RIGHT,
    LN,
    LN_RIGHT,
    RUN,
    RUN_RIGHT,
    TEST,
    TEST_BATCH,
    TEST_RIGHT,
    solve,
)
from tests.test_hint_rules_optim import CONFIGS, GRADS, W0, problem, run

RNG = np.random.default_rng(42)
N, D, M = 5, 3, 4
X = RNG.standard_normal((N, D))
W = RNG.standard_normal((D, M))
DOUT = RNG.standard_normal((N, M))
DW = X.T @ DOUT  # (D, M)
DB = DOUT.sum(axis=0)  # (M,)
DX = DOUT @ W.T  # (N, D)
SQUARE = RNG.standard_normal((4, 4))
RELU_MASK = X > 0
SIG = 1 / (1 + np.exp(-X))

# fixtures of the newer rules, from a generator of their own (the arrays above stay the same)
RNG2 = np.random.default_rng(2024)
X3 = RNG2.standard_normal((N, 2, 3))  # a batch of 2x3 "images", D = 6
W6 = RNG2.standard_normal((6, M))
DX3 = (DOUT @ W6.T).reshape(X3.shape)  # affine dx for a reshaped input
DX3_SCRAMBLED = (W6 @ DOUT.T).reshape(X3.shape)  # the transposed product reshaped to fit
DSQ = RNG2.standard_normal((4, 4))  # a square upstream gradient: db has the shape of its row sums
RELU_X = RNG2.standard_normal((N, M))
RELU_DX = DOUT * (RELU_X > 0)
B4 = RNG2.standard_normal(M)
SCORES = X @ W  # (N, M) forward scores

SM_Y = np.array([0, 2, 2, 1, 3])  # labels of N = 5 examples over M = 4 classes
_E = np.exp(DOUT - DOUT.max(axis=1, keepdims=True))
SM_P = _E / _E.sum(axis=1, keepdims=True)
SM_ONEHOT = np.eye(M)[SM_Y]
SM_DX = (SM_P - SM_ONEHOT) / N  # softmax cross-entropy gradient, mean over the batch


# fixtures of the rules that name a backward mistake (issue 13), from a generator of their own
RNG3 = np.random.default_rng(1313)
TX = RNG3.standard_normal((N, M))  # input of an elementwise layer, shaped like DOUT
TANH_OUT, SIG_OUT, RELU_OUT = np.tanh(TX), 1 / (1 + np.exp(-TX)), np.maximum(TX, 0)
TANH_SLOPE, SIG_SLOPE, RELU_SLOPE = 1 - TANH_OUT**2, SIG_OUT * (1 - SIG_OUT), (TX > 0) * 1.0
TANH_LAYER = {"upstream": DOUT, "layer_input": TX, "layer_output": TANH_OUT}
SIG_LAYER = {"upstream": DOUT, "layer_input": TX, "layer_output": SIG_OUT}
RELU_LAYER = {"upstream": DOUT, "layer_input": TX, "layer_output": RELU_OUT}
WSQ = RNG3.standard_normal((M, M))  # a square weight matrix: dx = dout @ WSQ.T has DOUT's shape
DX_SQ = DOUT @ WSQ.T
W_REG = RNG3.standard_normal((D, M))  # the weights of DW, for the L2 term
REG = 0.3


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


# fixtures of the training rules (issue 14): batchnorm / layernorm problems, optimiser trajectories
ADAM, SGDM, RMSP = problem("adam"), problem("sgd_momentum"), problem("rmsprop")
ADAM_RIGHT = run("adam", W0, GRADS, CONFIGS["adam"])
SGDM_RIGHT = run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"])
RMSP_RIGHT = run("rmsprop", W0, GRADS, CONFIGS["rmsprop"])
DROP_RNG = np.random.default_rng(1414)
DROP_X = DROP_RNG.standard_normal((40, 50))
DROP_KEEP = DROP_RNG.random(DROP_X.shape) < 0.7  # p = 0.7 kept


def softmax_dx_columns(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    dx = p.copy()
    dx[:, y] -= 1  # the bug: whole columns
    return dx / len(y)


def softmax_dx_rows(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    dx = p.copy()
    dx[y] -= 1  # the bug: whole rows
    return dx / len(y)


def codes_of(hint: Hint | None) -> str | None:
    return None if hint is None else hint.code


# One positive example per code: (code, actual, expected, keyword arguments, words in message)
POSITIVE = [
    ("none", None, DX, {}, [r"is None", r"forget `return`"]),
    ("type", (DX, {"x": X}), DX, {}, [r"tuple of 2 items", r"first item has the expected shape"]),
    ("type", "dx", DX, {}, [r"a str"]),
    ("shape", np.ones((2, 7)), DX, {}, [r"\(2, 7\)", r"\(5, 3\)"]),
    ("shape", np.ones((3, 5)), DX, {}, [r"\(3, 5\)", r"\(5, 3\)", r"transpose"]),
    ("shape", np.ones((1, M)), DB, {}, [r"\(1, 4\)", r"axis of length 1"]),
    ("transpose", DW.T, DW, {}, [r"\(4, 3\)", r"\(3, 4\)", r"transposed"]),
    ("transpose", SQUARE.T, SQUARE, {}, [r"transposed", r"square"]),
    ("reshape", DX.reshape(D, N), DX, {}, [r"reshape", r"\(3, 5\)"]),
    ("not-summed-over-batch", DOUT, DB, {}, [r"\(5, 4\)", r"\(4,\)", r"sum over the batch"]),
    ("not-summed-over-batch", DOUT[-1], DB, {"upstream": DOUT}, [r"row 4 of the upstream", r"`\+=`"]),
    ("not-summed-over-batch", DOUT[1], DB, {"upstream": DOUT}, [r"row 1 of the upstream"]),
    ("summed-over-batch", DOUT.sum(0), DOUT, {}, [r"summed over axis 0"]),
    ("dtype", DX.astype(np.float32), DX, {}, [r"float32", r"float64"]),
    ("dtype", np.zeros((N, D), dtype=int), DX, {}, [r"integer dtype int64"]),
    ("dtype", RELU_MASK, DX, {}, [r"bool"]),
    ("nan", np.where(RELU_MASK, np.nan, DX), DX, {}, [r"NaN", r"subtract the max"]),
    ("nan", np.where(RELU_MASK, np.inf, DX), DX, {}, [r"inf", r"overflow", r"subtract the max"]),
    ("zero", np.zeros_like(DX), DX, {}, [r"all zeros", r"`=`"]),
    ("should-be-zero", DX, np.zeros_like(DX), {}, [r"zero everywhere"]),
    ("sign", -DX, DX, {}, [r"opposite sign"]),
    (
        "sum-vs-mean",
        DB / N,
        DB,
        {"batch_size": N},
        [
            r"1/5 of the expected",
            r"5 is the batch size",
            r"sum over the batch instead of averaging",
            r"divided by N twice",
        ],
    ),
    ("sum-vs-mean", DX * N, DX, {"batch_size": N}, [r"5 times", r"batch size", r"divide by N"]),
    ("scale", 2 * DW, DW, {}, [r"2 times", r"twice", r"0\.5"]),
    ("scale", 0.5 * DW, DW, {}, [r"1/2 of the expected", r"path"]),
    ("scale", 3.7 * DW, DW, {}, [r"3\.7 times"]),
    ("scale", DB / N, DB, {}, [r"1/5 times"]),  # no batch size given: only the factor
    ("scale", -3 * DW, DW, {}, [r"-3 times", r"sign flipped"]),
    (
        "mask",
        DOUT[:, :D] * 1.0,
        DOUT[:, :D] * RELU_MASK,
        {"mask": RELU_MASK},
        [
            r"right where the mask is True",
            r"wrong at \d+ of the \d+ entries where it is False",
            r"apply the mask",
        ],
    ),
    (
        "mask",
        X * RELU_MASK,
        DOUT[:, :D] * RELU_MASK,
        {"mask": RELU_MASK},
        [r"right where the mask is False", r"wrong only where the mask applies"],
    ),
    (
        "mask",
        np.where(RELU_MASK, DX, 0.1 * DX),
        np.where(RELU_MASK, DX, 0.01 * DX),
        {"mask": RELU_MASK},
        [r"there it is 10 times", r"slope"],
    ),
    (
        "mask",
        DOUT[:, :D] * 1.0,
        DOUT[:, :D] * RELU_MASK,
        {},
        [r"right wherever the expected one is non-zero", r"not blocked"],
    ),
    (
        "mask",
        X * RELU_MASK,
        DOUT[:, :D] * RELU_MASK,
        {},
        [r"0 exactly where the expected one is", r"dout, not x"],
    ),
    (
        "slope-from-input",
        DOUT[:, :D] * (1 - X**2),
        DOUT[:, :D] * (1 - np.tanh(X) ** 2),
        {"upstream": DOUT[:, :D], "layer_input": X, "layer_output": np.tanh(X)},
        [r"tanh slope from the layer's input, 1 − x²", r"1 − out²"],
    ),
    (
        "slope-from-input",
        DOUT[:, :D] * X * (1 - X),
        DOUT[:, :D] * SIG * (1 - SIG),
        {"upstream": DOUT[:, :D], "layer_input": X, "layer_output": SIG},
        [r"sigmoid slope", r"out·\(1 − out\)"],
    ),
    (
        "first-example-only",
        np.vstack([DX[:1], np.zeros((N - 1, D))]),
        DX,
        {},
        [r"first example \(row 0\)", r"zero in the other 4 rows"],
    ),
    (
        "first-example-only",
        np.vstack([DX[:1], -DX[1:]]),
        DX,
        {"batch_size": N},
        [r"wrong in every other row"],
    ),
    ("last-example-only", np.vstack([np.zeros((N - 1, D)), DX[-1:]]), DX, {}, [r"last example \(row 4\)"]),
    ("almost", DX + 1e-4, DX, {}, [r"close but not within tolerance", r"0\.0001"]),
    (
        "wrong-axis",
        DOUT.sum(axis=1),
        DB,
        {"upstream": DOUT, "batch_size": N},
        [r"shape \(5,\)", r"dout summed over axis 1", r"summed over axis 0 \(the batch axis\)"],
    ),
    (
        "wrong-axis",
        DOUT.sum(),
        DB,
        {"upstream": DOUT},
        [r"summed over every axis", r"db = dout\.sum\(axis=0\)"],
    ),
    (
        "wrong-axis",
        DSQ.mean(axis=1),
        DSQ.sum(axis=0),
        {"upstream": DSQ},
        [r"only because axes 0 and 1 of dout have the same length", r"averaged over axis 1"],
    ),
    (
        "transpose-reshape",
        DX3_SCRAMBLED,
        DX3,
        {},
        [r"right shape, but", r"\(5, 6\) matrix, transposed to \(6, 5\)", r"reshape does not transpose"],
    ),
    ("transpose-reshape", W6 @ DOUT.T, DX3, {}, [r"shape \(6, 5\)", r"scrambled order"]),
    ("transpose-reshape", (W @ DOUT.T).reshape(N, D), DX, {}, [r"\(5, 3\) matrix"]),
    ("offset", DX + 0.58, DX, {}, [r"same constant \+0\.58 in every entry", r"reg·W"]),
    ("offset", SCORES, SCORES + B4, {}, [r"same row \[", r"in every row", r"per-column term"]),
    (
        "unmasked-upstream",
        DOUT.sum(axis=0),
        (DOUT * (SCORES > 0)).sum(axis=0),
        {"upstream": DOUT},
        [r"exactly dout summed over the batch axis", r"ReLU mask \(dout \* \(h > 0\)\)"],
    ),
    (
        "mask-from-dout",
        DOUT * (DOUT > 0),
        RELU_DX,
        {"upstream": DOUT},
        [r"0 wherever dout is negative", r"your mask comes from dout", r"x > 0"],
    ),
    ("mask-from-dout", np.maximum(DOUT, 0), RELU_DX, {"mask": RELU_X > 0}, [r"mask comes from dout"]),
    (
        "one-hot-index",
        softmax_dx_columns(SM_P, SM_Y),
        SM_DX,
        {"batch_size": N},
        [r"one-hot term \(−1/5\) in the wrong places", r"dx\[:, y\] -= 1", r"np\.arange\(N\), y"],
    ),
    ("one-hot-index", softmax_dx_rows(SM_P, SM_Y), SM_DX, {}, [r"dx\[y\] -= 1", r"whole rows"]),
    ("one-hot-index", (SM_P - 1) / N, SM_DX, {}, [r"subtracted from every entry", r"dx -= 1"]),
    (
        "one-hot-term",
        SM_P / N,
        SM_DX,
        {"batch_size": N},
        [r"except at the label entry of each row", r"\+0\.2 \(1/N with N = 5\)", r"missing"],
    ),
    ("one-hot-term", SM_DX - SM_ONEHOT / N, SM_DX, {}, [r"off by -0\.2", r"too much"]),
    (
        "forgot-dout",
        TANH_SLOPE,
        DOUT * TANH_SLOPE,
        TANH_LAYER,
        [r"tanh's local slope, 1 − out², alone", r"dout is missing", r"dx = dout \* \(1 - out\*\*2\)"],
    ),
    ("forgot-dout", SIG_SLOPE, DOUT * SIG_SLOPE, SIG_LAYER, [r"sigmoid's local slope", r"dout \* out"]),
    ("forgot-dout", RELU_SLOPE, DOUT * RELU_SLOPE, {"mask": TX > 0}, [r"ReLU's local slope, the mask"]),
    (
        "inverted-mask",
        DOUT * (TX <= 0),
        DOUT * (TX > 0),
        RELU_LAYER,
        [r"0 exactly where the expected one lets dout through", r"mask is inverted", r"x > 0"],
    ),
    ("inverted-mask", DOUT * (TX <= 0), DOUT * (TX > 0), {}, [r"mask is inverted"]),
    (
        "no-transpose",
        DOUT @ WSQ,
        DX_SQ,
        {"weights": WSQ},
        [r"G @ W where the expected one is G @ W\.T", r"only fit because W is square", r"dout @ W\.T"],
    ),
    (
        "one-example-product",
        np.outer(X[0], DOUT[0]),
        DW,
        {"upstream": DOUT},
        [r"first example alone", r"multiple of row 0 of dout", r"over all 5: dW = x\.T @ dout"],
    ),
    ("one-example-product", np.outer(X[-1], DOUT[-1]), DW, {"upstream": DOUT}, [r"last example", r"row 4"]),
    (
        "l2-term",
        DW,
        DW + REG * W_REG,
        {"weights": W_REG, "reg": REG},
        [r"by exactly -0\.3·W", r"−reg·W, the L2 term is missing", r"dW \+= reg \* W"],
    ),
    ("l2-term", DW, DW + 2 * REG * W_REG, {"weights": W_REG, "reg": REG}, [r"−2·reg·W", r"reg·‖W‖²"]),
    ("l2-term", DW + 2 * REG * W_REG, DW + REG * W_REG, {"weights": W_REG, "reg": REG}, [r"reg·W too many"]),
    ("l2-term", DW, DW + REG * W_REG, {"weights": W_REG}, [r"-0\.3·W", r"proportional to W is missing"]),
    (
        "rnn-no-carry",
        rnn_backward(RNN_P, carry=False)["dx"],
        RNN_RIGHT["dx"],
        {"rnn": RNN_P},
        [r"each step only receives dh\[:, t\]", r"from step t\+1", r"plus the dprev_h"],
    ),
    ("rnn-no-carry", rnn_backward(RNN_P, carry=False)["dWh"], RNN_RIGHT["dWh"], {"rnn": RNN_P}, [r"t\+1"]),
    (
        "rnn-one-step",
        rnn_backward(RNN_P, accumulate=False)["dWx"],
        RNN_RIGHT["dWx"],
        {"rnn": RNN_P},
        [r"share of time step t = 0 alone \(of 4 steps\)", r"add \(\+=\)", r"overwriting it \(=\)"],
    ),
    (
        "rnn-slope-after-matmul",
        rnn_backward(RNN_P, slope_after=True)["dh0"],
        RNN_RIGHT["dh0"],
        {"rnn": RNN_P},
        [r"slope after the product with Wh:", r"da = dnext_h \* \(1 − next_h²\)", r"before the weights"],
    ),
    (
        "rnn-slope-after-matmul",
        rnn_backward(RNN_STEP_P, slope_after=True)["dh0"],
        rnn_backward(RNN_STEP_P)["dh0"],
        {"rnn": RNN_STEP},
        [r"then dprev_h = da @ Wh\.T"],
    ),
    (
        "norm-unbiased-variance",
        solve(BN, ddof=1)["dx"],
        BN_RIGHT["dx"],
        {"norm": BN},
        [r"unbiased variance", r"8 − 1 = 7 instead of 8", r"batchnorm normalises with the biased"],
    ),
    ("norm-unbiased-variance", solve(LN, ddof=1)["out"], LN_RIGHT["out"], {"norm": LN}, [r"layernorm"]),
    (
        "norm-wrong-axis",
        solve(BN | {"axis": 1})["out"],
        BN_RIGHT["out"],
        {"norm": BN},
        [r"over each example's features \(D = 5\), axis 1", r"over the batch \(N = 8 examples\), axis 0"],
    ),
    (
        "norm-wrong-axis",
        solve(LN | {"axis": 0})["dx"],
        LN_RIGHT["dx"],
        {"norm": LN},
        [r"layernorm normalises each"],
    ),
    (
        "norm-no-mean-path",
        solve(BN, mean_path=False)["dx"],
        BN_RIGHT["dx"],
        {"norm": BN},
        [r"through the mean μ", r"share of dμ", r"Look at the line that adds up dx"],
    ),
    ("norm-no-mean-path", solve(LN, mean_path=False)["dx"], LN_RIGHT["dx"], {"norm": LN}, [r"the 7 entries"]),
    (
        "norm-no-variance-path",
        solve(BN, var_path=False)["dx"],
        BN_RIGHT["dx"],
        {"norm": BN},
        [r"through the variance", r"share of dvar", r"where dvar is computed"],
    ),
    ("norm-no-variance-path", solve(LN, var_path=False)["dx"], LN_RIGHT["dx"], {"norm": LN}, [r"dvar"]),
    (
        "norm-batch-stats-at-test",
        TEST_BATCH,
        TEST_RIGHT,
        {"norm_test": TEST},
        [r"this batch's own mean and variance", r"running_mean and running_var", r"mode 'test'"],
    ),
    (
        "running-momentum-swapped",
        0.1 * RUN["old"] + 0.9 * RUN["batch"],
        RUN_RIGHT,
        {"running": RUN},
        [r"other way round", r"momentum = 0\.9", r"gets 0\.1"],
    ),
    ("running-not-updated", RUN["old"].copy(), RUN_RIGHT, {"running": RUN}, [r"still the old running value"]),
    (
        "optim-state-not-kept",
        run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"], keep=False),
        SGDM_RIGHT,
        {"optim": SGDM},
        [r"the velocity \(config\['velocity'\]\) is not carried", r"as if it were the first"],
    ),
    (
        "optim-state-not-kept",
        run("adam", W0, GRADS, CONFIGS["adam"], keep=()),
        ADAM_RIGHT,
        {"optim": ADAM},
        [r"m, v and t"],
    ),
    (
        "momentum-sign",
        run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"], uphill=True),
        SGDM_RIGHT,
        {"optim": SGDM},
        [r"opposite way", r"uphill", r"Check the signs"],
    ),
    (
        "momentum-sign",
        run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"], flip_momentum=True),
        SGDM_RIGHT,
        {"optim": SGDM},
        [r"reverses the old velocity", r"sign in front of momentum"],
    ),
    (
        "rmsprop-no-sqrt",
        run("rmsprop", W0, GRADS, CONFIGS["rmsprop"], no_sqrt=True),
        RMSP_RIGHT,
        {"optim": RMSP},
        [r"divides the step by the cache itself", r"square root", r"denominator"],
    ),
    (
        "adam-no-bias-correction",
        run("adam", W0, GRADS, CONFIGS["adam"], bias=False),
        ADAM_RIGHT,
        {"optim": ADAM},
        [r"without the bias correction", r"start at zero", r"m_hat and v_hat"],
    ),
    (
        "adam-t-after-use",
        run("adam", W0, GRADS, CONFIGS["adam"], t_after=True),
        ADAM_RIGHT,
        {"optim": ADAM},
        [r"before it is incremented", r"divides by zero: NaN", r"increase t first"],
    ),
    (
        "lstm-gate-order",
        solve_step(STEP, forward={"order": PYTORCH})["dx"],
        STEP_RIGHT["dx"],
        {"lstm": STEP},
        [r"in the order i, f, g, o — PyTorch's order", r"slice a into the gates"],
    ),
    (
        "lstm-no-tanh-c-path",
        solve_seq(SEQ, tanh_path=False)["dx"],
        SEQ_RIGHT["dx"],
        {"lstm": SEQ},
        [r"only receives dnext_c", r"through the output gate and the tanh"],
    ),
    (
        "lstm-no-forget-in-dprev-c",
        solve_step(STEP, forget=False)["dprev_c"],
        STEP_RIGHT["dprev_c"],
        {"lstm": STEP},
        [r"scaled by the forget gate", r"the line that computes dprev_c"],
    ),
    (
        "lstm-no-cell-carry",
        solve_seq(SEQ, carry_c=False)["dWh"],
        SEQ_RIGHT["dWh"],
        {"lstm": SEQ},
        [r"zero cell gradient", r"the dprev_c that step t\+1 returned"],
    ),
    (
        "lstm-c-for-tanh-c",
        solve_step(STEP, forward={"c_out": True})["next_h"],
        STEP_RIGHT["next_h"],
        {"lstm": STEP},
        [r"next_c where tanh\(next_c\) belongs", r"the line that computes next_h"],
    ),
    (
        "lstm-one-step",
        solve_seq(SEQ, accumulate=False)["db"],
        SEQ_RIGHT["db"],
        {"lstm": SEQ},
        [r"t = 0 alone \(of 4 steps\)", r"\(\+=\)"],
    ),
    (
        "conv-flipped-kernel",
        solve_conv(CONV, flip=True)["dx"],
        CONV_RIGHT["dx"],
        {"conv": CONV},
        [r"true convolution", r"cross-correlation", r"how w enters dx"],
    ),
    (
        "conv-padding-not-removed",
        solve_conv(CONV, crop=False)["dx"],
        CONV_RIGHT["dx"],
        {"conv": CONV},
        [r"the shape of the padded input \(pad = 1", r"remove the 1 padded rows"],
    ),
    (
        "conv-stride-ignored",
        solve_conv(CONV, back_stride=1)["dw"],
        CONV_RIGHT["dw"],
        {"conv": CONV},
        [r"row i·2, column j·2 \(stride = 2\)", r"where the backward's window starts"],
    ),
    (
        "pool-every-element",
        solve_pool(POOL, mode="every")["dx"],
        POOL_RIGHT["dx"],
        {"pool": POOL},
        [r"added to every element of its window", r"only that element"],
    ),
    (
        "pool-first-element",
        solve_pool(POOL, mode="first")["dx"],
        POOL_RIGHT["dx"],
        {"pool": POOL},
        [r"first \(top-left\) element", r"window's maximum"],
    ),
    (
        "pool-overwrite",
        solve_pool(POOL_SHARED, assign=True)["dx"],
        POOL_SHARED_RIGHT["dx"],
        {"pool": POOL_SHARED},
        [r"written with `=`", r"add \(\+=\) instead of assigning"],
    ),
    (
        "partial",
        np.where(RELU_MASK, DX, DX + 1),
        DX,
        {},
        [r"matches the expected one at \d+ of 15", r"the first at \["],
    ),
]


@pytest.mark.parametrize(
    ("code", "actual", "expected", "kwargs", "words"),
    POSITIVE,
    ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)],
)
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    hint = diagnose(actual, expected, name="dx", **kwargs)
    assert hint is not None and hint.code == code, hint
    for pattern in words:
        assert re.search(pattern, hint.message), (pattern, hint.message)
    assert "your dx" in hint.message or "expected value is zero" in hint.message


# One positive example per code of check_dropout: (code, out, x, p, mode, words in the message)
DROPOUT_POSITIVE = [
    (
        "dropout-drop-probability",
        DROP_X * ~DROP_KEEP / 0.7,
        DROP_X,
        0.7,
        "train",
        [r"about 1 − p = 0\.3 rather than p = 0\.7", r"probability of KEEPING"],
    ),
    (
        "dropout-drop-probability",
        DROP_X * ~DROP_KEEP / 0.3,
        DROP_X,
        0.7,
        "train",
        [r"divides the kept units by 1 − p instead of p"],
    ),
    (
        "dropout-not-rescaled",
        DROP_X * DROP_KEEP,
        DROP_X,
        0.7,
        "train",
        [r"kept units equal x", r"divides the kept units by p"],
    ),
    (
        "dropout-at-test",
        DROP_X * DROP_KEEP / 0.7,
        DROP_X,
        0.7,
        "test",
        [r"drops \d+ of the 2000 units in test mode"],
    ),
    ("dropout-at-test", DROP_X * 0.7, DROP_X, 0.7, "test", [r"rescales x", r"branch for mode 'test'"]),
]


@pytest.mark.parametrize(
    ("code", "out", "x", "p", "mode", "words"),
    DROPOUT_POSITIVE,
    ids=[f"{d[0]}-{i}" for i, d in enumerate(DROPOUT_POSITIVE)],
)
def test_dropout_rule_fires_with_an_actionable_message(code, out, x, p, mode, words, capsys):
    with pytest.raises(CheckFailed) as failure:
        check_dropout("out", out, x, p, mode)
    hint = failure.value.results[0].hint
    assert hint is not None and hint.code == code, hint
    for pattern in words:
        assert re.search(pattern, hint.message), (pattern, hint.message)
    assert "your out" in hint.message and f"[{code}]" in capsys.readouterr().out


def test_every_code_is_documented_and_tested():
    assert {p[0] for p in POSITIVE} | {d[0] for d in DROPOUT_POSITIVE} == set(HINT_CODES)
    for code, description in HINT_CODES.items():
        assert code == code.lower() and " " not in code
        assert description and "\n" not in description


def test_hint_is_a_frozen_dataclass():
    hint = Hint("sign", "flip it")
    assert str(hint) == "flip it  [sign]"
    with pytest.raises(dataclasses.FrozenInstanceError):
        hint.code = "scale"  # type: ignore[misc]


def test_default_name():
    assert diagnose(-DX, DX).message.startswith("your answer has")


# ----------------------------------------------------------------------------- no false alarms


CASES = [(), (1,), (2,), (3,), (2, 2), (3, 3), (4,), (3, 4), (5, 3), (2, 3, 4), (2, 1)]


@pytest.mark.parametrize("shape", CASES)
def test_correct_answers_give_none(shape):
    rng = np.random.default_rng(len(shape))
    for _ in range(20):
        expected = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6)
        noise = 1e-9 * np.max(np.abs(expected)) * rng.standard_normal(shape)
        mask = rng.random(shape) > 0.5
        batch = shape[0] if shape else None
        for actual in (expected.copy(), expected + noise):
            assert diagnose(actual, expected) is None
            assert diagnose(actual, expected, batch_size=batch, mask=mask, upstream=DOUT) is None


def test_zero_expected_and_zero_actual_is_correct():
    assert diagnose(np.zeros(3), np.zeros(3)) is None
    assert diagnose(0.0, 0.0) is None


@pytest.mark.parametrize("shape", CASES)
def test_random_arrays_get_no_confident_diagnosis(shape):
    rng = np.random.default_rng(100 + len(shape))
    for trial in range(150):
        expected = rng.standard_normal(shape)
        actual = rng.standard_normal(shape)
        kwargs = {}
        if shape and trial % 2:
            kwargs["batch_size"] = shape[0]
        if trial % 3 == 0:
            kwargs["mask"] = rng.random(shape) > 0.5
        assert diagnose(actual, expected, **kwargs) is None


def test_relu_like_random_gradient_only_gets_factual_hints():
    """Same zeros as expected, random elsewhere: at most 'right on this side of the mask'."""
    rng = np.random.default_rng(7)
    for _ in range(100):
        mask = rng.random((4, 5)) > 0.5
        expected = rng.standard_normal((4, 5)) * mask
        actual = rng.standard_normal((4, 5)) * mask
        assert codes_of(diagnose(actual, expected)) in (None, "partial", "mask")
        assert codes_of(diagnose(actual, expected, mask=mask)) in (None, "partial", "mask")


# ----------------------------------------------------------------------------- rule precision


def test_generic_scale_needs_two_entries_of_evidence():
    assert diagnose(np.array([3.7]), np.array([1.0])) is None
    assert diagnose(3.7, 1.0) is None
    assert codes_of(diagnose(np.array([3.7, 0.0]), np.array([1.0, 0.0]))) == "partial"


def test_named_factors_work_on_scalars():
    assert codes_of(diagnose(-2.5, 2.5)) == "sign"
    assert codes_of(diagnose(0.5, 2.5, batch_size=5)) == "sum-vs-mean"


def test_factor_close_to_one_is_almost_not_scale():
    assert codes_of(diagnose(DW * (1 + 1e-4), DW)) == "almost"


def test_batch_of_one_gives_no_sum_vs_mean():
    assert codes_of(diagnose(DB * 1.0005, DB, batch_size=1)) == "almost"


def test_batch_of_two_mentions_both_causes():
    message = diagnose(2 * DW, DW, batch_size=2).message
    assert "batch size" in message and "path counted twice" in message


def test_transpose_not_claimed_for_symmetric_expected():
    sym = SQUARE + SQUARE.T
    assert codes_of(diagnose(sym * 1.5 + 1.0, sym)) != "transpose"


def test_transpose_of_batched_square_matrices():
    stack = RNG.standard_normal((2, 3, 3))
    assert codes_of(diagnose(np.swapaxes(stack, -1, -2), stack)) == "transpose"


def test_one_example_needs_the_other_rows_fully_wrong():
    actual = DX.copy()
    actual[1:, 0] += 1.0  # rows 1.. are wrong in one column only
    assert codes_of(diagnose(actual, DX)) == "partial"


def test_mask_rule_needs_one_side_fully_right():
    actual = np.where(RELU_MASK, DX + 1, DX - 1)
    assert codes_of(diagnose(actual, DX, mask=RELU_MASK)) != "mask"


def test_mask_all_true_is_ignored():
    assert codes_of(diagnose(DX**2, DX, mask=np.ones_like(RELU_MASK))) is None


def test_first_example_not_claimed_for_a_vector_without_batch():
    db = np.array([1.0, 2.0, 3.0])
    assert codes_of(diagnose(np.array([1.0, 0.0, 0.0]), db)) == "partial"
    assert codes_of(diagnose(np.array([1.0, 0.0, 0.0]), db, batch_size=3)) == "first-example-only"


def test_first_example_not_claimed_when_axis_0_is_not_the_batch():
    actual = np.vstack([DW[:1], np.zeros((D - 1, M))])
    assert codes_of(diagnose(actual, DW, batch_size=N)) == "partial"


def test_first_example_needs_a_nonzero_first_row():
    expected = DX.copy()
    expected[0] = 0
    assert codes_of(diagnose(np.zeros_like(DX), expected)) == "zero"
    actual = np.vstack([np.zeros((1, D)), -expected[1:]])
    assert codes_of(diagnose(actual, expected)) != "first-example-only"


def test_first_example_defers_to_a_mask_that_explains_it():
    mask = np.ones((N, D), dtype=bool)
    mask[1:] = False  # row 0 lies entirely on the True side
    expected = DX * mask
    actual = DX.copy()  # mask not applied: wrong exactly where mask is False
    assert codes_of(diagnose(actual, expected, mask=mask)) == "mask"
    assert codes_of(diagnose(actual, expected)) == "first-example-only"


def test_slope_from_input_needs_the_layer_to_match_a_known_slope():
    up = DOUT[:, :D]
    layer = {"upstream": up, "layer_input": X, "layer_output": X**3}  # not tanh, not sigmoid
    assert codes_of(diagnose(up * (1 - X**2), up * 3 * X**2, **layer)) != "slope-from-input"
    tanh = {"upstream": up, "layer_input": X, "layer_output": np.tanh(X)}
    expected = up * (1 - np.tanh(X) ** 2)
    assert diagnose(expected.copy(), expected, **tanh) is None
    assert codes_of(diagnose(RNG.standard_normal((N, D)), expected, **tanh)) is None
    assert codes_of(diagnose(up * (1 - X**2), expected)) != "slope-from-input"  # no context


def test_upstream_row_requires_a_matching_row():
    assert codes_of(diagnose(DB**2, DB, upstream=DOUT)) is None


def test_shape_rules_on_scalars():
    assert codes_of(diagnose(np.array([2.0]), 2.0)) == "shape"
    loss_per_example = RNG.random(N)
    hint = diagnose(loss_per_example, loss_per_example.mean())
    assert hint.code == "not-summed-over-batch" and "mean" in hint.message


def test_tolerance_is_relative_to_scale():
    for scale in (1e-12, 1.0, 1e12):
        assert codes_of(diagnose(-DX * scale, DX * scale)) == "sign"
        assert diagnose(DX * scale * (1 + 1e-9), DX * scale) is None


# ----------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"expected": np.ones(3, dtype=int)}, r"expected must be a float64 array.*integer"),
        ({"expected": np.ones(3, dtype=np.float32)}, r"expected must be a float64.*float32"),
        ({"expected": None}, r"expected must be a float64 array, but got None"),
        ({"expected": np.array([1.0, np.nan, 0.0])}, r"expected must hold finite numbers"),
        ({"mask": np.ones(3, dtype=int)}, r"mask must be a boolean array.*x > 0"),
        ({"mask": np.ones((3, 1), dtype=bool)}, r"mask must have the shape of expected, \(3,\).*\(3, 1\)"),
        ({"batch_size": 0}, r"batch_size must be None or a positive int"),
        ({"batch_size": 2.0}, r"batch_size must be None or a positive int"),
        ({"batch_size": True}, r"batch_size"),
        ({"upstream": np.ones(3, dtype=np.float32)}, r"upstream must be a float64"),
        ({"layer_input": np.ones(2), "layer_output": np.ones(3)}, r"layer_input must have the shape"),
        ({"layer_input": np.ones(3)}, r"layer_output must be a float64 array, but got None"),
    ],
)
def test_bad_arguments(kwargs, words):
    args = {"expected": np.ones(3)} | kwargs
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(np.zeros(3), **args)


def test_expected_may_be_a_python_number_or_list():
    assert codes_of(diagnose(-1.0, 1.0)) == "sign"
    assert codes_of(diagnose([-1.0, -2.0], [1.0, 2])) == "sign"


# ----------------------------------------------------------------------------- newer rules: precision


@pytest.mark.parametrize("shape", [(5, 4), (4, 4), (3, 2, 2), (6,)])
def test_random_arrays_with_every_context_get_no_diagnosis(shape):
    rng = np.random.default_rng(sum(shape))
    for _ in range(60):
        expected, actual = rng.standard_normal(shape), rng.standard_normal(shape)
        context = {
            "upstream": rng.standard_normal(shape),
            "layer_input": rng.standard_normal(shape),
            "layer_output": rng.standard_normal(shape),
            "mask": rng.random(shape) > 0.5,
            "batch_size": shape[0],
        }
        assert diagnose(actual, expected, **context) is None
        assert diagnose(actual, expected, upstream=rng.standard_normal((3, *shape))) is None


def test_correct_answers_with_every_context_give_none():
    for expected, up in ((RELU_DX, DOUT), (SM_DX, DOUT), (DX3, DOUT), (DB, DOUT), (DSQ.sum(0), DSQ)):
        noisy = expected + 1e-10 * RNG2.standard_normal(expected.shape)
        assert diagnose(noisy, expected, upstream=up, batch_size=N) is None


def test_offset_needs_a_real_constant():
    assert codes_of(diagnose(DX + 1e-3, DX)) == "almost"  # small: almost, not offset
    assert diagnose(np.array(2.5), np.array(2.0)) is None  # one number is no evidence
    assert codes_of(diagnose(np.full(3, 3.0), np.full(3, 2.0))) == "scale"  # constant expected
    assert codes_of(diagnose(DX + np.linspace(0.5, 1, DX.size).reshape(DX.shape), DX)) is None
    shifted = DX.copy()
    shifted[1:] += 0.5  # row 0 right, the others off: not "every entry"
    assert codes_of(diagnose(shifted, DX)) != "offset"


def test_row_offset_needs_expected_rows_that_differ():
    same_rows = np.tile(B4, (N, 1))
    hint = diagnose(same_rows + RNG2.standard_normal(M), same_rows)
    assert codes_of(hint) != "offset"
    assert codes_of(diagnose(SCORES, SCORES + B4, name="scores")) == "offset"
    assert "a bias missing" in diagnose(SCORES, SCORES + B4, name="scores").message


def test_offset_wording_follows_the_kind():
    grad = diagnose(DX + 0.58, DX, name="dW").message
    value = diagnose(DX + 0.58, DX, name="scores").message
    assert "reg·W" in grad and "added (or missing) once" in value and grad != value


def test_transpose_reshape_needs_a_real_scramble():
    ones = np.ones((N, D))
    assert diagnose(ones.T.reshape(N, D), ones) is None  # same numbers: nothing to see
    column = RNG2.standard_normal((N, 1))
    assert codes_of(diagnose(column.T.reshape(N, 1), column)) is None  # a 1-column split is no transpose
    assert codes_of(diagnose(DX3_SCRAMBLED + 0.1 * RNG2.standard_normal(X3.shape), DX3)) is None


def test_wrong_axis_needs_upstream_and_a_matching_reduction():
    assert codes_of(diagnose(DOUT.sum(axis=1), DB)) == "shape"  # no upstream: no story
    assert codes_of(diagnose(DOUT.sum(axis=1) + 1, DB, upstream=DOUT)) == "shape"
    assert codes_of(diagnose(DOUT.sum(axis=0), DB, upstream=DOUT)) is None  # right
    other = RNG2.standard_normal(4)
    assert codes_of(diagnose(DSQ.sum(axis=1), other, upstream=DSQ)) != "wrong-axis"  # expected unknown


def test_shape_hint_names_a_batch_sized_axis():
    hint = diagnose(DOUT.sum(axis=1), DB, batch_size=N, name="db")
    assert hint.code == "shape" and "length 5, the batch size" in hint.message
    assert "sum(axis=0)" in hint.message
    assert "batch size" not in diagnose(DOUT.sum(axis=1), DB, name="db").message
    assert "batch size" not in diagnose(np.ones(7), DB, batch_size=N).message
    assert "batch size" not in diagnose(np.ones((N, 2)), np.ones((N, 3)), batch_size=N).message


def test_mask_from_dout_precision():
    up = DOUT
    assert diagnose(RELU_DX.copy(), RELU_DX, upstream=up) is None
    leaky = np.where(RELU_X > 0, up, 0.1 * up)
    assert codes_of(diagnose(np.maximum(up, 0), leaky, upstream=up)) != "mask-from-dout"
    assert codes_of(diagnose(np.maximum(up, 0), RELU_DX)) != "mask-from-dout"  # no context
    mask = RELU_X > 0
    assert codes_of(diagnose(up.copy(), RELU_DX, mask=mask)) == "mask"  # mask not applied
    assert codes_of(diagnose(np.abs(up) * mask, RELU_DX, mask=mask)) != "mask-from-dout"
    tanh = {"upstream": up, "layer_input": RELU_X, "layer_output": np.tanh(RELU_X)}
    assert codes_of(diagnose(np.maximum(up, 0), up * (1 - np.tanh(RELU_X) ** 2), **tanh)) is None


def test_one_hot_rules_need_a_softmax_gradient():
    # the same differences on a non-softmax gradient say nothing specific
    not_softmax = DX.copy()
    labels = np.argmin(not_softmax, axis=1)
    bumped = not_softmax.copy()
    bumped[np.arange(N), labels] += 0.2
    assert codes_of(diagnose(bumped, not_softmax)) not in ("one-hot-term", "one-hot-index")
    # a softmax gradient with unrelated errors
    assert codes_of(diagnose(RNG2.standard_normal(SM_DX.shape), SM_DX)) is None
    off = SM_DX.copy()
    off[np.arange(N), SM_Y] += np.linspace(0.1, 0.5, N)  # different amounts per row
    assert codes_of(diagnose(off, SM_DX)) != "one-hot-term"


def test_one_hot_columns_with_a_single_label_is_correct():
    y = np.full(N, 2)
    expected = (SM_P - np.eye(M)[y]) / N
    assert diagnose(softmax_dx_columns(SM_P, y), expected) is None


def test_one_hot_columns_in_a_loop_counts_repeated_labels():
    dx = SM_P.copy()
    for label in SM_Y:
        dx[:, label] -= 1
    assert codes_of(diagnose(dx / N, SM_DX)) == "one-hot-index"


# ----------------------------------------------------------------------------- wording


def test_scalars_are_printed_without_an_index():
    pairs = [(1.5, 0.0), (0.0, 4.36), (1e-9, 4.36), (2.0001, 2.0), (np.nan, 2.0), (np.inf, 2.0)]
    for actual, expected in pairs:
        for name in ("dL/dx", "loss"):
            hint = diagnose(actual, expected, name=name)
            assert hint is not None and "[]" not in hint.message, (actual, expected, hint)
    assert "is 1.5" in diagnose(1.5, 0.0, name="dx").message
    assert "expected 2, got 2.0001" in diagnose(2.0001, 2.0).message


def test_close_numbers_get_enough_digits():
    message = diagnose(np.array([1.0, 2.0001]), np.array([1.0, 2.0])).message
    assert "expected 2, got 2.0001" in message


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("dx", "gradient"),
        ("dW2 (N=5) vs PyTorch", "gradient"),
        ("dL/dx", "gradient"),
        ("d(a * a)/da at a = 3", "gradient"),
        ("relu dx for x of shape (3, 4)", "gradient"),
        ("regularisation term of dW1", "gradient"),
        ("w.grad after two backward() calls", "gradient"),
        ("slope of exp(x) at x = 1", "gradient"),
        ("dout", "gradient"),
        ("out", "value"),
        ("scores (N=5)", "value"),
        ("loss", "value"),
        ("regularisation term of the loss", "value"),
        ("difference", "value"),
        ("dropout mask", "value"),
    ],
)
def test_kind_from_the_name(name, kind):
    assert is_gradient_name(name) == (kind == "gradient")
    message = diagnose(0.0, 4.36, name=name).message
    assert ("np.zeros" in message) == (kind == "gradient")
    assert ("never computed" in message) == (kind == "value")


def test_zero_for_a_value_talks_about_values():
    message = diagnose(np.full((N, M), 1e-6), SCORES, name="scores").message
    assert "nearly" in message and "1e-06" in message
    assert "gradient" not in message and "+=" not in message and "np.zeros" not in message
    assert "gradient" in diagnose(np.zeros(3), np.ones(3), name="out", kind="gradient").message
    assert "never computed" in diagnose(np.zeros(3), np.ones(3), name="dx", kind="value").message
    assert "never computed" not in diagnose(np.zeros(3), np.ones(3)).message  # no name: gradient


def test_should_be_zero_wording_follows_the_kind():
    assert "flows back" in diagnose(np.ones(3), np.zeros(3), name="dx").message
    assert "reg = 0" in diagnose(np.ones(3), np.zeros(3), name="loss").message


def test_scale_of_two_is_context_free():
    twice = diagnose(2 * DW, DW, name="slope").message
    half = diagnose(DW / 2, DW, name="slope").message
    assert "path counted twice" in twice and "h instead of 2h" in twice and "½" in twice
    assert "2h instead of h" in half and "missing path" in half


def test_nan_hint_names_the_general_causes():
    nan = diagnose(np.array([np.nan, 1.0]), np.ones(2)).message
    inf = diagnose(np.array([np.inf, 1.0]), np.ones(2)).message
    for message in (nan, inf):
        assert "exp(−|x|)" in message and "subtract the max" in message and "log(0)" in message
    assert "0·inf" in nan and "overflow" in inf


def test_bad_kind():
    with pytest.raises(ToolkitInputError, match=r"kind must be None, 'gradient' or 'value'.*'grad'"):
        diagnose(np.zeros(3), np.ones(3), kind="grad")
    with pytest.raises(ToolkitInputError, match=r"kind must be"):
        diagnose(np.zeros(3), np.ones(3), kind=1)


def test_unmasked_upstream_precision():
    masked_db = (DOUT * (SCORES > 0)).sum(axis=0)
    assert diagnose(masked_db.copy(), masked_db, upstream=DOUT) is None
    assert codes_of(diagnose(DOUT.sum(axis=0), DB / N, upstream=DOUT, batch_size=N)) == "sum-vs-mean"
    assert codes_of(diagnose(DOUT.sum(axis=0) + 0.1, masked_db, upstream=DOUT)) != "unmasked-upstream"
    assert codes_of(diagnose(DOUT.sum(axis=0), masked_db)) != "unmasked-upstream"  # no upstream


# ----------------------------------------------------------------------------- named backward mistakes


NEW_CONTEXTS = [  # (expected, context) of every rule of issue 13: the right answer gets no hint
    (DOUT * TANH_SLOPE, TANH_LAYER),
    (DOUT * SIG_SLOPE, SIG_LAYER),
    (DOUT * RELU_SLOPE, RELU_LAYER),
    (DOUT * RELU_SLOPE, {"mask": TX > 0}),
    (DX_SQ, {"weights": WSQ}),
    (DW, {"upstream": DOUT}),
    (DW + REG * W_REG, {"weights": W_REG, "reg": REG}),
    *[(RNN_RIGHT[k], {"rnn": RNN_P}) for k in RNN_RIGHT],
    *[(v[:, 0] if k == "dx" else v, {"rnn": RNN_STEP}) for k, v in rnn_backward(RNN_STEP_P).items()],
    *[(BN_RIGHT[k], {"norm": BN}) for k in BN_RIGHT],
    *[(LN_RIGHT[k], {"norm": LN}) for k in LN_RIGHT],
    (TEST_RIGHT, {"norm_test": TEST}),
    (RUN_RIGHT, {"running": RUN}),
    (SGDM_RIGHT, {"optim": SGDM}),
    (RMSP_RIGHT, {"optim": RMSP}),
    (ADAM_RIGHT, {"optim": ADAM}),
    *[(SEQ_RIGHT[k], {"lstm": SEQ}) for k in SEQ_RIGHT],
    *[(STEP_RIGHT[k], {"lstm": STEP}) for k in STEP_RIGHT],
    *[(CONV1_RIGHT[k], {"conv": CONV1}) for k in CONV1_RIGHT],
    *[(POOL2_RIGHT[k], {"pool": POOL2}) for k in POOL2_RIGHT],
]


@pytest.mark.parametrize(("expected", "context"), NEW_CONTEXTS)
def test_new_rules_give_the_right_answer_no_hint(expected, context):
    noisy = expected + 1e-10 * RNG3.standard_normal(expected.shape)
    assert diagnose(expected.copy(), expected, name="dx", **context) is None
    assert diagnose(noisy, expected, name="dx", **context) is None


@pytest.mark.parametrize(("expected", "context"), NEW_CONTEXTS)
def test_new_rules_stay_silent_on_unrelated_arrays(expected, context):
    rng = np.random.default_rng(expected.size)
    for _ in range(30):
        actual = rng.standard_normal(expected.shape)
        assert codes_of(diagnose(actual, expected, **context)) is None
        # right zeros, wrong elsewhere: at most the factual hints
        perturbed = expected * (1 + 0.1 * actual)
        assert codes_of(diagnose(perturbed, expected, **context)) in (None, "partial", "mask")


def test_forgot_dout_needs_a_recognised_layer():
    not_a_layer = {"upstream": DOUT, "layer_input": TX, "layer_output": TX**3}
    assert codes_of(diagnose(TANH_SLOPE, DOUT * TANH_SLOPE, **not_a_layer)) != "forgot-dout"
    assert codes_of(diagnose(TANH_SLOPE, DOUT * TANH_SLOPE)) != "forgot-dout"  # no context
    # the expected one must be dout times that slope when dout is given
    assert codes_of(diagnose(TANH_SLOPE, DOUT * SIG_SLOPE, **TANH_LAYER)) != "forgot-dout"
    # a slope from the input keeps its own hint
    wrong = DOUT * (1 - TX**2)
    assert codes_of(diagnose(wrong, DOUT * TANH_SLOPE, **TANH_LAYER)) == "slope-from-input"


def test_inverted_mask_needs_complementary_zeros():
    right = DOUT * (TX > 0)
    assert codes_of(diagnose(DOUT.copy(), right, **RELU_LAYER)) != "inverted-mask"  # mask not applied
    assert codes_of(diagnose(np.maximum(DOUT, 0), right, upstream=DOUT)) == "mask-from-dout"
    half = DOUT * (TX <= 0)
    half[0] = 0.0  # one blocked row not let through: not the exact pattern
    assert codes_of(diagnose(half, right, **RELU_LAYER)) != "inverted-mask"
    assert codes_of(diagnose(-DOUT * (TX <= 0), right, **RELU_LAYER)) != "inverted-mask"  # not dout there


def test_no_transpose_needs_a_non_symmetric_square_w():
    sym = WSQ + WSQ.T
    assert diagnose(DOUT @ sym, DOUT @ sym.T, weights=sym) is None  # the same array
    assert codes_of(diagnose(DOUT @ WSQ, DX_SQ)) != "no-transpose"  # no weights
    singular = np.ones((M, M))
    assert codes_of(diagnose(DOUT @ singular, DOUT @ singular.T + 1e-3, weights=singular)) != "no-transpose"


def test_no_transpose_from_check_layer_with_a_square_weight():
    from grader import CheckFailed, check_layer

    def forward(x, w):
        return x @ w, (x, w)

    def backward(dout, cache):
        x, w = cache
        return dout @ w, x.T @ dout  # dx without the transpose

    rng = np.random.default_rng(5)
    with pytest.raises(CheckFailed) as failure:
        check_layer(forward, backward, {"x": rng.standard_normal((3, 4)), "w": rng.standard_normal((4, 4))})
    codes = [codes_of(r.hint) for r in failure.value.results]
    assert codes == ["no-transpose", None]


def test_one_example_product_needs_upstream_and_a_summed_expected():
    assert codes_of(diagnose(np.outer(X[0], DOUT[0]), DW)) != "one-example-product"  # no upstream
    assert codes_of(diagnose(np.outer(X[1], DOUT[1]), DW, upstream=DOUT)) != "one-example-product"
    one = np.outer(X[0], DOUT[0])  # a batch of one: the expected one has the same form
    assert codes_of(diagnose(2.5 * one, one, upstream=DOUT[:1])) == "scale"


def test_l2_term_needs_weights_shaped_like_expected():
    assert codes_of(diagnose(DW, DW + REG * W_REG)) != "l2-term"  # no weights
    assert codes_of(diagnose(DW, DW + REG * W_REG + 0.1 * X.T @ DOUT, weights=W_REG)) != "l2-term"
    assert codes_of(diagnose(DW * 0.0 + REG * W_REG, REG * W_REG * 2, weights=W_REG)) == "scale"
    assert "1/2·reg·W" in diagnose(DW + 0.5 * REG * W_REG, DW, weights=W_REG, reg=REG).message


def test_rnn_rules_need_expected_to_match_the_problem():
    other = rnn_problem(3, 4, 2, 5, seed=82)
    mistaken = rnn_backward(RNN_P, carry=False)["dx"]
    rnn_codes = {code for code in HINT_CODES if code.startswith("rnn-")}
    assert codes_of(diagnose(mistaken, RNN_RIGHT["dx"], rnn=other)) not in rnn_codes  # another problem
    assert codes_of(diagnose(mistaken, RNN_RIGHT["dx"])) not in rnn_codes  # no problem given
    # one step (T = 1): no carry and no `+=` to get wrong
    step = rnn_backward(RNN_STEP_P)
    assert diagnose(rnn_backward(RNN_STEP_P, carry=False)["dWh"], step["dWh"], rnn=RNN_STEP) is None


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"weights": np.ones((2, 2))}, r"weights must be a matrix W shaped like expected, \(3,\)"),
        ({"weights": np.ones(3, dtype=int)}, r"weights must be a float64 array"),
        ({"reg": -1.0}, r"reg must be None or a number ≥ 0"),
        ({"reg": "0.1"}, r"reg must be None or a number ≥ 0"),
        ({"rnn": {"x": np.ones((2, 3))}}, r"rnn must be a dict with x, h0, Wx, Wh, b, dh"),
        ({"rnn": RNN_P | {"h0": np.ones((2, 2))}}, r"the arrays of rnn do not fit together"),
    ],
)
def test_bad_new_arguments(kwargs, words):
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(np.zeros(3), np.ones(3), **kwargs)
