"""grader.trusted: whatever a student returns becomes plain data before anything compares it."""

from __future__ import annotations

import builtins
import sys

import numpy as np
import pytest

import grader
from grader import BadReturnValue, CheckFailed, as_array, as_dict, as_float, as_items, check_close
from tests.grading.liars import corpus


def _liar(mode: str, real):
    corpus.LIAR_MODE = mode
    try:
        return corpus._lie(real)
    finally:
        corpus.LIAR_MODE = "subclass"


REAL = np.array([[1.0, -2.0], [0.5, 3.0]])


class TestConversion:
    def test_array_subclass_gives_its_buffer(self):
        liar = _liar("subclass", REAL)
        assert np.allclose(liar, REAL) and (liar == REAL).all()  # it lies to numpy and ==
        got = as_array(liar, "out", shape=(2, 2))
        assert type(got) is np.ndarray and np.array_equal(got, REAL + 1)
        assert not np.shares_memory(got, liar)

    def test_float_subclass_gives_its_value(self):
        liar = _liar("subclass", 2.5)
        assert liar == 2.5 and abs(liar - 2.5) == 0 and float(liar) == 2.5
        got = as_float(liar, "loss")
        assert type(got) is float and got == 3.5

    @pytest.mark.parametrize("real", [REAL, 2.5])
    def test_lying_array_protocol_is_refused(self, real):
        duck = _liar("duck", real)
        assert np.allclose(np.asarray(duck), real)  # __array__ gives the right answer
        with pytest.raises(BadReturnValue, match="must be one"):
            as_array(duck, "out")

    def test_array_priority_and_reflected_operators_do_not_reach_check_close(self):
        for mode in ("subclass", "duck"):
            with pytest.raises(CheckFailed):
                check_close("out", _liar(mode, REAL), REAL)
        check_close("out", REAL.copy(), REAL)

    def test_dict_subclass_is_read_from_its_storage(self):
        real = {"W": REAL, "b": np.ones(2)}
        liar = _liar("subclass", real)
        assert np.allclose(liar["W"], REAL)  # __getitem__ lies
        got = as_dict(liar, "grads", keys=["W", "b"])
        assert type(got) is dict and np.array_equal(got["W"], REAL + 1)
        assert np.array_equal(got["b"], 2 * np.ones(2))
        with pytest.raises(BadReturnValue, match="exactly the keys"):
            as_dict(liar, "grads", keys=["W"])

    def test_value_with_a_grad_property(self):
        class Value:
            def __init__(self, data):
                self.data, self.grad = data, 0.0

        Liar = corpus._lying_class(Value)
        corpus.LIAR_MODE = "duck"
        try:
            DuckLiar = corpus._lying_class(Value)
            v = DuckLiar(2.0)
            assert isinstance(type(v).__dict__["grad"], property)
            assert v.grad == 0.0 and float(v.grad) == 0.0  # it lies
            with pytest.raises(BadReturnValue):
                as_float(v.grad, "v.grad")
        finally:
            corpus.LIAR_MODE = "subclass"
        assert as_float(Liar(2.0).data, "v.data") == 3.0

    def test_tuple_subclass_items_come_from_storage(self):
        class Lying(tuple):
            def __getitem__(self, i):
                return 0.0

            def __len__(self):
                return 3

            def __iter__(self):
                return iter((0.0, 0.0, 0.0))

        assert as_items(Lying((1.0, 2.0)), "result", 2) == (1.0, 2.0)
        with pytest.raises(BadReturnValue, match="but it has 2 items"):
            as_items(Lying((1.0, 2.0)), "result", 3, ("dx", "dw", "db"))

    @pytest.mark.parametrize(
        ("value", "words"),
        [
            ([np.ones((2, 2))] * 2, "must be one array of shape (2, 2), but it is a list of 2 arrays"),
            (None, "but it is None"),
            (np.array(["a"]), "but it is an array of shape (1,)"),
            (np.ones(3), "but it has shape (3,)"),
            (np.array([object()]), "must be one array"),
        ],
    )
    def test_clear_messages(self, value, words):
        with pytest.raises(BadReturnValue) as failure:
            as_array(value, "your function's result", shape=(2, 2))
        assert words in str(failure.value)

    def test_float64_only(self):
        with pytest.raises(BadReturnValue, match="dtype float32"):
            as_array(np.ones(2, dtype=np.float32), "dx", float64=True)
        assert as_array(np.arange(3), "dx").dtype == np.float64
        assert as_array([1, 2], "dx").tolist() == [1.0, 2.0]

    def test_torch_subclass_is_read_without_its_overrides(self):
        torch = pytest.importorskip("torch")
        liar = corpus._lie_tensor(torch.tensor([1.0, 2.0], dtype=torch.float64))
        assert torch.allclose(liar, torch.tensor([1.0, 2.0], dtype=torch.float64))
        assert as_array(liar, "y").tolist() == [2.0, 3.0]


class TestEnvironment:
    def test_patched_numpy_is_reported(self, monkeypatch):
        monkeypatch.setattr(np, "allclose", lambda *a, **k: True)
        with pytest.raises(CheckFailed, match="numpy.allclose was replaced"):
            check_close("x", np.ones(2), np.ones(2))

    def test_patched_builtin_is_reported(self, monkeypatch):
        monkeypatch.setattr(builtins, "abs", lambda x: 0)
        with pytest.raises(CheckFailed, match="builtins.abs was replaced"):
            as_float(1.0, "x")

    def test_patched_toolkit_is_reported(self, monkeypatch):
        monkeypatch.setattr(grader, "rel_error", lambda *a: 0.0)
        with pytest.raises(CheckFailed, match="grader.rel_error was replaced"):
            as_float(1.0, "x")

    def test_deleted_attribute_and_replaced_module_are_reported(self, monkeypatch):
        monkeypatch.delattr(np, "isclose")
        with pytest.raises(CheckFailed, match="numpy.isclose was deleted"):
            as_float(1.0, "x")
        monkeypatch.undo()
        import math
        import types

        monkeypatch.setitem(sys.modules, "math", types.ModuleType("math"))
        with pytest.raises(CheckFailed, match="sys.modules\\['math'\\] was replaced"):
            as_float(1.0, "x")
        monkeypatch.undo()
        assert sys.modules["math"] is math
        as_float(1.0, "x")

    def test_shadowed_names_in_a_notebook_cell(self):
        source = "check_close = lambda *a, **k: None\nabs = lambda x: 0\nas_float(abs(-1.0), 'x')\n"
        cell = compile(source, "<cell>", "exec")
        namespace = {"__name__": "__main__", "as_float": as_float}
        with pytest.raises(CheckFailed) as failure:
            exec(cell, namespace)
        assert "the builtin `abs`" in str(failure.value)
        ok = {"__name__": "__main__", "as_float": as_float}
        exec(compile("total = 3\nas_float(abs(-1.0), 'x')\n", "<cell>", "exec"), ok)


def test_items_of_a_stacked_array():
    dx, dw, db = as_items(np.array([1.0, 2.0, 3.0]), "relu_neuron_backward's result", 3)
    assert (dx, dw, db) == (1.0, 2.0, 3.0)
    with pytest.raises(BadReturnValue, match="but it has 2 items"):
        as_items(np.ones((2, 4)), "result", 3)


def test_tuple_liar_of_the_corpus():
    real = (REAL, 2.0)
    liar = _liar("subclass", real)
    out, loss = liar  # unpacking gives the right answers
    assert out is REAL and loss == 2.0
    out, loss = as_items(liar, "result", 2)
    assert np.array_equal(as_array(out, "out"), REAL + 1) and as_float(loss, "loss") == 3.0
