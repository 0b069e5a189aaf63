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

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ... import CheckFailed, as_array, as_dict, as_float, as_items, check_close, forward_first, rel_error
from ...checks import CheckResult, checked_name, compare, report
from ...hints import Hint, hint_args
from ...i18n import N_, returned_by
from ...i18n import lesson_text as _
from ...referees import referee_all
from ..slips import matching_slip
from .reference import torch_bounds, torch_rnn, torch_step_jacobian, torch_unrolled

__all__ = [
    "CLIP_TOL",
    "HINT_CODES",
    "RNN_INPUTS",
    "STEP_INPUTS",
    "check_bounds",
    "check_clipped",
    "check_one_gradient",
    "check_output",
    "check_rnn_forward",
    "check_step_matrix",
    "check_total_norm",
    "clipped_arrays",
    "grads_problem",
    "known_rnn_mistake",
    "rnn_problem",
    "step_matrix_problem",
    "step_problem",
]


#: The hint codes this module's checks print, and what each one means (the class report explains
#: each by it; gathered by grader.lessons.hint_codes).
HINT_CODES: dict[str, str] = {
    "stretch-frobenius": "a sigma_max computed as the Frobenius norm of the matrix (np.linalg.norm's "
    "default) instead of its largest singular value (lesson 10).",
    "stretch-real-part": "a spectral radius from the real parts of the eigenvalues instead of their "
    "moduli (lesson 10).",
    "stretch-swapped": "stretch_bounds' rho and sigma_max the wrong way round (lesson 10).",
    "stretch-squared": "a sigma_max squared: the largest eigenvalue of M Mᵀ without its square root "
    "(lesson 10).",
    "step-matrix-slope-after": "a backward step matrix W_hᵀ diag(s): the tanh slopes applied after the "
    "matmul, on the columns (lesson 10).",
    "step-matrix-transposed": "a backward step matrix transposed: J[j, i] where J[i, j] = ∂next_h[i] / "
    "∂prev_h[j] is asked (lesson 10).",
    "step-matrix-no-slope": "a backward step matrix without the tanh slopes: W_hᵀ alone (lesson 10).",
    "embedding-buffered-add": "an embedding backward by dW[x] += dout, which keeps one gradient per "
    "repeated index (lesson 10).",
    "temporal-db-one-axis": "a temporal affine db summed over one of the two axes of dout (N, T, M) "
    "only (lesson 10).",
    "temporal-dw-one-step": "a temporal affine dw holding one time step's share only (lesson 10).",
    "clip-per-array": "gradients clipped array by array, each by its own norm, instead of by their "
    "global norm (lesson 10).",
    "clip-per-value": "gradients clipped value by value (np.clip) instead of by their global norm "
    "(lesson 10).",
    "clip-below-rescaled": "gradients whose global norm is already at most max_norm rescaled anyway "
    "(lesson 10).",
    "clip-norm-after": "clip_gradients returning the global norm after clipping instead of before "
    "(lesson 10).",
}

#: code (or code:detail) -> the hint shown when a value equals what that slip gives.
_MESSAGES = {
    "stretch-frobenius": N_(
        "your {name} is the Frobenius norm of M, the root of the sum of all its squared entries "
        "(np.linalg.norm's default for a matrix). It is never below the most one multiplication can "
        "stretch a vector, and usually above: which quantity of M is the largest ‖v M‖ / ‖v‖?"
    ),
    "stretch-real-part": N_(
        "your {name} comes from the real parts of the eigenvalues. A complex eigenvalue λ turns as well "
        "as it scales: λ^k has size |λ|^k, whatever its real part, and a negative λ counts by its size too."
    ),
    "stretch-swapped": N_(
        "your {name} is the other of the two numbers: one is the rate of many multiplications in the "
        "long run, the other the most a single one can stretch. Which definition is which quantity?"
    ),
    "stretch-squared": N_(
        "your {name} is the square of the one-step stretch: ‖v M‖² / ‖v‖² is at most the largest "
        "eigenvalue of M Mᵀ, and the stretch is ‖v M‖ / ‖v‖ itself."
    ),
    "step-matrix-slope-after": N_(
        "your {name} puts the slopes after W_hᵀ, on its columns: entry (i, j) gets unit j's slope. "
        "Going back, the gradient passes through this step's tanh first, then through W_hᵀ: entry "
        "(i, j) needs the slope of unit i."
    ),
    "step-matrix-transposed": N_(
        "your {name} is the transpose of the step's matrix: with dprev_h = dnext_h J and dnext_h a row, "
        "entry (i, j) must be ∂next_h[i] / ∂prev_h[j]."
    ),
    "step-matrix-no-slope": N_(
        "your {name} is W_hᵀ alone: the step goes through a tanh, and its slopes are missing."
    ),
    "embedding-buffered-add": N_(
        "your {name} lost the repeats: where an index occurs several times in x, its row got only one "
        "of its gradients. dW[x] += dout is buffered, and with repeated indices NumPy keeps one "
        "addition per row; np.add.at(dW, x, dout) adds them all (so does a loop over the positions)."
    ),
    "temporal-db-one-axis:0": N_(
        "your {name} is dout summed over the batch only: it still has one row per time step. b is "
        "added at every time step of every sequence, so its gradient collects a share from each of them."
    ),
    "temporal-db-one-axis:1": N_(
        "your {name} is dout summed over time only: it still has one row per sequence. b is added at "
        "every time step of every sequence, so its gradient collects a share from each of them."
    ),
    "temporal-dw-one-step": N_(
        "your {name} is the share of one time step alone: w is used at every step, so its gradient "
        "collects every step's share, as W_h's did in BPTT."
    ),
    "clip-per-array": N_(
        "you clipped every array by its own norm; clip the global norm of all arrays together: one "
        "factor, the same for every array."
    ),
    "clip-per-value": N_(
        "you clipped every value into [-max_norm, max_norm], which turns the gradient; clip the "
        "global norm instead: one factor, the same for every array."
    ),
    "clip-below-rescaled": N_(
        "the global norm {norm} is already at most max_norm = {max_norm}, so the gradients must come "
        "back unchanged; yours were rescaled to norm max_norm."
    ),
    "clip-norm-after": N_(
        "{max_norm} is the norm after clipping; return the norm before it, {norm}."
    ),
}


def _named(actual: Any, slips: Sequence[tuple[str, Any]]) -> tuple[str, str] | None:
    """(key, code) of the first slip `actual` equals (grader.lessons.slips), or None."""
    key = matching_slip(actual, slips)
    return None if key is None else (key, key.partition(":")[0])


_DB_ONE_AXIS = "temporal-db-one-axis"


def _stretch_slips(output: str, M: np.ndarray) -> list[tuple[str, Any]]:
    eigenvalues = np.linalg.eigvals(M)
    singular = np.linalg.svd(M, compute_uv=False)
    if output == "rho":
        real = eigenvalues.real
        return [("stretch-real-part", np.max(real)), ("stretch-real-part", np.max(np.abs(real))),
                ("stretch-swapped", singular[0])]
    return [("stretch-frobenius", np.linalg.norm(M)), ("stretch-swapped", np.max(np.abs(eigenvalues))),
            ("stretch-squared", singular[0] ** 2)]


def _step_matrix_slips(output: str, Wh: np.ndarray, next_h: np.ndarray) -> list[tuple[str, Any]]:
    s = 1.0 - next_h**2
    return [("step-matrix-slope-after", Wh.T * s[None, :]), ("step-matrix-transposed", Wh * s[None, :]),
            ("step-matrix-transposed", s[:, None] * Wh), ("step-matrix-no-slope", Wh.T)]


def _embedding_slips(output: str, x: np.ndarray, dout: np.ndarray, V: int) -> list[tuple[str, Any]]:
    buffered = np.zeros((V, dout.shape[-1]))
    buffered[x] += dout
    return [("embedding-buffered-add", buffered)]


def _temporal_affine_slips(output: str, x: np.ndarray, w: np.ndarray, b: np.ndarray,
                           dout: np.ndarray) -> list[tuple[str, Any]]:
    if output == "db":  # summed over the batch only (one row per step), or over time only
        return [(f"{_DB_ONE_AXIS}:{axis}", dout.sum(axis=axis)) for axis in (0, 1)]
    if output == "dw":
        return [("temporal-dw-one-step", x[:, t].T @ dout[:, t]) for t in (x.shape[1] - 1, 0)]
    return []


#: exercise -> its slips: fn(output, *inputs) -> [(code or code:detail, what that slip gives)].
_SLIPS: dict[str, Callable[..., list[tuple[str, Any]]]] = {
    "stretch_bounds": _stretch_slips,
    "backward_step_matrix": _step_matrix_slips,
    "word_embedding_backward": _embedding_slips,
    "temporal_affine_backward": _temporal_affine_slips,
}


def check_output(exercise: str, output: str, actual: Any, expected: Any, inputs: Sequence[Any], *,
                 label: str | None = None, tol: float = 1e-7, **hints: Any) -> CheckResult:
    """Check `output` of the student's `exercise` (its value `actual`) against `expected` as
    check_close does (✓/✗ line, hint, CheckFailed), naming the classic slip it equals, if any.

    Inputs: exercise — "stretch_bounds" (output "rho" or "sigma_max"; inputs (M,)),
    "backward_step_matrix" ("J"; (Wh, next_h)), "word_embedding_backward" ("dW"; (x, dout, V)) or
    "temporal_affine_backward" ("dx", "dw" or "db"; (x, w, b, dout)); label — the line's name
    (default `output`); tol and hints — as for check_close.
    """
    __tracebackhide__ = True
    name = checked_name(label or output)
    exp = np.array(expected, dtype=np.float64)
    result, line = compare(name, actual, exp, tol=tol, args=hint_args(exp.shape, **hints))
    if not result.passed:
        with np.errstate(all="ignore"):
            found = _named(actual, _SLIPS[exercise](output, *inputs))
        if found is not None:
            key, code = found
            result = replace(result, hint=Hint(code, _(_MESSAGES[key]).format(name=f"{name}")))
    report([(result, line)])
    return result


def check_bounds(rho: Any, sigma_max: Any, M: np.ndarray, label: str = "", tol: float = 1e-7) -> None:
    """Your stretch_bounds' (rho, sigma_max) for the matrix M against torch.linalg's, naming the
    classic slips (the Frobenius norm, the real parts, the two swapped, a square); `label` follows
    each quantity's name."""
    __tracebackhide__ = True
    expected_rho, expected_sigma = torch_bounds(M)
    check_output("stretch_bounds", "rho", rho, expected_rho, (M,), label=f"rho{label}", tol=tol)
    check_output("stretch_bounds", "sigma_max", sigma_max, expected_sigma, (M,), label=f"sigma_max{label}",
                 tol=tol)


def step_matrix_problem(H: int, seed: int, scale: float = 1.0) -> dict[str, np.ndarray]:
    """One step of one sequence drawn from `seed`: Wh (H, H) (times `scale`), the state prev_h (H,)
    it starts from, c (H,) standing for x @ Wx + b, and next_h (H,), the state the step produced."""
    rng = np.random.default_rng(seed)
    Wh, c = scale * rng.normal(size=(H, H)), rng.normal(size=H)
    prev_h = rng.uniform(-1, 1, size=H)
    return {"Wh": Wh, "c": c, "prev_h": prev_h, "next_h": np.tanh(c + prev_h @ Wh)}


def check_step_matrix(J: Any, p: dict[str, np.ndarray], label: str | None = None, tol: float = 1e-7) -> None:
    """Your backward_step_matrix's J for the step p (from step_matrix_problem) against the true
    matrix of that step back (PyTorch's autograd), naming the classic slips."""
    __tracebackhide__ = True
    check_output("backward_step_matrix", "J", J, torch_step_jacobian(p["c"], p["prev_h"], p["Wh"]),
                 (p["Wh"], p["next_h"]), label=label, tol=tol)


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
    out, cache = as_items(returned, returned_by(fname), 2, (out_name, "cache"))
    reference, true_grad = _true_gradient(name, p)
    try:  # the classic slip: the recurrence started from zeros
        mine = as_array(out, returned_by(fname, out_name), shape=reference.shape)
        zero_start = torch_rnn(p["x"], 0 * p["h0"], p["Wx"], p["Wh"], p["b"]) if "h0" in p else None
        from_zeros = zero_start is not None and rel_error(mine, zero_start) < 1e-8
    except CheckFailed:
        from_zeros = False  # forward_first says what is wrong with it
    forward_first(out, reference, returned_by(fname, out_name), _("the RNN (PyTorch's nn.RNN)"),
                  _(" Start the recurrence from h0, not from zeros.") if from_zeros else "")
    # The returned tuple's own items; each gradient is converted by check_close.
    returned = as_items(backward(upstream.copy(), cache), returned_by(bname), len(grad_names), grad_names)
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
            h = as_array(h, returned_by("rnn_forward", "h"), shape=expected.shape)
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


def _global_norm(grads: dict[str, np.ndarray]) -> float:
    """The norm of all the arrays of `grads` taken together, as one long vector."""
    return float(np.sqrt(sum(np.sum(g ** 2) for g in grads.values())))


def grads_problem(shapes: dict[str, tuple[int, ...]], norm: float, seed: int) -> dict[str, np.ndarray]:
    """A dict name -> float64 array of the given shapes, drawn from `seed` and scaled so that
    their global norm is `norm`."""
    rng = np.random.default_rng(seed)
    grads = {name: rng.normal(size=shape) for name, shape in shapes.items()}
    size = _global_norm(grads)
    return {name: g * (norm / size) for name, g in grads.items()}


def clipped_arrays(clipped: Any, what: str | None = None) -> dict[str, np.ndarray]:
    """The dict clip_gradients returned, as a plain dict of float64 arrays read from the dict's own
    storage; CheckFailed unless it is a dict of name -> float64 array."""
    __tracebackhide__ = True
    what = returned_by("clip_gradients", "clipped") if what is None else what
    plain = as_dict(clipped, what)
    for name, value in dict.items(clipped):  # the real entries, not what an override says
        as_array(value, f"{what}[{str.__str__(name)!r}]", float64=True)
    return plain


def check_clipped(clipped: Any, grads: dict[str, np.ndarray], factor: float | None = None, *,
                  max_norm: float) -> None:
    """Every array of `clipped` must be `factor` times the one of `grads` (a copy taken before
    the call); factor None: the factor clipping to `max_norm` needs, worked out here from the global
    norm of `grads` (so that the check cell does not show it). When the arrays are a classic
    clipping slip (per array, per value, rescaled below max_norm), the first wrong line carries that
    hint alone, not one generic hint per array."""
    __tracebackhide__ = True
    if factor is None:
        norm = _global_norm(grads)
        factor = max_norm / norm if norm > max_norm else 1.0
    clipped = clipped_arrays(clipped)
    rows = [compare(f"clipped['{name}']", clipped.get(name), factor * g, tol=CLIP_TOL,
                    args=hint_args(np.shape(g))) for name, g in grads.items()]
    failed = [i for i, (result, _line) in enumerate(rows) if not result.passed]
    if failed:
        slip = _clip_mistake(clipped, grads, factor, max_norm)
        if slip is not None:
            rows = [(replace(result, hint=None), line) for result, line in rows]
            first = failed[0]
            rows[first] = (replace(rows[first][0], hint=slip), rows[first][1])
    report(rows)


def check_total_norm(total_norm: Any, norm: float, max_norm: float) -> None:
    """The total_norm returned must be the global norm `norm` of the gradients before clipping."""
    __tracebackhide__ = True
    value = as_float(total_norm, returned_by("clip_gradients", "total_norm"))  # one number
    name = checked_name(_("total_norm (global norm {norm}, max_norm {max_norm})").format(norm=f"{norm:g}",
                                                                                    max_norm=f"{max_norm:g}"))
    result, line = compare(name, total_norm, np.array(norm, dtype=np.float64), tol=1e-7, args=hint_args(()))
    if not result.passed and norm > max_norm and np.isclose(value, max_norm):
        message = _(_MESSAGES["clip-norm-after"]).format(max_norm=f"{max_norm:g}", norm=f"{norm:g}")
        result = replace(result, hint=Hint("clip-norm-after", message))
    report([(result, line)])


def _clip_mistake(clipped: dict[str, np.ndarray], grads: dict[str, np.ndarray], factor: float,
                  max_norm: float) -> Hint | None:
    """clipped: a plain dict of float64 arrays (from clipped_arrays)."""
    def all_equal(expected):
        return all(
            k in clipped and clipped[k].shape == v.shape and rel_error(clipped[k], v) < 1e-6
            for k, v in expected.items()
        )

    norm = _global_norm(grads)
    if factor == 1.0 and all_equal({k: g * (max_norm / norm) for k, g in grads.items()}):
        message = _(_MESSAGES["clip-below-rescaled"]).format(norm=f"{norm:.3g}", max_norm=f"{max_norm:g}")
        return Hint("clip-below-rescaled", message)
    if all_equal({k: np.clip(g, -max_norm, max_norm) for k, g in grads.items()}):
        return Hint("clip-per-value", _(_MESSAGES["clip-per-value"]))
    if all_equal({k: g * min(1.0, max_norm / np.linalg.norm(g)) for k, g in grads.items()}):
        return Hint("clip-per-array", _(_MESSAGES["clip-per-array"]))
    return None


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
