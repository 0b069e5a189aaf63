"""Lesson 10's check helpers: seeded test problems, and the checks that compare a student's RNN and
gradient clipping with the truth and name the classic mistakes.

They live here rather than in a notebook cell because the hints they print for those mistakes
(which slope, which carry, which factor) are the answers the exercises ask the student to derive.
The notebook keeps only the thin wrappers that pass the student's own functions in, as graded calls
of the lesson's declaration (`check_one_gradient(name, graded.rnn_step_forward,
graded.rnn_step_backward, ...)`: NumPy only, every argument left unchanged). Every value a
student function returned goes through the toolkit's trusted path (as_items, as_array, as_float,
as_dict, check_close) before anything else touches it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ... import CheckFailed, as_array, as_dict, as_float, as_items, check_close, forward_first, rel_error
from ...i18n import lesson_text as _
from ...referees import referee_all
from .reference import torch_rnn, torch_unrolled

__all__ = [
    "CLIP_TOL",
    "RNN_INPUTS",
    "STEP_INPUTS",
    "check_clipped",
    "check_one_gradient",
    "check_rnn_forward",
    "check_total_norm",
    "clipped_arrays",
    "grads_problem",
    "known_rnn_mistake",
    "rnn_problem",
    "step_problem",
]


def step_problem(N: int, D: int, H: int, seed: int, scale: float = 1.0) -> dict[str, np.ndarray]:
    """Inputs of one step drawn from `seed`: x (N, D), prev_h (N, H), Wx (D, H), Wh (H, H),
    b (H,), and an upstream gradient dnext_h (N, H). `scale` multiplies the weights (a large
    scale saturates the tanh)."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.normal(size=(N, D)),
        "prev_h": rng.uniform(-1, 1, size=(N, H)),
        "Wx": scale * rng.normal(size=(D, H)) / np.sqrt(D),
        "Wh": scale * rng.normal(size=(H, H)) / np.sqrt(H),
        "b": 0.5 * rng.normal(size=H),
        "dnext_h": rng.normal(size=(N, H)),
    }


def rnn_problem(N: int, T: int, D: int, H: int, seed: int, scale: float = 1.0) -> dict[str, np.ndarray]:
    """Inputs of a whole sequence drawn from `seed`: x (N, T, D), h0 (N, H), Wx (D, H),
    Wh (H, H), b (H,), and an upstream gradient dh (N, T, H) for every hidden state."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.normal(size=(N, T, D)),
        "h0": rng.uniform(-1, 1, size=(N, H)),
        "Wx": scale * rng.normal(size=(D, H)) / np.sqrt(D),
        "Wh": scale * rng.normal(size=(H, H)) / np.sqrt(H),
        "b": 0.5 * rng.normal(size=H),
        "dh": rng.normal(size=(N, T, H)),
    }


STEP_INPUTS = ("x", "prev_h", "Wx", "Wh", "b")
RNN_INPUTS = ("x", "h0", "Wx", "Wh", "b")


def _true_gradient(name: str, p: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(the RNN's output, the true gradient `name`) for the problem p, by PyTorch's autograd."""
    if "dnext_h" in p:  # one step is a sequence of length 1
        h, grads = torch_rnn(p["x"][:, None, :], p["prev_h"], p["Wx"], p["Wh"], p["b"],
                             p["dnext_h"][:, None, :])
        return h[:, 0, :], grads["dx"][:, 0, :] if name == "dx" else grads[{"dprev_h": "dh0"}.get(name, name)]
    h, grads = torch_rnn(*[p[k] for k in RNN_INPUTS], p["dh"])
    return h, grads[name]


def check_one_gradient(name: str, forward: Callable, backward: Callable, input_names: tuple[str, ...],
                       p: dict[str, np.ndarray], upstream: np.ndarray, tol: float,
                       names: tuple[str, str]) -> None:
    """One gradient `name` of the student's `backward` (the cache from their `forward`) for the problem
    p, against the true gradient of the RNN (PyTorch's autograd), once the forward matches nn.RNN.

    forward, backward: the student's functions, as graded calls (graded.<name>); input_names: the keys
    of p they take, in order; upstream: p's upstream gradient; names: (forward's, backward's name).
    Raises CheckFailed, with an RNN hint when the result is a classic mistake exactly.
    """
    __tracebackhide__ = True
    fname, bname = names
    out_name = "next_h" if fname == "rnn_step_forward" else "h"
    grad_names = ["d" + k for k in input_names]
    i = grad_names.index(name)
    returned = forward(*[p[k].copy() for k in input_names])
    out, cache = as_items(returned, f"{fname}'s result", 2, (out_name, "cache"))
    reference, true_grad = _true_gradient(name, p)
    try:  # the classic slip: the recurrence started from zeros
        mine = as_array(out, f"your {fname}'s {out_name}", shape=reference.shape)
        zero_start = torch_rnn(p["x"], 0 * p["h0"], p["Wx"], p["Wh"], p["b"]) if "h0" in p else None
        from_zeros = zero_start is not None and rel_error(mine, zero_start) < 1e-8
    except CheckFailed:
        from_zeros = False  # forward_first says what is wrong with it
    forward_first(out, reference, f"{fname}'s {out_name}", "the RNN (PyTorch's nn.RNN)",
                  " Start the recurrence from h0, not from zeros." if from_zeros else "")
    # The returned tuple's own items; each gradient is converted by check_close.
    returned = as_items(backward(upstream.copy(), cache), f"{bname}'s result", len(grad_names), grad_names)
    numeric = true_grad
    try:
        # the whole problem lets a hint name RNN mistakes (no carry from t+1, = instead of +=, ...)
        check_close(name, returned[i], numeric, tol=tol, batch_size=upstream.shape[0], problem={"rnn": p})
    except CheckFailed as err:
        if any(result.hint for result in err.results):
            raise                        # the hint engine has named the mistake already
        hint = known_rnn_mistake(name, returned[i], p)
        if hint is None:
            raise
        print(_("    RNN hint: {hint}").format(hint=hint))
        raise CheckFailed(f"{err} — {hint}", results=err.results) from None


def known_rnn_mistake(name: str, actual: Any, p: dict[str, np.ndarray]) -> str | None:
    """A sentence naming the classic RNN mistake that gives exactly `actual`, or None."""
    step = "dnext_h" in p
    if step:  # one step is a sequence of length 1
        args = (p["x"][:, None, :], p["prev_h"], p["Wx"], p["Wh"], p["b"], p["dnext_h"][:, None, :])
        key = {"dprev_h": "dh0"}.get(name, name)
    else:
        args = tuple(p[k] for k in ("x", "h0", "Wx", "Wh", "b", "dh"))
        key = name
    try:
        actual = as_array(actual, f"your {name}")
    except CheckFailed:
        return None

    def same(expected):
        if step and key == "dx":
            expected = expected[:, 0, :]
        return actual.shape == expected.shape and rel_error(actual, expected) < 1e-6

    if same(torch_unrolled(*args, slope_from_input=True)[key]):
        return _("your {name} uses 1 - a**2, with a the pre-activation, as the slope of tanh; the "
                 "slope is 1 - tanh(a)**2 = 1 - next_h**2: use the output you cached.").format(name=name)
    if step:
        return None
    if same(torch_unrolled(*args, carry=False)[key]):
        return _("your {name} is what you get when each step only receives dh[:, t]: the gradient "
                 "reaching h_t also comes from step t+1 — feed step t with dh[:, t] plus the dprev_h "
                 "that step t+1 returned.").format(name=name)
    if key in ("dWx", "dWh", "db"):
        shares = torch_unrolled(*args)["steps"][key]
        for t in (0, len(shares) - 1):
            if same(shares[t]):
                return _("your {name} is the share of time step t = {t} alone (of {steps} "
                         "steps): the same weights are used at every step, so add (+=) every "
                         "step's share instead of overwriting it (=).").format(
                    name=name, t=t, steps=len(shares)
                )
    return None


def check_rnn_forward(h: Any, p: dict[str, np.ndarray]) -> None:
    """Your rnn_forward's h for the problem p against torch.nn.RNN."""
    __tracebackhide__ = True
    args = [p[k] for k in RNN_INPUTS]
    expected = torch_rnn(*args)
    try:
        check_close("h", h, expected, batch_size=p["x"].shape[0])
    except CheckFailed as err:
        hint = None
        try:
            h = as_array(h, "rnn_forward's h", shape=expected.shape)
        except CheckFailed:
            h = None
        if h is not None:
            from_zero = torch_rnn(args[0], np.zeros_like(args[1]), *args[2:])
            if rel_error(h, from_zero) < 1e-6:
                hint = _("your h is the run that starts from a zero state: start from h0 "
                         "(prev_h = h0 before the loop).")
            elif rel_error(h[:, 1:], expected[:, :-1]) < 1e-6:
                hint = _("your h[:, t] holds the state before step t: store the new state next_h of step t.")
        if hint is None:
            raise
        print(_("    RNN hint: {hint}").format(hint=hint))
        raise CheckFailed(f"{err} — {hint}", results=err.results) from None


# Clipping with PyTorch's formula, max_norm / (total_norm + 1e-6), changes the values by a
# relative error of about 5e-7 / total_norm (CS231n's rel_error): 2e-7 at norm 2.5, 1e-5 at norm
# 0.05. The tolerance accepts it; every typical mistake is off by far more.
CLIP_TOL = 1e-5


def grads_problem(shapes: dict[str, tuple[int, ...]], norm: float, seed: int) -> dict[str, np.ndarray]:
    """A dict name -> float64 array of the given shapes, drawn from `seed` and scaled so that
    their global norm is `norm`."""
    rng = np.random.default_rng(seed)
    grads = {name: rng.normal(size=shape) for name, shape in shapes.items()}
    size = np.sqrt(sum(np.sum(g ** 2) for g in grads.values()))
    return {name: g * (norm / size) for name, g in grads.items()}


def clipped_arrays(clipped: Any, what: str = "clip_gradients' clipped") -> dict[str, np.ndarray]:
    """The dict clip_gradients returned, as a plain dict of float64 arrays read from the dict's own
    storage; CheckFailed unless it is a dict of name -> float64 array."""
    __tracebackhide__ = True
    plain = as_dict(clipped, what)
    for name, value in dict.items(clipped):  # the real entries, not what an override says
        as_array(value, f"{what}[{str.__str__(name)!r}]", float64=True)
    return plain


def check_clipped(clipped: Any, grads: dict[str, np.ndarray], factor: float, max_norm: float) -> None:
    """Every array of `clipped` must be `factor` times the one of `grads` (a copy taken before
    the call)."""
    __tracebackhide__ = True
    clipped = clipped_arrays(clipped)
    failed = []
    for name, g in grads.items():
        try:
            check_close(f"clipped['{name}']", clipped.get(name), factor * g, tol=CLIP_TOL)
        except CheckFailed as err:
            failed.append(str(err))
    if not failed:
        return
    hint = _clip_mistake(clipped, grads, factor, max_norm)
    if hint:
        print(_("    Clipping hint: {hint}").format(hint=hint))
        failed.append(hint)
    raise CheckFailed("; ".join(failed))


def check_total_norm(total_norm: Any, norm: float, max_norm: float) -> None:
    """The total_norm returned must be the global norm `norm` of the gradients before clipping."""
    __tracebackhide__ = True
    value = as_float(total_norm, "clip_gradients' total_norm")  # one number
    try:  # check_close reads the value itself (and refuses float32)
        check_close(f"total_norm (global norm {norm:g}, max_norm {max_norm:g})", total_norm, norm)
    except CheckFailed as err:
        if norm > max_norm and np.isclose(value, max_norm):
            hint = _("{max_norm} is the norm after clipping; return the norm before it, {norm}.").format(
                max_norm=f"{max_norm:g}", norm=f"{norm:g}"
            )
            print(_("    Clipping hint: {hint}").format(hint=hint))
            raise CheckFailed(f"{err} — {hint}") from None
        raise


def _clip_mistake(clipped: dict[str, np.ndarray], grads: dict[str, np.ndarray], factor: float,
                  max_norm: float) -> str | None:
    """clipped: a plain dict of float64 arrays (from clipped_arrays)."""
    def all_equal(expected):
        return all(
            k in clipped and clipped[k].shape == v.shape and rel_error(clipped[k], v) < 1e-6
            for k, v in expected.items()
        )

    norm = np.sqrt(sum(np.sum(g ** 2) for g in grads.values()))
    if factor == 1.0 and all_equal({k: g * (max_norm / norm) for k, g in grads.items()}):
        return _("the global norm {norm} is already at most max_norm = {max_norm}, so the "
                 "gradients must come back unchanged; yours were rescaled to norm max_norm.").format(
            norm=f"{norm:.3g}", max_norm=f"{max_norm:g}"
        )
    if all_equal({k: np.clip(g, -max_norm, max_norm) for k, g in grads.items()}):
        return _("you clipped every value into [-max_norm, max_norm]; clip the global norm "
                 "instead: multiply all arrays by the same factor max_norm / total_norm.")
    if all_equal({k: g * min(1.0, max_norm / np.linalg.norm(g)) for k, g in grads.items()}):
        return _("you clipped every array by its own norm; clip the global norm of all arrays "
                 "together: one factor max_norm / total_norm for every array.")
    return None


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
