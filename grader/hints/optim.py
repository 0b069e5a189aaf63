"""Optimiser rules: SGD with momentum, RMSProp and Adam trajectories with one mistake.

The problem `optim` (`problem={"optim": {...}}`): {"rule": "sgd_momentum" | "rmsprop" | "adam",
"w": S, "grads": K arrays S (a list, a tuple or one array (K, *S)), "config": the
hyper-parameters passed (optional; missing ones take CS231n's defaults, OPTIM_DEFAULTS; the
rule's state keys, OPTIM_STATE, give the initial state)}: the rule's name, the starting w, the
K gradients the caller fed in, one per call, and the hyper-parameters it passed.
expected is the trajectory (K, *S) of the K successive next_w, the student's rule being called
K times with the returned config passed back each time. As in `rnn`, a rule
recomputes the trajectory with one mistake switched on and fires only when expected is the
right trajectory and actual matches the mistaken one exactly:

- `optim-state-not-kept`: the state (velocity, cache, or Adam's m, v, t, or only t, or only m
  and v) is not stored back in config, so every call starts again from the initial state;
- `momentum-sign`: every step goes the other way (w − v with v = m·v − lr·dw, or v built with
  + lr·dw and added), or the momentum term's sign is flipped (v = −m·v − lr·dw);
- `rmsprop-no-sqrt`: the step divided by cache + eps, not sqrt(cache) + eps;
- `adam-no-bias-correction`: m and v used as they are, not divided by 1 − beta^t;
- `adam-t-after-use`: the bias correction made with t before it is incremented (with t = 0 at
  the start, the first step divides by zero: actual is NaN, see `t_after_use_non_finite`).
Each rule takes (actual, ctx) with actual float64 and shaped like expected (finite but for
`t_after_use_non_finite`; possibly within the global tolerance of expected, see
`problem.Problem.when_close`) and returns a Hint or None. actual is compared with the mistaken
computation with one scale per independent part (`mistake_matches(..., shared=...)`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import describe, fmt_shape
from ..errors import ToolkitInputError
from ..i18n import N_, _
from .context import Hint, HintContext, close, mistake_matches, pair_tol, problem_of
from .problem import Problem, checked_mapping, expected_shape_in, finite_array, number_in

#: The hyper-parameters of each update rule and their defaults (issue 14, CS231n's).
OPTIM_DEFAULTS: dict[str, dict[str, float]] = {
    "sgd_momentum": {"learning_rate": 1e-2, "momentum": 0.9},
    "rmsprop": {"learning_rate": 1e-2, "decay_rate": 0.99, "epsilon": 1e-8},
    "adam": {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
}


#: The state each rule keeps in config between calls (arrays shaped like w; adam's t a count).
OPTIM_STATE: dict[str, tuple[str, ...]] = {
    "sgd_momentum": ("velocity",),
    "rmsprop": ("cache",),
    "adam": ("m", "v", "t"),
}


@dataclass(frozen=True)
class OptimProblem:
    """K steps of an update rule from w (shape S) with grads (K, *S); config holds every
    hyper-parameter (defaults filled in) and the initial state (arrays S, adam's t a float)."""

    rule: str
    w: np.ndarray
    grads: np.ndarray
    config: dict[str, Any]


def checked_optim(optim: Any, shape: tuple[int, ...] | None = None) -> OptimProblem | None:
    """None, or the checked optimiser problem; shape — expected's, which must be (K, *w.shape)."""
    __tracebackhide__ = True
    if optim is None:
        return None
    spec = checked_mapping(optim, "optim", ("rule", "w", "grads"), ("config",))
    rule = spec["rule"]
    if not isinstance(rule, str) or rule not in OPTIM_DEFAULTS:
        raise ToolkitInputError(
            _("optim['rule'] must be one of {rules}, but got {got}{repr}.").format(
                rules=", ".join(map(repr, OPTIM_DEFAULTS)), got=describe(rule),
                repr=f" ({rule!r})" if isinstance(rule, str) else "")
        )
    w = finite_array(spec["w"], "optim['w']")
    grads = _grads(spec["grads"], w.shape)
    config = _config(spec.get("config"), rule, w.shape)
    expected_shape_in(
        shape, [(grads.shape[0], *w.shape)], "optim", f"the trajectory of the {grads.shape[0]} next_w"
    )
    return OptimProblem(rule, w, grads, config)


def _grads(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The K gradients as one array (K, *shape): from a list or tuple of arrays, or one array."""
    __tracebackhide__ = True
    if isinstance(value, list | tuple):
        if not value:
            raise ToolkitInputError(_("optim['grads'] must hold at least one gradient, but it is empty."))
        return np.stack([finite_array(g, f"optim['grads'][{i}]", shape) for i, g in enumerate(value)])
    grads = finite_array(value, "optim['grads']")
    if grads.shape[1:] != tuple(shape) or grads.ndim == 0 or grads.shape[0] < 1:
        raise ToolkitInputError(
            _("optim['grads'] must be a list of K arrays shaped like w, {shape}, or one array "
              "(K, *w.shape), but it has shape {got}.").format(
                  shape=fmt_shape(shape), got=fmt_shape(grads.shape))
        )
    return grads


def _config(value: Any, rule: str, shape: tuple[int, ...]) -> dict[str, Any]:
    """The rule's hyper-parameters (given, else the defaults) and its initial state (else zeros)."""
    __tracebackhide__ = True
    value = {} if value is None else value
    defaults, state = OPTIM_DEFAULTS[rule], OPTIM_STATE[rule]
    spec = checked_mapping(value, f"optim['config'] (for {rule})", (), (*defaults, *state))
    config: dict[str, Any] = {}
    for key, default in defaults.items():
        high = 1.0 if key in ("momentum", "decay_rate", "beta1", "beta2") else np.inf
        config[key] = number_in(spec.get(key, default), f"optim['config']['{key}']", 0.0, high)
    for key in state:
        if key == "t":
            config["t"] = number_in(spec.get("t", 0), "optim['config']['t']", 0.0)
        elif spec.get(key) is None:
            config[key] = np.zeros(shape)
        else:
            config[key] = finite_array(spec[key], f"optim['config']['{key}']", shape)
    return config


#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "optim-state-not-kept": "an optimiser trajectory whose state (velocity, cache, m, v, t) is "
    "not carried in config: every step behaves like the first (needs optim).",
    "momentum-sign": "an SGD-with-momentum trajectory going uphill, or with the momentum term's "
    "sign flipped (needs optim).",
    "rmsprop-no-sqrt": "an RMSProp trajectory dividing by cache instead of its square root "
    "(needs optim).",
    "adam-no-bias-correction": "an Adam trajectory using m and v without the bias correction "
    "(needs optim).",
    "adam-t-after-use": "an Adam trajectory whose bias correction uses t before it is "
    "incremented (NaN from t = 0) (needs optim).",
    "optim-eps-in-sqrt": "an RMSProp trajectory with epsilon added under the square root instead of "
    "after it (needs optim).",
    "optim-no-step": "an optimiser trajectory whose weights never move although the gradients are "
    "not zero: a step of 0 (a zero factor, or an infinite denominator) (needs optim).",
}

__all__ = [
    "CODES",
    "OPTIM_DEFAULTS",
    "OPTIM_STATE",
    "PROBLEMS",
    "checked_optim",
    "eps_in_sqrt",
    "no_bias_correction",
    "no_sqrt",
    "no_step",
    "OptimProblem",
    "sign_flipped",
    "state_not_kept",
    "t_after_use",
    "t_after_use_non_finite",
    "trajectory",
]


def trajectory(p: OptimProblem, *, reset: tuple[str, ...] = (), mistake: str | None = None) -> np.ndarray:
    """The K successive next_w (K, *S) of the update rule p.rule.

    reset — state keys set back to their initial value before every call (not kept in config);
    mistake — None, or one of "direction", "momentum-term" (sgd_momentum), "no-sqrt" (rmsprop),
    "eps-in-sqrt" (rmsprop), "no-bias-correction", "t-after-use" (adam). May hold NaN or inf
    (t-after-use from t = 0).
    """
    c = p.config
    state = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in c.items()}
    w, steps = p.w.copy(), []
    with np.errstate(all="ignore"):
        for g in p.grads:
            for key in reset:
                state[key] = c[key].copy() if isinstance(c[key], np.ndarray) else c[key]
            w = _step(p.rule, w, g, c, state, mistake)
            steps.append(w)
    return np.stack(steps)


def _step(rule: str, w: np.ndarray, g: np.ndarray, c: dict, state: dict, mistake: str | None) -> np.ndarray:
    """One call of the rule from w with gradient g (both S); updates `state` in place."""
    lr = c["learning_rate"]
    if rule == "sgd_momentum":
        m = -c["momentum"] if mistake == "momentum-term" else c["momentum"]
        state["velocity"] = m * state["velocity"] - lr * g
        return w - state["velocity"] if mistake == "direction" else w + state["velocity"]
    if rule == "rmsprop":
        state["cache"] = c["decay_rate"] * state["cache"] + (1 - c["decay_rate"]) * g**2
        if mistake == "eps-in-sqrt":
            return w - lr * g / np.sqrt(state["cache"] + c["epsilon"])
        root = state["cache"] if mistake == "no-sqrt" else np.sqrt(state["cache"])
        return w - lr * g / (root + c["epsilon"])
    b1, b2 = c["beta1"], c["beta2"]
    if mistake != "t-after-use":
        state["t"] += 1
    state["m"] = b1 * state["m"] + (1 - b1) * g
    state["v"] = b2 * state["v"] + (1 - b2) * g**2
    m_hat, v_hat = state["m"], state["v"]
    if mistake != "no-bias-correction":
        m_hat, v_hat = m_hat / (1 - b1 ** state["t"]), v_hat / (1 - b2 ** state["t"])
    if mistake == "t-after-use":
        state["t"] += 1
    return w - lr * m_hat / (np.sqrt(v_hat) + c["epsilon"])


def _is(a: np.ndarray, ctx: HintContext, right: np.ndarray, wrong: np.ndarray) -> bool:
    """a is the mistaken trajectory `wrong` (K, *S): the steps from w0 compared, one scale per
    entry of w (each entry's trajectory is its own problem: these rules act entry by entry)."""
    return mistake_matches(a, right, wrong, shared=(0,), origin=problem_of(ctx, OptimProblem).w)


def _right(ctx: HintContext, rules: tuple[str, ...]) -> np.ndarray | None:
    """The right trajectory when ctx's optimiser problem is one of `rules` and expected is that trajectory."""
    p = problem_of(ctx, OptimProblem)
    if p is None or p.rule not in rules:
        return None
    right = trajectory(p)
    return right if close(right, ctx.expected, pair_tol(right, ctx.expected)) else None


#: The state that may be left out of config, per rule: (keys, how the message names them).
_RESETS = {
    "sgd_momentum": [(("velocity",), N_("the velocity (config['velocity'])"))],
    "rmsprop": [(("cache",), N_("the cache (config['cache'])"))],
    "adam": [
        (("m", "v", "t"), N_("m, v and t")),
        (("t",), N_("the step count t")),
        (("m", "v"), N_("m and v")),
    ],
}


def state_not_kept(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the trajectory where (part of) the state is not carried from call to call."""
    right = _right(ctx, tuple(_RESETS))
    if right is None or right.shape[0] < 2:
        return None
    for keys, what in _RESETS[problem_of(ctx, OptimProblem).rule]:
        if _is(a, ctx, right, trajectory(problem_of(ctx, OptimProblem), reset=keys)):
            return Hint(
                "optim-state-not-kept",
                _("{who} is what you get when {what} is not carried from one call to the next: "
                  "after the first of the {steps} steps, each step starts again from the "
                  "initial state, as if it were the first. Store the updated state in config before "
                  "returning it (the caller passes that config back on the next call).").format(
                    who=ctx.who, what=_(what), steps=right.shape[0]),
            )
    return None


def sign_flipped(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the SGD-with-momentum trajectory going uphill, or with the momentum term flipped."""
    right = _right(ctx, ("sgd_momentum",))
    if right is None:
        return None
    if _is(a, ctx, right, trajectory(problem_of(ctx, OptimProblem), mistake="direction")):
        return Hint(
            "momentum-sign",
            _("{who} moves every step the opposite way from the expected one, uphill (along the "
              "gradient): the velocity must point against dw, and next_w moves w along the velocity. "
              "Check the signs in the velocity update and in next_w (one of them is flipped).").format(
                  who=ctx.who),
        )
    if _is(a, ctx, right, trajectory(problem_of(ctx, OptimProblem), mistake="momentum-term")):
        return Hint(
            "momentum-sign",
            _("{who} reverses the old velocity at every step: the momentum term must carry "
              "the velocity on in its own direction (a positive momentum times v). Look at the sign "
              "in front of momentum in the velocity update.").format(who=ctx.who),
        )
    return None


def no_sqrt(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the RMSProp trajectory dividing by cache + eps instead of sqrt(cache) + eps."""
    right = _right(ctx, ("rmsprop",))
    if right is None or not _is(a, ctx, right, trajectory(problem_of(ctx, OptimProblem), mistake="no-sqrt")):
        return None
    return Hint(
        "rmsprop-no-sqrt",
        _("{who} divides the step by the cache itself: cache is a running mean of dw², a "
          "squared size, so the step is scaled by its square root (a running RMS of the gradient, "
          "in the units of dw). Look at the denominator of the update.").format(who=ctx.who),
    )


def eps_in_sqrt(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the RMSProp trajectory with eps under the square root. Its steps differ from the
    right ones by about eps / sqrt(cache) relative (1e-6 here), too little for `mistake_matches`'
    margin but far above rounding: actual must equal it to rounding, where it differs from right by
    much more. (Adam's differs by less than the checks' tolerance, so it passes them.)"""
    right = _right(ctx, ("rmsprop",))
    if right is None:
        return None
    wrong = trajectory(problem_of(ctx, OptimProblem), mistake="eps-in-sqrt")
    rounding = 1e-13 * float(np.max(np.abs(right)))
    if not (np.max(np.abs(wrong - right)) > 1e3 * rounding and np.max(np.abs(a - wrong)) <= rounding):
        return None
    return Hint(
        "optim-eps-in-sqrt",
        _("{who} adds epsilon under the square root: the update divides by the root plus epsilon, "
          "sqrt(cache) + eps, so that epsilon only guards against a zero root. Under the root it "
          "changes every step a little (a relative error far above rounding).").format(who=ctx.who),
    )


def no_step(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual does not move the weights at some call (next_w == the w it was given) where the
    expected trajectory does: a step of exactly 0."""
    p = problem_of(ctx, OptimProblem)
    right = _right(ctx, tuple(OPTIM_STATE))
    if right is None or a.shape != right.shape:
        return None
    steps = np.diff(np.concatenate([p.w[None], a]), axis=0).reshape(len(a), -1)
    right_steps = np.diff(np.concatenate([p.w[None], right]), axis=0).reshape(len(a), -1)
    still = [k + 1 for k in range(len(a)) if not steps[k].any() and right_steps[k].any()]
    if not still:
        return None
    return Hint(
        "optim-no-step",
        _("{who} does not move the weights at call {calls} of {count}: next_w equals the w it was given, "
          "a step of exactly 0. A factor of the step is zero, or its denominator is infinite (a bias "
          "correction computed before t is counted up can be 0, and dividing by it makes v_hat "
          "infinite). Print "
          "that step, next_w − w, and the factors it is made of.").format(
              who=ctx.who, calls=", ".join(map(str, still)), count=len(a)),
    )


def no_bias_correction(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the Adam trajectory with m and v used without the bias correction."""
    right = _right(ctx, ("adam",))
    wrong = None if right is None else trajectory(problem_of(ctx, OptimProblem), mistake="no-bias-correction")
    if right is None or not _is(a, ctx, right, wrong):
        return None
    return Hint(
        "adam-no-bias-correction",
        _("{who} uses m and v without the bias correction: both start at zero, so in the first "
          "steps they are much smaller than the gradient's running moments; Adam divides that bias "
          "out with the step count t. Look at the lines that compute m_hat and v_hat.").format(who=ctx.who),
    )


def _t_after_use_hint(ctx: HintContext) -> Hint:
    t0 = problem_of(ctx, OptimProblem).config["t"]
    nan = _(" (from t = 0, the first correction divides by zero: NaN)") if t0 == 0 else ""
    return Hint(
        "adam-t-after-use",
        _("{who} makes the bias correction with the step count before it is incremented{nan}: "
          "increase t first (t = 1 on the first call), then use it in the bias correction. Look at "
          "where `t += 1` (or config['t'] + 1) sits in your update.").format(who=ctx.who, nan=nan),
    )


def t_after_use(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is the Adam trajectory with t incremented after the bias correction (finite case)."""
    right = _right(ctx, ("adam",))
    wrong = None if right is None else trajectory(problem_of(ctx, OptimProblem), mistake="t-after-use")
    if right is None or not _is(a, ctx, right, wrong):
        return None
    return _t_after_use_hint(ctx)


def t_after_use_non_finite(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual holds NaN or inf exactly where the t-after-use trajectory does, and matches it elsewhere."""
    right = _right(ctx, ("adam",))
    if right is None:
        return None
    wrong = trajectory(problem_of(ctx, OptimProblem), mistake="t-after-use")
    finite = np.isfinite(wrong)
    if finite.all() or not np.array_equal(finite, np.isfinite(a)):
        return None
    if not close(a[finite], wrong[finite], pair_tol(a[finite], wrong[finite], right)):
        return None
    return _t_after_use_hint(ctx)


PROBLEMS = (
    Problem("optim", checked_optim, (no_step, state_not_kept, sign_flipped, no_sqrt, eps_in_sqrt,
                                     no_bias_correction, t_after_use),
            when_close=True, non_finite_rules=(t_after_use_non_finite,)),
)
