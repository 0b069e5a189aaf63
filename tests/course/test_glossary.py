"""One glossary for the Portuguese edition, enforced: the lessons' catalogues and the toolkit's.

translations/README.md's table "Words the edition does not use" lists patterns (European
Portuguese forms, lab slang, a term's rejected variant) with what to write instead; no Portuguese
entry of translations/pt/*.po or grader/locale/pt/LC_MESSAGES/*.po may match one, outside inline
code (a function's name such as `lstm_step_forward` is code, never translated).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

REPO = Path(__file__).resolve().parents[2]
README = REPO / "translations" / "README.md"
HEADING = "### Words the edition does not use"
CATALOGUES = sorted((REPO / "translations" / "pt").glob("*.po")) + \
    sorted((REPO / "grader" / "locale" / "pt" / "LC_MESSAGES").glob("*.po"))
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def avoided_words(readme: str) -> list[tuple[re.Pattern, str]]:
    """(pattern, what to write instead) for each row of the README's table."""
    section = readme.split(HEADING, 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
        if len(cells) < 2 or not cells[0].strip().startswith("`"):
            continue
        pattern = cells[0].strip().strip("`").replace("\\|", "|")
        rows.append((re.compile(pattern, re.IGNORECASE), cells[1].strip()))
    return rows


def offending(text: str, words: list[tuple[re.Pattern, str]]) -> list[str]:
    """'«match» → instead' for every avoided word in `text` (inline code left out)."""
    prose = _INLINE_CODE.sub(" ", text)
    return [f"«{m.group(0)}» → {instead}" for pattern, instead in words for m in pattern.finditer(prose)]


def _entries(path: Path) -> list[tuple[str, str]]:
    with path.open("rb") as handle:
        catalogue = read_po(handle)
    found = []
    for message in catalogue:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        found += [(ids[0], s) for s in strings if s]
    return found


WORDS = avoided_words(README.read_text(encoding="utf-8"))


def test_the_table_is_read() -> None:
    assert len(WORDS) >= 8, "translations/README.md's table of avoided words was not found"


@pytest.mark.parametrize(("text", "found"), [
    ("corrija primeiro o backward", 1),
    ("na passagem reversa (backward) do `lstm_step_forward`", 0),
    ("procure um sinal de menos em falta", 1),
    ("pois dout pode ser partilhado", 1),
    ("a perda volta a subir", 0),
    ("um array de forma (N, D)", 1),
    ("de forma que a soma", 0),
    ("como na lição 7", 1),
    ("e^z transborda (overflow)", 1),
])
def test_an_avoided_word_is_found_and_code_is_not(text: str, found: int) -> None:
    assert len(offending(text, WORDS)) == found, offending(text, WORDS)


@pytest.mark.parametrize("catalogue", CATALOGUES, ids=lambda p: p.name)
def test_no_portuguese_entry_uses_an_avoided_word(catalogue: Path) -> None:
    bad = [f"{english[:60]!r}: {', '.join(offending(text, WORDS))}"
           for english, text in _entries(catalogue) if offending(text, WORDS)]
    assert not bad, f"{catalogue.relative_to(REPO)}: {len(bad)} entries (translations/README.md):\n" + \
        "\n".join(bad)
