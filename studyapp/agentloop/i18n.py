"""Marks user-facing text for translation without importing Django (this package is pure).

``manage.py makemessages`` extracts every ``gettext_noop("...")`` call into the catalogues, and
every ``_("...")`` call where a module imports it as ``_`` (catalogue.py does, to stay short); the
Django side translates the text where it is shown (``gettext(text)``, ``{% translate value %}``).
"""

from __future__ import annotations


def gettext_noop(s: str) -> str:
    """Return ``s`` unchanged: the mark tells makemessages that the string is interface text."""
    return s
