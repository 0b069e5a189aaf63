"""grader.lessons.two_layer_net.plots: decision regions and loss curves (matplotlib Agg, no display)."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from grader.errors import ToolkitInputError  # noqa: E402
from grader.lessons.datasets import make_spiral  # noqa: E402
from grader.lessons.two_layer_net.plots import CLASS_COLOURS, plot_decision_regions, plot_loss  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _by_angle(P: np.ndarray) -> np.ndarray:
    """Three sectors of the plane: labels 0, 1, 2."""
    return (np.floor((np.arctan2(P[:, 1], P[:, 0]) + np.pi) / (2 * np.pi / 3)) % 3).astype(np.int64)


def _pixels(ax) -> np.ndarray:
    ax.figure.canvas.draw()
    return np.asarray(ax.figure.canvas.buffer_rgba()).copy()


def test_labels_and_scores_give_the_same_picture() -> None:
    X, y = make_spiral(20, 3, seed=0)
    calls = []

    def labels(P):
        calls.append(P)
        return _by_angle(P)

    def scores(P):
        return np.eye(3)[_by_angle(P)] * 5.0 - 1.0

    ax1 = plot_decision_regions(labels, X, y, resolution=30)
    ax2 = plot_decision_regions(scores, X, y, resolution=30)
    (P,) = calls
    assert P.shape == (900, 2) and P.dtype == np.float64
    np.testing.assert_array_equal(_pixels(ax1), _pixels(ax2))
    ax3 = plot_decision_regions(lambda P: (_by_angle(P) + 1) % 3, X, y, resolution=30)
    assert not np.array_equal(_pixels(ax1), _pixels(ax3))


def test_grid_covers_the_data_and_points_are_drawn() -> None:
    X, y = make_spiral(30, 3, seed=1)
    fig, ax = plt.subplots()
    out = plot_decision_regions(_by_angle, X, y, ax=ax, resolution=20)
    assert out is ax
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    assert x0 < X[:, 0].min() and x1 > X[:, 0].max()
    assert y0 < X[:, 1].min() and y1 > X[:, 1].max()
    scatter = ax.collections[-1]
    np.testing.assert_allclose(scatter.get_offsets(), X)
    colours = scatter.get_facecolors()
    expected = matplotlib.colors.to_rgba_array([CLASS_COLOURS[k] for k in y])
    np.testing.assert_allclose(colours, expected)


def test_nan_scores_still_draw_the_data_over_one_region() -> None:
    """A diverged network's NaN scores: argmax picks class 0 everywhere; the points are still drawn."""
    X, y = make_spiral(10, 3, seed=0)
    ax = plot_decision_regions(lambda P: np.full((len(P), 3), np.nan), X, y, resolution=10)
    np.testing.assert_allclose(ax.collections[-1].get_offsets(), X)
    class_zero = plot_decision_regions(lambda P: np.zeros(len(P), dtype=np.int64), X, y, resolution=10)
    np.testing.assert_array_equal(_pixels(ax), _pixels(class_zero))
    by_angle = plot_decision_regions(_by_angle, X, y, resolution=10)
    assert not np.array_equal(_pixels(ax), _pixels(by_angle))


@pytest.mark.parametrize(
    "predict",
    [
        lambda P: None,
        lambda P: (P, P),
        lambda P: np.zeros(len(P) + 1, dtype=np.int64),
        lambda P: np.full(len(P), 0.5),
        lambda P: np.zeros((len(P), 2, 2)),
    ],
)
def test_bad_predictions_are_refused(predict) -> None:
    X, y = make_spiral(5, 2, seed=0)
    with pytest.raises(ToolkitInputError, match="predict_fn"):
        plot_decision_regions(predict, X, y, resolution=5)


def test_bad_data_is_refused() -> None:
    X, y = make_spiral(5, 2, seed=0)
    with pytest.raises(ToolkitInputError, match="X must"):
        plot_decision_regions(_by_angle, X[:, :1], y)
    with pytest.raises(ToolkitInputError, match="y must"):
        plot_decision_regions(_by_angle, X, y[:-1])
    with pytest.raises(ToolkitInputError, match="resolution"):
        plot_decision_regions(_by_angle, X, y, resolution=1)


def test_plot_loss_draws_the_history() -> None:
    history = [2.0, 1.5, 0.9, 0.4]
    ax = plot_loss(history, label="train")
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), np.arange(4))
    np.testing.assert_array_equal(line.get_ydata(), history)
    assert ax.get_xlabel() == "iteration" and ax.get_ylabel() == "loss"
    assert ax.get_legend() is not None


def test_plot_loss_on_given_axes_with_nan() -> None:
    fig, ax = plt.subplots()
    history = np.array([1.0, np.nan, np.inf, 0.5])
    out = plot_loss(history, ax=ax)
    assert out is ax and len(ax.get_lines()) == 1
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), history)  # NaN and inf kept, not dropped
    assert ax.get_legend() is None


@pytest.mark.parametrize("history", [[], None, [[1.0, 2.0]], "abc"])
def test_plot_loss_refuses_bad_history(history) -> None:
    with pytest.raises(ToolkitInputError):
        plot_loss(history)
