"""Lesson 11's long-dependency task: remember the first symbol across a gap, say it at the end.

Each sequence shows one of K symbols (one-hot) at its first step, then T - 1 empty steps (zero
inputs); the network must name the symbol from its last hidden state (a softmax read-out).
Chance is 1/K. The vanilla RNN (NumPy, in `.models`) and the student's LSTM (through
`StudentLSTM`, so an unfinished lstm_forward / lstm_backward gives NotReady) are trained the same
way: Adam, minibatches of fresh sequences, the same seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import ToolkitInputError
from ...i18n import lesson_text
from ...referees import referee_all
from ..adam import Adam
from ..student_calls import NotReady, for_cell
from .models import StudentLSTM, VanillaRNN, init_lstm, init_rnn, softmax_readout

__all__ = ["MemoryResult", "memory_batch", "memory_sweep", "train_memory"]


def memory_batch(rng: np.random.Generator, N: int, T: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """x (N, T, K): a one-hot symbol at step 0, zeros after; y (N,): the symbols."""
    if T < 1 or N < 1 or K < 2:
        raise ToolkitInputError(f"memory_batch needs N >= 1, T >= 1, K >= 2; got N={N}, T={T}, K={K}")
    y = rng.integers(0, K, size=N)
    x = np.zeros((N, T, K))
    x[np.arange(N), 0, y] = 1.0
    return x, y


def train_memory(kind: str, T: int, lstm_forward: Callable | None = None,
                 lstm_backward: Callable | None = None, *, forget_bias: float = 3.0, K: int = 4,
                 H: int = 16, N: int = 16, steps: int = 300,
                 lr: float = 0.01, seed: int = 0) -> float:
    """Train one model ("rnn" or "lstm") on the task of length T; its accuracy on 500 fresh sequences.

    Raises NotReady when kind is "lstm" and the student's functions are unfinished or broken.
    """
    if kind not in ("rnn", "lstm"):
        raise ToolkitInputError(f"kind must be 'rnn' or 'lstm', not {kind!r}")
    try:
        return _train(kind, T, lstm_forward, lstm_backward, forget_bias, K, H, N, steps, lr, seed)
    except NotReady as why:
        raise NotReady(for_cell(str(why))) from None


def _train(kind, T, lstm_forward, lstm_backward, forget_bias, K, H, N, steps, lr, seed) -> float:
    rng = np.random.default_rng(seed)
    if kind == "lstm":
        params = init_lstm(K, H, rng, forget_bias)
        model = StudentLSTM(params, lstm_forward, lstm_backward)
    else:
        params = init_rnn(K, H, rng)
        model = VanillaRNN(params)
    params["W"], params["c"] = rng.normal(size=(H, K)) / np.sqrt(H), np.zeros(K)
    optimiser = Adam(params, lr=lr)
    for _ in range(steps):
        x, y = memory_batch(rng, N, T, K)
        h, cache = model.forward(x, np.zeros((N, H)))
        _, _, dlast, dW, dc = softmax_readout(h[:, -1], params["W"], params["c"], y)
        dh = np.zeros_like(h)
        dh[:, -1] = dlast
        grads = model.backward(dh, cache)
        grads["W"], grads["c"] = dW, dc
        optimiser.step(grads)
    x, y = memory_batch(np.random.default_rng(10_000 + seed), 500, T, K)
    h, _ = model.forward(x, np.zeros((500, H)))
    return softmax_readout(h[:, -1], params["W"], params["c"], y)[1]


@dataclass
class MemoryResult:
    """Accuracies (lengths x seeds) of both models; lstm None (and error set) when not ready."""

    lengths: list[int]
    rnn: np.ndarray
    lstm: np.ndarray | None
    error: str = ""

    def table(self) -> str:
        """One line per length: the mean accuracy of each model and every seed's."""
        lines = [lesson_text("  T   vanilla RNN (each seed)        LSTM (each seed)")]
        for row, T in enumerate(self.lengths):
            rnn = " ".join(f"{a:.2f}" for a in self.rnn[row])
            lstm = " ".join(f"{a:.2f}" for a in self.lstm[row]) if self.lstm is not None else "-"
            mean = f"{self.lstm[row].mean():.2f}" if self.lstm is not None else " -  "
            lines.append(f"{T:3d}   {self.rnn[row].mean():.2f} ({rnn})        {mean} ({lstm})")
        if self.error:
            lines.append(self.error)
        return "\n".join(lines)


def memory_sweep(lstm_forward: Callable, lstm_backward: Callable, lengths: Sequence[int] = (5, 20, 40, 60),
                 seeds: Sequence[int] = (0, 1), **options) -> MemoryResult:
    """Both models trained at every length with every seed (options: see train_memory)."""
    lengths = [int(T) for T in lengths]
    rnn = np.array([[train_memory("rnn", T, seed=s, **options) for s in seeds] for T in lengths])
    try:
        lstm = np.array([[train_memory("lstm", T, lstm_forward, lstm_backward, seed=s, **options)
                          for s in seeds] for T in lengths])
    except NotReady as why:
        return MemoryResult(lengths, rnn, None, for_cell(str(why)))
    return MemoryResult(lengths, rnn, lstm)


referee_all(globals())
