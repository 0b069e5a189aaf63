"""The hint engine: why does a student's array differ from the reference?

`diagnose(actual, expected)` looks only at the numbers and returns a `Hint` (a stable `code`
and a message a student can act on) or None. Rules run from the most specific to the least;
each one only fires on an exact pattern (equality up to a tolerance relative to the scale of
the arrays), so a correct answer gives None and an unrelated array gives None or the purely
factual `partial` hint, never a confident wrong story.

Layout: this module holds the public API, HINT_CODES and the rule table `VALUE_RULES` that
`diagnose` walks; `hint_context` the Hint, the checked context and the tolerances;
`hint_format` how numbers appear in messages; the rules are grouped by theme in
`hint_rules_input` (None, not an array, NaN), `hint_rules_shape`, `hint_rules_scale` (zero,
factors, offsets, almost, partial), `hint_rules_batch` (wrong axis, rows of dout, one
example, one example's outer product), `hint_rules_mask` (masks and slopes, the local slope
alone, the inverted mask), `hint_rules_softmax` (the one-hot term), `hint_rules_weights` (a
square W not transposed, the L2 term), `hint_rules_rnn` (backpropagation through time),
`hint_rules_norm` (batchnorm and layernorm, test mode, running averages), `hint_rules_optim`
(SGD with momentum, RMSProp, Adam), `hint_rules_lstm` (the LSTM's gates and cell state) and
`hint_rules_conv` (convolution and max pool); `hint_problems` checks the problem contexts
(norm, norm_test, running, optim, lstm, conv, pool) those last four need.
They sit next to this module, not in a subpackage, because `short_traceback` shortens a
traceback only when every frame is in a file directly inside grader/.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import hint_rules_batch as batch
from . import hint_rules_conv as convs
from . import hint_rules_lstm as lstms
from . import hint_rules_mask as masks
from . import hint_rules_norm as norms
from . import hint_rules_optim as optims
from . import hint_rules_rnn as rnns
from . import hint_rules_scale as scale
from . import hint_rules_shape as shape
from . import hint_rules_softmax as softmax
from . import hint_rules_weights as weighted
from ._validate import dtype_problem, short_traceback, to_numpy
from .hint_context import ALMOST_RTOL as ALMOST_RTOL
from .hint_context import FACTOR_RTOL as FACTOR_RTOL
from .hint_context import RTOL as RTOL
from .hint_context import Hint, HintContext, Rule, close, is_gradient_name, make_context
from .hint_context import checked_layer_pair as checked_layer_pair
from .hint_rules_input import non_finite, not_an_array

__all__ = ["HINT_CODES", "Hint", "diagnose", "is_gradient_name"]
# Also re-exported (the `X as X` imports above): checked_layer_pair, which grader.checks imports
# from here, and the tolerances RTOL, ALMOST_RTOL, FACTOR_RTOL.

HINT_CODES: dict[str, str] = {
    "none": "the value is None — usually a missing `return`.",
    "type": "the value is not a numeric array (a tuple, a string...); says what it is instead.",
    "shape": "wrong shape; names both shapes and says 'transpose' when one is the other reversed.",
    "transpose": "equals the expected array transposed (with the same or the reversed shape).",
    "reshape": "the right numbers in a different shape with the same number of entries.",
    "not-summed-over-batch": "one row per example where their sum was expected, or one row "
    "of the upstream gradient instead of the sum of all rows.",
    "summed-over-batch": "summed over the batch axis where one row per example was expected.",
    "dtype": "not float64 (float32, integer, bool or complex).",
    "wrong-axis": "equals the upstream gradient reduced over another axis (or over every axis) "
    "than the one the expected value reduces (needs upstream).",
    "transpose-reshape": "the expected values read from a transposed matrix and reshaped back, "
    "e.g. (w @ dout.T).reshape(x.shape) instead of (dout @ w.T).reshape(x.shape).",
    "nan": "contains NaN or inf: an overflow in exp (subtract the max, use exp(−|x|)), 0·inf, 0/0 or log(0).",
    "zero": "all zeros (or nearly) where a non-zero value was expected: for a gradient a blocked "
    "or unpropagated path; for a value (kind='value') a result never computed or kept.",
    "should-be-zero": "non-zero although the expected value is zero everywhere.",
    "sign": "the right magnitude with the opposite sign.",
    "sum-vs-mean": "off by the batch size N: averaged where a sum was needed (or the reverse).",
    "scale": "off by one constant factor c in every entry (c is reported; 2 and 1/2 explained).",
    "offset": "off by the same constant in every entry (or by the same row in every row): a "
    "term added or left out that does not depend on the entry (a bias, a scalar, a constant).",
    "mask": "right on one side of the mask (given, or the zeros of expected) and wrong on the "
    "other: mask not applied, or wrong values where it applies.",
    "first-example-only": "right for the first example (row 0) only; the other rows are wrong.",
    "last-example-only": "right for the last example only; the other rows are wrong.",
    "slope-from-input": "an elementwise slope (tanh, sigmoid) computed from the layer's input "
    "instead of its output (needs upstream, layer_input and layer_output).",
    "unmasked-upstream": "exactly dout summed over the batch axis where something else was "
    "expected: a mask or slope skipped between dout and this gradient (needs upstream).",
    "mask-from-dout": "a ReLU mask taken from the upstream gradient (dout > 0) instead of the "
    "forward input (x > 0) (needs upstream, or a mask).",
    "one-hot-index": "softmax gradient with the one-hot term subtracted at the wrong entries: "
    "whole columns (dx[:, y] -= 1), whole rows (dx[y] -= 1) or every entry.",
    "one-hot-term": "softmax gradient right except at each row's label entry, where it is off "
    "by one constant: the one-hot term missing (dx = p / N), doubled or not divided by N.",
    "forgot-dout": "the local slope of a tanh, sigmoid or ReLU layer alone (1 − out², out·(1 − out), "
    "the mask): dout not multiplied in (needs layer_input and layer_output, or a mask).",
    "inverted-mask": "a ReLU backward with the mask inverted: 0 where dout should pass, dout where it "
    "should be blocked (x <= 0 instead of x > 0).",
    "no-transpose": "G @ W where G @ W.T was expected (dx = dout @ W with a square W; needs weights).",
    "one-example-product": "a weight gradient from one example: x[i]ᵀ·dout[i] for the first or last "
    "example instead of x.T @ dout (needs upstream).",
    "l2-term": "off by exactly k·W: the L2 term reg·W (or 2·reg·W) missing or counted twice (needs "
    "weights shaped like expected; reg names the multiple).",
    "rnn-no-carry": "backprop through time where step t receives only dh[:, t], not the gradient "
    "from step t+1 (needs rnn).",
    "rnn-one-step": "a shared weight's gradient holding one time step's share (first or last): `=` "
    "instead of `+=` across the steps (needs rnn).",
    "rnn-slope-after-matmul": "tanh's slope applied after the product with Wh, (dnext_h @ Wh.T) * "
    "(1 − h²), instead of before it (needs rnn).",
    "norm-unbiased-variance": "a batchnorm or layernorm out, dx or dgamma computed with the unbiased "
    "variance (divided by n − 1) instead of the biased one (needs norm).",
    "norm-wrong-axis": "a normalisation layer with its mean and variance over the other axis (the "
    "features for batchnorm, the batch for layernorm) (needs norm).",
    "norm-no-mean-path": "a normalisation dx without the gradient that flows through the mean μ "
    "(the dμ/n term dropped) (needs norm).",
    "norm-no-variance-path": "a normalisation dx without the gradient that flows through the "
    "variance (the dvar terms dropped) (needs norm).",
    "norm-batch-stats-at-test": "a test-mode batchnorm out normalised with the batch's statistics "
    "instead of the running ones (needs norm_test).",
    "running-momentum-swapped": "a running average updated as (1 − m)·old + m·batch instead of "
    "m·old + (1 − m)·batch (needs running).",
    "running-not-updated": "a running average still equal to its old value after a train-mode "
    "call (needs running).",
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
    "lstm-gate-order": "an LSTM quantity computed with the gates read from other blocks of a than "
    "i, f, o, g (e.g. PyTorch's i, f, g, o), everywhere or in the backward's da only (needs lstm).",
    "lstm-no-tanh-c-path": "an LSTM gradient where the cell state's gradient is dnext_c alone, "
    "without the share that reaches next_c from dnext_h through o·tanh(next_c) (needs lstm).",
    "lstm-no-forget-in-dprev-c": "an LSTM gradient with dprev_c = dc instead of dc·f: the forget "
    "gate left out of the cell path (needs lstm).",
    "lstm-no-cell-carry": "an LSTM sequence gradient where each step starts from a zero cell "
    "gradient: dprev_c not carried from step t+1 to step t (needs lstm).",
    "lstm-c-for-tanh-c": "an LSTM quantity with next_c where tanh(next_c) belongs: next_h = o·next_c, "
    "or next_c in do or in the tanh's slope (needs lstm).",
    "lstm-one-step": "an LSTM weight gradient holding one time step's share (first or last): `=` "
    "instead of `+=` across the steps (needs lstm).",
    "conv-flipped-kernel": "a convolution out, dx or dw computed with the kernel flipped (a true "
    "convolution instead of the cross-correlation) (needs conv).",
    "conv-padding-not-removed": "a convolution dx of the padded input's shape (N, C, H + 2p, W + 2p): "
    "the padding not cropped away (needs conv).",
    "conv-stride-ignored": "a convolution backward with its windows at (i, j) instead of "
    "(i·stride, j·stride), or an out of the stride-1 shape (needs conv).",
    "pool-every-element": "a max-pool dx with each window's gradient sent to (or shared among) "
    "every element of the window instead of its maximum (needs pool).",
    "pool-first-element": "a max-pool dx with each window's gradient sent to the window's first "
    "(top-left) element instead of its maximum (needs pool).",
    "pool-overwrite": "a max-pool dx written with `=` where overlapping windows must add their "
    "gradients (+=) (needs pool).",
    "dropout-drop-probability": "a dropout keeping about 1 − p of the units (or rescaling by "
    "1/(1 − p)): p taken as the probability of dropping (check_dropout).",
    "dropout-not-rescaled": "a train-mode dropout whose kept units equal x instead of x / p "
    "(check_dropout).",
    "dropout-at-test": "a test-mode dropout that is not the identity: units dropped or "
    "rescaled at test time (check_dropout).",
    "almost": "close but not within tolerance; reports the largest difference and where.",
    "partial": "right at some entries and wrong at others; says how many and the first wrong one.",
}


# Each rule takes (actual, ctx) with actual float64, finite, shaped like expected and (but for
# PROBLEM_RULES) not close to it; the first Hint returned is the diagnosis.
#: The rules of the training problems (norm, norm_test, running, optim): each fires only on the
#: exact recomputation of one mistake of the given problem, compared with one scale per
#: independent part (a batchnorm's feature, a layernorm's example, an entry of w), so they are
#: asked first, and even when actual is within the global tolerance of expected (a batch whose
#: one constant feature has a dx 10⁴ times the others' hides their differences from `close`).
PROBLEM_RULES: tuple[Rule, ...] = (
    norms.unbiased_variance,
    norms.wrong_norm_axis,
    norms.no_mean_path,
    norms.no_variance_path,
    norms.batch_stats_at_test,
    norms.momentum_swapped,
    norms.not_updated,
    optims.state_not_kept,
    optims.sign_flipped,
    optims.no_sqrt,
    optims.no_bias_correction,
    optims.t_after_use,
)

#: The rules of the layer problems (lstm, conv, pool): each fires only on the exact
#: recomputation of one mistake, so they are asked before the generic value rules.
LAYER_RULES: tuple[Rule, ...] = (
    lstms.one_step,
    lstms.no_cell_carry,
    lstms.no_forget_in_dprev_c,
    lstms.no_tanh_c_path,
    lstms.c_for_tanh_c,
    lstms.gate_order,
    convs.flipped_kernel,
    convs.stride_ignored,
    convs.pool_first_element,
    convs.pool_every_element,
    convs.pool_overwrite,
)

#: The value rules, most specific first: the training problems', the layers', then the generic ones.
VALUE_RULES: tuple[Rule, ...] = (
    *PROBLEM_RULES,
    *LAYER_RULES,
    scale.should_be_zero,
    scale.zero,
    scale.sign,
    scale.sum_vs_mean,
    scale.scale_of_two,
    scale.any_scale,
    scale.constant_offset,
    scale.row_offset,
    weighted.l2_term,
    shape.transposed,
    shape.transpose_reshaped,
    weighted.no_transpose,
    batch.wrong_axis,
    batch.unmasked_upstream,
    batch.upstream_row,
    batch.one_example_product,
    rnns.no_carry,
    rnns.one_step_share,
    rnns.slope_after_matmul,
    masks.slope_from_input,
    masks.mask_from_dout,
    masks.forgot_dout,
    masks.inverted_mask,
    softmax.one_hot_index,
    softmax.one_hot_term,
    batch.one_example,
    masks.masked,
    masks.zero_pattern,
    scale.almost,
    scale.partial,
)

#: The rules asked for an actual of another shape than expected, before the generic shape hints.
SHAPE_RULES: tuple[Rule, ...] = convs.SHAPE_RULES

#: The rules asked before the generic `nan` hint when actual holds NaN or inf (same signature).
NON_FINITE_RULES: tuple[Rule, ...] = (optims.t_after_use_non_finite,)


@short_traceback
def diagnose(
    actual: Any,
    expected: Any,
    *,
    batch_size: int | None = None,
    mask: Any = None,
    name: str | None = None,
    upstream: Any = None,
    layer_input: Any = None,
    layer_output: Any = None,
    kind: str | None = None,
    weights: Any = None,
    reg: float | None = None,
    rnn: Any = None,
    norm: Any = None,
    norm_test: Any = None,
    running: Any = None,
    optim: Any = None,
    lstm: Any = None,
    conv: Any = None,
    pool: Any = None,
) -> Hint | None:
    """The most likely explanation of why `actual` (student) differs from `expected`.

    Inputs: actual — anything (usually an array of shape S); expected — float64 array of
    shape S, finite; batch_size — N, enables the sum-vs-mean hint; mask — bool array of shape
    S marking where a mask applies (e.g. ReLU's x > 0); name — e.g. "db", used in the message
    ("your db ..."); upstream — the gradient dout arriving at the layer: of shape (N, *S) it
    enables "one row of dout", of any shape "summed over the wrong axis", of shape S "ReLU
    mask taken from dout"; layer_input, layer_output — x and out of an elementwise layer, both
    of shape S (with an upstream of shape S they enable "slope taken from the input");
    kind — "gradient" or "value", the wording of some hints; None: guessed from the name
    (`is_gradient_name`), "gradient" when there is no name; weights — a weight matrix W:
    shaped like expected (the parameter of a dW) it enables "off by k·W, the L2 term", square
    (K, K) with expected of shape (..., K) it enables "dout @ W without the transpose"; reg —
    the L2 strength, names the multiple of reg·W; rnn — a dict with x, h0, Wx, Wh, b, dh (a
    vanilla tanh RNN over T steps) or x, prev_h, Wx, Wh, b, dnext_h (one step), the problem
    whose gradient expected is: enables the backprop-through-time hints; norm, norm_test,
    running, optim — the training problem of which expected is the right answer (see
    `grader.hint_problems`): a train-mode batchnorm/layernorm (expected out, dx (N, D), dgamma
    or dbeta (D,)), a test-mode batchnorm forward (out (N, D)), one running-average update (S),
    or K steps of an update rule (the trajectory (K, *S)); lstm, conv, pool — the layer of which
    expected is a value or gradient (see `grader.hint_problems`): an LSTM sequence (x (N, T, D),
    h0, Wx (D, 4H), Wh (H, 4H), b (4H,), dh) or step (x (N, D), prev_h, prev_c, ..., dnext_h,
    dnext_c), gate order i, f, o, g; a convolution (x (N, C, H, W), w (F, C, HH, WW), b, dout,
    stride, pad); a max pool (x, dout, pool_height, pool_width, stride).
    Returns: a Hint, or None when actual matches expected or nothing is recognised.
    Raises: ToolkitInputError for a bad expected, mask, batch_size, upstream, layer, kind,
    weights, reg, rnn, norm, norm_test, running, optim, lstm, conv or pool.
    """
    __tracebackhide__ = True
    ctx = make_context(
        expected,
        batch_size=batch_size,
        mask=mask,
        name=name,
        upstream=upstream,
        layer_input=layer_input,
        layer_output=layer_output,
        kind=kind,
        weights=weights,
        reg=reg,
        rnn=rnn,
        norm=norm,
        norm_test=norm_test,
        running=running,
        optim=optim,
        lstm=lstm,
        conv=conv,
        pool=pool,
    )
    return _diagnose_in(actual, ctx)


def _diagnose_in(actual: Any, ctx: HintContext) -> Hint | None:
    """diagnose once its context is checked: the input and shape hints, then the rule tables."""
    __tracebackhide__ = True
    arr = to_numpy(actual)
    if arr is not None and arr.dtype.kind == "c":
        return Hint("dtype", f"{ctx.who} has {dtype_problem(arr)}.")
    if arr is None or arr.dtype.kind not in "biuf":
        return not_an_array(actual, arr, ctx)
    values = arr.astype(np.float64)
    if arr.shape != ctx.expected.shape:
        for rule in SHAPE_RULES:
            hint = rule(values, ctx)
            if hint is not None:
                return hint
        return shape.wrong_shape(values, ctx)
    problem = dtype_problem(arr)
    if problem is not None:
        return Hint("dtype", f"{ctx.who} has {problem}.")
    if not np.all(np.isfinite(values)):
        for rule in NON_FINITE_RULES:
            hint = rule(values, ctx)
            if hint is not None:
                return hint
        return non_finite(values, ctx)
    rules = PROBLEM_RULES if close(values, ctx.expected, ctx.tol) else VALUE_RULES
    for rule in rules:
        hint = rule(values, ctx)
        if hint is not None:
            return hint
    return None
