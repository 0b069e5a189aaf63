"""grader.lessons.numpy_only: lesson 09's functions run with every PyTorch function refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from grader import by_hand
from grader.by_hand import ForbiddenCall
from grader.lessons.numpy_only import numpy_only

X, W = np.arange(25.0).reshape(1, 1, 5, 5), np.ones((1, 1, 3, 3))


def by_conv2d(x, w):
    return F.conv2d(torch.from_numpy(x), torch.from_numpy(w)).numpy()


def by_conv2d_input(x, w):
    return torch.nn.grad.conv2d_input((1, 1, 7, 7), torch.from_numpy(w), torch.from_numpy(x)).numpy()


def by_aten(x, w):
    return torch.ops.aten.convolution(torch.from_numpy(x), torch.from_numpy(w), None, [1, 1], [0, 0],
                                      [1, 1], False, [0, 0], 1).numpy()


@pytest.mark.parametrize("fn", [by_conv2d, by_conv2d_input, by_aten])
def test_a_function_that_calls_pytorch_is_refused_with_its_hint(fn, capsys):
    with pytest.raises(ForbiddenCall, match="PyTorch is the referee"):
        numpy_only(by_hand(fn))(X, W)
    assert "[forbidden-call]" in capsys.readouterr().out


def test_numpy_runs_and_pytorch_works_again_afterwards(capsys):
    assert numpy_only(lambda x, w: float(np.sum(x * x[:, :, :3, :3].sum())))(X, W) > 0
    assert capsys.readouterr().out == ""
    assert by_conv2d(X, W).shape == (1, 1, 3, 3)
