"""Alternative correct solutions and typical mistakes for course/06_two_layer_net.

Graded by tests/cases/test_corpus.py (in process, on the lesson's contract cut): every
alternative must score full marks; every mistake must score 0 on exactly the
cells in `must_fail` and full marks elsewhere.

The layers of lessons 4 and 5 are the course's (grader.lessons.two_layer_net.layers, imported by a
locked cell; a student may paste their own in a plain cell, which the contract cut leaves out).
Graded cells (24 points, weighted by the work: specification and assembly little, the backward
pass most): test_l2_penalty (1); the class: test_init (0.5), test_scores (0.5), test_loss (0.5),
test_loss_reg (1), test_dW2 (3), test_db2 (2), test_dW1 (4), test_db1 (2), test_reg_grads (2),
test_stable (1); the training loop: test_train_steps (2), test_train_history (0.5); XOR:
test_xor_loss (1), test_xor_grads (3).
The class mistakes below are an inline NumPy class (as a student may write it) with one or two lines
changed (`_variant`), or the instructor's class with one line changed (`_solved`); the step
mistakes change one line of a step function (`_step`).

Every check calls the student's code through the setup cell's declaration (graded =
Exercises(...)): PyTorch and the lesson's referee are refused wherever it runs for a grade;
TwoLayerNet may call the two forward layers, the course's versions included (may_call), and not
affine_backward, relu_backward or softmax_loss, the course's or the student's own (must_not_call):
its backward pass is the exercise.
"""

from tests.nbgrader_harness import edited_solution

# The reference class, as a student would write it (markers removed).
_REFERENCE = '''\
class TwoLayerNet:
    def __init__(self, input_dim, hidden_dim, num_classes, weight_scale=1e-3, reg=0.0, seed=0):
        self.reg = reg
        rng = np.random.default_rng(seed)
        self.params = {}
        self.params["W1"] = weight_scale * rng.standard_normal((input_dim, hidden_dim))
        self.params["b1"] = np.zeros(hidden_dim)
        self.params["W2"] = weight_scale * rng.standard_normal((hidden_dim, num_classes))
        self.params["b2"] = np.zeros(num_classes)

    def loss(self, X, y=None):
        W1, b1 = self.params["W1"], self.params["b1"]
        W2, b2 = self.params["W2"], self.params["b2"]
        N = X.shape[0]

        z1 = X @ W1 + b1
        h = np.maximum(z1, 0.0)
        scores = h @ W2 + b2
        if y is None:
            return scores

        grads = {}
        shifted = scores - scores.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        data_loss = -log_probs[np.arange(N), y].mean()
        loss = data_loss + 0.5 * self.reg * (np.sum(W1 * W1) + np.sum(W2 * W2))

        dscores = np.exp(log_probs)
        dscores[np.arange(N), y] -= 1.0
        dscores /= N
        grads["W2"] = h.T @ dscores + self.reg * W2
        grads["b2"] = dscores.sum(axis=0)
        dh = dscores @ W2.T
        dz1 = dh * (z1 > 0)
        grads["W1"] = X.T @ dz1 + self.reg * W1
        grads["b1"] = dz1.sum(axis=0)
        return loss, grads
'''


def _variant(*edits: tuple[str, str]) -> str:
    """The reference class with each `old` line (which must occur exactly once) replaced by `new`."""
    source = _REFERENCE
    for old, new in edits:
        assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in the reference"
        source = source.replace(old, new)
    return source


# The step functions as a student would write them (markers removed).
_STEPS = {
    "l2_penalty": '''\
def l2_penalty(W1, W2, reg):
    penalty = 0.5 * reg * (np.sum(W1 * W1) + np.sum(W2 * W2))
    dW1 = reg * W1
    dW2 = reg * W2
    return penalty, dW1, dW2
''',
    "xor_net_loss": '''\
def xor_net_loss(params, X, t):
    W1, b1, W2, b2 = (params[name] for name in ("W1", "b1", "W2", "b2"))
    h = np.tanh(X @ W1 + b1)
    o = np.tanh(h @ W2 + b2)
    loss = np.sum((o - t) ** 2)
    dz2 = 2.0 * (o - t) * (1.0 - o ** 2)
    grads = {"W2": h.T @ dz2, "b2": np.array([dz2.sum()])}
    dz1 = np.outer(dz2, W2) * (1.0 - h ** 2)
    grads["W1"] = X.T @ dz1
    grads["b1"] = dz1.sum(axis=0)
    return loss, grads
''',
}


def _step(gid: str, old: str, new: str) -> dict[str, str]:
    """{gid: the step function with the fragment `old` (exactly once) replaced by `new`}."""
    source = _STEPS[gid]
    assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in {gid}"
    return {gid: source.replace(old, new)}


ALTERNATIVES = {
    # vdot for the squared norms, the gradients as copies scaled in place.
    "l2_penalty": '''\
def l2_penalty(W1, W2, reg):
    penalty = reg / 2 * (np.vdot(W1, W1) + np.vdot(W2, W2))
    dW1, dW2 = W1.copy(), W2.copy()
    dW1 *= reg
    dW2 *= reg
    return float(penalty), dW1, dW2
''',
    # the output kept as a column (N, 1), slopes from the pre-activations.
    "xor_net_loss": '''\
def xor_net_loss(params, X, t):
    z1 = X @ params["W1"] + params["b1"]
    h = np.tanh(z1)
    z2 = h @ params["W2"][:, None] + params["b2"]
    o = np.tanh(z2)
    err = o - t[:, None]
    loss = float(np.sum(err * err))
    dz2 = 2 * err / np.cosh(z2) ** 2
    dz1 = (dz2 @ params["W2"][None, :]) / np.cosh(z1) ** 2
    return loss, {"W1": X.T @ dz1, "b1": dz1.sum(axis=0), "W2": (h.T @ dz2)[:, 0], "b2": dz2.sum(axis=0)}
''',
    # a permutation per step, the update in place, the loss kept as it came (a NumPy float).
    "train": '''\
def train(net, X, y, learning_rate=1.0, num_iters=2000, batch_size=64, seed=0):
    rng = np.random.default_rng(seed)
    history = []
    for step in range(num_iters):
        batch = rng.permutation(len(X))[:batch_size]
        loss, grads = net.loss(X[batch], y[batch])
        history.append(loss)
        for name, value in net.params.items():
            value -= learning_rate * grads[name]
    return history
''',
    # einsum everywhere, module-level helpers in the class cell, a cache dict kept on the
    # instance, rng.normal for the weights, log-sum-exp via np.logaddexp.reduce, the ReLU mask
    # taken from the output h, the loss returned as a Python float.
    "two_layer_net": '''\
def _affine(x, w, b):
    return np.einsum("nd,dh->nh", x, w) + b


def _softmax_cross_entropy(scores, y):
    """(mean loss, dL/dscores) for integer labels y."""
    n = scores.shape[0]
    m = np.max(scores, axis=1, keepdims=True)
    log_z = m[:, 0] + np.logaddexp.reduce(scores - m, axis=1)
    log_p = scores - log_z[:, None]
    loss = float(-np.mean(log_p[np.arange(n), y]))
    dscores = np.exp(log_p)
    dscores[np.arange(n), y] -= 1.0
    return loss, dscores / n


class TwoLayerNet:
    """Affine - ReLU - affine - softmax."""

    def __init__(self, input_dim, hidden_dim, num_classes, weight_scale=1e-3, reg=0.0, seed=0):
        self.reg = reg
        rng = np.random.default_rng(seed)
        self.params = {}
        shapes = {"W1": (input_dim, hidden_dim), "W2": (hidden_dim, num_classes)}
        for name, shape in shapes.items():
            self.params[name] = rng.normal(0.0, weight_scale, size=shape)
        self.params["b1"] = np.zeros(hidden_dim)
        self.params["b2"] = np.zeros(num_classes)

    def _forward(self, X):
        p = self.params
        hidden = np.maximum(_affine(X, p["W1"], p["b1"]), 0)
        self.cache = {"X": X, "hidden": hidden}
        return _affine(hidden, p["W2"], p["b2"])

    def loss(self, X, y=None):
        scores = self._forward(X)
        if y is None:
            return scores
        p, reg = self.params, self.reg
        data_loss, dscores = _softmax_cross_entropy(scores, y)
        penalty = 0.5 * reg * sum(np.vdot(p[k], p[k]) for k in ("W1", "W2"))
        hidden, X = self.cache["hidden"], self.cache["X"]
        dhidden = np.einsum("nc,hc->nh", dscores, p["W2"])
        dhidden = np.where(hidden > 0, dhidden, 0.0)
        grads = {
            "W1": np.einsum("nd,nh->dh", X, dhidden) + reg * p["W1"],
            "b1": np.einsum("nh->h", dhidden),
            "W2": np.einsum("nh,nc->hc", hidden, dscores) + reg * p["W2"],
            "b2": np.einsum("nc->c", dscores),
        }
        return data_loss + penalty, grads
''',
}

MISTAKES = [
    {
        # Equivalent, not a mistake: h > 0 exactly where z1 > 0. Must keep full marks.
        "name": "relu mask from the output h (equivalent)",
        "cells": {"two_layer_net": _variant(("dz1 = dh * (z1 > 0)", "dz1 = dh * (h > 0)"))},
        "must_fail": [],
    },
    {
        # Weights drawn from numpy's global generator: not reproducible from the seed.
        "name": "init ignores the seeded generator",
        "cells": {"two_layer_net": _variant(
            ("rng.standard_normal((input_dim, hidden_dim))", "np.random.randn(input_dim, hidden_dim)"),
            ("rng.standard_normal((hidden_dim, num_classes))", "np.random.randn(hidden_dim, num_classes)"),
        )},
        "must_fail": ["test_init"],
    },
    {
        # weight_scale ignored: standard normal weights, about 1000 times too large for 1e-3.
        "name": "init ignores weight_scale",
        "cells": {"two_layer_net": _variant(
            ("weight_scale * rng.standard_normal((input_dim, hidden_dim))",
             "rng.standard_normal((input_dim, hidden_dim))"),
            ("weight_scale * rng.standard_normal((hidden_dim, num_classes))",
             "rng.standard_normal((hidden_dim, num_classes))"),
        )},
        "must_fail": ["test_init"],
        "message": "draw the weights with mean 0 and standard deviation weight_scale",
    },
    {
        # Mistaking loss(X) for a predict(): labels of shape (N,) instead of scores (N, C).
        "name": "loss(X) returns labels instead of scores",
        "cells": {"two_layer_net": _variant(("return scores\n", "return np.argmax(scores, axis=1)\n"))},
        "must_fail": ["test_scores"],
    },
    {
        # Weights copied to attributes in __init__ and read from there: new arrays put into
        # net.params are never seen. Everything computed from the weights is wrong.
        "name": "loss reads copies made in __init__, not self.params",
        "cells": {"two_layer_net": _variant(
            ('self.params["b2"] = np.zeros(num_classes)\n',
             'self.params["b2"] = np.zeros(num_classes)\n'
             '        self.W1, self.b1 = self.params["W1"], self.params["b1"]\n'
             '        self.W2, self.b2 = self.params["W2"], self.params["b2"]\n'),
            ('W1, b1 = self.params["W1"], self.params["b1"]\n', "W1, b1 = self.W1, self.b1\n"),
            ('W2, b2 = self.params["W2"], self.params["b2"]\n', "W2, b2 = self.W2, self.b2\n"),
        )},
        # test_stable passes: shifting b2 in net.params changes nothing for this net, so its
        # loss and gradients (of the initial weights) are, correctly, unchanged.
        "must_fail": ["test_scores", "test_loss", "test_loss_reg", "test_dW2", "test_db2",
                      "test_dW1", "test_db1", "test_reg_grads"],
        # every one of them names the bug (not "practically 0" or "the mask is right")
        "message": "not from copies made in __init__",
    },
    {
        # The data loss summed over the batch instead of averaged (the gradients are right).
        "name": "data loss summed, not averaged",
        "cells": {"two_layer_net": _variant(
            ("data_loss = -log_probs[np.arange(N), y].mean()",
             "data_loss = -log_probs[np.arange(N), y].sum()"),
        )},
        "must_fail": ["test_loss"],
    },
    {
        # exp of raw scores: overflows (inf/inf = nan) or underflows (0/0 = nan) for large scores.
        "name": "softmax not stabilised",
        "cells": {"two_layer_net": _variant(
            ("shifted = scores - scores.max(axis=1, keepdims=True)", "shifted = scores"),
        )},
        "must_fail": ["test_stable"],
    },
    {
        # dscores already carries 1/N; .mean() divides by N once more.
        "name": "db2 averaged twice",
        "cells": {"two_layer_net": _variant(
            ('grads["b2"] = dscores.sum(axis=0)', 'grads["b2"] = dscores.mean(axis=0)'),
        )},
        "must_fail": ["test_db2"],
    },
    {
        # Summed over the hidden units instead of the batch: shape (N,) instead of (H,).
        "name": "db1 summed over the wrong axis",
        "cells": {"two_layer_net": _variant(
            ('grads["b1"] = dz1.sum(axis=0)', 'grads["b1"] = dz1.sum(axis=1)'),
        )},
        "must_fail": ["test_db1"],
    },
    {
        # dW2 divided by N although dscores already carries 1/N.
        "name": "dW2 divided by N twice",
        "cells": {"two_layer_net": _variant(
            ('grads["W2"] = h.T @ dscores + self.reg * W2',
             'grads["W2"] = h.T @ dscores / N + self.reg * W2'),
        )},
        "must_fail": ["test_dW2"],
    },
    {
        # The 1/N applied twice at the source: every data gradient is 1/N of the right one,
        # but the regularisation terms (checked as differences) are still right.
        "name": "dscores divided by N twice",
        "cells": {"two_layer_net": _variant(("dscores /= N\n", "dscores /= N\n        dscores /= N\n"))},
        "must_fail": ["test_dW2", "test_db2", "test_dW1", "test_db1"],
    },
    {
        # Operands of the product swapped: (C, H) instead of (H, C).
        "name": "dW2 transposed",
        "cells": {"two_layer_net": _variant(
            ('grads["W2"] = h.T @ dscores + self.reg * W2', 'grads["W2"] = dscores.T @ h + self.reg * W2.T'),
        )},
        # The regularisation term reg * W2.T has the wrong shape too.
        "must_fail": ["test_dW2", "test_reg_grads"],
    },
    {
        # ReLU slope taken from z1 itself instead of the indicator: dh * max(z1, 0).
        "name": "relu backward multiplies by h instead of the mask",
        "cells": {"two_layer_net": _variant(("dz1 = dh * (z1 > 0)", "dz1 = dh * h"))},
        "must_fail": ["test_dW1", "test_db1"],
    },
    {
        # d(0.5 * reg * ||W||^2)/dW taken as 2 * reg * W.
        "name": "regularisation gradient with a factor 2",
        "cells": {"two_layer_net": _variant(
            ('grads["W2"] = h.T @ dscores + self.reg * W2',
             'grads["W2"] = h.T @ dscores + 2 * self.reg * W2'),
            ('grads["W1"] = X.T @ dz1 + self.reg * W1', 'grads["W1"] = X.T @ dz1 + 2 * self.reg * W1'),
        )},
        "must_fail": ["test_reg_grads"],
    },
    {
        # Regularisation in the loss but not in the gradients.
        "name": "regularisation gradient missing",
        "cells": {"two_layer_net": _variant(
            ('grads["W2"] = h.T @ dscores + self.reg * W2', 'grads["W2"] = h.T @ dscores'),
            ('grads["W1"] = X.T @ dz1 + self.reg * W1', 'grads["W1"] = X.T @ dz1'),
        )},
        "must_fail": ["test_reg_grads"],
    },
    {
        # Regularisation in the gradients but forgotten in the loss.
        "name": "regularisation missing from the loss",
        "cells": {"two_layer_net": _variant(
            ("loss = data_loss + 0.5 * self.reg * (np.sum(W1 * W1) + np.sum(W2 * W2))", "loss = data_loss"),
        )},
        "must_fail": ["test_loss_reg"],
    },
    {
        # The biases penalised too, in the loss and in their gradients.
        "name": "regularisation applied to the biases",
        "cells": {"two_layer_net": _variant(
            ("loss = data_loss + 0.5 * self.reg * (np.sum(W1 * W1) + np.sum(W2 * W2))",
             "loss = data_loss + 0.5 * self.reg * sum(np.sum(p * p) for p in self.params.values())"),
            ('grads["b2"] = dscores.sum(axis=0)', 'grads["b2"] = dscores.sum(axis=0) + self.reg * b2'),
            ('grads["b1"] = dz1.sum(axis=0)', 'grads["b1"] = dz1.sum(axis=0) + self.reg * b1'),
        )},
        "must_fail": ["test_loss_reg", "test_reg_grads"],
    },
    # --- mistakes in the step functions (each fails its own graded cells only)
    {
        # TwoLayerNet calls l2_penalty, so its regularised gradients are wrong too.
        "name": "l2_penalty: the gradient with a factor 2",
        "cells": _step("l2_penalty", "dW1 = reg * W1", "dW1 = 2 * reg * W1"),
        "must_fail": ["test_l2_penalty", "test_reg_grads"],
    },
    {
        "name": "xor_net_loss: the output tanh's slope forgotten",
        "cells": _step("xor_net_loss", "dz2 = 2.0 * (o - t) * (1.0 - o ** 2)", "dz2 = 2.0 * (o - t)"),
        "must_fail": ["test_xor_grads"],
    },
    {
        "name": "xor_net_loss: the loss averaged instead of summed",
        "cells": _step("xor_net_loss", "loss = np.sum((o - t) ** 2)", "loss = np.mean((o - t) ** 2)"),
        "must_fail": ["test_xor_loss"],
    },
]

_REFUSED = "PyTorch is the referee of the checks, not the answer"
_REFEREE = "one of the course's references"
_LOSS_CELLS = ["test_loss", "test_loss_reg", "test_dW2", "test_db2", "test_dW1", "test_db1", "test_reg_grads",
               "test_stable"]

# The whole backward pass of TwoLayerNet.loss handed to autograd: every cell that asks loss(X, y)
# for its loss and gradients scores nothing.
MISTAKES += [
    {
        "name": "TwoLayerNet.loss with its gradients from Tensor.backward",
        "cells": edited_solution("06_two_layer_net", "two_layer_net", (
            '''        grads["W2"] = h.T @ ds + dW2_reg                  # W2 feeds two nodes: gradients add
        grads["b2"] = ds.sum(axis=0)
        dh = ds @ W2.T                                    # (N, H)
        dz1 = dh * (z1 > 0)                               # the ReLU passes dh where z1 > 0
        grads["W1"] = X.T @ dz1 + dW1_reg
        grads["b1"] = dz1.sum(axis=0)''',
            '''        t = {k: torch.tensor(v, requires_grad=True) for k, v in self.params.items()}
        out = torch.relu(torch.from_numpy(X) @ t["W1"] + t["b1"]) @ t["W2"] + t["b2"]
        total = torch.nn.functional.cross_entropy(out, torch.as_tensor(y))
        (total + 0.5 * self.reg * ((t["W1"] ** 2).sum() + (t["W2"] ** 2).sum())).backward()
        grads = {k: v.grad.numpy() for k, v in t.items()}''')),
        "must_fail": ["test_loss", "test_loss_reg", "test_dW2", "test_db2", "test_dW1", "test_db1",
                      "test_reg_grads", "test_stable"],
        "message": _REFUSED,
    },
]


def _solved(old: str, new: str) -> dict[str, str]:
    """The instructor's TwoLayerNet with the fragment `old` replaced."""
    return edited_solution("06_two_layer_net", "two_layer_net", (old, new))


def _train(old: str, new: str) -> dict[str, str]:
    """The instructor's train with the fragment `old` replaced."""
    return edited_solution("06_two_layer_net", "train", (old, new))


MISTAKES += [
    {
        # The inline class of _REFERENCE: no layers at all, also correct.
        "name": "TwoLayerNet written inline, without the layers (equivalent)",
        "cells": {"two_layer_net": _REFERENCE},
        "must_fail": [],
    },
    {
        # W1's second use forgotten: the penalty's gradient added to dW2 only.
        "name": "the penalty's gradient not added to dW1",
        "cells": _solved('grads["W1"] = X.T @ dz1 + dW1_reg', 'grads["W1"] = X.T @ dz1'),
        "must_fail": ["test_reg_grads"],
    },
    {
        # The one-hot term of the softmax's gradient forgotten: ds = p / N. Named by the checks.
        "name": "ds without the one-hot term",
        "cells": _solved("        ds[np.arange(N), y] -= 1.0                        # p - onehot(y)\n", ""),
        "must_fail": ["test_dW2", "test_db2", "test_dW1", "test_db1"],
        "message": "ds = p / N",
    },
    {
        # The second layer's input taken before the ReLU. Named by the checks.
        "name": "dW2 from the ReLU's input z1",
        "cells": _solved('grads["W2"] = h.T @ ds + dW2_reg', 'grads["W2"] = z1.T @ ds + dW2_reg'),
        "must_fail": ["test_dW2"],
        "message": "built from z1",
    },
    {
        # The ReLU's mask skipped: dh goes straight into the first layer. dW1's check names it, db1's
        # the hint engine's unmasked-upstream rule.
        "name": "the ReLU's mask skipped (dz1 = dh)",
        "cells": _solved("dz1 = dh * (z1 > 0)", "dz1 = dh"),
        "must_fail": ["test_dW1", "test_db1"],
        "message": "through the ReLU everywhere",
        "message_cells": ["test_dW1"],
    },
    {
        # Uphill: the step goes with the gradient. Named by the replay.
        "name": "train: the step goes with the gradient (+)",
        "cells": _train("net.params[name] - learning_rate * grads[name]",
                        "net.params[name] + learning_rate * grads[name]"),
        "must_fail": ["test_train_steps"],
        "message": "does the loss go up or down that way",
    },
    {
        "name": "train: only the weights are updated, not the biases",
        "cells": _train("for name in net.params:", 'for name in ["W1", "W2"]:'),
        "must_fail": ["test_train_steps"],
        "message": "never moved",
    },
    {
        # A whole gradient per step. Named by the replay.
        "name": "train: the step not scaled by the learning rate",
        "cells": _train("net.params[name] - learning_rate * grads[name]", "net.params[name] - grads[name]"),
        "must_fail": ["test_train_steps"],
        "message": "scaled by the learning rate",
    },
    {
        # The generator re-seeded inside the loop: the same mini-batch at every step.
        "name": "train: the same mini-batch every step",
        "cells": _train("        batch = rng.choice(", "        batch = np.random.default_rng(seed).choice("),
        "must_fail": ["test_train_steps"],
    },
    {
        # Drawn with replacement: a batch may hold an example twice.
        "name": "train: mini-batches drawn with replacement",
        "cells": _train("rng.choice(X.shape[0], size=batch_size, replace=False)",
                        "rng.integers(0, X.shape[0], size=batch_size)"),
        "must_fail": ["test_train_steps"],
    },
    {
        # numpy's global generator: not reproducible from the seed.
        "name": "train: mini-batches from np.random, not from rng",
        "cells": _train("rng.choice(X.shape[0], size=batch_size, replace=False)",
                        "np.random.choice(X.shape[0], size=batch_size, replace=False)"),
        "must_fail": ["test_train_steps"],
    },
    {
        # The loss of each step asked for a second time, after the update.
        "name": "train: the loss recorded after the update (two calls per step)",
        "cells": _train("            net.params[name] = net.params[name] - learning_rate * grads[name]"
                        "   # downhill: against the gradient\n",
                        "            net.params[name] = net.params[name] - learning_rate * grads[name]\n"
                        "        history[-1] = float(net.loss(X[batch], y[batch])[0])\n"),
        "must_fail": ["test_train_steps", "test_train_history"],
    },
]

# The declaration: what TwoLayerNet may call (the course's layers, or the student's own), and what
# no exercise may.
_OWN_LAYERS = '''\
def affine_forward(x, w, b):
    return x.reshape(x.shape[0], -1) @ w + b, (x, w, b)


def affine_backward(dout, cache):
    x, w, b = cache
    return (dout @ w.T).reshape(x.shape), x.reshape(x.shape[0], -1).T @ dout, dout.sum(axis=0)


def relu_forward(x):
    return np.maximum(0.0, x), x


def relu_backward(dout, cache):
    return dout * (cache > 0)


def log_softmax(x):
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def softmax_loss(x, y):
    N = x.shape[0]
    log_p = log_softmax(x)
    dx = np.exp(log_p)
    dx[np.arange(N), y] -= 1
    return -log_p[np.arange(N), y].mean(), dx / N


'''
# The class of the lesson's first edition: the composition of the five layers, whose backward
# functions hand it every gradient.
_COMPOSED = _REFERENCE.split("    def loss(self, X, y=None):")[0] + '''    def loss(self, X, y=None):
        W1, b1 = self.params["W1"], self.params["b1"]
        W2, b2 = self.params["W2"], self.params["b2"]
        z1, fc1_cache = affine_forward(X, W1, b1)
        h, relu_cache = relu_forward(z1)
        scores, fc2_cache = affine_forward(h, W2, b2)
        if y is None:
            return scores
        grads = {}
        data_loss, dscores = softmax_loss(scores, y)
        penalty, dW1_reg, dW2_reg = l2_penalty(W1, W2, self.reg)
        dh, dW2, grads["b2"] = affine_backward(dscores, fc2_cache)
        dz1 = relu_backward(dh, relu_cache)
        _, dW1, grads["b1"] = affine_backward(dz1, fc1_cache)
        grads["W2"] = dW2 + dW2_reg
        grads["W1"] = dW1 + dW1_reg
        return data_loss + penalty, grads
'''
_ASKED_NOT = "asks you not to call"
MISTAKES += [
    {
        # The backward pass handed over by the course's layers: refused in every cell that asks
        # loss(X, y) for its gradients (the scores need only the forward layers, which it may call).
        "name": "TwoLayerNet composed from the course's layers, backward functions included",
        "cells": {"two_layer_net": _COMPOSED},
        "must_fail": _LOSS_CELLS,
        "message": _ASKED_NOT,
    },
    {
        # Section 2's optional cell: the student's own layers (and a helper they call) replace the
        # course's; their backward functions are refused too.
        "name": "TwoLayerNet composed from the student's own layers, backward functions included",
        "cells": {"two_layer_net": _OWN_LAYERS + _COMPOSED},
        "must_fail": _LOSS_CELLS,
        "message": _ASKED_NOT,
    },
    {
        # The forward pass by the course's forward layers (allowed), the backward by hand.
        "name": "TwoLayerNet's forward by affine_forward and relu_forward (equivalent)",
        "cells": _solved('''        z1 = X @ W1 + b1                                  # (N, H)
        h = np.maximum(0.0, z1)                           # (N, H)
        scores = h @ W2 + b2                              # (N, C)
''', '''        z1, _ = affine_forward(X, W1, b1)
        h, _ = relu_forward(z1)
        scores, _ = affine_forward(h, W2, b2)
'''),
        "must_fail": [],
    },
    {
        # Uniform draws with the right standard deviation: the brief asks for a normal distribution.
        "name": "init: uniform draws with the right standard deviation",
        "cells": {"two_layer_net": _variant(
            ("weight_scale * rng.standard_normal((input_dim, hidden_dim))",
             "weight_scale * rng.uniform(-np.sqrt(3), np.sqrt(3), size=(input_dim, hidden_dim))"),
            ("weight_scale * rng.standard_normal((hidden_dim, num_classes))",
             "weight_scale * rng.uniform(-np.sqrt(3), np.sqrt(3), size=(hidden_dim, num_classes))"),
        )},
        "must_fail": ["test_init"],
    },
    {
        # The forward pass handed to PyTorch (the backward written by hand from its tensors).
        "name": "shortcut: TwoLayerNet's forward pass in PyTorch",
        "cells": {"two_layer_net": _variant(
            ("z1 = X @ W1 + b1\n        h = np.maximum(z1, 0.0)\n        scores = h @ W2 + b2\n",
             "t = {k: torch.from_numpy(v) for k, v in self.params.items()}\n"
             "        z1 = (torch.from_numpy(X) @ t['W1'] + t['b1']).numpy()\n"
             "        h = torch.relu(torch.from_numpy(z1)).numpy()\n"
             "        scores = (torch.from_numpy(h) @ t['W2'] + t['b2']).numpy()\n"),
        )},
        "must_fail": ["test_scores"] + _LOSS_CELLS,
        "message": _REFUSED,
    },
    {
        # The locked cell's referee is refused by its code, whatever numbers it returns.
        "name": "shortcut: TwoLayerNet.loss returns torch_two_layer_net's answer",
        "cells": {"two_layer_net": _variant(
            ("        N = X.shape[0]\n",
             "        N = X.shape[0]\n        if y is not None:\n"
             "            return torch_two_layer_net(self.params, X, y, self.reg)\n"),
        )},
        "must_fail": _LOSS_CELLS,
        "message": _REFEREE,
    },
    {
        "name": "shortcut: xor_net_loss's forward pass in PyTorch",
        "cells": _step("xor_net_loss", """    h = np.tanh(X @ W1 + b1)
    o = np.tanh(h @ W2 + b2)
""", """    h = torch.tanh(torch.from_numpy(X @ W1 + b1)).numpy()
    o = torch.tanh(torch.from_numpy(h @ W2 + b2)).numpy()
"""),
        "must_fail": ["test_xor_loss", "test_xor_grads"],
        "message": _REFUSED,
    },
    {
        "name": "shortcut: xor_net_loss returns torch_xor_net's answer",
        "cells": {"xor_net_loss": """\
def xor_net_loss(params, X, t):
    return torch_xor_net(params, X, t)
"""},
        "must_fail": ["test_xor_loss", "test_xor_grads"],
        "message": _REFEREE,
    },
    {
        # The penalty's work handed to PyTorch: TwoLayerNet calls it too, so its loss cells go with it.
        "name": "shortcut: l2_penalty's gradients from autograd",
        "cells": {"l2_penalty": """\
def l2_penalty(W1, W2, reg):
    t1, t2 = torch.tensor(W1, requires_grad=True), torch.tensor(W2, requires_grad=True)
    penalty = 0.5 * reg * ((t1 ** 2).sum() + (t2 ** 2).sum())
    penalty.backward()
    return penalty.item(), t1.grad.numpy(), t2.grad.numpy()
"""},
        "must_fail": ["test_l2_penalty"] + _LOSS_CELLS,
        "message": _REFUSED,
    },
    {
        # Right numbers, but the regularisation gradient is built in the weight's own array: dW1 is
        # W1 itself, so net.params["W1"] changes (and the next step starts from the wrong weights).
        "name": "TwoLayerNet.loss builds dW1 in W1's own array",
        "cells": {"two_layer_net": _variant(('grads["W1"] = X.T @ dz1 + self.reg * W1',
                                             'grads["W1"] = W1\n        grads["W1"] *= self.reg\n'
                                             '        grads["W1"] += X.T @ dz1'))},
        "must_fail": _LOSS_CELLS,
        "message": "changed net.params['W1'] in place",
    },
]
