"""grader.lessons.two_layer_net.layers: lesson 6's copies of lessons 4 and 5's layers, and the check
of a student's own."""

from __future__ import annotations

import numpy as np
import torch

from grader.lessons.two_layer_net import layers
from grader.numgrad import eval_numerical_gradient_array


def _course() -> dict:
    return {name: getattr(layers, name) for name in layers.LAYER_NAMES}


def test_the_layers_match_pytorch_and_numerical_gradients() -> None:
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(3, 2, 2)), rng.normal(size=(4, 5)), rng.normal(size=5)
    out, cache = layers.affine_forward(x, w, b)
    expected = torch.nn.functional.linear(torch.tensor(x.reshape(3, 4)), torch.tensor(w.T), torch.tensor(b))
    np.testing.assert_allclose(out, expected.numpy(), rtol=1e-12)
    dout = rng.normal(size=(3, 5))
    dx, dw, db = layers.affine_backward(dout, cache)
    numeric_dx = eval_numerical_gradient_array(lambda v: layers.affine_forward(v, w, b)[0], x, dout)
    numeric_dw = eval_numerical_gradient_array(lambda v: layers.affine_forward(x, v, b)[0], w, dout)
    np.testing.assert_allclose(dx, numeric_dx, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dw, numeric_dw, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(db, dout.sum(axis=0))
    z = rng.normal(size=(4, 3))
    r, r_cache = layers.relu_forward(z)
    np.testing.assert_array_equal(layers.relu_backward(np.ones_like(z), r_cache), (z > 0) * 1.0)
    assert np.array_equal(r, np.maximum(z, 0))
    scores, y = np.array([[1000.0, 0.0, -1000.0], [0.5, 0.2, -0.1]]), np.array([2, 0])
    t = torch.tensor(scores, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(t, torch.tensor(y))
    loss.backward()
    mine, dscores = layers.softmax_loss(scores, y)
    assert isinstance(mine, float) and abs(mine - loss.item()) < 1e-12
    np.testing.assert_allclose(dscores, t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_check_layers_names_whose_and_what_is_wrong(capsys) -> None:
    assert layers.check_layers(_course())
    said = capsys.readouterr().out
    assert said.count("the course's") == 3 and "All five agree" in said

    def relu_backward(dout, cache):   # the mask forgotten
        return dout

    def softmax_loss(x, y):
        raise NotImplementedError()

    assert not layers.check_layers(dict(_course(), relu_backward=relu_backward, softmax_loss=softmax_loss))
    said = capsys.readouterr().out
    assert "✗ the ReLU, yours (relu_backward) with the course's" in said
    assert "✗ softmax_loss, yours raised NotImplementedError" in said
    assert "✓ the affine layer, the course's" in said

    assert not layers.check_layers({})
    assert "no function named affine_forward" in capsys.readouterr().out
