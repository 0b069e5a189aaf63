"""Tests for grader.checks: output format, failures, hints and check_layer's safety nets."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from grader import (
    BadReturnValue,
    CheckFailed,
    CheckResult,
    ToolkitInputError,
    check_close,
    check_gradient,
    check_layer,
    eval_numerical_gradient_array,
)

RNG = np.random.default_rng(1)


def make_inputs(n=5, d=(2, 3), m=4, seed=0):
    rng = np.random.default_rng(seed)
    dim = int(np.prod(d))
    return {
        "x": rng.standard_normal((n, *d)),
        "w": rng.standard_normal((dim, m)),
        "b": rng.standard_normal(m),
    }


# ----------------------------------------------------------------------------- layers


def affine_forward(x, w, b):
    out = x.reshape(x.shape[0], -1) @ w + b
    return out, (x, w, b)


def affine_backward(dout, cache):
    x, w, _ = cache
    dx = (dout @ w.T).reshape(x.shape)
    dw = x.reshape(x.shape[0], -1).T @ dout
    db = dout.sum(axis=0)
    return dx, dw, db


def affine_backward_db_mean(dout, cache):
    dx, dw, _ = affine_backward(dout, cache)
    return dx, dw, dout.mean(axis=0)


def affine_backward_no_transpose(dout, cache):
    x, w, b = cache
    dx, _, db = affine_backward(dout, cache)
    return dx, dout.T @ x.reshape(x.shape[0], -1), db


def affine_backward_dx_zero(dout, cache):
    dx, dw, db = affine_backward(dout, cache)
    return np.zeros_like(dx), dw, db


def affine_backward_two(dout, cache):
    return affine_backward(dout, cache)[:2]


def affine_backward_none(dout, cache):
    affine_backward(dout, cache)


def relu_forward(x):
    return np.maximum(x, 0), x


def relu_backward(dout, cache):
    return dout * (cache > 0)


def relu_backward_no_mask(dout, cache):
    return dout.copy()


def relu_forward_in_place(x):
    x[x < 0] = 0
    return x.copy(), x


def relu_backward_in_place(dout, cache):
    dout[cache <= 0] = 0
    return dout


def leaky_relu_forward(x, alpha):
    return np.where(x > 0, x, alpha * x), (x, alpha)


def leaky_relu_backward(dout, cache):
    x, alpha = cache
    return (np.where(x > 0, dout, alpha * dout),)


# ----------------------------------------------------------------------------- check_close


class TestCheckClose:
    def test_pass_prints_a_tick_line(self, capsys):
        x = RNG.standard_normal((3, 4))
        result = check_close("out", x + 1e-12, x)
        assert result == CheckResult("out", True, pytest.approx(result.rel_error), None)
        assert result.rel_error < 1e-10
        out = capsys.readouterr().out
        assert out.startswith("✓ out  relative error ")
        assert out.count("\n") == 1

    def test_fail_prints_line_and_hint_then_raises(self, capsys):
        db = RNG.standard_normal(4)
        with pytest.raises(CheckFailed) as info:
            check_close("db", db / 5, db, batch_size=5)
        lines = capsys.readouterr().out.splitlines()
        assert lines[0] == "✗ db  relative error 6.7e-01 (needs < 1e-07)"
        assert lines[1].startswith("    Hint: your db is 1/5 of the expected one, and 5 is the ")
        assert lines[1].endswith("  [sum-vs-mean]")
        assert isinstance(info.value, AssertionError)
        message = str(info.value)
        assert "\n" not in message and "db" in message and "[sum-vs-mean]" in message
        [result] = info.value.results
        assert not result.passed and result.hint.code == "sum-vs-mean"

    def test_fail_without_hint_prints_no_hint_line(self, capsys):
        with pytest.raises(CheckFailed):
            check_close("out", RNG.standard_normal(6), RNG.standard_normal(6))
        assert "Hint" not in capsys.readouterr().out

    @pytest.mark.parametrize(
        ("tol", "shown"), [(1e-7, "1e-07"), (5e-8, "5e-08"), (1.5e-7, "1.5e-07"), (0.01, "1e-02")]
    )
    def test_tolerance_is_shown(self, capsys, tol, shown):
        with pytest.raises(CheckFailed):
            check_close("x", np.ones(2), 2 * np.ones(2), tol=tol)
        assert f"(needs < {shown})" in capsys.readouterr().out

    def test_custom_tol_passes(self):
        assert check_close("x", np.ones(2) * (1 + 1e-5), np.ones(2), tol=1e-4).passed

    def test_shape_mismatch_is_a_failed_check_with_transpose_hint(self, capsys):
        w = RNG.standard_normal((3, 4))
        with pytest.raises(CheckFailed, match=r"shape \(4, 3\), expected \(3, 4\)"):
            check_close("dw", w.T, w)
        out = capsys.readouterr().out
        assert "✗ dw  shape (4, 3), expected (3, 4)" in out and "[transpose]" in out

    def test_none_is_a_failed_check(self, capsys):
        with pytest.raises(CheckFailed):
            check_close("dx", None, np.ones(3))
        out = capsys.readouterr().out
        assert "✗ dx  got None, expected an array of shape (3,)" in out
        assert "forget `return`" in out

    def test_float32_fails_even_when_close(self, capsys):
        x = RNG.standard_normal(5)
        with pytest.raises(CheckFailed):
            check_close("out", x.astype(np.float32), x, tol=1e-3)
        out = capsys.readouterr().out
        assert "✗ out  dtype float32, needs float64" in out and "[dtype]" in out

    def test_nan_fails(self, capsys):
        with pytest.raises(CheckFailed):
            check_close("p", np.array([np.nan, 1.0]), np.ones(2))
        assert "relative error nan" in capsys.readouterr().out

    def test_mask_hint(self, capsys):
        x = RNG.standard_normal((4, 5))
        dout = RNG.standard_normal((4, 5))
        with pytest.raises(CheckFailed):
            check_close("dx", dout, dout * (x > 0), mask=x > 0)
        assert "[mask]" in capsys.readouterr().out

    @pytest.mark.parametrize(
        ("kwargs", "words"),
        [
            ({"expected": np.ones(3, dtype=int)}, r"expected must be a float64 array"),
            ({"expected": np.array([np.nan, 1, 1])}, r"expected must hold finite"),
            ({"tol": 0}, r"tol must be a positive number"),
            ({"tol": "1e-7"}, r"tol must be a positive number"),
            ({"name": ""}, r"name must be a non-empty string"),
            ({"batch_size": -1}, r"batch_size"),
            ({"mask": np.ones(2, dtype=bool)}, r"mask must have the shape of expected"),
        ],
    )
    def test_bad_arguments(self, kwargs, words):
        args = {"name": "x", "actual": np.ones(3), "expected": np.ones(3)} | kwargs
        with pytest.raises(ToolkitInputError, match=words):
            check_close(**args)


# ----------------------------------------------------------------------------- check_gradient


class TestCheckGradient:
    def test_scalar_function_passes(self, capsys):
        x = RNG.standard_normal((3, 2))
        result = check_gradient("dx", lambda v: np.sum(v**2), x, 2 * x)
        assert result.passed and capsys.readouterr().out.startswith("✓ dx  relative error")

    def test_scalar_function_fails_with_scale_hint(self, capsys):
        x = RNG.standard_normal((3, 2))
        with pytest.raises(CheckFailed, match=r"\[scale\]"):
            check_gradient("dx", lambda v: np.sum(v**2), x, x)
        assert "1/2 of the expected one" in capsys.readouterr().out

    def test_array_function_with_dout(self):
        x, dout = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
        assert check_gradient("dx", np.tanh, x, dout * (1 - np.tanh(x) ** 2), dout=dout).passed

    def test_batch_size_inferred_from_dout(self, capsys):
        x, w = RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4))
        b = RNG.standard_normal(4)
        dout = RNG.standard_normal((5, 4))
        with pytest.raises(CheckFailed):
            check_gradient("db", lambda v: x @ w + v, b, dout.mean(axis=0), dout=dout)
        assert "5 is the batch size" in capsys.readouterr().out

    def test_x_restored(self):
        x = RNG.standard_normal(4)
        before = x.copy()
        check_gradient("dx", lambda v: np.sum(np.sin(v)), x, np.cos(x))
        assert np.array_equal(x, before)

    def test_f_returning_none(self):
        with pytest.raises(ToolkitInputError, match=r"returned None.*`return`"):
            check_gradient("dx", lambda v: None, np.ones(2), np.ones(2))

    def test_dout_shape_mismatch(self):
        with pytest.raises(ToolkitInputError, match=r"\(2,\).*\(3,\)"):
            check_gradient("dx", lambda v: v, np.ones(2), np.ones(2), dout=np.ones(3))

    def test_float32_x(self):
        with pytest.raises(ToolkitInputError, match="float32"):
            check_gradient("dx", np.sum, np.ones(2, dtype=np.float32), np.ones(2))


# ----------------------------------------------------------------------------- check_layer


class TestCheckLayer:
    def test_correct_affine_passes(self, capsys):
        inputs = make_inputs()
        originals = {k: v.copy() for k, v in inputs.items()}
        results = check_layer(affine_forward, affine_backward, inputs)
        assert [r.name for r in results] == ["dx", "dw", "db"]
        assert all(r.passed and r.rel_error < 1e-8 and r.hint is None for r in results)
        lines = capsys.readouterr().out.splitlines()
        assert [line[:5] for line in lines] == ["✓ dx ", "✓ dw ", "✓ db "]
        for key, value in inputs.items():
            assert np.array_equal(value, originals[key])

    def test_db_averaged_gives_sum_vs_mean(self, capsys):
        with pytest.raises(CheckFailed) as info:
            check_layer(affine_forward, affine_backward_db_mean, make_inputs())
        out = capsys.readouterr().out
        assert "✓ dx" in out and "✓ dw" in out and "✗ db  relative error" in out
        assert "1/5 of the expected one, and 5 is the batch size" in out
        assert str(info.value).startswith("affine_backward_db_mean: db relative error")
        assert [r.passed for r in info.value.results] == [True, True, False]

    def test_missing_transpose_gives_transpose_hint(self, capsys):
        with pytest.raises(CheckFailed, match=r"\[transpose\]"):
            check_layer(affine_forward, affine_backward_no_transpose, make_inputs())
        out = capsys.readouterr().out
        assert "✗ dw  shape (4, 6), expected (6, 4)" in out
        assert "transpose" in out

    def test_missing_transpose_with_square_weights(self, capsys):
        with pytest.raises(CheckFailed, match=r"\[transpose\]"):
            check_layer(affine_forward, affine_backward_no_transpose, make_inputs(d=(4,)))

    def test_dx_zeroed_gives_zero_hint(self, capsys):
        with pytest.raises(CheckFailed, match=r"\[zero\]"):
            check_layer(affine_forward, affine_backward_dx_zero, make_inputs())
        assert "your dx is all zeros" in capsys.readouterr().out

    def test_backward_returning_too_few_arrays(self):
        with pytest.raises(BadReturnValue) as info:
            check_layer(affine_forward, affine_backward_two, make_inputs())
        assert str(info.value) == "affine_backward_two returned 2 arrays, expected 3: (dx, dw, db)"
        assert isinstance(info.value, CheckFailed) and isinstance(info.value, ToolkitInputError)

    def test_backward_returning_none(self):
        with pytest.raises(BadReturnValue, match=r"returned None, expected 3 arrays: \(dx, dw, db\)"):
            check_layer(affine_forward, affine_backward_none, make_inputs())

    def test_backward_returning_one_array_for_three_inputs(self):
        with pytest.raises(BadReturnValue, match=r"returned an array of shape \(5, 2, 3\).*3 arrays"):
            check_layer(affine_forward, lambda d, c: affine_backward(d, c)[0], make_inputs())

    def test_backward_returning_one_gradient_wrong(self, capsys):
        with pytest.raises(CheckFailed, match=r"\[none\]"):
            check_layer(affine_forward, lambda d, c: (*affine_backward(d, c)[:2], None), make_inputs())

    def test_one_input_single_array_or_tuple(self):
        x = {"x": RNG.standard_normal((4, 5))}
        assert check_layer(relu_forward, relu_backward, x)[0].passed
        assert check_layer(relu_forward, lambda d, c: (relu_backward(d, c),), x)[0].passed

    def test_masks_give_the_mask_hint(self, capsys):
        x = RNG.standard_normal((4, 5))
        with pytest.raises(CheckFailed, match=r"\[mask\]"):
            check_layer(relu_forward, relu_backward_no_mask, {"x": x}, masks={"x": x > 0})
        assert "where it is False" in capsys.readouterr().out

    def test_forward_modifying_its_input_fails_clearly(self, capsys):
        x = RNG.standard_normal((4, 5))
        before = x.copy()
        with pytest.raises(CheckFailed, match=r"relu_forward_in_place changed its input x in place"):
            check_layer(relu_forward_in_place, relu_backward, {"x": x})
        out = capsys.readouterr().out
        assert "✓ dx" in out  # the gradient itself is still checked, on protected copies
        assert np.array_equal(x, before)

    def test_backward_modifying_dout_fails_clearly(self, capsys):
        x = RNG.standard_normal((4, 5))
        with pytest.raises(CheckFailed, match=r"relu_backward_in_place changed dout in place"):
            check_layer(relu_forward, relu_backward_in_place, {"x": x})
        assert "✓ dx" in capsys.readouterr().out

    @pytest.mark.parametrize(
        ("forward", "backward_from_input", "words"),
        [
            (lambda x: (np.tanh(x), x), lambda d, x: d * (1 - x**2), "tanh slope"),
            (lambda x: (1 / (1 + np.exp(-x)), x), lambda d, x: d * x * (1 - x), "sigmoid slope"),
        ],
    )
    def test_slope_taken_from_the_input(self, capsys, forward, backward_from_input, words):
        x = {"x": RNG.standard_normal((3, 4))}
        with pytest.raises(CheckFailed, match=r"\[slope-from-input\]"):
            check_layer(forward, backward_from_input, x)
        assert words in capsys.readouterr().out

    def test_correct_tanh_layer_passes(self):
        def tanh_forward(x):
            out = np.tanh(x)
            return out, out

        results = check_layer(
            tanh_forward, lambda d, out: d * (1 - out**2), {"x": RNG.standard_normal((3, 4))}
        )
        assert results[0].passed

    def test_extra_args(self):
        x = {"x": RNG.standard_normal((3, 4))}
        results = check_layer(leaky_relu_forward, leaky_relu_backward, x, extra_args=(0.1,))
        assert results[0].passed

    def test_seed_changes_dout_deterministically(self, capsys):
        inputs = make_inputs()
        a = check_layer(affine_forward, affine_backward, inputs, seed=1)
        b = check_layer(affine_forward, affine_backward, inputs, seed=1)
        assert [r.rel_error for r in a] == [r.rel_error for r in b]

    def test_random_forward_is_refused(self):
        def dropout_forward(x):
            mask = np.random.default_rng().random(x.shape) > 0.5
            return x * mask, mask

        with pytest.raises(BadReturnValue, match="different outputs for the same inputs"):
            check_layer(dropout_forward, lambda d, m: d * m, {"x": RNG.standard_normal((3, 3))})

    @pytest.mark.parametrize(
        ("forward", "words"),
        [
            (lambda x: None, r"returned None, expected \(out, cache\)"),
            (lambda x: x * 2, r"must return \(out, cache\), but it returned an array"),
            (lambda x: (x.astype(np.float32), x), r"out has dtype float32"),
            (lambda x: (None, x), r"out = None"),
        ],
    )
    def test_bad_forward_returns(self, forward, words):
        with pytest.raises(BadReturnValue, match=words):
            check_layer(forward, relu_backward, {"x": np.ones((2, 2))})

    @pytest.mark.parametrize(
        ("inputs", "words"),
        [
            ({}, "non-empty dict"),
            ([np.ones(2)], "non-empty dict"),
            ({"x": np.ones(2, dtype=np.float32)}, r"inputs\['x'\] must be a float64 array"),
            ({"x": np.arange(2)}, r"inputs\['x'\].*integer"),
            ({"x": [1.0, 2.0]}, r"inputs\['x'\] must be a float64 NumPy array"),
            ({"x": np.array([np.inf, 1.0])}, r"finite"),
        ],
    )
    def test_bad_inputs(self, inputs, words):
        with pytest.raises(ToolkitInputError, match=words):
            check_layer(relu_forward, relu_backward, inputs)

    @pytest.mark.parametrize(
        ("kwargs", "words"),
        [
            ({"seed": -1}, "seed must be a non-negative int"),
            ({"seed": 1.5}, "seed must be a non-negative int"),
            ({"masks": {"y": np.ones(2, dtype=bool)}}, r"masks has the key 'y'.*'x'"),
            ({"masks": {"x": np.ones(3, dtype=bool)}}, r"mask must have the shape.*\(2,\)"),
            ({"masks": [np.ones(2, dtype=bool)]}, "masks must be a dict"),
            ({"tol": -1.0}, "tol must be a positive number"),
        ],
    )
    def test_bad_options(self, kwargs, words):
        with pytest.raises(ToolkitInputError, match=words):
            check_layer(relu_forward, relu_backward, {"x": np.ones(2)}, **kwargs)

    def test_dout_differs_from_an_input_drawn_with_the_same_seed(self):
        """x from default_rng(0) and dout from seed=0 must differ, or x-for-dout bugs pass."""
        x = np.random.default_rng(0).standard_normal((4, 5))
        with pytest.raises(CheckFailed, match=r"\[mask\]"):
            check_layer(relu_forward, lambda d, c: c * (c > 0), {"x": x}, masks={"x": x > 0})

    def test_bad_extra_args_and_functions(self):
        with pytest.raises(ToolkitInputError, match="extra_args must be a tuple"):
            check_layer(leaky_relu_forward, leaky_relu_backward, {"x": np.ones(2)}, extra_args=0.1)
        with pytest.raises(ToolkitInputError, match="forward must be a function"):
            check_layer(None, relu_backward, {"x": np.ones(2)})


# ----------------------------------------------------------------------------- tracebacks


def _frames(exc: BaseException) -> list[str]:
    tb, names = exc.__traceback__, []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return names


@pytest.mark.parametrize(
    "call",
    [
        lambda: check_close("db", np.ones(3) / 5, np.ones(3), batch_size=5),
        lambda: check_layer(affine_forward, affine_backward_two, make_inputs()),
        lambda: check_gradient("dx", lambda v: None, np.ones(2), np.ones(2)),
        lambda: check_close("x", np.ones(3), np.ones(3, dtype=int)),
    ],
)
def test_failures_show_a_single_hidden_toolkit_frame(call):
    with pytest.raises((CheckFailed, ToolkitInputError)) as info:
        call()
    toolkit = [f for f in _frames(info.value) if "/grader/" in f]
    assert len(toolkit) == 1
    tb = info.value.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    assert tb.tb_frame.f_locals.get("__tracebackhide__") is True


def test_student_frames_are_kept():
    def forward(x):
        raise ZeroDivisionError("student bug")

    with pytest.raises(ZeroDivisionError) as info:
        check_layer(forward, relu_backward, {"x": np.ones(2)})
    assert any(f == __file__ for f in _frames(info.value)[1:])


def test_ipython_traceback_hides_toolkit_internals():
    ultratb = pytest.importorskip("IPython.core.ultratb")
    try:
        check_close("db", np.ones(3) / 5, np.ones(3), batch_size=5)
    except CheckFailed:
        etype, value, tb = sys.exc_info()
    try:
        formatter = ultratb.FormattedTB(mode="Context", theme_name="nocolor")
    except TypeError:  # IPython < 9
        formatter = ultratb.FormattedTB(mode="Context", color_scheme="NoColor")
    text = "\n".join(formatter.structured_traceback(etype, value, tb))
    assert "grader/checks.py" not in text and "grader/hints/" not in text
    assert "sum-vs-mean" in text


# ----------------------------------------------------------------------------- hint context


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


class TestHintContext:
    """check_close / check_gradient pass upstream, layer_input, layer_output, kind to the hints."""

    @pytest.mark.parametrize(
        ("forward", "slope_from_input", "words"),
        [
            (np.tanh, lambda x: 1 - x**2, "tanh slope from the layer's input, 1 − x²"),
            (_sigmoid, lambda x: x * (1 - x), "sigmoid slope from the layer's input, x·(1 − x)"),
        ],
    )
    def test_check_close_slope_from_input(self, capsys, forward, slope_from_input, words):
        x, dout = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
        out = forward(x)
        expected = eval_numerical_gradient_array(forward, x, dout)
        context = {"upstream": dout, "layer_input": x, "layer_output": out}
        with pytest.raises(CheckFailed, match=r"\[slope-from-input\]"):
            check_close("dx", dout * slope_from_input(x), expected, **context)
        assert words in capsys.readouterr().out
        assert check_close("dx", dout * slope_from_input(out), expected, tol=1e-6, **context).passed

    def test_check_gradient_slope_from_input_with_dout_as_upstream(self, capsys):
        x, dout = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
        out = _sigmoid(x)
        with pytest.raises(CheckFailed, match=r"\[slope-from-input\]"):
            check_gradient("dx", _sigmoid, x, dout * x * (1 - x), dout=dout, layer_input=x, layer_output=out)
        assert "out·(1 − out)" in capsys.readouterr().out

    def test_relu_mask_from_dout(self, capsys):
        x, dout = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
        with pytest.raises(CheckFailed, match=r"\[mask-from-dout\]"):
            check_close("dx", dout * (dout > 0), dout * (x > 0), upstream=dout)
        assert "the ReLU mask comes from the forward input" in capsys.readouterr().out
        with pytest.raises(CheckFailed, match=r"\[mask-from-dout\]"):
            check_gradient("dx", lambda v: np.maximum(v, 0), x, np.maximum(dout, 0), dout=dout)
        with pytest.raises(CheckFailed, match=r"\[mask-from-dout\]"):
            check_layer(relu_forward, lambda d, c: d * (d > 0), {"x": x})

    def test_check_gradient_wrong_axis_from_dout(self, capsys):
        x, w = RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4))
        b, dout = RNG.standard_normal(4), RNG.standard_normal((5, 4))
        with pytest.raises(CheckFailed, match=r"\[wrong-axis\]"):
            check_gradient("db", lambda v: x @ w + v, b, dout.sum(axis=1), dout=dout)
        out = capsys.readouterr().out
        assert "✗ db  shape (5,), expected (4,)" in out and "summed over axis 1" in out

    def test_check_gradient_missing_relu_mask_on_the_bias(self, capsys):
        x, w = RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4))
        b, dout = RNG.standard_normal(4), RNG.standard_normal((5, 4))
        with pytest.raises(CheckFailed, match=r"\[unmasked-upstream\]"):
            check_gradient("db1", lambda v: np.maximum(x @ w + v, 0), b, dout.sum(axis=0), dout=dout)
        assert "a ReLU mask" in capsys.readouterr().out
        mask = (x @ w + b) > 0
        check_gradient("db1", lambda v: np.maximum(x @ w + v, 0), b, (dout * mask).sum(axis=0), dout=dout)

    def test_explicit_upstream_overrides_dout(self):
        x, dout = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
        with pytest.raises(CheckFailed) as info:
            check_gradient(
                "dx",
                lambda v: np.maximum(v, 0),
                x,
                np.maximum(dout, 0),
                dout=dout,
                upstream=RNG.standard_normal((4, 5)),
            )
        assert info.value.results[0].hint is None or info.value.results[0].hint.code != "mask-from-dout"

    def test_kind_from_the_name_and_explicit(self, capsys):
        scores = RNG.standard_normal((5, 4)) + 0.76
        with pytest.raises(CheckFailed, match=r"\[zero\]"):
            check_close("scores", np.full((5, 4), 1e-6), scores)
        out = capsys.readouterr().out
        assert "never computed" in out and "np.zeros" not in out and "+=" not in out
        with pytest.raises(CheckFailed, match=r"\[zero\]"):
            check_close("scores", np.zeros((5, 4)), scores, kind="gradient")
        assert "no gradient reaches it" in capsys.readouterr().out
        with pytest.raises(CheckFailed, match=r"\[zero\]"):
            check_close("regularisation term of the loss", 0.0, 4.36)
        out = capsys.readouterr().out
        assert "is 0 but the expected one is 4.36" in out and "[]" not in out

    def test_check_gradient_is_always_about_a_gradient(self, capsys):
        with pytest.raises(CheckFailed, match=r"\[zero\]"):
            check_gradient("its value", lambda v: np.sum(v**2), np.ones(3), np.zeros(3))
        assert "no gradient reaches it" in capsys.readouterr().out

    def test_check_layer_one_hot_columns(self, capsys):
        y = np.array([0, 2, 2, 1])

        def softmax_forward(scores):
            e = np.exp(scores - scores.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
            return np.array(-np.log(p[np.arange(len(y)), y]).mean()), p

        p = softmax_forward(RNG.standard_normal((4, 3)))[1]
        dx = p.copy()
        dx[:, y] -= 1
        expected = p.copy()
        expected[np.arange(4), y] -= 1
        with pytest.raises(CheckFailed, match=r"\[one-hot-index\]"):
            check_close("dx", dx / 4, expected / 4, batch_size=4)
        with pytest.raises(CheckFailed, match=r"\[one-hot-term\]"):
            check_close("dx", p / 4, expected / 4, batch_size=4)
        assert "1/N with N = 4" in capsys.readouterr().out

    @pytest.mark.parametrize(
        ("kwargs", "words"),
        [
            ({"kind": "grad"}, r"kind must be None, 'gradient' or 'value'"),
            ({"upstream": np.ones(3, dtype=np.float32)}, r"upstream must be a float64"),
            ({"upstream": np.array([np.nan, 1.0])}, r"upstream must hold finite"),
            ({"layer_input": np.ones(3)}, r"layer_output must be a float64 array, but got None"),
            ({"layer_input": np.ones(3), "layer_output": np.ones(2)}, r"layer_output must have the shape"),
        ],
    )
    def test_bad_context_is_refused_even_when_the_check_passes(self, kwargs, words):
        with pytest.raises(ToolkitInputError, match=words):
            check_close("x", np.ones(3), np.ones(3), **kwargs)

    def test_check_gradient_bad_layer_shapes(self):
        with pytest.raises(ToolkitInputError, match=r"layer_input must have the shape of expected, \(3,\)"):
            check_gradient(
                "dx", np.sum, np.ones(3), np.ones(3), layer_input=np.ones(2), layer_output=np.ones(2)
            )

    def test_forward_with_nan_output_names_the_general_causes(self):
        def exp_forward(x):
            return np.exp(1000 * x) * 0.0, x

        with np.errstate(over="ignore", invalid="ignore"), pytest.raises(BadReturnValue) as info:
            check_layer(exp_forward, relu_backward, {"x": np.ones(2)})
        assert "exp(−|x|)" in str(info.value) and "log(0)" in str(info.value)


class TestInPlaceEdits:
    def test_f_clipping_x_only_when_nudged_is_caught(self, capsys):
        x = np.array([1.0 - 1e-6, 0.5, -2.0])

        def clip_in_place(v):
            np.minimum(v, 1.0, out=v)  # changes v only when x[0] is nudged up past 1
            return np.sum(v**2)

        with pytest.raises(
            ToolkitInputError, match=r"changed its input x in place when called with x\[0\] \+ h"
        ):
            check_gradient("dx", clip_in_place, x, 2 * x)
        assert np.array_equal(x, np.array([1.0 - 1e-6, 0.5, -2.0]))
        assert capsys.readouterr().out == ""  # nothing compared, nothing printed

    def test_array_f_editing_x_later_is_caught(self):
        x, dout = RNG.standard_normal(4), RNG.standard_normal(4)
        calls = []

        def f(v):
            calls.append(1)
            if len(calls) == 6:
                v[3] = 0.0
            return v * 2

        with pytest.raises(ToolkitInputError, match=r"when called with x\[2\] \+ h \(x\[3\] went from"):
            check_gradient("dx", f, x, 2 * dout, dout=dout)


def test_check_result_adds_no_out_line_in_a_notebook() -> None:
    """A check as the last line of a cell must not add an `Out[n]: CheckResult(...)` line."""
    import nbformat
    from nbclient import NotebookClient

    source = "import numpy as np\nfrom grader import check_close\ncheck_close('x', np.ones(2), np.ones(2))"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    # one output: the check's line as text, with its hints (none) as data for the class report
    assert [o.output_type for o in outputs] == ["display_data"], outputs
    assert "✓ x" in outputs[0].data["text/plain"]
