"""grader.lessons.gradient_flow: lesson 07's interactive views and its initialiser check.

The views call functions the student writes; the correct versions below exist only here, in
the tests (grader/ must not contain reference solutions).
"""

import base64
import textwrap
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

matplotlib.use("Agg")

from grader import figure_text  # noqa: E402
from grader.errors import CheckFailed  # noqa: E402
from grader.lessons.gradient_flow import (  # noqa: E402
    DeadReluTrainer,
    GradientFlowExplorer,
    LiveFigure,
    NotReady,
    SaturationExplorer,
    call_student,
    check_init_variance,
)

PNG = b"\x89PNG\r\n\x1a\n"


def sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


ACTIVATIONS = {
    "sigmoid": (sigmoid, lambda z: sigmoid(z) * (1 - sigmoid(z))),
    "tanh": (np.tanh, lambda z: 1 - np.tanh(z) ** 2),
    "relu": (lambda z: np.maximum(z, 0.0), lambda z: (z > 0).astype(np.float64)),
    "leaky_relu": (lambda z: np.where(z > 0, z, 0.01 * z), lambda z: np.where(z > 0, 1.0, 0.01)),
}


def xavier_init(fan_in, fan_out, rng):
    return rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out)), size=(fan_in, fan_out))


def he_init(fan_in, fan_out, rng):
    return rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))


def dead_fraction(pre):
    return float(np.mean(np.all(pre <= 0, axis=0)))


def layer_gradient_norms(weights, x, dout, activation="tanh", residual=False):
    act, slope = ACTIVATIONS[activation]
    hs, zs = [x], []
    for w in weights:
        zs.append(hs[-1] @ w)
        hs.append(act(zs[-1]) + hs[-1] if residual else act(zs[-1]))
    norms, dh = np.zeros(len(weights)), dout
    for i in reversed(range(len(weights))):
        dz = dh * slope(zs[i])
        norms[i] = np.linalg.norm(hs[i].T @ dz)
        dh = dz @ weights[i].T + (dh if residual else 0.0)
    return norms


def unfinished(*args):
    raise NotImplementedError()


def explorer(**overrides):
    funcs = {"xavier_init": xavier_init, "he_init": he_init, "dead_fraction": dead_fraction,
             "layer_gradient_norms": layer_gradient_norms}
    funcs.update({k: v for k, v in overrides.items() if k in funcs})
    options = {k: v for k, v in overrides.items() if k not in funcs}
    return GradientFlowExplorer(ACTIVATIONS, **funcs, **options)


class FakeHandle:
    def __init__(self):
        self.images = []

    def update(self, obj, metadata=None):
        self.images.append(obj.data)


# ----------------------------------------------------------------------------- call_student


def test_call_student_turns_failures_into_not_ready():
    assert call_student(lambda a, b: a + b, "add", 1, 2) == 3
    with pytest.raises(NotReady, match="xavier_init is not written yet"):
        call_student(unfinished, "xavier_init")
    with pytest.raises(NotReady, match="he_init raised ZeroDivisionError: division by zero"):
        call_student(lambda: 1 / 0, "he_init")


def test_call_student_silences_numpy_warnings(recwarn):
    assert np.isinf(call_student(lambda: np.exp(np.float64(1000.0)), "overflow"))
    assert not recwarn.list


# ----------------------------------------------------------------------------- the explorer


def test_explorer_default_shows_vanishing_sigmoid_gradients():
    ex = explorer()
    png, text = ex.render()
    assert png.startswith(PNG)
    state = ex.compute(**ex.values())
    assert state["norms"].shape == (20,)
    assert state["norms"][0] / state["norms"][-1] < 1e-9  # 20 sigmoid layers, Xavier
    assert "‖dW<sub>1</sub>‖ / ‖dW<sub>20</sub>‖" in text and "saturated" in text
    np.testing.assert_allclose(state["norms"], layer_gradient_norms(
        ex.weights(20, 64, "xavier", 1.0), *_batch(ex, 64), "sigmoid", False))


def _batch(ex, width):
    data = np.random.default_rng([ex.seed, 0])
    return data.standard_normal((ex.batch, width)), data.standard_normal((ex.batch, width))


def test_explorer_relu_reports_dead_units_from_the_students_function():
    seen = []

    def spy(pre):
        seen.append(pre.shape)
        return dead_fraction(pre)

    ex = explorer(dead_fraction=spy)
    _, text = ex.render({"activation": "relu", "init": "he", "depth": 12, "width": 32})
    assert seen == [(64, 32)] * 12
    assert "units never positive on the batch (dead for ReLU)" in text and "saturated" not in text


def test_explorer_normal_init_uses_the_scale_and_never_calls_the_initialisers():
    ex = explorer(xavier_init=unfinished, he_init=unfinished)
    state = ex.compute(depth=3, width=16, activation="tanh", init="normal", scale=0.5, residual=False)
    assert state["norms"] is not None
    weights = ex.weights(3, 16, "normal", 0.5)
    assert abs(np.std(np.concatenate([w.ravel() for w in weights])) - 0.5) < 0.05


def test_explorer_says_which_function_is_missing_and_keeps_what_it_can():
    ex = explorer(layer_gradient_norms=unfinished, dead_fraction=unfinished)
    png, text = ex.render({"activation": "relu", "init": "he"})
    assert png.startswith(PNG)
    assert text.count("✗") == 2
    assert "layer_gradient_norms is not written yet" in text and "dead_fraction is not written yet" in text
    assert "activation std" in text  # the forward statistics need no student function

    ex = explorer(xavier_init=unfinished)
    png, text = ex.render()  # the default init is Xavier: nothing can be drawn
    assert png.startswith(PNG) and text.startswith("<b>✗</b> xavier_init is not written yet")
    assert ex.render({"init": "he"})[1].startswith("‖dW")  # back to normal afterwards


def test_explorer_reports_bad_return_values():
    ex = explorer(layer_gradient_norms=lambda *a: [1.0, 2.0], he_init=lambda i, o, r: np.zeros((o, i + 1)))
    _, text = ex.render({"depth": 5})
    assert "expected one norm per layer, shape (5,)" in text
    _, text = ex.render({"init": "he"})
    assert "he_init(64, 64, rng) returned an array of shape (64, 65)" in text


def test_explorer_survives_overflow():
    ex = explorer()
    png, text = ex.render({"depth": 50, "activation": "relu", "init": "normal", "scale": 2.0})
    assert png.startswith(PNG) and "units never positive" in text


def test_explorer_scale_slider_is_enabled_only_for_the_normal_init():
    ex = explorer()
    assert ex.controls["scale"].disabled
    ex.controls["init"].value = "normal"
    assert not ex.controls["scale"].disabled


def test_moving_a_control_redraws_the_displayed_picture():
    ex = explorer()
    ex.area.handle = FakeHandle()
    assert all(c.continuous_update is False for c in ex.controls.values() if hasattr(c, "continuous_update"))
    before = ex.numbers.value
    ex.controls["depth"].value = 21
    assert ex.updates == 1 and len(ex.area.handle.images) == 1
    assert ex.area.handle.images[0].startswith(PNG)
    assert ex.numbers.value != before and "updated in" in ex.numbers.value
    assert "‖dW<sub>21</sub>‖" in ex.numbers.value


def test_time_updates_leaves_the_display_alone():
    ex = explorer()
    ex.area.handle = FakeHandle()
    times = ex.time_updates([{"depth": 5}, {"depth": 10, "residual": True}])
    assert set(times) == {"cpu_ms", "wall_ms"} and len(times["cpu_ms"]) == 2
    assert all(t > 0 for t in times["wall_ms"])
    assert ex.area.handle.images == [] and ex.controls["depth"].value == 20


# ----------------------------------------------------------------------------- saturation


def test_saturation_products_stay_under_the_ceiling():
    view = SaturationExplorer(*ACTIVATIONS["sigmoid"])
    assert view.controls["scale"].continuous_update is True  # cheap: it may follow the drag
    for scale in (0.1, 1.0, 10.0):
        state = view.compute(scale=scale, depth=12)
        assert state["products"].shape == (12, 2000)
        assert np.all(state["products"] <= 0.25 ** np.arange(1, 13)[:, None] * (1 + 1e-12))
    narrow = np.median(view.compute(scale=0.1, depth=5)["products"][-1])
    wide = np.median(view.compute(scale=10.0, depth=5)["products"][-1])
    assert wide < narrow * 1e-3  # saturation: a wide spread of z kills the product
    png, text = view.render({"scale": 5.0, "depth": 30})
    assert png.startswith(PNG) and "ceiling 4<sup>-30</sup>" in text


# ----------------------------------------------------------------------------- dead ReLUs


def test_trainer_runs_are_deterministic_and_prefixes_of_longer_runs():
    trainer = DeadReluTrainer(he_init=he_init, dead_fraction=dead_fraction)
    short = trainer.train(5.0, 40)
    long = trainer.train(5.0, 80)
    again = DeadReluTrainer(he_init=he_init, dead_fraction=dead_fraction).train(5.0, 80)
    np.testing.assert_array_equal(long["losses"][:41], short["losses"])
    np.testing.assert_array_equal(long["losses"], again["losses"])
    np.testing.assert_array_equal(long["dead"], again["dead"])
    assert long["losses"].shape == long["dead"].shape == (81,)


def test_a_large_learning_rate_kills_units_a_small_one_does_not():
    trainer = DeadReluTrainer(he_init=he_init, dead_fraction=dead_fraction)
    assert trainer.train(0.5, 100)["dead"][-1] == 0.0
    assert trainer.train(8.0, 100)["dead"][-1] > 0.5
    assert trainer.train(2.0, 100)["accuracy"] > 0.9


def test_trainer_counts_dead_units_with_the_students_function():
    calls = []

    def spy(pre):
        calls.append(pre.shape)
        return dead_fraction(pre)

    trainer = DeadReluTrainer(he_init=he_init, dead_fraction=spy, hidden=20)
    trainer.train(1.0, 10)
    assert calls == [(300, 20)] * 11


def test_trainer_explains_what_is_missing():
    png, text = DeadReluTrainer(he_init=unfinished, dead_fraction=dead_fraction).render()
    assert png.startswith(PNG) and "he_init is not written yet" in text
    _, text = DeadReluTrainer(he_init=he_init, dead_fraction=lambda p: 3).render()
    assert "dead_fraction returned the int 3; expected one number in [0, 1]" in text
    _, text = DeadReluTrainer(he_init=he_init, dead_fraction=dead_fraction, lr=5.0, steps=50).render()
    assert text.startswith("learning rate 5, 50 steps:") and "at 0.5: 0% dead" in text


# ----------------------------------------------------------------------------- in a kernel


def test_in_a_kernel_the_picture_is_a_plain_output_and_a_control_updates_it():
    """As a notebook runs it: controls (with a kernel-less text form), then the PNG by itself."""
    setup = textwrap.dedent(
        """
        import numpy as np
        from grader.lessons.gradient_flow import SaturationExplorer

        def sigmoid(z):
            return 0.5 * (1.0 + np.tanh(0.5 * z))

        view = SaturationExplorer(sigmoid, lambda z: sigmoid(z) * (1 - sigmoid(z)))
        view
        """
    )
    move = "view.controls['depth'].value = 20\nprint(view.updates, 'updated in' in view.numbers.value)"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell(move)]
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()

    outputs = nb.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data"] * 3
    widget, picture, words = outputs
    assert "application/vnd.jupyter.widget-view+json" in widget.data
    assert widget.data["text/plain"] == LiveFigure.plain_text
    assert nb.cells[1].outputs[0].text == "1 True\n"
    # The second cell moved a slider: its update replaced the first cell's picture in place.
    import matplotlib as mpl

    from grader import figure_style

    with mpl.rc_context({"axes.prop_cycle": figure_style.cycle()}):  # the kernel's lines, drawn here
        view = SaturationExplorer(*ACTIVATIONS["sigmoid"])
    assert base64.b64decode(picture.data["image/png"]) == view.render({"depth": 20})[0]
    assert base64.b64decode(picture.data["image/png"]) != view.render({"depth": 10})[0]
    # and its Figure in words, with it (JupyterLab shows a PNG without its alt text)
    view.render({"depth": 20})
    assert picture.metadata["image/png"]["alt"] == view.alt
    assert words.data["text/markdown"] == figure_text.in_words(view.alt)["text/markdown"]


# ----------------------------------------------------------------------------- the check


def test_check_init_variance_accepts_any_distribution_with_the_right_variance(capsys):
    rng = np.random.default_rng(0)
    limit = np.sqrt(6 / 500)
    off = check_init_variance("uniform(400, 100)", rng.uniform(-limit, limit, (400, 100)), 400, 100,
                              2 / 500, "2/(fan_in + fan_out)")
    assert off < 0.05
    assert capsys.readouterr().out.startswith("✓ uniform(400, 100)  variance")
    # A float in every use, but shown as nothing when it is a cell's last value: the ✓ line says it all.
    from IPython.core.formatters import DisplayFormatter

    assert isinstance(off, float) and DisplayFormatter().format(off) == ({}, {})


def test_check_initialiser_names_the_scheme_and_keeps_its_variance_out_of_the_lesson(capsys):
    from grader.lessons.gradient_flow import check_initialiser
    from grader.lessons.gradient_flow.steady_variance import init_variance_reference

    rng = np.random.default_rng(1)
    check_initialiser("xavier", "xavier_init(400, 100)", xavier_init(400, 100, rng), 400, 100, normal=True)
    assert "Xavier's variance" in capsys.readouterr().out
    with pytest.raises(CheckFailed):  # He's weights are not Xavier's
        check_initialiser("xavier", "xavier_init(400, 100)", he_init(400, 100, rng), 400, 100)
    with pytest.raises(ValueError, match="kind must be 'xavier' or 'he', not 'lecun'"):
        check_initialiser("lecun", "init(4, 4)", np.zeros((4, 4)), 4, 4)
    # the lesson's cells (both editions) call the check by the scheme's name: the variance, the
    # answer of xavier_init, he_init and steady_variances, is never shown nor importable there
    for folder in ("exercises", "exercises/pt"):
        path = Path(__file__).resolve().parents[2] / folder / "07_gradient_flow" / "07_gradient_flow.ipynb"
        cells = nbformat.read(path, as_version=4).cells
        assert not any(init_variance_reference.__name__ in cell.source for cell in cells), folder


def test_weights_of_zeros_are_told_in_words_not_by_a_division_by_zero(capsys):
    from grader.errors import CheckFailed

    with pytest.raises(CheckFailed):
        check_init_variance("zeros(400, 100)", np.zeros((400, 100)), 400, 100, 2 / 400, "2/fan_in")
    assert "more than ten times too small" in capsys.readouterr().out


@pytest.mark.parametrize(
    "std, formula, expected, hint",
    [
        (np.sqrt(1 / 400), "2/(fan_in + fan_out)", 2 / 500, "matches 1/fan_in"),
        (np.sqrt(2 / 100), "2/fan_in", 2 / 400, "matches 2/fan_out"),
        (2 / 400, "2/fan_in", 2 / 400, "the variance was used as the standard deviation"),
        (np.sqrt(6 / 500), "2/(fan_in + fan_out)", 2 / 500, "U(−a, a) has variance a²/3"),
        (1.0, "2/fan_in", 2 / 400, "unscaled standard normal"),
        (0.3, "2/fan_in", 2 / 400, "no usual formula gives this variance"),
    ],
)
def test_check_init_variance_names_the_formula_a_wrong_sample_matches(std, formula, expected, hint, capsys):
    weights = np.random.default_rng(1).normal(0.0, std, size=(400, 100))
    with pytest.raises(CheckFailed, match="needs < 5%") as failed:
        check_init_variance("init(400, 100)", weights, 400, 100, expected, formula)
    out = capsys.readouterr().out
    assert out.startswith("✗ init(400, 100)  variance") and hint in out
    # The line says in which direction and, in words, how far; never the variance asked for
    # (derived), nor the factor (with the sample's variance it would name that variance).
    assert f"= {expected:.4g}" not in out and "times too" in out
    factor = max(weights.var() / expected, expected / weights.var())
    assert f"{factor:.2g} times" not in out
    # The printed hint line and the CheckFailed message both carry the hint, as every check's do.
    (line,) = [line for line in out.splitlines() if line.strip().startswith("Hint:")]
    assert line.endswith("[init-variance]") and hint in line
    assert "[init-variance]" in str(failed.value) and hint in str(failed.value)


@pytest.mark.parametrize(
    "variances, words",
    [
        ({"forward": 1.0, "backward": 1.0, "relu_forward": 1.0}, "grows more than tenfold"),
        ({"forward": 1 / 400, "backward": 1 / 100, "relu_forward": 1 / 400}, "shrinks substantially"),
        ({"forward": 1.1 / 400, "backward": 1 / 100, "relu_forward": 2 / 400}, "grows slightly"),
    ],
)
def test_check_gains_says_how_far_off_in_words_never_the_factor(variances, words, capsys):
    from grader.lessons.gradient_flow.steady_variance import check_gains, measured_gains

    gains = measured_gains(variances, 400, 100)
    with pytest.raises(CheckFailed, match=words):
        check_gains(variances, gains, 400, 100)
    out = capsys.readouterr().out
    assert words in out
    # A placeholder v and its measured factor would name the right v: no factor is printed.
    off = [gain for gain in gains.values() if abs(gain - 1) > 0.02]
    assert not any(f"{gain:.3g}" in out or f"{gain:.2g}" in out for gain in off)


def test_check_gains_passes_the_steady_variances(capsys):
    from grader.lessons.gradient_flow.steady_variance import check_gains, measured_gains

    right = {"forward": 1 / 400, "backward": 1 / 100, "relu_forward": 2 / 400}
    check_gains(right, measured_gains(right, 400, 100), 400, 100)
    out = capsys.readouterr().out
    assert out.count("✓") == 3 and "✗" not in out


@pytest.mark.parametrize(
    "weights, message",
    [
        (None, "got None"),
        (np.zeros((100, 400)), "it is transposed"),
        (np.zeros((40, 10)), "make it size=(fan_in, fan_out) = (400, 100)"),
        (np.random.default_rng(2).normal(0, 0.05, (400, 100)).astype(np.float32), "dtype float32"),
        (np.full((400, 100), np.nan), "NaN or inf"),
        (np.random.default_rng(3).normal(0.5, 0.063, (400, 100)), "mean 0.5"),
    ],
)
def test_check_init_variance_rejects_unusable_arrays(weights, message, capsys):
    with pytest.raises(CheckFailed):
        check_init_variance("init(400, 100)", weights, 400, 100, 2 / 500, "2/(fan_in + fan_out)")
    assert message in capsys.readouterr().out


# ------------------------------------------------------------ the exercises' checks and their hints

from grader import Exercise, Exercises  # noqa: E402
from grader.lessons.gradient_flow import checks, steady_variance  # noqa: E402


def _graded(**functions):
    """The functions as the notebook's declaration calls them (graded.<name>)."""
    namespace = dict(functions)
    return Exercises(namespace, *(Exercise(name) for name in functions))


def _residual(skip):
    def residual_layer_backward(dout, z, h_in, w, activation):
        dz = dout * ACTIVATIONS[activation][1](z)
        return dz @ w.T + skip(dout, dz), h_in.T @ dz
    return residual_layer_backward


def _residual_case(skip):
    rng = np.random.default_rng(5)
    h_in, w, dout = rng.normal(size=(5, 5)), 0.8 * rng.normal(size=(5, 5)), rng.normal(size=(5, 5))
    fn = _graded(residual_layer_backward=_residual(skip)).residual_layer_backward
    return lambda: checks.check_residual_layer("tanh", fn, dout, h_in, w, "tanh")


def _norms_case(edit, activation="relu", residual=True):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 5))
    weights = [0.5 * rng.normal(size=(5, 5)) for _ in range(4)]
    dout = rng.normal(size=(4, 5))

    def wrong(weights, x, dout, activation="tanh", residual=False):
        return edit(weights, x, dout, activation, residual)

    fn = _graded(layer_gradient_norms=wrong).layer_gradient_norms
    return lambda: checks.check_norms("norms", fn, weights, x, dout, activation, residual)


def _slope_at_output(weights, x, dout, activation, residual):
    act, slope = ACTIVATIONS[activation]
    hs = [x]
    for w in weights:
        hs.append(act(hs[-1] @ w) + hs[-1] if residual else act(hs[-1] @ w))
    norms, dh = np.zeros(len(weights)), dout
    for i in reversed(range(len(weights))):
        dz = dh * slope(hs[i + 1])
        norms[i] = np.linalg.norm(hs[i].T @ dz)
        dh = dz @ weights[i].T + (dh if residual else 0.0)
    return norms


def _dw_from_output(weights, x, dout, activation, residual):
    act, slope = ACTIVATIONS[activation]
    hs, zs = [x], []
    for w in weights:
        zs.append(hs[-1] @ w)
        hs.append(act(zs[-1]) + hs[-1] if residual else act(zs[-1]))
    norms, dh = np.zeros(len(weights)), dout
    for i in reversed(range(len(weights))):
        dz = dh * slope(zs[i])
        norms[i] = np.linalg.norm(hs[i + 1].T @ dz)
        dh = dz @ weights[i].T + (dh if residual else 0.0)
    return norms


def _dead_case(fraction, pre):
    fn = _graded(dead_fraction=fraction).dead_fraction
    return lambda: checks.check_dead("dead fraction", fn, np.array(pre, dtype=np.float64))


_ZEROS = [[0.0, 0.0, -1.0, 0.0], [0.0, 1e-9, 0.0, -2.0], [-2.0, 0.0, 0.0, 0.0]]
_FIVE = [[-1.0, 2.0, -0.5, -3.0, -0.2], [-2.0, -1.0, -0.1, 0.5, -0.3], [-0.5, 3.0, -2.0, -1.0, -4.0]]


def _carried_case():
    def carried_gradient_norms(W_hh, g, steps):
        out, carried = [], g
        for _ in range(steps):
            carried = W_hh @ carried
            out.append(np.linalg.norm(carried) / np.linalg.norm(g))
        return np.array(out)

    rng = np.random.default_rng(9)
    W_hh, g = 0.6 * rng.normal(size=(4, 4)), rng.normal(size=4)
    fn = _graded(carried_gradient_norms=carried_gradient_norms).carried_gradient_norms
    return lambda: checks.check_carried("ratios", fn, W_hh, g, 6)


def _centring_case():
    rng = np.random.default_rng(7)
    weights = [rng.normal(size=(4, 4)) for _ in range(3)]
    biases = [np.zeros(4)] + [-0.5 * w.sum(axis=1) for w in weights[1:]]
    return lambda: checks.check_centring_biases("z", biases, 1, weights, rng.uniform(0, 1, size=(6, 4)))


def _gains_case(variances):
    def run():
        steady_variance.show_gain_hints(steady_variance.measured_gains(variances, 400, 100), 400, 100)
        raise CheckFailed("the check_close lines of the cell would fail here")
    return run


#: code -> a function that prints that code's hint (and raises): one example per lesson-07 code, for
#: tests/lessons/test_lesson_messages_pt.py (EXAMPLES) too.
HINT_EXAMPLES = {
    "residual-no-skip": _residual_case(lambda dout, dz: 0.0),
    "residual-skip-slope": _residual_case(lambda dout, dz: dz),
    "residual-skip-twice": _residual_case(lambda dout, dz: 2 * dout),
    "norms-reversed": _norms_case(lambda *a: layer_gradient_norms(*a)[::-1]),
    "norms-slope-at-output": _norms_case(_slope_at_output, "tanh", False),
    "norms-dw-from-output": _norms_case(_dw_from_output, "tanh", False),
    "norms-plain-network": _norms_case(lambda w, x, d, a, r: layer_gradient_norms(w, x, d, a, False)),
    "dead-per-input": _dead_case(lambda pre: float(np.mean(np.all(pre <= 0, axis=1))), _FIVE),
    "dead-alive-share": _dead_case(lambda pre: float(np.mean(np.any(pre > 0, axis=0))), _FIVE),
    "dead-entry-share": _dead_case(lambda pre: float(np.mean(pre <= 0)), _FIVE),
    "dead-count": _dead_case(lambda pre: float(np.sum(np.all(pre <= 0, axis=0))), _FIVE),
    "dead-zero-alive": _dead_case(lambda pre: float(np.mean(np.all(pre < 0, axis=0))), _ZEROS),
    "carried-no-transpose": _carried_case(),
    "centring-row-sums": _centring_case(),
    "steady-relu-half": _gains_case({"forward": 1 / 400, "backward": 1 / 100, "relu_forward": 1 / 400}),
    "steady-fans-swapped": _gains_case({"forward": 1 / 100, "backward": 1 / 400, "relu_forward": 2 / 400}),
}
#: (code, failing example) for the tests that need one example per code (tests/lessons/__init__.py).
POSITIVE = list(HINT_EXAMPLES.items())


def test_every_code_of_the_lesson_has_an_example():
    assert set(HINT_EXAMPLES) == set(checks.HINT_CODES) | set(steady_variance.HINT_CODES)


@pytest.mark.parametrize("code", sorted(HINT_EXAMPLES))
def test_a_known_mistake_gets_its_hint_and_no_other(code, capsys):
    with pytest.raises(CheckFailed) as failed:
        HINT_EXAMPLES[code]()
    out = capsys.readouterr().out
    tagged = [line for line in out.splitlines() if line.rstrip().endswith("]") and "Hint:" in line]
    assert [line.rsplit("[", 1)[1].rstrip("]") for line in tagged] == [code], out
    if code in checks.SLIPS:   # the CheckFailed carries it too (what the grading feedback shows)
        assert f"[{code}]" in str(failed.value)


def test_the_right_answers_pass(capsys):
    rng = np.random.default_rng(5)
    h_in, w, dout = rng.normal(size=(5, 5)), 0.8 * rng.normal(size=(5, 5)), rng.normal(size=(5, 5))
    graded = _graded(residual_layer_backward=_residual(lambda dout, dz: dout), dead_fraction=dead_fraction,
                     layer_gradient_norms=layer_gradient_norms)
    for activation in ACTIVATIONS:
        checks.check_residual_layer(activation, graded.residual_layer_backward, dout, h_in, w, activation)
    checks.check_dead("dead fraction", graded.dead_fraction, np.array(_ZEROS))
    weights = [0.5 * rng.normal(size=(5, 5)) for _ in range(4)]
    x, d = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    for residual in (False, True):
        checks.check_norms("norms", graded.layer_gradient_norms, weights, x, d, "tanh", residual)
        got = graded.layer_gradient_norms(weights, x, d, "tanh", residual)
        want = checks.numerical_norms(weights, x, d, "tanh", residual)
        checks.check_norms_value("norms", got, want, weights, x, d, "tanh", residual)
    assert "✗" not in capsys.readouterr().out


def test_a_dead_fraction_check_adds_no_generic_guess(capsys):
    with pytest.raises(CheckFailed):
        _dead_case(lambda pre: 0.123, _ZEROS)()
    assert "Hint" not in capsys.readouterr().out
