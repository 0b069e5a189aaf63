"""grader.lessons.datasets: the spiral generator used by the lessons that train a classifier."""

import numpy as np
import pytest

from grader.errors import ToolkitInputError
from grader.lessons.datasets import SPIRAL_TURN, make_spiral


def test_shapes_dtypes_and_labels() -> None:
    X, y = make_spiral(50, 4, seed=1, noise=0.1)
    assert X.shape == (200, 2) and X.dtype == np.float64
    assert y.shape == (200,) and y.dtype == np.int64
    # rows grouped by class, class 0 first, balanced
    assert np.array_equal(y, np.repeat(np.arange(4), 50))


def test_defaults_are_three_classes_of_one_hundred() -> None:
    X, y = make_spiral()
    assert X.shape == (300, 2)
    assert np.bincount(y).tolist() == [100, 100, 100]


def test_same_seed_same_points_other_seed_other_points() -> None:
    X1, y1 = make_spiral(30, 3, seed=7)
    X2, y2 = make_spiral(30, 3, seed=7)
    X3, _ = make_spiral(30, 3, seed=8)
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2)
    assert not np.allclose(X1, X3)


def test_noise_only_moves_the_angle() -> None:
    """The radius of point i of every arm is i / (n - 1), whatever the noise."""
    X, _ = make_spiral(40, 3, seed=0, noise=0.5)
    radius = np.hypot(X[:, 0], X[:, 1])
    np.testing.assert_allclose(radius, np.tile(np.linspace(0, 1, 40), 3), atol=1e-12)


def test_without_noise_the_points_lie_on_the_arms() -> None:
    n, k = 25, 3
    X, _ = make_spiral(n, k, seed=0, noise=0.0)
    r = np.linspace(0, 1, n)
    for c in range(k):
        angle = 2 * np.pi * c / k + SPIRAL_TURN * r
        expected = np.column_stack([r * np.sin(angle), r * np.cos(angle)])
        np.testing.assert_allclose(X[c * n:(c + 1) * n], expected, atol=1e-15)


def test_points_stay_in_the_unit_disc() -> None:
    X, _ = make_spiral(100, 5, seed=3, noise=1.0)
    assert np.all(np.hypot(X[:, 0], X[:, 1]) <= 1 + 1e-12)


def test_one_point_per_class() -> None:
    X, y = make_spiral(1, 2, seed=0)
    assert X.shape == (2, 2) and np.all(X == 0) and y.tolist() == [0, 1]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_per_class": 0},
        {"n_per_class": 2.5},
        {"n_classes": 0},
        {"n_classes": True},
        {"seed": -1},
        {"seed": 1.5},
        {"noise": -0.1},
        {"noise": float("nan")},
    ],
)
def test_bad_arguments_are_refused(kwargs) -> None:
    with pytest.raises(ToolkitInputError):
        make_spiral(**kwargs)


def test_a_hidden_layer_is_needed() -> None:
    """The spiral is not linearly separable: least squares on one-hot targets stays far from 100 %."""
    X, y = make_spiral(100, 3, seed=0)
    A = np.column_stack([X, np.ones(len(X))])
    W, *_ = np.linalg.lstsq(A, np.eye(3)[y], rcond=None)
    accuracy = np.mean(np.argmax(A @ W, axis=1) == y)
    assert accuracy < 0.7


def test_digits_are_the_shipped_optdigits() -> None:
    from grader.lessons.datasets import load_digits

    X, y = load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float64 and y.dtype == np.int64
    assert X.min() == 0.0 and X.max() == 1.0
    assert np.all(np.isclose(X * 16, np.round(X * 16)))  # 0..16 counts, scaled
    assert np.bincount(y).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_digits_split_is_a_seeded_partition() -> None:
    from grader.lessons.datasets import digits_split, load_digits

    X, _ = load_digits()
    Xt, yt, Xv, yv = digits_split()
    assert (len(yt), len(yv)) == (1400, 397) and Xt.shape == (1400, 64)
    rows = {r.tobytes() for r in Xt}
    assert sum(r.tobytes() in rows for r in Xv) < 5  # optdigits has a few duplicate images
    again = digits_split()
    assert all(np.array_equal(a, b) for a, b in zip(again, (Xt, yt, Xv, yv), strict=True))
    assert not np.array_equal(digits_split(seed=1)[1], yt)


@pytest.mark.parametrize("kwargs, message", [
    ({"n_val": 0}, "n_val must be a positive int"),
    ({"n_val": 1797}, "at least one training example"),
    ({"seed": -1}, "seed must be a non-negative int"),
])
def test_digits_split_refuses_bad_arguments(kwargs, message) -> None:
    from grader.lessons.datasets import digits_split

    with pytest.raises(ToolkitInputError, match=message):
        digits_split(**kwargs)


def test_the_poem_ships_with_the_toolkit() -> None:
    """Lesson 10's poem is package data, read whole as UTF-8, byte for byte the shipped file."""
    from grader.lessons.datasets import DATA_DIR, load_text, text_names

    assert "the_long_way_back.txt" in text_names()
    text = load_text("the_long_way_back.txt")
    assert text.startswith("The Long Way Back\n") and len(text) == 2836
    assert text.encode("utf-8") == (DATA_DIR / "the_long_way_back.txt").read_bytes()


@pytest.mark.parametrize("name", ["poem.txt", "optdigits.csv.gz", "../datasets.py", "", None])
def test_load_text_names_the_texts_there_are(name) -> None:
    from grader.lessons.datasets import load_text

    with pytest.raises(ToolkitInputError, match=r"No text named .* the texts are: 'the_long_way_back.txt'"):
        load_text(name)
