"""grader.hints as a whole: every code documented and produced, no hint for right or random
answers (with every context), the arguments checked, the wording."""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path

import numpy as np
import pytest

from grader import HINT_CODES, Hint, ToolkitInputError, diagnose
from grader.hints import is_gradient_name
from grader.lessons import hint_codes
from grader.lessons.gradient_flow.init_variance import HINT_CODE
from tests.lessons import lesson_positives
from tests.lessons.test_dropout_check import DROPOUT_POSITIVE
from tests.toolkit.hints.fixtures import (
    DB,
    DOUT,
    DSQ,
    DW,
    DX,
    DX3,
    DX_SQ,
    REG,
    RELU_DX,
    RELU_LAYER,
    RELU_SLOPE,
    RNG2,
    RNG3,
    SIG_LAYER,
    SIG_SLOPE,
    SM_DX,
    TANH_LAYER,
    TANH_SLOPE,
    TX,
    W_REG,
    WSQ,
    N,
    codes_of,
)
from tests.toolkit.hints.test_conv import CONV1, CONV1_RIGHT, POOL2, POOL2_RIGHT
from tests.toolkit.hints.test_lstm import SEQ, SEQ_RIGHT, STEP, STEP_RIGHT
from tests.toolkit.hints.test_norm import BN, BN_RIGHT, LN, LN_RIGHT, RUN, RUN_RIGHT, TEST, TEST_RIGHT
from tests.toolkit.hints.test_optim import ADAM, ADAM_RIGHT, RMSP, RMSP_RIGHT, SGDM, SGDM_RIGHT
from tests.toolkit.hints.test_rnn import RNN_P, RNN_RIGHT, RNN_STEP, RNN_STEP_P, rnn_backward
from tests.toolkit.test_by_hand import POSITIVE as BY_HAND_POSITIVE
from tests.toolkit.test_exercise import POSITIVE as EXERCISE_POSITIVE


def _positive_codes() -> set[str]:
    """The codes of every POSITIVE example of tests/toolkit/hints/, and of the lessons' checkers."""
    found = {d[0] for d in DROPOUT_POSITIVE} | {HINT_CODE}  # HINT_CODE: tests/lessons/test_gradient_flow
    found |= {code for code, _ in BY_HAND_POSITIVE}  # tests/toolkit/test_by_hand.py
    found |= {code for code, _ in EXERCISE_POSITIVE}  # tests/toolkit/test_exercise.py
    found |= {code for code, _ in lesson_positives()}  # POSITIVE of every tests/lessons/test_*.py
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        module = importlib.import_module(f"tests.toolkit.hints.{path.stem}")
        found |= {p[0] for p in getattr(module, "POSITIVE", [])}
    return found


def test_every_code_is_documented_and_tested():
    lessons = hint_codes()  # the lessons' own checkers declare theirs in their packages
    assert not set(lessons) & set(HINT_CODES), "a lesson declares a code the toolkit has"
    assert _positive_codes() == set(HINT_CODES) | set(lessons)
    for code, description in {**HINT_CODES, **lessons}.items():
        assert code == code.lower() and " " not in code
        assert description and "\n" not in description


def test_every_rule_is_registered_once_in_its_module():
    from grader import hints

    ranks = [rank for module in hints.MODULES for rank, _ in getattr(module, "RULES", ())]
    assert len(ranks) == len(set(ranks)), "two generic rules share a rank"
    problem_rules = [rule for p in hints.PROBLEMS.values()
                     for rule in (*p.rules, *p.shape_rules, *p.non_finite_rules)]
    assert not set(problem_rules) & set(hints.GENERIC_RULES), "a rule is both a problem's and generic"
    for module in hints.MODULES:  # every code a module lists is its own: no code in two modules
        others = {c for m in hints.MODULES if m is not module for c in m.CODES}
        assert not set(module.CODES) & others, module.__name__


def test_hint_is_a_frozen_dataclass():
    hint = Hint("sign", "flip it")
    assert str(hint) == "flip it  [sign]"
    with pytest.raises(dataclasses.FrozenInstanceError):
        hint.code = "scale"  # type: ignore[misc]


def test_default_name():
    assert diagnose(-DX, DX).message.startswith("your answer has")


CASES = [(), (1,), (2,), (3,), (2, 2), (3, 3), (4,), (3, 4), (5, 3), (2, 3, 4), (2, 1)]


@pytest.mark.parametrize("shape", CASES)
def test_correct_answers_give_none(shape):
    rng = np.random.default_rng(len(shape))
    for _ in range(20):
        expected = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 6)
        noise = 1e-9 * np.max(np.abs(expected)) * rng.standard_normal(shape)
        mask = rng.random(shape) > 0.5
        batch = shape[0] if shape else None
        for actual in (expected.copy(), expected + noise):
            assert diagnose(actual, expected) is None
            assert diagnose(actual, expected, batch_size=batch, mask=mask, upstream=DOUT) is None


def test_zero_expected_and_zero_actual_is_correct():
    assert diagnose(np.zeros(3), np.zeros(3)) is None
    assert diagnose(0.0, 0.0) is None


@pytest.mark.parametrize("shape", CASES)
def test_random_arrays_get_no_confident_diagnosis(shape):
    rng = np.random.default_rng(100 + len(shape))
    for trial in range(150):
        expected = rng.standard_normal(shape)
        actual = rng.standard_normal(shape)
        kwargs = {}
        if shape and trial % 2:
            kwargs["batch_size"] = shape[0]
        if trial % 3 == 0:
            kwargs["mask"] = rng.random(shape) > 0.5
        assert diagnose(actual, expected, **kwargs) is None


def test_relu_like_random_gradient_only_gets_factual_hints():
    """Same zeros as expected, random elsewhere: at most 'right on this side of the mask'."""
    rng = np.random.default_rng(7)
    for _ in range(100):
        mask = rng.random((4, 5)) > 0.5
        expected = rng.standard_normal((4, 5)) * mask
        actual = rng.standard_normal((4, 5)) * mask
        assert codes_of(diagnose(actual, expected)) in (None, "partial", "mask")
        assert codes_of(diagnose(actual, expected, mask=mask)) in (None, "partial", "mask")


def test_tolerance_is_relative_to_scale():
    for scale in (1e-12, 1.0, 1e12):
        assert codes_of(diagnose(-DX * scale, DX * scale)) == "sign"
        assert diagnose(DX * scale * (1 + 1e-9), DX * scale) is None


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"expected": np.ones(3, dtype=int)}, r"expected must be a float64 array.*integer"),
        ({"expected": np.ones(3, dtype=np.float32)}, r"expected must be a float64.*float32"),
        ({"expected": None}, r"expected must be a float64 array, but got None"),
        ({"expected": np.array([1.0, np.nan, 0.0])}, r"expected must hold finite numbers"),
        ({"mask": np.ones(3, dtype=int)}, r"mask must be a boolean array.*x > 0"),
        ({"mask": np.ones((3, 1), dtype=bool)}, r"mask must have the shape of expected, \(3,\).*\(3, 1\)"),
        ({"batch_size": 0}, r"batch_size must be None or a positive int"),
        ({"batch_size": 2.0}, r"batch_size must be None or a positive int"),
        ({"batch_size": True}, r"batch_size"),
        ({"upstream": np.ones(3, dtype=np.float32)}, r"upstream must be a float64"),
        ({"layer_input": np.ones(2), "layer_output": np.ones(3)}, r"layer_input must have the shape"),
        ({"layer_input": np.ones(3)}, r"layer_output must be a float64 array, but got None"),
    ],
)
def test_bad_arguments(kwargs, words):
    args = {"expected": np.ones(3)} | kwargs
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(np.zeros(3), **args)


def test_expected_may_be_a_python_number_or_list():
    assert codes_of(diagnose(-1.0, 1.0)) == "sign"
    assert codes_of(diagnose([-1.0, -2.0], [1.0, 2])) == "sign"


@pytest.mark.parametrize("shape", [(5, 4), (4, 4), (3, 2, 2), (6,)])
def test_random_arrays_with_every_context_get_no_diagnosis(shape):
    rng = np.random.default_rng(sum(shape))
    for _ in range(60):
        expected, actual = rng.standard_normal(shape), rng.standard_normal(shape)
        context = {
            "upstream": rng.standard_normal(shape),
            "layer_input": rng.standard_normal(shape),
            "layer_output": rng.standard_normal(shape),
            "mask": rng.random(shape) > 0.5,
            "batch_size": shape[0],
        }
        assert diagnose(actual, expected, **context) is None
        assert diagnose(actual, expected, upstream=rng.standard_normal((3, *shape))) is None


def test_correct_answers_with_every_context_give_none():
    for expected, up in ((RELU_DX, DOUT), (SM_DX, DOUT), (DX3, DOUT), (DB, DOUT), (DSQ.sum(0), DSQ)):
        noisy = expected + 1e-10 * RNG2.standard_normal(expected.shape)
        assert diagnose(noisy, expected, upstream=up, batch_size=N) is None


def test_scalars_are_printed_without_an_index():
    pairs = [(1.5, 0.0), (0.0, 4.36), (1e-9, 4.36), (2.0001, 2.0), (np.nan, 2.0), (np.inf, 2.0)]
    for actual, expected in pairs:
        for name in ("dL/dx", "loss"):
            hint = diagnose(actual, expected, name=name)
            assert hint is not None and "[]" not in hint.message, (actual, expected, hint)
    assert "is 1.5" in diagnose(1.5, 0.0, name="dx").message
    assert "expected 2, got 2.0001" in diagnose(2.0001, 2.0).message


def test_close_numbers_get_enough_digits():
    message = diagnose(np.array([1.0, 2.0001]), np.array([1.0, 2.0])).message
    assert "expected 2, got 2.0001" in message


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("dx", "gradient"),
        ("dW2 (N=5) vs PyTorch", "gradient"),
        ("dL/dx", "gradient"),
        ("d(a * a)/da at a = 3", "gradient"),
        ("relu dx for x of shape (3, 4)", "gradient"),
        ("regularisation term of dW1", "gradient"),
        ("w.grad after two backward() calls", "gradient"),
        ("slope of exp(x) at x = 1", "gradient"),
        ("dout", "gradient"),
        ("out", "value"),
        ("scores (N=5)", "value"),
        ("loss", "value"),
        ("regularisation term of the loss", "value"),
        ("difference", "value"),
        ("dropout mask", "value"),
    ],
)
def test_kind_from_the_name(name, kind):
    assert is_gradient_name(name) == (kind == "gradient")
    message = diagnose(0.0, 4.36, name=name).message
    assert ("no gradient reaches it" in message) == (kind == "gradient")  # worded for one number
    assert ("never computed" in message) == (kind == "value")


def test_bad_kind():
    with pytest.raises(ToolkitInputError, match=r"kind must be None, 'gradient' or 'value'.*'grad'"):
        diagnose(np.zeros(3), np.ones(3), kind="grad")
    with pytest.raises(ToolkitInputError, match=r"kind must be"):
        diagnose(np.zeros(3), np.ones(3), kind=1)


NEW_CONTEXTS = [  # (expected, context) of every rule of issue 13: the right answer gets no hint
    (DOUT * TANH_SLOPE, TANH_LAYER),
    (DOUT * SIG_SLOPE, SIG_LAYER),
    (DOUT * RELU_SLOPE, RELU_LAYER),
    (DOUT * RELU_SLOPE, {"mask": TX > 0}),
    (DX_SQ, {"weights": WSQ}),
    (DW, {"upstream": DOUT}),
    (DW + REG * W_REG, {"weights": W_REG, "reg": REG}),
    *[(RNN_RIGHT[k], {"problem": {"rnn": RNN_P}}) for k in RNN_RIGHT],
    *[(v[:, 0] if k == "dx" else v, {"problem": {"rnn": RNN_STEP}})
      for k, v in rnn_backward(RNN_STEP_P).items()],
    *[(BN_RIGHT[k], {"problem": {"norm": BN}}) for k in BN_RIGHT],
    *[(LN_RIGHT[k], {"problem": {"norm": LN}}) for k in LN_RIGHT],
    (TEST_RIGHT, {"problem": {"norm_test": TEST}}),
    (RUN_RIGHT, {"problem": {"running": RUN}}),
    (SGDM_RIGHT, {"problem": {"optim": SGDM}}),
    (RMSP_RIGHT, {"problem": {"optim": RMSP}}),
    (ADAM_RIGHT, {"problem": {"optim": ADAM}}),
    *[(SEQ_RIGHT[k], {"problem": {"lstm": SEQ}}) for k in SEQ_RIGHT],
    *[(STEP_RIGHT[k], {"problem": {"lstm": STEP}}) for k in STEP_RIGHT],
    *[(CONV1_RIGHT[k], {"problem": {"conv": CONV1}}) for k in CONV1_RIGHT],
    *[(POOL2_RIGHT[k], {"problem": {"pool": POOL2}}) for k in POOL2_RIGHT],
]


@pytest.mark.parametrize(("expected", "context"), NEW_CONTEXTS)
def test_new_rules_give_the_right_answer_no_hint(expected, context):
    noisy = expected + 1e-10 * RNG3.standard_normal(expected.shape)
    assert diagnose(expected.copy(), expected, name="dx", **context) is None
    assert diagnose(noisy, expected, name="dx", **context) is None


@pytest.mark.parametrize(("expected", "context"), NEW_CONTEXTS)
def test_new_rules_stay_silent_on_unrelated_arrays(expected, context):
    rng = np.random.default_rng(expected.size)
    for _ in range(30):
        actual = rng.standard_normal(expected.shape)
        assert codes_of(diagnose(actual, expected, **context)) is None
        # right zeros, wrong elsewhere: at most the factual hints
        perturbed = expected * (1 + 0.1 * actual)
        assert codes_of(diagnose(perturbed, expected, **context)) in (None, "partial", "mask")


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"weights": np.ones((2, 2))}, r"weights must be a matrix W shaped like expected, \(3,\)"),
        ({"weights": np.ones(3, dtype=int)}, r"weights must be a float64 array"),
        ({"reg": -1.0}, r"reg must be None or a number ≥ 0"),
        ({"reg": "0.1"}, r"reg must be None or a number ≥ 0"),
        ({"problem": {"rnn": {"x": np.ones((2, 3))}}}, r"rnn must be a dict with x, h0, Wx, Wh, b, dh"),
        ({"problem": {"rnn": RNN_P | {"h0": np.ones((2, 2))}}}, r"the arrays of rnn do not fit together"),
        # the problem is one dict {name: its dict}, the name one of PROBLEMS
        ({"problem": "lstm"}, r"problem must be None or a dict with one key, the kind of problem \(rnn"),
        ({"problem": {"lstmm": {}}}, r"problem must be None or a dict with one key.*but got a dict with the "
                                     r"key\(s\) 'lstmm'"),
        ({"problem": {"rnn": RNN_P, "norm": {}}}, r"problem must be None or a dict with one key"),
        ({"rnn": RNN_P}, r"unknown keyword argument\(s\) rnn: the hint keywords are batch_size.*"
                         r"rnn is a problem: pass problem=\{'rnn': \{...\}\}"),
        ({"batchsize": 3}, r"unknown keyword argument\(s\) batchsize: the hint keywords are batch_size"),
        ({"shape": (3,)}, r"unknown keyword argument\(s\) shape: the hint keywords are batch_size"),
        ({"problem": {}}, r"problem must be None or a dict with one key.*but got an empty dict"),
    ],
)
def test_bad_new_arguments(kwargs, words):
    with pytest.raises(ToolkitInputError, match=words):
        diagnose(np.zeros(3), np.ones(3), **kwargs)
