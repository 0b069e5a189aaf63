"""English words in what a Portuguese student reads.

`english_words(text, identifiers)` lists the words of `text` that are English: words of a list of
common English words (function words and the course's vocabulary) that are not also Portuguese,
and English possessives ("softmax_loss's"). It allows what the edition keeps on purpose: code
(identifiers of the lesson's code, anything inside backticks or with an underscore, a dot or
brackets), the glossary's kept terms (forward, backward, cache, shape, ...) and the names of
techniques and libraries (PyTorch, batch norm, one-hot, ...).

A word list rather than a language detector: the texts are short lines mixing Portuguese, code
and numbers, where detectors guess; a list says why each word was flagged and is checked both
ways (tests/course/test_english_in_portuguese.py: it finds the English that reached Portuguese
students before, and none in text that is Portuguese).
"""

from __future__ import annotations

import functools
import io
import keyword
import re
import tokenize

#: Common English words that are not Portuguese words (so "a", "no", "do", "time", "data",
#: "real", "total", "final", "normal", "array" are not here).
ENGLISH = frozenset("""
the of and is are was were be been being your yours you with for not does did doing must should
would could can cannot may might will shall this that these those which when where what while who
whose why how than then there here has have had but or if else only also each every any all
none both either neither from into onto over under after before between against through without
within across along per about because still yet again once twice instead its it it's they their
them we our us he she his her to at by on in out up down off
result results layer layers gradient gradients weight weights input inputs output outputs value
values step steps row rows column columns example examples number numbers largest smallest first
last other others same different wrong right correct times error errors score scores label labels
hint hints check checks checked passed failed fails one two three four five six seven eight nine
ten hundred thousand loss losses mean sum random orthogonal identity vanilla chunk chunks slope
expected got returned returns return match matches matched shape shaped like unlike more less most
least new old keep kept drop dropped true false yes get gets give gives gave take takes make makes
made run runs ran call calls called see seen used uses using need needs found find fix fixed
line lines cell cells function functions argument arguments matrix vector entry entries
element elements size sizes length hidden state states gate gates head heads query key keys mask
masked shift shifted divided multiply multiplied add added positive negative small large
big huge tiny close far near exactly too very much many few whole half part parts
square squared clip clipped detached trajectory along
scaled product approximation block network net model reference unit units training trained
tests sample samples word words character characters sequence update updates learning rate
decay variance standard deviation initial seed view copy grid point points direction path paths
node nodes edge graph circuit neuron chain rule rules slopes nudge nudges verdict worst bad good
stable unstable plain inside outside left step-by-step
shouldn't doesn't don't isn't aren't wasn't can't won't
""".split())

#: Terms the Portuguese edition keeps in English on purpose (the glossary in translations/README.md,
#: and the names of techniques, libraries and people).
KEPT = frozenset("""
forward backward cache shape upstream embedding kernel padding stride softmax batch minibatch
pytorch numpy torch python jupyter jupyterlab colab binder nbgrader cs231n lstm rnn gru relu
sigmoid tanh xavier he kaiming adam sgd rmsprop momentum dropout attention transformer one-hot
float64 float32 nan inf
""".split())

#: Names of techniques made of English words, kept whole.
KEPT_PHRASES = ("batch norm", "layer norm", "group norm", "one-hot", "leaky relu", "fan in", "fan out",
                "max pooling", "max pool", "log-sum-exp", "weight decay", "gradient clipping",
                "teacher forcing", "self-attention", "cross-attention", "multi-head")

#: Code inside prose: `inline code`, a token with an underscore, a dot, brackets or an operator, a
#: word with a digit, a name assigned (`out = ...`) and Python's True, False and None.
_CODE = re.compile(r"`[^`]*`|\S*[_.()\[\]=<>{}/\\|]\S*|\b\w*\d\w*\b|\b\w+(?=\s*=)|\b(?:True|False|None)\b")
#: A warning or an error of Python or a library (NumPy, PyTorch), shown as it is on purpose: the
#: line that names it. The course's own errors (CheckFailed, BadReturnValue, ...) are not exempt.
#: ("file.py:12: RuntimeWarning: overflow encountered in exp"), or quoted inside a course message up
#: to its dash ("CheckFailed: IndexError: shape mismatch: ... — a sua função ...").
_LIBRARY_MESSAGE = re.compile(r"(?:^\s*(?:\S+:\d+: )?|(?<=: ))\b([A-Z]\w*(?:Warning|Error)): [^—]*")
_COURSE_ERRORS = ("ToolkitInputError",)
_WORD = re.compile(r"[a-zà-ÿ]+(?:'[a-z]+)?")
#: "softmax_loss's dx", "softmax_loss_steps' loss": an English possessive
_POSSESSIVE = re.compile(r"(?<![\w'])[\w.\[\]()]+(?:'s|s')(?=\s+[A-Za-zà-ÿ])")


@functools.cache
def lesson_identifiers(name: str) -> frozenset[str]:
    """Every name the code cells of course/<name>/<name>.ipynb use (read once per test process)."""
    import nbformat

    from tests.nbgrader_harness import REPO

    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    return code_identifiers([c.source for c in nb.cells if c.cell_type == "code"])


def code_identifiers(sources: list[str]) -> frozenset[str]:
    """The names (not keywords, strings or comments) used in these Python sources, lowercased."""
    names = set()
    for source in sources:
        lines = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(lines).readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            continue
        names |= {t.string.lower() for t in tokens
                  if t.type == tokenize.NAME and not keyword.iskeyword(t.string)}
    return frozenset(names)


def english_words(text: str, identifiers: frozenset[str] = frozenset(), strict: bool = False) -> list[str]:
    """The English words of `text` (see the module's docstring). `strict`: a word that names code
    excuses itself only when it is the text's only word (a label "loss" is code; "loss after the
    step" is English, even where `loss` and `after` are variables)."""
    text = _LIBRARY_MESSAGE.sub(lambda m: m.group(0) if m.group(1) in _COURSE_ERRORS else " ", text)
    text = re.sub(r"`[^`]*`", " ", text.replace("’", "'"))
    found = [p.lower() for p in _POSSESSIVE.findall(text)]
    lowered = _CODE.sub(" ", _POSSESSIVE.sub(" ", text)).lower()
    for phrase in KEPT_PHRASES:
        lowered = lowered.replace(phrase, " ")
    words = _WORD.findall(lowered)
    if strict and len(words) > 1:
        identifiers = frozenset()
    return found + [word for word in words
                    if word in ENGLISH and word not in KEPT and word not in identifiers
                    and word.removesuffix("s") not in identifiers]


def english_in(text: str, identifiers: frozenset[str] = frozenset()) -> list[str]:
    """'[words]: line' for every line of `text` with English words; the source line Python's
    warnings print under a warning is code."""
    found, after_warning = [], False
    for line in text.splitlines():
        if not after_warning and (words := english_words(line, identifiers)):
            found.append(f"{words}: {line.strip()[:160]}")
        after_warning = bool(re.search(r"\S+:\d+: \w*Warning: ", line))
    return found
