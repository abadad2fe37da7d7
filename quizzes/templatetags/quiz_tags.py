"""Filters that keep numbers and names consistent on every quiz and progress page."""

from __future__ import annotations

import secrets
from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext, pgettext_lazy

from core.urlcache import reverse_ints
from quizzes import words
from quizzes.schema import FAMILIES

register = template.Library()


_ROW = "quizzes/kinds/_choice_row.html"
_CHECKED = "lc" + secrets.token_hex(8) + "checked"
_rows: dict[tuple, str] = {}


@register.simple_tag
def choice_rows(choices, input_type: str, name: str, disabled) -> SafeString:
    """The option rows of a choice question's inputs (quizzes/kinds/_choice_row.html): each row
    rendered once per process for its option's key and words, with a stand-in where this
    learner's "checked" goes. What is kept is what the page shows every learner (the option's
    words, never whether it is right)."""
    rows = []
    for c in choices:
        key = (input_type, name, c["key"], c["html"], bool(disabled))
        html = _rows.get(key)
        if html is None:
            if len(_rows) >= 16384:
                _rows.clear()
            context = {"c": c, "input_type": input_type, "name": name, "disabled": disabled}
            html = _rows[key] = render_to_string(_ROW, {**context, "checked": _CHECKED}).strip()
        rows.append(html.replace(_CHECKED, "checked" if c["checked"] else ""))
    return mark_safe("\n    ".join(rows))  # noqa: S308 - our template, autoescaped


@register.simple_tag
def int_url(name: str, *args) -> str:
    """``{% url %}`` for the quiz pages' URLs, whose arguments are whole numbers: reversed once
    per process (core/urlcache.py)."""
    return reverse_ints(name, *args)


@register.filter
def clock(seconds) -> str:
    """Seconds as a countdown, the same as the script shows: 9:05, or 1:02:03."""
    try:
        s = max(0, int(seconds))
    except (TypeError, ValueError):
        return ""
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


@register.filter
def pct(value) -> str:
    """A share in percent, always as a whole number with the sign: 45%."""
    if value is None or value == "":
        return "–"
    try:
        # Half up, as floatformat rounds, so 64.5 reads 65% everywhere (round() would say 64).
        whole = Decimal(str(float(value))).quantize(Decimal("1"), rounding=ROUND_HALF_UP)
    except (TypeError, ValueError, ArithmeticError):
        return "–"
    return f"{int(whole)}%"


@register.filter
def family_name(slug: str) -> str:
    return gettext(words.family_name(slug or ""))


@register.filter
def family_description(slug: str) -> str:
    return FAMILIES.get(slug or "", "")


@register.filter
def source_title(url: str) -> str:
    return words.source_title(url or "")


@register.filter
def concept_name(slug: str) -> str:
    return words.words(slug or "")


@register.filter
def times(n) -> str:
    """1 → '1 time', 3 → '3 times'."""
    try:
        n = int(n)
    except (TypeError, ValueError):
        return ""
    return ngettext("%(n)s time", "%(n)s times", n) % {"n": n}


@register.filter
def plain_text(html: str) -> str:
    """Rendered HTML as plain text (tags gone, entities decoded); autoescaping runs after."""
    import html as html_lib

    from django.utils.html import strip_tags

    return html_lib.unescape(strip_tags(html or "")).strip()


#: Stored codes shown to people (a question's status and origin, an attempt's mode, a report's
#: status): the code stays in the database, the word is the reader's language.
CODE_WORDS = {
    "draft": pgettext_lazy("question status", "draft"),
    "published": pgettext_lazy("question status", "published"),
    "file": pgettext_lazy("question origin", "file"),
    "browser": pgettext_lazy("question origin", "browser"),
    "practice": pgettext_lazy("attempt mode", "practice"),
    "exam": pgettext_lazy("attempt mode", "exam"),
    "open": pgettext_lazy("report status", "open"),
    "resolved": pgettext_lazy("report status", "resolved"),
    "dismissed": pgettext_lazy("report status", "dismissed"),
    "create": pgettext_lazy("import action", "create"),
    "update": pgettext_lazy("import action", "update"),
    "unchanged": pgettext_lazy("import action", "unchanged"),
}


@register.filter
def code_word(code) -> str:
    """``{{ q.status|code_word }}``: the stored code in words (unknown codes as they are)."""
    return str(CODE_WORDS.get(str(code), code))
