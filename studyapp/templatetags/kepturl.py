"""``{% url %}``, each address reversed once per process (core.urlcache.kept_reverse) instead
of on every render.

A template builtin (settings.TEMPLATES), so every ``{% url %}`` is this one. Django's tag calls
``reverse()`` on every render: about 30 µs each, and the sandbox's run list alone has 51 of them
a page. A reversed address depends only on what ``reverse()`` is given and where it looks: the
URL name, the arguments (with their types: ``True`` and ``1`` are equal keys but different
URLs), the current app, the URLconf, the script prefix and the language (i18n_patterns'
prefix). Those are the key; nothing of the visitor is. What Django's tag does with the result
(``as var``, escaping, NoReverseMatch) is unchanged: a name that does not reverse is not kept
and raises (or gives "" with ``as``) every time, as before.
"""

from __future__ import annotations

from django import template
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import NoReverseMatch
from django.utils.html import conditional_escape

from core.urlcache import kept_reverse

register = template.Library()


class KeptURLNode(URLNode):
    """Django's URLNode.render (Django 5.2) with kept_reverse for reverse."""

    def render(self, context):
        args = [arg.resolve(context) for arg in self.args]
        kwargs = {k: v.resolve(context) for k, v in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        url = ""
        try:
            url = kept_reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        if context.autoescape:
            url = conditional_escape(url)
        return url


@register.tag
def url(parser, token):
    """Django's ``{% url %}`` (same syntax, parsed by Django), rendered by KeptURLNode."""
    node = django_url(parser, token)
    node.__class__ = KeptURLNode
    return node
