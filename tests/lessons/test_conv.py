"""Lesson 09's helpers: the convolution experiments (speed, tiny conv net, receptive field, pooling
routes) and views, driven by a reference convolution written here with torch."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from grader import ToolkitInputError
from grader.lessons.convolution.experiments import (
    NotReady,
    _pool2_backward,
    _pool2_forward,
    central_unit,
    compare_convs,
    conv_out_shape,
    conv_speed,
    pool_routing,
    train_conv_net,
    transposed_conv,
    unit_input_gradient,
)
from grader.lessons.convolution.views import receptive_field_explorer, receptive_field_figure, show_filters
from grader.lessons.datasets import digits_split

# ----------------------------------------------------------------------------- reference functions


def conv_forward(x, w, b, conv_param):
    s, p = conv_param["stride"], conv_param["pad"]
    out = F.conv2d(*(torch.from_numpy(a) for a in (x, w, b)), stride=s, padding=p).numpy()
    return out, (x, w, b, s, p)


def conv_backward(dout, cache):
    x, w, b, s, p = cache
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    out = F.conv2d(xt, wt, bt, stride=s, padding=p)
    return tuple(g.numpy() for g in torch.autograd.grad(out, (xt, wt, bt), torch.from_numpy(dout)))


def pool_forward(x, pool_param):
    ph, pw, s = pool_param["pool_height"], pool_param["pool_width"], pool_param["stride"]
    return F.max_pool2d(torch.from_numpy(x), (ph, pw), s).numpy(), (x, ph, pw, s)


def pool_backward(dout, cache):
    x, ph, pw, s = cache
    xt = torch.tensor(x, requires_grad=True)
    return torch.autograd.grad(F.max_pool2d(xt, (ph, pw), s), xt, torch.from_numpy(dout))[0].numpy()


def unfinished(*args):
    raise NotImplementedError


def wrong_shape(x, w, b, conv_param):
    return np.zeros((1, 1)), None


# ----------------------------------------------------------------------------- experiments


def test_conv_out_shape_and_bad_sizes():
    assert conv_out_shape((2, 3, 8, 7), (5, 3, 3, 3), 2, 1) == (2, 5, 4, 4)
    with pytest.raises(ToolkitInputError, match="does not fit"):
        conv_out_shape((1, 1, 3, 3), (1, 1, 5, 5), 1, 0)


def test_pool2_matches_torch_and_routes_to_the_first_maximum():
    rng = np.random.default_rng(0)
    a = np.maximum(rng.normal(size=(3, 2, 4, 6)), 0.0)  # many ties at 0
    out, is_max = _pool2_forward(a)
    np.testing.assert_array_equal(out, pool_forward(a, {"pool_height": 2, "pool_width": 2, "stride": 2})[0])
    assert np.all(is_max.sum(axis=-1) == 1)
    dout = rng.normal(size=out.shape)
    dx = _pool2_backward(dout, is_max)
    assert dx.shape == a.shape and np.isclose(dx.sum(), dout.sum())


def test_compare_convs_and_speed_table():
    rng = np.random.default_rng(1)
    x, w, b = rng.normal(size=(2, 2, 6, 5)), rng.normal(size=(3, 2, 3, 2)), rng.normal(size=3)
    errors = compare_convs((conv_forward, conv_backward), (conv_forward, conv_backward), x, w, b,
                           {"stride": 2, "pad": 1})
    assert set(errors) == {"out", "dx", "dw", "db"} and max(errors.values()) == 0.0
    impls = {"mine": (conv_forward, conv_backward, 2), "todo": (unfinished, unfinished, 1)}
    times, missing = conv_speed(impls, x, w, b, {"stride": 1, "pad": 1}, torch_repeats=2)
    assert set(times) == {"mine", "PyTorch"} and all(t >= 0 for pair in times.values() for t in pair)
    assert "not written yet" in missing["todo"]
    with pytest.raises(NotReady, match="expected an array of shape"):
        compare_convs((wrong_shape, conv_backward), (conv_forward, conv_backward), x, w, b,
                      {"stride": 1, "pad": 0})


def test_unit_input_gradient_is_the_receptive_field():
    image, shapes = unit_input_gradient(conv_forward, conv_backward, 15, 3, 1, 0, 3)
    assert shapes == [(1, 1, 13, 13), (1, 1, 11, 11), (1, 1, 9, 9)]
    rows, cols = np.nonzero(image)
    assert (rows.max() - rows.min() + 1, cols.max() - cols.min() + 1) == (7, 7)
    assert image.max() == 49.0  # 7 × 7 paths to the centre
    image, shapes = unit_input_gradient(conv_forward, conv_backward, 16, 3, 2, 1, 2)
    assert shapes == [(1, 1, 8, 8), (1, 1, 4, 4)]
    rows, cols = np.nonzero(image)  # unit (2, 2), not the corner-ward (1, 1): its field sits in the middle
    assert (rows.min(), rows.max(), cols.min(), cols.max()) == (5, 11, 5, 11)
    with pytest.raises(NotReady, match="no longer fits"):
        unit_input_gradient(conv_forward, conv_backward, 8, 5, 1, 0, 3)
    with pytest.raises(NotReady, match="the out of wrong_shape"):
        unit_input_gradient(wrong_shape, conv_backward, 8, 3)


def test_central_unit_is_the_one_whose_field_is_centred():
    assert central_unit(15, 3, 1, 0, 3, 9) == 4  # stride 1: the middle index
    assert central_unit(16, 3, 1, 0, 3, 10) == 4  # a tie (fields centred on 7 and 8): the smaller index
    assert central_unit(16, 3, 2, 1, 2, 4) == 2  # field centred on input row 8, (4 - 1) // 2 = 1 on row 4


def test_transposed_conv_is_dx_with_the_left_over_columns():
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(2, 3, 7, 8)), rng.normal(size=(4, 3, 3, 3)), rng.normal(size=4)
    result = transposed_conv(conv_forward, conv_backward, x, w, b, {"stride": 2, "pad": 0})
    assert result["output_padding"] == (0, 1) and result["without"] == (2, 3, 7, 7)
    assert result["error"] < 1e-12
    with pytest.raises(NotReady, match="not written yet"):
        transposed_conv(unfinished, unfinished, x, w, b, {"stride": 2, "pad": 0})


def test_pool_routing_counts_the_windows():
    x = np.random.default_rng(2).normal(size=(1, 1, 8, 8))
    out, dx = pool_routing(pool_forward, pool_backward, x, {"pool_height": 3, "pool_width": 3, "stride": 2})
    assert out.shape == (1, 1, 3, 3) and dx.sum() == 9.0
    with pytest.raises(NotReady, match="not written yet: .* run this cell again"):
        pool_routing(unfinished, pool_backward, x, {"pool_height": 2, "pool_width": 2, "stride": 2})


def test_train_conv_net_learns_the_digits():
    X_train, y_train, X_val, y_val = digits_split()
    data = (X_train[:400], y_train[:400], X_val[:200], y_val[:200])
    run = train_conv_net(conv_forward, conv_backward, data, filters=4, kernel=3, epochs=2, batch=50, lr=0.05)
    assert run.w1.shape == (4, 1, 3, 3) and len(run.losses) == 16
    assert run.w1_init.shape == run.w1.shape and not np.allclose(run.w1_init, run.w1)
    assert run.losses[-4:].mean() < run.losses[:4].mean() and run.val_acc > 0.3
    with pytest.raises(NotReady, match="not written yet"):
        train_conv_net(unfinished, unfinished, data, epochs=1)
    with pytest.raises(ToolkitInputError, match="odd"):
        train_conv_net(conv_forward, conv_backward, data, kernel=4)


# ----------------------------------------------------------------------------- views


def test_views_draw_and_explain_what_is_missing():
    fig = receptive_field_figure(conv_forward, conv_backward, size=12, kernel=3, stride=1, pad=0, layers=2)
    assert "5×5 pixels" in fig.axes[0].get_title()
    fig = receptive_field_figure(unfinished, unfinished, in_view=True)
    assert any("move a control" in t.get_text().replace("\n", " ") for t in fig.texts)
    explorer = receptive_field_explorer(conv_forward, conv_backward, size=10)
    assert explorer.png()[:4] == b"\x89PNG"
    explorer.controls["stride"].value = 2
    assert explorer.redraws == 1
    assert len(show_filters(np.ones((3, 1, 5, 5))).axes) == 3
    with pytest.raises(ToolkitInputError, match="F, 1, HH, WW"):
        show_filters(np.ones((3, 5, 5)))


def test_student_array_names_the_value_it_refuses() -> None:
    """The one checker the conv and deep-nets helpers share: copy, shape, finiteness, wording."""
    from grader.lessons.student_calls import student_array

    given = np.arange(3)
    arr = student_array(given, (3,), "f's dx")
    assert arr.dtype == np.float64 and arr is not given and arr.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(NotReady, match=r"^f's dx is None; expected an array of shape \(3,\)\.$"):
        student_array(None, (3,), "f's dx")
    with pytest.raises(NotReady, match=r"^f's dx holds NaN or infinite values\.$"):
        student_array([1.0, np.nan, 0.0], (3,), "f's dx")
    with pytest.raises(NotReady, match=r"^f returned NaN or infinite values\.$"):
        student_array([np.inf, 0.0, 0.0], (3,), "f", verb="returned")
    with pytest.raises(NotReady, match=r"^f returned .*; expected an array of shape \(2, 3\)\.$"):
        student_array(np.zeros(3), (2, 3), "f", verb="returned")
