"""Texts the live runner and the job worker stored in English, worded in the page's language.

The runner keeps each text it writes as a message id with its values too
(``agentloop.i18n.dump``: ``run.ended_reason_msg``, ``StepError.msg``, ``RunnerError.msg``; the
worker's ``LiveJob.error_msg``); these functions word it for the request being answered.
"""

from __future__ import annotations

from django.utils.formats import number_format
from django.utils.html import escape
from django.utils.safestring import mark_safe

from core import i18n
from studyapp.agentloop.i18n import load as i18n_load

#: Values quoted as they came (the API's error text, Python's): shown with lang="en", never
#: translated.
VERBATIM = frozenset({"api_message", "error", "detail"})


def stored_words(msg, english: str, *, html: bool = True) -> str:
    """A text the runner or the worker stored in English, in the page's language where it kept
    a message id with its values (``agentloop.i18n.dump``); the English as stored otherwise.

    Whole numbers are grouped per locale; the quoted values (:data:`VERBATIM`) stay as they
    are, marked ``lang="en"`` (``html``: safe HTML; else plain text, for a flash message that
    is escaped where it is shown). A broken translation falls back to the English template."""
    if not msg or i18n.current() == i18n.DEFAULT:
        return english
    quoted: dict[str, str] = {}

    def leaf(name, value):
        if html and name in VERBATIM and isinstance(value, str):
            token = f"\x00{len(quoted)}\x00"
            quoted[token] = value
            return token
        if isinstance(value, int) and not isinstance(value, bool):
            return number_format(value, force_grouping=True)
        return value

    phrase = i18n_load(msg, leaf)
    if phrase is None:
        return english
    if not html:
        return str(phrase)
    words = escape(str(phrase))
    for token, value in quoted.items():
        words = words.replace(token, f'<span lang="en">{escape(value)}</span>')
    return mark_safe(words)  # noqa: S308 - every part escaped above


def said(error: Exception) -> str:
    """A RunnerError (or LiveError) in the page's language where it carries a message id, as
    plain text (for a flash message)."""
    return stored_words(getattr(error, "msg", None), str(error), html=False)
