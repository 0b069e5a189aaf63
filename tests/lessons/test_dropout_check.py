"""grader.lessons.deep_nets.dropout_check.check_dropout (lesson 08): right dropouts pass whatever the
generator, each mistake gets its hint."""

from __future__ import annotations

import re

import numpy as np
import pytest

from grader import CheckFailed, CheckResult, ToolkitInputError
from grader.lessons.deep_nets.dropout_check import check_dropout

DROPOUT_CODES = {"dropout-drop-probability", "dropout-not-rescaled", "dropout-at-test"}


def inverted_dropout(x: np.ndarray, p: float, seed: int, *, keep_as_drop=False, rescale=True) -> np.ndarray:
    """A student's train-mode dropout: keep with probability p (or 1 − p), divide by p (or not)."""
    rng = np.random.default_rng(seed)
    keep = rng.random(x.shape) < (1 - p if keep_as_drop else p)
    return x * keep / p if rescale else x * keep


def failed(out, x, p, mode, **kwargs) -> CheckResult:
    with pytest.raises(CheckFailed) as failure:
        check_dropout("out", out, x, p, mode, **kwargs)
    (result,) = failure.value.results
    assert not result.passed
    return result


def code(result: CheckResult) -> str | None:
    return None if result.hint is None else result.hint.code


@pytest.mark.parametrize("shape", [(2000,), (40, 50), (10, 10, 20), (4, 3, 8, 8)])
@pytest.mark.parametrize("p", [0.3, 0.5, 0.8, 1.0])
def test_right_dropouts_pass_in_every_shape(shape, p, capsys):
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    result = check_dropout("out", inverted_dropout(x, p, seed=1), x, p, "train")
    assert result.passed and result.rel_error < 1e-12
    assert capsys.readouterr().out.startswith("✓ out  ")
    assert check_dropout("out", x.copy(), x, p, "test").passed


def test_many_seeds_and_generators_never_fail():
    x = np.random.default_rng(0).standard_normal((30, 40))
    for seed in range(200):
        check_dropout("out", inverted_dropout(x, 0.6, seed), x, 0.6, "train")
    legacy = np.random.RandomState(3)
    check_dropout("out", x * (legacy.rand(*x.shape) < 0.6) / 0.6, x, 0.6, "train")
    mask = (np.random.default_rng(4).random(x.shape) < 0.6) / 0.6  # the mask divided first
    check_dropout("out", x * mask, x, 0.6, "train")


def test_torch_and_list_outputs_go_through_the_trusted_conversion():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(5).standard_normal((50, 40))
    out = inverted_dropout(x, 0.5, 6)
    assert check_dropout("out", torch.tensor(out), x, 0.5, "train").passed
    assert check_dropout("out", out.tolist(), x, 0.5, "train").passed

    class Liar(np.ndarray):
        def __eq__(self, other):
            return np.ones(self.shape, bool)

        def __ne__(self, other):
            return np.zeros(self.shape, bool)

    result = failed(x.view(Liar), x, 0.5, "train")  # read from its buffer: x itself
    assert result.hint is None or result.hint.code not in DROPOUT_CODES


def test_zeros_of_x_are_not_counted():
    x = np.maximum(np.random.default_rng(7).standard_normal((60, 50)), 0)  # a ReLU output
    out = inverted_dropout(x, 0.5, 8)
    check_dropout("out", out, x, 0.5, "train")
    sneaky = out.copy()
    sneaky[x == 0] = 1.0
    assert code(failed(sneaky, x, 0.5, "train")) == "partial"


@pytest.mark.parametrize(
    ("mistake", "p", "expected"),
    [
        ({"keep_as_drop": True}, 0.8, "dropout-drop-probability"),
        ({"keep_as_drop": True}, 0.3, "dropout-drop-probability"),
        ({"rescale": False}, 0.8, "dropout-not-rescaled"),
        ({"rescale": False}, 0.5, "dropout-not-rescaled"),
        ({"keep_as_drop": True, "rescale": False}, 0.8, "dropout-drop-probability"),
    ],
)
def test_train_mistakes(mistake, p, expected, capsys):
    x = np.random.default_rng(9).standard_normal((50, 60))
    result = failed(inverted_dropout(x, p, 10, **mistake), x, p, "train")
    assert code(result) == expected
    printed = capsys.readouterr().out
    assert printed.startswith("✗ out  ") and f"[{expected}]" in printed
    if "rescale" in mistake and "keep_as_drop" in mistake:
        assert "leaves the kept ones equal to x" in result.hint.message


def test_drop_probability_needs_a_distinguishable_p():
    x = np.random.default_rng(11).standard_normal((50, 60))
    # p = 0.5: keeping 1 − p is keeping p, and the output is right
    check_dropout("out", inverted_dropout(x, 0.5, 12, keep_as_drop=True), x, 0.5, "train")
    # far from both p and 1 − p: the count is wrong, but no story about p
    result = failed(inverted_dropout(x, 0.1, 13) * 0.1 / 0.6, x, 0.6, "train")
    assert code(result) != "dropout-drop-probability"


@pytest.mark.parametrize(
    ("out_of", "expected"),
    [
        (lambda x: inverted_dropout(x, 0.7, 14), "dropout-at-test"),
        (lambda x: inverted_dropout(x, 0.7, 14, rescale=False), "dropout-at-test"),
        (lambda x: 0.7 * x, "dropout-at-test"),
        (lambda x: x / 0.7, "dropout-at-test"),
        (lambda x: x + 1.0, "offset"),
        (lambda x: -x, "sign"),
    ],
)
def test_test_mode_mistakes(out_of, expected):
    x = np.random.default_rng(15).standard_normal((40, 30))
    assert code(failed(out_of(x), x, 0.7, "test")) == expected


def test_unrelated_wrong_arrays_get_no_dropout_hint():
    rng = np.random.default_rng(16)
    x = rng.standard_normal((40, 30))
    for _ in range(20):
        for mode in ("train", "test"):
            assert code(failed(rng.standard_normal(x.shape), x, 0.7, mode)) not in DROPOUT_CODES
        noisy = inverted_dropout(x, 0.7, 17) * (1 + 0.01 * rng.standard_normal(x.shape))
        assert code(failed(noisy, x, 0.7, "train")) == "partial"
    assert code(failed(x.copy(), x, 0.7, "train")) not in DROPOUT_CODES  # nothing dropped: no story


def test_wrong_kinds_of_out():
    x = np.random.default_rng(18).standard_normal((20, 30))
    out = inverted_dropout(x, 0.5, 19)
    assert code(failed(None, x, 0.5, "train")) == "none"
    assert code(failed((out, {"mask": out != 0}), x, 0.5, "train")) == "type"
    assert code(failed(out.T, x, 0.5, "train")) == "shape"
    assert code(failed(out.astype(np.float32), x, 0.5, "train")) == "dtype"
    assert code(failed(np.where(out > 1, np.nan, out), x, 0.5, "test")) == "nan"


def test_a_scalar_and_all_zeros():
    assert check_dropout("out", np.array(2.0), np.array(1.0), 0.5, "train").passed
    assert check_dropout("out", np.array(0.0), np.array(1.0), 0.5, "train").passed  # one unit: either
    assert check_dropout("out", np.zeros(5), np.zeros(5), 0.5, "train").passed


@pytest.mark.parametrize(
    ("args", "kwargs", "words"),
    [
        (
            (np.ones(3), 0.0, "train"),
            {},
            r"p must be the probability of keeping a unit, a number in \(0, 1\]",
        ),
        ((np.ones(3), 1.5, "train"), {}, r"p must be the probability"),
        ((np.ones(3), True, "train"), {}, r"p must be the probability"),
        ((np.ones(3), 0.5, "eval"), {}, r"mode must be 'train' or 'test'"),
        ((np.ones(3, dtype=int), 0.5, "train"), {}, r"x must be a float64 array"),
        ((np.ones(3), 0.5, "train"), {"tol": -1}, r"tol must be a positive number"),
        ((np.ones(3), 0.5, "train"), {"sigmas": 0}, r"sigmas must be a positive number"),
    ],
)
def test_bad_arguments(args, kwargs, words):
    with pytest.raises(ToolkitInputError, match=words):
        check_dropout("out", np.ones(3), *args, **kwargs)


DROP_RNG = np.random.default_rng(1414)

DROP_X = DROP_RNG.standard_normal((40, 50))

DROP_KEEP = DROP_RNG.random(DROP_X.shape) < 0.7  # p = 0.7 kept


# One positive example per code of check_dropout: (code, out, x, p, mode, words in the message)
DROPOUT_POSITIVE = [
    (
        "dropout-drop-probability",
        DROP_X * ~DROP_KEEP / 0.7,
        DROP_X,
        0.7,
        "train",
        [r"about 1 − p = 0\.3 rather than p = 0\.7", r"probability of KEEPING"],
    ),
    (
        "dropout-drop-probability",
        DROP_X * ~DROP_KEEP / 0.3,
        DROP_X,
        0.7,
        "train",
        [r"scales the kept units as if 1 − p of them were kept"],
    ),
    (
        "dropout-not-rescaled",
        DROP_X * DROP_KEEP,
        DROP_X,
        0.7,
        "train",
        [r"kept units equal x", r"scales the kept units in training so that"],
    ),
    (
        "dropout-at-test",
        DROP_X * DROP_KEEP / 0.7,
        DROP_X,
        0.7,
        "test",
        [r"drops \d+ of the 2000 units in test mode"],
    ),
    ("dropout-at-test", DROP_X * 0.7, DROP_X, 0.7, "test", [r"rescales x", r"branch for mode 'test'"]),
]


@pytest.mark.parametrize(
    ("code", "out", "x", "p", "mode", "words"),
    DROPOUT_POSITIVE,
    ids=[f"{d[0]}-{i}" for i, d in enumerate(DROPOUT_POSITIVE)],
)
def test_dropout_rule_fires_with_an_actionable_message(code, out, x, p, mode, words, capsys):
    with pytest.raises(CheckFailed) as failure:
        check_dropout("out", out, x, p, mode)
    hint = failure.value.results[0].hint
    assert hint is not None and hint.code == code, hint
    for pattern in words:
        assert re.search(pattern, hint.message), (pattern, hint.message)
    assert "your out" in hint.message and f"[{code}]" in capsys.readouterr().out
