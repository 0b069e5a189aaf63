"""Lesson 10's referees: a vanilla tanh RNN, the temporal affine layer and the two stretch numbers
of a matrix, computed by PyTorch (float64) with the lesson's conventions.

Our RNN: h_t = tanh(x_t Wx + h_{t-1} Wh + b), Wx (D, H), Wh (H, H), b (H,), x (N, T, D), h0 (N, H).
PyTorch's `torch.nn.RNN` stores weight_ih_l0 (H, D) = Wx transposed, weight_hh_l0 = Wh transposed, and
two biases that are added: bias_ih_l0 gets b, bias_hh_l0 zeros. They live here, not in a notebook cell that
the student reads before the exercises, because their code is the answer of several of them.
"""

from __future__ import annotations

import numpy as np
import torch

from ...referees import referee, referee_all

__all__ = ["torch_bounds", "torch_rnn", "torch_step_jacobian", "torch_temporal_affine", "torch_unrolled"]


@referee
def torch_rnn(x: np.ndarray, h0: np.ndarray, Wx: np.ndarray, Wh: np.ndarray, b: np.ndarray,
              dh: np.ndarray | None = None):
    """Our RNN computed by torch.nn.RNN (tanh, float64, batch_first) with the same weights.

    Inputs: x (N, T, D), h0 (N, H), Wx (D, H), Wh (H, H), b (H,); dh: None, or the upstream
    gradient of every hidden state, (N, T, H).
    Returns: h (N, T, H) when dh is None; otherwise (h, grads), grads a dict with the keys
    dx, dh0, dWx, dWh, db computed by autograd (the gradients of sum(h * dh)).
    """
    _, _, d = x.shape
    hidden = h0.shape[1]
    rnn = torch.nn.RNN(d, hidden, nonlinearity="tanh", batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(torch.tensor(Wx.T))   # PyTorch stores (H, D): Wx transposed
        rnn.weight_hh_l0.copy_(torch.tensor(Wh.T))
        rnn.bias_ih_l0.copy_(torch.tensor(b))
        rnn.bias_hh_l0.zero_()                        # its second bias is not in our model
    x_t = torch.tensor(x, requires_grad=True)
    h0_t = torch.tensor(h0[None], requires_grad=True)  # (layers, N, H)
    h, _ = rnn(x_t, h0_t)
    if dh is None:
        return h.detach().numpy()
    h.backward(torch.tensor(dh))
    grads = {
        "dx": x_t.grad.numpy(),
        "dh0": h0_t.grad[0].numpy(),
        "dWx": rnn.weight_ih_l0.grad.T.numpy(),
        "dWh": rnn.weight_hh_l0.grad.T.numpy(),
        "db": rnn.bias_ih_l0.grad.numpy(),
    }
    return h.detach().numpy(), grads


@referee
def torch_unrolled(x: np.ndarray, h0: np.ndarray, Wx: np.ndarray, Wh: np.ndarray, b: np.ndarray,
                   dh: np.ndarray, *, carry: bool = True, slope_from_input: bool = False) -> dict:
    """The same RNN unrolled step by step in PyTorch, with its own copy of Wx, Wh, b at every step.

    Autograd then reports each step's share of the weight gradients separately. Two switches
    reproduce classic mistakes: carry=False cuts the path from h_t back to h_{t-1} (no gradient
    is carried from step t+1 to step t); slope_from_input=True keeps tanh in the forward pass but
    makes the backward pass use 1 - a**2, with a the pre-activation, as tanh's slope.
    Inputs as torch_rnn's, dh (N, T, H) required.
    Returns: a dict like torch_rnn's grads, plus "steps": {"dWx": [one array per step], ...}.
    """
    steps_count = x.shape[1]
    x_t = torch.tensor(x, requires_grad=True)
    h0_t = torch.tensor(h0, requires_grad=True)
    copies = [{k: torch.tensor(v, requires_grad=True) for k, v in (("Wx", Wx), ("Wh", Wh), ("b", b))}
              for _ in range(steps_count)]
    prev, loss = h0_t, 0.0
    for t in range(steps_count):
        w = copies[t]
        a = x_t[:, t] @ w["Wx"] + prev @ w["Wh"] + w["b"]
        h = torch.tanh(a)
        if slope_from_input:  # value tanh(a), derivative 1 - a**2
            wrong = a - a**3 / 3
            h = h.detach() + wrong - wrong.detach()
        loss = loss + torch.sum(h * torch.tensor(dh[:, t]))
        prev = h if carry else h.detach()
    loss.backward()
    steps = {f"d{k}": [c[k].grad.numpy() for c in copies] for k in ("Wx", "Wh", "b")}
    grads: dict = {"dx": x_t.grad.numpy(), "dh0": h0_t.grad.numpy()}
    grads.update({name: sum(shares) for name, shares in steps.items()})
    grads["steps"] = steps
    return grads


@referee
def torch_bounds(M: np.ndarray) -> tuple[float, float]:
    """(rho, sigma_max) of a square matrix M (H, H) from torch.linalg (float64): the spectral
    radius and the largest singular value."""
    Mt = torch.tensor(M, dtype=torch.float64)
    return torch.linalg.eigvals(Mt).abs().max().item(), torch.linalg.matrix_norm(Mt, ord=2).item()


@referee
def torch_step_jacobian(c: np.ndarray, prev_h: np.ndarray, Wh: np.ndarray) -> np.ndarray:
    """The (H, H) Jacobian of one step of one sequence, next_h = tanh(c + prev_h @ Wh) (c stands
    for x @ Wx + b), by autograd (float64): entry (i, j) is d next_h[i] / d prev_h[j]."""
    c_t, Wh_t = torch.tensor(c), torch.tensor(Wh)
    jac = torch.autograd.functional.jacobian(lambda h: torch.tanh(c_t + h @ Wh_t), torch.tensor(prev_h))
    return jac.numpy()


@referee
def torch_temporal_affine(x: np.ndarray, w: np.ndarray, b: np.ndarray, dout: np.ndarray):
    """out = x @ w + b at every step, and (dx, dw, db) for the upstream dout, by autograd (float64).

    Inputs: x (N, T, D), w (D, M), b (M,), dout (N, T, M).
    Returns (out (N, T, M), {"dx": (N, T, D), "dw": (D, M), "db": (M,)}).
    """
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    out = torch.nn.functional.linear(xt, wt.T, bt)
    out.backward(torch.tensor(dout))
    return out.detach().numpy(), {"dx": xt.grad.numpy(), "dw": wt.grad.numpy(), "db": bt.grad.numpy()}


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
