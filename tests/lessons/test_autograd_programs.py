"""grader.lessons.autograd.programs: lesson 03's random expressions, the same for every run, each
within its bound, spelled out, and runnable on anything with Value's operations."""

from __future__ import annotations

import math

import torch

from grader.lessons.autograd.programs import BINARY, UNARY, random_expressions
from grader.referees import referee_name


def test_the_draw_is_seeded_and_keeps_values_within_the_bound() -> None:
    first = list(random_expressions(31, 12))
    again = list(random_expressions(31, 12))
    assert [(d, i) for d, _, i in first] == [(d, i) for d, _, i in again]
    assert len(first) == 12 and len({d for d, _, _ in first}) == 12
    for description, program, inputs in first:
        assert description.count(";") == 12 and description.endswith("out = n14 + n13 * n12")
        ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in inputs]
        out = program(*ts)
        assert abs(out.item()) < 1e4
        out.backward()
        assert all(t.grad is None or math.isfinite(t.grad.item()) for t in ts)


def test_a_program_reuses_nodes_and_every_operation_is_drawn() -> None:
    drawn = " ".join(d for d, _, _ in random_expressions(31, 40))
    for template, _ in UNARY + BINARY:
        head = template.split("{")[0] or template.split("}")[1][:3]
        assert head in drawn, template


def test_the_programs_run_under_a_graded_engine() -> None:
    """The program a test hands the engine is a closure, not a referee: a graded Value may run it."""
    _, program, _ = next(random_expressions(5, 1))
    assert referee_name(program.__code__) is None
    assert referee_name(random_expressions.__code__) == "random_expressions"
