"""Normalisation rules: batchnorm and layernorm with one mistake, test mode, running averages.

The problems (`problem={"norm": {...}}` and so on):

- `norm` — {"x": (N, D), "gamma": (D,), "beta": (D,), "dout": (N, D) (optional), "eps": float
  (default 1e-5), "axis": 0 (batchnorm) or 1 (layernorm), default 0}; expected is out or dx
  (N, D), or dgamma or dbeta (D,);
- `norm_test` — {"x": (N, D), "gamma", "beta", "running_mean", "running_var": (D,), "eps"
  (default 1e-5)}; expected is the test-mode batchnorm out (N, D);
- `running` — {"old": S, "batch": S, "momentum": m in [0, 1]}; expected (S) is one update
  m·old + (1 − m)·batch.

Unknown keys are refused (a misspelt "epsilon" must not silently become the default). As in
`rnn`, each rule recomputes the problem with one mistake switched on and fires only
when expected is the right value of that problem (which also tells which quantity it is: out,
dx, dgamma or dbeta) and actual matches the mistaken one exactly.

The staged backward of a normalisation over axis a (a = 0 batchnorm: statistics over the N
examples of the batch; a = 1 layernorm: over each example's D features), n = x.shape[a], every
Σ over axis a, σ = sqrt(var + eps), xhat = (x − μ)/σ, out = gamma·xhat + beta, dxhat = dout·gamma:

    dvar = Σ dxhat·(x − μ)·(−½)σ⁻³
    dμ   = −Σ dxhat/σ + dvar·Σ(−2(x − μ))/n
    dx   = dxhat/σ  +  dvar·2(x − μ)/n  +  dμ/n
           (direct)    (variance path)     (mean path)

The last term of dμ is zero in exact arithmetic (Σ(x − μ) = 0), so forgetting it is no mistake.
- `norm-no-mean-path`: dx without the mean path, dμ/n dropped altogether;
- `norm-no-variance-path`: dx without the variance path: dvar dropped from dx (and so from dμ),
  i.e. dx = dxhat/σ − mean(dxhat/σ) over axis a;
- `norm-unbiased-variance`: var = Σ(x − μ)²/(n − 1): in the forward (out, dgamma, and dx either
  differentiated consistently, the variance path over n − 1, or with the biased formula's 1/n
  and the unbiased σ), or only in the backward (the biased σ, the variance path over n − 1);
- `norm-wrong-axis`: the whole layer with its statistics over the other axis.
Each rule takes (actual, ctx) with actual float64 and shaped like expected (finite but for
`t_after_use_non_finite`; possibly within the global tolerance of expected, see
`problem.Problem.when_close`) and returns a Hint or None. actual is compared with the mistaken
computation with one scale per independent part (`mistake_matches(..., shared=...)`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validate import describe, fmt_shape
from ..errors import ToolkitInputError
from ..i18n import _
from .context import Hint, HintContext, close, mistake_matches, pair_tol, problem_of
from .problem import Problem, checked_mapping, expected_shape_in, finite_array, number_in


@dataclass(frozen=True)
class NormProblem:
    """A train-mode normalisation layer: x (N, D), gamma and beta (D,), dout (N, D) or None,
    eps ≥ 0; axis — the axis the statistics are taken over: 0 batchnorm, 1 layernorm."""

    x: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    dout: np.ndarray | None
    eps: float
    axis: int


@dataclass(frozen=True)
class NormTestProblem:
    """A test-mode batchnorm forward: x (N, D), gamma, beta, running_mean, running_var (D,), eps."""

    x: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    running_mean: np.ndarray
    running_var: np.ndarray
    eps: float


@dataclass(frozen=True)
class RunningProblem:
    """One running-average update: old and batch (shape S), momentum m in [0, 1]."""

    old: np.ndarray
    batch: np.ndarray
    momentum: float


def _matrix_and_params(
    spec: Mapping, what: str, names: tuple[str, ...]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """x (N, D) and the per-feature arrays `names` (D,) of a norm or norm_test dict."""
    __tracebackhide__ = True
    x = finite_array(spec["x"], f"{what}['x']")
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ToolkitInputError(
            _("{what}['x'] must be a matrix (N, D), but it has shape {got}.").format(
                what=what, got=fmt_shape(x.shape))
        )
    return x, [finite_array(spec[k], f"{what}['{k}']", (x.shape[1],)) for k in names]


def checked_norm(norm: Any, shape: tuple[int, ...] | None = None) -> NormProblem | None:
    """None, or the checked norm problem; shape — expected's, which must be (N, D) or (D,)."""
    __tracebackhide__ = True
    if norm is None:
        return None
    spec = checked_mapping(norm, "norm", ("x", "gamma", "beta"), ("dout", "eps", "axis"))
    x, (gamma, beta) = _matrix_and_params(spec, "norm", ("gamma", "beta"))
    dout = None if spec.get("dout") is None else finite_array(spec["dout"], "norm['dout']", x.shape)
    eps = number_in(spec.get("eps", 1e-5), "norm['eps']", 0.0)
    axis = spec.get("axis", 0)
    if isinstance(axis, bool | np.bool_) or axis not in (0, 1):
        raise ToolkitInputError(
            _("norm['axis'] must be 0 (batchnorm: statistics over the batch) or 1 (layernorm: over "
              "each example's features), but got {got}.").format(got=describe(axis))
        )
    expected_shape_in(
        shape, [x.shape, gamma.shape], "norm", "out or dx (like x), or dgamma or dbeta (like gamma)"
    )
    return NormProblem(x, gamma, beta, dout, eps, int(axis))


def checked_norm_test(norm_test: Any, shape: tuple[int, ...] | None = None) -> NormTestProblem | None:
    """None, or the checked test-mode batchnorm problem; shape — expected's, which must be x's."""
    __tracebackhide__ = True
    if norm_test is None:
        return None
    names = ("gamma", "beta", "running_mean", "running_var")
    spec = checked_mapping(norm_test, "norm_test", ("x", *names), ("eps",))
    x, (gamma, beta, mean, var) = _matrix_and_params(spec, "norm_test", names)
    if np.any(var < 0):
        raise ToolkitInputError(_("norm_test['running_var'] must be ≥ 0 everywhere (it is a variance)."))
    eps = number_in(spec.get("eps", 1e-5), "norm_test['eps']", 0.0)
    expected_shape_in(shape, [x.shape], "norm_test", "the test-mode out (like x)")
    return NormTestProblem(x, gamma, beta, mean, var, eps)


def checked_running(running: Any, shape: tuple[int, ...] | None = None) -> RunningProblem | None:
    """None, or the checked running-average update; shape — expected's, which must be old's."""
    __tracebackhide__ = True
    if running is None:
        return None
    spec = checked_mapping(running, "running", ("old", "batch", "momentum"), ())
    old = finite_array(spec["old"], "running['old']")
    batch = finite_array(spec["batch"], "running['batch']", old.shape)
    momentum = number_in(spec["momentum"], "running['momentum']", 0.0, 1.0)
    expected_shape_in(shape, [old.shape], "running", "the updated running average (like old)")
    return RunningProblem(old, batch, momentum)


#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "norm-unbiased-variance": "a batchnorm or layernorm out, dx or dgamma computed with the unbiased "
    "variance (divided by n − 1) instead of the biased one (needs norm).",
    "norm-wrong-axis": "a normalisation layer with its mean and variance over the other axis (the "
    "features for batchnorm, the batch for layernorm) (needs norm).",
    "norm-no-mean-path": "a normalisation dx without the gradient that flows through the mean μ "
    "(the dμ/n term dropped) (needs norm).",
    "norm-no-variance-path": "a normalisation dx without the gradient that flows through the "
    "variance (the dvar terms dropped) (needs norm).",
    "norm-variance-share": "a normalisation dx whose variance path adds dvar times (x − μ) without the "
    "factor 2/n of dσ²/dx (needs norm).",
    "norm-backward-axis": "a normalisation dx whose backward sums over the other axis than its forward's "
    "statistics: batchnorm's sums left in a layernorm, or the reverse (needs norm).",
    "norm-batch-stats-at-test": "a test-mode batchnorm out normalised with the batch's statistics "
    "instead of the running ones (needs norm_test).",
    "running-momentum-swapped": "a running average updated as (1 − m)·old + m·batch instead of "
    "m·old + (1 − m)·batch (needs running).",
    "running-not-updated": "a running average still equal to its old value after a train-mode "
    "call (needs running).",
}

__all__ = [
    "CODES",
    "PROBLEMS",
    "batch_stats_at_test",
    "checked_norm",
    "checked_norm_test",
    "checked_running",
    "momentum_swapped",
    "backward_axis",
    "no_mean_path",
    "no_variance_path",
    "NormProblem",
    "NormTestProblem",
    "not_updated",
    "RunningProblem",
    "unbiased_variance",
    "wrong_norm_axis",
]

_LAYER = ("batchnorm", "layernorm")


def _layer(p: NormProblem, **variant: object) -> dict[str, np.ndarray]:
    """`_staged_layer` without floating-point warnings (eps = 0 and a constant feature give NaN,
    which no rule matches)."""
    with np.errstate(all="ignore"):
        return _staged_layer(p, **variant)  # type: ignore[arg-type]


def _staged_layer(
    p: NormProblem,
    *,
    axis: int | None = None,
    ddof: int = 0,
    back_ddof: int | None = None,
    mean_path: bool = True,
    var_path: bool = True,
    var_share: bool = True,
    back_axis: int | None = None,
) -> dict[str, np.ndarray]:
    """out (N, D), dx (N, D, when p.dout is given), dgamma and dbeta (D,) of the problem p.

    axis — the statistics' axis (default p.axis); ddof — the forward's variance divides by
    n − ddof; back_ddof — the variance path of the backward divides by n − back_ddof (default
    ddof: the exact gradient of that forward); mean_path, var_path — keep those terms of dx;
    var_share False — the variance path adds dvar·(x − μ), its 2/n forgotten; back_axis — the
    backward's sums (and their n) over this axis (default: the forward's).
    """
    a = p.axis if axis is None else axis
    n = p.x.shape[a]
    mu = p.x.mean(axis=a, keepdims=True)
    xc = p.x - mu
    sigma = np.sqrt((xc**2).sum(axis=a, keepdims=True) / (n - ddof) + p.eps)
    xhat = xc / sigma
    result = {"out": p.gamma * xhat + p.beta}
    if p.dout is None:
        return result
    dxhat = p.dout * p.gamma
    b = a if back_axis is None else back_axis
    n = p.x.shape[b]
    dvar = (dxhat * xc).sum(axis=b, keepdims=True) * (-0.5) * sigma**-3
    dmu = -(dxhat / sigma).sum(axis=b, keepdims=True) + dvar * (-2 * xc).sum(axis=b, keepdims=True) / n
    m = n - (ddof if back_ddof is None else back_ddof)
    dx = dxhat / sigma
    if var_path:
        dx = dx + (dvar * 2 * xc / m if var_share else dvar * xc)
    if mean_path:
        dx = dx + (dmu if var_path else -(dxhat / sigma).sum(axis=b, keepdims=True)) / n
    return result | {"dx": dx, "dgamma": (p.dout * xhat).sum(axis=0), "dbeta": p.dout.sum(axis=0)}


def _which(ctx: HintContext) -> tuple[str, np.ndarray] | None:
    """(name, right value) when expected is out, dx, dgamma or dbeta of problem_of(ctx, NormProblem)."""
    if problem_of(ctx, NormProblem) is None:
        return None
    e = ctx.expected
    for name, value in _layer(problem_of(ctx, NormProblem)).items():
        if value.shape == e.shape and close(value, e, pair_tol(value, e)):
            return name, value
    return None


def _fits(a: np.ndarray, ctx: HintContext, names: tuple[str, ...], *variants: dict) -> str | None:
    """The name of the quantity (one of `names`) when a is it recomputed with one of `variants`."""
    found = _which(ctx)
    if found is None or found[0] not in names:
        return None
    name, right = found
    shared = (problem_of(ctx, NormProblem).axis,) if right.ndim == 2 else ()  # one scale per normalised group
    for variant in variants:
        if mistake_matches(a, right, _layer(problem_of(ctx, NormProblem), **variant)[name], shared=shared):
            return name
    return None


def _over(p: NormProblem, axis: int) -> str:
    """'the batch (N = 5 examples)' or "each example's features (D = 4)"."""
    n, d = p.x.shape
    return (_("the batch (N = {n} examples)").format(n=n) if axis == 0
            else _("each example's features (D = {d})").format(d=d))


def unbiased_variance(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is out, dx or dgamma computed with the unbiased variance (divided by n − 1)."""
    p = problem_of(ctx, NormProblem)
    if p is None or p.x.shape[p.axis] < 2:
        return None
    if _fits(a, ctx, ("out", "dx", "dgamma"), {"ddof": 1}, {"ddof": 1, "back_ddof": 0}) is not None:
        where = _("the line that computes the variance in the forward pass")
    elif _fits(a, ctx, ("dx",), {"back_ddof": 1}) is not None:
        where = _("the n in the backward pass's variance term (the forward's variance is right)")
    else:
        return None
    p = problem_of(ctx, NormProblem)
    n = p.x.shape[p.axis]
    return Hint(
        "norm-unbiased-variance",
        _("{who} is what the unbiased variance gives (the squared deviations divided by "
          "{n} − 1 = {n_minus_1} instead of {n}): {layer} normalises with the biased variance, "
          "the plain mean of (x − μ)² over {over}. Look at {where} "
          "(np.var and x.var divide by n by default, ddof=0).").format(
            who=ctx.who, n=n, n_minus_1=n - 1, layer=_LAYER[p.axis], over=_over(p, p.axis), where=where),
    )


def wrong_norm_axis(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is out, dx or dgamma of the layer with its statistics over the other axis."""
    if problem_of(ctx, NormProblem) is None:
        return None
    p = problem_of(ctx, NormProblem)
    other = 1 - p.axis
    if _fits(a, ctx, ("out", "dx", "dgamma"), {"axis": other}) is None:
        return None
    return Hint(
        "norm-wrong-axis",
        _("{who} takes the mean and variance over {wrong_over}, axis {other}, instead of "
          "over {over}, axis {axis}: {layer} {normalises}. Look at the axis= of the mean and the "
          "variance (keepdims=True keeps the shapes broadcasting), and of every sum over them in the "
          "backward pass.").format(
            who=ctx.who, wrong_over=_over(p, other), other=other, over=_over(p, p.axis), axis=p.axis,
            layer=_LAYER[p.axis],
            normalises=_("normalises each feature across the examples of the batch") if p.axis == 0
            else _("normalises each example across its own features")),
    )


def no_mean_path(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is dx without the mean path (dμ/n dropped; see the module docstring)."""
    if _fits(a, ctx, ("dx",), {"mean_path": False}) is None:
        return None
    n = problem_of(ctx, NormProblem).x.shape[problem_of(ctx, NormProblem).axis]
    return Hint(
        "norm-no-mean-path",
        _("{who} is missing the gradient that flows through the mean μ: μ depends on every "
          "one of the {n} entries it averages, so each of them also receives a share of dμ "
          "(the gradient of the loss with respect to μ), besides the direct term dxhat/σ and the "
          "variance's share. Look at the line that adds up dx: compute dμ and add its share.").format(
            who=ctx.who, n=n),
    )


def no_variance_path(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is dx without the variance path (dvar dropped; see the module docstring)."""
    if _fits(a, ctx, ("dx",), {"var_path": False}) is None:
        return None
    return Hint(
        "norm-no-variance-path",
        _("{who} is missing the gradient that flows through the variance: σ² is computed from "
          "every entry it normalises, so each of them also receives a share of dvar (the gradient "
          "of the loss with respect to the variance), besides the direct term and the mean's share. "
          "Look at where dvar is computed and whether its term is added into dx (and into dμ).").format(
            who=ctx.who),
    )


def variance_share(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is dx whose variance path misses the 2/n of dσ²/dx."""
    if _fits(a, ctx, ("dx",), {"var_share": False}) is None:
        return None
    p = problem_of(ctx, NormProblem)
    return Hint(
        "norm-variance-share",
        _("{who} passes dvar on to the entries with the wrong share: {layer}'s σ² is the mean of (x − μ)² "
          "over {over}, so the derivative of σ² with respect to one entry carries both the 2 of the "
          "square and the 1/{n} of the mean. Look at the term that adds dvar into dx.").format(
            who=ctx.who, layer=_LAYER[p.axis], over=_over(p, p.axis), n=p.x.shape[p.axis]),
    )


def backward_axis(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is dx with the backward's sums over the other axis than the forward's statistics."""
    p = problem_of(ctx, NormProblem)
    if p is None or _fits(a, ctx, ("dx",), {"back_axis": 1 - p.axis}) is None:
        return None
    return Hint(
        "norm-backward-axis",
        _("{who} sums over {wrong_over} in the backward pass, while {layer}'s mean and variance are taken "
          "over {over}: dμ and dvar gather the gradient from the entries that μ and σ² were computed from. "
          "Look at the axis= of every sum of the backward pass: each runs over the forward's axis {axis} "
          "(keepdims=True), and its n is theirs.").format(
            who=ctx.who, wrong_over=_over(p, 1 - p.axis), layer=_LAYER[p.axis], over=_over(p, p.axis),
            axis=p.axis),
    )


def batch_stats_at_test(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is a test-mode batchnorm out computed with the batch's own mean and variance."""
    p = problem_of(ctx, NormTestProblem)
    if p is None:
        return None
    with np.errstate(all="ignore"):
        right = p.gamma * (p.x - p.running_mean) / np.sqrt(p.running_var + p.eps) + p.beta
        batch = p.gamma * (p.x - p.x.mean(axis=0)) / np.sqrt(p.x.var(axis=0) + p.eps) + p.beta
    if not close(right, ctx.expected, pair_tol(right, ctx.expected)):
        return None
    if not mistake_matches(a, right, batch, shared=(0,)):
        return None
    return Hint(
        "norm-batch-stats-at-test",
        _("{who} is normalised with this batch's own mean and variance: in test mode batchnorm "
          "uses running_mean and running_var (what training accumulated), so an example's output "
          "does not depend on the other examples in its batch. Look at the branch for mode 'test'.").format(
            who=ctx.who),
    )


def _running(ctx: HintContext) -> tuple[np.ndarray, float] | None:
    """(the right update, momentum) when expected is the update of problem_of(ctx, RunningProblem)."""
    p = problem_of(ctx, RunningProblem)
    if p is None:
        return None
    right = p.momentum * p.old + (1 - p.momentum) * p.batch
    return (right, p.momentum) if close(right, ctx.expected, pair_tol(right, ctx.expected)) else None


def momentum_swapped(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is (1 − m)·old + m·batch where m·old + (1 − m)·batch was expected."""
    found = _running(ctx)
    if found is None:
        return None
    right, m = found
    p = problem_of(ctx, RunningProblem)
    if not mistake_matches(a, right, (1 - m) * p.old + m * p.batch, shared=()):
        return None
    return Hint(
        "running-momentum-swapped",
        _("{who} gives the two shares the other way round: with momentum = {m} the old "
          "running value keeps the share {m} and this batch's statistic gets {rest}, so the "
          "average changes slowly. Look at which of the two momentum multiplies.").format(
            who=ctx.who, m=f"{m:g}", rest=f"{1 - m:.3g}"),
    )


def not_updated(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is still the old running value."""
    found = _running(ctx)
    if found is None or not mistake_matches(a, found[0], problem_of(ctx, RunningProblem).old, shared=()):
        return None
    return Hint(
        "running-not-updated",
        _("{who} is still the old running value: every train-mode call must move the running "
          "mean and variance towards this batch's statistics and store them back in the param dict "
          "(bn_param['running_mean'] = ..., not only a local variable). Look at where they are "
          "written.").format(who=ctx.who),
    )


PROBLEMS = (
    Problem("norm", checked_norm, (unbiased_variance, wrong_norm_axis, no_mean_path, no_variance_path,
                                   variance_share, backward_axis), when_close=True),
    Problem("norm_test", checked_norm_test, (batch_stats_at_test,), when_close=True),
    Problem("running", checked_running, (momentum_swapped, not_updated), when_close=True),
)
