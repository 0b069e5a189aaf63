"""Lesson 11's referees and test problems: an LSTM in PyTorch (float64) with our conventions.

Our LSTM (CS231n's): a = x Wx + prev_h Wh + b, gates in the order i, f, o, g
(a[:, :H] input, a[:, H:2H] forget, a[:, 2H:3H] output, a[:, 3H:] the candidate g = tanh),
next_c = f * prev_c + i * g, next_h = o * tanh(next_c); Wx (D, 4H), Wh (H, 4H), b (4H,).

PyTorch's `torch.nn.LSTM` / `LSTMCell` store weight_ih (4H, D) = Wx transposed, with the gate
blocks in the order i, f, g, o, and two biases that are added: `to_torch_order` permutes the
blocks, bias_ih gets b (permuted) and bias_hh zeros.
"""

from __future__ import annotations

import numpy as np
import torch

from ...errors import CheckFailed, ToolkitInputError
from ...i18n import lesson_text as _
from ...numgrad import rel_error
from ...referees import referee, referee_all
from ...trusted import as_array

__all__ = [
    "lstm_problem",
    "step_problem",
    "to_torch_order",
    "torch_lstm",
    "torch_lstm_step",
    "torch_lstm_truncated",
    "truncated_bptt_mistake",
]


def _shapes_ok(x: np.ndarray, h: np.ndarray, wx: np.ndarray, wh: np.ndarray, b: np.ndarray) -> int:
    """H, after checking that x (N, [T,] D), h (N, H), Wx (D, 4H), Wh (H, 4H), b (4H,) fit."""
    arrays = {"x": x, "h": h, "Wx": wx, "Wh": wh, "b": b}
    for name, value in arrays.items():
        if not isinstance(value, np.ndarray) or value.dtype != np.float64:
            raise ToolkitInputError(f"{name} must be a float64 NumPy array, not {type(value).__name__}")
    hidden = h.shape[-1]
    if (wx.shape != (x.shape[-1], 4 * hidden) or wh.shape != (hidden, 4 * hidden)
            or b.shape != (4 * hidden,) or h.shape != (x.shape[0], hidden)):
        raise ToolkitInputError(
            f"expected x (N, [T,] D), h (N, H), Wx (D, 4H), Wh (H, 4H), b (4H,); got x {x.shape}, "
            f"h {h.shape}, Wx {wx.shape}, Wh {wh.shape}, b {b.shape}")
    return hidden


def to_torch_order(w: np.ndarray) -> np.ndarray:
    """The last axis's four gate blocks i, f, o, g reordered to PyTorch's i, f, g, o."""
    i, f, o, g = np.split(w, 4, axis=-1)
    return np.concatenate([i, f, g, o], axis=-1)


def _from_torch_order(w: np.ndarray) -> np.ndarray:
    i, f, g, o = np.split(w, 4, axis=-1)
    return np.concatenate([i, f, o, g], axis=-1)


def _module(module: torch.nn.Module, wx: np.ndarray, wh: np.ndarray, b: np.ndarray, suffix: str) -> None:
    with torch.no_grad():
        getattr(module, f"weight_ih{suffix}").copy_(torch.tensor(to_torch_order(wx).T))
        getattr(module, f"weight_hh{suffix}").copy_(torch.tensor(to_torch_order(wh).T))
        getattr(module, f"bias_ih{suffix}").copy_(torch.tensor(to_torch_order(b)))
        getattr(module, f"bias_hh{suffix}").zero_()   # the second bias is not in our model


def _param_grads(module: torch.nn.Module, suffix: str) -> dict[str, np.ndarray]:
    return {
        "dWx": _from_torch_order(getattr(module, f"weight_ih{suffix}").grad.numpy().T),
        "dWh": _from_torch_order(getattr(module, f"weight_hh{suffix}").grad.numpy().T),
        "db": _from_torch_order(getattr(module, f"bias_ih{suffix}").grad.numpy()),
    }


@referee
def torch_lstm(x, h0, Wx, Wh, b, dh=None):
    """Our LSTM over a sequence computed by torch.nn.LSTM (float64, batch_first), c0 = 0.

    Inputs: x (N, T, D), h0 (N, H), Wx (D, 4H), Wh (H, 4H), b (4H,); dh None or (N, T, H).
    Returns: h (N, T, H) when dh is None; otherwise (h, grads), grads a dict with dx, dh0, dWx,
    dWh, db, the gradients of sum(h * dh) computed by autograd.
    """
    _, _, d = x.shape
    hidden = _shapes_ok(x, h0, Wx, Wh, b)
    lstm = torch.nn.LSTM(d, hidden, batch_first=True, dtype=torch.float64)
    _module(lstm, Wx, Wh, b, "_l0")
    x_t = torch.tensor(x, requires_grad=True)
    h0_t = torch.tensor(h0[None], requires_grad=True)
    h, _ = lstm(x_t, (h0_t, torch.zeros_like(h0_t)))
    if dh is None:
        return h.detach().numpy()
    h.backward(torch.tensor(dh))
    grads = {"dx": x_t.grad.numpy(), "dh0": h0_t.grad[0].numpy(), **_param_grads(lstm, "_l0")}
    return h.detach().numpy(), grads


@referee
def torch_lstm_step(x, prev_h, prev_c, Wx, Wh, b, dnext_h=None, dnext_c=None):
    """One step of our LSTM computed by torch.nn.LSTMCell (float64).

    Inputs: x (N, D), prev_h, prev_c (N, H), Wx (D, 4H), Wh (H, 4H), b (4H,); dnext_h and
    dnext_c None, or the upstream gradients (N, H) of next_h and next_c.
    Returns (next_h, next_c), and when dnext_h is given a third item: a dict with dx, dprev_h,
    dprev_c, dWx, dWh, db, the gradients of sum(next_h * dnext_h) + sum(next_c * dnext_c).
    """
    hidden = _shapes_ok(x, prev_h, Wx, Wh, b)
    cell = torch.nn.LSTMCell(x.shape[1], hidden, dtype=torch.float64)
    _module(cell, Wx, Wh, b, "")
    x_t, h_t, c_t = (torch.tensor(v, requires_grad=True) for v in (x, prev_h, prev_c))
    next_h, next_c = cell(x_t, (h_t, c_t))
    values = (next_h.detach().numpy(), next_c.detach().numpy())
    if dnext_h is None:
        return values
    dc = np.zeros_like(prev_c) if dnext_c is None else dnext_c
    loss = torch.sum(next_h * torch.tensor(dnext_h)) + torch.sum(next_c * torch.tensor(dc))
    loss.backward()
    grads = {"dx": x_t.grad.numpy(), "dprev_h": h_t.grad.numpy(), "dprev_c": c_t.grad.numpy(),
             **_param_grads(cell, "")}
    return (*values, grads)


@referee
def torch_lstm_truncated(x, h0, Wx, Wh, b, dh, chunk, reset_cell=False):
    """Truncated BPTT in PyTorch: chunks of `chunk` steps, the state (h, c) carried and detached.

    Returns (h, grads): every hidden state (N, T, H), the same as the full forward pass, and
    dWx, dWh, db summed over the chunks, each chunk's backward pass stopping at its first step.
    reset_cell=True reproduces a classic mistake: the cell state restarts from zeros at every
    chunk (as calling lstm_forward once per chunk does), only h being carried.
    """
    n, steps, d = x.shape
    hidden = _shapes_ok(x, h0, Wx, Wh, b)
    if not isinstance(chunk, int) or chunk < 1:
        raise ToolkitInputError(f"chunk must be a positive int, not {chunk!r}")
    cell = torch.nn.LSTMCell(d, hidden, dtype=torch.float64)
    _module(cell, Wx, Wh, b, "")
    h, c = torch.tensor(h0), torch.zeros(n, hidden, dtype=torch.float64)
    states = []
    for start in range(0, steps, chunk):
        h, c = h.detach(), c.detach()        # the state carried, the graph cut
        if reset_cell:
            c = torch.zeros_like(c)
        loss = 0.0
        for t in range(start, min(start + chunk, steps)):
            h, c = cell(torch.tensor(x[:, t]), (h, c))
            states.append(h.detach().numpy())
            loss = loss + torch.sum(h * torch.tensor(dh[:, t]))
        loss.backward()                      # the gradients of all chunks add up in .grad
    return np.stack(states, axis=1), _param_grads(cell, "")


def truncated_bptt_mistake(name: str, actual, p: dict[str, np.ndarray], chunk: int) -> str | None:
    """A sentence naming the truncated-BPTT mistake that gives exactly `actual` (the student's h, dWx,
    dWh or db for the problem p over chunks of `chunk`), or None. Kept here, not in the notebook, so
    that the check's code does not tell the student the answer before the exercise."""
    args = [p[k] for k in ("x", "h0", "Wx", "Wh", "b")]
    try:
        actual = as_array(actual, f"your {name}")
    except CheckFailed:
        return None
    h_reset, grads_reset = torch_lstm_truncated(*args, p["dh"], chunk=chunk, reset_cell=True)
    reset = h_reset if name == "h" else grads_reset[name]
    if actual.shape == reset.shape and rel_error(actual, reset) < 1e-8:
        return _("your cell state restarts from zeros at every chunk (lstm_forward once per chunk does "
                 "that): carry prev_c across the chunk boundary as well as prev_h.")
    if name != "h":
        full = torch_lstm(*args, dh=p["dh"])[1][name]
        if actual.shape == full.shape and rel_error(actual, full) < 1e-8:
            return _("your gradients are those of full BPTT: each chunk's backward pass must stop at the "
                     "chunk's first step (start it from zero dnext_h and dnext_c, drop what its first "
                     "step returns).")
    return None


def _weights(rng: np.random.Generator, d: int, hidden: int, scale: float) -> dict[str, np.ndarray]:
    return {
        "Wx": scale * rng.normal(size=(d, 4 * hidden)) / np.sqrt(d),
        "Wh": scale * rng.normal(size=(hidden, 4 * hidden)) / np.sqrt(hidden),
        "b": 0.5 * scale * rng.normal(size=4 * hidden),
    }


def step_problem(N: int, D: int, H: int, seed: int, scale: float = 1.0) -> dict[str, np.ndarray]:
    """Inputs of one step drawn from `seed`: x (N, D), prev_h, prev_c (N, H), Wx (D, 4H),
    Wh (H, 4H), b (4H,), and upstream gradients dnext_h, dnext_c (N, H). A large `scale`
    saturates the gates."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.normal(size=(N, D)),
        "prev_h": rng.uniform(-1, 1, size=(N, H)),
        "prev_c": rng.normal(size=(N, H)),
        **_weights(rng, D, H, scale),
        "dnext_h": rng.normal(size=(N, H)),
        "dnext_c": rng.normal(size=(N, H)),
    }


def lstm_problem(N: int, T: int, D: int, H: int, seed: int, scale: float = 1.0) -> dict[str, np.ndarray]:
    """Inputs of a sequence drawn from `seed`: x (N, T, D), h0 (N, H), Wx (D, 4H), Wh (H, 4H),
    b (4H,), and the upstream gradient dh (N, T, H) of every hidden state."""
    rng = np.random.default_rng(seed)
    return {
        "x": rng.normal(size=(N, T, D)),
        "h0": rng.uniform(-1, 1, size=(N, H)),
        **_weights(rng, D, H, scale),
        "dh": rng.normal(size=(N, T, H)),
    }


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
