"""The lesson helpers' messages in Portuguese (domain grader_lessons): checks, hints, widgets, figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from grader import CheckFailed  # noqa: E402
from grader.i18n import set_language  # noqa: E402
from grader.instructor import messages  # noqa: E402
from grader.lessons import hint_codes  # noqa: E402
from grader.lessons.deep_nets.dropout_check import check_dropout  # noqa: E402
from grader.lessons.gradient_flow.init_variance import check_init_variance  # noqa: E402
from grader.lessons.two_layer_net.plots import plot_loss  # noqa: E402
from tests.lessons import lesson_positives  # noqa: E402
from tests.lessons.test_dropout_check import DROPOUT_POSITIVE  # noqa: E402

#: The lessons' own codes (their packages' HINT_CODES), and a guard of the toolkit that prints its
#: hint through a lesson-like check (grader/hints/guards.py).
CODES = {*hint_codes(), "forbidden-call"}


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    set_language(None)


def _dropout_case(case):
    _code, out, x, p, mode, _words = case
    return lambda: check_dropout("out", out, x, p, mode)


def _init_variance():
    weights = np.random.default_rng(1).normal(0.0, 1.0, size=(400, 100))
    check_init_variance("init(400, 100)", weights, 400, 100, 2 / 400, "2/fan_in")


def _torch_in_numpy_exercise():
    import torch

    from grader import Exercise, Exercises

    namespace = {"softmax": lambda x: torch.from_numpy(x).exp().numpy()}
    Exercises(namespace, Exercise("softmax")).softmax(np.ones(3))


#: code -> a function that fails with that code's hint (one example per code)
EXAMPLES = {
    **{case[0]: _dropout_case(case) for case in reversed(DROPOUT_POSITIVE)},
    **dict(lesson_positives()),
    "init-variance": _init_variance,
    "forbidden-call": _torch_in_numpy_exercise,
}


def _hint_text(run, code: str, capsys, language: str | None) -> str:
    """The text of the hint line tagged [code] that `run` prints, without its prefix and tag."""
    set_language(language)
    with pytest.raises(Exception):  # noqa: B017 - CheckFailed, ForbiddenCall
        run()
    lines = [line for line in capsys.readouterr().out.splitlines() if line.rstrip().endswith(f"[{code}]")]
    assert lines, f"no hint line tagged [{code}]"
    text = lines[-1].rstrip()[: -len(f"[{code}]")].strip()
    return text.split(":", 1)[1].strip() if language is None else text


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_lesson_hint_code_has_a_portuguese_message(code, capsys):
    assert code in EXAMPLES, f"no example produces {code}: add one to EXAMPLES"
    english = _hint_text(EXAMPLES[code], code, capsys, None)
    portuguese = _hint_text(EXAMPLES[code], code, capsys, "pt")
    assert english and english not in portuguese


def test_a_failing_check_speaks_portuguese(capsys):
    set_language("pt")
    case = DROPOUT_POSITIVE[0]
    with pytest.raises(CheckFailed):
        _dropout_case(case)()
    out = capsys.readouterr().out
    assert "unidades mantidas" in out and "probabilidade de MANTER" in out


def test_init_variance_in_portuguese(capsys):
    set_language("pt")
    with pytest.raises(CheckFailed, match="variância"):
        _init_variance()
    assert "números normais padrão sem escala" in capsys.readouterr().out


def test_widget_descriptions_in_portuguese():
    pytest.importorskip("torch")
    from grader.lessons.convolution.views import receptive_field_explorer
    from tests.lessons.test_conv import conv_backward, conv_forward

    set_language("pt")
    explorer = receptive_field_explorer(conv_forward, conv_backward, size=10)
    assert explorer.controls["kernel"].description == "tamanho do kernel"
    assert explorer.controls["pad"].description == "preenchimento (padding)"
    set_language("en")
    assert receptive_field_explorer(conv_forward, conv_backward, size=10).controls["kernel"].description == (
        "kernel size"
    )


def test_figure_labels_in_portuguese():
    import matplotlib.pyplot as plt

    set_language("pt")
    ax = plot_loss([3.0, 2.0, 1.0])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("iteração", "perda")
    plt.close(ax.figure)
    set_language(None)
    ax = plot_loss([3.0, 2.0, 1.0])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("iteration", "loss")
    plt.close(ax.figure)


def test_the_lessons_catalogue_is_complete_and_compiled():
    assert [line for line in messages.problems() if "grader_lessons" in line] == []
