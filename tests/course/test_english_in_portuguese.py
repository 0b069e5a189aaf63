"""No English reaches a Portuguese student but code and the terms the edition keeps.

What the solved lessons of the Portuguese edition show (every printed line, check line, hint,
figure-in-words and error of solutions/pt/) is read here with tests/course/english.py; what
typical wrong answers make the checks say in Portuguese is read by tests/cases/test_corpus.py
(every mistake of tests/cases/, its failed cells run again in the Portuguese edition).
The detector is checked both ways below: it finds the English a review found in the edition, and
nothing in Portuguese the edition prints.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from grader.instructor.build import assignments
from tests.course.english import english_in, english_words, lesson_identifiers
from tests.nbgrader_harness import REPO


def shown_text(cell) -> list[str]:
    """What a code cell's outputs show as text: streams, errors, Markdown, HTML (without tags) and
    plain text that stands alone (not the repr beside a picture or a widget)."""
    texts = []
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            texts.append(out.text)
        elif out.output_type == "error":
            texts.append(f"{out.ename}: {out.evalue}")
        else:
            data = out.get("data", {})
            if any(k.startswith("image/") or "widget" in k for k in data):
                continue
            if "text/markdown" in data:
                texts.append(data["text/markdown"])
            elif "text/html" in data:
                texts.append(re.sub(r"<[^>]+>", " ", data["text/html"]))
            elif "text/plain" in data:
                texts.append(data["text/plain"])
    return texts


@pytest.mark.parametrize("name", assignments())
def test_the_solved_portuguese_lesson_shows_no_english(name: str) -> None:
    nb = nbformat.read(REPO / "solutions" / "pt" / name / f"{name}.ipynb", as_version=4)
    identifiers = lesson_identifiers(name)
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            found += [f"cell {index}: {line}"
                      for text in shown_text(cell) for line in english_in(text, identifiers)]
    assert not found, f"solutions/pt/{name} shows English:\n" + "\n".join(found)


#: English a review (../shared/reviews/portuguese-05-11.md) found in the Portuguese edition, and
#: what this course printed before it was translated.
FOUND_BEFORE = [
    "o seu lstm_step_forward's next_h não coincide com PyTorch's LSTMCell: corrija-o primeiro",
    "softmax_loss's result deve ser uma tupla",
    "h over chunks of 2",
    "random / orthogonal / identity",
    "T = 5: 3 of 3",
    "✓ slope of x^2 - 4x at x = 3.5  erro relativo 1.1e-11",
    "✓ dx at x=1.2, y=0.5, dL=1.0  erro relativo 0.0e+00",
    "✓ sgd_momentum's trajectory  erro relativo 7.1e-17",
    "CheckFailed: dl for N=1 losses, dout=2.5 erro relativo 4.3e-01 (precisa ser < 1e-07)",
    "Dica: este exercício pede para não chamar rel_error (the verdict is the one you design)",
    "10–90 % of the paths",
    "BadReturnValue: collapse's b deve ser um array de formato (1,), mas tem formato (3,).",
]

#: Portuguese the edition prints, with code, numbers, kept terms and a library's own warning.
PORTUGUESE = [
    "✓ gradiente através de out = tanh(x)  erro relativo 4.4e-11",
    "Dica: o seu dz1 está certo onde a máscara é True, mas errado em 29 das 29 entradas onde é False",
    "2000 passos de 64 exemplos; perda 1.0992 no início (log 3 = 1.0986), 0.2465 nos últimos 100 passos",
    "✓ params['W1'] após cada um dos 6 passos  erro relativo 0.0e+00",
    "  RuntimeWarning: overflow encountered in exp",
    "o seu dx calcula a derivada da tanh a partir da entrada da camada: use o out guardado no cache "
    "pela passagem direta (forward)",
    "duas classes: J[0, 0] = 0.104994, inclinação da sigmoide em z0 - z1 = 0.104994",
    "a batch norm e a layer norm normalizam o lote; o kernel tem padding 1 e stride 2; one-hot",
]


@pytest.mark.parametrize("line", FOUND_BEFORE)
def test_the_detector_finds_english_the_edition_showed(line: str) -> None:
    assert english_words(line, lesson_identifiers("05_softmax")), line


@pytest.mark.parametrize("line", PORTUGUESE)
def test_the_detector_finds_nothing_in_portuguese(line: str) -> None:
    every_lesson = frozenset().union(*map(lesson_identifiers, assignments()))
    assert english_words(line, every_lesson) == [], line


def test_a_course_error_is_read_a_library_warning_is_not() -> None:
    assert english_words("CheckFailed: the loss is wrong") == ["the", "loss", "is", "wrong"]
    assert english_words("RuntimeError: Can't call numpy() on Tensor that requires grad.") == []


#: Calls whose string arguments are code, never shown as prose (warning filters, dict lookups, ...).
_CODE_CALLS = {"simplefilter", "filterwarnings", "get", "startswith", "endswith", "setdefault", "pop", "join",
               "split", "replace", "open", "getattr", "hasattr", "setattr", "isinstance"}
#: Keyword arguments that take a mode, not prose (check_close(kind="value"), reduction="none").
_CODE_KEYWORDS = {"kind", "mode", "dtype", "reduction", "nonlinearity", "padding_mode"}


def _untranslated(source: str, identifiers: frozenset[str]) -> list[str]:
    """The string literals of a cell that a student may read (not docstrings, dict keys, comparisons
    or arguments of _CODE_CALLS) with English words, outside tr(...) and returned_by(...)."""
    import ast

    from grader.instructor.grading import cell_names

    tree = cell_names.parse(source)
    if tree is None:
        return []
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def translated_or_code(node) -> bool:
        parent = parents.get(node)
        if isinstance(parent, ast.keyword) and parent.arg in _CODE_KEYWORDS:
            return True
        if isinstance(parent, ast.JoinedStr | ast.Compare | ast.Subscript) or (
                isinstance(parent, ast.Dict) and node in parent.keys) or (
                isinstance(parent, ast.Expr) and parent in getattr(parents.get(parent), "body", [])[:1]):
            return True
        while parent is not None:
            if isinstance(parent, ast.Call):
                called = getattr(parent.func, "id", None) or getattr(parent.func, "attr", None)
                if called in ("tr", "returned_by") or called in _CODE_CALLS:
                    return True
            parent = parents.get(parent)
        return False

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = " ".join(v.value if isinstance(v, ast.Constant) else " X " for v in node.values)
        else:
            continue
        if not translated_or_code(node) and (words := english_words(text, identifiers, strict=True)):
            found.append(f"line {node.lineno}: {words}: {text.strip()[:80]!r}")
    return found


@pytest.mark.parametrize("name", assignments())
def test_graded_and_locked_cells_show_no_english_outside_tr(name: str) -> None:
    """What a graded or locked cell prints, labels, asserts or raises (its hidden tests included:
    their messages are the grading feedback) goes through tr(...) or returned_by(...): those cells are
    the same in both editions."""
    nb = nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4)
    identifiers = lesson_identifiers(name)
    found = []
    for cell in nb.cells:
        grading = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and (grading.get("grade") or grading.get("locked")):
            found += [f"cell {cell.get('id')}, {line}" for line in _untranslated(cell.source, identifiers)]
    assert not found, f"course/{name}: English shown without tr(...):\n" + "\n".join(found)


def test_the_cell_check_finds_a_label_without_tr() -> None:
    source = ('check_close(f"dx for N={n} examples", dx, ref)\n'
              'check_close(tr("dx for N={n}").format(n=n), dx, ref, kind="value")')
    found = _untranslated(source, frozenset({"check_close", "dx", "ref", "n"}))
    assert len(found) == 1 and "line 1" in found[0], found
    assert _untranslated('x = {"the key": 1}\nif mode == "the test": pass', frozenset()) == []
