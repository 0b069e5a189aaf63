"""The worker's side of the in-kernel integrity guard (`_kernel_guard.py`): what it watches, the
cell that installs it, the expression that asks it, and the check of its signed answer.

The guard runs in the student's kernel; nothing the kernel says is trusted unless it carries the
HMAC of a key only this process and the guard know (`read_answer`).
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import json
import secrets
from pathlib import Path

GUARD_SOURCE = (Path(__file__).parent / "_kernel_guard.py").read_text(encoding="utf-8")

#: Modules whose attributes the guard watches (".*": with all submodules).
WATCHED_MODULES = [
    "builtins",
    "sys",
    "math",
    "cmath",
    "operator",
    "functools",
    "numbers",
    "warnings",
    "numpy",
    "numpy.linalg",
    "numpy.testing",
    "numpy.random",
    "numpy.lib",
    "numpy.ma",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.autograd",
    "torch.testing",
    "torch.linalg",
    "grader",
    "grader.*",
    "IPython.core.interactiveshell",
]



def new_guard() -> tuple[str, str]:
    """(module name, HMAC key) for one notebook's guard."""
    return f"_bpg_{secrets.token_hex(8)}", secrets.token_hex(32)


def install_code(token: str, key: str, roots: list[str]) -> str:
    """The cell that installs the guard: its module source and the install call, executed in a
    namespace of their own (nothing is added to the notebook's namespace)."""
    source = GUARD_SOURCE + f"\n_bpg_install({token!r}, {key!r}, {tuple(roots)!r}, {WATCHED_MODULES!r})\n"
    return f"exec(compile({source!r}, '<backprop-grade guard>', 'exec'), {{'__name__': '_bpg_guard'}})\n"


def call_expression(token: str, method: str, nonce: str, *args) -> str:
    arguments = ", ".join(repr(a) for a in (nonce, *args))
    return f"__import__('sys').modules[{token!r}].{method}({arguments})"


def read_answer(reply: dict, key: str, nonce: str) -> dict | None:
    """The guard's signed answer from an execute_reply's user_expressions, or None if forged."""
    try:
        expr = reply["content"]["user_expressions"]["r"]
        if expr.get("status") != "ok":
            return None
        text = ast.literal_eval(expr["data"]["text/plain"])
        outer = json.loads(text)
        mac = hmac.new(bytes.fromhex(key), (nonce + outer["body"]).encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(mac, outer["mac"]):
            return None
        return json.loads(outer["body"])
    except Exception:
        return None
