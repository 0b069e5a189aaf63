"""The in-kernel integrity guard, run in this process on a fake library module: a library that
re-wraps its own function (torch wraps torch.manual_seed when torch._dynamo loads) is fine;
notebook code planted into a module, or a swap for another function, is tampering; answers are
signed."""

from __future__ import annotations

import functools
import json
import sys
import types

from grader.instructor.grading import guard_host
from tests.nbgrader_harness import REPO


def _reply(text: str) -> dict:
    """An execute_reply carrying the guard's answer, as the worker receives it."""
    return {"content": {"user_expressions": {"r": {"status": "ok", "data": {"text/plain": repr(text)}}}}}


def _answer(text: str, key: str, nonce: str) -> dict:
    """The guard's answer, read by the worker's own reader (which checks the signature)."""
    answer = guard_host.read_answer(_reply(text), key, nonce)
    assert answer is not None, "the guard's answer did not verify"
    return answer


def test_guard_tells_library_rewraps_from_patches():
    lib = types.ModuleType("fakelib_bpg")

    def seed(x):
        return x

    def close(a, b):
        return a == b

    def other(a, b):
        return True

    lib.seed, lib.close, lib.other = seed, close, other
    sys.modules["fakelib_bpg"] = lib
    token, key = guard_host.new_guard()
    ns: dict = {}
    try:
        exec(guard_host.GUARD_SOURCE, ns)
        ns["_bpg_install"](token, key, (str(REPO),), ["fakelib_bpg"])
        guard = sys.modules[token]
        assert _answer(guard.verify("n0", []), key, "n0") == {"tamper": [], "suspicious": []}

        lib.seed = functools.wraps(seed)(lambda x: seed(x))  # a library wrapping its own function
        assert _answer(guard.verify("n1", []), key, "n1")["tamper"] == []

        notebook: dict = {}
        exec(compile("def close(a, b):\n    return True\n", "/tmp/ipykernel_1/42.py", "exec"), notebook)
        lib.close = notebook["close"]  # what `np.allclose = ...` in a cell does
        found = _answer(guard.verify("n2", []), key, "n2")["tamper"]
        assert found == ["fakelib_bpg.close was replaced by notebook code (now close)"]

        lib.close = other  # swapped for another library function
        found = _answer(guard.verify("n3", []), key, "n3")["tamper"]
        assert len(found) == 1 and found[0].startswith("fakelib_bpg.close was replaced (now ")
        # a forged answer does not verify
        forged = json.dumps({"body": json.dumps({"tamper": [], "suspicious": []}), "mac": "0" * 64})
        assert guard_host.read_answer(_reply(forged), key, "n4") is None
        # a genuine answer replayed under another nonce does not verify either
        assert guard_host.read_answer(_reply(guard.verify("n5", [])), key, "n6") is None
    finally:
        sys.modules.pop("fakelib_bpg", None)
        sys.modules.pop(token, None)
