"""grader.lessons.leaky_abstraction.checks (lesson 13) and grader.lessons.gradient_flow.steady_variance
(lesson 07): the references and hints their visible checks read, so that the check cells spell out
no formula."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from grader.errors import BadReturnValue
from grader.lessons.gradient_flow.steady_variance import CONDITIONS, init_variance_reference, measured_gains
from grader.lessons.leaky_abstraction.checks import huber_hints, huber_loss_hints, softplus_reference_dx


def test_softplus_reference_is_the_gradient_of_softplus_without_overflow():
    x = torch.tensor([-1e4, -1000.0, -40.0, -1.0, 0.0, 0.5, 40.0, 1000.0, 1e4], dtype=torch.float64,
                     requires_grad=True)
    upstream = torch.linspace(-2, 2, 9, dtype=torch.float64)
    (F.softplus(x) * upstream).sum().backward()
    got = softplus_reference_dx(x.detach(), upstream)
    assert got.dtype == np.float64 and np.all(np.isfinite(got))
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(softplus_reference_dx(np.zeros(3)), 0.5)


def _hints(capsys, *args):
    huber_hints(*args)
    return capsys.readouterr().out


def test_huber_hints_name_the_usual_mistakes_and_stay_silent_for_the_right_gradient(capsys):
    rng = np.random.default_rng(0)
    pred, target = rng.normal(size=(4, 3)), rng.normal(scale=2.0, size=(4, 3))
    err = pred - target
    right = np.clip(err, -1, 1) / err.size
    assert _hints(capsys, pred, target, 1.0, right) == ""
    assert "12 times too big" in _hints(capsys, pred, target, 1.0, right * 12)
    assert "divided by N" in _hints(capsys, pred, target, 1.0, right * 3)
    assert "DQN bug" in _hints(capsys, pred, target, 1.0, err * (np.abs(err) < 1) / err.size)
    assert "delta = 0.5" in _hints(capsys, pred, target, 0.5, right)
    at_scaled = np.clip(err / 0.5, -1, 1) / err.size           # lesson 7's slope at e / delta, unscaled
    assert "lesson 7's slope taken at e / delta" in _hints(capsys, pred, target, 0.5, at_scaled)
    assert "slope, 1/delta" in _hints(capsys, pred, target, 0.5, 0.25 * at_scaled)
    assert _hints(capsys, pred, target, 0.5, np.clip(err, -0.5, 0.5) / err.size) == ""
    assert _hints(capsys, pred, target, 1.0, right[:2]) == ""       # another shape: nothing to say


def test_huber_loss_hints_recognise_the_clipped_square(capsys):
    pred, target = np.array([3.0, -0.5]), np.zeros(2)
    huber_loss_hints(pred, target, np.mean(0.5 * np.clip(pred, -1, 1) ** 2))
    assert "DQN bug" in capsys.readouterr().out
    huber_loss_hints(pred, target, F.huber_loss(torch.tensor(pred), torch.tensor(target)).item())
    assert capsys.readouterr().out == ""


def test_measured_gains_are_one_for_the_steady_variances_and_show_a_wrong_one():
    fan_in, fan_out = 400, 100
    right = {"forward": 1 / fan_in, "backward": 1 / fan_out, "relu_forward": 2 / fan_in}
    gains = measured_gains(right, fan_in, fan_out)
    assert set(gains) == set(CONDITIONS)
    assert all(abs(g - 1) < 0.02 for g in gains.values()), gains
    wrong = measured_gains({**right, "relu_forward": 1 / fan_in, "forward": 2 / (fan_in + fan_out)},
                           fan_in, fan_out)
    assert abs(wrong["relu_forward"] - 0.5) < 0.02 and abs(wrong["forward"] - 1.6) < 0.05
    assert measured_gains(right, fan_in, fan_out) == gains       # seeded: the same numbers every run


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_measured_gains_refuse_a_variance_that_is_not_positive(bad):
    with pytest.raises(BadReturnValue, match="positive variance"):
        measured_gains({"forward": bad, "backward": 0.01, "relu_forward": 0.005}, 400, 100)


def test_init_variance_reference():
    assert init_variance_reference("xavier", 400, 100) == pytest.approx(0.004)
    assert init_variance_reference("he", 400, 100) == pytest.approx(0.005)
    with pytest.raises(ValueError):
        init_variance_reference("lecun", 4, 4)
