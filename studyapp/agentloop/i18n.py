"""Marks user-facing text for translation without importing Django (this package is pure).

``manage.py makemessages`` extracts every ``gettext_noop("...")`` call into the catalogues, and
every ``_("...")`` call where a module imports it as ``_`` (catalogue.py does, to stay short); the
Django side translates the text where it is shown (``gettext(text)``, ``{% translate value %}``).

Text put together while a page is being built (the per-model lines of ``changes.CHANGES``, a
model's status) goes through ``gettext`` here, which is the identity until the Django side hands
in its own (``core.apps`` passes the framework's ``gettext`` to ``set_translator``).
"""

from __future__ import annotations

from collections.abc import Callable


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
