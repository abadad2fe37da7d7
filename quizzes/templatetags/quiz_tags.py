"""Filters that keep numbers and names consistent on every quiz and progress page."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django import template
from django.utils.translation import gettext, ngettext, pgettext_lazy

from quizzes import words
from quizzes.schema import FAMILIES

register = template.Library()


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
