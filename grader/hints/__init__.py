"""The hint engine: why does a student's array differ from the reference?

`diagnose(actual, expected)` looks only at the numbers and returns a `Hint` (a stable `code`
and a message a student can act on) or None. Rules run from the most specific to the least;
each one only fires on an exact pattern (equality up to a tolerance relative to the scale of
the arrays), so a correct answer gives None and an unrelated array gives None or the purely
factual `partial` hint, never a confident wrong story.

Layout, one module per theme, each holding its rules and the codes they give (`CODES`):
`input` (None, not an array, NaN), `shape`, `scale` (zero, factors, offsets, almost, partial),
`batch` (wrong axis, rows of dout, one example), `mask` (masks and slopes), `softmax` (the
one-hot term), `weights` (a square W not transposed, the L2 term) are the generic rules; the
*problem* modules `rnn`, `norm` (norm, norm_test, running), `optim`, `lstm` and `conv` (conv,
pool) also hold their problem's dataclass and its validation, and list it in `PROBLEMS`
(`problem.Problem`). `guards` names the codes of the toolkit's guards (a graded call's rules,
by_hand); a lesson's own checkers declare theirs in the lesson's package. `context` is the
Hint, the checked context and the tolerances; `format` how numbers appear in messages. This
module gathers the codes and the problems once (`MODULES`), checks a caller's hints once
(`hint_args`) and walks the rules (`diagnose_with`).

To add a hint: a rule in the module of its theme or problem, its code in that module's CODES,
the rule in that module's table (its RULES with a rank, or its problem's `Problem(...)`), and a
positive example in the module's test, tests/toolkit/hints/test_<module>.py (a test fails when
a code is never produced). Nothing else: this module gathers the codes, ranks and problems.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from .._validate import (
    describe,
    dtype_problem,
    float64_array,
    optional_batch_size,
    optional_kind,
    optional_mask,
    require_finite,
    short_traceback,
    to_numpy,
)
from ..errors import ToolkitInputError
from ..i18n import _
from ..referees import referee_all
from . import (
    batch,
    context,
    conv,
    format,
    guards,
    input,
    lstm,
    mask,
    norm,
    optim,
    problem,
    rnn,
    scale,
    shape,
    softmax,
    weights,
)
from .context import ALMOST_RTOL as ALMOST_RTOL
from .context import FACTOR_RTOL as FACTOR_RTOL
from .context import RTOL as RTOL
from .context import (
    Hint,
    HintArgs,
    HintContext,
    Rule,
    checked_layer_pair,
    checked_reg,
    checked_weights,
    close,
    context_for,
    is_gradient_name,
)
from .problem import Problem, finite_array

__all__ = ["HINT_CODES", "PROBLEMS", "Hint", "HintArgs", "diagnose", "diagnose_with", "hint_args",
           "is_gradient_name"]
# Also re-exported (the `X as X` imports above): the tolerances RTOL, ALMOST_RTOL, FACTOR_RTOL.

#: Every module with hint codes, in the order HINT_CODES lists them.
MODULES = (input, shape, scale, batch, mask, softmax, weights, rnn, norm, optim, lstm, conv, guards)

#: Every hint code the toolkit's checks and guards can print, and what it means (the class report
#: explains codes by it, with the lessons' own: grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {code: text for module in MODULES for code, text in module.CODES.items()}

#: Every problem a check can be given (`problem={name: {...}}`), by name.
PROBLEMS: dict[str, Problem] = {p.name: p for module in MODULES for p in getattr(module, "PROBLEMS", ())}

# The rules compute the right answer and its typical wrong variants (a convolution, a BPTT, a batch
# norm backward): every function of the hint modules is a referee, refused inside a graded call.
for _module in (*MODULES, context, format, problem):
    referee_all(vars(_module))


# Each rule takes (actual, ctx) with actual float64, finite, shaped like expected and not close
# to it; the first Hint returned is the diagnosis. A problem's own rules come first.
#: The generic value rules, most specific first: every module's RULES in rank order.
GENERIC_RULES: tuple[Rule, ...] = tuple(
    rule for _rank, rule in sorted((pair for module in MODULES for pair in getattr(module, "RULES", ())),
                               key=lambda pair: pair[0])
)


def _checked_problem(problem: Any, shape: tuple[int, ...]) -> tuple[str | None, Any]:
    """(name, checked dataclass) of `problem` ({name: dict} or None), or ToolkitInputError."""
    __tracebackhide__ = True
    if problem is None:
        return None, None
    names = ", ".join(PROBLEMS)
    if not isinstance(problem, dict) or len(problem) != 1 or next(iter(problem)) not in PROBLEMS:
        if not isinstance(problem, dict):
            got = describe(problem)
        else:
            got = (_("a dict with the key(s) {keys}").format(keys=", ".join(map(repr, problem))) if problem
                   else _("an empty dict"))
        raise ToolkitInputError(
            _("problem must be None or a dict with one key, the kind of problem ({names}), holding "
              "that problem's dict, e.g. problem={{'conv': {{'x': x, 'w': w, ...}}}}; but got {got}.").format(
                names=names, got=got)
        )
    (name, value), = problem.items()
    return name, PROBLEMS[name].check(value, shape)


def _refuse(names: list[str]) -> None:
    __tracebackhide__ = True
    keywords = [p.name for p in inspect.signature(hint_args).parameters.values() if p.kind is p.KEYWORD_ONLY]
    problems = [n for n in names if n in PROBLEMS]
    advice = (_(" {problems} is a problem: pass problem={{'{first}': {{...}}}}.").format(
        problems=", ".join(problems), first=problems[0]) if problems else "")
    raise ToolkitInputError(
        _("unknown keyword argument(s) {names}: the hint keywords are {keywords}.{advice}").format(
            names=", ".join(names), keywords=", ".join(keywords), advice=advice)
    )


def _checked_upstream(upstream: Any) -> np.ndarray | None:
    __tracebackhide__ = True
    return None if upstream is None else finite_array(upstream, "upstream")


def hint_args(
    shape: tuple[int, ...],
    /,
    *,
    batch_size: Any = None,
    mask: Any = None,
    upstream: Any = None,
    layer_input: Any = None,
    layer_output: Any = None,
    kind: Any = None,
    weights: Any = None,
    reg: Any = None,
    problem: Any = None,
    **unknown: Any,
) -> HintArgs:
    """The hint engine's keyword arguments, checked once against expected's shape S.

    batch_size — N, enables the sum-vs-mean hint; mask — bool array (S) marking where a mask
    applies (e.g. ReLU's x > 0); upstream — the gradient dout arriving at the layer: of shape
    (N, *S) it enables "one row of dout", of any shape "summed over the wrong axis", of shape S
    "ReLU mask taken from dout"; layer_input, layer_output — x and out of an elementwise layer,
    both (S) (with an upstream of shape S they enable "slope taken from the input"); kind —
    "gradient" or "value", the wording of some hints (None: guessed from the name,
    `is_gradient_name`); weights — a weight matrix W: shaped like expected (the parameter of a
    dW) it enables "off by k·W, the L2 term", square (K, K) with expected (..., K) it enables
    "dout @ W without the transpose"; reg — the L2 strength, names the multiple of reg·W;
    problem — {name: dict}, the problem of which expected is the right answer, one of PROBLEMS
    (see each problem module's docstring for its dict: rnn, norm, norm_test, running, optim,
    lstm, conv, pool).
    Raises ToolkitInputError, saying what was expected, for any bad one (or an unknown keyword).
    """
    __tracebackhide__ = True
    if unknown:
        _refuse(sorted(unknown))
    problem_name, checked = _checked_problem(problem, shape)
    return HintArgs(
        batch=optional_batch_size(batch_size),
        mask=optional_mask(mask, shape),
        upstream=_checked_upstream(upstream),
        layer=checked_layer_pair(layer_input, layer_output, shape),
        kind=optional_kind(kind),
        weights=checked_weights(weights, shape),
        reg=checked_reg(reg),
        problem=checked,
        problem_name=problem_name,
    )


@short_traceback
def diagnose(actual: Any, expected: Any, *, name: str | None = None, **hints: Any) -> Hint | None:
    """The most likely explanation of why `actual` (student) differs from `expected`.

    Inputs: actual — anything (usually an array of shape S); expected — float64 array of
    shape S, finite; name — e.g. "db", used in the message ("your db ..."); hints — the keyword
    arguments of `hint_args` (batch_size, mask, upstream, layer_input, layer_output, kind,
    weights, reg, problem).
    Returns: a Hint, or None when actual matches expected or nothing is recognised.
    Raises: ToolkitInputError for a bad expected or hint.
    """
    __tracebackhide__ = True
    exp = float64_array(expected, "expected")
    require_finite(exp, "expected")
    return diagnose_with(actual, context_for(exp, hint_args(exp.shape, **hints), name))


#: The rules of a check given no problem: none of its own.
_NO_PROBLEM = Problem("", lambda value, shape: None, ())


def _first(rules: tuple[Rule, ...], values: np.ndarray, ctx: HintContext) -> Hint | None:
    for rule in rules:
        hint = rule(values, ctx)
        if hint is not None:
            return hint
    return None


def diagnose_with(actual: Any, ctx: HintContext) -> Hint | None:
    """diagnose once its context is checked: the input and shape hints, then the rule tables."""
    __tracebackhide__ = True
    own = PROBLEMS[ctx.problem_name] if ctx.problem_name else _NO_PROBLEM
    arr = to_numpy(actual)
    if arr is not None and arr.dtype.kind == "c":
        return Hint("dtype", _("{who} has {problem}.").format(who=ctx.who, problem=dtype_problem(arr)))
    if arr is None or arr.dtype.kind not in "biuf":
        return input.not_an_array(actual, arr, ctx)
    values = arr.astype(np.float64)
    if arr.shape != ctx.expected.shape:
        return _first((*own.shape_rules, *shape.SHAPE_RULES, shape.wrong_shape), values, ctx)
    problem = dtype_problem(arr)
    if problem is not None:
        return Hint("dtype", _("{who} has {problem}.").format(who=ctx.who, problem=problem))
    if not np.all(np.isfinite(values)):
        return _first((*own.non_finite_rules, input.non_finite), values, ctx)
    if close(values, ctx.expected, ctx.tol):
        return _first(own.rules, values, ctx) if own.when_close else None
    return _first((*own.rules, *GENERIC_RULES), values, ctx)
