"""The hint codes of the toolkit's guards, which compare no numbers: a graded call's rules
(grader.exercise: input-modified, call-count, not-vectorised, too-much-memory) and grader.by_hand's
refusals (autograd-by-hand, forbidden-call).

A lesson's own checkers declare their codes where they live, in the lesson's package
(`HINT_CODES` in grader/lessons/<lesson>/..., gathered by `grader.lessons.hint_codes`): the toolkit
never imports the lessons.
"""

from __future__ import annotations

#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
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
}
