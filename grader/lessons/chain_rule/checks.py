"""Lesson 02's visible checks: the expected values and the known mistakes they recognise.

The check cells of lesson 02 read their expected values and their mistake tables from here,
so that the code a student reads before solving shows neither the local derivatives nor the
way the paths combine. Every function takes plain numbers (the check cells read student values
through the trusted path first) and returns plain floats and (value, hint) pairs, which the
lesson's `check_numbers` compares through `check_number`.
"""

from __future__ import annotations

import ast
import inspect
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ... import numgrad
from ...checks import checked_name, compare, report
from ...errors import CheckFailed
from ...i18n import N_
from ...i18n import lesson_text as _
from ...numgrad import rel_error
from ...referees import referee_all
from ...report_lines import emit, fail_line, hint_line
from ..rounding import rounding_margin, rounding_tol

__all__ = [
    "check_number",
    "circuit_backward_mistakes",
    "circuit_tangent_mistakes",
    "measuring_tool_called",
    "neuron_backward_mistakes",
    "neuron_step",
    "neuron_tangent_expected",
    "paths_into_x",
    "refuse_measured",
    "rounding_margin",
    "rounding_tol",
    "trace_step",
    "watch_hand_traces",
]

Mistakes = list[tuple[float, str]]
_OVERWRITE = N_("did an `=` overwrite it where `+=` should add?")
_NO_TANH_SLOPE = N_("The tanh node's local slope is missing: what crosses d = tanh(c) is multiplied by "
                    "the slope of tanh at c.")


#: The upstream gradients each node of the two hand traces is computed from.
_UPSTREAM = {"df_dz": (), "df_du": ("df_dz",), "df_db": ("df_dz",), "df_dw": ("df_du",), "df_dx": ("df_du",),
             "dL_dd": (), "dL_dc": ("dL_dd",), "dL_da": ("dL_dc",), "dL_db": ("dL_dc",),
             "dL_dx": ("dL_da", "dL_db"), "dL_dy": ("dL_da", "dL_db")}


def check_number(name: str, yours: float, expected: float, mistakes: Mistakes = (),
                 tol: float = 1e-7) -> None:
    """One number of a check cell: yours (a plain float, read through the trusted path) against
    expected, to the relative error tol; prints its ✓/✗ line. When yours is wrong and equals
    (relative error below max(tol, 1e-6)) the value of a known mistake, the ✗ line carries that
    mistake's hint instead of the toolkit's generic one (which speaks of arrays and `+=`, not of a
    hand trace). Raises CheckFailed when wrong: its message is the name, with the hint shown on
    the ✗ line (the recognised mistake's, else the toolkit's, if it has one) in parentheses."""
    __tracebackhide__ = True
    name = checked_name(name)
    result, line = compare(name, yours, np.float64(expected), tol=tol)
    if not result.passed:
        for wrong, hint in mistakes:
            if rel_error(yours, float(wrong)) < max(tol, 1e-6):
                emit([line, hint_line(hint, None)], [(None, hint)])
                raise CheckFailed(f"{name} ({hint})", results=[result])
    try:
        report([(result, line)])
    except CheckFailed:
        hint = f" ({result.hint.message})" if result.hint is not None else ""
        raise CheckFailed(name + hint, results=[result]) from None


def paths_into_x(dL_da: float, dL_db: float, x: float, y: float) -> tuple[float, float, float]:
    """The three contributions to ∂L/∂x in the circuit of section 2 at (x, y), from your dL_da and
    dL_db (plain numbers): via a = x·y, via b = x + y, and along the direct edge of L = d + x, each
    local slope measured by nudging x in that one node, as the checks of Exercise 3 do."""
    d = _circuit(x, y)["d"]
    return (dL_da * _slope(lambda x_: x_ * y, x), dL_db * _slope(lambda x_: x_ + y, x),
            _slope(lambda x_: d + x_, x))


def _judged(node: str, own: tuple[float, Mistakes], right: float, up: Mapping[str, float],
            yours: float | None, tol: float) -> tuple[float, Mistakes]:
    """What a hand-trace node is compared with: the right value when yours is right (a right value
    always passes), else (your upstream) × (local slope); an upstream of 0 cannot be built on (0
    times any slope is 0), so the node then asks for the upstream to be fixed first."""
    if yours is None:
        return own
    if rel_error(float(yours), right) < tol:
        return right, own[1]
    zero = [name for name in _UPSTREAM[node] if abs(up[name]) < 1e-3]
    if len(zero) == 1:
        raise CheckFailed(_("{name} is 0, so {node} cannot be checked against it (0 times any slope "
                            "is 0): fix {name} first").format(name=zero[0], node=node))
    if zero:
        raise CheckFailed(_("{names} are 0, so {node} cannot be checked against them (0 times any slope "
                            "is 0): fix them first").format(names=", ".join(zero), node=node))
    return own


def _slope(f: Callable[[float], float], v: float, h: float = 1e-6) -> float:
    """Local slope of a one-input function at v, measured by a centred difference."""
    return (f(v + h) - f(v - h)) / (2 * h)


def neuron_step(node: str, upstream: float, yours: float | None = None,
                tol: float = 5e-4) -> tuple[float, Mistakes]:
    """Exercise 1 at x = 2, w = 3, b = −4: the expected ∂f/∂node, (your upstream gradient) × (the
    node's slope measured by nudging its input), and the known mistakes for that node.

    node: "df_dz" (upstream 1), "df_du" or "df_db" (upstream: your df_dz), "df_dw" or "df_dx"
    (upstream: your df_du). With `yours` (your value, a float): the right value when yours is
    right to `tol`, and a CheckFailed when your upstream is 0 (see `_judged`)."""
    own = _neuron_step(node, upstream)
    if yours is None:
        return own
    dz = _neuron_step("df_dz", 1.0)[0]
    du = _neuron_step("df_du", dz)[0]
    right_up = {"df_dz": 1.0, "df_du": dz, "df_db": dz, "df_dw": du, "df_dx": du}[node]
    right = _neuron_step(node, right_up)[0]
    return _judged(node, own, right, dict.fromkeys(_UPSTREAM[node], upstream), yours, tol)


def _neuron_step(node: str, upstream: float) -> tuple[float, Mistakes]:
    """neuron_step without `yours`: (your upstream) × (the measured local slope), and the mistakes."""
    x, w, b = 2.0, 3.0, -4.0
    u = w * x
    z = u + b
    if node == "df_dz":
        return upstream * _slope(lambda z_: max(0.0, z_), z), [
            (0.0, _("The gate is open here: z = 2 > 0. How far does max(0, z) move when z moves a little?")),
            (z, _("That is z itself. The ReLU's local derivative is its slope at z, not its value.")),
        ]
    if node == "df_du":
        return upstream * _slope(lambda u_: u_ + b, u), [
            (u, _("That is u's value. How far does z = u + b move when u moves by 0.001?")),
        ]
    if node == "df_db":
        return upstream * _slope(lambda b_: u + b_, b), [
            (b, _("That is b's value. How far does z = u + b move when b moves by 0.001?")),
            (0.0, _("b reaches f through z = u + b too: it gets a share of df_dz.")),
        ]
    if node == "df_dw":
        return upstream * _slope(lambda w_: w_ * x, w), [
            (upstream * w, _("That is df_du · w. Nudge w in u = w·x: by how much does u move?")),
        ]
    return upstream * _slope(lambda x_: w * x_, x), [
        (upstream * x, _("That is df_du · x. Nudge x in u = w·x: by how much does u move?")),
    ]


def neuron_backward_mistakes(df: float, x: float, w: float, b: float) -> dict[str, Mistakes]:
    """Known mistakes of relu_neuron_backward(df, cache of (x, w, b)), for dx, dw and db; away from
    the worked example (x = 2, w = 3, b = −4), also the answer that reads that example's x and w
    from the notebook's variables instead of from the cache."""
    if w * x + b > 0:
        table = {
            "dx": [(df * x, _("That is df · x. In u = w·x, what does a nudge of x get multiplied by?")),
                   (w, _("That is w alone: the upstream gradient df scales every gradient."))],
            "dw": [(df * w, _("That is df · w. In u = w·x, what does a nudge of w get multiplied by?")),
                   (x, _("That is x alone: the upstream gradient df scales every gradient."))],
            "db": [(1.0, _("That is the local slope alone: the upstream gradient df scales "
                           "every gradient."))],
        }
        if (x, w, b) != (2.0, 3.0, -4.0):
            table["dx"].append((df * 3.0, _("That is df times the worked example's w = 3: read w from the "
                                            "cache, not from the notebook's variable w.")))
            table["dw"].append((df * 2.0, _("That is df times the worked example's x = 2: read x from the "
                                            "cache, not from the notebook's variable x.")))
        return table
    shut = _("The ReLU is off here (z < 0): its gate is shut, so nothing flows back through it.")
    return {"dx": [(df * w, shut), (w, shut)], "dw": [(df * x, shut), (x, shut)],
            "db": [(df, shut), (1.0, shut)]}


def _circuit(x: float, y: float) -> dict[str, float]:
    a, b = x * y, x + y
    c = a * b
    d = math.tanh(c)
    return {"x": x, "y": y, "a": a, "b": b, "c": c, "d": d, "L": d + x}


def trace_step(node: str, x: float, y: float, up: Mapping[str, float], yours: float | None = None,
               tol: float = 5e-4) -> tuple[float, Mistakes]:
    """Exercise 3 at (x, y): the expected ∂L/∂node from your own upstream values `up` (the plain
    numbers of dL_dd, dL_dc, dL_da, dL_db that the node needs), each local slope measured by
    nudging that one node's input, and the known mistakes for that node. With `yours` (your
    value, a float): the right value when yours is right to `tol`, and a CheckFailed when one of
    your upstream values is 0 (see `_judged`)."""
    own = _trace_step(node, x, y, up)
    if yours is None:
        return own
    right_up: dict[str, float] = {}
    for name in ("dL_dd", "dL_dc", "dL_da", "dL_db"):
        right_up[name] = _trace_step(name, x, y, right_up)[0]
    right = right_up[node] if node in right_up else _trace_step(node, x, y, right_up)[0]
    return _judged(node, own, right, up, yours, tol)


def _trace_step(node: str, x: float, y: float, up: Mapping[str, float]) -> tuple[float, Mistakes]:
    """trace_step without `yours`: (your upstream values) × (the measured local slopes), and the
    mistakes."""
    v = _circuit(x, y)
    a, b, c, d = v["a"], v["b"], v["c"], v["d"]
    if node == "dL_dd":
        return _slope(lambda d_: d_ + x, d), []
    if node == "dL_dc":
        return up["dL_dd"] * _slope(math.tanh, c), [
            (up["dL_dd"] * (1 - c**2), _("You used 1 − c², as if tanh(c) were c. The slope of tanh "
                                       "at c depends on tanh(c) itself, which the forward pass stored.")),
            (up["dL_dd"], _(_NO_TANH_SLOPE)),
        ]
    if node == "dL_da":
        return up["dL_dc"] * _slope(lambda a_: a_ * b, a), [
            (up["dL_dc"] * a, _("That is dL_dc · a. Nudge a in c = a·b: what is the nudge "
                                 "multiplied by?")),
        ]
    if node == "dL_db":
        return up["dL_dc"] * _slope(lambda b_: a * b_, b), [
            (up["dL_dc"] * b, _("That is dL_dc · b. Nudge b in c = a·b: what is the nudge "
                                 "multiplied by?")),
        ]
    da, db = up["dL_da"], up["dL_db"]
    if node == "dL_dx":
        expected = (da * _slope(lambda x_: x_ * y, x) + db * _slope(lambda x_: x_ + y, x)
                    + _slope(lambda x_: d + x_, x))
        return expected, [
            (da * y + db, _("The direct edge x → L is missing: L = d + x depends on x itself too.")),
            (db + 1.0, _("The path through a = x·y is missing.")),
            (da * y + 1.0, _("The path through b = x + y is missing.")),
            (da * x + db + 1.0, _("Nudge x in a = x·y: what does the nudge get multiplied by (not x)?")),
        ]
    expected = da * _slope(lambda y_: x * y_, y) + db * _slope(lambda y_: x + y_, y)
    return expected, [
        (db, _("The path through a = x·y is missing.")),
        (da * x, _("The path through b = x + y is missing.")),
        (da * y + db, _("Nudge y in a = x·y: what does the nudge get multiplied by (not y)?")),
    ]


def circuit_backward_mistakes(which: str, x: float, y: float, dL: float, values: Mapping[str, float],
                              grads: Mapping[str, float], first: float, first_point: tuple[float, float]
                              ) -> Mistakes:
    """Known mistakes of circuit_backward's dx or dy (which: "dx" or "dy") at (x, y) with the
    upstream gradient dL; values and grads are PyTorch's node values and ∂loss/∂node there; first
    is your answer at first_point (dL = 1), used to recognise an answer that ignores the cache."""
    from_c = (1 - values["c"] ** 2) / (1 - values["d"] ** 2)
    no_slope = 1 / (1 - values["d"] ** 2)
    same = (x, y) == first_point
    if which == "dx":
        g = grads["x"]
        table = [
            (g - dL, _("The direct edge x → L (L = d + x) is missing: ") + _(_OVERWRITE)),
            (g - grads["a"] * y, _("The path through a = x·y is missing: ") + _(_OVERWRITE)),
            (g - grads["b"], _("The path through b = x + y is missing: ") + _(_OVERWRITE)),
            (grads["a"] * x + grads["b"] + dL, _("For a = x·y, x's local slope is not x.")),
            (dL + (g - dL) * from_c, _("The tanh slope is the slope of tanh(c), not 1 − c².")),
            (dL + (g - dL) * no_slope, _(_NO_TANH_SLOPE)),
        ]
    else:
        g = grads["y"]
        table = [
            (grads["b"], _("The path through a = x·y is missing: ") + _(_OVERWRITE)),
            (grads["a"] * x, _("The path through b = x + y is missing: ") + _(_OVERWRITE)),
            (grads["a"] * y + grads["b"], _("For a = x·y, y's local slope is not y.")),
            (g * from_c, _("The tanh slope is the slope of tanh(c), not 1 − c².")),
            (g * no_slope, _(_NO_TANH_SLOPE)),
        ]
    if dL != 1.0:   # at dL = 1 the answer that ignores dL is the right one
        table.append((g / dL, _("Your {which} ignores the upstream gradient dL: every step must be "
                                "multiplied by it.").format(which=which)))
    table.append((g, _("Your {which} is only as close as nudging gets: the chain rule agrees with PyTorch "
                       "to within float64 rounding. Compute each local slope from the cache, with no small "
                       "step h.").format(which=which)))
    if not same:
        table += [(first, _("Your {which} does not change with x and y: compute it from the cache.").format(
                      which=which)),
                  (first * dL, _("Your {which} is the answer at x={x}, y={y} "
                                 "times dL: compute it from the cache.").format(
                      which=which, x=first_point[0], y=first_point[1]))]
    return table


def circuit_tangent_mistakes(which: str, x: float, y: float, grads: Mapping[str, float],
                             values: Mapping[str, float]) -> Mistakes:
    """Known mistakes of circuit_tangent's tL for the seed (1, 0) (which: "x") or (0, 1) ("y")."""
    no_slope = 1 / (1 - values["d"] ** 2)
    if which == "x":
        from_c = (1 - values["c"] ** 2) / (1 - values["d"] ** 2)
        return [
            (grads["x"] - 1.0, _("The direct edge is missing: L = d + x moves with x itself too.")),
            (grads["x"] - grads["a"] * y, _("a = x·y moves with x as well as with y: both must be in ta.")),
            (1.0 + (grads["x"] - 1.0) * from_c, _("The tanh slope is the slope of tanh(c), not 1 − c².")),
            (1.0 + (grads["x"] - 1.0) * no_slope, _(_NO_TANH_SLOPE)),
        ]
    return [
        (grads["y"] - grads["a"] * x, _("a = x·y moves with y as well as with x: both must be in ta.")),
        (grads["y"] - grads["b"], _("b = x + y moves with y too.")),
        (grads["y"] * no_slope, _(_NO_TANH_SLOPE)),
    ]


def neuron_tangent_expected(x: np.ndarray, w: np.ndarray, b: float, tw: np.ndarray, tb: float
                            ) -> tuple[float, float, Mistakes]:
    """f = max(0, w·x + b), its tangent for the parameter tangents (tw, tb) (x: data, shape (n,)),
    and the known mistakes of neuron_tangent's tf."""
    z = float(w @ x) + b
    on = z > 0
    moving = float(tw @ x) + tb
    table = [(float(tw @ w) + tb, _("Which factor of u = w·x stays still? Only w moves.")),
             (float(tw @ x), _("z = u + b moves with b too."))]
    if not on:
        table.append((moving, _("The ReLU is off here (z < 0): its gate shuts the tangent as well.")))
    return max(0.0, z), moving if on else 0.0, table


#: The toolkit's numerical-gradient functions (by their own code, whatever name reaches them):
#: measuring tools, like the notebook's `slope`; and the checks' references of the hand traces.
_MEASURING_CODES = {inspect.unwrap(getattr(numgrad, name)).__code__: name
                    for name in ("eval_numerical_gradient", "eval_numerical_gradient_array",
                                 "numerical_gradient_array", "grad_check_sparse")}
# ...and the checks' own references, which hold the expected values: copying from them is no trace.
_MEASURING_CODES.update({neuron_step.__code__: "neuron_step", trace_step.__code__: "trace_step"})
_SETPROFILE, _GETPROFILE = sys.setprofile, sys.getprofile


class _HandTraces:
    """Which variables of the two hand traces (Exercises 1 and 3) were last assigned by a cell run
    that called a measuring tool: the notebook's `slope`, or one of the toolkit's numerical
    gradients (`eval_numerical_gradient`, ...).

    Before each cell runs (IPython's pre_run_cell event, `watch_hand_traces`), the trace variables
    that cell assigns are marked clean; a call of a measuring tool while it runs marks them
    measured, with that tool's name: `slope` says so itself (`measuring_tool_called`), and the
    toolkit's are seen by a profile hook set only while a cell that assigns trace variables runs
    (until post_run_cell). Only the run of the cell that assigns a variable counts: re-running a
    check, or calling a measuring tool in a cell that assigns no trace variable, changes nothing.
    The unit is the cell, not the line: a trace cell that calls a measuring tool anywhere marks
    every trace variable it assigns.
    """

    def __init__(self) -> None:
        self.assigning: frozenset[str] = frozenset()
        self.measured: dict[str, tuple[str, ...]] = {}
        self.shell: Any = None
        self.previous_profile: Any = None
        self.profiling = False

    def before_cell(self, info: Any) -> None:
        self.after_cell()
        self.assigning = _assigned_names(self.shell, getattr(info, "raw_cell", "") or "")
        for name in self.assigning:
            self.measured.pop(name, None)
        if self.assigning:
            self.previous_profile, self.profiling = _GETPROFILE(), True
            _SETPROFILE(self.profile)

    def after_cell(self, *_: Any) -> None:
        if self.profiling:
            self.profiling = False
            _SETPROFILE(self.previous_profile)
            self.previous_profile = None

    def profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in _MEASURING_CODES:
            measuring_tool_called(_MEASURING_CODES[frame.f_code])
        if self.previous_profile is not None:
            self.previous_profile(frame, event, arg)


def _assigned_names(shell: Any, source: str) -> frozenset[str]:
    """The hand-trace variables a cell's source assigns (any binding of the name), or none when
    the cell does not parse."""
    try:
        code = shell.transform_cell(source) if shell is not None else source
        tree = ast.parse(code)
    except Exception:  # a cell that does not parse runs nothing
        return frozenset()
    return frozenset(node.id for node in ast.walk(tree)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
                     and node.id in _UPSTREAM)


_TRACES = _HandTraces()


def watch_hand_traces() -> None:
    """Have IPython tell the hand traces' ledger before each cell runs (once per kernel, however
    often the setup cell runs); outside IPython, nothing is watched and nothing refused."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or _TRACES.shell is shell:
        return
    if _TRACES.shell is not None:
        for event, callback in (("pre_run_cell", _TRACES.before_cell), ("post_run_cell", _TRACES.after_cell)):
            try:
                _TRACES.shell.events.unregister(event, callback)
            except ValueError:
                pass
    shell.events.register("pre_run_cell", _TRACES.before_cell)
    shell.events.register("post_run_cell", _TRACES.after_cell)
    _TRACES.shell = shell


def measuring_tool_called(tool: str) -> None:
    """Called by the notebook's `slope` (and by the profile hook, for the toolkit's numerical
    gradients): the trace variables of the running cell are measured, with `tool`."""
    for name in _TRACES.assigning:
        tools = _TRACES.measured.get(name, ())
        _TRACES.measured[name] = tools if tool in tools else (*tools, tool)


def refuse_measured(*names: str) -> None:
    """A hand-trace check's first step: ✗ and CheckFailed when a cell that called a measuring tool
    while it ran assigned one of `names` (the values the check grades)."""
    __tracebackhide__ = True
    measured = [name for name in names if name in _TRACES.measured]
    if not measured:
        return
    listed = ", ".join(measured)
    tools = ", ".join(dict.fromkeys(tool for name in measured for tool in _TRACES.measured[name]))
    hint = _("the cell that assigned {names} called {tools} while it ran. A hand trace derives each local "
             "slope by the chain rule, node by node; measuring is the checks' job. Take {tools} out of that "
             "cell and run it again.").format(names=listed, tools=tools)
    status = {name: _("measured with {tool}").format(tool=", ".join(_TRACES.measured[name]))
              for name in measured}
    emit([fail_line(name, status[name]) for name in measured] + [hint_line(hint, None)], [(None, hint)])
    raise CheckFailed(f"{listed} {status[measured[0]]} ({hint})")


# Everything above checks or computes the right answers: refused inside a graded call.
referee_all(globals())
