"""Lesson 02's visible-check tables (grader.lessons.chain_rule.checks): the expected values are
the right gradients, and every listed mistake differs from them."""

import math

import numpy as np
import pytest

from grader import CheckFailed
from grader.lessons.chain_rule import checks as cr


def _far(value, mistakes):
    return all(abs(value - wrong) > 1e-3 for wrong, _ in mistakes)


def test_neuron_steps():
    for node, up, want in [("df_dz", 1.0, 1.0), ("df_du", 1.0, 1.0), ("df_db", 1.0, 1.0),
                           ("df_dw", 1.0, 2.0), ("df_dx", 1.0, 3.0)]:
        expected, mistakes = cr.neuron_step(node, up)
        assert expected == pytest.approx(want, abs=1e-8)
        assert mistakes and _far(expected, mistakes)


def test_neuron_backward_mistakes_on_and_off():
    on = cr.neuron_backward_mistakes(0.5, 2.0, 3.0, -4.0)
    assert _far(1.5, on["dx"]) and _far(1.0, on["dw"]) and _far(0.5, on["db"])
    off = cr.neuron_backward_mistakes(0.5, -1.0, 3.0, -4.0)
    assert all(_far(0.0, off[k]) for k in ("dx", "dw", "db"))


def test_trace_steps_at_the_hand_trace_point():
    x, y = 1.2, 0.5
    a, b = x * y, x + y
    d = math.tanh(a * b)
    dc = 1 - d**2
    da, db = dc * b, dc * a
    up = {"dL_dd": 1.0, "dL_dc": dc, "dL_da": da, "dL_db": db}
    for node, want in [("dL_dd", 1.0), ("dL_dc", dc), ("dL_da", da), ("dL_db", db),
                       ("dL_dx", da * y + db + 1), ("dL_dy", da * x + db)]:
        expected, mistakes = cr.trace_step(node, x, y, up)
        assert expected == pytest.approx(want, rel=1e-7)
        assert _far(expected, mistakes)


def test_circuit_tables_against_torch():
    torch = pytest.importorskip("torch")
    x, y, dL = -1.2, 0.7, -2.0
    t = {"x": torch.tensor(x, dtype=torch.float64, requires_grad=True),
         "y": torch.tensor(y, dtype=torch.float64, requires_grad=True)}
    t["a"] = t["x"] * t["y"]
    t["b"] = t["x"] + t["y"]
    t["c"] = t["a"] * t["b"]
    t["d"] = torch.tanh(t["c"])
    t["L"] = t["d"] + t["x"]
    for v in t.values():
        v.retain_grad()
    t["L"].backward(torch.tensor(dL, dtype=torch.float64))
    values = {k: v.item() for k, v in t.items()}
    grads = {k: v.grad.item() for k, v in t.items()}
    for which in ("dx", "dy"):
        table = cr.circuit_backward_mistakes(which, x, y, dL, values, grads, 123.0, (1.2, 0.5))
        # one entry is the right value itself: an answer near it, but not within 1e-12, nudged
        nudged = [(value, text) for value, text in table if "nudging" in text]
        mistakes = [(value, text) for value, text in table if "nudging" not in text]
        assert [value for value, _ in nudged] == [grads[which[1]]]
        assert _far(grads[which[1]], mistakes) and len(mistakes) >= 5
    for which in ("x", "y"):
        assert _far(grads[which], cr.circuit_tangent_mistakes(which, x, y, grads, values))


def test_neuron_tangent_expected():
    rng = np.random.default_rng(0)
    x, w, tw = rng.normal(size=4), rng.normal(size=4), rng.normal(size=4)
    f, tf, mistakes = cr.neuron_tangent_expected(x, w, abs(w @ x) + 0.5, tw, 0.7)
    assert f > 0 and tf == pytest.approx(tw @ x + 0.7) and _far(tf, mistakes)
    f, tf, mistakes = cr.neuron_tangent_expected(x, w, -abs(w @ x) - 0.5, tw, 0.7)
    assert f == 0.0 and tf == 0.0 and _far(tf, mistakes)


def test_the_tanh_slope_forgotten_is_named():
    """dL_dc = dL_dd, and a backward or forward-mode pass that crosses the tanh node unscaled."""
    x, y = 1.2, 0.5
    _, mistakes = cr.trace_step("dL_dc", x, y, {"dL_dd": 1.0})
    assert any(value == 1.0 and "local slope is missing" in text for value, text in mistakes)
    a, b = x * y, x + y
    d = math.tanh(a * b)
    values = {"x": x, "y": y, "a": a, "b": b, "c": a * b, "d": d, "L": d + x}
    s = 1 - d**2
    grads = {"x": 1 + s * (b * y + a), "y": s * (b * x + a), "a": s * b, "b": s * a}
    unscaled = {"x": 1 + b * y + a, "y": b * x + a}
    for which in ("x", "y"):
        table = cr.circuit_backward_mistakes("d" + which, x, y, 1.0, values, grads, 0.0, (x, y))
        assert any(abs(value - unscaled[which]) < 1e-12 and "local slope is missing" in text
                   for value, text in table)
        table = cr.circuit_tangent_mistakes(which, x, y, grads, values)
        assert any(abs(value - unscaled[which]) < 1e-12 and "local slope is missing" in text
                   for value, text in table)


def test_a_known_mistake_replaces_the_general_hint(capsys):
    """df_dz = 0 in the hand trace: the open gate is named, not the toolkit's hint for a zero array."""
    expected, mistakes = cr.neuron_step("df_dz", 1.0)
    cr.check_number("df_dz", 1.0, expected, mistakes, tol=5e-4)
    with pytest.raises(CheckFailed, match="The gate is open here"):
        cr.check_number("df_dz", 0.0, expected, mistakes, tol=5e-4)
    out = capsys.readouterr().out
    assert "✗ df_dz" in out and "The gate is open here" in out and "np.zeros" not in out
    with pytest.raises(CheckFailed, match="df_dz"):       # a value no known mistake gives: the general line
        cr.check_number("df_dz", 0.3, expected, mistakes, tol=5e-4)


def test_the_notebooks_x_and_w_are_named_away_from_the_worked_example():
    table = cr.neuron_backward_mistakes(0.5, 1.5, -2.0, 4.0)
    assert any(value == 1.5 and "read w from the cache" in text for value, text in table["dx"])
    assert any(value == 1.0 and "read x from the cache" in text for value, text in table["dw"])
    assert _far(-1.0, table["dx"]) and _far(0.75, table["dw"]) and _far(0.5, table["db"])
    worked = cr.neuron_backward_mistakes(0.5, 2.0, 3.0, -4.0)
    assert not any("from the cache" in text for value, text in worked["dx"] + worked["dw"])


def test_the_circuit_checks_use_lesson_01s_rounding_margin():
    """One margin for one circuit (grader.lessons.rounding; measured in test_derivatives_checks.py)."""
    from grader.lessons import rounding
    from grader.lessons.derivatives import checks as dc
    assert cr.rounding_margin is dc.rounding_margin is rounding.rounding_margin
    assert cr.rounding_tol is dc.rounding_tol is rounding.rounding_tol
    assert cr.paths_into_x(0.7, 0.2, 1.2, 0.5) == pytest.approx((0.35, 0.2, 1.0), rel=1e-8)
