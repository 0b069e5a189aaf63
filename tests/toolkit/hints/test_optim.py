"""The optimiser hints (optim=): each fires on its mistaken trajectory, never otherwise.

The update rules are written here as a student would (`sgd_momentum`, `rmsprop`, `adam`, with
the mistakes as switches), independently of grader.hint_rules_optim's reference; `run` calls
one K times, passing the returned config back, as a visible check does.
"""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed, ToolkitInputError, check_close, diagnose
from tests.toolkit.hints.fixtures import fires

OPTIM_CODES = {
    "optim-state-not-kept",
    "momentum-sign",
    "rmsprop-no-sqrt",
    "adam-no-bias-correction",
    "adam-t-after-use",
    "optim-eps-in-sqrt",
    "optim-no-step",
}


def sgd_momentum(w, dw, config=None, *, keep=True, uphill=False, flip_momentum=False):
    """v = momentum·v − lr·dw; next_w = w + v (CS231n); the switches are the mistakes."""
    config = {} if config is None else config
    config.setdefault("learning_rate", 1e-2)
    config.setdefault("momentum", 0.9)
    v = config.get("velocity", np.zeros_like(w))
    m = -config["momentum"] if flip_momentum else config["momentum"]
    v = m * v - config["learning_rate"] * dw
    next_w = w - v if uphill else w + v
    if keep:
        config["velocity"] = v
    return next_w, config


def rmsprop(w, dw, config=None, *, keep=True, no_sqrt=False, eps_in_sqrt=False):
    """cache = dr·cache + (1 − dr)·dw²; next_w = w − lr·dw / (sqrt(cache) + eps)."""
    config = {} if config is None else config
    for key, default in (("learning_rate", 1e-2), ("decay_rate", 0.99), ("epsilon", 1e-8)):
        config.setdefault(key, default)
    cache = config.get("cache", np.zeros_like(w))
    cache = config["decay_rate"] * cache + (1 - config["decay_rate"]) * dw**2
    root = cache if no_sqrt else np.sqrt(cache)
    next_w = w - config["learning_rate"] * dw / (root + config["epsilon"])
    if eps_in_sqrt:
        next_w = w - config["learning_rate"] * dw / np.sqrt(cache + config["epsilon"])
    if keep:
        config["cache"] = cache
    return next_w, config


def adam(w, dw, config=None, *, keep=("m", "v", "t"), bias=True, t_after=False, eps_in_sqrt=False,
         v_at_zero=False):
    """t += 1; m, v moving averages; bias-corrected; next_w = w − lr·m̂ / (sqrt(v̂) + eps)."""
    config = {} if config is None else config
    for key, default in (("learning_rate", 1e-3), ("beta1", 0.9), ("beta2", 0.999), ("epsilon", 1e-8)):
        config.setdefault(key, default)
    m, v, t = config.get("m", np.zeros_like(w)), config.get("v", np.zeros_like(w)), config.get("t", 0)
    b1, b2 = config["beta1"], config["beta2"]
    if not t_after:
        t = t + 1
    m = b1 * m + (1 - b1) * dw
    v = b2 * v + (1 - b2) * dw**2
    with np.errstate(all="ignore"):
        m_hat, v_hat = (m / (1 - b1**t), v / (1 - b2**t)) if bias else (m, v)
        if v_at_zero:     # v's correction taken at t = 0 on the first call: v_hat is inf
            v_hat = v / (1 - b2 ** (t - 1)) if t == 1 else v_hat
        next_w = w - config["learning_rate"] * m_hat / (np.sqrt(v_hat) + config["epsilon"])
        if eps_in_sqrt:
            next_w = w - config["learning_rate"] * m_hat / np.sqrt(v_hat + config["epsilon"])
    if t_after:
        t = t + 1
    for key, value in (("m", m), ("v", v), ("t", t)):
        if key in keep:
            config[key] = value
    return next_w, config


RULES = {"sgd_momentum": sgd_momentum, "rmsprop": rmsprop, "adam": adam}


def run(rule: str, w: np.ndarray, grads: list[np.ndarray], config: dict | None, **mistake) -> np.ndarray:
    """The trajectory (K, *w.shape): the rule called K times, its config passed back each time."""
    config = None if config is None else dict(config)
    steps = []
    for dw in grads:
        w, config = RULES[rule](w, dw, config, **mistake)
        steps.append(w)
    return np.stack(steps)


RNG = np.random.default_rng(143)
W0 = RNG.standard_normal((4, 3))
GRADS = [RNG.standard_normal((4, 3)) for _ in range(5)]
CONFIGS = {
    "sgd_momentum": {"learning_rate": 0.05},
    "rmsprop": {"learning_rate": 1e-2},
    "adam": {"learning_rate": 1e-2},
}


def problem(rule: str, config: dict | None = None) -> dict:
    return {"rule": rule, "w": W0, "grads": GRADS, "config": CONFIGS[rule] if config is None else config}


MISTAKES = [
    ("optim-state-not-kept", "sgd_momentum", {"keep": False}, "velocity"),
    ("optim-state-not-kept", "rmsprop", {"keep": False}, "cache"),
    ("optim-state-not-kept", "adam", {"keep": ()}, "m, v and t"),
    ("optim-state-not-kept", "adam", {"keep": ("m", "v")}, "step count t"),
    ("optim-state-not-kept", "adam", {"keep": ("t",)}, "m and v"),
    ("momentum-sign", "sgd_momentum", {"uphill": True}, "uphill"),
    ("momentum-sign", "sgd_momentum", {"flip_momentum": True}, "sign in front of momentum"),
    ("rmsprop-no-sqrt", "rmsprop", {"no_sqrt": True}, "square root"),
    ("adam-no-bias-correction", "adam", {"bias": False}, "m_hat and v_hat"),
    ("optim-eps-in-sqrt", "rmsprop", {"eps_in_sqrt": True}, "under the square root"),
    ("optim-no-step", "adam", {"v_at_zero": True}, "at call 1 of 5"),
]


@pytest.mark.parametrize(("code", "rule", "mistake", "words"), MISTAKES)
def test_each_optimiser_mistake_is_named(code, rule, mistake, words):
    p = problem(rule)
    right = run(rule, W0, GRADS, p["config"])
    hint = diagnose(run(rule, W0, GRADS, p["config"], **mistake), right, name="next_w", problem={"optim": p})
    assert hint is not None and hint.code == code, hint
    assert words in hint.message and "your next_w" in hint.message


def test_t_after_use_from_zero_is_nan_and_named():
    p = problem("adam")
    right = run("adam", W0, GRADS, p["config"])
    wrong = run("adam", W0, GRADS, p["config"], t_after=True)
    assert np.isnan(wrong).all()
    hint = diagnose(wrong, right, name="next_w", problem={"optim": p})
    assert hint.code == "adam-t-after-use" and "divides by zero" in hint.message
    assert diagnose(wrong, right, name="next_w").code == "nan"  # without the context


def test_t_after_use_from_a_later_step_is_finite_and_named():
    start = {"learning_rate": 1e-2, "t": 3, "m": 0.1 * W0, "v": 0.01 * W0**2}
    p = problem("adam", start)
    right = run("adam", W0, GRADS, start)
    wrong = run("adam", W0, GRADS, start, t_after=True)
    assert np.isfinite(wrong).all()
    hint = diagnose(wrong, right, name="next_w", problem={"optim": p})
    assert hint.code == "adam-t-after-use" and "divides by zero" not in hint.message


@pytest.mark.parametrize("rule", list(RULES))
def test_defaults_when_config_is_missing(rule):
    right = run(rule, W0, GRADS, None)
    assert diagnose(right.copy(), right, problem={"optim": problem(rule, {})}) is None
    p = {"rule": rule, "w": W0, "grads": np.stack(GRADS)}  # no config at all, grads as one array
    assert diagnose(right.copy(), right, problem={"optim": p}) is None
    keep = {"keep": ()} if rule == "adam" else {"keep": False}
    hint = diagnose(run(rule, W0, GRADS, None, **keep), right, problem={"optim": p})
    assert hint.code == "optim-state-not-kept"


@pytest.mark.parametrize("rule", list(RULES))
def test_right_and_unrelated_trajectories(rule):
    p = problem(rule)
    right = run(rule, W0, GRADS, p["config"])
    assert diagnose(right.copy(), right, problem={"optim": p}) is None
    assert diagnose(right + 1e-12 * RNG.standard_normal(right.shape), right, problem={"optim": p}) is None
    rng = np.random.default_rng(7)
    for _ in range(20):
        other = right + 0.1 * rng.standard_normal(right.shape)
        assert getattr(diagnose(other, right, problem={"optim": p}), "code", None) not in OPTIM_CODES
        assert (
            getattr(diagnose(rng.standard_normal(right.shape), right, problem={"optim": p}), "code", None)
            not in OPTIM_CODES
        )


def test_the_mistake_needs_the_problem_of_expected():
    p = problem("sgd_momentum")
    right = run("sgd_momentum", W0, GRADS, p["config"])
    wrong = run("sgd_momentum", W0, GRADS, p["config"], keep=False)
    other = problem("sgd_momentum", {"learning_rate": 0.1})
    assert getattr(diagnose(wrong, right, problem={"optim": other}), "code", None) not in OPTIM_CODES
    assert getattr(diagnose(wrong, right), "code", None) not in OPTIM_CODES
    one = {"rule": "sgd_momentum", "w": W0, "grads": GRADS[:1], "config": p["config"]}
    first = right[:1]  # one step: the state never matters
    assert diagnose(first.copy(), first, problem={"optim": one}) is None


def test_adam_matches_torch_and_the_hint_engine_agrees():
    torch = pytest.importorskip("torch")
    w = torch.tensor(W0, requires_grad=True)
    opt = torch.optim.Adam([w], lr=1e-2, betas=(0.9, 0.999), eps=1e-8)
    steps = []
    for g in GRADS:
        opt.zero_grad()
        w.grad = torch.tensor(g)
        opt.step()
        steps.append(w.detach().numpy().copy())
    reference = np.stack(steps)
    adam = run("adam", W0, GRADS, CONFIGS["adam"])
    assert diagnose(adam, reference, problem={"optim": problem("adam")}) is None
    wrong = run("adam", W0, GRADS, CONFIGS["adam"], bias=False)
    assert diagnose(wrong, reference, problem={"optim": problem("adam")}).code == "adam-no-bias-correction"


def test_check_close_takes_optim():
    p = problem("rmsprop")
    right = run("rmsprop", W0, GRADS, p["config"])
    check_close("rmsprop trajectory", right, right, problem={"optim": p})
    with pytest.raises(CheckFailed) as failure:
        check_close(
            "rmsprop trajectory",
            run("rmsprop", W0, GRADS, p["config"], no_sqrt=True),
            right,
            problem={"optim": p},
        )
    assert failure.value.results[0].hint.code == "rmsprop-no-sqrt"


@pytest.mark.parametrize(
    ("optim", "words"),
    [
        (
            {"rule": "sgd", "w": W0, "grads": GRADS},
            r"optim\['rule'\] must be one of 'sgd_momentum', 'rmsprop', 'adam'",
        ),
        (
            {"w": W0, "grads": GRADS},
            r"optim must be a dict with rule, w, grads \(and optionally config\), but it lacks rule",
        ),
        ({"rule": "adam", "w": W0, "grads": []}, r"at least one gradient"),
        (
            {"rule": "adam", "w": W0, "grads": [np.ones(3)] * 5},
            r"optim\['grads'\]\[0\] must have shape \(4, 3\)",
        ),
        ({"rule": "adam", "w": W0, "grads": np.ones((5, 3))}, r"or one array \(K, \*w.shape\)"),
        (
            {"rule": "adam", "w": W0, "grads": GRADS, "config": {"momentum": 0.9}},
            r"unknown key\(s\) momentum",
        ),
        (
            {"rule": "adam", "w": W0, "grads": GRADS, "config": {"beta1": 1.5}},
            r"beta1'\] must be a number in \[0, 1\]",
        ),
        (
            {"rule": "rmsprop", "w": W0, "grads": GRADS, "config": {"cache": np.ones(2)}},
            r"cache'\] must have shape",
        ),
        ({"rule": "adam", "w": W0, "grads": GRADS[:2]}, r"expected must be the trajectory of the 2 next_w"),
    ],
)
def test_bad_optim_context(optim, words):
    expected = np.zeros((5, 4, 3))
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(expected + 1, expected, problem={"optim": optim})
    with pytest.raises(ToolkitInputError, match=words):
        check_close("next_w", expected, expected, problem={"optim": optim})


LESSON_PROBLEMS = [  # the kinds of problems lesson 08's hidden tests pose: (rule, shape, config, steps)
    ("sgd_momentum", (5,), {"learning_rate": 0.05, "momentum": 0.8}, 7),
    ("sgd_momentum", (2, 3, 2), {"learning_rate": 0.2, "momentum": 0.5}, 5),
    ("rmsprop", (3, 4), {"learning_rate": 0.002, "decay_rate": 0.99, "epsilon": 1e-6}, 6),
    ("rmsprop", (2, 3, 2), {"learning_rate": 0.05, "decay_rate": 0.5, "epsilon": 1e-8}, 5),
    ("adam", (5,), {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}, 8),
    ("adam", (2, 3, 2), {"learning_rate": 0.1, "beta1": 0.5, "beta2": 0.9, "epsilon": 1e-7}, 5),
]


@pytest.mark.parametrize(("rule", "shape", "config", "steps"), LESSON_PROBLEMS)
def test_lesson_problems_with_gradients_of_every_size(rule, shape, config, steps):
    """Gradients from 1e-3 to 1e2 entry by entry, some entries with none at all, w far from 0."""
    rng = np.random.default_rng(steps)
    w0 = rng.choice([-1.0, 1.0], size=shape) * rng.uniform(1, 2, size=shape) * 100
    grads = rng.normal(size=(steps, *shape)) * 10.0 ** rng.integers(-3, 3, size=shape)
    grads[:, rng.random(shape) < 0.2] = 0.0
    grads = list(grads)
    p = {"rule": rule, "w": w0, "grads": grads, "config": config}
    right = run(rule, w0, grads, config)
    assert diagnose(right.copy(), right, problem={"optim": p}) is None
    for code, mistake_rule, mistake, _ in MISTAKES:
        # v's correction at t = 0 on a zero gradient is 0 / 0: NaN, which the nan rule names
        if mistake_rule == rule and not mistake.get("v_at_zero"):
            hint = diagnose(run(rule, w0, grads, config, **mistake), right, problem={"optim": p})
            assert getattr(hint, "code", None) == code, (mistake, hint)


# fixtures of the training rules (issue 14): batchnorm / layernorm problems, optimiser trajectories
ADAM, SGDM, RMSP = problem("adam"), problem("sgd_momentum"), problem("rmsprop")
ADAM_RIGHT = run("adam", W0, GRADS, CONFIGS["adam"])
SGDM_RIGHT = run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"])
RMSP_RIGHT = run("rmsprop", W0, GRADS, CONFIGS["rmsprop"])


#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "optim-state-not-kept",
        run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"], keep=False),
        SGDM_RIGHT,
        {"problem": {"optim": SGDM}},
        [r"the velocity \(config\['velocity'\]\) is not carried", r"as if it were the first"],
    ),
    (
        "optim-state-not-kept",
        run("adam", W0, GRADS, CONFIGS["adam"], keep=()),
        ADAM_RIGHT,
        {"problem": {"optim": ADAM}},
        [r"m, v and t"],
    ),
    (
        "momentum-sign",
        run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"], uphill=True),
        SGDM_RIGHT,
        {"problem": {"optim": SGDM}},
        [r"opposite way", r"uphill", r"Check the signs"],
    ),
    (
        "momentum-sign",
        run("sgd_momentum", W0, GRADS, CONFIGS["sgd_momentum"], flip_momentum=True),
        SGDM_RIGHT,
        {"problem": {"optim": SGDM}},
        [r"reverses the old velocity", r"sign in front of momentum"],
    ),
    (
        "rmsprop-no-sqrt",
        run("rmsprop", W0, GRADS, CONFIGS["rmsprop"], no_sqrt=True),
        RMSP_RIGHT,
        {"problem": {"optim": RMSP}},
        [r"divides the step by the cache itself", r"square root", r"denominator"],
    ),
    (
        "adam-no-bias-correction",
        run("adam", W0, GRADS, CONFIGS["adam"], bias=False),
        ADAM_RIGHT,
        {"problem": {"optim": ADAM}},
        [r"without the bias correction", r"start at zero", r"m_hat and v_hat"],
    ),
    (
        "optim-eps-in-sqrt",
        run("rmsprop", W0, GRADS, CONFIGS["rmsprop"], eps_in_sqrt=True),
        RMSP_RIGHT,
        {"problem": {"optim": RMSP}},
        [r"adds epsilon under the square root", r"sqrt\(cache\) \+ eps"],
    ),
    (
        "optim-no-step",
        run("adam", W0, GRADS, CONFIGS["adam"], v_at_zero=True),
        ADAM_RIGHT,
        {"problem": {"optim": ADAM}},
        [r"does not move the weights at call 1 of 5", r"before t is counted up", r"next_w − w"],
    ),
    (
        "adam-t-after-use",
        run("adam", W0, GRADS, CONFIGS["adam"], t_after=True),
        ADAM_RIGHT,
        {"problem": {"optim": ADAM}},
        [r"before it is incremented", r"divides by zero: NaN", r"increase t first"],
    ),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)
