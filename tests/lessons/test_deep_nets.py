"""Lesson 08's helpers: the comparison with autograd, the deep-net experiments, the explorer."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from grader import ToolkitInputError
from grader.lessons.datasets import digits_split
from grader.lessons.deep_nets import (
    BatchNormExplorer,
    NotReady,
    array_passes,
    compare,
    compare_to_torch,
    comparison_table,
    deep_net_gradients,
    show_digits,
    train_deep_net,
)
from grader.lessons.deep_nets.experiments import StudentBatchNorm, forward_backward, init_params

# ----------------------------------------------------------------------------- a reference batch norm


def bn_forward(x, gamma, beta, bn_param):
    eps, m = bn_param.get("eps", 1e-5), bn_param.get("momentum", 0.9)
    d = x.shape[1]
    rm, rv = bn_param.get("running_mean", np.zeros(d)), bn_param.get("running_var", np.zeros(d))
    if bn_param["mode"] == "train":
        mu, var = x.mean(axis=0), x.var(axis=0)
        xhat = (x - mu) / np.sqrt(var + eps)
        bn_param["running_mean"], bn_param["running_var"] = m * rm + (1 - m) * mu, m * rv + (1 - m) * var
        return gamma * xhat + beta, (xhat, 1 / np.sqrt(var + eps), gamma)
    return gamma * (x - rm) / np.sqrt(rv + eps) + beta, None


def bn_backward(dout, cache):
    xhat, inv_std, gamma = cache
    n = dout.shape[0]
    dgamma, dbeta = (dout * xhat).sum(axis=0), dout.sum(axis=0)
    return gamma * inv_std / n * (n * dout - dbeta - xhat * dgamma), dgamma, dbeta


def unfinished(*args):
    raise NotImplementedError


@pytest.fixture(scope="module")
def data():
    return digits_split()


# ----------------------------------------------------------------------------- compare


def test_compare_tells_exact_close_and_the_largest_difference():
    ref = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert compare("a", ref.copy(), ref) == compare("a", ref.tolist(), ref)
    same = compare("a", ref.copy(), ref)
    assert (same.exact, same.close, same.max_diff, same.problem) == (True, True, 0.0, "")
    near = compare("a", ref + np.array([[0.0, 1e-12], [0.0, 0.0]]), ref)
    assert (near.exact, near.close) == (False, True) and near.max_diff == pytest.approx(1e-12, rel=1e-3)
    far = compare("a", ref + 0.5, ref)
    assert (far.exact, far.close, far.max_diff) == (False, False, 0.5)


def test_compare_reads_a_tensors_grad_and_asks_for_retain_grad():
    w = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    h = w * 3.0
    h.retain_grad()
    (h ** 2).sum().backward()
    assert compare("w", 18.0 * np.array([1.0, -2.0]), w).exact
    assert compare("h", 6.0 * np.array([1.0, -2.0]), h).exact
    g = w * 2.0  # no retain_grad: no .grad
    with pytest.raises(ToolkitInputError, match="retain_grad"):
        compare("g", np.zeros(2), g)
    with pytest.raises(ToolkitInputError, match="torch tensor"):
        compare("x", np.zeros(2), "not a reference")


def test_compare_reports_a_wrong_shape_or_a_missing_value_as_a_row():
    ref = np.zeros((3, 2))
    wrong = compare("dW", np.zeros((2, 3)), ref)
    assert not wrong.close and "shape (2, 3)" in wrong.problem and "(3, 2)" in wrong.row()
    missing = compare("dW", None, ref)
    assert not missing.exact and "None" in missing.row()
    assert compare("dW", np.full((3, 2), np.nan), ref).max_diff == np.inf


def test_comparison_table_prints_a_header_and_one_row_each(capsys):
    ref = np.ones(3)
    rows = comparison_table([("a", np.ones(3), ref), ("bb", np.ones(3) * 2, ref)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("quantity") and len(lines) == 3
    assert lines[1].split()[:3] == ["a", "yes", "yes"] and lines[2].split()[:3] == ["bb", "no", "no"]
    assert [r.name for r in rows] == ["a", "bb"]
    compare_to_torch("c", ref, ref)
    assert capsys.readouterr().out.split()[:3] == ["c", "yes", "yes"]
    with pytest.raises(ToolkitInputError, match="triple"):
        comparison_table([("a", ref)])


def test_show_digits_draws_labelled_images_and_refuses_other_shapes(data):
    import matplotlib.pyplot as plt

    fig = show_digits(data[0], data[1], count=5)
    assert [ax.get_title() for ax in fig.axes] == [str(d) for d in data[1][:5]]
    plt.close(fig)
    with pytest.raises(ToolkitInputError, match=r"\(N, 64\)"):
        show_digits(np.zeros((3, 10)), np.zeros(3))


def staged_backward(dout, cache):
    xhat, inv_std, gamma = cache
    n = dout.shape[0]
    dxhat = dout * gamma
    xc = xhat / inv_std
    dvar = -0.5 * inv_std ** 3 * (dxhat * xc).sum(axis=0)
    dxc = dxhat * inv_std + dvar * 2.0 * xc / n
    return dxc - dxc.sum(axis=0) / n, (dout * xhat).sum(axis=0), dout.sum(axis=0)


def test_array_passes_counts_the_operations_on_whole_arrays_and_leaves_the_result_alone():
    rng = np.random.default_rng(0)
    x, dout = rng.normal(size=(6, 4)), rng.normal(size=(6, 4))
    _, cache = bn_forward(x, rng.normal(size=4), np.zeros(4), {"mode": "train"})
    saved = dout.copy()
    # dgamma: *, sum; dbeta: sum; dx: n * dout, - dbeta, xhat * dgamma, -, * (the (D,) factor not counted)
    assert array_passes(bn_backward, dout, cache) == 8
    assert array_passes(staged_backward, dout, cache) > 8
    assert array_passes(lambda d, c: (d.mean(axis=0), np.sqrt(d ** 2)), dout, cache) == 3
    assert array_passes(lambda d, c: (c[2] * 2.0, c[1] + 1.0), dout, cache) == 0   # (D,) arrays only
    assert np.array_equal(dout, saved)
    assert type(bn_backward(dout, cache)[0]) is np.ndarray


def test_array_passes_follows_in_place_updates_and_lets_errors_through():
    dout = np.ones((3, 2))

    def in_place(d, cache):
        out = d.copy()
        out *= 2.0
        out /= cache["n"]
        return out

    assert array_passes(in_place, dout, {"n": 3.0}) == 2
    with pytest.raises(NotImplementedError):
        array_passes(unfinished, dout, None)
    with pytest.raises(ToolkitInputError, match="shape"):
        array_passes(bn_backward, np.ones(3), None)
    assert array_passes(lambda d, c: d + 1.0, dout, None) == 1   # the tally was reset after the error


# ----------------------------------------------------------------------------- the deep network


def _torch_loss(params, X, y, use_bn, activation):
    act = torch.sigmoid if activation == "sigmoid" else torch.tanh
    t = {k: [torch.tensor(a, requires_grad=True) for a in v] for k, v in params.items()}
    h = torch.tensor(X)
    for i in range(len(t["gamma"])):
        z = h @ t["W"][i] + t["b"][i]
        if use_bn:
            z = torch.nn.functional.batch_norm(z, None, None, t["gamma"][i], t["beta"][i],
                                               training=True, eps=1e-5)
        h = act(z)
    loss = torch.nn.functional.cross_entropy(h @ t["W"][-1] + t["b"][-1], torch.tensor(y))
    loss.backward()
    return loss.item(), t


@pytest.mark.parametrize(("use_bn", "activation"), [(False, "sigmoid"), (True, "sigmoid"), (True, "tanh")])
def test_forward_backward_matches_autograd(data, use_bn, activation):
    X, y = data[0][:30], data[1][:30]
    params = init_params(3, 16, seed=4)
    params["beta"] = [b + 0.3 for b in params["beta"]]
    bn = StudentBatchNorm(bn_forward, bn_backward) if use_bn else None
    loss, grads = forward_backward(params, X, y, activation, bn, [{"mode": "train"} for _ in range(3)])
    ref_loss, t = _torch_loss(params, X, y, use_bn, activation)
    assert loss == pytest.approx(ref_loss, rel=1e-12)
    keys = ("W", "b", "gamma", "beta") if use_bn else ("W", "b")
    for key in keys:
        for mine, tensor in zip(grads[key], t[key], strict=True):
            np.testing.assert_allclose(mine, tensor.grad.numpy(), rtol=1e-9, atol=1e-14)


def test_init_params_are_xavier_and_shared_by_depth_prefix():
    a, b = init_params(3, 8, seed=1), init_params(5, 8, seed=1)
    assert [w.shape for w in a["W"]] == [(64, 8), (8, 8), (8, 8), (8, 10)]
    assert all(np.array_equal(u, v) for u, v in zip(a["W"][:3], b["W"][:3], strict=True))
    big = init_params(1, 400, n_in=400, seed=0)["W"][0]
    assert big.var() == pytest.approx(2 / 800, rel=0.02)


def test_deep_net_gradients_vanish_without_batch_norm_and_not_with_it(data):
    g = deep_net_gradients(bn_forward, bn_backward, data[0][:100], data[1][:100], depth=8, lr=0.1)
    plain, bn = g["plain"]["norms"], g["bn"]["norms"]
    assert plain.shape == bn.shape == (9,) and g["bn_error"] is None
    assert plain[0] / plain[-1] < 1e-4 and 0.3 < bn[0] / bn[-1] < 3
    np.testing.assert_allclose(g["bn"]["ratios"], np.log10(0.1 * bn / [np.linalg.norm(w) for w in
                                                                       init_params(8, 64, seed=0)["W"]]))
    scaled = deep_net_gradients(bn_forward, bn_backward, data[0][:100], data[1][:100], depth=8,
                                weight_scale=3.0)
    assert scaled["plain"]["norms"][0] > 100 * plain[0]
    assert scaled["bn"]["norms"][0] == pytest.approx(bn[0], rel=0.2)


def test_an_unfinished_or_broken_batch_norm_is_reported_not_raised(data):
    X, y = data[0][:50], data[1][:50]
    g = deep_net_gradients(unfinished, unfinished, X, y, depth=3)
    assert g["bn"] is None and "batchnorm_forward is not written yet" in g["bn_error"]
    assert g["bn_error"].endswith("then run this cell again.")
    in_view = deep_net_gradients(unfinished, unfinished, X, y, depth=3, in_view=True)
    assert in_view["bn_error"].endswith("then move a control here.")
    assert g["plain"]["norms"].shape == (4,)
    junk = deep_net_gradients(lambda x, g_, b, p: (x[:1], None), bn_backward, X, y, depth=3)
    assert "shape (50, 64)" in junk["bn_error"]
    no_pair = deep_net_gradients(lambda x, g_, b, p: x, bn_backward, X, y, depth=3)
    assert "pair" in no_pair["bn_error"]
    bad_backward = deep_net_gradients(bn_forward, lambda dout, cache: (dout, dout), X, y, depth=3)
    assert "(dx, dgamma, dbeta)" in bad_backward["bn_error"]
    with pytest.raises(NotReady, match="batchnorm_backward's dgamma"):
        StudentBatchNorm(bn_forward, lambda dout, c: (dout, dout, dout[0])).bwd(np.ones((4, 3)), None)


def test_train_deep_net_learns_with_batch_norm_only_and_is_deterministic(data):
    kwargs = {"depth": 8, "activation": "sigmoid", "lr": 0.1, "steps": 60, "batch": 100}
    plain = train_deep_net(bn_forward, bn_backward, data, use_bn=False, **kwargs)
    with_bn = train_deep_net(bn_forward, bn_backward, data, use_bn=True, **kwargs)
    again = train_deep_net(bn_forward, bn_backward, data, use_bn=True, **kwargs)
    assert plain.losses.shape == (61,) and np.all(np.isfinite(with_bn.losses))
    assert plain.val_acc < 0.2 < 0.7 < with_bn.val_acc
    assert np.array_equal(with_bn.losses, again.losses) and with_bn.val_acc == again.val_acc
    with pytest.raises(NotReady, match="not written yet"):
        train_deep_net(unfinished, unfinished, data, use_bn=True, **kwargs)


def test_a_diverging_run_reports_its_losses_without_raising(data):
    run = train_deep_net(bn_forward, bn_backward, data, depth=3, use_bn=False, activation="tanh",
                         lr=1e4, steps=20)
    assert run.losses[0] < 3 and run.losses[-1] > 1000 and run.val_acc < 0.5


# ----------------------------------------------------------------------------- the explorer


def test_the_explorer_draws_both_nets_and_says_what_is_missing(data):
    view = BatchNormExplorer(bn_forward, bn_backward, data, steps=10)
    png, text = view.render({"depth": 4})
    assert png.startswith(b"\x89PNG") and "with BatchNorm" in text and "validation accuracy" in text
    assert view.render({"depth": 4, "lr": 0.5, "activation": "tanh"})[0] != png
    release = BatchNormExplorer(unfinished, unfinished, data, steps=10)
    png, text = release.render()
    assert png.startswith(b"\x89PNG") and "✗" in text and "batchnorm_forward is not written yet" in text
    assert "without BatchNorm: ‖dW" in text


def test_in_a_kernel_the_explorer_shows_controls_then_a_picture_that_a_control_replaces():
    import base64
    import textwrap

    import nbformat
    from nbclient import NotebookClient

    from grader.lessons.live_figure import LiveFigure

    setup = textwrap.dedent(
        """
        from grader.lessons.datasets import digits_split
        from grader.lessons.deep_nets import BatchNormExplorer

        def unfinished(*args):
            raise NotImplementedError

        view = BatchNormExplorer(unfinished, unfinished, digits_split(), depth=3, steps=5)
        view
        """
    )
    move = "view.controls['depth'].value = 4\nprint(view.updates, 'updated in' in view.numbers.value)"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell(move)]
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    widget, picture, words = nb.cells[0].outputs
    # the picture's words follow it (JupyterLab shows a PNG without its alt) and are redrawn with it
    assert words.data["text/markdown"].startswith("<details><summary>Figure in words")
    assert picture.metadata["image/png"]["alt"] in words.data["text/markdown"]
    assert "application/vnd.jupyter.widget-view+json" in widget.data
    assert widget.data["text/plain"] == LiveFigure.plain_text
    assert base64.b64decode(picture.data["image/png"]).startswith(b"\x89PNG")
    assert nb.cells[1].outputs[0].text == "1 True\n"
