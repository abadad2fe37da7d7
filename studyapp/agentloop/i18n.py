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


def _words(text: str, params: Mapping[str, Any] | None, tr: Callable[[str], str]) -> str:
    translated = tr(text) if text else text
    if not params:
        return translated
    values = {k: _value(v, tr) for k, v in params.items()}
    try:
        return translated % values
    except (KeyError, ValueError, TypeError):  # a broken translation must not hide the text
        return text % values


def _value(v: Any, tr: Callable[[str], str]) -> Any:
    if isinstance(v, Phrase):
        words = _words(v.text, v.params, tr)
        return words[:1].lower() + words[1:] if v.lower else words
    phrase = getattr(v, "phrase", None)
    if callable(phrase):  # a model rule's violation, a checker's finding: their own words
        return _value(phrase(), tr)
    return v if isinstance(v, (str, int, float)) else str(v)


def render(text: str, params: Mapping[str, Any] | None = None) -> str:
    """``text`` translated, with ``params`` filled in (``%(name)s``; a Phrase, or anything else
    that is not plain data, is turned into its words in the active language first)."""
    return _words(text, params, gettext)


def grouped(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` as the English text writes them: whole numbers grouped (12,345)."""
    return {
        k: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in values.items()
    }


def english(text: str, params: Mapping[str, Any] | None = None) -> str:
    """``text`` with ``params`` filled in, in English whatever language is active (what the
    runner stores beside the message id: the words read where no translation applies)."""
    return _words(text, params, gettext_noop)


# --- a message id with its values, kept as JSON ---------------------------------------------


def dump(text: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``text`` and ``params`` as JSON-safe data (a Phrase inside becomes ``{"phrase": ...}``),
    so that a stored message can be worded later in the reader's language (:func:`load`)."""
    return {"text": text, "params": {k: _dump_value(v) for k, v in (params or {}).items()}}


def _dump_value(v: Any) -> Any:
    if isinstance(v, Phrase):
        return {"phrase": {**dump(v.text, v.params), "lower": v.lower}}
    phrase = getattr(v, "phrase", None)
    if callable(phrase):
        return _dump_value(phrase())
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return str(v)


def load(data: Any, leaf: Callable[[str, Any], Any] | None = None) -> Phrase | None:
    """The Phrase :func:`dump` stored (None when ``data`` is not one); ``leaf(name, value)``
    may rewrite each plain value on the way (the Django side groups numbers per locale)."""
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return None
    raw = data.get("params")
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return None
    params: dict[str, Any] = {}
    for k, v in raw.items():
        if isinstance(v, dict) and "phrase" in v:
            inner = load(v["phrase"], leaf)
            if inner is None:
                return None
            params[k] = inner
        else:
            params[k] = leaf(k, v) if leaf else v
    return Phrase(data["text"], params, lower=bool(data.get("lower")))
