"""The attention lesson's tiny character-level transformer, trained with the student's block.

The model: token embedding (V, D) plus a learned position embedding (T, D), `layers` pre-LN causal
transformer blocks (the student's `transformer_block_forward` / `transformer_block_backward`),
then logits = x Wout + bout (V classes) and the mean softmax cross-entropy of the next character.
Adam updates every parameter. `train_torch` trains the same model from the same initialisation
with PyTorch's autograd and `torch.optim.Adam`, on the same batches: the referee of the curves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from ...errors import ToolkitInputError
from ...referees import referee_all
from ..adam import Adam
from ..student_calls import student_items
from .reference import BLOCK_KEYS, torch_block_tensors

__all__ = [
    "CharModel",
    "Corpus",
    "block_inputs",
    "init_model",
    "model_loss",
    "sample",
    "train",
    "train_torch",
]


@dataclass(frozen=True)
class Corpus:
    """A text as character ids: chars (V,) sorted, ids (len(text),)."""

    chars: tuple[str, ...]
    ids: np.ndarray

    @classmethod
    def of(cls, text: str) -> Corpus:
        if not isinstance(text, str) or len(text) < 2:
            raise ToolkitInputError(f"expected a text of two characters at least, got {text!r:.40}")
        chars = tuple(sorted(set(text)))
        index = {c: i for i, c in enumerate(chars)}
        return cls(chars, np.array([index[c] for c in text]))

    def encode(self, text: str) -> np.ndarray:
        unknown = sorted(set(text) - set(self.chars))
        if unknown:
            raise ToolkitInputError(f"{unknown} are not characters of the training text")
        return np.array([self.chars.index(c) for c in text])

    def decode(self, ids: np.ndarray) -> str:
        return "".join(self.chars[int(i)] for i in ids)

    def batches(self, context: int, batch: int, seed: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Endless (x, y) of shape (batch, context): windows of the text and the same shifted by one."""
        if len(self.ids) <= context + 1:
            raise ToolkitInputError(f"the text has {len(self.ids)} characters, fewer than context + 2")
        rng = np.random.default_rng(seed)
        offsets = np.arange(context)
        while True:
            starts = rng.integers(0, len(self.ids) - context - 1, size=batch)[:, None]
            yield self.ids[starts + offsets], self.ids[starts + offsets + 1]


@dataclass
class CharModel:
    """Parameters of the character transformer: embed (tok (V, D), pos (T, D), Wout (D, V),
    bout (V,)) and one params dict per block (BLOCK_KEYS)."""

    embed: dict[str, np.ndarray]
    blocks: list[dict[str, np.ndarray]]
    num_heads: int
    context: int = field(init=False)

    def __post_init__(self) -> None:
        self.context = self.embed["pos"].shape[0]

    def arrays(self) -> dict[str, np.ndarray]:
        """Every parameter by a flat name ("tok", "block0.Wq", ...): the same arrays, not copies."""
        named = dict(self.embed)
        for i, block in enumerate(self.blocks):
            named.update({f"block{i}.{k}": v for k, v in block.items()})
        return named

    def copy(self) -> CharModel:
        return CharModel(
            {k: v.copy() for k, v in self.embed.items()},
            [{k: v.copy() for k, v in b.items()} for b in self.blocks],
            self.num_heads,
        )


def init_model(
    vocab: int,
    D: int = 32,
    num_heads: int = 4,
    F_: int = 128,
    context: int = 32,
    layers: int = 2,
    seed: int = 0,
) -> CharModel:
    """A fresh model: Gaussian weights scaled by 1/sqrt(fan-in) (the two projections that write
    into the residual stream also by 1/sqrt(2·layers), as GPT-2 does), gammas 1, biases 0."""
    rng = np.random.default_rng(seed)
    embed = {
        "tok": 0.3 * rng.normal(size=(vocab, D)),
        "pos": 0.3 * rng.normal(size=(context, D)),
        "Wout": rng.normal(size=(D, vocab)) / np.sqrt(D),
        "bout": np.zeros(vocab),
    }
    depth = 1 / np.sqrt(2 * layers)
    blocks = []
    for _ in range(layers):
        block = {
            "ln1_gamma": np.ones(D),
            "ln1_beta": np.zeros(D),
            "Wq": rng.normal(size=(D, D)) / np.sqrt(D),
            "Wk": rng.normal(size=(D, D)) / np.sqrt(D),
            "Wv": rng.normal(size=(D, D)) / np.sqrt(D),
            "Wo": depth * rng.normal(size=(D, D)) / np.sqrt(D),
            "ln2_gamma": np.ones(D),
            "ln2_beta": np.zeros(D),
            "W1": rng.normal(size=(D, F_)) / np.sqrt(D),
            "b1": np.zeros(F_),
            "W2": depth * rng.normal(size=(F_, D)) / np.sqrt(F_),
            "b2": np.zeros(D),
        }
        blocks.append({k: block[k] for k in BLOCK_KEYS})
    return CharModel(embed, blocks, num_heads)


def model_loss(
    model: CharModel,
    x: np.ndarray,
    y: np.ndarray,
    block_forward: Callable,
    block_backward: Callable | None = None,
) -> tuple[float, dict[str, np.ndarray] | None]:
    """(loss, grads) of the batch x, y (N, T) of ids: grads keyed like `model.arrays()`, or None
    without `block_backward`. Each block goes through the student's functions."""
    e = model.embed
    h = e["tok"][x] + e["pos"][: x.shape[1]]
    caches = []
    for block in model.blocks:
        h, cache = student_items(block_forward, "transformer_block_forward", 2, h, block, model.num_heads)
        h = np.asarray(h, dtype=np.float64)
        caches.append(cache)
    logits = h @ e["Wout"] + e["bout"]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    n, vocab = x.size, logits.shape[-1]
    flat = log_p.reshape(n, vocab)
    loss = float(-flat[np.arange(n), y.ravel()].mean())
    if block_backward is None:
        return loss, None
    dlogits = np.exp(flat)
    dlogits[np.arange(n), y.ravel()] -= 1
    dlogits = (dlogits / n).reshape(logits.shape)
    D = h.shape[-1]
    grads = {
        "Wout": h.reshape(-1, D).T @ dlogits.reshape(-1, vocab),
        "bout": dlogits.reshape(-1, vocab).sum(0),
    }
    dh = dlogits @ e["Wout"].T
    for i in reversed(range(len(model.blocks))):
        dh, block_grads = student_items(block_backward, "transformer_block_backward", 2, dh, caches[i])
        dh = np.asarray(dh, dtype=np.float64)
        grads.update({f"block{i}.{k}": np.asarray(block_grads[k], dtype=np.float64) for k in BLOCK_KEYS})
    grads["pos"] = np.zeros_like(e["pos"])
    grads["pos"][: x.shape[1]] = dh.sum(axis=0)
    grads["tok"] = np.zeros_like(e["tok"])
    np.add.at(grads["tok"], x.ravel(), dh.reshape(-1, D))
    return loss, grads


def train(
    model: CharModel,
    corpus: Corpus,
    block_forward: Callable,
    block_backward: Callable,
    steps: int = 600,
    batch: int = 16,
    lr: float = 3e-3,
    seed: int = 1,
) -> np.ndarray:
    """Train `model` in place with Adam for `steps` batches; returns the loss of every step (steps,)."""
    optimiser, losses = Adam(model.arrays(), lr=lr), []
    batches = corpus.batches(model.context, batch, seed)
    for _ in range(steps):
        x, y = next(batches)
        loss, grads = model_loss(model, x, y, block_forward, block_backward)
        optimiser.step(grads)
        losses.append(loss)
    return np.array(losses)


def _torch_logits(tensors: dict[str, torch.Tensor], model: CharModel, x: np.ndarray) -> torch.Tensor:
    ids = torch.tensor(x)
    h = tensors["tok"][ids] + tensors["pos"][: x.shape[1]]
    for i in range(len(model.blocks)):
        block = {k: tensors[f"block{i}.{k}"] for k in BLOCK_KEYS}
        h = torch_block_tensors(h, block, model.num_heads, residual=True)
    return h @ tensors["Wout"] + tensors["bout"]


def train_torch(
    model: CharModel, corpus: Corpus, steps: int = 600, batch: int = 16, lr: float = 3e-3, seed: int = 1
) -> np.ndarray:
    """The same training by PyTorch's autograd and torch.optim.Adam, on a copy of `model` (float64)."""
    tensors = {k: torch.tensor(v, requires_grad=True) for k, v in model.arrays().items()}
    optimiser = torch.optim.Adam(tensors.values(), lr=lr)
    batches = corpus.batches(model.context, batch, seed)
    losses = []
    for _ in range(steps):
        x, y = next(batches)
        logits = _torch_logits(tensors, model, x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), torch.tensor(y).reshape(-1))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return np.array(losses)


def sample(
    model: CharModel,
    corpus: Corpus,
    block_forward: Callable,
    start: str = "T",
    length: int = 200,
    temperature: float = 0.8,
    seed: int = 0,
) -> str:
    """`length` characters drawn one at a time after `start`, the model reading its last `context`."""
    rng = np.random.default_rng(seed)
    ids = list(corpus.encode(start))
    e = model.embed
    for _ in range(length):
        window = np.array([ids[-model.context :]])
        h = e["tok"][window] + e["pos"][: window.shape[1]]
        for block in model.blocks:
            h = np.asarray(
                student_items(block_forward, "transformer_block_forward", 2, h, block, model.num_heads)[0],
                dtype=np.float64,
            )
        logits = (h[0, -1] @ e["Wout"] + e["bout"]) / temperature
        p = np.exp(logits - logits.max())
        ids.append(int(rng.choice(len(p), p=p / p.sum())))
    return corpus.decode(np.array(ids))


def block_inputs(model: CharModel, ids: np.ndarray) -> list[np.ndarray]:
    """What each block of `model` reads when it reads `ids` (T,): L arrays (1, T, D), computed by
    the reference block (PyTorch), not the student's."""
    tensors = {k: torch.tensor(v) for k, v in model.arrays().items()}
    window = np.asarray(ids)[None, -model.context :]
    with torch.no_grad():
        h = tensors["tok"][torch.tensor(window)] + tensors["pos"][: window.shape[1]]
        inputs = []
        for i in range(len(model.blocks)):
            inputs.append(h.numpy().copy())
            block = {k: tensors[f"block{i}.{k}"] for k in BLOCK_KEYS}
            h = torch_block_tensors(h, block, model.num_heads, residual=True)
    return inputs


referee_all(globals())
