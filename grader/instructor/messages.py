"""The toolkit's and the lesson helpers' message catalogues (gettext, maintained with Babel).

    python -m grader.instructor.messages update    # extract `_(...)` messages into every .po
    python -m grader.instructor.messages compile   # .po -> .mo (what the kernels read)
    python -m grader.instructor.messages check     # exit 1 on anything untranslated or stale

Three domains (`grader.i18n`): "grader" for the toolkit (grader/*.py and grader/hints/),
"grader_lessons" for the lesson helpers (grader/lessons/), and "grader_cells" for the `tr(...)`
messages of the lessons' graded and locked cells (course/*/*.ipynb: code that must stay the same
in every edition, so what it prints is translated when shown). A message whose English changed is
marked fuzzy by `update` (its old translation kept as a suggestion) until a translator revises it
and removes the flag.
"""

from __future__ import annotations

import argparse
import io
import sys
from datetime import UTC, datetime
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog
from babel.messages.checkers import python_format
from babel.messages.extract import extract, extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from grader.i18n import CELLS_DOMAIN, LANGUAGES, LESSONS_DOMAIN, LOCALE_DIR, TOOLKIT_DOMAIN
from grader.instructor.grading.cell_names import python_source

GRADER = LOCALE_DIR.parent
#: What each domain is extracted from, and the names its messages are marked with.
SOURCES = {
    TOOLKIT_DOMAIN: sorted([*GRADER.glob("*.py"), *(GRADER / "hints").glob("*.py")]),
    LESSONS_DOMAIN: sorted((GRADER / "lessons").rglob("*.py")),
    CELLS_DOMAIN: sorted((GRADER.parent / "course").glob("*/*.ipynb")),
}
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "lesson_text": None, "lesson_ngettext": (1, 2)}
CELL_KEYWORDS = {"tr": None}
#: Fixed dates keep the files byte-stable from one run to the next.
FIXED_DATE = datetime(2026, 12, 1, tzinfo=UTC)
TRANSLATED = [language for language in LANGUAGES if language != "en"]


def po_path(domain: str, language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


def template(domain: str) -> Catalog:
    """Every message marked in the domain's sources, with where it is used."""
    catalog = Catalog(project="backprop-course", creation_date=FIXED_DATE, fuzzy=False)
    for path in SOURCES[domain]:
        found = _notebook_messages(path) if path.suffix == ".ipynb" else extract_from_file(
            "python", str(path), keywords=KEYWORDS, comment_tags=("Translators:",))
        for line, message, comments, _context in found:
            where = (path.relative_to(GRADER.parent).as_posix(), line)
            catalog.add(message, locations=[where], auto_comments=comments)
    return catalog


def _notebook_messages(path: Path) -> list[tuple]:
    """The `tr(...)` messages of a lesson's code cells, located by the line in the whole notebook
    file's code (cell after cell), with the cell id as a comment for the translator."""
    nb = nbformat.read(path, as_version=4)
    found, offset = [], 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = python_source(cell.source)  # magics as IPython runs them: one line each
        for line, message, comments, context in extract(
            "python", io.BytesIO(source.encode()), keywords=CELL_KEYWORDS, comment_tags=("Translators:",)
        ):
            found.append((offset + line, message, [f"cell {cell.get('id')}", *comments], context))
        offset += max(len(cell.source.splitlines()), 1)
    return found


def read(path: Path, language: str, domain: str) -> Catalog:
    if path.is_file():
        with path.open("rb") as handle:
            return read_po(handle, locale=language, domain=domain)
    return Catalog(locale=language, domain=domain, project="backprop-course", creation_date=FIXED_DATE)


def write(path: Path, catalog: Catalog) -> None:
    catalog.revision_date = FIXED_DATE
    catalog.creation_date = FIXED_DATE
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, sort_output=False, include_previous=True)
    path.write_bytes(buffer.getvalue())


def compiled(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    return buffer.getvalue()


def update() -> None:
    """Bring every catalogue up to date with the sources (new messages empty, changed ones fuzzy)."""
    for domain in SOURCES:
        fresh = template(domain)
        for language in TRANSLATED:
            path = po_path(domain, language)
            catalog = read(path, language, domain)
            catalog.update(fresh, update_header_comment=False)
            catalog.obsolete.clear()
            write(path, catalog)


def compile_all() -> None:
    for domain in SOURCES:
        for language in TRANSLATED:
            path = po_path(domain, language)
            path.with_suffix(".mo").write_bytes(compiled(read(path, language, domain)))


def problems() -> list[str]:
    """Everything that keeps the catalogues from matching the sources, one line each."""
    found: list[str] = []
    for domain in SOURCES:
        wanted = {m.id: m for m in template(domain) if m.id}
        for language in TRANSLATED:
            path = po_path(domain, language)
            rel = path.relative_to(GRADER.parent)
            if not path.is_file():
                found.append(f"{rel}: missing (run `python -m grader.instructor.messages update`)")
                continue
            catalog = read(path, language, domain)
            have = {m.id: m for m in catalog if m.id}
            for msgid, message in wanted.items():
                where = ", ".join(f"{f}:{n}" for f, n in message.locations[:1])
                entry = have.get(msgid)
                text = msgid if isinstance(msgid, str) else msgid[0]
                if entry is None:
                    found.append(f"{rel}: not extracted yet ({where}): {text[:70]!r}")
                elif entry.fuzzy:
                    found.append(f"{rel}: stale (fuzzy: the English changed) ({where}): {text[:70]!r}")
                elif not (entry.string if isinstance(entry.string, str) else all(entry.string)):
                    found.append(f"{rel}: untranslated ({where}): {text[:70]!r}")
                else:
                    try:
                        python_format(catalog, entry)
                    except Exception as err:  # babel's TranslationError: a %-placeholder lost
                        found.append(f"{rel}: {err} ({where}): {text[:70]!r}")
                    found += _brace_problems(rel, where, entry)
            mo = path.with_suffix(".mo")
            if not mo.is_file() or mo.read_bytes() != compiled(catalog):
                found.append(
                    f"{mo.relative_to(GRADER.parent)}: stale "
                    "(run `python -m grader.instructor.messages compile`)"
                )
    return found


def _brace_problems(rel: Path, where: str, entry) -> list[str]:
    """A `{name}` placeholder of the English missing from the translation (or one added)."""
    import string

    def fields(text: str) -> set[str]:
        try:
            return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        except ValueError:
            return {"<unbalanced braces>"}

    ids = [entry.id] if isinstance(entry.id, str) else list(entry.id)
    strings = [entry.string] if isinstance(entry.string, str) else list(entry.string)
    english = set().union(*(fields(t) for t in ids))
    out = []
    for text in strings:
        if fields(text) != english:
            out.append(
                f"{rel}: placeholders {sorted(fields(text))} instead of {sorted(english)} ({where}): "
                f"{ids[0][:60]!r}"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.instructor.messages", description=__doc__.split("\n")[0]
    )
    parser.add_argument("command", choices=["update", "compile", "check"])
    args = parser.parse_args(argv)
    if args.command == "update":
        update()
    elif args.command == "compile":
        compile_all()
    else:
        found = problems()
        print("\n".join(found) or "every message is translated and compiled")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
