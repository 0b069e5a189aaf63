"""Tests for grader.numgrad: rel_error and the numerical gradients."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader import (
    ToolkitInputError,
    eval_numerical_gradient,
    eval_numerical_gradient_array,
    grad_check_sparse,
    rel_error,
)

RNG = np.random.default_rng(0)

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), elements=finite)


# ----------------------------------------------------------------------------- rel_error


class TestRelError:
    def test_cs231n_formula(self):
        x = np.array([1.0, 2.0, 0.0])
        y = np.array([1.1, 2.0, 0.0])
        assert rel_error(x, y) == pytest.approx(0.1 / 2.1)

    def test_floor_of_1e_minus_8(self):
        assert rel_error(0.0, 1e-9) == pytest.approx(0.1)
        assert rel_error(0.0, 0.0) == 0.0

    def test_scalars_and_0d_arrays(self):
        assert rel_error(1.0, 1.0) == 0.0
        assert rel_error(np.float64(2.0), np.array(1.0)) == pytest.approx(1 / 3)
        assert rel_error(3, 3.0) == 0.0  # Python ints are exact

    def test_returns_python_float(self):
        assert type(rel_error(np.ones(3), np.ones(3))) is float

    def test_nan_propagates(self):
        assert np.isnan(rel_error(np.array([np.nan, 1.0]), np.ones(2)))

    def test_empty_arrays(self):
        assert rel_error(np.zeros((0, 3)), np.zeros((0, 3))) == 0.0

    def test_shape_mismatch_names_both_shapes(self):
        with pytest.raises(ToolkitInputError, match=r"\(3, 4\).*\(4, 3\)"):
            rel_error(np.ones((3, 4)), np.ones((4, 3)))

    def test_no_broadcasting(self):
        with pytest.raises(ToolkitInputError, match=r"\(3,\).*\(1, 3\)"):
            rel_error(np.ones(3), np.ones((1, 3)))

    @pytest.mark.parametrize(
        ("bad", "words"),
        [
            (np.ones(3, dtype=np.float32), "float32"),
            (np.ones(3, dtype=np.int64), "integer dtype int64"),
            (np.ones(3, dtype=bool), "bool"),
            (None, "None"),
            ((1.0, 2.0), "tuple"),
            ("abc", "str"),
        ],
    )
    def test_refuses_non_float64(self, bad, words):
        with pytest.raises(ToolkitInputError, match=words):
            rel_error(bad, np.ones(3))

    @settings(max_examples=60, deadline=None)
    @given(arrays, st.data())
    def test_properties(self, x, data):
        y = data.draw(hnp.arrays(np.float64, x.shape, elements=finite))
        err = rel_error(x, y)
        assert 0.0 <= err <= 1.0
        assert err == rel_error(y, x)
        assert rel_error(x, x.copy()) == 0.0

    @settings(max_examples=40, deadline=None)
    @given(
        hnp.arrays(np.float64, (5,), elements=st.floats(1e-3, 1e3)),
        st.floats(1e-3, 1e3),
        st.floats(1e-2, 1e6),
    )
    def test_scale_invariant_above_the_floor(self, x, shift, k):
        y = x + shift
        assert rel_error(k * x, k * y) == pytest.approx(rel_error(x, y), rel=1e-9)


# ----------------------------------------------------------------------------- scalar f


class TestEvalNumericalGradient:
    def test_sum_of_squares(self):
        x = RNG.standard_normal((3, 4))
        grad = eval_numerical_gradient(lambda v: np.sum(v**2), x)
        assert grad.shape == x.shape and grad.dtype == np.float64
        assert np.allclose(grad, 2 * x, rtol=1e-8, atol=1e-9)

    def test_sin(self):
        x = RNG.standard_normal(7)
        grad = eval_numerical_gradient(lambda v: float(np.sum(np.sin(v))), x)
        assert np.allclose(grad, np.cos(x), atol=1e-9)

    def test_matrix_product(self):
        a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((4, 5))
        w = RNG.standard_normal((3, 4))
        grad = eval_numerical_gradient(lambda v: np.sum(a @ v @ b), w)
        closed = a.T @ np.ones((2, 5)) @ b.T
        assert rel_error(grad, closed) < 1e-8

    def test_0d_x(self):
        x = np.array(1.5)
        grad = eval_numerical_gradient(lambda v: v**3, x)
        assert grad.shape == () and grad == pytest.approx(3 * 1.5**2, rel=1e-8)

    def test_integer_valued_f_is_fine(self):
        assert np.all(eval_numerical_gradient(lambda v: 3, np.ones(2)) == 0)

    def test_x_unchanged_bit_for_bit(self):
        x = RNG.standard_normal((4, 3)) * 1e3
        before = x.copy()
        eval_numerical_gradient(lambda v: np.sum(np.exp(v / 1e3)), x, h=0.37)
        assert np.array_equal(x.view(np.int64), before.view(np.int64))

    def test_works_on_a_strided_view(self):
        base = RNG.standard_normal((4, 4))
        view = base[:, ::2].T  # non-contiguous
        grad = eval_numerical_gradient(lambda v: np.sum(v**2), view)
        assert np.allclose(grad, 2 * view)

    def test_x_restored_when_f_raises(self):
        x = RNG.standard_normal(5)
        before = x.copy()
        calls = []

        def f(v):
            calls.append(1)
            if len(calls) == 4:
                raise RuntimeError("boom")
            return np.sum(v)

        with pytest.raises(RuntimeError, match="boom"):
            eval_numerical_gradient(f, x)
        assert np.array_equal(x, before)

    def test_f_that_modifies_x_is_refused_and_x_restored(self):
        x = np.array([-1.0, 2.0, -3.0])
        before = x.copy()

        def relu_in_place(v):
            v[v < 0] = 0
            return np.sum(v)

        with pytest.raises(ToolkitInputError, match=r"changed its input x in place.*x\[0\]"):
            eval_numerical_gradient(relu_in_place, x)
        assert np.array_equal(x, before)

    @pytest.mark.parametrize(
        ("f", "words"),
        [
            (lambda v: None, r"returned None.*did you forget `return`\?"),
            (lambda v: (np.sum(v), v), r"tuple of 2 items.*lambda x: f\(x\)\[0\]"),
            (lambda v: v * 2, r"array of shape \(3,\).*eval_numerical_gradient_array"),
            (lambda v: np.ones(1) * np.sum(v), r"shape \(1,\)"),
            (lambda v: np.float32(np.sum(v)), "float32"),
            (lambda v: "1.0", "str"),
            (lambda v: True, "bool"),
            (lambda v: np.nan, r"returned nan at x"),
        ],
    )
    def test_bad_f_outputs(self, f, words):
        x = np.ones(3)
        with pytest.raises(ToolkitInputError, match=words):
            eval_numerical_gradient(f, x)
        assert np.array_equal(x, np.ones(3))

    def test_nan_only_after_a_nudge_says_where(self):
        def f(v):
            with np.errstate(invalid="ignore"):
                return np.sum(np.sqrt(v))

        with pytest.raises(ToolkitInputError, match=r"returned nan with x\[0\] - h"):
            eval_numerical_gradient(f, np.array([1e-6, 1.0]))

    @pytest.mark.parametrize(
        ("x", "words"),
        [
            (np.arange(3), r"integer dtype int64.*astype\(np\.float64\)"),
            (np.ones(3, dtype=np.float32), "float32"),
            ([1.0, 2.0], "NumPy array.*list of 2 items"),
            (2.0, "NumPy array.*the float 2.0"),
            (np.array([1.0, np.nan]), "NaN or inf"),
        ],
    )
    def test_bad_x(self, x, words):
        with pytest.raises(ToolkitInputError, match=words):
            eval_numerical_gradient(lambda v: np.sum(v), x)

    def test_read_only_x(self):
        x = np.ones(3)
        x.flags.writeable = False
        with pytest.raises(ToolkitInputError, match="read-only"):
            eval_numerical_gradient(np.sum, x)

    @pytest.mark.parametrize("h", [0, -1e-5, float("nan"), "1e-5", None])
    def test_bad_h(self, h):
        with pytest.raises(ToolkitInputError, match="h must be a positive number"):
            eval_numerical_gradient(np.sum, np.ones(2), h=h)

    def test_f_not_callable(self):
        with pytest.raises(ToolkitInputError, match="f must be a function"):
            eval_numerical_gradient(np.ones(2), np.ones(2))

    @settings(max_examples=40, deadline=None)
    @given(
        hnp.arrays(
            np.float64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=4), elements=st.floats(-3, 3)
        ),
        st.floats(-2, 2),
        st.floats(-2, 2),
        st.floats(-2, 2),
    )
    def test_polynomials_match_closed_form(self, x, a, b, c):
        def f(v):
            return np.sum(a * v**3 + b * v**2 + c * v)

        grad = eval_numerical_gradient(f, x)
        assert np.allclose(grad, 3 * a * x**2 + 2 * b * x + c, rtol=1e-7, atol=1e-7)


# ----------------------------------------------------------------------------- array f


class TestEvalNumericalGradientArray:
    def test_matrix_product(self):
        x, w = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 5))
        dout = RNG.standard_normal((4, 5))
        grad = eval_numerical_gradient_array(lambda v: x @ v, w, dout)
        assert rel_error(grad, x.T @ dout) < 1e-8

    def test_elementwise(self):
        x, dout = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
        grad = eval_numerical_gradient_array(np.tanh, x, dout)
        assert rel_error(grad, dout * (1 - np.tanh(x) ** 2)) < 1e-7

    def test_f_returning_x_itself(self):
        """f's output aliases x: it must be copied before x is nudged again."""
        x, dout = RNG.standard_normal(4), RNG.standard_normal(4)
        grad = eval_numerical_gradient_array(lambda v: v, x, dout)
        assert np.allclose(grad, dout)

    def test_scalar_output_with_0d_dout(self):
        x = RNG.standard_normal(3)
        grad = eval_numerical_gradient_array(np.sum, x, np.array(2.0))
        assert np.allclose(grad, 2.0)

    def test_x_restored(self):
        x = RNG.standard_normal((3, 2))
        before = x.copy()
        eval_numerical_gradient_array(lambda v: v * 3, x, np.ones((3, 2)))
        assert np.array_equal(x, before)

    def test_dout_shape_mismatch_names_both_shapes(self):
        with pytest.raises(ToolkitInputError, match=r"returned shape \(2, 3\).*dout has shape \(3, 2\)"):
            eval_numerical_gradient_array(lambda v: v * 2, np.ones((2, 3)), np.ones((3, 2)))

    def test_output_shape_changing_between_calls(self):
        calls = []

        def f(v):
            calls.append(1)
            return v if len(calls) < 3 else v[:1]

        with pytest.raises(ToolkitInputError, match=r"shape \(1,\) \(with x\[0\] - h\)"):
            eval_numerical_gradient_array(f, np.ones(2), np.ones(2))

    @pytest.mark.parametrize(
        ("f", "words"),
        [
            (lambda v: None, r"shaped like dout \(2,\), but it returned None.*`return`"),
            (lambda v: (v, {}), r"tuple of 2 items.*\(out, cache\)"),
            (lambda v: v.astype(np.float32), "float32"),
            (lambda v: np.full_like(v, np.inf), "NaN/inf"),
        ],
    )
    def test_bad_f_outputs(self, f, words):
        with pytest.raises(ToolkitInputError, match=words):
            eval_numerical_gradient_array(f, np.ones(2), np.ones(2))

    @pytest.mark.parametrize(
        ("dout", "words"),
        [
            (np.ones(2, dtype=int), "dout must be a float64 array.*integer"),
            (None, "dout must be a float64 array, but got None"),
            (np.array([1.0, np.inf]), "dout must hold finite numbers"),
        ],
    )
    def test_bad_dout(self, dout, words):
        with pytest.raises(ToolkitInputError, match=words):
            eval_numerical_gradient_array(lambda v: v, np.ones(2), dout)


# ----------------------------------------------------------------------------- sparse


class TestGradCheckSparse:
    def test_correct_gradient_small_error(self):
        # Its own seed (not the module's RNG, whose state depends on which tests ran before), and
        # entries away from 0: round-off in f, about eps·|f|/h, is then far below the bar.
        rng = np.random.default_rng(312)
        x = rng.uniform(0.5, 1.5, size=(4, 5)) * rng.choice([-1.0, 1.0], size=(4, 5))
        assert grad_check_sparse(lambda v: np.sum(v**2), x, 2 * x) < 1e-8

    def test_wrong_gradient_large_error(self):
        x = RNG.standard_normal((20, 30))
        assert grad_check_sparse(lambda v: np.sum(v**2), x, x) > 0.3

    def test_seeded_and_restores_x(self):
        x = RNG.standard_normal(50)
        before = x.copy()
        wrong = 2 * x
        wrong[::2] = 0
        errs = [grad_check_sparse(lambda v: np.sum(v**2), x, wrong, seed=3) for _ in range(2)]
        assert errs[0] == errs[1]
        assert np.array_equal(x, before)

    def test_more_checks_than_entries(self):
        x = RNG.standard_normal(3)
        assert grad_check_sparse(lambda v: np.sum(v**2), x, 2 * x, num_checks=100) < 1e-8

    def test_verbose_prints_each_entry(self, capsys):
        x = RNG.standard_normal(4)
        grad_check_sparse(lambda v: np.sum(v**2), x, 2 * x, num_checks=3, verbose=True)
        assert capsys.readouterr().out.count("relative error") == 3

    def test_shape_mismatch(self):
        with pytest.raises(ToolkitInputError, match=r"shape of x, \(3,\).*\(4,\)"):
            grad_check_sparse(np.sum, np.ones(3), np.ones(4))

    @pytest.mark.parametrize("n", [0, -1, 2.5, True])
    def test_bad_num_checks(self, n):
        with pytest.raises(ToolkitInputError, match="num_checks"):
            grad_check_sparse(np.sum, np.ones(3), np.ones(3), num_checks=n)


# ----------------------------------------------------------------------------- in-place edits


def _clip_in_place(v):
    np.minimum(v, 1.0, out=v)  # edits v only when an entry is above 1
    return np.sum(v**2)


class TestInPlaceEditsOnEveryCall:
    """f must leave x alone on every call: the nudged entry is rewritten by the next nudge, so
    an edit of it (or one that happens only for some nudges) is only seen right after the call."""

    def test_edit_of_the_nudged_entry_only(self):
        x = np.array([1.0 - 1e-6, 0.5])
        before = x.copy()
        with pytest.raises(
            ToolkitInputError, match=r"in place when called with x\[0\] \+ h \(x\[0\] went from"
        ):
            eval_numerical_gradient(_clip_in_place, x)
        assert np.array_equal(x, before)

    def test_edit_on_a_later_call_names_that_call(self):
        x = RNG.standard_normal(3)
        calls = []

        def f(v):
            calls.append(1)
            if len(calls) == 5:  # at x, x[0] ± h, x[1] + h, then x[1] - h
                v *= 2
            return np.sum(v)

        with pytest.raises(ToolkitInputError, match=r"with x\[1\] - h \(3 entries changed, e\.g\. x\[0\]"):
            eval_numerical_gradient(f, x)

    def test_array_version(self):
        x = np.array([0.2, 1.0 - 1e-6])

        def f(v):
            np.minimum(v, 1.0, out=v)
            return v * 3

        with pytest.raises(ToolkitInputError, match=r"when called with x\[1\] \+ h"):
            eval_numerical_gradient_array(f, x, np.ones(2))
        assert x[1] == 1.0 - 1e-6

    def test_sparse_version(self):
        x = np.array([1.0 - 1e-6])
        with pytest.raises(ToolkitInputError, match=r"when called with x\[0\] \+ h"):
            grad_check_sparse(_clip_in_place, x, 2 * x)
        assert x[0] == 1.0 - 1e-6

    def test_0d_x_is_named_without_an_index(self):
        x = np.array(1.0 - 1e-6)
        with pytest.raises(ToolkitInputError) as info:
            eval_numerical_gradient(_clip_in_place, x)
        assert "with x + h (x went from" in str(info.value) and "[]" not in str(info.value)

    def test_edit_at_the_first_call_still_says_so(self):
        def relu_in_place(v):
            v[v < 0] = 0
            return np.sum(v)

        with pytest.raises(ToolkitInputError, match=r"when called at x \(2 entries changed"):
            eval_numerical_gradient(relu_in_place, np.array([-1.0, 2.0, -3.0]))

    def test_writing_the_same_values_is_fine(self):
        def relu_in_place(v):
            v[v < 0] = 0  # x has no negative entries, even when nudged
            return np.sum(v**2)

        x = np.array([1.0, 2.0])
        assert np.allclose(eval_numerical_gradient(relu_in_place, x), 2 * x)
