"""grader.by_hand: autograd refused inside a hand-written backward, forbidden and counted calls."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from grader import AutogradForbidden, CheckFailed, ForbiddenCall, by_hand, count_calls, forbid_calls

#: (code, what produces it): the positive examples tests/toolkit/hints/test_engine.py counts.
POSITIVE = [("autograd-by-hand", "a backward calling Tensor.backward"),
            ("forbidden-call", "an im2col calling the loop version")]


def _tensor(shape=(3, 2)):
    return torch.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape), requires_grad=True)


SHORTCUTS = {
    "Tensor.backward": lambda x: (x * 2).sum().backward(),
    "torch.autograd.grad": lambda x: torch.autograd.grad((x * 2).sum(), x),
    "torch.autograd.backward": lambda x: torch.autograd.backward((x * 2).sum()),
    "torch.func.grad": lambda x: torch.func.grad(lambda t: (t * 2).sum())(x.detach()),
    "torch.func.vjp": lambda x: torch.func.vjp(lambda t: t * 2, x.detach())[1](torch.ones_like(x)),
    "torch.func.jacrev": lambda x: torch.func.jacrev(lambda t: t * 2)(x.detach()),
    "torch.func.jacfwd": lambda x: torch.func.jacfwd(lambda t: t * 2)(x.detach()),
    "torch.func.jvp": lambda x: torch.func.jvp(lambda t: t * 2, (x.detach(),), (torch.ones_like(x),)),
    "functional.jacobian": lambda x: torch.autograd.functional.jacobian(lambda t: t * 2, x.detach()),
    "a saved reference": (lambda grad: lambda x: grad((x * 2).sum(), x))(torch.autograd.grad),
}


@pytest.mark.parametrize("how", list(SHORTCUTS))
def test_every_autograd_entry_point_is_refused_with_the_message(how, capsys) -> None:
    def relu_backward(dout, cache):
        SHORTCUTS[how](cache)
        return dout

    with pytest.raises(AutogradForbidden, match="backward pass by hand; autograd is the referee"):
        by_hand(relu_backward)(np.ones((3, 2)), _tensor())
    assert isinstance(AutogradForbidden(), CheckFailed)  # the cell scores nothing
    assert "[autograd-by-hand]" in capsys.readouterr().out


def test_forward_computations_and_autograd_outside_stay_allowed() -> None:
    def tanh_backward(dout, cache):
        return dout * (1 - torch.tanh(torch.as_tensor(cache)).numpy() ** 2)  # torch, no autograd

    x = np.linspace(-2, 2, 6)
    dx = by_hand(tanh_backward)(np.ones(6), x)
    np.testing.assert_allclose(dx, 1 - np.tanh(x) ** 2)
    t = _tensor()
    (t * 3).sum().backward()  # the referee, outside: untouched
    assert torch.equal(t.grad, torch.full((3, 2), 3.0, dtype=torch.float64))
    assert by_hand(lambda: 5)() == 5 and by_hand(tanh_backward).__name__ == "tanh_backward"


def test_a_rebound_entry_point_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(torch.autograd, "grad", lambda *a, **k: None)
    with pytest.raises(AutogradForbidden, match="torch.autograd.grad was replaced"):
        by_hand(lambda: 1)()


def test_forbid_calls_refuses_a_call_and_restores_the_name(capsys) -> None:
    def conv_forward_naive(x):
        return x

    namespace = {"conv_forward_naive": conv_forward_naive}
    exec("def conv_forward_im2col(x):\n    return conv_forward_naive(x)", namespace)
    with forbid_calls(namespace, conv_forward_naive="the loop version"):
        with pytest.raises(ForbiddenCall, match="not to call conv_forward_naive \\(the loop version\\)"):
            namespace["conv_forward_im2col"](1)
    assert namespace["conv_forward_naive"] is conv_forward_naive
    assert "[forbidden-call]" in capsys.readouterr().out
    with forbid_calls(namespace, not_defined="never there"):
        assert "not_defined" in namespace
    assert "not_defined" not in namespace


def test_forbid_calls_lets_a_name_through_inside_allowed_functions() -> None:
    """tanh_from_sigmoid may not call np.tanh itself; the student's sigmoid, which it calls, may."""
    import numpy

    namespace: dict = {"np": numpy}
    exec("def sigmoid(x):\n    return (1 + np.tanh(x / 2)) / 2\n"
         "def helper(x):\n    return np.tanh(x)\n"
         "def honest(x):\n    return 2 * sigmoid(2 * x) - 1\n"
         "def shortcut(x):\n    sigmoid(x)\n    return np.tanh(x)\n"
         "def hidden(x):\n    return helper(x)\n", namespace)
    expected = numpy.tanh(0.3)
    with forbid_calls(vars(numpy), allowed_within=[namespace["sigmoid"]], tanh="build it from your sigmoid"):
        assert abs(namespace["honest"](0.3) - expected) < 1e-15
        for name in ("shortcut", "hidden"):
            with pytest.raises(ForbiddenCall, match="not to call tanh"):
                namespace[name](0.3)
    assert numpy.tanh(0.0) == 0.0


def test_count_calls_counts_calls_made_through_the_namespace() -> None:
    namespace: dict = {}
    exec("def single(i):\n    return i\ndef loop(n):\n    return [single(i) for i in range(n)]", namespace)
    original = namespace["single"]
    with count_calls(namespace, "single") as calls:
        assert namespace["loop"](4) == [0, 1, 2, 3]
    assert calls.count == 4 and namespace["single"] is original


def test_a_function_that_imports_torch_itself_is_run_again_guarded() -> None:
    import subprocess
    import sys

    code = ("import numpy as np\nfrom grader import AutogradForbidden, by_hand\n"
            "def double(x):\n    import torch\n"
            "    t = torch.tensor(np.asarray(x, dtype=float), requires_grad=True)\n"
            "    (t * t).sum().backward()\n    return t.grad.numpy()\n"
            "try:\n    by_hand(double)(np.ones(2))\n    print('SCORED')\n"
            "except AutogradForbidden:\n    print('REFUSED')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().endswith("REFUSED"), out.stdout + out.stderr


def test_a_tensor_subclass_switch_leaves_the_refusal_on() -> None:
    def relu_backward(dout, cache):
        with torch._C.DisableTorchFunctionSubclass():  # what a tensor subclass may use: modes stay on
            (cache * 2).sum().backward()
        return dout

    with pytest.raises(AutogradForbidden):
        by_hand(relu_backward)(np.ones((3, 2)), _tensor())


def test_forbid_calls_is_a_decorator_too() -> None:
    namespace: dict = {"loops": lambda: "slow"}
    exec("def fast():\n    return loops()", namespace)
    original = namespace["loops"]
    vectorised = forbid_calls(namespace, loops="the exercise is to do without them")
    with pytest.raises(ForbiddenCall, match="not to call loops"):
        vectorised(namespace["fast"])()
    assert namespace["loops"] is original and namespace["fast"]() == "slow"


def test_forward_first_refuses_another_layer_with_its_advice() -> None:
    from grader import forward_first

    expected = np.tanh(np.arange(6.0).reshape(2, 3))
    forward_first(expected.copy(), expected, "next_h", "the RNN step")  # the layer itself: silent
    with pytest.raises(CheckFailed, match="does not match the RNN step: fix it first .* Start from h0"):
        forward_first(expected + 1, expected, "next_h", "the RNN step", " Start from h0.")
    with pytest.raises(CheckFailed, match=r"not shaped like the output of the RNN step, \(2, 3\)"):
        forward_first(expected[0], expected, "next_h", "the RNN step")
    with pytest.raises(CheckFailed, match="does not match"):
        forward_first(np.full((2, 3), np.nan), expected, "next_h", "the RNN step")
