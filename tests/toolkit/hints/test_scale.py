"""grader.hints.scale: zeros, signs, factors, offsets, almost and partial."""

from __future__ import annotations

import numpy as np
import pytest

from grader import diagnose
from tests.toolkit.hints.fixtures import B4, DB, DW, DX, RELU_MASK, RNG2, SCORES, M, N, codes_of, fires

#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    ("zero", np.zeros_like(DX), DX, {}, [r"all zeros", r"`=`"]),
    ("should-be-zero", DX, np.zeros_like(DX), {}, [r"zero everywhere"]),
    ("sign", -DX, DX, {}, [r"opposite sign"]),
    (
        "sum-vs-mean",
        DB / N,
        DB,
        {"batch_size": N},
        [
            r"1/5 of the expected",
            r"5 is the batch size",
            r"averaged over the batch where the expected value sums",
            r"divided by N twice",
        ],
    ),
    ("sum-vs-mean", DX * N, DX, {"batch_size": N}, [r"5 times", r"batch size", r"divide by N"]),
    ("scale", 2 * DW, DW, {}, [r"2 times", r"twice", r"0\.5"]),
    ("scale", 0.5 * DW, DW, {}, [r"1/2 of the expected", r"path"]),
    ("scale", 3.7 * DW, DW, {}, [r"3\.7 times"]),
    ("scale", DB / N, DB, {}, [r"1/5 times"]),
    ("scale", -3 * DW, DW, {}, [r"-3 times", r"sign flipped"]),
    ("almost", DX + 1e-4, DX, {}, [r"close but not within tolerance", r"0\.0001"]),
    ("offset", DX + 0.58, DX, {}, [r"same constant \+0\.58 in every entry", r"reg·W"]),
    ("offset", SCORES, SCORES + B4, {}, [r"same row \[", r"in every row", r"per-column term"]),
    (
        "partial",
        np.where(RELU_MASK, DX, DX + 1),
        DX,
        {},
        [r"matches the expected one at \d+ of 15", r"the first at \["],
    ),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_generic_scale_needs_two_entries_of_evidence():
    assert diagnose(np.array([3.7]), np.array([1.0])) is None
    assert diagnose(3.7, 1.0) is None
    assert codes_of(diagnose(np.array([3.7, 0.0]), np.array([1.0, 0.0]))) == "partial"


def test_named_factors_work_on_scalars():
    assert codes_of(diagnose(-2.5, 2.5)) == "sign"
    assert codes_of(diagnose(0.5, 2.5, batch_size=5)) == "sum-vs-mean"


def test_factor_close_to_one_is_almost_not_scale():
    assert codes_of(diagnose(DW * (1 + 1e-4), DW)) == "almost"


def test_batch_of_one_gives_no_sum_vs_mean():
    assert codes_of(diagnose(DB * 1.0005, DB, batch_size=1)) == "almost"


def test_batch_of_two_mentions_both_causes():
    message = diagnose(2 * DW, DW, batch_size=2).message
    assert "batch size" in message and "path counted twice" in message


def test_offset_needs_a_real_constant():
    assert codes_of(diagnose(DX + 1e-3, DX)) == "almost"  # small: almost, not offset
    assert diagnose(np.array(2.5), np.array(2.0)) is None  # one number is no evidence
    assert codes_of(diagnose(np.full(3, 3.0), np.full(3, 2.0))) == "scale"  # constant expected
    assert codes_of(diagnose(DX + np.linspace(0.5, 1, DX.size).reshape(DX.shape), DX)) is None
    shifted = DX.copy()
    shifted[1:] += 0.5  # row 0 right, the others off: not "every entry"
    assert codes_of(diagnose(shifted, DX)) != "offset"


def test_row_offset_needs_expected_rows_that_differ():
    same_rows = np.tile(B4, (N, 1))
    hint = diagnose(same_rows + RNG2.standard_normal(M), same_rows)
    assert codes_of(hint) != "offset"
    assert codes_of(diagnose(SCORES, SCORES + B4, name="scores")) == "offset"
    assert "a bias missing" in diagnose(SCORES, SCORES + B4, name="scores").message


def test_offset_wording_follows_the_kind():
    grad = diagnose(DX + 0.58, DX, name="dW").message
    value = diagnose(DX + 0.58, DX, name="scores").message
    assert "reg·W" in grad and "added (or missing) once" in value and grad != value


def test_zero_for_a_value_talks_about_values():
    message = diagnose(np.full((N, M), 1e-6), SCORES, name="scores").message
    assert "nearly" in message and "1e-06" in message
    assert "gradient" not in message and "+=" not in message and "np.zeros" not in message
    assert "gradient" in diagnose(np.zeros(3), np.ones(3), name="out", kind="gradient").message
    assert "never computed" in diagnose(np.zeros(3), np.ones(3), name="dx", kind="value").message
    assert "never computed" not in diagnose(np.zeros(3), np.ones(3)).message  # no name: gradient


def test_should_be_zero_wording_follows_the_kind():
    assert "flows back" in diagnose(np.ones(3), np.zeros(3), name="dx").message
    assert "reg = 0" in diagnose(np.ones(3), np.zeros(3), name="loss").message


def test_scale_of_two_is_context_free():
    twice = diagnose(2 * DW, DW, name="slope").message
    half = diagnose(DW / 2, DW, name="slope").message
    assert "path counted twice" in twice and "h instead of 2h" in twice and "½" in twice
    assert "2h instead of h" in half and "missing path" in half


def test_zero_and_sign_are_worded_for_a_single_number():
    """A hand-traced number: no np.zeros to return unchanged and no entries to be 'everywhere'."""
    zero = diagnose(0.0, 0.407, name="dL_dc")
    assert codes_of(zero) == "zero" and "is 0 but the expected one is 0.407" in zero.message
    assert "upstream gradient, or a local slope" in zero.message
    assert "np.zeros" not in zero.message and "+=" not in zero.message
    sign = diagnose(-1.0, 1.0, name="df_du")
    assert codes_of(sign) == "sign" and "the opposite sign: look for" in sign.message
    assert "everywhere" not in sign.message
    # arrays keep their wording
    assert "np.zeros returned unchanged" in diagnose(np.zeros_like(DX), DX, name="dx").message
    assert "opposite sign everywhere" in diagnose(-DX, DX, name="dx").message
