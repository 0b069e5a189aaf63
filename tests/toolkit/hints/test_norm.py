"""The normalisation hints (norm, norm_test, running): each fires on its mistake, never otherwise.

The mistakes are written here as a student would write them (`student_norm`), independently of
grader.hint_rules_norm's reference, for batchnorm (axis 0) and layernorm (axis 1).
"""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed, ToolkitInputError, check_close, check_gradient, diagnose
from grader.numgrad import eval_numerical_gradient_array
from tests.toolkit.hints.fixtures import codes_of, fires

NORM_CODES = {"norm-unbiased-variance", "norm-wrong-axis", "norm-no-mean-path", "norm-no-variance-path",
              "norm-variance-share", "norm-backward-axis"}
TRAIN_CODES = NORM_CODES | {"norm-batch-stats-at-test", "running-momentum-swapped", "running-not-updated"}


def student_norm(
    x: np.ndarray,
    gamma: np.ndarray,
    beta: np.ndarray,
    dout: np.ndarray,
    *,
    axis: int = 0,
    eps: float = 1e-5,
    ddof: int = 0,
    back_ddof: int | None = None,
    mean_path: bool = True,
    var_path: bool = True,
    var_share: bool = True,
    back_axis: int | None = None,
) -> dict[str, np.ndarray]:
    """A batchnorm (axis 0) or layernorm (axis 1) forward and staged backward, with switches.

    x (N, D), gamma and beta (D,), dout (N, D) -> out, dx (N, D), dgamma, dbeta (D,). ddof=1:
    the unbiased variance; back_ddof: the backward's variance path divides by n − back_ddof
    (default ddof);
    mean_path / var_path False: that term of dx forgotten; var_share False: dvar·(x − μ) without
    its 2/n; back_axis: the backward's sums (and their n) over that axis, the forward's unchanged.
    """
    n = x.shape[axis]
    mu = np.mean(x, axis=axis, keepdims=True)
    var = np.var(x, axis=axis, ddof=ddof, keepdims=True)
    std = np.sqrt(var + eps)
    xhat = (x - mu) / std
    out = gamma * xhat + beta
    dxhat = dout * gamma
    b = axis if back_axis is None else back_axis
    n = x.shape[b]
    dvar = np.sum(dxhat * (x - mu), axis=b, keepdims=True) * -0.5 * (var + eps) ** -1.5
    dmu = np.sum(-dxhat / std, axis=b, keepdims=True)
    if var_path:
        dmu = dmu + dvar * np.mean(-2 * (x - mu), axis=b, keepdims=True)
    divisor = n - (ddof if back_ddof is None else back_ddof)
    dx = dxhat / std
    if var_path:
        dx = dx + (dvar * 2 * (x - mu) / divisor if var_share else dvar * (x - mu))
    if mean_path:
        dx = dx + dmu / n
    return {"out": out, "dx": dx, "dgamma": np.sum(dout * xhat, axis=0), "dbeta": np.sum(dout, axis=0)}


def norm_problem(n: int, d: int, axis: int, seed: int) -> dict:
    """A norm context: x with a mean and a scale of its own per feature, gamma, beta, dout."""
    rng = np.random.default_rng(seed)
    return {
        "x": 3 * rng.standard_normal((n, d)) + rng.standard_normal(d),
        "gamma": 1 + 0.5 * rng.standard_normal(d),
        "beta": rng.standard_normal(d),
        "dout": rng.standard_normal((n, d)),
        "eps": 1e-5,
        "axis": axis,
    }


def solve(p: dict, **mistake) -> dict[str, np.ndarray]:
    """student_norm on the problem dict p with one mistake (or none)."""
    return student_norm(p["x"], p["gamma"], p["beta"], p["dout"], axis=p["axis"], eps=p["eps"], **mistake)


BN = norm_problem(8, 5, 0, seed=140)
LN = norm_problem(6, 7, 1, seed=141)
BN_RIGHT, LN_RIGHT = solve(BN), solve(LN)

# (code, mistake, the quantities it changes)
MISTAKES = [
    ("norm-unbiased-variance", {"ddof": 1}, ("out", "dx", "dgamma")),
    ("norm-unbiased-variance", {"ddof": 1, "back_ddof": 0}, ("dx",)),
    ("norm-unbiased-variance", {"back_ddof": 1}, ("dx",)),
    ("norm-no-mean-path", {"mean_path": False}, ("dx",)),
    ("norm-no-variance-path", {"var_path": False}, ("dx",)),
    ("norm-variance-share", {"var_share": False}, ("dx",)),
]
CASES = [
    (code, p, mistake, quantity)
    for p in (BN, LN)
    for code, mistake, quantities in [
        *MISTAKES,
        ("norm-wrong-axis", {"axis": 1 - p["axis"]}, ("out", "dx", "dgamma")),
        ("norm-backward-axis", {"back_axis": 1 - p["axis"]}, ("dx",)),
    ]
    for quantity in quantities
]


def _solve_case(p: dict, mistake: dict) -> dict[str, np.ndarray]:
    if "axis" in mistake:
        return solve(p | {"axis": mistake["axis"]})
    return solve(p, **mistake)


@pytest.mark.parametrize(("code", "p", "mistake", "quantity"), CASES)
def test_each_norm_mistake_is_named(code, p, mistake, quantity):
    right = solve(p)[quantity]
    wrong = _solve_case(p, mistake)[quantity]
    hint = diagnose(wrong, right, name=quantity, problem={"norm": p})
    assert hint is not None and hint.code == code, hint
    assert f"your {quantity}" in hint.message and "Look at" in hint.message
    assert "layernorm" in hint.message or "batchnorm" in hint.message or "path" in code


@pytest.mark.parametrize("p", [BN, LN], ids=["batchnorm", "layernorm"])
@pytest.mark.parametrize("quantity", ["out", "dx", "dgamma", "dbeta"])
def test_right_answers_give_none(p, quantity):
    right = solve(p)[quantity]
    rng = np.random.default_rng(3)
    assert diagnose(right.copy(), right, name=quantity, problem={"norm": p}) is None
    noisy = right + 1e-10 * rng.standard_normal(right.shape)
    assert diagnose(noisy, right, name=quantity, problem={"norm": p}) is None


@pytest.mark.parametrize("p", [BN, LN], ids=["batchnorm", "layernorm"])
@pytest.mark.parametrize("quantity", ["out", "dx", "dgamma", "dbeta"])
def test_unrelated_wrong_arrays_get_no_norm_hint(p, quantity):
    right = solve(p)[quantity]
    rng = np.random.default_rng(4)
    for _ in range(20):
        other = rng.standard_normal(right.shape)
        assert codes_of(diagnose(other, right, name=quantity, problem={"norm": p})) not in TRAIN_CODES
        near = right * (1 + 0.05 * rng.standard_normal(right.shape))
        assert codes_of(diagnose(near, right, name=quantity, problem={"norm": p})) not in TRAIN_CODES


def test_the_mistakes_need_the_problem_of_expected():
    wrong = solve(BN, mean_path=False)["dx"]
    assert getattr(diagnose(wrong, BN_RIGHT["dx"]), "code", None) not in TRAIN_CODES  # no context
    other = norm_problem(8, 5, 0, seed=99)
    assert getattr(diagnose(wrong, BN_RIGHT["dx"], problem={"norm": other}), "code", None) not in TRAIN_CODES
    # dbeta does not depend on the statistics: nothing to name
    assert diagnose(BN_RIGHT["dbeta"] * 2, BN_RIGHT["dbeta"], problem={"norm": BN}).code == "scale"
    # without dout only out can be recognised
    forward_only = {k: v for k, v in BN.items() if k != "dout"}
    assert codes_of(diagnose(wrong, BN_RIGHT["dx"], problem={"norm": forward_only})) not in TRAIN_CODES
    assert (
        diagnose(solve(BN, ddof=1)["out"], BN_RIGHT["out"], problem={"norm": forward_only}).code
        == "norm-unbiased-variance"
    )


def test_dropping_both_paths_is_neither_hint():
    both = solve(BN, mean_path=False, var_path=False)["dx"]
    assert getattr(diagnose(both, BN_RIGHT["dx"], problem={"norm": BN}), "code", None) not in NORM_CODES


def test_the_forgotten_zero_term_of_dmu_is_no_mistake():
    """dμ's term dvar·Σ(−2(x − μ))/N is zero: leaving it out gives the right dx."""
    p = BN
    x, gamma, dout, eps = p["x"], p["gamma"], p["dout"], p["eps"]
    mu, var = x.mean(0), x.var(0)
    dxhat = dout * gamma
    dvar = np.sum(dxhat * (x - mu), 0) * -0.5 * (var + eps) ** -1.5
    dmu = np.sum(-dxhat / np.sqrt(var + eps), 0)  # without the zero term
    dx = dxhat / np.sqrt(var + eps) + dvar * 2 * (x - mu) / len(x) + dmu / len(x)
    assert diagnose(dx, BN_RIGHT["dx"], name="dx", problem={"norm": BN}) is None


def test_dgamma_not_summed_keeps_its_shape_hint():
    wrong = BN["dout"] * (BN_RIGHT["out"] - BN["beta"]) / BN["gamma"]
    hint = diagnose(wrong, BN_RIGHT["dgamma"], problem={"norm": BN})
    assert hint.code == "not-summed-over-batch"


def test_the_simplified_backward_and_a_transposed_batchnorm_are_right():
    p = BN
    x, gamma, dout, eps = p["x"], p["gamma"], p["dout"], p["eps"]
    n = len(x)
    xhat = (x - x.mean(0)) / np.sqrt(x.var(0) + eps)
    dxhat = dout * gamma
    simple = (n * dxhat - dxhat.sum(0) - xhat * (dxhat * xhat).sum(0)) / (n * np.sqrt(x.var(0) + eps))
    assert diagnose(simple, BN_RIGHT["dx"], name="dx", problem={"norm": BN}) is None
    # layernorm as a batchnorm of x.T
    q = LN
    t = student_norm(q["x"].T, np.ones(len(q["x"])), np.zeros(len(q["x"])), (q["dout"] * q["gamma"]).T)
    assert diagnose(t["dx"].T, LN_RIGHT["dx"], name="dx", problem={"norm": LN}) is None


def test_unbiased_dx_from_a_numerical_gradient_of_the_unbiased_forward():
    p = BN

    def forward(x):
        return student_norm(x, p["gamma"], p["beta"], p["dout"], ddof=1)["out"]

    numeric = eval_numerical_gradient_array(forward, p["x"].copy(), p["dout"])
    assert diagnose(numeric, BN_RIGHT["dx"], name="dx", problem={"norm": BN}).code == "norm-unbiased-variance"


def test_check_close_and_check_gradient_take_norm():
    wrong = solve(BN, var_path=False)["dx"]
    with pytest.raises(CheckFailed) as failure:
        check_close("dx", wrong, BN_RIGHT["dx"], problem={"norm": BN})
    assert failure.value.results[0].hint.code == "norm-no-variance-path"
    check_close("dx", BN_RIGHT["dx"], BN_RIGHT["dx"], problem={"norm": BN})

    def forward(x):
        return student_norm(x, BN["gamma"], BN["beta"], BN["dout"])["out"]

    with pytest.raises(CheckFailed) as failure:
        check_gradient("dx", forward, BN["x"].copy(), wrong, dout=BN["dout"], problem={"norm": BN})
    assert failure.value.results[0].hint.code == "norm-no-variance-path"


# ----------------------------------------------------------------------------- test mode

RNG = np.random.default_rng(142)
TX = 2 * RNG.standard_normal((10, 4)) + 1
TEST = {
    "x": TX,
    "gamma": 1 + RNG.standard_normal(4) ** 2,
    "beta": RNG.standard_normal(4),
    "running_mean": RNG.standard_normal(4),
    "running_var": 0.5 + RNG.random(4),
    "eps": 1e-5,
}
TEST_RIGHT = TEST["gamma"] * (TX - TEST["running_mean"]) / np.sqrt(TEST["running_var"] + 1e-5) + TEST["beta"]
TEST_BATCH = TEST["gamma"] * (TX - TX.mean(0)) / np.sqrt(TX.var(0) + 1e-5) + TEST["beta"]


def test_batch_stats_at_test():
    hint = diagnose(TEST_BATCH, TEST_RIGHT, name="out", problem={"norm_test": TEST})
    assert hint.code == "norm-batch-stats-at-test" and "running_mean and running_var" in hint.message
    assert diagnose(TEST_RIGHT.copy(), TEST_RIGHT, name="out", problem={"norm_test": TEST}) is None
    assert getattr(diagnose(TEST_BATCH, TEST_RIGHT, name="out"), "code", None) != "norm-batch-stats-at-test"
    rng = np.random.default_rng(5)
    for _ in range(20):
        hint = diagnose(rng.standard_normal(TX.shape), TEST_RIGHT, name="out", problem={"norm_test": TEST})
        assert getattr(hint, "code", None) not in TRAIN_CODES


# ----------------------------------------------------------------------------- running averages

OLD, BATCH = RNG.standard_normal(4), RNG.standard_normal(4)
RUN = {"old": OLD, "batch": BATCH, "momentum": 0.9}
RUN_RIGHT = 0.9 * OLD + 0.1 * BATCH


@pytest.mark.parametrize(
    ("actual", "code"),
    [
        (0.1 * OLD + 0.9 * BATCH, "running-momentum-swapped"),
        (OLD.copy(), "running-not-updated"),
    ],
)
def test_running_mistakes(actual, code):
    assert diagnose(actual, RUN_RIGHT, name="running_mean", problem={"running": RUN}).code == code
    assert diagnose(RUN_RIGHT.copy(), RUN_RIGHT, name="running_mean", problem={"running": RUN}) is None


def test_running_from_zeros_beats_the_generic_hints():
    zeros = {"old": np.zeros(4), "batch": BATCH, "momentum": 0.9}
    right = 0.1 * BATCH
    assert diagnose(np.zeros(4), right, problem={"running": zeros}).code == "running-not-updated"
    assert diagnose(0.9 * BATCH, right, problem={"running": zeros}).code == "running-momentum-swapped"
    assert diagnose(0.9 * BATCH, right).code == "scale"  # without the context: the factor only


def test_running_stays_silent_otherwise():
    rng = np.random.default_rng(6)
    for _ in range(20):
        hint = diagnose(rng.standard_normal(4), RUN_RIGHT, problem={"running": RUN})
        assert getattr(hint, "code", None) not in TRAIN_CODES
    half = {"old": OLD, "batch": BATCH, "momentum": 0.5}  # swapping changes nothing at 0.5
    assert diagnose(0.5 * OLD + 0.5 * BATCH, 0.5 * OLD + 0.5 * BATCH, problem={"running": half}) is None
    assert codes_of(diagnose(BATCH.copy(), RUN_RIGHT, problem={"running": RUN})) not in TRAIN_CODES


# ----------------------------------------------------------------------------- bad context


@pytest.mark.parametrize(
    ("kwargs", "expected", "words"),
    [
        ({"problem": {"norm": [1, 2]}}, BN_RIGHT["dx"], r"norm must be a dict with x, gamma, beta"),
        ({"problem": {"norm": {"x": BN["x"], "gamma": BN["gamma"]}}}, BN_RIGHT["dx"], r"it lacks beta"),
        ({"problem": {"norm": BN | {"epsilon": 1e-5}}}, BN_RIGHT["dx"], r"unknown key\(s\) epsilon"),
        ({"problem": {"norm": BN | {"axis": 2}}}, BN_RIGHT["dx"], r"norm\['axis'\] must be 0 \(batchnorm"),
        (
            {"problem": {"norm": BN | {"gamma": np.ones(3)}}},
            BN_RIGHT["dx"],
            r"norm\['gamma'\] must have shape \(5,\)",
        ),
        ({"problem": {"norm": BN | {"x": np.ones(5)}}}, BN_RIGHT["dx"], r"must be a matrix \(N, D\)"),
        ({"problem": {"norm": BN | {"eps": -1.0}}}, BN_RIGHT["dx"], r"norm\['eps'\] must be a number ≥ 0"),
        (
            {"problem": {"norm": BN | {"dout": np.ones((8, 5), dtype=int)}}},
            BN_RIGHT["dx"],
            r"must be a float64 array",
        ),
        ({"problem": {"norm": BN}}, np.ones(3), r"with norm, expected must be out or dx"),
        (
            {"problem": {"norm_test": {"x": TX}}},
            TEST_RIGHT,
            r"norm_test must be a dict with x, gamma, beta, running_mean",
        ),
        (
            {"problem": {"norm_test": TEST | {"running_var": -np.ones(4)}}},
            TEST_RIGHT,
            r"running_var'\] must be ≥ 0",
        ),
        ({"problem": {"norm_test": TEST}}, np.ones(4), r"expected must be the test-mode out"),
        (
            {"problem": {"running": RUN | {"momentum": 1.5}}},
            RUN_RIGHT,
            r"running\['momentum'\] must be a number in \[0, 1\]",
        ),
        (
            {"problem": {"running": RUN | {"batch": np.ones(3)}}},
            RUN_RIGHT,
            r"running\['batch'\] must have shape \(4,\)",
        ),
        ({"problem": {"running": RUN}}, np.ones(3), r"expected must be the updated running average"),
    ],
)
def test_bad_context(kwargs, expected, words):
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(np.zeros(expected.shape), expected, **kwargs)
    with pytest.raises(ToolkitInputError, match=words):
        check_close("x", expected, expected, **kwargs)  # checked even when the value is right


def test_the_generic_hints_still_name_what_the_problem_rules_do_not():
    out, dx, dbeta = BN_RIGHT["out"], BN_RIGHT["dx"], BN_RIGHT["dbeta"]
    beta_forgotten = out - BN["beta"]
    assert diagnose(beta_forgotten, out, name="out", problem={"norm": BN}).code == "offset"
    assert diagnose(-dx, dx, name="dx", problem={"norm": BN}).code == "sign"
    assert diagnose(dx.T, dx, name="dx", problem={"norm": BN}).code == "transpose"
    assert (
        diagnose(BN["dout"][0], dbeta, name="dbeta", problem={"norm": BN}, upstream=BN["dout"]).code
        == "not-summed-over-batch"
    )
    assert diagnose(dbeta / 8, dbeta, name="dbeta", problem={"norm": BN}, batch_size=8).code == "sum-vs-mean"
    assert diagnose(dx + 1e-4 * np.abs(dx).max(), dx, name="dx", problem={"norm": BN}).code == "almost"
    assert diagnose(np.zeros_like(dx), dx, name="dx", problem={"norm": BN}).code == "zero"


def test_a_single_example():
    """N = 1: batch statistics make out = beta; a layernorm over the batch axis too."""
    one = {k: v[:1] if k in ("x", "dout") else v for k, v in LN.items()}
    right, over_batch = solve(one), solve(one | {"axis": 0})
    assert np.allclose(over_batch["out"], one["beta"])
    hint = diagnose(over_batch["out"], right["out"], name="out", problem={"norm": one})
    assert hint.code == "norm-wrong-axis"
    assert diagnose(over_batch["dx"], right["dx"], name="dx", problem={"norm": one}).code == "norm-wrong-axis"
    test_one = TEST | {"x": TX[:1]}
    right = TEST_RIGHT[:1]
    hint = diagnose(np.tile(TEST["beta"], (1, 1)), right, name="out", problem={"norm_test": test_one})
    assert hint.code == "norm-batch-stats-at-test"
    bn_one = {k: v[:1] if k in ("x", "dout") else v for k, v in BN.items()}
    out_one = solve(bn_one)["out"]
    assert diagnose(out_one, out_one, problem={"norm": bn_one}) is None  # no N − 1 = 0 story


@pytest.mark.parametrize(("n", "d", "scale"), [(6, 3, 1.0), (2, 5, 1.0), (30, 4, 50.0), (4, 4, 0.2)])
def test_against_torch_with_a_constant_feature(n, d, scale):
    """The lesson's hidden-test batches: references from PyTorch, one feature the same everywhere."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(n * d)
    x = scale * rng.standard_normal((n, d)) * rng.uniform(0.2, 3.0, size=d) + rng.standard_normal(d)
    x[:, 0] = -1.5
    gamma, beta, dout = rng.standard_normal(d), rng.standard_normal(d), rng.standard_normal((n, d))
    tx, tg, tb = (torch.tensor(a, requires_grad=True) for a in (x, gamma, beta))
    out = torch.nn.functional.batch_norm(tx, None, None, tg, tb, training=True, eps=1e-5)
    out.backward(torch.tensor(dout))
    ref = {"out": out.detach().numpy(), "dx": tx.grad.numpy(), "dgamma": tg.grad.numpy()}
    p = {"x": x, "gamma": gamma, "beta": beta, "dout": dout, "eps": 1e-5, "axis": 0}
    for name in ref:
        assert diagnose(solve(p)[name], ref[name], name=name, problem={"norm": p}) is None
    for code, mistake, quantities in [*MISTAKES, ("norm-wrong-axis", {"axis": 1}, ("out", "dx", "dgamma"))]:
        if mistake == {"var_share": False} and n == 2:
            continue  # 2/n is 1 for a batch of two: the forgotten factor changes nothing
        for name in quantities:
            hint = diagnose(_solve_case(p, mistake)[name], ref[name], name=name, problem={"norm": p})
            assert getattr(hint, "code", None) == code, (code, mistake, name, hint)


def test_eps_zero_with_a_constant_feature_warns_nothing(recwarn):
    p = BN | {"eps": 0.0, "x": BN["x"].copy()}
    p["x"][:, 2] = 1.0  # σ = 0: the layer is undefined there, the expected value cannot exist
    right = solve(BN | {"eps": 0.0})
    for name in ("out", "dx"):
        assert diagnose(right[name] + 1.0, right[name], name=name, problem={"norm": p}) is not None
    nt = TEST | {"eps": 0.0, "running_var": np.zeros(4)}
    diagnose(TEST_RIGHT + 1.0, TEST_RIGHT, problem={"norm_test": nt})
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_unbiased_variance_says_where():
    forward = diagnose(solve(BN, ddof=1)["dx"], BN_RIGHT["dx"], name="dx", problem={"norm": BN}).message
    backward = diagnose(solve(BN, back_ddof=1)["dx"], BN_RIGHT["dx"], name="dx", problem={"norm": BN}).message
    assert "in the forward pass" in forward and "backward pass's variance term" in backward


#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "norm-unbiased-variance",
        solve(BN, ddof=1)["dx"],
        BN_RIGHT["dx"],
        {"problem": {"norm": BN}},
        [r"unbiased variance", r"8 − 1 = 7 instead of 8", r"batchnorm normalises with the biased"],
    ),
    (
        "norm-unbiased-variance",
        solve(LN, ddof=1)["out"],
        LN_RIGHT["out"],
        {"problem": {"norm": LN}},
        [r"layernorm"],
    ),
    (
        "norm-wrong-axis",
        solve(BN | {"axis": 1})["out"],
        BN_RIGHT["out"],
        {"problem": {"norm": BN}},
        [r"over each example's features \(D = 5\), axis 1", r"over the batch \(N = 8 examples\), axis 0"],
    ),
    (
        "norm-wrong-axis",
        solve(LN | {"axis": 0})["dx"],
        LN_RIGHT["dx"],
        {"problem": {"norm": LN}},
        [r"layernorm normalises each"],
    ),
    (
        "norm-no-mean-path",
        solve(BN, mean_path=False)["dx"],
        BN_RIGHT["dx"],
        {"problem": {"norm": BN}},
        [r"through the mean μ", r"share of dμ", r"Look at the line that adds up dx"],
    ),
    (
        "norm-no-mean-path",
        solve(LN, mean_path=False)["dx"],
        LN_RIGHT["dx"],
        {"problem": {"norm": LN}},
        [r"the 7 entries"],
    ),
    (
        "norm-no-variance-path",
        solve(BN, var_path=False)["dx"],
        BN_RIGHT["dx"],
        {"problem": {"norm": BN}},
        [r"through the variance", r"share of dvar", r"where dvar is computed"],
    ),
    (
        "norm-no-variance-path",
        solve(LN, var_path=False)["dx"],
        LN_RIGHT["dx"],
        {"problem": {"norm": LN}},
        [r"dvar"],
    ),
    (
        "norm-variance-share",
        solve(BN, var_share=False)["dx"],
        BN_RIGHT["dx"],
        {"problem": {"norm": BN}},
        [r"wrong share", r"the 2 of the square", r"1/8 of the mean", r"adds dvar into dx"],
    ),
    (
        "norm-backward-axis",
        solve(LN, back_axis=0)["dx"],
        LN_RIGHT["dx"],
        {"problem": {"norm": LN}},
        [r"sums over the batch \(N = 6 examples\) in the backward pass", r"forward's axis 1", r"layernorm"],
    ),
    (
        "norm-batch-stats-at-test",
        TEST_BATCH,
        TEST_RIGHT,
        {"problem": {"norm_test": TEST}},
        [r"this batch's own mean and variance", r"running_mean and running_var", r"mode 'test'"],
    ),
    (
        "running-momentum-swapped",
        0.1 * RUN["old"] + 0.9 * RUN["batch"],
        RUN_RIGHT,
        {"problem": {"running": RUN}},
        [r"other way round", r"momentum = 0\.9", r"gets 0\.1"],
    ),
    (
        "running-not-updated",
        RUN["old"].copy(),
        RUN_RIGHT,
        {"problem": {"running": RUN}},
        [r"still the old running value"],
    ),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)
