"""The lessons' translations: one gettext catalogue per lesson and language, keyed by cell id.

    python -m grader.instructor.translations extract [NN_topic ...] [--language pt]
    python -m grader.instructor.translations check   [NN_topic ...] [--language pt]

`translations/<language>/<NN_topic>.po` holds, for every plain cell of the lesson (the cells
nbgrader neither grades nor locks), one entry per translatable unit: the whole text of a markdown
cell (the title without its line of links, which the build writes), and the comments and the
prose string literals (printed text, figure titles and labels, widget descriptions) of a code
cell; and, in the cells a student answers in (nbgrader solution cells), the docstrings and comments
around the solution (never the solution itself, which the release replaces). An entry's context
(`msgctxt`) is the cell's id, its `msgid` the English, and its extracted
comment `en-sha256 <hash>` the hash of the English the translation was written for.

`extract` brings a catalogue up to date: a new unit gets an empty entry; a unit whose English
changed keeps its old translation, flagged fuzzy (`git diff` shows the English that changed), until a
translator revises it and removes the flag (`extract` then records the new hash). `check` (and
tests/course/test_translations.py) lists what is missing, stale or broken; the build refuses to
write an edition with any of it. Cells nbgrader grades or locks are never translated, and a
solution cell only in its docstrings and comments: both editions grade the same code.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import re
import sys
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po
from nbgrader.utils import compute_checksum, is_grade, is_locked, is_solution

from grader.instructor import front_ends
from grader.instructor.course_layout import assignments
from grader.instructor.diagram_text import with_diagram_text, without_diagram_text
from grader.instructor.grading import cell_names
from grader.instructor.messages import FIXED_DATE

REPO = Path(__file__).resolve().parents[2]
TRANSLATIONS = REPO / "translations"
#: The editions besides English, and their names in their own language.
EDITIONS = {"pt": "Português"}
#: Editions declared unfinished: (lesson, language) -> why. The build skips them, the tests accept
#: them, README.pt.md says so. Empty this as soon as the catalogue is complete.
PENDING: dict[tuple[str, str], str] = {}
HASH_NOTE = "en-sha256 "

# A string literal is prose when it holds two words, or when it is a label, a title or a description.
_PROSE = re.compile(r"[^\W\d_]{2,}[\s,;:]+[^\W\d_]{2,}")
_WORD = re.compile(r"[^\W\d_]{2,}")
#: A comment is prose when it holds a word of three letters or more ("# ---- functions ----",
#: "# one (B, n) float32 tensor"), unless it is a directive to a tool.
_COMMENT_WORD = re.compile(r"[^\W\d_]{3,}")
_DIRECTIVE = re.compile(r"^#\s*(noqa|type:|pragma|fmt:|%%)")
_LABEL_KEYWORDS = {
    "label",
    "title",
    "xlabel",
    "ylabel",
    "zlabel",
    "description",
    "suptitle",
    "text",
    "placeholder",
    "tooltip",
}
_LABEL_CALLS = {
    "set_title",
    "set_xlabel",
    "set_ylabel",
    "set_zlabel",
    "suptitle",
    "title",
    "xlabel",
    "ylabel",
    "text",
    "annotate",
    "print",
    "legend",
    "set_text",
    "Label",
    "HTML",
    "Markdown",
}


#: Calls every word of whose arguments is shown (a table's headers and cells, however nested).
_TABLE_CALLS = {"show_table"}


class TranslationError(ValueError):
    """A lesson's catalogue is missing, incomplete, stale or broken; the message lists every problem."""


@dataclass(frozen=True)
class Unit:
    """One translatable piece of a plain cell: `kind` is "markdown", "comment" or "string"."""

    cell_id: str
    kind: str
    english: str


def english_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def catalogue_path(lesson: str, language: str, root: Path = REPO) -> Path:
    return root / "translations" / language / f"{lesson}.po"


SOLUTION_REGION = re.compile(r"### BEGIN SOLUTION.*?### END SOLUTION", re.S)
#: nbgrader's own marks: never translated
_NBGRADER_MARK = re.compile(r"#+\s*(BEGIN|END) (SOLUTION|HIDDEN TESTS)\s*$")


def is_answer_cell(cell) -> bool:
    """A code cell a student writes in (nbgrader solution, not graded itself): its docstrings and
    comments are translated, around the solution region."""
    return cell.cell_type == "code" and is_solution(cell) and not is_grade(cell) and not is_locked(cell)


def answer_fragments(source: str) -> list[tuple[str, int, int]]:
    """code_fragments of an answer cell outside its solution region (blanked, offsets kept), and
    the comments inside it (the solved lesson shows them; the release's stub replaces them)."""
    blank = SOLUTION_REGION.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)
    regions = [m.span() for m in SOLUTION_REGION.finditer(source)]
    inside = [f for f in code_fragments(source)
              if f[0] == "comment" and any(a <= f[1] < b for a, b in regions)
              and not _NBGRADER_MARK.match(source[f[1]:f[2]])]
    return sorted(code_fragments(blank) + inside, key=lambda f: f[1])


def is_check_cell(cell) -> bool:
    """A code cell nbgrader locks or grades (the setup, helpers and checks): the same code in every
    edition; the comments and docstrings a student reads in it are translated."""
    return cell.cell_type == "code" and (is_locked(cell) or is_grade(cell)) and not is_answer_cell(cell)


def check_fragments(source: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the prose comments and docstrings of a check cell above its hidden
    tests: what a student reads there. Its other strings go through `tr`, never translated here."""
    visible = source.split(HIDDEN_TESTS)[0]
    starts = _offsets(visible)
    found = [f for f in code_fragments(visible) if f[0] == "comment"]
    tree = cell_names.parse(visible)
    lines = visible.splitlines(keepends=True)

    def offset(line: int, column: int) -> int:  # ast's columns count UTF-8 bytes
        return starts[line - 1] + len(lines[line - 1].encode()[:column].decode())

    owners = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in ast.walk(tree) if tree is not None else ():
        first = node.body[0] if isinstance(node, owners) and node.body else None
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        if docstring and isinstance(first.value.value, str):
            found.append(("string", offset(first.lineno, first.col_offset),
                          offset(first.end_lineno, first.end_col_offset)))
    return sorted(found, key=lambda f: f[1])


def is_plain(cell) -> bool:
    """A cell nbgrader neither grades, locks nor takes a solution from (and not the bootstrap cell)."""
    graded = is_grade(cell) or is_solution(cell) or is_locked(cell)
    return not graded and cell.get("id") != "bootstrap" and cell.cell_type in ("markdown", "code")


# ---------------------------------------------------------------- what a cell offers to translate


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _is_prose_string(literal: str, before: list[tokenize.TokenInfo]) -> bool:
    if re.match(r"^[a-zA-Z]*[bB]", literal):
        return False
    body = re.sub(r"^[a-zA-Z]*('''|\"\"\"|'|\")", "", literal)
    body = re.sub(r"\{[^{}]*\}", " ", body)  # an f-string's fields are code, not prose
    if _PROSE.search(body):
        return True
    significant = [t for t in before if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)]
    if len(significant) >= 2 and _WORD.search(body):
        op, name = significant[-1].string, significant[-2].string
        return ((op == "=" and name in _LABEL_KEYWORDS) or (op == "(" and name in _LABEL_CALLS)
                or _enclosing_call(significant) in _TABLE_CALLS)
    return False


def _is_prose_comment(comment: str) -> bool:
    return bool(_COMMENT_WORD.search(comment)) and not _DIRECTIVE.match(comment)


def _enclosing_call(significant: list[tokenize.TokenInfo]) -> str | None:
    """The name of the call whose parentheses hold the next token, however deep in its lists."""
    depth = 0
    for index in range(len(significant) - 1, 0, -1):
        text = significant[index].string
        if text in ")]}":
            depth += 1
        elif text in "([{":
            if depth:
                depth -= 1
            elif text == "(" and significant[index - 1].type == tokenize.NAME:
                return significant[index - 1].string
    return None


def code_fragments(source: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) character offsets of the comments and prose strings of a code cell.

    Adjacent string literals (implicit concatenation, across lines) make one fragment."""
    starts = _offsets(source)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    fragments: list[tuple[str, int, int]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        begin = starts[tok.start[0] - 1] + tok.start[1]
        if tok.type == tokenize.COMMENT and _is_prose_comment(tok.string):
            fragments.append(("comment", begin, starts[tok.end[0] - 1] + tok.end[1]))
        elif tok.type == tokenize.STRING:
            j = i
            while j + 1 < len(tokens) and tokens[j + 1].type in (tokenize.STRING, tokenize.NL):
                j += 1
            while tokens[j].type != tokenize.STRING:
                j -= 1
            group = [t.string for t in tokens[i : j + 1] if t.type == tokenize.STRING]
            if any(_is_prose_string(s, tokens[:i]) for s in group):
                end = starts[tokens[j].end[0] - 1] + tokens[j].end[1]
                fragments.append(("string", begin, end))
            i = j
        i += 1
    return fragments


def units(nb: nbformat.NotebookNode) -> list[Unit]:
    """Every translatable unit of a notebook, in order."""
    found: list[Unit] = []
    for index, cell in enumerate(nb.cells):
        if is_answer_cell(cell):
            found += _code_units(cell, answer_fragments(cell.source))
            continue
        if is_check_cell(cell):
            found += _code_units(cell, check_fragments(cell.source))
            continue
        if not is_plain(cell) or not cell.source.strip():
            continue
        if cell.cell_type == "markdown":
            text = front_ends.without_open_line(cell.source) if index == 0 else cell.source
            found.append(Unit(cell.id, "markdown", without_diagram_text(text)))
            continue
        found += _code_units(cell, code_fragments(cell.source))
    return found


def _code_units(cell, fragments: list[tuple[str, int, int]]) -> list[Unit]:
    found, seen = [], set()
    for kind, start, end in fragments:
        text = cell.source[start:end]
        if text not in seen:
            seen.add(text)
            found.append(Unit(cell.id, kind, text))
    return found


def english_units(lesson: str, root: Path = REPO) -> list[Unit]:
    nb = nbformat.read(root / "course" / lesson / f"{lesson}.ipynb", as_version=4)
    return units(nb)


# ---------------------------------------------------------------- catalogues


def read_catalogue(path: Path, language: str) -> Catalog:
    if not path.is_file():
        return Catalog(locale=language, project="backprop-course", creation_date=FIXED_DATE)
    with path.open("rb") as handle:
        return read_po(handle, locale=language)


def write_catalogue(path: Path, catalog: Catalog) -> None:
    catalog.creation_date = catalog.revision_date = FIXED_DATE
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=0, sort_output=False, include_previous=False, omit_header=False)
    path.write_bytes(buffer.getvalue())


def recorded_hash(message: Message) -> str | None:
    """The hash of the English a translation was written for (its `#.` comment)."""
    for note in message.auto_comments:
        if HASH_NOTE in note:
            return note.split(HASH_NOTE, 1)[1].split()[0]
    return None


def _entry(unit: Unit, string: str = "", previous: Message | None = None) -> Message:
    fuzzy = previous is not None and previous.id != unit.english and bool(previous.string)
    if previous is None or previous.id == unit.english:
        recorded = english_hash(unit.english)
    else:
        recorded = recorded_hash(previous) or ""
    message = Message(
        unit.english,
        string,
        context=unit.cell_id,
        flags={"fuzzy"} if fuzzy else set(),
        auto_comments=[f"{unit.kind} · {HASH_NOTE}{recorded}"],
    )
    return message


def extract(lesson: str, language: str, root: Path = REPO) -> Catalog:
    """The lesson's catalogue brought up to date with its English (module docstring); written."""
    path = catalogue_path(lesson, language, root)
    old = read_catalogue(path, language)
    by_cell: dict[str, list[Message]] = {}
    for message in old:
        if message.id:
            by_cell.setdefault(message.context or "", []).append(message)
    fresh = Catalog(
        locale=language,
        project=f"backprop-course {lesson}",
        creation_date=FIXED_DATE,
        header_comment=f"# {EDITIONS[language]}: {lesson} (python -m grader.instructor.translations).",
        msgid_bugs_address="https://github.com/backprop-course/backprop-course/issues",
        last_translator="backprop-course",
        language_team=EDITIONS[language],
    )
    wanted: dict[str, list[Unit]] = {}
    for unit in english_units(lesson, root):
        wanted.setdefault(unit.cell_id, []).append(unit)
    for cell_id, cell_units in wanted.items():
        previous = by_cell.get(cell_id, [])
        exact = {m.id: m for m in previous}
        leftovers = [m for m in previous if m.id not in {u.english for u in cell_units}]
        for unit in cell_units:
            same = exact.get(unit.english)
            if same is not None:
                revised = not same.fuzzy  # a translator removed the flag: record the new hash
                message = _entry(unit, same.string, None if revised else same)
                if same.fuzzy:
                    message.flags.add("fuzzy")
                    message.previous_id = same.previous_id
                    message.auto_comments = same.auto_comments
            else:
                message = _entry(unit, *((leftovers[0].string, leftovers.pop(0)) if leftovers else ("",)))
            fresh.add(
                message.id,
                message.string,
                context=message.context,
                flags=message.flags,
                auto_comments=message.auto_comments,
                previous_id=message.previous_id,
            )
    write_catalogue(path, fresh)
    return fresh


def _inline_code(markdown: str) -> Counter:
    prose = re.sub(r"^(```|~~~).*?^\1", "", markdown, flags=re.S | re.M)
    return Counter(re.findall(r"`[^`\n]+`", prose))


def _fields(literal: str) -> tuple[type, Counter] | None:
    try:
        node = ast.parse(f"({literal}\n)", mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return str, Counter()
    if isinstance(node, ast.JoinedStr):
        return ast.JoinedStr, Counter(
            ast.unparse(v) for v in node.values if isinstance(v, ast.FormattedValue)
        )
    return None


def invalid(unit: Unit, translated: str) -> list[str]:
    """What is wrong with a translation of `unit` (empty: nothing)."""
    if unit.kind == "markdown":
        lost = _inline_code(unit.english) - _inline_code(translated)
        added = _inline_code(translated) - _inline_code(unit.english)
        links = Counter(re.findall(r"\]\(([^)\s]+)", unit.english)) != Counter(
            re.findall(r"\]\(([^)\s]+)", translated)
        )
        return ([f"inline code changed: {sorted(lost)} became {sorted(added)}"] if lost or added else []) + (
            ["the links' addresses differ from the English"] if links else []
        )
    if unit.kind == "comment":
        return (
            []
            if translated.startswith("#") and "\n" not in translated
            else ["a comment must be one line starting with #"]
        )
    english, ours = _fields(unit.english), _fields(translated)
    if ours is None:
        return [f"not a Python string literal: {translated[:60]!r}"]
    if ours != english:
        return [
            f"f-string fields {sorted(ours[1])} instead of {sorted(english[1])}" if english else "other kind"
        ]
    return []


def problems(lesson: str, language: str, root: Path = REPO) -> list[str]:
    """Everything that keeps the lesson's edition in `language` from being built, one line each."""
    path = catalogue_path(lesson, language, root)
    rel = path.relative_to(root).as_posix()
    run = f"python -m grader.instructor.translations extract {lesson} --language {language}"
    if not path.is_file():
        return [f"{rel}: no catalogue yet (run `{run}`, then translate it)"]
    catalog = read_catalogue(path, language)
    cells = {m.context for m in catalog if m.id}
    found = []
    for unit in english_units(lesson, root):
        where = f"{rel}, cell {unit.cell_id} ({unit.kind})"
        message = catalog.get(unit.english, context=unit.cell_id)
        if message is None:
            why = (
                "its English changed since the catalogue was extracted"
                if unit.cell_id in cells
                else "not in the catalogue"
            )
            found.append(f"{where}: {why} (run `{run}`)")
        elif message.fuzzy:
            found.append(
                f"{where}: stale, its English changed: revise the translation and remove the fuzzy flag"
            )
        elif not message.string:
            found.append(f"{where}: not translated yet")
        elif recorded_hash(message) != english_hash(unit.english):
            found.append(f"{where}: the recorded hash is not its English's (run `{run}` after revising)")
        else:
            found += [f"{where}: {problem}" for problem in invalid(unit, message.string)]
    return found


HIDDEN_TESTS = "### BEGIN HIDDEN TESTS"
#: The calls whose string arguments a student reads: what a test cell prints or hints.
_SHOWN_CALLS = {"print", "show_hint"}
#: The checks whose first argument, the label, is shown on their ✓/✗ line.
_LABELLED_CHECKS = {"check_close", "check_gradient"}


def _shown_literal(node: ast.AST) -> str | None:
    """The prose of a str literal or f-string node (its fields blanked), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = " ".join(v.value if isinstance(v, ast.Constant) else " " for v in node.values)
    else:
        return None
    return text if _PROSE.search(text) else None


def english_only_messages(lesson: str, root: Path = REPO) -> list[str]:
    """Messages a graded or locked cell shows a student without `tr(...)`: English in every edition.

    Those cells are the same in every edition, so what they print (print, show_hint), the labels
    of their checks (check_close, check_gradient) and what their visible asserts say must go
    through `grader.tr`. The hidden tests are not read: a
    student sees their messages only in the grading feedback."""
    nb = nbformat.read(root / "course" / lesson / f"{lesson}.ipynb", as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code" or is_plain(cell) or is_solution(cell):
            continue
        tree = cell_names.parse(cell.source.split(HIDDEN_TESTS)[0])
        if tree is None:
            continue
        for node in sorted(ast.walk(tree), key=lambda n: getattr(n, "lineno", 0)):
            shown: list[ast.AST] = []
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in _SHOWN_CALLS:
                shown = list(node.args)
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in _LABELLED_CHECKS:
                shown = node.args[:1]
            elif isinstance(node, ast.Assert) and node.msg is not None:
                shown = [node.msg]
            for arg in shown:
                text = _shown_literal(arg)
                if text is not None:
                    found.append(f"course/{lesson}, cell {cell.get('id')}, line {arg.lineno}: "
                                 f"{text.strip()[:60]!r} is shown without tr(...)")
    return found


#: nbgrader's mark where a student writes (ClearSolutions.code_stub), in each edition's language.
CODE_STUB_MARK = "# YOUR CODE HERE"
CODE_STUB_MARKS = {"pt": "# SEU CÓDIGO AQUI"}


def translate_notebook(
    nb: nbformat.NotebookNode, lesson: str, language: str, root: Path = REPO
) -> nbformat.NotebookNode:
    """A copy of a lesson notebook (source, release or solution skeleton, with the course's cell
    ids) in `language`: plain cells translated, the title's links and the bootstrap cell the
    edition's own; every other cell untouched. Raises TranslationError listing every problem."""
    found = problems(lesson, language, root)
    if found:
        raise TranslationError(
            f"{lesson} has no complete {EDITIONS[language]} edition:\n  " + "\n  ".join(found)
        )
    catalog = read_catalogue(catalogue_path(lesson, language, root), language)
    out = nbformat.reads(nbformat.writes(nb), as_version=4)
    for index, cell in enumerate(out.cells):
        if cell.get("id") == "bootstrap":
            cell.source = front_ends.bootstrap_source(language)
        elif is_answer_cell(cell):
            cell.source = answer_text(cell.source, cell_pairs(catalog, cell.id)).replace(
                CODE_STUB_MARK, CODE_STUB_MARKS.get(language, CODE_STUB_MARK))
        elif is_check_cell(cell):
            cell.source = check_text(cell.source, cell_pairs(catalog, cell.id))
            if "checksum" in cell.metadata.get("nbgrader", {}):
                cell.metadata.nbgrader["checksum"] = compute_checksum(cell)
        elif is_plain(cell) and cell.source.strip():
            cell.source = _translated(cell, index, catalog, lesson, language)
    out.metadata["backprop_edition"] = {"language": language}
    return out


def cell_pairs(catalog: Catalog, cell_id: str) -> list[tuple[str, str]]:
    return [(m.id, m.string) for m in catalog if m.id and m.context == cell_id]


def answer_text(source: str, pairs: list[tuple[str, str]]) -> str:
    """An answer cell (with its solution, or the release's placeholder) with its docstrings and
    comments replaced: each (english, translated) pair once, outside the solution region. Apply
    it with the pairs reversed to get the English back (the editions' identity test)."""
    region = SOLUTION_REGION.search(source)
    before, solution, after = ((source[: region.start()], region.group(0), source[region.end():])
                               if region else (source, "", ""))
    for english, translated in sorted(pairs, key=lambda pair: -len(pair[0])):
        if english in before:
            before = before.replace(english, translated, 1)
        elif english in after:
            after = after.replace(english, translated, 1)
        elif english.startswith("#") and english in solution:  # a comment of the solution
            solution = solution.replace(english, translated)
    return before + solution + after


def check_text(source: str, pairs: list[tuple[str, str]]) -> str:
    """A check cell with the comments and docstrings above its hidden tests replaced: each
    (english, translated) pair once. Apply it with the pairs reversed to get the English back."""
    visible, hidden = (source.split(HIDDEN_TESTS, 1) + [""])[:2] if HIDDEN_TESTS in source else (source, None)
    for english, translated in sorted(pairs, key=lambda pair: -len(pair[0])):
        visible = visible.replace(english, translated)
    return visible if hidden is None else visible + HIDDEN_TESTS + hidden


def _translated(cell, index: int, catalog: Catalog, lesson: str, language: str) -> str:
    if cell.cell_type == "markdown":
        if index == 0:
            english = front_ends.without_open_line(cell.source)
            return front_ends.with_open_line(catalog.get(english, context=cell.id).string, lesson, language)
        english = without_diagram_text(cell.source)
        return with_diagram_text(catalog.get(english, context=cell.id).string, language)
    source = cell.source
    for _kind, start, end in reversed(code_fragments(source)):
        source = source[:start] + catalog.get(source[start:end], context=cell.id).string + source[end:]
    return source


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.instructor.translations", description=__doc__.split("\n")[0]
    )
    parser.add_argument("command", choices=["extract", "check"])
    parser.add_argument("lessons", nargs="*", help="NN_topic names (default: every lesson)")
    parser.add_argument("--language", default="pt", choices=sorted(EDITIONS))
    args = parser.parse_args(argv)
    lessons = args.lessons or assignments()
    unknown = sorted(set(lessons) - set(assignments()))
    if unknown:
        parser.error(f"no such lesson: {', '.join(unknown)} (expected names like 04_layers)")
    found: list[str] = []
    for lesson in lessons:
        if args.command == "extract":
            catalog = extract(lesson, args.language)
            done = sum(1 for m in catalog if m.id and m.string and not m.fuzzy)
            print(
                f"{catalogue_path(lesson, args.language).relative_to(REPO)}: {done} of "
                f"{sum(1 for m in catalog if m.id)} units translated"
            )
        else:
            found += problems(lesson, args.language) + english_only_messages(lesson)
    if args.command == "check":
        print("\n".join(found) or "every translation is complete and up to date")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
