"""The convolution and max-pool hints (conv=, pool=): each fires on its mistake, never otherwise.

The mistakes are written here as a student would write them (CS231n's naive loops, with
switches), independently of grader.hint_rules_conv's vectorised reference; the correct
alternatives (im2col, einsum, argmax-index pooling) are written here too.
"""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed, ToolkitInputError, check_close, check_gradient, diagnose
from tests.toolkit.hints.fixtures import fires

CONV_CODES = {"conv-flipped-kernel", "conv-padding-not-removed", "conv-stride-ignored"}
POOL_CODES = {"pool-every-element", "pool-first-element", "pool-overwrite"}


def conv_naive(x, w, b, stride, pad, dout, *, flip=False, back_stride=None, crop=True):
    """conv_forward_naive + conv_backward_naive as loops, with switches: flip — a true
    convolution (forward and backward); back_stride — the step of the backward's windows;
    crop=False — dx of the padded shape."""
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    Ho, Wo = 1 + (H + 2 * pad - HH) // stride, 1 + (W + 2 * pad - WW) // stride
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = w[:, :, ::-1, ::-1] if flip else w
    out = np.zeros((N, F, Ho, Wo))
    for n in range(N):
        for f in range(F):
            for i in range(Ho):
                for j in range(Wo):
                    out[n, f, i, j] = (
                        np.sum(xp[n, :, i * stride : i * stride + HH, j * stride : j * stride + WW] * k[f])
                        + b[f]
                    )
    s = stride if back_stride is None else back_stride
    rs, cs = s if isinstance(s, tuple) else (s, s)
    dxp, dk = np.zeros(xp.shape), np.zeros(w.shape)
    for n in range(N):
        for f in range(F):
            for i in range(Ho):
                for j in range(Wo):
                    window = (n, slice(None), slice(i * rs, i * rs + HH), slice(j * cs, j * cs + WW))
                    dxp[window] += k[f] * dout[n, f, i, j]
                    dk[f] += xp[window] * dout[n, f, i, j]
    dw = dk[:, :, ::-1, ::-1] if flip else dk
    dx = dxp[:, :, pad : pad + H, pad : pad + W] if crop else dxp
    return {"out": out, "dx": dx, "dw": dw, "db": dout.sum(axis=(0, 2, 3))}


def conv_im2col(x, w, b, stride, pad, dout):
    """A correct alternative: im2col with einsum (forward) and np.add.at (backward)."""
    N, C, H, W = x.shape
    F, _, HH, WW = w.shape
    Ho, Wo = 1 + (H + 2 * pad - HH) // stride, 1 + (W + 2 * pad - WW) // stride
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    rows = (np.arange(Ho) * stride)[:, None] + np.arange(HH)[None, :]  # (Ho, HH)
    cols = (np.arange(Wo) * stride)[:, None] + np.arange(WW)[None, :]  # (Wo, WW)
    patches = xp[:, :, rows[:, None, :, None], cols[None, :, None, :]]  # (N, C, Ho, Wo, HH, WW)
    out = np.einsum("nchwij,fcij->nfhw", patches, w) + b[None, :, None, None]
    dw = np.einsum("nchwij,nfhw->fcij", patches, dout)
    dpatches = np.einsum("nfhw,fcij->nchwij", dout, w)
    dxp = np.zeros(xp.shape)
    np.add.at(dxp, (slice(None), slice(None), rows[:, None, :, None], cols[None, :, None, :]), dpatches)
    return {
        "out": out,
        "dx": dxp[:, :, pad : pad + H, pad : pad + W],
        "dw": dw,
        "db": dout.sum(axis=(0, 2, 3)),
    }


def conv_problem(n, c, h, w, f, hh, ww, stride, pad, seed):
    rng = np.random.default_rng(seed)
    ho, wo = 1 + (h + 2 * pad - hh) // stride, 1 + (w + 2 * pad - ww) // stride
    return {
        "x": rng.standard_normal((n, c, h, w)),
        "w": rng.standard_normal((f, c, hh, ww)),
        "b": rng.standard_normal(f),
        "dout": rng.standard_normal((n, f, ho, wo)),
        "stride": stride,
        "pad": pad,
    }


def solve_conv(p, **mistake):
    return conv_naive(p["x"], p["w"], p["b"], p["stride"], p["pad"], p["dout"], **mistake)


CONV = conv_problem(2, 3, 7, 6, 4, 3, 2, stride=2, pad=1, seed=160)  # non-square, stride 2, pad 1
CONV1 = conv_problem(2, 2, 5, 5, 3, 3, 3, stride=1, pad=2, seed=161)  # stride 1, pad 2
CONV_RIGHT, CONV1_RIGHT = solve_conv(CONV), solve_conv(CONV1)
CONV_FORWARD = {k: v for k, v in CONV.items() if k != "dout"}


def pool_naive(x, ph, pw, stride, dout, *, mode="max", assign=False):
    """max_pool_forward_naive + max_pool_backward_naive as loops, with switches: mode — "max"
    (right), "every" (dout to every element), "first" (to the top-left one); assign — `=`."""
    N, C, H, W = x.shape
    Ho, Wo = 1 + (H - ph) // stride, 1 + (W - pw) // stride
    out, dx = np.zeros((N, C, Ho, Wo)), np.zeros(x.shape)
    for n in range(N):
        for c in range(C):
            for i in range(Ho):
                for j in range(Wo):
                    window = x[n, c, i * stride : i * stride + ph, j * stride : j * stride + pw]
                    out[n, c, i, j] = window.max()
                    if mode == "max":
                        mask = window == window.max()
                    elif mode == "every":
                        mask = np.ones_like(window)
                    else:
                        mask = np.zeros_like(window)
                        mask[0, 0] = 1
                    region = (n, c, slice(i * stride, i * stride + ph), slice(j * stride, j * stride + pw))
                    if assign:
                        dx[region] = mask * dout[n, c, i, j]
                    else:
                        dx[region] += mask * dout[n, c, i, j]
    return {"out": out, "dx": dx}


def pool_argmax(x, ph, pw, stride, dout):
    """A correct alternative: the argmax index of each window, np.add.at."""
    N, C, H, W = x.shape
    Ho, Wo = 1 + (H - ph) // stride, 1 + (W - pw) // stride
    dx = np.zeros(x.shape)
    for i in range(Ho):
        for j in range(Wo):
            window = x[:, :, i * stride : i * stride + ph, j * stride : j * stride + pw].reshape(N, C, -1)
            r, q = np.unravel_index(window.argmax(axis=2), (ph, pw))
            np.add.at(
                dx,
                (np.arange(N)[:, None], np.arange(C)[None, :], i * stride + r, j * stride + q),
                dout[:, :, i, j],
            )
    return dx


def pool_problem(n, c, h, w, ph, pw, stride, seed):
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((n, c, h, w)),
        "dout": rng.standard_normal((n, c, 1 + (h - ph) // stride, 1 + (w - pw) // stride)),
        "pool_height": ph,
        "pool_width": pw,
        "stride": stride,
    }


def solve_pool(p, **mistake):
    return pool_naive(p["x"], p["pool_height"], p["pool_width"], p["stride"], p["dout"], **mistake)


POOL = pool_problem(2, 3, 7, 7, 3, 3, 2, seed=170)  # overlapping windows
POOL2 = pool_problem(2, 2, 6, 8, 2, 2, 2, seed=171)  # the usual 2 × 2 at stride 2: no overlap
# a smooth input: neighbouring windows often share their maximum, so `=` loses gradient
_G = np.add.outer(np.sin(np.arange(9) / 2.0), np.cos(np.arange(9) / 3.0))
POOL_SHARED = {
    "x": np.stack([_G, -_G])[None],
    "dout": np.random.default_rng(172).standard_normal((1, 2, 7, 7)),
}
POOL_SHARED |= {"pool_height": 3, "pool_width": 3, "stride": 1}
POOL_RIGHT, POOL2_RIGHT, POOL_SHARED_RIGHT = solve_pool(POOL), solve_pool(POOL2), solve_pool(POOL_SHARED)

CONV_CASES = [
    ("conv-flipped-kernel", CONV, {"flip": True}, ("out", "dx", "dw")),
    ("conv-flipped-kernel", CONV1, {"flip": True}, ("out", "dx", "dw")),
    ("conv-stride-ignored", CONV, {"back_stride": 1}, ("dx", "dw")),
    ("conv-stride-ignored", CONV, {"back_stride": (2, 1)}, ("dx", "dw")),
    ("conv-stride-ignored", CONV, {"back_stride": (1, 2)}, ("dx",)),
    ("conv-padding-not-removed", CONV, {"crop": False}, ("dx",)),
    ("conv-padding-not-removed", CONV1, {"crop": False}, ("dx",)),
]
POOL_CASES = [
    ("pool-every-element", POOL, {"mode": "every"}),
    ("pool-every-element", POOL2, {"mode": "every"}),
    ("pool-first-element", POOL, {"mode": "first"}),
    ("pool-first-element", POOL2, {"mode": "first"}),
    ("pool-overwrite", POOL, {"assign": True}),
    ("pool-overwrite", POOL_SHARED, {"assign": True}),
]


@pytest.mark.parametrize(
    ("code", "p", "mistake", "quantity"),
    [(code, p, m, q) for code, p, m, qs in CONV_CASES for q in qs],
)
def test_each_conv_mistake_is_named(code, p, mistake, quantity):
    right, wrong = solve_conv(p)[quantity], solve_conv(p, **mistake)[quantity]
    hint = diagnose(wrong, right, name=quantity, problem={"conv": p})
    assert hint is not None and hint.code == code, hint
    assert f"your {quantity}" in hint.message


@pytest.mark.parametrize(("code", "p", "mistake"), POOL_CASES)
def test_each_pool_mistake_is_named(code, p, mistake):
    right, wrong = solve_pool(p)["dx"], solve_pool(p, **mistake)["dx"]
    hint = diagnose(wrong, right, name="dx", problem={"pool": p})
    assert hint is not None and hint.code == code, hint
    assert "your dx" in hint.message and "Look at" in hint.message


def test_the_average_pool_gradient_is_every_element():
    wrong = solve_pool(POOL2, mode="every")["dx"] / 4
    hint = diagnose(wrong, POOL2_RIGHT["dx"], name="dx", problem={"pool": POOL2})
    assert hint.code == "pool-every-element" and "average pool" in hint.message


def test_overwriting_without_overlap_is_right():
    assert diagnose(solve_pool(POOL2, assign=True)["dx"], POOL2_RIGHT["dx"], problem={"pool": POOL2}) is None


def test_padding_not_removed_says_whether_the_inside_is_right():
    hint = diagnose(solve_conv(CONV, crop=False)["dx"], CONV_RIGHT["dx"], name="dx", problem={"conv": CONV})
    assert "(2, 3, 9, 8)" in hint.message and "(2, 3, 7, 6)" in hint.message
    assert "its inside is exactly the expected dx" in hint.message
    wrong = solve_conv(CONV, crop=False, flip=True)["dx"]
    assert "not the expected dx yet" in diagnose(wrong, CONV_RIGHT["dx"], problem={"conv": CONV}).message
    assert diagnose(wrong, CONV_RIGHT["dx"]).code != "conv-padding-not-removed"  # no context
    # without dout the engine cannot recompute dx, but the shapes alone tell the story
    hint = diagnose(solve_conv(CONV, crop=False)["dx"], CONV_RIGHT["dx"], problem={"conv": CONV_FORWARD})
    assert hint.code == "conv-padding-not-removed"


def test_a_stride_one_forward_is_named_by_its_shape():
    p = CONV | {"stride": 1}
    wrong = conv_naive(p["x"], p["w"], p["b"], 1, 1, np.zeros((2, 4, 7, 7)))["out"]
    hint = diagnose(wrong, CONV_RIGHT["out"], name="out", problem={"conv": CONV_FORWARD})
    assert hint.code == "conv-stride-ignored" and "stride is 2" in hint.message


@pytest.mark.parametrize(
    ("wrong", "left"),
    [
        (CONV["dout"], "the batch and the rows and the columns"),
        (CONV["dout"].sum(axis=0), "the rows and the columns"),
        (CONV["dout"].sum(axis=(2, 3)), "the batch"),
        (CONV["dout"].sum(axis=(0, 2, 3), keepdims=True), None),
    ],
)
def test_db_not_summed_over_batch_and_positions(wrong, left):
    hint = diagnose(wrong, CONV_RIGHT["db"], name="db", problem={"conv": CONV})
    if left is None:  # (1, F, 1, 1): the right numbers with axes of length 1
        assert hint.code in ("reshape", "shape")
        return
    assert hint.code == "not-summed-over-batch" and f"an axis for {left}" in hint.message
    assert "every position" in hint.message


def test_right_answers_and_alternatives_give_none():
    rng = np.random.default_rng(7)
    for p, right in ((CONV, CONV_RIGHT), (CONV1, CONV1_RIGHT)):
        alt = conv_im2col(p["x"], p["w"], p["b"], p["stride"], p["pad"], p["dout"])
        for name, value in right.items():
            assert diagnose(value.copy(), value, name=name, problem={"conv": p}) is None
            assert diagnose(alt[name], value, name=name, problem={"conv": p}) is None
            noisy = value + 1e-10 * rng.standard_normal(value.shape)
            assert diagnose(noisy, value, problem={"conv": p}) is None
    for p, right in ((POOL, POOL_RIGHT), (POOL2, POOL2_RIGHT), (POOL_SHARED, POOL_SHARED_RIGHT)):
        alt = pool_argmax(p["x"], p["pool_height"], p["pool_width"], p["stride"], p["dout"])
        assert diagnose(alt, right["dx"], name="dx", problem={"pool": p}) is None
        assert diagnose(right["out"].copy(), right["out"], name="out", problem={"pool": p}) is None


def test_unrelated_wrong_arrays_get_no_conv_or_pool_hint():
    rng = np.random.default_rng(8)
    contexts = (({"problem": {"conv": CONV}}, CONV_RIGHT), ({"problem": {"pool": POOL}}, POOL_RIGHT))
    for context, right in contexts:
        for value in right.values():
            for _ in range(10):
                for wrong in (
                    rng.standard_normal(value.shape),
                    value * (1 + 0.05 * rng.standard_normal(value.shape)),
                ):
                    code = getattr(diagnose(wrong, value, **context), "code", None)
                    assert code not in CONV_CODES | POOL_CODES


def test_the_mistakes_need_the_problem_of_expected():
    wrong = solve_conv(CONV, flip=True)["dx"]
    assert getattr(diagnose(wrong, CONV_RIGHT["dx"]), "code", None) not in CONV_CODES
    other = conv_problem(2, 3, 7, 6, 4, 3, 2, stride=2, pad=1, seed=162)
    assert getattr(diagnose(wrong, CONV_RIGHT["dx"], problem={"conv": other}), "code", None) not in CONV_CODES
    wrong = solve_pool(POOL, mode="every")["dx"]
    assert getattr(diagnose(wrong, POOL_RIGHT["dx"]), "code", None) not in POOL_CODES
    symmetric = CONV1 | {"w": CONV1["w"] + CONV1["w"][:, :, ::-1, ::-1]}  # flipping changes nothing
    right = solve_conv(symmetric)
    assert diagnose(solve_conv(symmetric, flip=True)["dx"], right["dx"], problem={"conv": symmetric}) is None


def test_check_close_and_check_gradient_take_conv_and_pool():
    with pytest.raises(CheckFailed) as failure:
        check_close("dw", solve_conv(CONV, flip=True)["dw"], CONV_RIGHT["dw"], problem={"conv": CONV})
    assert failure.value.results[0].hint.code == "conv-flipped-kernel"
    x = POOL["x"].copy()

    def f(v):
        return pool_naive(v, 3, 3, 2, POOL["dout"])["out"]

    with pytest.raises(CheckFailed) as failure:
        wrong = solve_pool(POOL, mode="first")["dx"]
        check_gradient("dx", f, x, wrong, dout=POOL["dout"], problem={"pool": POOL})
    assert failure.value.results[0].hint.code == "pool-first-element"
    assert check_close("out", POOL_RIGHT["out"], POOL_RIGHT["out"], problem={"pool": POOL}).passed


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (
            {"problem": {"conv": CONV | {"stride": 0}}},
            r"conv\['stride'\] must be an int ≥ 1, but got the int 0",
        ),
        ({"problem": {"conv": CONV | {"pad": 1.0}}}, r"conv\['pad'\] must be an int ≥ 0"),
        ({"problem": {"conv": CONV | {"padding": 1}}}, r"unknown key\(s\) padding"),
        (
            {"problem": {"conv": {"x": CONV["x"], "w": CONV["w"]}}},
            r"conv must be a dict with x, w, b, stride, pad .*lacks b",
        ),
        ({"problem": {"conv": CONV | {"w": np.ones((4, 2, 3, 3))}}}, r"the same C"),
        ({"problem": {"conv": CONV | {"b": np.ones(3)}}}, r"conv\['b'\] must have shape \(4,\)"),
        (
            {"problem": {"conv": CONV | {"dout": np.ones((2, 4, 5, 5))}}},
            r"conv\['dout'\] must have shape \(2, 4, 4, 4\)",
        ),
        (
            {"problem": {"conv": CONV}, "_expected": np.ones(5)},
            r"with conv, expected must be out, dx, dw or db",
        ),
        (
            {"problem": {"pool": POOL | {"pool_width": 9}}},
            r"pool\['x'\] must be \(N, C, H, W\) with H ≥ pool_height",
        ),
        (
            {"problem": {"pool": POOL | {"stride": True}}},
            r"pool\['stride'\] must be an int ≥ 1, but got the bool True",
        ),
        (
            {"problem": {"pool": POOL | {"dout": np.ones((2, 3, 2, 2))}}},
            r"pool\['dout'\] must have shape \(2, 3, 3, 3\)",
        ),
        ({"problem": {"pool": [POOL]}}, r"pool must be a dict with x, pool_height, pool_width, stride"),
        (
            {"problem": {"pool": POOL}, "_expected": CONV_RIGHT["dw"]},
            r"with pool, expected must be out or dx",
        ),
    ],
)
def test_bad_context_is_refused(kwargs, words):
    expected = kwargs.pop("_expected", None)
    if expected is None:
        expected = CONV_RIGHT["dx"] if "conv" in kwargs else POOL_RIGHT["dx"]
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(expected, expected, **kwargs)
    with pytest.raises(ToolkitInputError, match=words):
        check_close("dx", expected, expected, **kwargs)


@pytest.mark.parametrize("axes", [(0, 2, 3), (2, 3, 0), (1, 2)])
def test_a_bias_gradient_summed_over_too_few_axes_is_named_without_context(axes):
    dout = CONV["dout"]
    wrong = {(0, 2, 3): dout, (2, 3, 0): dout.sum(axis=0), (1, 2): dout.sum(axis=0).reshape(4, -1)}[axes]
    hint = diagnose(wrong, CONV_RIGHT["db"], name="db")
    assert hint.code == "not-summed-over-batch" and "summed over every axis but axis" in hint.message
    other = np.random.default_rng(9).standard_normal(wrong.shape)
    assert diagnose(other, CONV_RIGHT["db"], name="db").code == "shape"


def test_overwriting_only_the_maximum_is_named_too():
    """CS231n's style: dx[n, c, i·s + r, j·s + q] = dout[n, c, i, j] at each window's argmax."""
    p = POOL_SHARED
    x, dout, dx = p["x"], p["dout"], np.zeros(p["x"].shape)
    for i in range(dout.shape[2]):
        for j in range(dout.shape[3]):
            for c in range(x.shape[1]):
                r, q = np.unravel_index(np.argmax(x[0, c, i : i + 3, j : j + 3]), (3, 3))
                dx[0, c, i + r, j + q] = dout[0, c, i, j]
    assert diagnose(dx, POOL_SHARED_RIGHT["dx"], name="dx", problem={"pool": p}).code == "pool-overwrite"


def test_check_gradient_takes_conv():
    p = CONV1
    wrong = solve_conv(p, flip=True)["dw"]

    def f(w):
        return conv_naive(p["x"], w, p["b"], 1, 2, p["dout"])["out"]

    with pytest.raises(CheckFailed) as failure:
        check_gradient("dw", f, p["w"].copy(), wrong, dout=p["dout"], problem={"conv": p})
    assert failure.value.results[0].hint.code == "conv-flipped-kernel"


def test_stride_ignored_says_along_which_axis():
    wrong = solve_conv(CONV, back_stride=(2, 1))["dx"]
    hint = diagnose(wrong, CONV_RIGHT["dx"], problem={"conv": CONV})
    assert "at row i·2, column j of the padded input" in hint.message


#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "conv-flipped-kernel",
        solve_conv(CONV, flip=True)["dx"],
        CONV_RIGHT["dx"],
        {"problem": {"conv": CONV}},
        [r"true convolution", r"cross-correlation", r"how w enters dx"],
    ),
    (
        "conv-padding-not-removed",
        solve_conv(CONV, crop=False)["dx"],
        CONV_RIGHT["dx"],
        {"problem": {"conv": CONV}},
        [r"the shape of the padded input \(pad = 1", r"remove the 1 padded rows"],
    ),
    (
        "conv-stride-ignored",
        solve_conv(CONV, back_stride=1)["dw"],
        CONV_RIGHT["dw"],
        {"problem": {"conv": CONV}},
        [r"row i·2, column j·2 \(stride = 2\)", r"where the backward's window starts"],
    ),
    (
        "pool-every-element",
        solve_pool(POOL, mode="every")["dx"],
        POOL_RIGHT["dx"],
        {"problem": {"pool": POOL}},
        [r"added to every element of its window", r"only that element"],
    ),
    (
        "pool-first-element",
        solve_pool(POOL, mode="first")["dx"],
        POOL_RIGHT["dx"],
        {"problem": {"pool": POOL}},
        [r"first \(top-left\) element", r"window's maximum"],
    ),
    (
        "pool-overwrite",
        solve_pool(POOL_SHARED, assign=True)["dx"],
        POOL_SHARED_RIGHT["dx"],
        {"problem": {"pool": POOL_SHARED}},
        [r"written with `=`", r"add \(\+=\) instead of assigning"],
    ),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)
