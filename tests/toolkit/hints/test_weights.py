"""grader.hints.weights: a square W not transposed, the L2 term."""

from __future__ import annotations

import numpy as np
import pytest

from grader import CheckFailed, check_layer, diagnose
from tests.toolkit.hints.fixtures import DOUT, DW, DX_SQ, REG, W_REG, WSQ, M, X, codes_of, fires

#: One positive example per code of this module: (code, actual, expected, keyword arguments,
#: words in the message).
POSITIVE = [
    (
        "no-transpose",
        DOUT @ WSQ,
        DX_SQ,
        {"weights": WSQ},
        [r"G @ W where the expected one is G @ W\.T", r"only fit because W is square", r"dout @ W\.T"],
    ),
    (
        "l2-term",
        DW,
        DW + REG * W_REG,
        {"weights": W_REG, "reg": REG},
        [r"by exactly -0\.3·W", r"−reg·W, the L2 term is missing", r"dW \+= reg \* W"],
    ),
    ("l2-term", DW, DW + 2 * REG * W_REG, {"weights": W_REG, "reg": REG}, [r"−2·reg·W", r"reg·‖W‖²"]),
    ("l2-term", DW + 2 * REG * W_REG, DW + REG * W_REG, {"weights": W_REG, "reg": REG}, [r"reg·W too many"]),
    ("l2-term", DW, DW + REG * W_REG, {"weights": W_REG}, [r"-0\.3·W", r"proportional to W is missing"]),
]


@pytest.mark.parametrize(("code", "actual", "expected", "kwargs", "words"), POSITIVE,
                         ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVE)])
def test_rule_fires_with_an_actionable_message(code, actual, expected, kwargs, words):
    fires(code, actual, expected, kwargs, words)


def test_no_transpose_needs_a_non_symmetric_square_w():
    sym = WSQ + WSQ.T
    assert diagnose(DOUT @ sym, DOUT @ sym.T, weights=sym) is None  # the same array
    assert codes_of(diagnose(DOUT @ WSQ, DX_SQ)) != "no-transpose"  # no weights
    singular = np.ones((M, M))
    assert codes_of(diagnose(DOUT @ singular, DOUT @ singular.T + 1e-3, weights=singular)) != "no-transpose"


def test_no_transpose_from_check_layer_with_a_square_weight():

    def forward(x, w):
        return x @ w, (x, w)

    def backward(dout, cache):
        x, w = cache
        return dout @ w, x.T @ dout  # dx without the transpose

    rng = np.random.default_rng(5)
    with pytest.raises(CheckFailed) as failure:
        check_layer(forward, backward, {"x": rng.standard_normal((3, 4)), "w": rng.standard_normal((4, 4))})
    codes = [codes_of(r.hint) for r in failure.value.results]
    assert codes == ["no-transpose", None]


def test_l2_term_needs_weights_shaped_like_expected():
    assert codes_of(diagnose(DW, DW + REG * W_REG)) != "l2-term"  # no weights
    assert codes_of(diagnose(DW, DW + REG * W_REG + 0.1 * X.T @ DOUT, weights=W_REG)) != "l2-term"
    assert codes_of(diagnose(DW * 0.0 + REG * W_REG, REG * W_REG * 2, weights=W_REG)) == "scale"
    assert "1/2·reg·W" in diagnose(DW + 0.5 * REG * W_REG, DW, weights=W_REG, reg=REG).message
