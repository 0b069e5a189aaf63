"""Adam over a dict of NumPy parameters: the optimiser of lesson 11's and lesson 12's training
runs (lesson 08 asks students to write its update; like every lesson helper it is a referee,
refused inside a graded call)."""

from __future__ import annotations

import numpy as np

from ..referees import referee_all

__all__ = ["Adam"]


class Adam:
    """Adam (Kingma and Ba) over a dict of parameters, updated in place."""

    def __init__(self, params: dict[str, np.ndarray], lr: float = 1e-2, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8):
        self.params, self.lr, self.beta1, self.beta2, self.eps = params, lr, beta1, beta2, eps
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for k, w in self.params.items():
            self.m[k] = self.beta1 * self.m[k] + (1 - self.beta1) * grads[k]
            self.v[k] = self.beta2 * self.v[k] + (1 - self.beta2) * grads[k] ** 2
            m_hat = self.m[k] / (1 - self.beta1 ** self.t)
            v_hat = self.v[k] / (1 - self.beta2 ** self.t)
            w -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


referee_all(globals())
