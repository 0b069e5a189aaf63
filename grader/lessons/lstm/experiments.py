"""Lesson 11's demonstrations: how much gradient reaches each step, for a vanilla RNN and for the
student's LSTM, initialised alike; the cell-state path alone; the forget-gate bias; the widget.

Everything that runs student code goes through `grader.lessons.student_calls` (via
`StudentLSTM`): an unfinished or broken exercise raises `NotReady`, which the views print.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure

from ...errors import ToolkitInputError
from ...i18n import lesson_text as _
from ...referees import referee_all
from ..live_plot import SliderPlot
from ..student_calls import NotReady, call_student, for_cell
from .models import StudentLSTM, VanillaRNN, init_lstm, init_rnn

__all__ = ["GradientReach", "cell_path", "cell_path_reach", "draw_reach", "gradient_explorer",
           "gradient_reach", "rnn_initialisations"]

#: The demonstrations' sizes: D inputs, H units, one batch of N sequences.
D, H, N = 8, 32, 4


def _check_length(T: int) -> None:
    if not isinstance(T, (int, np.integer)) or T < 1:
        raise ToolkitInputError(_("the sequence length T must be a positive int, not {T}").format(T=repr(T)))


def _problem(T: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, T, D))
    g = rng.normal(size=(N, H))            # dL/dh at the last step: L = sum(h_T * g)
    return x, g, rng


class GradientReach:
    """The norms ‖∂L/∂x_t‖, t = 0 .. T-1, for a loss on the last hidden state only.

    Attributes: rnn and lstm, arrays (T,) of norms (lstm None when the student's LSTM is not
    ready, with the reason in `error`); T; forget_bias.
    """

    def __init__(self, rnn: np.ndarray, lstm: np.ndarray | None, T: int, forget_bias: float, error: str = ""):
        self.rnn, self.lstm, self.T, self.forget_bias, self.error = rnn, lstm, T, forget_bias, error


def _reach(model, x: np.ndarray, g: np.ndarray) -> np.ndarray:
    h, cache = model.forward(x, np.zeros((N, H)))
    dh = np.zeros_like(h)
    dh[:, -1] = g
    dx = model.backward(dh, cache)["x"]
    return np.linalg.norm(np.asarray(dx, dtype=np.float64), axis=(0, 2))


def gradient_reach(lstm_forward: Callable, lstm_backward: Callable, T: int = 60,
                   forget_bias: float = 1.0, seed: int = 0, widget: bool = False) -> GradientReach:
    """The gradient reaching every step t for the vanilla RNN and for your LSTM.

    Both read the same inputs x (N, T, D) and get the same gradient at their last state; their
    weights are drawn alike (entries of variance 1/fan-in, the LSTM's four blocks each like the
    RNN's matrix), biases zero except the LSTM's forget gate (forget_bias). widget: word a
    NotReady message for the explorer's controls rather than for a cell.
    """
    _check_length(T)
    x, g, rng = _problem(T, seed)
    rnn = _reach(VanillaRNN(init_rnn(D, H, np.random.default_rng(seed + 1))), x, g)
    params = init_lstm(D, H, np.random.default_rng(seed + 1), forget_bias)
    try:
        lstm = _reach(StudentLSTM(params, lstm_forward, lstm_backward), x, g)
    except NotReady as why:
        return GradientReach(rnn, None, T, forget_bias, str(why) if widget else for_cell(str(why)))
    return GradientReach(rnn, lstm, T, forget_bias)


def cell_path(lstm_step_forward: Callable, lstm_step_backward: Callable, T: int = 30, seed: int = 0):
    """See _cell_path; a NotReady message is worded for the cell that shows the result."""
    try:
        return _cell_path(lstm_step_forward, lstm_step_backward, T, seed)
    except NotReady as why:
        raise NotReady(for_cell(str(why))) from None


def _cell_path(lstm_step_forward: Callable, lstm_step_backward: Callable, T: int, seed: int):
    """The gradient of c_T reaching c_t along the cell-state path alone, through your step functions.

    Runs T steps forward (your lstm_step_forward), then back from dc_T = 1 with dnext_h = 0 at
    every step and the dprev_h each step returns dropped: only the path c_t -> c_{t+1} remains.
    Returns (through_backward, product_of_f), both (T, N, H): for every t, the dprev_c your
    backward carried to c_{t-1} (the state before step t), and the product of the forget gates
    f_t ... f_T, computed here from the same pre-activations.
    """
    _check_length(T)
    x, _g, _c = _problem(T, seed)
    p = init_lstm(D, H, np.random.default_rng(seed + 1), 1.0)
    h, c = np.zeros((N, H)), np.random.default_rng(seed + 2).normal(size=(N, H))
    caches, forgets = [], []
    for t in range(T):
        a = x[:, t] @ p["Wx"] + h @ p["Wh"] + p["b"]
        forgets.append(1.0 / (1.0 + np.exp(-a[:, H:2 * H])))
        out = call_student(lstm_step_forward, "lstm_step_forward", x[:, t], h, c, p["Wx"], p["Wh"], p["b"])
        if not isinstance(out, tuple) or len(out) != 3:
            raise NotReady(_("lstm_step_forward should return (next_h, next_c, cache)."))
        h, c, cache = out
        caches.append(cache)
    dc, through, product = np.ones((N, H)), [None] * T, [None] * T
    running = np.ones((N, H))
    for t in reversed(range(T)):
        out = call_student(lstm_step_backward, "lstm_step_backward", np.zeros((N, H)), dc, caches[t])
        if not isinstance(out, tuple) or len(out) != 6:
            raise NotReady(_("lstm_step_backward should return (dx, dprev_h, dprev_c, dWx, dWh, db)."))
        dc = np.asarray(out[2], dtype=np.float64)
        running = running * forgets[t]
        through[t], product[t] = dc, running.copy()
    return np.array(through), np.array(product)


def cell_path_reach(lstm_step_forward: Callable, lstm_step_backward: Callable, T: int = 60,
                    forget_bias: float = 1.0, seed: int = 0) -> dict[str, float]:
    """The gradient_reach ratio ‖∂L/∂x_0‖ / ‖∂L/∂x_{T-1}‖ along the cell path alone, with its parts.

    The network, inputs and loss are gradient_reach's (h_0 = c_0 = 0, L = sum(h_{T-1} * g)); the
    forward pass runs your lstm_step_forward. Backward: the last step gets dnext_h = g; every earlier
    step gets dnext_h = 0 and only the dprev_c of the step after it (each dprev_h is dropped), so
    the gradient reaching x_0 has travelled c_{T-1} -> c_{T-2} -> ... -> c_0 only.
    Returns {"ratio": that ratio, "geometric_f": the geometric mean of the forget gates f_1 ... f_{T-1}
    over units and examples, "typical": the median over units and examples of their product
    f_1 ⋯ f_{T-1}, "largest": its largest value}. Raises NotReady (worded for a cell).
    """
    _check_length(T)
    x, g, _c = _problem(T, seed)
    p = init_lstm(D, H, np.random.default_rng(seed + 1), forget_bias)
    h, c = np.zeros((N, H)), np.zeros((N, H))
    caches, forgets = [], []
    try:
        for t in range(T):
            a = x[:, t] @ p["Wx"] + h @ p["Wh"] + p["b"]
            forgets.append(1.0 / (1.0 + np.exp(-a[:, H:2 * H])))
            out = call_student(lstm_step_forward, "lstm_step_forward", x[:, t], h, c,
                               p["Wx"], p["Wh"], p["b"])
            if not isinstance(out, tuple) or len(out) != 3:
                raise NotReady(_("lstm_step_forward should return (next_h, next_c, cache)."))
            h, c, cache = out
            caches.append(cache)
        dnext_h, dc, dx = g, np.zeros((N, H)), []
        for t in reversed(range(T)):
            out = call_student(lstm_step_backward, "lstm_step_backward", dnext_h, dc, caches[t])
            if not isinstance(out, tuple) or len(out) != 6:
                raise NotReady(_("lstm_step_backward should return (dx, dprev_h, dprev_c, dWx, dWh, db)."))
            dx.append(np.asarray(out[0], dtype=np.float64))
            dc, dnext_h = np.asarray(out[2], dtype=np.float64), np.zeros((N, H))
    except NotReady as why:
        raise NotReady(for_cell(str(why))) from None
    products = np.prod(np.array(forgets[1:]), axis=0)
    return {"ratio": float(np.linalg.norm(dx[-1]) / np.linalg.norm(dx[0])),
            "geometric_f": float(np.exp(np.mean(np.log(np.array(forgets[1:]))))),
            "typical": float(np.median(products)), "largest": float(products.max())}


def rnn_initialisations(T: int = 60, seed: int = 0,
                        input_scales: tuple[float, ...] = (1.0, 0.25)) -> list[dict[str, float | str]]:
    """gradient_reach's vanilla-RNN ratio ‖∂L/∂x_0‖ / ‖∂L/∂x_{T-1}‖ for three choices of W_h.

    W_h: "random" (entries of variance 1/H, gradient_reach's), "orthogonal" (the Q of a QR
    factorisation of a normal matrix) and "identity"; W_x as gradient_reach's, times each of
    input_scales (smaller inputs keep tanh in its linear part). Returns one dict per (W_h, scale):
    {"Wh", "label" (the name of W_h in the lesson's language), "input_scale", "ratio", "slope": the
    mean tanh slope 1 - h_t^2 over every step and unit}.
    """
    _check_length(T)
    x, g, _c = _problem(T, seed)
    base = init_rnn(D, H, np.random.default_rng(seed + 1))
    orthogonal = np.linalg.qr(np.random.default_rng(seed + 1).normal(size=(H, H)))[0]
    labels = {"random": _("random"), "orthogonal": _("orthogonal"), "identity": _("identity")}
    rows = []
    for name, Wh in (("random", base["Wh"]), ("orthogonal", orthogonal), ("identity", np.eye(H))):
        for scale in input_scales:
            model = VanillaRNN(dict(base, Wh=Wh, Wx=base["Wx"] * scale))
            reach = _reach(model, x, g)
            h, _cache = model.forward(x, np.zeros((N, H)))
            rows.append({"Wh": name, "label": labels[name], "input_scale": scale,
                         "ratio": float(reach[0] / reach[-1]), "slope": float(np.mean(1.0 - h ** 2))})
    return rows


def draw_reach(reach: GradientReach) -> Figure:
    """Both curves on a log scale (a note instead of the LSTM's when it is not ready)."""
    fig = Figure(figsize=(7.5, 3.8))
    ax = fig.add_subplot()
    steps = np.arange(1, reach.T + 1)  # steps count from 1, as in the lesson (x_1 the first input)
    ax.semilogy(steps, reach.rnn, "o-", ms=3, color="#d62728", label=_("vanilla RNN (tanh)"))
    if reach.lstm is not None:
        ax.semilogy(steps, reach.lstm, "s-", ms=3, color="#1f77b4",
                    label=_("your LSTM, forget bias {bias}").format(bias=f"{reach.forget_bias:g}"))
        title = _("T = {T}: gradient reaching the first step, RNN {rnn}, LSTM {lstm}").format(
            T=reach.T, rnn=f"{reach.rnn[0]:.1e}", lstm=f"{reach.lstm[0]:.1e}")
    else:
        ax.text(0.5, 0.5, reach.error, transform=ax.transAxes, ha="center", va="center", wrap=True)
        title = _("T = {T}: the vanilla RNN only").format(T=reach.T)
    ax.set_xlabel(_("time step t (the loss looks at the last one)"))
    ax.set_ylabel(_("‖∂L/∂x_t‖ (log scale)"))
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(True, alpha=0.3)
    return fig


def gradient_explorer(lstm_forward: Callable, lstm_backward: Callable) -> SliderPlot:
    """Sliders for the sequence length and the forget-gate bias over `draw_reach`."""

    def draw(T: int, forget_bias: float) -> Figure:
        reach = gradient_reach(lstm_forward, lstm_backward, T=T, forget_bias=forget_bias, widget=True)
        return draw_reach(reach)

    return SliderPlot(
        draw,
        T=widgets.IntSlider(value=60, min=5, max=150, step=5, description="T"),
        forget_bias=widgets.FloatSlider(value=1.0, min=-2.0, max=4.0, step=0.5, description=_("forget bias")),
    )


referee_all(globals())
