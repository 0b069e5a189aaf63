"""Alternative correct solutions and typical mistakes for course/09_leaky_abstraction.

Autograded with the real nbgrader by tests/test_grading.py: every alternative must score full
marks; every mistake must score 0 on exactly the cells in `must_fail` and full marks elsewhere.

Graded cells: test_huber_value (2), test_huber_grad (2), test_huber_delta (1),
test_softplus_forward (1), test_softplus_gradcheck (2), test_softplus_extremes (1),
test_dW3 (1), test_db3 (1), test_dW2 (2), test_db2 (1), test_dW1 (2), test_db1 (1).
Each mistake is a reference solution with one or two lines changed (`_variant`).
"""

# The reference solutions, as a student would write them (markers removed).
_HUBER = '''\
def huber_loss(pred, target, delta=1.0):
    error = pred - target
    quadratic = np.abs(error) <= delta
    per_element = np.where(quadratic, 0.5 * error**2, delta * (np.abs(error) - 0.5 * delta))
    loss = float(per_element.mean())
    dpred = np.clip(error, -delta, delta) / error.size
    return loss, dpred
'''

_SOFTPLUS = '''\
class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        small = torch.exp(-torch.abs(x))
        sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))
        return grad_output * sigmoid
'''

_FIXED_NET = '''\
class FixedNet(BuggyNet):
    def backward(self, dscores, cache):
        X, a, h, g, r = cache
        p = self.params
        grads = {}
        grads["W3"] = r.T @ dscores
        grads["b3"] = dscores.sum(axis=0)
        dr = dscores @ p["W3"].T
        dh = dr
        dg = dr * (g > 0)
        grads["W2"] = h.T @ dg
        grads["b2"] = dg.sum(axis=0)
        dh = dh + dg @ p["W2"].T
        da = dh * (1 - h**2)
        grads["W1"] = X.T @ da
        grads["b1"] = da.sum(axis=0)
        return grads
'''


def _variant(source: str, *edits: tuple[str, str]) -> str:
    """`source` with each `old` line (which must occur exactly once) replaced by `new`."""
    for old, new in edits:
        assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in the reference"
        source = source.replace(old, new)
    return source


ALTERNATIVES = {
    # Boolean masks and np.sign instead of np.where / np.clip, np.asarray copies, sum / size,
    # the loss returned as a NumPy scalar.
    "huber_loss": '''\
def huber_loss(pred, target, delta=1.0):
    r = np.asarray(pred, dtype=np.float64) - np.asarray(target, dtype=np.float64)
    size = np.abs(r)
    linear = size > delta
    per_element = 0.5 * r * r
    per_element[linear] = delta * size[linear] - 0.5 * delta * delta
    grad = r.copy()
    grad[linear] = delta * np.sign(r[linear])
    return per_element.sum() / r.size, grad / r.size
''',
    # PyTorch's own formula (F.softplus, threshold 20): x itself above 20, an error of up to
    # exp(-20) / 20 = 1e-10 relative there; saves the *output* and gets the sigmoid back as
    # 1 - exp(-y) = -expm1(-y).
    "stable_softplus": '''\
class StableSoftplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.where(x > 20, x, torch.log1p(torch.exp(torch.clamp(x, max=20))))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return -torch.expm1(-y) * grad_output
''',
    # einsum and np.dot, the ReLU through np.where, dh accumulated with += from zeros, the tanh
    # slope recomputed from a, the trace kept.
    "fixed_net": '''\
class FixedNet(BuggyNet):
    def backward(self, dscores, cache):
        X, a, h, g, r = cache
        W2, W3 = self.params["W2"], self.params["W3"]
        grads = {"W3": np.einsum("nh,nc->hc", r, dscores), "b3": np.einsum("nc->c", dscores)}
        dr = np.dot(dscores, W3.T)
        dg = np.where(g > 0, dr, 0.0)
        grads["W2"] = np.einsum("ni,nj->ij", h, dg)
        grads["b2"] = np.einsum("nj->j", dg)
        dh = np.zeros_like(h)
        dh += dr
        dh += np.dot(dg, W2.T)
        da = dh * (1.0 - np.tanh(a) ** 2)
        grads["W1"] = np.dot(X.T, da)
        grads["b1"] = np.sum(da, axis=0)
        self.trace = {"scores": dscores, "r": dr, "g": dg, "h": dh, "a": da}
        return grads
''',
}

MISTAKES = [
    {
        # The loss is a mean, but the gradient forgets the 1/M: every entry M times too big.
        "name": "huber gradient summed, not averaged",
        "cells": {"huber_loss": _variant(
            _HUBER,
            ("dpred = np.clip(error, -delta, delta) / error.size", "dpred = np.clip(error, -delta, delta)"),
        )},
        "must_fail": ["test_huber_grad", "test_huber_delta"],
    },
    {
        # The DQN bug: clip the error, then square it. Right for small errors, zero gradient
        # (and a flat loss) for large ones.
        "name": "clips the error before squaring",
        "cells": {"huber_loss": _variant(
            _HUBER,
            ("per_element = np.where(quadratic, 0.5 * error**2, delta * (np.abs(error) - 0.5 * delta))",
             "per_element = 0.5 * np.clip(error, -delta, delta) ** 2"),
            ("dpred = np.clip(error, -delta, delta) / error.size",
             "dpred = np.clip(error, -delta, delta) * quadratic / error.size"),
        )},
        "must_fail": ["test_huber_value", "test_huber_grad", "test_huber_delta"],
    },
    {
        # Written for the default only: every delta becomes 1.
        "name": "huber delta ignored",
        "cells": {"huber_loss": _variant(
            _HUBER,
            ("quadratic = np.abs(error) <= delta", "quadratic = np.abs(error) <= 1.0"),
            ("per_element = np.where(quadratic, 0.5 * error**2, delta * (np.abs(error) - 0.5 * delta))",
             "per_element = np.where(quadratic, 0.5 * error**2, np.abs(error) - 0.5)"),
            ("dpred = np.clip(error, -delta, delta) / error.size",
             "dpred = np.clip(error, -1.0, 1.0) / error.size"),
        )},
        "must_fail": ["test_huber_delta"],
    },
    {
        # The local derivative alone: right when grad_output is all ones (loss.sum()), wrong in
        # any real graph; gradcheck sees it.
        "name": "softplus backward ignores grad_output",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, ("return grad_output * sigmoid", "return sigmoid"))},
        "must_fail": ["test_softplus_gradcheck"],
    },
    {
        # The sigmoid straight from the textbook: exp(x) overflows to inf, and inf / inf = nan.
        "name": "softplus backward exp(x) / (1 + exp(x))",
        "cells": {"stable_softplus": _variant(
            _SOFTPLUS,
            ("sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))",
             "sigmoid = torch.exp(x) / (1 + torch.exp(x))"),
        )},
        "must_fail": ["test_softplus_extremes"],
    },
    {
        # The textbook forward: inf for large x. The backward (from the saved x) is still right.
        "name": "softplus forward log(1 + exp(x))",
        "cells": {"stable_softplus": _variant(
            _SOFTPLUS,
            ("out = torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))",
             "out = torch.log(1 + torch.exp(x))"),
        )},
        "must_fail": ["test_softplus_forward"],
    },
    {
        # Fixed the two lines the hints named; the fan-out and the tanh slope are still wrong.
        "name": "net: skip overwritten and tanh slope from the input",
        "cells": {"fixed_net": _variant(
            _FIXED_NET,
            ("dh = dh + dg @ p[\"W2\"].T", "dh = dg @ p[\"W2\"].T"),
            ("da = dh * (1 - h**2)", "da = dh * (1 - a**2)"),
        )},
        "must_fail": ["test_dW1", "test_db1"],
    },
    {
        # Fixed the chain (steps 2 and 3), forgot the two bugs the hints named in step 1.
        "name": "net: b3 averaged twice and dW2 transposed",
        "cells": {"fixed_net": _variant(
            _FIXED_NET,
            ("grads[\"b3\"] = dscores.sum(axis=0)", "grads[\"b3\"] = dscores.mean(axis=0)"),
            ("grads[\"W2\"] = h.T @ dg", "grads[\"W2\"] = dg.T @ h"),
        )},
        "must_fail": ["test_db3", "test_dW2"],
    },
]
