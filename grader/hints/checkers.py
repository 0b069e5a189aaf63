"""The hint codes of checks that compare no numbers: the lessons' own checkers, which print
their hints through the toolkit, and grader.by_hand's refusals.

`grader.lessons.dropout_check.check_dropout` (lesson 08) and
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
    "dropout-not-rescaled": "a train-mode dropout whose kept units equal x instead of x / p "
    "(check_dropout).",
    "dropout-at-test": "a test-mode dropout that is not the identity: units dropped or "
    "rescaled at test time (check_dropout).",
    "init-variance": "an initialiser's weights of the wrong shape, dtype or variance: the variance "
    "another scheme would give (1/fan_in, 2/fan_in, ...) is named, or how far off it is "
    "(check_init_variance).",
    "autograd-by-hand": "a function the exercise asks to derive by hand called PyTorch's autograd "
    "(Tensor.backward, torch.autograd.grad, a torch.func transform) (grader.by_hand).",
    "forbidden-call": "a function called another that its exercise asks it not to use: the loop "
    "version inside a vectorised one, the staged backward inside a one-step one (grader.forbid_calls).",
}
