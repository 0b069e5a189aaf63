"""LSTM rules: the gates sliced in another order, the cell-state gradient's paths, the `+=`.

The problem `lstm` (`problem={"lstm": {...}}`): a sequence {"x": (N, T, D), "h0": (N, H), "Wx":
(D, 4H), "Wh": (H, 4H), "b": (4H,), "dh": (N, T, H) (optional)} (initial cell state zeros), or
one step {"x": (N, D), "prev_h", "prev_c": (N, H), "Wx", "Wh", "b", "dnext_h", "dnext_c": (N, H)
(optional, together)}; expected is h (N, T, H), next_h or next_c (N, H) without the upstream
gradients, or with them dx, dh0 / dprev_h, dprev_c, dWx, dWh, db. The gate order is i, f, o, g: with
a = x @ Wx + prev_h @ Wh + b, i = σ(a[:, :H]), f = σ(a[:, H:2H]), o = σ(a[:, 2H:3H]),
g = tanh(a[:, 3H:]), next_c = f·prev_c + i·g, next_h = o·tanh(next_c). As in `rnn`,
each rule recomputes the problem with one mistake switched on (`_solve` with a `Variant`) and
fires only when expected is one of the problem's right quantities (which also tells which one:
h or next_h, next_c; dx, dh0 or dprev_h, dprev_c, dWx, dWh, db) and actual matches the
mistaken one exactly:

- `lstm-gate-order`: the gates read from other blocks of a (PyTorch's i, f, g, o, or any other
  order) in the forward and the backward alike, or only in the backward's assembly of da;
- `lstm-no-tanh-c-path`: the gradient of next_c is dnext_c alone, without what reaches it from
  next_h through tanh(next_c);
- `lstm-no-forget-in-dprev-c`: dprev_c = dc instead of dc · f;
- `lstm-no-cell-carry`: in a sequence, each step starts from a zero cell gradient (the dprev_c
  of step t+1 not passed to step t);
- `lstm-c-for-tanh-c`: next_c where tanh(next_c) belongs: next_h = o·next_c in the forward, or
  in the backward's do, or in the tanh's slope (1 − next_c²), or both;
- `lstm-one-step`: dWx, dWh or db holding the share of the first or the last step alone.
Each rule takes (actual, ctx) with actual float64, finite, shaped like expected and not close
to it, and returns a Hint or None.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import permutations
from typing import Any

import numpy as np

from .._validate import describe, fmt_shape
from ..errors import ToolkitInputError
from ..i18n import N_, _
from .context import Hint, HintContext, close, mistake_matches, pair_tol, problem_of
from .problem import Problem, checked_mapping, expected_shape_in, finite_array


@dataclass(frozen=True)
class LstmProblem:
    """An LSTM (gate order i, f, o, g) over T steps from (h0, c0): x (N, T, D), h0 and c0 (N, H),
    wx (D, 4H), wh (H, 4H), b (4H,); dh (N, T, H) and dc (N, H) — the upstream gradients of
    every hidden state and of the last cell state (zeros for a sequence), or None (forward
    only); step — given as one step (x (N, D), prev_h, prev_c, dnext_h, dnext_c), T = 1."""

    x: np.ndarray
    h0: np.ndarray
    c0: np.ndarray
    wx: np.ndarray
    wh: np.ndarray
    b: np.ndarray
    dh: np.ndarray | None
    dc: np.ndarray | None
    step: bool


#: The keys of an lstm dict: (required, optional) for a sequence and for one step.
LSTM_KEYS = {
    False: (("x", "h0", "Wx", "Wh", "b"), ("dh",)),
    True: (("x", "prev_h", "prev_c", "Wx", "Wh", "b"), ("dnext_h", "dnext_c")),
}


_LSTM_FORMS = N_(
    "x (N, T, D), h0 (N, H), Wx (D, 4H), Wh (H, 4H), b (4H,), dh (N, T, H) for a sequence, or "
    "x (N, D), prev_h, prev_c (N, H), Wx, Wh, b, dnext_h, dnext_c (N, H) for one step"
)


def checked_lstm(lstm: Any, shape: tuple[int, ...] | None = None) -> LstmProblem | None:
    """None, or the checked LSTM problem (one step becomes a sequence of length T = 1); shape —
    expected's, which must be the shape of one of the problem's quantities."""
    __tracebackhide__ = True
    if lstm is None:
        return None
    if not isinstance(lstm, Mapping):
        raise ToolkitInputError(_("lstm must be a dict with {forms}, but got {got}.").format(
            forms=_(_LSTM_FORMS), got=describe(lstm)))
    step = "prev_h" in lstm or "prev_c" in lstm
    what = "lstm (one step)" if step else "lstm (a sequence)"
    spec = checked_mapping(lstm, what, *LSTM_KEYS[step])
    optional = LSTM_KEYS[step][1]
    arr = {k: finite_array(v, f"lstm['{k}']") for k, v in spec.items() if v is not None or k not in optional}
    if step and ("dnext_h" in arr) != ("dnext_c" in arr):
        raise ToolkitInputError(_("lstm (one step) needs dnext_h and dnext_c together (or neither)."))
    x = arr["x"][:, None, :] if step and arr["x"].ndim == 2 else arr["x"]
    h0 = arr["prev_h" if step else "h0"]
    up = arr.get("dnext_h" if step else "dh")
    if step and up is not None and up.ndim == 2:
        up = up[:, None, :]
    if not _lstm_fits(x, h0, arr, up, step):
        given = ", ".join(f"{k} {fmt_shape(v.shape)}" for k, v in arr.items())
        raise ToolkitInputError(
            _("the arrays of lstm do not fit together ({given}); expected {forms}.").format(
                given=given, forms=_(_LSTM_FORMS)))
    c0 = arr["prev_c"] if step else np.zeros_like(h0)
    dc = None if up is None else (arr["dnext_c"] if step else np.zeros_like(h0))
    p = LstmProblem(x, h0, c0, arr["Wx"], arr["Wh"], arr["b"], up, dc, step)
    expected_shape_in(shape, _lstm_shapes(p), "lstm", "one of the LSTM's values or gradients")
    return p


def _lstm_fits(x: np.ndarray, h0: np.ndarray, arr: dict, up: np.ndarray | None, step: bool) -> bool:
    """Do the shapes of an lstm dict fit together (x already (N, T, D))?"""
    b, wx, wh = arr["b"], arr["Wx"], arr["Wh"]
    if x.ndim != 3 or (step and arr["x"].ndim != 2) or b.ndim != 1 or b.shape[0] % 4 or not b.size:
        return False
    (n, t, d), h = x.shape, b.shape[0] // 4
    ok = h0.shape == (n, h) and wx.shape == (d, 4 * h) and wh.shape == (h, 4 * h)
    ok = ok and (not step or arr["prev_c"].shape == (n, h))
    if up is not None:
        ok = ok and up.shape == (n, t, h)
        ok = ok and (not step or (arr["dnext_h"].ndim == 2 and arr["dnext_c"].shape == (n, h)))
    return ok and t >= 1


def _lstm_shapes(p: LstmProblem) -> list[tuple[int, ...]]:
    """The shapes of the quantities expected may be: h or next_h/next_c, dx, dh0, dWx, dWh, db."""
    n, t, d = p.x.shape
    values = [(n, p.h0.shape[1])] if p.step else [(n, t, p.h0.shape[1])]
    if p.dh is None:
        return values
    return [*values, (n, d) if p.step else p.x.shape, p.h0.shape, p.wx.shape, p.wh.shape, p.b.shape]


#: The hint codes this module's rules give, and what each one means (gathered into
#: grader.hints.HINT_CODES).
CODES: dict[str, str] = {
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
}

__all__ = [
    "CODES",
    "LSTM_KEYS",
    "PROBLEMS",
    "c_for_tanh_c",
    "checked_lstm",
    "gate_order",
    "LstmProblem",
    "no_cell_carry",
    "no_forget_in_dprev_c",
    "no_tanh_c_path",
    "one_step",
]

#: The gates in the order of a's blocks: a[:, :H] i, [H:2H] f, [2H:3H] o, [3H:] g.
GATES = ("i", "f", "o", "g")
_RIGHT_ORDER = (0, 1, 2, 3)
#: The parameter gradients, summed over the time steps.
_SHARED = ("dWx", "dWh", "db")


@dataclass(frozen=True)
class Variant:
    """The mistakes `_solve` can switch on (the defaults: none).

    order — the block of a each gate i, f, o, g is read from (forward and backward alike);
    back_order — the blocks the backward puts di, df, do, dg in (the forward being right);
    tanh_c_path — next_c's gradient receives dnext_h's share through tanh(next_c);
    forget_in_dc — dprev_c = dc · f (else dc); cell_carry — step t receives step t+1's dprev_c;
    c_for_tanh_c — "" (right), "forward" (next_h = o·next_c), "do" (do = dnext_h·next_c),
    "slope" (the tanh's slope 1 − next_c²) or "both" (do and slope).
    """

    order: tuple[int, ...] = _RIGHT_ORDER
    back_order: tuple[int, ...] | None = None
    tanh_c_path: bool = True
    forget_in_dc: bool = True
    cell_carry: bool = True
    c_for_tanh_c: str = ""


_NO_MISTAKE = Variant()


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """σ(z) without overflow."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


#: Recent results of `_solve`: (id(problem), variant) -> (problem, result). The problem is kept,
#: so its id cannot be reused while the entry lives.
_CACHE: dict[tuple[int, Variant], tuple[LstmProblem, dict[str, list[np.ndarray]]]] = {}


def _solve(p: LstmProblem, v: Variant | None = None) -> dict[str, list[np.ndarray]]:
    """The quantities of the LSTM p computed with the mistakes of v: name -> [value] (forward
    values; dx, dh0 / dprev_h, dprev_c) or [total, then one share per step] (dWx, dWh, db).

    Forward values: next_h, next_c (N, H) for one step, h (N, T, H) for a sequence; gradients
    (when p.dh is given) of sum(h · dh) + sum(c_T · dc): dx (N, D) or (N, T, D), dprev_h or dh0
    (N, H), dprev_c (N, H, one step only), dWx (D, 4H), dWh (H, 4H), db (4H,).
    """
    v = _NO_MISTAKE if v is None else v
    key = (id(p), v)
    if key in _CACHE and _CACHE[key][0] is p:
        return _CACHE[key][1]
    with np.errstate(all="ignore"):
        values, steps = _forward(p, v)
        result = values if p.dh is None else values | _backward(p, v, steps)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[key] = (p, result)
    return result


def _forward(p: LstmProblem, v: Variant) -> tuple[dict[str, list[np.ndarray]], list[tuple[np.ndarray, ...]]]:
    """The forward values and, per step, (prev_h, prev_c, i, f, o, g, next_c, tanh(next_c))."""
    hid = p.h0.shape[1]
    h, c, steps, hs = p.h0, p.c0, [], []
    for t in range(p.x.shape[1]):
        a = p.x[:, t] @ p.wx + h @ p.wh + p.b
        blocks = [a[:, k * hid : (k + 1) * hid] for k in range(4)]
        i, f, o = (_sigmoid(blocks[v.order[k]]) for k in range(3))
        g = np.tanh(blocks[v.order[3]])
        c_new = f * c + i * g
        tc = np.tanh(c_new)
        steps.append((h, c, i, f, o, g, c_new, tc))
        h, c = o * (c_new if v.c_for_tanh_c == "forward" else tc), c_new
        hs.append(h)
    values = {"next_h": [h], "next_c": [c]} if p.step else {"h": [np.stack(hs, axis=1)]}
    return values, steps


def _backward(p: LstmProblem, v: Variant, steps: list[tuple[np.ndarray, ...]]) -> dict[str, list[np.ndarray]]:
    """The gradients (see `_solve`) from the forward's per-step intermediates."""
    n, count, _ = p.x.shape
    hid = p.h0.shape[1]
    back = v.back_order or v.order
    dx = np.zeros(p.x.shape)
    shares: dict[str, list[np.ndarray]] = {k: [np.zeros(0)] * count for k in _SHARED}
    dh_next, dc_next = np.zeros((n, hid)), p.dc
    for t in reversed(range(count)):
        prev_h, prev_c, i, f, o, g, next_c, tc = steps[t]
        dnh = p.dh[:, t] + dh_next
        dnc = dc_next if v.cell_carry or t == count - 1 else np.zeros_like(dc_next)
        out_c = next_c if v.c_for_tanh_c in ("forward", "do", "both") else tc
        slope = {"forward": 1.0, "slope": 1 - next_c**2, "both": 1 - next_c**2}.get(v.c_for_tanh_c, 1 - tc**2)
        dc = dnc + dnh * o * slope if v.tanh_c_path else dnc
        parts = (dc * g * i * (1 - i), dc * prev_c * f * (1 - f), dnh * out_c * o * (1 - o))
        parts += (dc * i * (1 - g**2),)
        da = np.empty((n, 4 * hid))
        for k, part in enumerate(parts):
            da[:, back[k] * hid : (back[k] + 1) * hid] = part
        dc_next = dc * f if v.forget_in_dc else dc
        dx[:, t], dh_next = da @ p.wx.T, da @ p.wh.T
        shares["dWx"][t], shares["dWh"][t], shares["db"][t] = p.x[:, t].T @ da, prev_h.T @ da, da.sum(0)
    grads = {"dx": [dx[:, 0] if p.step else dx], ("dprev_h" if p.step else "dh0"): [dh_next]}
    if p.step:
        grads["dprev_c"] = [dc_next]
    return grads | {k: [sum(s[1:], s[0]), *s] for k, s in shares.items()}


def _which(ctx: HintContext) -> tuple[str, np.ndarray] | None:
    """(name, right value) when expected is one of the quantities of problem_of(ctx, LstmProblem)."""
    if problem_of(ctx, LstmProblem) is None:
        return None
    e = ctx.expected
    for name, (value, *_shares) in _solve(problem_of(ctx, LstmProblem)).items():
        if value.shape == e.shape and close(value, e, pair_tol(value, e)):
            return name, value
    return None


def _fits(a: np.ndarray, ctx: HintContext, *variants: Variant) -> tuple[str, Variant] | None:
    """(the quantity's name, the variant) for the first of `variants` that a matches exactly."""
    found = _which(ctx)
    if found is None:
        return None
    name, right = found
    for v in variants:
        if mistake_matches(a, right, _solve(problem_of(ctx, LstmProblem), v)[name][0]):
            return name, v
    return None


def _through(name: str, direct: tuple[str, ...]) -> str:
    """' (it reaches your dx through ...)' unless the mistake is in this quantity's own line."""
    return "" if name in direct else _(" (it reaches this quantity through the gradients passed back)")


def _order_text(order: tuple[int, ...]) -> str:
    """The gates block by block, e.g. 'i, f, g, o' for PyTorch's order."""
    names = [""] * 4
    for gate, block in enumerate(order):
        names[block] = GATES[gate]
    text = ", ".join(names)
    return text + (_(" — PyTorch's order") if text == "i, f, g, o" else "")


_WRONG_ORDERS = [o for o in permutations(range(4)) if o != _RIGHT_ORDER]
_LAYOUT = N_(
    "here a[:, :H] is the input gate i, a[:, H:2H] the forget gate f, a[:, 2H:3H] the output gate o "
    "and a[:, 3H:] the candidate g (the tanh one)"
)


def gate_order(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual comes from the gates sliced from a in another order (everywhere, or in da only)."""
    found = _fits(a, ctx, *(Variant(order=o) for o in _WRONG_ORDERS))
    if found is not None:
        return Hint(
            "lstm-gate-order",
            _("{who} is what you get with the gates read from the blocks of a in the order "
              "{order}: {layout}. Look at the lines that slice a into the "
              "gates (and, in the backward pass, where each gate's gradient goes back into da).").format(
                who=ctx.who, order=_order_text(found[1].order), layout=_(_LAYOUT)),
        )
    found = _fits(a, ctx, *(Variant(back_order=o) for o in _WRONG_ORDERS))
    if found is None:
        return None
    return Hint(
        "lstm-gate-order",
        _("{who} is what you get when the forward pass slices the gates right but the backward "
          "pass puts their gradients back into da in the order {order}: "
          "da must have the layout of a: {layout}. Look at the line that puts da together.").format(
            who=ctx.who, order=_order_text(found[1].back_order), layout=_(_LAYOUT)),
    )


def no_tanh_c_path(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual comes from next_c's gradient being dnext_c alone (nothing from next_h)."""
    found = _fits(a, ctx, Variant(tanh_c_path=False))
    if found is None:
        return None
    return Hint(
        "lstm-no-tanh-c-path",
        _("{who} is what you get when the cell state's gradient only receives dnext_c: "
          "next_h = o·tanh(next_c) depends on next_c too, so before you use the cell gradient (for "
          "di, df, dg and dprev_c) add what reaches next_c from dnext_h through the output gate and "
          "the tanh. Look at the line that computes the total gradient of next_c.").format(who=ctx.who),
    )


def no_forget_in_dprev_c(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual comes from dprev_c = dc instead of dc · f."""
    found = _fits(a, ctx, Variant(forget_in_dc=False))
    if found is None:
        return None
    return Hint(
        "lstm-no-forget-in-dprev-c",
        _("{who} is what you get when dprev_c is the cell gradient itself{through}: "
          "next_c = f·prev_c + i·g, so the gradient reaching prev_c is scaled by the forget gate, "
          "elementwise. Look at the line that computes dprev_c.").format(
            who=ctx.who, through=_through(found[0], ("dprev_c",))),
    )


def no_cell_carry(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual comes from every step starting with a zero cell gradient (a sequence)."""
    p = problem_of(ctx, LstmProblem)
    if p is None or p.x.shape[1] < 2 or _fits(a, ctx, Variant(cell_carry=False)) is None:
        return None
    return Hint(
        "lstm-no-cell-carry",
        _("{who} is what you get when each step's backward starts from a zero cell gradient: "
          "c_t is used by step t+1 (c_(t+1) = f·c_t + i·g), so step t must receive the dprev_c that "
          "step t+1 returned, just as it receives dprev_h. Look at the loop over the steps in "
          "reverse: carry the cell gradient from one step to the one before, like the hidden one.").format(
            who=ctx.who),
    )


_C_WHERE = {
    "forward": N_("in the forward pass: next_h is the output gate times tanh(next_c), not next_c itself. "
                  "Look at the line that computes next_h"),
    "do": N_("in the output gate's gradient: o multiplies tanh(next_c) in next_h, so do is dnext_h "
             "times that. Look at the line that computes do"),
    "slope": N_("in the tanh's slope on the way from next_h to next_c: the slope of tanh at next_c is "
                "1 − tanh(next_c)², from the tanh's output. Look at the line that adds dnext_h's share to "
                "the cell gradient"),
    "both": N_("in the backward pass, twice: in the output gate's gradient do and in the tanh's slope "
               "1 − tanh(next_c)² on the way to the cell gradient. Look at those two lines"),
}


def c_for_tanh_c(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual comes from next_c used where tanh(next_c) belongs (forward, do, slope, or both)."""
    found = _fits(a, ctx, *(Variant(c_for_tanh_c=where) for where in _C_WHERE))
    if found is None:
        return None
    return Hint(
        "lstm-c-for-tanh-c",
        _("{who} is what you get with next_c where tanh(next_c) belongs, {where}.").format(
            who=ctx.who, where=_(_C_WHERE[found[1].c_for_tanh_c])),
    )


def one_step(a: np.ndarray, ctx: HintContext) -> Hint | None:
    """actual is one time step's share (the first or the last) of dWx, dWh or db."""
    found = _which(ctx)
    if found is None or found[0] not in _SHARED or problem_of(ctx, LstmProblem).x.shape[1] < 2:
        return None
    name, right = found
    total, *shares = _solve(problem_of(ctx, LstmProblem))[name]
    for t in (0, len(shares) - 1):
        if mistake_matches(a, total, shares[t]):
            return Hint(
                "lstm-one-step",
                _("{who} is the share of the step at array index t = {t} alone (of {steps} steps), "
                  "step {step} when counted from 1: the same weights are used at every step, so add "
                  "(+=) every step's share instead of overwriting it (=).").format(
                    who=ctx.who, t=t, steps=len(shares), step=t + 1),
            )
    return None


PROBLEMS = (
    Problem("lstm", checked_lstm,
            (one_step, no_cell_carry, no_forget_in_dprev_c, no_tanh_c_path, c_for_tanh_c, gate_order)),
)
