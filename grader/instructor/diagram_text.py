"""Every Mermaid diagram of a lesson, told in words too: made at build time from its source.

Mermaid renders in JupyterLab 4.1+ only; Colab and GitHub's notebook view show its source, and a
screen reader meets a picture. So the build (`front_ends.released`) puts after each ```mermaid
block of a markdown cell a collapsed "Diagram in words": every arrow of the flowchart, in the
order the source draws them, as "“from” → “to”: its label", dashed arrows marked, groups named.
Nothing is written by hand, so it says what the diagram says in each edition's language.

    diagram_text(source, language) -> str    # the words of one diagram (markdown list)
    with_diagram_text(markdown, language)    # a markdown cell's text with each diagram told
    without_diagram_text(markdown)           # and back (what the translations are keyed by)
"""

from __future__ import annotations

import re

MERMAID = re.compile(r"```mermaid\n(.*?)```", re.S)
#: A node: its id, then optionally its shape around a label: A["x"], A(("x")), A(["x"]), A{"x"}, A[x].
NODE = re.compile(r"\s*([A-Za-z_][\w]*)\s*(\(\[|\(\(|\[\[|\[|\(|\{)?")
CLOSE = {"([": "])", "((": "))", "[[": "]]", "[": "]", "(": ")", "{": "}"}
#: An arrow, with an optional |label| after it (or a -- label --> form).
ARROW = re.compile(r"\s*(-\.->|-\.-|==>|-->|---)\s*(?:\|\s*\"?(.*?)\"?\s*\|)?")
WORDS = {
    "en": {"summary": "Diagram in words", "group": "group", "dashed": "dashed"},
    "pt": {"summary": "O diagrama em palavras", "group": "grupo", "dashed": "tracejada"},
}


def _clean(label: str) -> str:
    label = label.strip().strip('"').replace("<br/>", " ").replace("<br>", " ")
    return re.sub(r"\s+", " ", label)


def _node(text: str, labels: dict[str, str]) -> tuple[str | None, str]:
    """(node id, the rest of `text`) for the node at its start; its label is remembered."""
    match = NODE.match(text)
    if not match:
        return None, text
    ident, shape, rest = match.group(1), match.group(2), text[match.end():]
    if shape:
        start = 0
        if rest.lstrip().startswith('"'):  # a quoted label may hold brackets: x[i]
            start = rest.index('"') + 1
            start = rest.index('"', start) + 1 if '"' in rest[start:] else start
        end = rest.find(CLOSE[shape], start)
        if end < 0:
            return None, text
        if labels.get(ident, ident) == ident:
            labels[ident] = _clean(rest[:end])
        rest = rest[end + len(CLOSE[shape]):]
    labels.setdefault(ident, ident)
    return ident, rest


def _edges(line: str, labels: dict[str, str]) -> list[tuple[str, str, str, bool]]:
    """(from, to, label, dashed) for each arrow of a chain `A --> B -->|x| C`."""
    first, rest = _node(line, labels)
    edges = []
    while first is not None:
        arrow = ARROW.match(rest)
        if not arrow:
            break
        second, rest = _node(rest[arrow.end():], labels)
        if second is None:
            break
        edges.append((first, second, _clean(arrow.group(2) or ""), arrow.group(1).startswith("-.")))
        first = second
    return edges


def diagram_text(source: str, language: str = "en") -> str:
    """A markdown list of the flowchart's arrows (and its groups), in source order."""
    words = WORDS.get(language, WORDS["en"])
    lines = [raw.strip() for raw in source.splitlines()[1:]]  # the first: `flowchart LR` or the like
    lines = [line for line in lines if line and line != "end"
             and not line.startswith(("direction ", "%%", "style ", "classDef ", "class "))]
    labels: dict[str, str] = {}
    for line in lines:  # every node's label first: a node may be used before it is drawn
        if line.startswith("subgraph "):
            _node(line[len("subgraph "):], labels)
        else:
            _edges(line, labels)
    shown = {ident: f"“{label}”" for ident, label in labels.items()}
    for ident, label in labels.items():  # two nodes with one label ("+", "affine"): add their ids
        if list(labels.values()).count(label) > 1 and ident != label:
            shown[ident] = f"“{label}” ({ident})"
    items: list[str] = []
    for line in lines:
        if line.startswith("subgraph "):
            ident, _rest = _node(line[len("subgraph "):], labels)
            title = labels.get(ident, "") if ident else _clean(line[len("subgraph "):])
            items.append(f"- {words['group']} “{title}”:")
            continue
        for start, end, label, dashed in _edges(line, labels):
            text = f"{shown[start]} → {shown[end]}"
            if dashed:
                text += f" ({words['dashed']})"
            if label:
                text += f": {label}"
            items.append(f"- {text}")
    return "\n".join(items)


def with_diagram_text(markdown: str, language: str = "en") -> str:
    """`markdown` with a collapsed "Diagram in words" after each ```mermaid block (idempotent)."""
    summary = WORDS.get(language, WORDS["en"])["summary"]
    if f"<summary>{summary}</summary>" in markdown:
        return markdown

    def told(match: re.Match) -> str:
        return (f"{match.group(0)}\n\n<details><summary>{summary}</summary>\n\n"
                f"{diagram_text(match.group(1), language)}\n\n</details>")

    return MERMAID.sub(told, markdown)


#: What `with_diagram_text` appends, in any edition's language.
TOLD = re.compile(r"(```mermaid\n.*?```)\n\n<details><summary>(?:"
                  + "|".join(re.escape(w["summary"]) for w in WORDS.values())
                  + r")</summary>\n\n.*?\n\n</details>", re.S)


def without_diagram_text(markdown: str) -> str:
    """`markdown` without what `with_diagram_text` added."""
    return TOLD.sub(r"\1", markdown)
