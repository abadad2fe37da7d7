"""``json_highlight``: pretty-printed JSON, syntax-highlighted with Pygments (escaped)."""

from functools import lru_cache

from django import template
from django.utils.safestring import mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer

register = template.Library()
_FORMATTER = HtmlFormatter(nowrap=True, classprefix="j-")


#: Texts up to this long are kept highlighted (a library step's JSON is the same on every
#: request); longer ones, rarer, are highlighted each time, so the cache stays small.
KEEP_UP_TO = 16_000


@lru_cache(maxsize=256)
def _highlighted(text: str) -> str:
    return highlight(text, JsonLexer(), _FORMATTER)


@register.filter
def json_highlight(text: str) -> str:
    # Pygments escapes every token it emits, so the markup holds no recorded HTML.
    text = str(text)
    if len(text) > KEEP_UP_TO:
        return mark_safe(highlight(text, JsonLexer(), _FORMATTER))  # noqa: S308
    return mark_safe(_highlighted(text))  # noqa: S308


@register.filter
def generated(text):
    """``{{ run.title|generated }}``: a title or summary the code wrote, in the reading language."""
    from core import i18n

    return i18n.generated(text)
