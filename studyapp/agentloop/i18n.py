"""Marks user-facing text for translation without importing Django (this package is pure).

``manage.py makemessages`` extracts every ``gettext_noop("...")`` call into the catalogues, and
every ``_("...")`` call where a module imports it as ``_`` (catalogue.py does, to stay short); the
Django side translates the text where it is shown (``gettext(text)``, ``{% translate value %}``).

Text put together while a page is being built (the per-model lines of ``changes.CHANGES``, a
model's status) goes through ``gettext`` here, which is the identity until the Django side hands
in its own (``core.apps`` passes the framework's ``gettext`` to ``set_translator``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


def gettext_noop(s: str) -> str:
    """Return ``s`` unchanged: the mark tells makemessages that the string is interface text."""
    return s


_translate: Callable[[str], str] = gettext_noop


def set_translator(translate: Callable[[str], str]) -> None:
    """Translate this package's text with ``translate`` (Django's gettext) from now on."""
    global _translate
    _translate = translate


def gettext(s: str) -> str:
    """``s`` in the active language once a translator is set; marked for makemessages too."""
    return _translate(s)


@dataclass(frozen=True)
class Phrase:
    """A part of a sentence that is itself translated (a clause that depends on the case)."""

    text: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    lower: bool = False  # starts in lower case (a label used inside a sentence)

    def __str__(self) -> str:
        words = render(self.text, self.params)
        return words[:1].lower() + words[1:] if self.lower else words


def render(text: str, params: Mapping[str, Any] | None = None) -> str:
    """``text`` translated, with ``params`` filled in (``%(name)s``; a Phrase, or anything else
    that is not plain data, is turned into its words in the active language first)."""
    translated = gettext(text) if text else text
    if not params:
        return translated
    values = {k: v if isinstance(v, (str, int, float)) else str(v) for k, v in params.items()}
    try:
        return translated % values
    except (KeyError, ValueError, TypeError):  # a broken translation must not hide the text
        return text % values
