"""Alternative correct solutions and typical mistakes for course/13_leaky_abstraction.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

Graded cells: test_huber_value (1), test_huber_grad (2), test_huber_delta (2),
test_softplus_forward (1), test_softplus_gradcheck (2), test_softplus_extremes (2),
test_dW3 (1), test_db3 (1), test_dW2 (2), test_db2 (1), test_dW1 (2), test_db1 (1),
test_huber_fit (1), test_predicted_flops (2), test_gradient_errors (1), test_first_wrong (1),
test_dh_parts (1), test_local_tanh_error (1), test_unit_health (1): 26 points.
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


_HUBER_FIT = '''\
def huber_fit(x, t, steps=100, lr=0.2, delta=1.0):
    w = 0.0
    for _ in range(steps):
        _, dq = huber_loss(w * x, t, delta)
        w -= lr * np.sum(dq * x)
    return float(w)
'''

_FLOPS = '''\
def predicted_flops(B, n, depth):
    one_product = 2 * B * n * n
    forward = depth * one_product
    backward = (2 * depth - 1) * one_product
    return forward, backward
'''

_GRADIENT_ERRORS = '''\
def gradient_errors(net, X, y):
    _, grads = net.loss(X, y)
    errors = {}
    for name, param in net.params.items():
        numeric = eval_numerical_gradient(lambda _: net.loss(X, y)[0], param)
        errors[name] = rel_error(grads[name], numeric)
    return errors
'''

_FIRST_WRONG = '''\
def first_wrong(trace, reference, order, tol=1e-6):
    for name in order:
        if rel_error(trace[name], reference[name]) > tol:
            return name
    return None
'''

_DH_PARTS = '''\
def dh_parts(dr, dg, W2):
    through_skip = dr
    through_W2 = dg @ W2.T
    return through_skip, through_W2
'''

_LOCAL_TANH = '''\
def local_tanh_error(dh, da, h):
    right_da = dh * (1 - h**2)
    return rel_error(da, right_da)
'''

_UNIT_HEALTH = '''\
def unit_health(out, kind):
    if kind == "tanh":
        return float(np.mean(np.abs(out) > 0.99))
    return float(np.mean(np.all(out == 0, axis=0)))
'''


def _variant(source: str, *edits: tuple[str, str]) -> str:
    """`source` with each `old` line (which must occur exactly once) replaced by `new`."""
    for old, new in edits:
        assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in the reference"
        source = source.replace(old, new)
    return source


ALTERNATIVES = {
    # The gradient of the mean loss by hand-written chain rule through q, with np.dot.
    "huber_fit": '''\
def huber_fit(x, t, steps=100, lr=0.2, delta=1.0):
    w = np.float64(0.0)
    for step in range(steps):
        loss, dL_dq = huber_loss(x * w, t, delta=delta)
        dL_dw = np.dot(dL_dq, x)
        w = w - lr * dL_dw
    return w
''',
    # Layer by layer, counting each product's 2abc.
    "predicted_flops": '''\
def predicted_flops(B, n, depth):
    forward = backward = 0
    for layer in range(depth):
        forward += 2 * B * n * n
        backward += 2 * n * B * n
        if layer > 0:
            backward += 2 * B * n * n
    return forward, backward
''',
    # The numerical gradient by hand (centred differences), the parameter restored each time.
    "gradient_errors": '''\
def gradient_errors(net, X, y):
    grads = net.loss(X, y)[1]
    result = {}
    for name in net.params:
        p = net.params[name]
        numeric = np.zeros_like(p)
        for i in np.ndindex(p.shape):
            old = p[i]
            p[i] = old + 1e-5
            plus = net.loss(X, y)[0]
            p[i] = old - 1e-5
            minus = net.loss(X, y)[0]
            p[i] = old
            numeric[i] = (plus - minus) / 2e-5
        result[name] = rel_error(grads[name], numeric)
    return result
''',
    # All the errors first, then the first over tol (next with a default).
    "first_wrong": '''\
def first_wrong(trace, reference, order, tol=1e-6):
    errors = [rel_error(trace[k], reference[k]) for k in order]
    return next((k for k, e in zip(order, errors) if e > tol), None)
''',
    # np.dot with the transpose, a copy along the skip.
    "dh_parts": '''\
def dh_parts(dr, dg, W2):
    return dr.copy(), np.dot(dg, W2.transpose())
''',
    # The slope as (1 - h)(1 + h).
    "local_tanh_error": '''\
def local_tanh_error(dh, da, h):
    return rel_error(da, dh * (1 - h) * (1 + h))
''',
    # Counts instead of means; a dead unit is one whose largest |output| is 0.
    "unit_health": '''\
def unit_health(out, kind):
    if kind == "relu":
        return np.sum(np.abs(out).max(axis=0) == 0) / out.shape[1]
    return np.count_nonzero(np.abs(out) > 0.99) / out.size
''',
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
        "must_fail": ["test_huber_grad", "test_huber_delta", "test_huber_fit"],
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
        "must_fail": ["test_huber_value", "test_huber_grad", "test_huber_delta", "test_huber_fit"],
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
        "must_fail": ["test_huber_delta", "test_huber_fit"],
    },
    {
        # Lesson 7's huber_gradient reused at e / delta without the chain rule's factors
        # (delta² in front, 1/delta inside): 1/delta times the right dpred, right for delta = 1 only.
        # Its visible hint (printed, not in the error) is tested in tests/lessons/test_lesson_references.py.
        "name": "huber: lesson 7's slope at e / delta, not rescaled",
        "cells": {"huber_loss": _variant(
            _HUBER,
            ("dpred = np.clip(error, -delta, delta) / error.size",
             "dpred = np.clip(error / delta, -1.0, 1.0) / error.size"),
        )},
        "must_fail": ["test_huber_delta", "test_huber_fit"],
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
    {
        # The chain rule without dq_i/dw = x_i.
        "name": "huber fit forgets x in dL/dw",
        "cells": {"huber_fit": _variant(_HUBER_FIT, ("w -= lr * np.sum(dq * x)", "w -= lr * np.sum(dq)"))},
        "must_fail": ["test_huber_fit"],
    },
    {
        # The first layer's input gradient counted too: 2 * depth products backward.
        "name": "flops: dX of the first layer counted",
        "cells": {"predicted_flops": _variant(_FLOPS, ("backward = (2 * depth - 1) * one_product",
                                                       "backward = 2 * depth * one_product"))},
        "must_fail": ["test_predicted_flops"],
        "message": "needs no gradient",
    },
    {
        # Only dW (or only dX) per layer: the backward pass counted like the forward one.
        "name": "flops: one backward product per layer",
        "cells": {"predicted_flops": _variant(_FLOPS, ("backward = (2 * depth - 1) * one_product",
                                                       "backward = depth * one_product"))},
        "must_fail": ["test_predicted_flops"],
        "message": "one product per layer",
    },
    {
        # A product of (a, b) by (b, c) counted as abc, the multiply-add once.
        "name": "flops: abc per product, not 2abc",
        "cells": {"predicted_flops": _variant(_FLOPS, ("one_product = 2 * B * n * n",
                                                       "one_product = B * n * n"))},
        "must_fail": ["test_predicted_flops"],
        "message": "counts 2abc FLOPs",
    },
    {
        # A copy is nudged, so the loss never sees the nudges: every numerical gradient is 0.
        "name": "gradient check nudges a copy of the parameter",
        "cells": {"gradient_errors": _variant(
            _GRADIENT_ERRORS,
            ("numeric = eval_numerical_gradient(lambda _: net.loss(X, y)[0], param)",
             "numeric = eval_numerical_gradient(lambda _: net.loss(X, y)[0], param.copy())"),
        )},
        "must_fail": ["test_gradient_errors"],
    },
    {
        # No early return: the last wrong intermediate, not the first.
        "name": "first_wrong returns the last wrong one",
        "cells": {"first_wrong": _variant(
            _FIRST_WRONG,
            ("    for name in order:", "    found = None\n    for name in order:"),
            ("            return name", "            found = name"),
            ("    return None", "    return found"),
        )},
        "must_fail": ["test_first_wrong"],
    },
    {
        # The input's rule without the transpose (W2 is square, so the shape is right).
        "name": "dh through W2 without the transpose",
        "cells": {"dh_parts": _variant(_DH_PARTS, ("through_W2 = dg @ W2.T", "through_W2 = dg @ W2"))},
        "must_fail": ["test_dh_parts"],
    },
    {
        # The slope of the sigmoid, h(1 - h), instead of tanh's.
        "name": "local tanh check with the sigmoid's slope",
        "cells": {"local_tanh_error": _variant(
            _LOCAL_TANH, ("right_da = dh * (1 - h**2)", "right_da = dh * h * (1 - h)"))},
        "must_fail": ["test_local_tanh_error"],
    },
    {
        # A unit counted dead when it is zero for any example, not for every one.
        "name": "dead unit: zero for some example",
        "cells": {"unit_health": _variant(
            _UNIT_HEALTH, ("np.all(out == 0, axis=0)", "np.any(out == 0, axis=0)"))},
        "must_fail": ["test_unit_health"],
    },
]

# Shortcuts: each exercise handed to a reference the lesson shows, or to PyTorch. The declaration in
# the setup cell (graded = Exercises(...)) refuses them, in the visible check and the hidden tests.
_REFUSED = "PyTorch is the referee of the checks, not the answer"
MISTAKES += [
    {
        "name": "shortcut: huber_loss is the locked cell's torch_huber",
        "cells": {"huber_loss": "def huber_loss(pred, target, delta=1.0):\n"
                                "    return torch_huber(pred, target, delta)\n"},
        "must_fail": ["test_huber_value", "test_huber_grad", "test_huber_delta", "test_huber_fit"],
        "message": _REFUSED,
    },
    {
        "name": "shortcut: huber_fit calls the check's torch_huber_fit",
        "cells": {"huber_fit": "def huber_fit(x, t, steps=100, lr=0.2, delta=1.0):\n"
                               "    return torch_huber_fit(x, t, steps, lr, delta)\n"},
        "must_fail": ["test_huber_fit"],
        "message": _REFUSED,
    },
    {
        "name": "shortcut: predicted_flops counts with measured_flops",
        "cells": {"predicted_flops": "def predicted_flops(B, n, depth):\n"
                                     "    return measured_flops(B, n, depth)\n"},
        "must_fail": ["test_predicted_flops"],
        "message": _REFUSED,
    },
    {
        "name": "shortcut: FixedNet.loss returns the referee's gradients",
        "cells": {"fixed_net": "class FixedNet(BuggyNet):\n    def loss(self, X, y):\n"
                               "        loss, grads, _ = torch_reference(self.params, X, y)\n"
                               "        return loss, grads\n"},
        "must_fail": ["test_dW3", "test_db3", "test_dW2", "test_db2", "test_dW1", "test_db1"],
        "message": _REFUSED,
    },
    {
        # the colleague's backward, patched where the hints pointed: it is a reference, refused
        "name": "shortcut: FixedNet patches BuggyNet's backward",
        "cells": {"fixed_net": "class FixedNet(BuggyNet):\n    def backward(self, dscores, cache):\n"
                               "        grads = BuggyNet.backward(self, dscores, cache)\n"
                               "        grads[\"b3\"] = dscores.sum(axis=0)\n"
                               "        return grads\n"},
        "must_fail": ["test_dW3", "test_db3", "test_dW2", "test_db2", "test_dW1", "test_db1"],
        "message": "one of the course's references",
    },
    {
        "name": "shortcut: gradient_errors compares with the referee's gradients, not a numerical gradient",
        "cells": {"gradient_errors": "def gradient_errors(net, X, y):\n"
                                     "    _, grads = net.loss(X, y)\n"
                                     "    _, truth, _ = torch_reference(net.params, X, y)\n"
                                     "    return {name: rel_error(grads[name], truth[name])\n"
                                     "            for name in grads}\n"},
        "must_fail": ["test_gradient_errors"],
        "message": _REFUSED,
    },
    {
        "name": "shortcut: StableSoftplus's forward is F.softplus",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "out = torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))", "out = F.softplus(x)"))},
        "must_fail": ["test_softplus_forward", "test_softplus_gradcheck", "test_softplus_extremes"],
        "message": "compute what torch's softplus computes",
    },
    {
        # the backward runs inside autograd, called by the check: it is watched there too
        "name": "shortcut: StableSoftplus's backward is the check's softplus_reference_dx",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "        small = torch.exp(-torch.abs(x))\n"
            "        sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))\n"
            "        return grad_output * sigmoid",
            "        return torch.from_numpy(softplus_reference_dx(x, grad_output)).to(x.dtype)"))},
        "must_fail": ["test_softplus_gradcheck", "test_softplus_extremes"],
        "message": "one of the course's references",
    },
    {
        # the derivative is the sigmoid, and torch.sigmoid computes it without overflow: the
        # stable derivation skipped. Refused under every name (torch, Tensor, F, special, nn).
        "name": "shortcut: StableSoftplus's backward is torch.sigmoid",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))",
            "sigmoid = torch.sigmoid(x)"))},
        "must_fail": ["test_softplus_gradcheck", "test_softplus_extremes"],
        "message": "compute what torch's sigmoid computes",
    },
    {
        "name": "shortcut: StableSoftplus's backward is torch.special.expit",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))",
            "sigmoid = torch.special.expit(x)"))},
        "must_fail": ["test_softplus_gradcheck", "test_softplus_extremes"],
        "message": "compute what torch's special_expit computes",
    },
    {
        # sigmoid = exp(log sigmoid): log_sigmoid is stable, so is its exp
        "name": "shortcut: StableSoftplus's backward is exp(F.logsigmoid(x))",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))",
            "sigmoid = torch.exp(F.logsigmoid(x))"))},
        "must_fail": ["test_softplus_gradcheck", "test_softplus_extremes"],
        "message": "compute what torch's log_sigmoid computes",
    },
    {
        # softmax over (x, 0) is (sigmoid(x), sigmoid(-x)), computed stably by the library
        "name": "shortcut: StableSoftplus's backward is a softmax over (x, 0)",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))",
            "sigmoid = torch.softmax(torch.stack([x, torch.zeros_like(x)]), dim=0)[0]"))},
        "must_fail": ["test_softplus_gradcheck", "test_softplus_extremes"],
        "message": "compute what torch's softmax computes",
    },
    {
        # the forward through logsumexp over (x, 0): the library's stable softplus, as logaddexp is
        "name": "shortcut: StableSoftplus's forward is a logsumexp over (x, 0)",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "out = torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))",
            "out = torch.logsumexp(torch.stack([x, torch.zeros_like(x)]), dim=0)"))},
        "must_fail": ["test_softplus_forward", "test_softplus_gradcheck", "test_softplus_extremes"],
        "message": "compute what torch's logsumexp computes",
    },
    {
        # correct, keeps full marks: the stable formula as the text writes it, log(1 + s) with
        # torch.log, not log1p: exact to 1e-16 absolute, but not relative for x below -37
        "name": "softplus forward with torch.log(1 + exp(-|x|))",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "torch.log1p(torch.exp(-torch.abs(x)))", "torch.log(1 + torch.exp(-torch.abs(x)))"))},
        "must_fail": [],
    },
    {
        # correct, keeps full marks: sigma(x) = 1 - sigma(-x) on the negative side, 0 (not
        # 4e-18) at x = -40
        "name": "softplus backward 1 - 1 / (1 + s) for x < 0",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "small / (1 + small))", "1 - 1 / (1 + small))"))},
        "must_fail": [],
    },
    {
        # correct, keeps full marks: the one-line sigmoid 1 / (1 + exp(-x)); exp(-x) is inf for
        # large negative x, and 1 / inf = 0 is the right value there (float64 and float32)
        "name": "softplus backward 1 / (1 + exp(-x)), one line",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))",
            "sigmoid = 1 / (1 + torch.exp(-x))"))},
        "must_fail": [],
    },
    {
        # correct, keeps full marks: the sigmoid through tanh, which never overflows,
        # sigma(x) = (1 + tanh(x / 2)) / 2 (a derivation, not the library's sigmoid)
        "name": "softplus backward through tanh: (1 + tanh(x / 2)) / 2",
        "cells": {"stable_softplus": _variant(_SOFTPLUS, (
            "sigmoid = torch.where(x >= 0, 1 / (1 + small), small / (1 + small))",
            "sigmoid = 0.5 * (1 + torch.tanh(x / 2))"))},
        "must_fail": [],
    },
    {
        # pred - target written into pred: the loss is right, the caller's pred is gone.
        "name": "huber_loss changes pred in place",
        "cells": {"huber_loss": _variant(_HUBER, ("error = pred - target",
                                                  "error = pred\n    error -= target"))},
        "must_fail": ["test_huber_value", "test_huber_grad", "test_huber_delta"],
        "message": "changed its argument pred in place",
    },
]
