"""Lesson 03's hidden-test kit: random expressions over a Value-like type, for the engine's
backward pass to be compared with PyTorch's on graphs nobody wrote by hand.

`random_expressions(seed, count)` draws `count` random programs (a DAG of unary and binary
operations where nodes are reused, over three inputs) and their inputs; each comes as
(description, program, inputs), where `program(a, b, c)` runs on the student's Values or on PyTorch
tensors alike, and `description` spells it out for the failure message. Programs whose value is
huge are skipped, so the comparison stays meaningful.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ...referees import referee_all

__all__ = ["BINARY", "UNARY", "random_expressions"]

#: (template, operation) on one node: what the engine's Value supports, the same names as PyTorch's.
UNARY: list[tuple[str, Callable[[Any], Any]]] = [
    ("tanh({})", lambda u: u.tanh()),
    ("sigmoid({})", lambda u: u.sigmoid()),
    ("relu({})", lambda u: u.relu()),
    ("exp(tanh({}))", lambda u: u.tanh().exp()),
    ("log({0}*{0} + 0.5)", lambda u: (u * u + 0.5).log()),
    ("-{}", lambda u: -u),
    ("({}) ** 2", lambda u: u**2),
    ("({0}*{0} + 1) ** -0.5", lambda u: (u * u + 1.0) ** -0.5),
    ("2 * {}", lambda u: 2 * u),
    ("1 - {}", lambda u: 1 - u),
]
#: (template, operation) on two nodes.
BINARY: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("{} + {}", lambda u, v: u + v),
    ("{} - {}", lambda u, v: u - v),
    ("{} * {}", lambda u, v: u * v),
    ("{0} / ({1}*{1} + 1)", lambda u, v: u / (v * v + 1.0)),
    ("{0} * (3 / ({1}*{1} + 1))", lambda u, v: u * (3 / (v * v + 1.0))),
]

Step = tuple[str, int, tuple[int, ...]]


def random_expressions(seed: int, count: int, n_inputs: int = 3, n_ops: int = 12,
                       bound: float = 1e4) -> Iterator[tuple[str, Callable[..., Any], list[float]]]:
    """`count` random programs of `n_ops` operations over `n_inputs` inputs drawn in
    [-1.5, 1.5], each with |value| < `bound` (PyTorch's, in float64): (description, program,
    inputs). The output is n[-1] + n[-2] * n[-3], so the last three nodes all matter."""
    import torch

    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        steps = _random_steps(rng, n_inputs, n_ops)
        inputs = [float(v) for v in rng.uniform(-1.5, 1.5, size=n_inputs)]
        program = _program(steps)
        with torch.no_grad():
            value = program(*[torch.tensor(v, dtype=torch.float64) for v in inputs]).item()
        if abs(value) < bound:
            made += 1
            yield _describe(steps, n_inputs), program, inputs


def _random_steps(rng: np.random.Generator, n_inputs: int, n_ops: int) -> list[Step]:
    """(kind, operation index, operand indices) per operation; operands lean to recent nodes."""
    steps: list[Step] = []
    for k in range(n_ops):
        avail = n_inputs + k

        def pick(avail: int = avail) -> int:
            return int(min(avail - 1, rng.integers(0, avail) + rng.integers(0, 3)))

        if rng.random() < 0.5:
            steps.append(("u", int(rng.integers(len(UNARY))), (pick(),)))
        else:
            steps.append(("b", int(rng.integers(len(BINARY))), (pick(), pick())))
    return steps


def _program(steps: list[Step]) -> Callable[..., Any]:
    """The program of `steps` as a function of the inputs. (A closure: its code is not a referee,
    so the graded engine may run it.)"""
    def program(*inputs: Any) -> Any:
        nodes = list(inputs)
        for kind, op, args in steps:
            operation = (UNARY if kind == "u" else BINARY)[op][1]
            nodes.append(operation(*[nodes[i] for i in args]))
        return nodes[-1] + nodes[-2] * nodes[-3]

    return program


def _describe(steps: list[Step], n_inputs: int) -> str:
    lines = []
    for k, (kind, op, args) in enumerate(steps):
        template = (UNARY if kind == "u" else BINARY)[op][0]
        lines.append(f"n{n_inputs + k} = " + template.format(*[f"n{i}" for i in args]))
    last = n_inputs + len(steps) - 1
    return "; ".join(lines) + f"; out = n{last} + n{last - 1} * n{last - 2}"


referee_all(globals())
