"""``json_highlight``: pretty-printed JSON, syntax-highlighted with Pygments (escaped)."""

from django import template
from django.utils.safestring import mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer

register = template.Library()
_FORMATTER = HtmlFormatter(nowrap=True, classprefix="j-")


@register.filter
def json_highlight(text: str) -> str:
    # Pygments escapes every token it emits, so the markup holds no recorded HTML.
    return mark_safe(highlight(str(text), JsonLexer(), _FORMATTER))  # noqa: S308


@register.filter
def generated(text):
    """``{{ run.title|generated }}``: a title or summary the code wrote, in the reading language."""
    from core import i18n

    return i18n.generated(text)
