"""The hint codes of checks that compare no numbers: the lessons' own checkers, which print
their hints through the toolkit, and grader.by_hand's refusals.

`grader.lessons.dropout_check.check_dropout` (lesson 08), `grader.lessons.attention_checks` (lesson 12,
whose checks add a hint naming the mistake to check_close's line) and
`grader.lessons.init_variance.check_init_variance` (lesson 07) live with the lessons they serve,
which the toolkit never imports; their codes are listed here so that HINT_CODES names every code
a check can print (the class report explains each one by it).
"""

from __future__ import annotations

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
    "dropout-drop-probability": "a dropout keeping about 1 − p of the units (or rescaling by "
    "1/(1 − p)): p taken as the probability of dropping (check_dropout).",
    "dropout-not-rescaled": "a train-mode dropout whose kept units equal x instead of x / p (check_dropout).",
    "dropout-at-test": "a test-mode dropout that is not the identity: units dropped or "
    "rescaled at test time (check_dropout).",
    "init-variance": "an initialiser's weights of the wrong shape, dtype or variance: the variance "
    "another scheme would give (1/fan_in, 2/fan_in, ...) is named, or how far off it is "
    "(check_init_variance).",
    "autograd-by-hand": "a function the exercise asks to derive by hand called PyTorch's autograd "
    "(Tensor.backward, torch.autograd.grad, a torch.func transform) (grader.by_hand).",
    "input-modified": "a graded function changed one of its arguments in place (grader.Exercises: every "
    "argument the exercise does not list in `changes` must come back unchanged).",
    "call-count": "a graded function that did not call the notebook function its brief says to call, "
    "or called it another number of times (grader.Exercises, `calls`).",
    "not-vectorised": "a graded function the brief asks to vectorise (or to write as one expression) that "
    "ran more lines of Python than such a version does: a loop over the entries (grader.Exercises).",
    "too-much-memory": "a graded function that held far more memory than its brief's method needs: "
    "it built the big intermediate array the brief asks to avoid (grader.Exercises, `max_bytes`).",
    "forbidden-call": "a function called another that its exercise asks it not to use: the loop "
    "version inside a vectorised one, the staged backward inside a one-step one (grader.forbid_calls).",
    "attention-no-scale": "attention scores q kᵀ without the 1/sqrt(d) (grader.lessons.attention_checks).",
    "attention-scale-d": "attention scores divided by d instead of sqrt(d) (attention_checks).",
    "attention-softmax-queries": "an attention softmax normalised over the queries (axis -2) instead of the "
    "keys (attention_checks).",
    "attention-mask-after-softmax": "a mask applied to the attention weights after the softmax, so rows no "
    "longer sum to 1 (attention_checks).",
    "attention-mask-inverted": "a boolean mask read as nn.MultiheadAttention's attn_mask (True = hidden) "
    "where True means may attend (attention_checks).",
    "attention-softmax-sum-term": "an attention backward whose softmax step is w * dw, the row-wise "
    "−w·Σ(w·dw) term missing (attention_checks).",
    "attention-backward-scale": "an attention backward without the 1/sqrt(d) of the scores in dq or dk "
    "(attention_checks).",
    "attention-no-transpose": "an attention backward missing a transpose in dk or dv, right-shaped only "
    "when T == S (attention_checks).",
    "mha-bare-reshape": "multi-head attention whose heads are cut by a bare reshape to (N, H, T, dh) "
    "(attention_checks).",
    "mha-one-path": "a multi-head attention dx holding only the path through the queries, not those through "
    "k and v (attention_checks).",
    "gelu-no-cubic": "a GELU slope without the derivative of the cubic term 0.044715 x³ (attention_checks).",
    "block-no-residual-grad": "a transformer block's dx without the gradient a skip connection passes "
    "straight through (attention_checks).",
}
