"""Lesson 07's numerical experiments, without any widget: what the views measure and draw.

- `DeepNetwork`: the deep MLP of the gradient-flow explorer, its forward statistics and the
  per-layer gradient norms from the student's ``layer_gradient_norms``;
- `saturation_paths`: products of sigmoid slopes along random paths through k layers;
- `DeadReluRuns`: full-batch gradient descent on a ReLU network (PyTorch autograd), with the
  dead fraction from the student's ``dead_fraction`` after every step.

The student's functions are called through `grader.lessons.student_calls`: an unfinished or
broken one raises `NotReady`. Sizes are chosen for one CPU: the deep network is at most 64
units wide with a batch of 64, small enough that BLAS stays single-threaded; the trainer stops
at 100 steps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validate import describe
from ...i18n import lesson_text as _
from ...referees import referee_all
from ..student_calls import NotReady, call_student, numeric, student_dead_fraction, student_weights

__all__ = ["ACTIVATION_NAMES", "DeadReluRuns", "DeepNetwork", "checked_activations", "saturation_paths"]

#: The activations every view understands, in the order of the explorer's menu.
ACTIVATION_NAMES = ("sigmoid", "tanh", "relu", "leaky_relu")


def checked_activations(activations: Mapping[str, tuple[Callable, Callable]]) -> dict:
    """name -> (act, slope) for every name of ACTIVATION_NAMES; ValueError when one is missing."""
    missing = [a for a in ACTIVATION_NAMES if a not in activations]
    if missing:
        raise ValueError(f"activations must define {', '.join(ACTIVATION_NAMES)}; missing {missing}")
    return {a: tuple(activations[a]) for a in ACTIVATION_NAMES}


# ----------------------------------------------------------------------------- the deep network


@dataclass
class DeepNetwork:
    """The lesson's deep MLP: h_0 = x (batch × width, standard normal), z_i = h_{i-1} W_i,
    h_i = act(z_i) (+ h_{i-1} with skip connections), all layers width × width, no biases;
    the upstream gradient dout is standard normal.

    Inputs: activations — name -> (act, slope) (see `checked_activations`); inits — "xavier"
    and "he" -> (the student's initialiser, its name); dead_fraction — (N, H) -> float;
    layer_gradient_norms — (weights, x, dout, activation, residual) -> (L,).
    """

    activations: dict
    inits: dict
    dead_fraction: Callable
    layer_gradient_norms: Callable
    batch: int = 64
    seed: int = 0

    def weights(self, depth: int, width: int, init: str, scale: float) -> list[np.ndarray]:
        """`depth` matrices (width, width): N(0, scale²) for init "normal", else the student's."""
        rng = np.random.default_rng([self.seed, 1])
        if init == "normal":
            return [scale * rng.standard_normal((width, width)) for _ in range(depth)]
        func, name = self.inits[init]
        return [student_weights(func, name, width, width, rng) for _ in range(depth)]

    def data(self, width: int) -> tuple[np.ndarray, np.ndarray]:
        """(x, dout), both (batch, width), standard normal, the same for every call."""
        data = np.random.default_rng([self.seed, 0])
        return data.standard_normal((self.batch, width)), data.standard_normal((self.batch, width))

    def measure(self, depth: int, width: int, activation: str, init: str, scale: float,
                residual: bool) -> dict[str, Any]:
        """The forward pass and what the explorer shows of it.

        Returns a dict: the arguments; zs, hs — the `depth` pre-activations and activations,
        (batch, width) each; norms — ‖dW_i‖, shape (depth,), or None with norms_error saying
        why; dead — the dead fraction per layer (ReLU family; else None, or None with
        dead_error); saturated — per layer, the share of slopes under 10 % of the peak
        (sigmoid, tanh; else None). Raises NotReady when the initialiser is not usable.
        """
        act, slope = self.activations[activation]
        x, dout = self.data(width)
        weights = self.weights(depth, width, init, scale)
        zs, hs = [], []
        h = x
        with np.errstate(all="ignore"):
            for w in weights:
                z = h @ w
                h = act(z) + h if residual else act(z)
                zs.append(z)
                hs.append(h)
        state = {"depth": depth, "width": width, "activation": activation, "init": init,
                 "scale": scale, "residual": residual, "zs": zs, "hs": hs, "norms": None,
                 "norms_error": None, "dead": None, "dead_error": None, "saturated": None}
        try:
            state["norms"] = self.norms(weights, x, dout, activation, residual)
        except NotReady as why:
            state["norms_error"] = str(why)
        if activation in ("relu", "leaky_relu"):
            try:
                state["dead"] = np.array([student_dead_fraction(self.dead_fraction, z) for z in zs])
            except NotReady as why:
                state["dead_error"] = str(why)
        else:
            with np.errstate(all="ignore"):
                peak = float(slope(np.zeros(1))[0])
                state["saturated"] = np.array([np.mean(slope(z) < 0.1 * peak) for z in zs])
        return state

    def norms(self, weights: list[np.ndarray], x: np.ndarray, dout: np.ndarray, activation: str,
              residual: bool) -> np.ndarray:
        """The student's layer_gradient_norms, checked: one float per layer, shape (L,)."""
        out = call_student(self.layer_gradient_norms, "layer_gradient_norms",
                           weights, x.copy(), dout.copy(), activation, residual)
        arr = np.asarray(out, dtype=np.float64) if numeric(out) else None
        if arr is None or arr.shape != (len(weights),):
            raise NotReady(_("layer_gradient_norms returned {got}; expected one norm per "
                             "layer, shape ({count},).").format(got=describe(out), count=len(weights)))
        return arr


# ----------------------------------------------------------------------------- saturation


def saturation_paths(sigmoid: Callable, slope: Callable, u: np.ndarray, grid: np.ndarray,
                     scale: float, depth: int) -> dict[str, Any]:
    """Slopes σ'(z) along random paths, z = scale · u, through `depth` layers.

    Inputs: sigmoid, slope — numpy functions of z (the student's); u — standard normal,
    (max depth, paths); grid — z values of the curves, (G,).
    Returns a dict: scale, depth; z — the first layer's z, (paths,); slopes, products — the
    slopes and their running products, (depth, paths); curve, curve_slope — σ and σ' on the grid.
    """
    z = scale * u[:depth]
    with np.errstate(all="ignore"):
        slopes = call_student(slope, "the sigmoid slope", z)
        products = np.cumprod(slopes, axis=0)
        curve = call_student(sigmoid, "sigmoid", grid)
        curve_slope = call_student(slope, "the sigmoid slope", grid)
    return {"scale": scale, "depth": depth, "z": z[0], "slopes": slopes, "products": products,
            "curve": curve, "curve_slope": curve_slope}


# ----------------------------------------------------------------------------- dead ReLUs


class DeadReluRuns:
    """Runs of full-batch gradient descent on a 2 → `hidden` ReLU → 3 network, by learning rate.

    Softmax cross-entropy on x (N, 2) float64 with labels y (N,); weights from the student's
    he_init, zero biases; gradients from PyTorch autograd (float64). After every step the
    student's dead_fraction measures the share of hidden units whose pre-activation is not
    positive for any point. Runs at `keep_lr` (the reference) and at the last learning rate
    asked for are kept.
    """

    def __init__(self, x: np.ndarray, y: np.ndarray, *, he_init: Callable, dead_fraction: Callable,
                 hidden: int, seed: int, keep_lr: float) -> None:
        self.x, self.y = x, y
        self.he_init, self.dead_fraction = he_init, dead_fraction
        self.hidden, self.seed, self.keep_lr = hidden, seed, keep_lr
        self._runs: dict[float, dict] = {}

    def train(self, lr: float, steps: int) -> dict:
        """losses and dead fractions at steps 0..steps, and the accuracy, of a run at `lr`.

        Full-batch gradient descent is deterministic, so a run of fewer steps is a prefix of a
        longer one: the last run is kept, and asking for more steps at the same learning rate
        only trains the extra steps. A new learning rate starts from scratch.
        """
        run = self._runs.get(lr)
        if run is None:
            run = self._start(lr)
            self._runs = {k: v for k, v in self._runs.items() if k == self.keep_lr}
            self._runs[lr] = run
        self._advance(run, steps)
        accuracy = float((run["scores"][steps].argmax(dim=1) == run["y"]).double().mean())
        return {"lr": lr, "steps": steps, "losses": np.array(run["losses"][: steps + 1]),
                "dead": np.array(run["dead"][: steps + 1]), "accuracy": accuracy}

    def _start(self, lr: float) -> dict:
        import torch

        rng = np.random.default_rng(self.seed)
        w1 = student_weights(self.he_init, "he_init", 2, self.hidden, rng)
        w2 = student_weights(self.he_init, "he_init", self.hidden, 3, rng)
        params = [torch.tensor(w1, requires_grad=True),
                  torch.zeros(self.hidden, dtype=torch.float64, requires_grad=True),
                  torch.tensor(w2, requires_grad=True),
                  torch.zeros(3, dtype=torch.float64, requires_grad=True)]
        run = {"lr": lr, "params": params, "losses": [], "dead": [], "scores": [], "pending": None,
               "x": torch.from_numpy(self.x), "y": torch.from_numpy(self.y)}
        self._record(run)
        return run

    def _record(self, run: dict) -> None:
        """Forward pass at the current weights: store loss, dead fraction, scores; keep the graph."""
        import torch

        W1, b1, W2, b2 = run["params"]
        z = torch.addmm(b1, run["x"], W1)
        scores = torch.addmm(b2, torch.relu(z), W2)
        loss = torch.nn.functional.cross_entropy(scores, run["y"])
        run["losses"].append(loss.item())
        run["dead"].append(student_dead_fraction(self.dead_fraction, z.detach().numpy()))
        run["scores"].append(scores.detach())
        run["pending"] = loss

    def _advance(self, run: dict, steps: int) -> None:
        import torch

        params = run["params"]
        while len(run["losses"]) <= steps:
            for p in params:
                p.grad = None
            run["pending"].backward()
            with torch.no_grad():
                for p in params:
                    p.add_(p.grad, alpha=-run["lr"])
            self._record(run)


referee_all(globals())
