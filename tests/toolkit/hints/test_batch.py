"""grader.hints.batch: the batch axis: wrong axis, one row of dout, one example."""

from __future__ import annotations

import numpy as np
import pytest

from grader import diagnose
from tests.toolkit.hints.fixtures import DB, DOUT, DSQ, DW, DX, RNG2, SCORES, D, M, N, X, codes_of, fires

#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "first-example-only",
        np.vstack([DX[:1], np.zeros((N - 1, D))]),
        DX,
        {},
        [r"first example \(row 0\)", r"zero in the other 4 rows"],
    ),
    (
        "first-example-only",
        np.vstack([DX[:1], -DX[1:]]),
        DX,
        {"batch_size": N},
        [r"wrong in every other row"],
    ),
    ("last-example-only", np.vstack([np.zeros((N - 1, D)), DX[-1:]]), DX, {}, [r"last example \(row 4\)"]),
    (
        "wrong-axis",
        DOUT.sum(axis=1),
        DB,
        {"upstream": DOUT, "batch_size": N},
        [r"shape \(5,\)", r"dout summed over axis 1", r"summed over axis 0 \(the batch axis\)"],
    ),
    (
        "wrong-axis",
        DOUT.sum(),
        DB,
        {"upstream": DOUT},
        [r"summed over every axis", r"db = dout\.sum\(axis=0\)"],
    ),
    (
        "wrong-axis",
        DSQ.mean(axis=1),
        DSQ.sum(axis=0),
        {"upstream": DSQ},
        [r"only because axes 0 and 1 of dout have the same length", r"averaged over axis 1"],
    ),
    (
        "unmasked-upstream",
        DOUT.sum(axis=0),
        (DOUT * (SCORES > 0)).sum(axis=0),
        {"upstream": DOUT},
        [r"exactly dout summed over the batch axis", r"ReLU mask \(dout \* \(h > 0\)\)"],
    ),
    (
        "one-example-product",
        np.outer(X[0], DOUT[0]),
        DW,
        {"upstream": DOUT},
        [r"first example alone", r"multiple of row 0 of dout", r"over all 5: which single matrix product"],
    ),
    ("one-example-product", np.outer(X[-1], DOUT[-1]), DW, {"upstream": DOUT}, [r"last example", r"row 4"]),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_one_example_needs_the_other_rows_fully_wrong():
    actual = DX.copy()
    actual[1:, 0] += 1.0  # rows 1.. are wrong in one column only
    assert codes_of(diagnose(actual, DX)) == "partial"


def test_first_example_not_claimed_for_a_vector_without_batch():
    db = np.array([1.0, 2.0, 3.0])
    assert codes_of(diagnose(np.array([1.0, 0.0, 0.0]), db)) == "partial"
    assert codes_of(diagnose(np.array([1.0, 0.0, 0.0]), db, batch_size=3)) == "first-example-only"


def test_first_example_not_claimed_when_axis_0_is_not_the_batch():
    actual = np.vstack([DW[:1], np.zeros((D - 1, M))])
    assert codes_of(diagnose(actual, DW, batch_size=N)) == "partial"


def test_first_example_needs_a_nonzero_first_row():
    expected = DX.copy()
    expected[0] = 0
    assert codes_of(diagnose(np.zeros_like(DX), expected)) == "zero"
    actual = np.vstack([np.zeros((1, D)), -expected[1:]])
    assert codes_of(diagnose(actual, expected)) != "first-example-only"


def test_first_example_defers_to_a_mask_that_explains_it():
    mask = np.ones((N, D), dtype=bool)
    mask[1:] = False  # row 0 lies entirely on the True side
    expected = DX * mask
    actual = DX.copy()  # mask not applied: wrong exactly where mask is False
    assert codes_of(diagnose(actual, expected, mask=mask)) == "mask"
    assert codes_of(diagnose(actual, expected)) == "first-example-only"


def test_upstream_row_requires_a_matching_row():
    assert codes_of(diagnose(DB**2, DB, upstream=DOUT)) is None


def test_wrong_axis_needs_upstream_and_a_matching_reduction():
    assert codes_of(diagnose(DOUT.sum(axis=1), DB)) == "shape"  # no upstream: no story
    assert codes_of(diagnose(DOUT.sum(axis=1) + 1, DB, upstream=DOUT)) == "shape"
    assert codes_of(diagnose(DOUT.sum(axis=0), DB, upstream=DOUT)) is None  # right
    other = RNG2.standard_normal(4)
    assert codes_of(diagnose(DSQ.sum(axis=1), other, upstream=DSQ)) != "wrong-axis"  # expected unknown


def test_unmasked_upstream_precision():
    masked_db = (DOUT * (SCORES > 0)).sum(axis=0)
    assert diagnose(masked_db.copy(), masked_db, upstream=DOUT) is None
    assert codes_of(diagnose(DOUT.sum(axis=0), DB / N, upstream=DOUT, batch_size=N)) == "sum-vs-mean"
    assert codes_of(diagnose(DOUT.sum(axis=0) + 0.1, masked_db, upstream=DOUT)) != "unmasked-upstream"
    assert codes_of(diagnose(DOUT.sum(axis=0), masked_db)) != "unmasked-upstream"  # no upstream


def test_one_example_product_needs_upstream_and_a_summed_expected():
    assert codes_of(diagnose(np.outer(X[0], DOUT[0]), DW)) != "one-example-product"  # no upstream
    assert codes_of(diagnose(np.outer(X[1], DOUT[1]), DW, upstream=DOUT)) != "one-example-product"
    one = np.outer(X[0], DOUT[0])  # a batch of one: the expected one has the same form
    assert codes_of(diagnose(2.5 * one, one, upstream=DOUT[:1])) == "scale"
