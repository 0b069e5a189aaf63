"""The Portuguese edition: every lesson translated, up to date, and graded by the same cells.

A synthetic lesson shows each way a translation goes wrong (missing, stale, broken); the real
lessons must have none of them, and their editions in exercises/pt and solutions/pt must hold
exactly the English cells nbgrader grades, locks or takes a solution from.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from grader.instructor import front_ends
from grader.instructor import translations as tr
from grader.instructor.build import REPO, assignments, clean_source, editions

NAMES = assignments()
LANGUAGES = sorted(tr.EDITIONS)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_every_lesson_is_translated_and_up_to_date(name: str, language: str) -> None:
    problems = tr.problems(name, language)
    if (name, language) in tr.PENDING:  # declared unfinished: still a catalogue, with work left in it
        assert problems and tr.catalogue_path(name, language).is_file(), f"{name} is complete: empty PENDING"
        return
    assert not problems, f"{name} ({language}):\n" + "\n".join(problems[:20])


# ---------------------------------------------------------------- a synthetic lesson

LESSON = "00_demo"


def _demo_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cells = [
        nbformat.v4.new_markdown_cell("# Lesson 0 · Demo\n\nWrite `double(x)`, which returns $2x$."),
        nbformat.v4.new_code_cell(
            'def double(x):\n    """Twice x (a float or an array)."""\n    # one line is enough\n'
            "    ### BEGIN SOLUTION\n    return 2 * x  # twice, not squared\n    ### END SOLUTION",
            metadata={
                "nbgrader": {
                    "solution": True,
                    "grade": False,
                    "locked": False,
                    "grade_id": "double",
                    "schema_version": 3,
                }
            },
        ),
        nbformat.v4.new_code_cell(
            'print("the check runs")  # a check cell: its comment is translated, never its code',
            metadata={
                "nbgrader": {
                    "solution": False,
                    "grade": True,
                    "locked": True,
                    "points": 1,
                    "grade_id": "test_double",
                    "schema_version": 3,
                }
            },
        ),
        nbformat.v4.new_code_cell(
            "import matplotlib.pyplot as plt\n\n# the slope of the line, drawn\nx = 3\n"
            'print(f"double({x}) = {double(x)}, twice the input")\nplt.title("a straight line")\n'
            'ax = {"valid": 1}'
        ),
    ]
    for index, cell in enumerate(cells):
        cell.id = f"demo-{index}"
    nb.cells = cells
    return nb


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "course" / LESSON).mkdir(parents=True)
    nbformat.write(_demo_notebook(), tmp_path / "course" / LESSON / f"{LESSON}.ipynb")
    return tmp_path


PORTUGUESE = {
    '"""Twice x (a float or an array)."""': '"""O dobro de x (um float ou um array)."""',
    "# one line is enough": "# uma linha basta",
    "# twice, not squared": "# o dobro, não o quadrado",
    "# Lesson 0 · Demo\n\nWrite `double(x)`, which returns $2x$.":
        "# Aula 0 · Demonstração\n\nEscreva `double(x)`, que devolve $2x$.",
    "# the slope of the line, drawn": "# a inclinação da reta, desenhada",
    'f"double({x}) = {double(x)}, twice the input"': 'f"double({x}) = {double(x)}, o dobro da entrada"',
    '"a straight line"': '"uma reta"',
    "# a check cell: its comment is translated, never its code":
        "# uma célula de verificação: o comentário muda, o código nunca",
}


def _translate(root: Path, table: dict[str, str], fuzzy_too: bool = False) -> None:
    path = tr.catalogue_path(LESSON, "pt", root)
    catalog = tr.read_catalogue(path, "pt")
    for message in catalog:
        if message.id in table:
            message.string = table[message.id]
            if fuzzy_too:
                message.flags.discard("fuzzy")
    tr.write_catalogue(path, catalog)


def test_units_are_the_plain_cells_prose_only(root: Path) -> None:
    units = tr.english_units(LESSON, root)
    assert [(u.cell_id, u.kind) for u in units] == [
        ("demo-0", "markdown"),
        ("demo-1", "string"),  # an answer cell: its docstring and comments, not its solution's code
        ("demo-1", "comment"),
        ("demo-1", "comment"),
        ("demo-2", "comment"),  # a check cell: its comments and docstrings, never its strings
        ("demo-3", "comment"),
        ("demo-3", "string"),
        ("demo-3", "string"),
    ]
    assert '"valid"' not in {u.english for u in units}, "a one-word string that is data stays"


def test_missing_untranslated_then_complete(root: Path) -> None:
    assert "no catalogue yet" in tr.problems(LESSON, "pt", root)[0]
    tr.extract(LESSON, "pt", root)
    assert all("not translated yet" in p for p in tr.problems(LESSON, "pt", root))
    _translate(root, PORTUGUESE)
    assert tr.problems(LESSON, "pt", root) == []


def test_the_edition_changes_plain_cells_only(root: Path) -> None:
    tr.extract(LESSON, "pt", root)
    _translate(root, PORTUGUESE)
    english = _demo_notebook()
    ours = tr.translate_notebook(english, LESSON, "pt", root)
    assert ours.cells[0].source.startswith("# Aula 0 · Demonstração\n\nAbra esta aula no [Colab]")
    english_cell, ours_cell = english.cells[2], ours.cells[2]
    assert ours_cell.source == ('print("the check runs")  # uma célula de verificação: o comentário muda, '
                                'o código nunca')
    assert english_cell.metadata == ours_cell.metadata
    answer = ours.cells[1].source
    assert '"""O dobro de x' in answer and "# uma linha basta" in answer
    assert "return 2 * x  # o dobro, não o quadrado" in answer  # the solution's code stays, its comments not
    pairs = tr.cell_pairs(tr.read_catalogue(tr.catalogue_path(LESSON, "pt", root), "pt"), "demo-1")
    assert tr.answer_text(answer, [(p, e) for e, p in pairs]) == english.cells[1].source
    release = 'def double(x):\n    """Twice x (a float or an array)."""\n    # one line is enough\n' \
              "    # YOUR CODE HERE\n    raise NotImplementedError()"
    assert tr.answer_text(release, pairs).startswith('def double(x):\n    """O dobro de x')
    released = _demo_notebook()
    released.cells[1].source = release
    stub = tr.translate_notebook(released, LESSON, "pt", root).cells[1].source
    assert "# SEU CÓDIGO AQUI\n    raise NotImplementedError()" in stub and "YOUR CODE" not in stub
    assert 'o dobro da entrada"' in ours.cells[3].source and '"valid"' in ours.cells[3].source

    def shape(code: str) -> str:  # the program, with its strings blanked
        tree = ast.parse(code)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                node.value = ""
        return ast.dump(tree)

    assert shape(english.cells[3].source) == shape(ours.cells[3].source)
    assert ours.metadata["backprop_edition"] == {"language": "pt"}


def test_a_changed_english_cell_is_stale_until_revised(root: Path) -> None:
    tr.extract(LESSON, "pt", root)
    _translate(root, PORTUGUESE)
    nb = _demo_notebook()
    nb.cells[0].source = nb.cells[0].source.replace("returns", "gives back")
    nbformat.write(nb, root / "course" / LESSON / f"{LESSON}.ipynb")
    assert ["changed since the catalogue was extracted" in p for p in tr.problems(LESSON, "pt", root)] == [
        True
    ]
    with pytest.raises(tr.TranslationError, match="no complete Português edition"):
        tr.translate_notebook(nb, LESSON, "pt", root)
    tr.extract(LESSON, "pt", root)  # the old translation is kept, flagged fuzzy
    (stale,) = tr.problems(LESSON, "pt", root)
    assert "stale, its English changed" in stale and "demo-0" in stale
    catalog = tr.read_catalogue(tr.catalogue_path(LESSON, "pt", root), "pt")
    entry = catalog.get(nb.cells[0].source, context="demo-0")
    assert entry.fuzzy and entry.string.startswith("# Aula 0")
    _translate(root, {nb.cells[0].source: entry.string}, fuzzy_too=True)  # the translator revises it
    assert "recorded hash" in tr.problems(LESSON, "pt", root)[0]
    tr.extract(LESSON, "pt", root)
    assert tr.problems(LESSON, "pt", root) == []


@pytest.mark.parametrize(
    "english, broken, why",
    [
        ('f"double({x}) = {double(x)}, twice the input"', 'f"o dobro de {x}"', "f-string fields"),
        ('"a straight line"', '"uma reta', "not a Python string literal"),
        ("# the slope of the line, drawn", "a inclinação", "one line starting with #"),
        (
            "# Lesson 0 · Demo\n\nWrite `double(x)`, which returns $2x$.",
            "# Aula 0\n\nEscreva `dobro(x)`.",
            "inline code changed",
        ),
    ],
)
def test_a_broken_translation_is_refused(root: Path, english: str, broken: str, why: str) -> None:
    tr.extract(LESSON, "pt", root)
    _translate(root, {**PORTUGUESE, english: broken})
    (problem,) = tr.problems(LESSON, "pt", root)
    assert why in problem


# ---------------------------------------------------------------- the real editions


def _course_cells(name: str) -> list:
    """For each cell of the solution notebook (ids renumbered, nbgrader metadata gone): its course cell."""
    source = front_ends.released(nbformat.read(REPO / "course" / name / f"{name}.ipynb", as_version=4), name)
    return [c for c in source.cells if clean_source(c.source).strip()]


@pytest.mark.parametrize("name", NAMES)
def test_both_editions_grade_the_same_cells(name: str) -> None:
    assert editions(name) == LANGUAGES, f"{name} has no catalogue for {set(LANGUAGES) - set(editions(name))}"
    for language in [lang for lang in LANGUAGES if (name, lang) not in tr.PENDING]:
        for folder in ("exercises", "solutions"):
            en = nbformat.read(REPO / folder / name / f"{name}.ipynb", as_version=4)
            ours = nbformat.read(REPO / folder / language / name / f"{name}.ipynb", as_version=4)
            assert [c.cell_type for c in ours.cells] == [c.cell_type for c in en.cells], (folder, name)
            # what each cell is: the release keeps the course's metadata, the solutions do not
            origins = en.cells if folder == "exercises" else _course_cells(name)
            catalog = tr.read_catalogue(tr.catalogue_path(name, language), language)
            for index, (a, b, origin) in enumerate(zip(en.cells, ours.cells, origins, strict=True)):
                if tr.is_plain(origin) or origin.get("id") == "bootstrap":
                    continue
                where = f"{folder}/{language}/{name} cell {index}"
                source = b.source
                back = [(pt, en_text) for en_text, pt in tr.cell_pairs(catalog, origin.get("id"))]
                if tr.is_answer_cell(origin):  # the same code: only its docstrings and comments translated
                    source = tr.answer_text(b.source, back).replace(tr.CODE_STUB_MARKS[language],
                                                                    tr.CODE_STUB_MARK)
                elif tr.is_check_cell(origin):  # the same code: only its comments and docstrings translated
                    source = tr.check_text(b.source, back)
                meta_a, meta_b = (dict(c.metadata, nbgrader={**c.metadata.get("nbgrader", {}),
                                                              "checksum": None}) for c in (a, b))
                assert (a.source, meta_a) == (source, meta_b), where
                if b.metadata.get("nbgrader", {}).get("locked"):  # nbgrader validate sees no change
                    assert b.metadata.nbgrader.checksum == compute_checksum(b), where


def test_the_portuguese_bootstrap_cell_speaks_portuguese_and_sets_the_language() -> None:
    import subprocess
    import sys

    source = front_ends.bootstrap_source("pt")
    assert "Colab (or any" not in source and "Installing" not in source
    probe = source + "\nimport os\nprint(os.environ['BACKPROP_COURSE_LANGUAGE'])"
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["O kit do curso já está instalado: nada a preparar.", "pt"]


# ---------------------------------------------------------------- graded and locked cells


@pytest.mark.parametrize("name", NAMES)
def test_graded_and_locked_cells_show_their_messages_through_tr(name: str) -> None:
    """Those cells are the same in both editions: what they print must be translated when shown."""
    found = tr.english_only_messages(name)
    assert not found, (f"{len(found)} message(s) would stay English in the Portuguese edition:\n"
                       + "\n".join(found[:10]))


def test_a_printed_message_without_tr_is_found(root: Path) -> None:
    nb = nbformat.v4.new_notebook()
    test_cell = nbformat.v4.new_code_cell(
        'print(tr("✓ the same seed gives the same weights"))\n'
        'print(f"largest change in x: {change:.1e}")\n'
        'assert ok, tr("expected {a}").format(a=1)\n'
        'assert ok, "the biases should start at zero"\n'
        'print(f"{name}: {value}")\n'
        '### BEGIN HIDDEN TESTS\nassert ok, "a hidden message stays English"\n### END HIDDEN TESTS')
    test_cell.metadata["nbgrader"] = {"grade": True, "locked": True, "solution": False, "grade_id": "t",
                                      "points": 1}
    nb.cells.append(test_cell)
    (root / "course" / LESSON).mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, root / "course" / LESSON / f"{LESSON}.ipynb")
    found = tr.english_only_messages(LESSON, root)
    assert [line.split(": ", 1)[1] for line in found] == [
        "'largest change in x:' is shown without tr(...)",
        "'the biases should start at zero' is shown without tr(...)",
    ], found


def _shown_text(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n".join(out.get("text", "") or out.get("data", {}).get("text/plain", "")
                     for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", []))


@pytest.mark.parametrize("name", NAMES)
def test_the_portuguese_solutions_show_the_locked_cells_messages_in_portuguese(name: str) -> None:
    """Every tr message of three words or more without fields that the English solution shows, the
    Portuguese one shows translated (the same locked cell, run in the other language); and every
    check line's words
    ("relative error") are Portuguese there, as many lines as in English. Every lesson shows one or
    the other, so no lesson is checked vacuously."""
    from grader.i18n import CELLS_DOMAIN
    from grader.instructor import messages

    catalog = messages.read(messages.po_path(CELLS_DOMAIN, "pt"), "pt", CELLS_DOMAIN)
    # three words at least: a shorter message ("on", "the loss") is a substring of other English text
    fixed = {m.id: m.string for m in catalog if isinstance(m.id, str) and m.id and "{" not in m.id
             and m.string and m.string != m.id and len(m.id.split()) >= 3}
    english = _shown_text(REPO / "solutions" / name / f"{name}.ipynb")
    portuguese = _shown_text(REPO / "solutions" / "pt" / name / f"{name}.ipynb")
    shown = [msgid for msgid in fixed if msgid in english]
    if name == "06_two_layer_net":  # the test can fail: this lesson's checks print such lines
        assert "✓ the same seed gives the same weights" in shown
    missing = [msgid for msgid in shown if fixed[msgid] not in portuguese]
    assert not missing, f"{name}: shown in English in the Portuguese solution: {missing[:3]}"
    checks = english.count("  relative error ")
    assert shown or checks, f"{name}: the English solution shows no translated message and no check line"
    assert portuguese.count("  erro relativo ") == checks, (
        f"{name}: {checks} check lines say 'relative error' in English; the Portuguese solution has "
        f"{portuguese.count('  erro relativo ')} saying 'erro relativo'")


def test_every_word_of_a_table_is_offered_for_translation() -> None:
    source = ('show_table(["node", "forward value"], [("x", 1.0), ("gate", "0 (the gate is shut)")])\n'
              'keys = ["node"]')
    found = [source[start:end] for _, start, end in tr.code_fragments(source)]
    assert found == ['"node"', '"forward value"', '"gate"', '"0 (the gate is shut)"'], found


def test_a_comment_of_one_word_is_offered_for_translation_and_a_directive_is_not() -> None:
    source = ("# ---- functions ----\nx = 1  # one (B, n) float32 tensor\ny = 2  # noqa: E501\n"
              "z = 3  # 42\n")
    found = [source[start:end] for _, start, end in tr.code_fragments(source)]
    assert found == ["# ---- functions ----", "# one (B, n) float32 tensor"], found
