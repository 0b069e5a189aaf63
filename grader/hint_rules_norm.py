"""Normalisation rules: batchnorm and layernorm with one mistake, test mode, running averages.

They need `norm`, `norm_test` or `running` (see `grader.hint_problems`). As in
`hint_rules_rnn`, each rule recomputes the problem with one mistake switched on and fires only
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
`grader.hints.PROBLEM_RULES`) and returns a Hint or None. actual is compared with the mistaken
computation with one scale per independent part (`mistake_matches(..., shared=...)`).
"""

from __future__ import annotations

import numpy as np

from .hint_context import Hint, HintContext, NormProblem, close, mistake_matches, pair_tol

__all__ = [
    "batch_stats_at_test",
    "momentum_swapped",
    "no_mean_path",
    "no_variance_path",
    "not_updated",
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
) -> dict[str, np.ndarray]:
    """out (N, D), dx (N, D, when p.dout is given), dgamma and dbeta (D,) of the problem p.

    axis — the statistics' axis (default p.axis); ddof — the forward's variance divides by
    n − ddof; back_ddof — the variance path of the backward divides by n − back_ddof (default
    ddof: the exact gradient of that forward); mean_path, var_path — keep those terms of dx.
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
    dvar = (dxhat * xc).sum(axis=a, keepdims=True) * (-0.5) * sigma**-3
    dmu = -(dxhat / sigma).sum(axis=a, keepdims=True) + dvar * (-2 * xc).sum(axis=a, keepdims=True) / n
    m = n - (ddof if back_ddof is None else back_ddof)
    dx = dxhat / sigma
    if var_path:
        dx = dx + dvar * 2 * xc / m
    if mean_path:
        dx = dx + (dmu if var_path else -(dxhat / sigma).sum(axis=a, keepdims=True)) / n
    return result | {"dx": dx, "dgamma": (p.dout * xhat).sum(axis=0), "dbeta": p.dout.sum(axis=0)}


def _which(ctx: HintContext) -> tuple[str, np.ndarray] | None:
    """(name, right value) when expected is out, dx, dgamma or dbeta of ctx.norm."""
    if ctx.norm is None:
        return None
    e = ctx.expected
    for name, value in _layer(ctx.norm).items():
        if value.shape == e.shape and close(value, e, pair_tol(value, e)):
            return name, value
    return None


def _fits(a: np.ndarray, ctx: HintContext, names: tuple[str, ...], *variants: dict) -> str | None:
    """The name of the quantity (one of `names`) when a is it recomputed with one of `variants`."""
    found = _which(ctx)
    if found is None or found[0] not in names:
        return None
    name, right = found
    shared = (ctx.norm.axis,) if right.ndim == 2 else ()  # one scale per normalised group
    for variant in variants:
        if mistake_matches(a, right, _layer(ctx.norm, **variant)[name], shared=shared):
            return name
    return None


def _over(p: NormProblem, axis: int) -> str:
    """'the batch (N = 5 examples)' or "each example's features (D = 4)"."""
    n, d = p.x.shape
    return f"the batch (N = {n} examples)" if axis == 0 else f"each example's features (D = {d})"


def unbiased_variance(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is out, dx or dgamma computed with the unbiased variance (divided by n − 1)."""
    if ctx.norm is None or ctx.norm.x.shape[ctx.norm.axis] < 2:
        return None
    if _fits(a, ctx, ("out", "dx", "dgamma"), {"ddof": 1}, {"ddof": 1, "back_ddof": 0}) is not None:
        where = "the line that computes the variance in the forward pass"
    elif _fits(a, ctx, ("dx",), {"back_ddof": 1}) is not None:
        where = "the n in the backward pass's variance term (the forward's variance is right)"
    else:
        return None
    p = ctx.norm
    n = p.x.shape[p.axis]
    return Hint(
        "norm-unbiased-variance",
        f"{ctx.who} is what the unbiased variance gives (the squared deviations divided by "
        f"{n} − 1 = {n - 1} instead of {n}): {_LAYER[p.axis]} normalises with the biased variance, "
        f"the plain mean of (x − μ)² over {_over(p, p.axis)}. Look at {where} "
        "(np.var and x.var divide by n by default, ddof=0).",
    )


def wrong_norm_axis(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is out, dx or dgamma of the layer with its statistics over the other axis."""
    if ctx.norm is None:
        return None
    p = ctx.norm
    other = 1 - p.axis
    if _fits(a, ctx, ("out", "dx", "dgamma"), {"axis": other}) is None:
        return None
    return Hint(
        "norm-wrong-axis",
        f"{ctx.who} takes the mean and variance over {_over(p, other)}, axis {other}, instead of "
        f"over {_over(p, p.axis)}, axis {p.axis}: {_LAYER[p.axis]} "
        + (
            "normalises each feature across the examples of the batch"
            if p.axis == 0
            else "normalises each example across its own features"
        )
        + ". Look at the axis= of the mean and the variance (keepdims=True keeps the shapes "
        "broadcasting), and of every sum over them in the backward pass.",
    )


def no_mean_path(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is dx without the mean path (dμ/n dropped; see the module docstring)."""
    if _fits(a, ctx, ("dx",), {"mean_path": False}) is None:
        return None
    n = ctx.norm.x.shape[ctx.norm.axis]
    return Hint(
        "norm-no-mean-path",
        f"{ctx.who} is missing the gradient that flows through the mean μ: μ depends on every "
        f"one of the {n} entries it averages, so each of them also receives a share of dμ "
        "(the gradient of the loss with respect to μ), besides the direct term dxhat/σ and the "
        "variance's share. Look at the line that adds up dx: compute dμ and add its share.",
    )


def no_variance_path(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is dx without the variance path (dvar dropped; see the module docstring)."""
    if _fits(a, ctx, ("dx",), {"var_path": False}) is None:
        return None
    return Hint(
        "norm-no-variance-path",
        f"{ctx.who} is missing the gradient that flows through the variance: σ² is computed from "
        "every entry it normalises, so each of them also receives a share of dvar (the gradient "
        "of the loss with respect to the variance), besides the direct term and the mean's share. "
        "Look at where dvar is computed and whether its term is added into dx (and into dμ).",
    )


def batch_stats_at_test(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is a test-mode batchnorm out computed with the batch's own mean and variance."""
    p = ctx.norm_test
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
        f"{ctx.who} is normalised with this batch's own mean and variance: in test mode batchnorm "
        "uses running_mean and running_var (what training accumulated), so an example's output "
        "does not depend on the other examples in its batch. Look at the branch for mode 'test'.",
    )


def _running(ctx: HintContext) -> tuple[np.ndarray, float] | None:
    """(the right update, momentum) when expected is the update of ctx.running."""
    p = ctx.running
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
    if not mistake_matches(a, right, (1 - m) * ctx.running.old + m * ctx.running.batch, shared=()):
        return None
    return Hint(
        "running-momentum-swapped",
        f"{ctx.who} gives the two shares the other way round: with momentum = {m:g} the old "
        f"running value keeps the share {m:g} and this batch's statistic gets {1 - m:.3g}, so the "
        "average changes slowly. Look at which of the two momentum multiplies.",
    )


def not_updated(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is still the old running value."""
    found = _running(ctx)
    if found is None or not mistake_matches(a, found[0], ctx.running.old, shared=()):
        return None
    return Hint(
        "running-not-updated",
        f"{ctx.who} is still the old running value: every train-mode call must move the running "
        "mean and variance towards this batch's statistics and store them back in the param dict "
        "(bn_param['running_mean'] = ..., not only a local variable). Look at where they are written.",
    )
