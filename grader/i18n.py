"""The student's language: every message the toolkit shows goes through gettext.

The language is the one `set_language(...)` chose, else the environment variable
`BACKPROP_COURSE_LANGUAGE` (the Portuguese edition's first code cell sets it to "pt"), else
English. A message with no translation is shown in English.

    from grader.i18n import _            # the toolkit (grader/*.py, grader/hints/)
    from grader.i18n import lesson_text as _   # the lesson helpers (grader/lessons/)
    from grader import tr                       # the lessons' own test cells (course/)

    _("relative error {error}").format(error=...)   # translate first, then format

Catalogues: `grader/locale/<language>/LC_MESSAGES/<domain>.po`, compiled to `.mo` beside them by
`python -m grader.instructor.messages compile` (tests/toolkit/test_messages.py fails on a stale
`.mo`, an untranslated message or a placeholder lost in translation). A message is translated
when it is shown, never at import, so that choosing the language later still takes effect:
module-level constants are marked with `N_` and passed through `_` where they are shown.
"""

from __future__ import annotations

import gettext
import os
from functools import cache
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: The environment variable that chooses the language when `set_language` was not called.
ENVIRONMENT_VARIABLE = "BACKPROP_COURSE_LANGUAGE"
#: The languages the course speaks; English is the source and the fallback.
LANGUAGES = ("en", "pt")
TOOLKIT_DOMAIN = "grader"
LESSONS_DOMAIN = "grader_lessons"
#: What the lessons' test cells print and assert: their code is the same in every edition (it is
#: graded), so their messages are translated when they are shown, like the toolkit's.
CELLS_DOMAIN = "grader_cells"

#: {"language": the one `set_language` chose, or None}: a dict mutated in place, never rebound, because
#: grader.trusted seals the toolkit's module attributes (a rebound global reads as tampering).
_chosen: dict[str, str | None] = {"language": None}


def _normalise(code: str) -> str:
    """ "pt", "pt_BR", "pt-PT.UTF-8" -> "pt"; anything else lower-cased as it is."""
    return code.strip().lower().replace("-", "_").split(".")[0].split("_")[0]


def set_language(language: str | None) -> None:
    """Show the toolkit's messages in `language` ("en" or "pt"); None goes back to the default."""
    if language is None:
        _chosen["language"] = None
        return
    if not isinstance(language, str) or _normalise(language) not in LANGUAGES:
        raise ValueError(f"set_language expects one of {', '.join(map(repr, LANGUAGES))}, got {language!r}")
    _chosen["language"] = _normalise(language)


def language() -> str:
    """The language messages are shown in now: "en" or "pt"."""
    if _chosen["language"] is not None:
        return _chosen["language"]
    wanted = _normalise(os.environ.get(ENVIRONMENT_VARIABLE, ""))
    return wanted if wanted in LANGUAGES else "en"


@cache
def catalogue(domain: str, language: str) -> gettext.NullTranslations:
    """The compiled catalogue of `domain` in `language` (English: no catalogue, messages as written)."""
    if language == "en":
        return gettext.NullTranslations()
    return gettext.translation(domain, LOCALE_DIR, languages=[language], fallback=True)


def _(message: str) -> str:
    """A toolkit message in the student's language."""
    return catalogue(TOOLKIT_DOMAIN, language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """A toolkit message with a count, in the student's language."""
    return catalogue(TOOLKIT_DOMAIN, language()).ngettext(singular, plural, n)


def lesson_text(message: str) -> str:
    """A lesson helper's message (check, hint, figure label, widget description) in the student's language."""
    return catalogue(LESSONS_DOMAIN, language()).gettext(message)


def lesson_ngettext(singular: str, plural: str, n: int) -> str:
    """A lesson helper's message with a count, in the student's language."""
    return catalogue(LESSONS_DOMAIN, language()).ngettext(singular, plural, n)


class Shown(str):
    """A message in the student's language that remembers its English (`.english`), also once
    formatted, so that the class report counts a hint once whatever language showed it."""

    english: str

    def __new__(cls, shown: str, english: str | None = None) -> Shown:
        message = super().__new__(cls, shown)
        message.english = shown if english is None else english
        return message

    def __getnewargs__(self) -> tuple[str, str]:  # pickled (sent to a worker) with its English
        return str(self), self.english

    def format(self, *args: object, **kwargs: object) -> Shown:
        return Shown(str.format(self, *args, **kwargs), self.english.format(*args, **kwargs))


def tr(message: str) -> Shown:
    """A message of a lesson's test cell in the student's language (English when untranslated).

    The cell's code is the same in both editions; only what it shows changes:

        print(tr("✓ the same seed gives the same weights"))
        assert ok, tr("expected {expected}, got {got}").format(expected=..., got=...)
    """
    return Shown(catalogue(CELLS_DOMAIN, language()).gettext(message), message)


class Returned(Shown):
    """A label for what a function returned (`returned_by`): it knows the function and the name."""

    function: str
    name: str


def returned_by(function: str, name: str = "") -> Returned:
    """How a check names what a student's `function` returned, in the student's language:
    returned_by("softmax_loss") is "softmax_loss's result" ("o resultado de softmax_loss"), and
    returned_by("softmax_loss", "dx") "softmax_loss's dx" ("dx de softmax_loss")."""
    owner = f"{function}'s"
    if name:
        # Translators: what a function returned: a code name ("dx") of a function ("softmax_loss")
        shown, english = _("{function}'s {name}"), f"{owner} {name}"
    else:
        # Translators: what a function returned, when it is one value or a tuple
        shown, english = _("{function}'s result"), f"{owner} result"
    label = Returned(english if language() == "en" else shown.format(function=function, name=name), english)
    label.function, label.name = function, name
    return label


def N_(message: str) -> str:
    """Mark a module-level message for extraction; translate it with `_` where it is shown."""
    return message
