"""grader.exercise: one declaration per exercise, one graded call (referees, PyTorch, inputs)."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest
import torch

from grader import CheckFailed, Exercise, Exercises, ForbiddenCall, InputModified, ToolkitInputError
from grader.referees import referee

#: (code, what produces it): the positive examples tests/toolkit/hints/test_engine.py counts.
POSITIVE = [("input-modified", "a graded function that changes its argument in place"),
            ("call-count", "a multi-head attention that calls attention_forward once per head"),
            ("not-vectorised", "an im2col with a Python loop over the output positions"),
            ("too-much-memory", "a softmax backward that builds the (N, C, C) Jacobian")]


@referee
def reference_square(x):
    """A referee of this module: refused inside every graded call."""
    return x * x


class ReferenceNet:
    def loss(self, x):
        return float(np.sum(x))


referee(ReferenceNet)


def graded_namespace(**functions) -> tuple[dict, Exercises]:
    namespace = dict(functions)
    exercises = [Exercise(name) for name in functions]
    return namespace, Exercises(namespace, *exercises)


def test_a_correct_numpy_function_runs_and_returns_its_result() -> None:
    namespace, graded = graded_namespace(square=lambda x: x * x)
    assert np.array_equal(graded.square(np.arange(3.0)), [0.0, 1.0, 4.0])
    assert sys.gettrace() is None and threading.gettrace() is None


def test_the_function_is_looked_up_when_called_not_when_declared() -> None:
    namespace, graded = graded_namespace(square=lambda x: 0)
    namespace["square"] = lambda x: x * x
    assert graded.square(3.0) == 9.0


def test_torch_is_refused_in_a_numpy_exercise(capsys) -> None:
    namespace, graded = graded_namespace(square=lambda x: torch.tensor(x).square().numpy())
    with pytest.raises(ForbiddenCall, match="PyTorch is the referee"):
        graded.square(np.ones(2))
    assert "[forbidden-call]" in capsys.readouterr().out


def test_autograd_is_refused_where_torch_forwards_are_allowed() -> None:
    def grad_by_autograd(x):
        t = torch.tensor(x, requires_grad=True)
        (t * t).sum().backward()
        return t.grad.numpy()

    def forward_in_torch(x):
        return torch.tensor(x).square().numpy()

    namespace = {"grad": grad_by_autograd, "forward": forward_in_torch}
    graded = Exercises(namespace, Exercise("grad", uses="torch"), Exercise("forward", uses="torch"))
    assert np.array_equal(graded.forward(np.ones(2)), [1.0, 1.0])
    with pytest.raises(CheckFailed, match="autograd"):
        graded.grad(np.ones(2))


def test_a_named_torch_function_is_refused() -> None:
    namespace = {"softplus": lambda x: torch.nn.functional.softplus(x)}
    graded = Exercises(namespace, Exercise("softplus", uses="torch", torch_refused=("softplus",)))
    with pytest.raises(ForbiddenCall, match="compute what torch's softplus computes"):
        graded.softplus(torch.ones(2))


@pytest.mark.parametrize("how", ["by name", "alias", "import", "closure copy", "class method"])
def test_a_referee_is_refused_whatever_reaches_it(how) -> None:
    def via(x):
        if how == "by name":
            return reference_square(x)
        if how == "alias":
            f = reference_square
            return f(x)
        if how == "import":
            from tests.toolkit import test_exercise as module
            return module.reference_square(x)
        if how == "closure copy":
            import types
            return types.FunctionType(reference_square.__code__, globals())(x)
        return ReferenceNet().loss(x)

    namespace, graded = graded_namespace(via=via)
    with pytest.raises(ForbiddenCall, match="one of the course's references"):
        graded.via(np.ones(2))


def test_the_toolkits_numerical_gradient_is_a_referee() -> None:
    def numerical(x):
        import grader.numgrad as g
        return g.eval_numerical_gradient(lambda v: float(np.sum(v ** 2)), x)

    namespace, graded = graded_namespace(numerical=numerical)
    with pytest.raises(ForbiddenCall, match="eval_numerical_gradient"):
        graded.numerical(np.ones(2))


def test_a_refusal_the_student_catches_still_fails_the_call() -> None:
    def stubborn(x):
        try:
            return reference_square(x)
        except Exception:
            return reference_square(x)     # the hook is off after the first refusal

    namespace, graded = graded_namespace(stubborn=stubborn)
    with pytest.raises(ForbiddenCall):
        graded.stubborn(np.ones(2))


def test_switching_the_hook_off_is_refused() -> None:
    def switch(x):
        hook = sys.gettrace()
        sys.settrace(None)
        value = reference_square(x)
        sys.settrace(hook)
        return value

    namespace, graded = graded_namespace(switch=switch)
    with pytest.raises(ForbiddenCall, match="switched off the grader"):
        graded.switch(np.ones(2))
    assert sys.settrace is not None and sys.gettrace() is None


def test_may_call_trusts_a_referee_and_everything_inside_it() -> None:
    def uses_reference(x):
        return reference_square(x) + torch.ones(1).numpy()   # torch after the trusted call: refused

    def trusted_inside(x):
        return reference_square(x)

    namespace = {"trusted_inside": trusted_inside, "uses_reference": uses_reference,
                 "reference_square": reference_square}
    graded = Exercises(namespace, Exercise("trusted_inside", may_call=("reference_square",)),
                       Exercise("uses_reference", may_call=("reference_square",)))
    assert np.array_equal(graded.trusted_inside(np.full(2, 3.0)), [9.0, 9.0])
    with pytest.raises(ForbiddenCall, match="torch"):
        graded.uses_reference(np.ones(2))


def test_must_not_call_refuses_a_notebook_function_by_its_code() -> None:
    def loops(x):
        return x + 1

    def vectorised(x):
        slow = loops
        return slow(x)

    namespace = {"loops": loops, "vectorised": vectorised}
    graded = Exercises(namespace, Exercise("vectorised", must_not_call={"loops": "the loop version"}))
    with pytest.raises(ForbiddenCall, match=r"not to call loops \(the loop version\)"):
        graded.vectorised(np.ones(2))


@pytest.mark.parametrize("where", ["array", "array in a tuple", "array in a dict"])
def test_an_input_changed_in_place_is_named(where, capsys) -> None:
    def change(dout, cache):
        target = {"array": dout, "array in a tuple": cache[0], "array in a dict": cache[1]["w"]}[where]
        target += 1.0
        return dout

    namespace, graded = graded_namespace(change=change)
    arg = "dout" if where == "array" else "cache"
    with pytest.raises(InputModified, match=f"changed its argument {arg} in place"):
        graded.change(np.zeros(2), (np.zeros(3), {"w": np.zeros(1)}))
    assert "[input-modified]" in capsys.readouterr().out


def test_changes_lists_the_arguments_that_may_change() -> None:
    def sgd(w, dw, config=None):
        w -= 0.1 * dw
        return w, config

    namespace = {"sgd": sgd}
    graded = Exercises(namespace, Exercise("sgd", changes=("w",)))
    w = np.ones(2)
    graded.sgd(w, np.ones(2))
    assert np.allclose(w, 0.9)


def test_nan_inputs_left_alone_are_unchanged() -> None:
    namespace, graded = graded_namespace(same=lambda x: x.copy())
    graded.same(np.array([np.nan, 1.0]))


def test_running_guards_a_block_for_a_class() -> None:
    class Net:
        def loss(self, x):
            return reference_square(x)

    namespace = {"Net": Net}
    graded = Exercises(namespace, Exercise("Net"))
    with pytest.raises(ForbiddenCall), graded.running("Net"):
        Net().loss(np.ones(2))


def test_bad_declarations_and_unknown_names_say_what_was_expected() -> None:
    with pytest.raises(ToolkitInputError, match="uses must be"):
        Exercise("f", uses="jax")
    with pytest.raises(ToolkitInputError, match="tuple of names"):
        Exercise("f", may_call="g")
    with pytest.raises(ToolkitInputError, match="declared twice"):
        Exercises({}, Exercise("f"), Exercise("f"))
    graded = Exercises({}, Exercise("f"))
    with pytest.raises(ToolkitInputError, match="not one of this lesson's exercises"):
        graded.g(1)
    with pytest.raises(CheckFailed, match="f is not defined"):
        graded.f(1)


def test_the_refusals_speak_the_students_language(capsys) -> None:
    from grader import set_language

    def change(x):
        x += 1
        return x

    namespace, graded = graded_namespace(change=change, via=lambda x: reference_square(x))
    try:
        set_language("pt")
        with pytest.raises(InputModified, match="alterou o seu argumento x no próprio lugar"):
            graded.change(np.zeros(2))
        with pytest.raises(ForbiddenCall, match="uma das referências do curso"):
            graded.via(np.zeros(2))
    finally:
        set_language(None)
    assert "[input-modified]" in capsys.readouterr().out


def test_calls_counts_the_calls_the_brief_asks_for(capsys) -> None:
    def step(x):
        return x + 1

    def once(x):
        return step(x)

    def twice(x):
        return step(step(x))

    namespace = {"step": step, "once": once, "twice": twice}
    graded = Exercises(namespace, Exercise("once", calls={"step": 1}), Exercise("twice", calls={"step": 1}))
    assert graded.once(1.0) == 2.0
    with pytest.raises(CheckFailed, match="asks you to call step 1 times"):
        graded.twice(1.0)
    assert "[call-count]" in capsys.readouterr().out


def test_max_lines_tells_a_loop_from_array_operations(capsys) -> None:
    source = """
def vectorised(x):
    return x * 2

def loops(x):
    out = x.copy()
    for i in range(x.size):
        out[i] = x[i] * 2
    return out
"""
    namespace: dict = {"np": np}
    exec(compile(source, "/tmp/notebook_cells/cell1.py", "exec"), namespace)
    graded = Exercises(namespace, Exercise("vectorised", max_lines=5), Exercise("loops", max_lines=5))
    x = np.arange(50.0)
    assert np.array_equal(graded.vectorised(x), 2 * x)
    with pytest.raises(CheckFailed, match="not Python loops"):
        graded.loops(x)
    assert "[not-vectorised]" in capsys.readouterr().out


def test_may_call_never_trusts_the_students_own_function() -> None:
    def reference_square(x):       # the student's own function, under a referee's name
        return torch.tensor(x).square().numpy()

    namespace = {"reference_square": reference_square, "outer": lambda x: reference_square(x)}
    graded = Exercises(namespace, Exercise("outer", may_call=("reference_square",)))
    with pytest.raises(ForbiddenCall, match="torch"):
        graded.outer(np.ones(2))


def test_max_bytes_refuses_the_big_intermediate(capsys) -> None:
    def jacobian(p, dp):                      # (N, C, C): 200 * 100 * 100 * 8 bytes = 16 MB
        full = p[:, :, None] * (np.eye(p.shape[1]) - p[:, None, :])
        return np.einsum("nij,ni->nj", full, dp)

    def direct(p, dp):
        return p * (dp - np.sum(p * dp, axis=1, keepdims=True))

    namespace = {"jacobian": jacobian, "direct": direct}
    graded = Exercises(namespace, Exercise("jacobian", max_bytes=2_000_000),
                       Exercise("direct", max_bytes=2_000_000))
    p = np.full((200, 100), 0.01)
    dp = np.ones((200, 100))
    assert np.allclose(graded.direct(p, dp), 0.0)
    with pytest.raises(CheckFailed, match="do not build the big intermediate array"):
        graded.jacobian(p, dp)
    assert "[too-much-memory]" in capsys.readouterr().out


def test_a_refusal_is_shown_once_not_also_as_a_switched_off_hook(capsys) -> None:
    namespace, graded = graded_namespace(via=lambda x: reference_square(x))
    with pytest.raises(ForbiddenCall):
        graded.via(np.ones(2))
    out = capsys.readouterr().out
    assert out.count("✗") == 1 and "switched off" not in out, out


def test_max_lines_says_the_briefs_own_rule() -> None:
    source = "def staged(x):\n    a = x + 1\n    b = a * 2\n    c = b - 1\n    return c\n"
    namespace: dict = {}
    exec(compile(source, "/tmp/notebook_cells/cell2.py", "exec"), namespace)
    graded = Exercises(namespace,
                       Exercise("staged", max_lines=2, max_lines_reason="dx is one expression"))
    with pytest.raises(CheckFailed, match="dx is one expression: a version that does so runs at most 2"):
        graded.staged(1.0)


def test_torch_imported_inside_the_function_is_refused_too() -> None:
    def imports_it(x):
        import torch as late

        return late.tensor(x).exp().numpy()

    namespace, graded = graded_namespace(imports_it=imports_it)
    with pytest.raises(ForbiddenCall, match="PyTorch is the referee"):
        graded.imports_it(np.ones(2))


def test_a_name_to_call_bound_to_a_referee_is_refused_not_counted() -> None:
    namespace = {"step": reference_square, "outer": lambda x: namespace["step"](x)}
    graded = Exercises(namespace, Exercise("outer", calls={"step": 1}))
    with pytest.raises(ForbiddenCall, match="one of the course's references"):
        graded.outer(np.ones(2))


def test_a_number_changed_in_a_dict_argument_is_named() -> None:
    def pad_zero(x, conv_param):
        conv_param["pad"] = 0
        return x

    namespace, graded = graded_namespace(pad_zero=pad_zero)
    with pytest.raises(InputModified, match="changed its argument conv_param in place"):
        graded.pad_zero(np.ones(2), {"stride": 1, "pad": 1})
    graded_namespace(same=lambda d: d)[1].same({"eps": float("nan"), "mode": "train"})


def test_a_referee_class_does_not_make_its_library_bases_referees() -> None:
    from collections.abc import Mapping

    from grader.referees import codes_of, referee_name

    class Table(Mapping):
        def __getitem__(self, key):
            return key

        def __iter__(self):
            return iter(())

        def __len__(self):
            return 0

    assert Mapping.get.__code__ not in set(codes_of(Table))
    referee(Table)
    assert referee_name(Mapping.get.__code__) is None


# ---------------------------------------------------------------- the review's escapes, refused


@pytest.mark.parametrize("how", ["thread", "pool", "refereeing", "subprocess"])
def test_ways_around_the_watch_are_refused(how) -> None:
    def around(x):
        if how == "thread":
            import threading as t
            box = []
            worker = t.Thread(target=lambda: box.append(reference_square(x)))
            worker.start()
            worker.join()
            return box[0]
        if how == "pool":
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(1) as pool:
                return pool.submit(reference_square, x).result()
        if how == "refereeing":
            from grader.referees import refereeing
            with refereeing():
                return torch.tensor(x).square().numpy()
        import subprocess
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        return x * x

    namespace, graded = graded_namespace(around=around)
    with pytest.raises(CheckFailed):
        graded.around(np.ones(2))
    assert sys.gettrace() is None and threading.gettrace() is None
    assert threading.Thread.start.__name__ == "start"


def test_the_hook_is_not_handed_out() -> None:
    """sys.gettrace would give the student the watch, and its state (what it trusts)."""
    namespace, graded = graded_namespace(peek=lambda x: (sys.gettrace(), threading.gettrace()))
    assert graded.peek(1.0) == (None, None)


def test_may_call_trusts_a_referee_only_under_its_own_name() -> None:
    namespace = {"reference_square": reference_twice, "f": lambda x: namespace["reference_square"](x)}
    graded = Exercises(namespace, Exercise("f", may_call=("reference_square",)))
    with pytest.raises(ForbiddenCall, match="reference_twice"):
        graded.f(np.ones(2))


@referee
def reference_twice(x):
    return 2 * x


@referee
def reference_calls_back(f, x):
    return f(x)


def test_the_students_code_called_back_by_a_trusted_referee_is_watched_again() -> None:
    source = ("def outer(x):\n    return reference_calls_back(inner, x)\n\n"
              "def inner(x):\n    return reference_twice(x)\n")
    namespace: dict = {"reference_calls_back": reference_calls_back, "reference_twice": reference_twice}
    exec(compile(source, "/tmp/notebook_cells/cell3.py", "exec"), namespace)
    graded = Exercises(namespace, Exercise("outer", may_call=("reference_calls_back",)))
    with pytest.raises(ForbiddenCall, match="reference_twice"):
        graded.outer(np.ones(2))


def test_a_graded_call_inside_another_is_graded_by_its_own_rules() -> None:
    namespace = {"square": lambda x: x * x, "outer": lambda x: graded.square(x) + 1}
    graded = Exercises(namespace, Exercise("square"), Exercise("outer"))
    assert np.array_equal(graded.outer(np.full(2, 2.0)), [5.0, 5.0])
    assert sys.gettrace() is None


def test_a_loop_stops_at_its_line_budget_and_cells_are_recognised_in_plain_ipython() -> None:
    source = "def loops(x):\n    total = 0.0\n    for v in x:\n        total += v\n    return total\n"
    namespace: dict = {}
    exec(compile(source, "<ipython-input-7-0123456789ab>", "exec"), namespace)
    graded = Exercises(namespace, Exercise("loops", max_lines=20))
    with pytest.raises(CheckFailed, match="ran 21 lines of Python"):
        graded.loops(np.ones(10 ** 6))


def test_unknown_names_are_attribute_errors_and_inputs_with_nan_compare_equal() -> None:
    namespace, graded = graded_namespace(same=lambda *a: 0)
    assert not hasattr(graded, "shape")
    graded.same(torch.tensor([float("nan"), 1.0]), np.array([np.datetime64("NaT")]),
                np.array([np.ones(2), None], dtype=object))


def test_a_trusted_referee_of_a_notebook_cell_runs_its_own_comprehensions_trusted() -> None:
    source = ("@referee\ndef torch_net(params):\n"
              "    return {k: torch.tensor(v) for k, v in params.items()}\n\n"
              "def train(params):\n    return torch_net(params)\n")
    namespace: dict = {"referee": referee, "torch": torch}
    exec(compile(source, "/tmp/notebook_cells/cell4.py", "exec"), namespace)
    graded = Exercises(namespace, Exercise("train", may_call=("torch_net",)))
    assert set(graded.train({"w": np.ones(2)})) == {"w"}


def test_a_forbidden_function_stays_forbidden_after_its_name_is_rebound() -> None:
    def loops(x):
        return x + 1

    namespace = {"loops": loops}
    graded = Exercises(namespace, Exercise("loops"),
                       Exercise("vectorised", must_not_call={"loops": "the loop version"}))
    graded.loops(np.ones(2))                     # the check of the loop version saw it
    saved = namespace["loops"]
    namespace["loops"] = lambda x: x             # the name now holds something harmless
    namespace["vectorised"] = lambda x: saved(x)
    with pytest.raises(ForbiddenCall, match="not to call loops"):
        graded.vectorised(np.ones(2))


class _Square(torch.autograd.Function):
    """A student's Function: the check's autograd runs its backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x


class _RefereesBackward(_Square):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * reference_square(x) / x


class _AutogradBackward(_Square):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            leaf = x.detach().requires_grad_()
            (slope,) = torch.autograd.grad((leaf * leaf).sum(), leaf)
        return grad * slope


@pytest.mark.parametrize(("klass", "refusal"), [(_Square, None), (_RefereesBackward, ForbiddenCall),
                                                (_AutogradBackward, CheckFailed)])
def test_calling_back_trusts_the_checks_autograd_and_watches_the_students_backward(klass, refusal) -> None:
    graded = Exercises({"Square": klass}, Exercise("Square", uses="torch"))
    x = torch.tensor([1.5, -2.0], dtype=torch.float64, requires_grad=True)
    with graded.running("Square"):
        out = klass.apply(x)
    if refusal is None:
        with graded.calling_back("Square"):
            (dx,) = torch.autograd.grad(out.sum(), x)
        assert dx.tolist() == [3.0, -4.0]
        with pytest.raises(CheckFailed, match="autograd"), graded.running("Square"):
            torch.autograd.grad(klass.apply(x).sum(), x)   # the same call, outside calling_back: refused
    else:
        with pytest.raises(refusal), graded.calling_back("Square"):
            torch.autograd.grad(out.sum(), x)


_ELSEWHERE = '''
import os

import torch


class Elsewhere(torch.autograd.Function):
    _join = staticmethod(os.path.join)       # a library function first among the class's code

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return {body}
'''


@pytest.mark.parametrize(("body", "refusal"), [
    ("grad * 2 * reference_square(x) / x", ForbiddenCall),                       # a referee
    ("grad * torch.func.jvp(lambda t: t * t, (x,), (torch.ones_like(x),))[1]", CheckFailed),  # forward mode
    ("grad * 2 * torch.nn.functional.softplus(x) / torch.nn.functional.softplus(x) * x", ForbiddenCall),
])
def test_calling_back_watches_the_exercises_code_wherever_it_was_compiled(body, refusal) -> None:
    """The student's class, compiled under another file name and holding a library function, is
    still the student's: its backward runs under the exercise's rules, PyTorch's refusals included."""
    namespace = {"reference_square": reference_square}
    exec(compile(_ELSEWHERE.format(body=body), "/usr/lib/python3/elsewhere.py", "exec"), namespace)
    graded = Exercises(namespace, Exercise("Elsewhere", uses="torch", torch_refused=("softplus",)))
    x = torch.tensor([1.5, -2.0], dtype=torch.float64, requires_grad=True)
    out = namespace["Elsewhere"].apply(x)
    with pytest.raises(refusal), graded.calling_back("Elsewhere"):
        torch.autograd.grad(out.sum(), x)
