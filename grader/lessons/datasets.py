"""The lessons' datasets: small synthetic ones generated on the spot, and one real one shipped.

Nothing is downloaded. `load_digits` reads the 1797 handwritten 8×8 digits of UCI's optdigits
test set (CC BY 4.0), shipped in grader/lessons/data/ (see its README for the source);
`load_text` reads a text shipped there (the poem of lesson 10's character RNN). They are package
data: they travel with the toolkit, so a notebook opened alone (in Colab) finds them too.

`make_spiral` is the toy problem of CS231n's neural-network case study: a few interleaved
spiral arms in the plane, one arm per class. No straight line separates them, so a linear
classifier stays far from 100 % while a small network with one hidden layer gets there.
"""

from __future__ import annotations

import gzip
import math
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from ..errors import ToolkitInputError
from ..i18n import language
from ..i18n import lesson_text as _
from ..referees import referee_all

__all__ = ["DATA_DIR", "DIGITS_PATH", "digits_split", "load_digits", "load_text", "make_spiral", "text_names"]

#: The folder of the shipped data files (package data of `grader.lessons`).
DATA_DIR = Path(__file__).resolve().parent / "data"

#: The shipped optdigits file: 1797 rows of 64 pixels (0..16) and the digit.
DIGITS_PATH = DATA_DIR / "optdigits.csv.gz"

#: How far (in radians) each arm turns from its centre to its tip.
SPIRAL_TURN = 4.0


def make_spiral(
    n_per_class: int = 100, n_classes: int = 3, seed: int = 0, noise: float = 0.2
) -> tuple[np.ndarray, np.ndarray]:
    """Points on `n_classes` interleaved spiral arms, `n_per_class` points per arm.

    Arm k starts at the origin at angle 2πk / n_classes and winds outwards: point i of it has
    radius r_i = i / (n_per_class − 1) (0 to 1) and angle 2πk / n_classes + 4·r_i, plus
    Gaussian noise of standard deviation `noise` on the angle. The point is
    (r · sin(angle), r · cos(angle)).

    Inputs: n_per_class — points per class (≥ 1); n_classes — number of arms (≥ 1); seed —
    seeds the noise (the same arguments always give the same points); noise — standard
    deviation of the angle noise in radians (≥ 0; 0 puts every point exactly on its arm).
    Returns: X — float64 array of shape (n_per_class · n_classes, 2); y — int64 array of
    shape (n_per_class · n_classes,) with the class of each row, rows grouped by class
    (class 0 first).
    """
    __tracebackhide__ = True
    n = _positive_int(n_per_class, "n_per_class")
    k = _positive_int(n_classes, "n_classes")
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ToolkitInputError(_("seed must be a non-negative int, got {seed}.").format(seed=repr(seed)))
    if isinstance(noise, bool) or not isinstance(noise, Real) or not math.isfinite(noise) or noise < 0:
        message = _("noise must be a finite number ≥ 0, got {noise}.")
        raise ToolkitInputError(message.format(noise=repr(noise)))

    rng = np.random.default_rng(int(seed))
    radius = np.linspace(0.0, 1.0, n) if n > 1 else np.zeros(1)
    X = np.empty((n * k, 2), dtype=np.float64)
    y = np.empty(n * k, dtype=np.int64)
    for c in range(k):
        angle = 2 * np.pi * c / k + SPIRAL_TURN * radius + float(noise) * rng.standard_normal(n)
        rows = slice(c * n, (c + 1) * n)
        X[rows, 0] = radius * np.sin(angle)
        X[rows, 1] = radius * np.cos(angle)
        y[rows] = c
    return X, y


def load_digits() -> tuple[np.ndarray, np.ndarray]:
    """The 1797 handwritten digits of UCI optdigits (8×8 images), in the file's order.

    Returns: X — float64 array of shape (1797, 64), each row an 8×8 image read row by row,
    pixels scaled from 0..16 to [0, 1] (`X[i].reshape(8, 8)` is the picture); y — int64 array
    of shape (1797,) with the digit 0–9 of each row (about 180 of each).
    """
    with gzip.open(DIGITS_PATH, "rt") as f:
        table = np.loadtxt(f, delimiter=",")
    return table[:, :-1] / 16.0, table[:, -1].astype(np.int64)


def digits_split(
    n_val: int = 397, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`load_digits` shuffled once with `seed` and cut into a training and a validation split.

    Inputs: n_val — number of validation examples (1 to 1796; the default keeps 1400 for
    training); seed — seeds the shuffle (non-negative int).
    Returns: X_train (1797 − n_val, 64), y_train (1797 − n_val,), X_val (n_val, 64),
    y_val (n_val,): float64 pixels in [0, 1] and int64 digits, no example in both splits.
    """
    __tracebackhide__ = True
    X, y = load_digits()
    n_val = _positive_int(n_val, "n_val")
    if n_val >= len(y):
        message = _("n_val must leave at least one training example: got {n_val} of {count}.")
        raise ToolkitInputError(message.format(n_val=n_val, count=len(y)))
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ToolkitInputError(_("seed must be a non-negative int, got {seed}.").format(seed=repr(seed)))
    order = np.random.default_rng(int(seed)).permutation(len(y))
    train, val = order[n_val:], order[:n_val]
    return X[train], y[train], X[val], y[val]


def text_names() -> list[str]:
    """The names of the texts shipped with the course (the `.txt` files of DATA_DIR), sorted."""
    return sorted(p.name for p in DATA_DIR.glob("*.txt"))


def load_text(name: str) -> str:
    """A text shipped with the course, read whole as UTF-8, in the student's edition: a text that
    has a version in the student's language (DATA_DIR/<language>/<name>, e.g. the Portuguese
    poem) gives that version, so that a character model learns the student's language.

    Inputs: name — the file's name, one of `text_names()`, e.g. "the_long_way_back.txt" (the
    poem lesson 10's character RNN learns from).
    Returns: the text, a str (lines end with "\\n").
    Raises ToolkitInputError for any other name, saying which texts there are.
    """
    __tracebackhide__ = True
    names = text_names()
    if not isinstance(name, str) or name not in names:
        message = _("No text named {name} ships with the course; the texts are: {names}.")
        raise ToolkitInputError(message.format(name=repr(name), names=", ".join(map(repr, names))))
    edition = DATA_DIR / language() / name
    return (edition if edition.is_file() else DATA_DIR / name).read_text(encoding="utf-8")


def _positive_int(value: object, name: str) -> int:
    __tracebackhide__ = True
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        message = _("{name} must be a positive int, got {value}.")
        raise ToolkitInputError(message.format(name=name, value=repr(value)))
    return int(value)


referee_all(globals())
