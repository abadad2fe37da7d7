"""Django's ``i18n`` template library, with ``{% translate "a literal" %}`` translated once per
node and catalogue instead of on every render.

Loaded as ``i18n`` by :class:`DjangoTemplates` (settings.TEMPLATES), so every
``{% load i18n %}`` loads this:
Django's tags and filters, the same objects, except ``translate`` / ``trans``, which Django parses
and :class:`KeptTranslateNode` renders. Django's node turns the literal into a lazy string and
looks it up in the active catalogue on every render (about 6 µs; a signed-in page has 30 to 60
of them, every page's header and footer a dozen). When the text and its ``context`` are literals
with no filters, what comes out depends only on the active translation object (the catalogue of
the page's language, a new object whenever catalogues are loaded again), and on the context's
autoescape, localisation and time-zone switches: those are the key, and the value is the one
Django's own code computes on the first render. A variable, a filter, a variable context, no
active translation, or Django's translation functions not being its ``trans_real`` ones
(USE_I18N off) take Django's way every time.
"""

from __future__ import annotations

from django import template
from django.template.backends import django as django_backend
from django.template.base import render_value_in_context
from django.template.library import import_library
from django.templatetags import i18n as django_i18n
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import _trans, trans_real

register = template.Library()
register.tags.update(django_i18n.register.tags)
register.filters.update(django_i18n.register.filters)

#: Values one node keeps (languages × switches; a catalogue loaded again is a new key).
MAX_PER_NODE = 32


def _constant(expression) -> bool:
    """A FilterExpression of a literal with no filters."""
    var = expression.var
    return not expression.filters and (isinstance(var, str) or getattr(var, "lookups", 1) is None)


class KeptTranslateNode(TranslateNode):
    """Django's TranslateNode (Django 5.2); a constant one keeps what it rendered."""

    _kept: dict | None = None

    def _value(self, context):
        # Django's TranslateNode.render, up to the value it puts out or stores.
        self.filter_expression.var.translate = not self.noop
        if self.message_context:
            self.filter_expression.var.message_context = self.message_context.resolve(context)
        output = self.filter_expression.resolve(context)
        value = render_value_in_context(output, context)
        is_safe = isinstance(value, SafeData)
        value = value.replace("%%", "%")
        return mark_safe(value) if is_safe else value

    def render(self, context):
        kept = self._kept
        translator = getattr(trans_real._active, "value", None)
        if kept is None or translator is None or _trans.__dict__.get("gettext") is not _gettext:
            value = self._value(context)
        else:
            key = (translator, context.autoescape, context.use_l10n, context.use_tz)
            value = kept.get(key)
            if value is None:
                value = self._value(context)
                if len(kept) >= MAX_PER_NODE:
                    kept.clear()
                kept[key] = value
        if self.asvar:
            context[self.asvar] = value
            return ""
        return value


_gettext = trans_real.gettext


@register.tag("translate")
@register.tag("trans")
def do_translate(parser, token):
    """Django's ``{% translate %}`` (same syntax, parsed by Django), rendered by
    KeptTranslateNode."""
    node = django_i18n.do_translate(parser, token)
    node.__class__ = KeptTranslateNode
    if _constant(node.filter_expression) and (
        node.message_context is None or _constant(node.message_context)
    ):
        node._kept = {}
    return node


class KeptBlockTranslateNode(BlockTranslateNode):
    """Django's BlockTranslateNode (Django 5.2), with its message ids (the text with its
    variables as ``%(name)s``, trimmed: a regular expression each) made once per node instead
    of on every render; the rest (variables, translation, formatting) as Django does it."""

    _ids: tuple | None = None

    def render_token_list(self, tokens):
        if self._ids is None:
            plural = super().render_token_list(self.plural) if self.plural else None
            self._ids = (super().render_token_list(self.singular), plural)
        if tokens is self.singular:
            msg, names = self._ids[0]
        elif tokens is self.plural and self._ids[1] is not None:
            msg, names = self._ids[1]
        else:
            return super().render_token_list(tokens)
        return msg, list(names)  # Django's caller extends the list it gets


@register.tag("blocktranslate")
@register.tag("blocktrans")
def do_block_translate(parser, token):
    """Django's ``{% blocktranslate %}`` (same syntax, parsed by Django), rendered by
    KeptBlockTranslateNode."""
    node = django_i18n.do_block_translate(parser, token)
    node.__class__ = KeptBlockTranslateNode
    return node


class DjangoTemplates(django_backend.DjangoTemplates):
    """Django's template backend, whose ``{% load i18n %}`` loads this library. Not through the
    ``libraries`` option: Django's system check warns of any library named like one of its own
    (templates.W003), and ``manage.py check --deploy`` must give no warning."""

    def __init__(self, params):
        super().__init__(params)
        self.engine.template_libraries["i18n"] = import_library(__name__)
