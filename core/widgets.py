"""Form widgets every app may use, and the form renderer the project uses (FORM_RENDERER)."""

from __future__ import annotations

from django import forms
from django.forms.renderers import DjangoTemplates
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, mark_safe


class Select(forms.Select):
    """Django's ``<select>``, the same HTML, with its options written by one loop in one template
    (core/templates/core/widgets/select.html). Django's own template includes an option template
    and an attributes template for every option: the question editor's notes-section picker (163
    sections) cost about 330 template renders a page that way."""

    template_name = "core/widgets/select.html"


def _text(value) -> str:
    """``{{ value|stringformat:'s' }}``: str() of the value, escaped unless it is safe."""
    return value if isinstance(value, SafeData) else conditional_escape(str(value))


def _attrs(widget: dict) -> str:
    """django/forms/widgets/attrs.html, written in Python."""
    out = []
    for name, value in widget["attrs"].items():
        if value is not False:
            out.append(f" {conditional_escape(name)}")
            if value is not True:
                out.append(f'="{_text(value)}"')
    return "".join(out)


def _input(widget: dict) -> str:
    """django/forms/widgets/input.html (and text, hidden, number, checkbox…, which include it)."""
    value = "" if widget["value"] is None else f' value="{_text(widget["value"])}"'
    name, kind = conditional_escape(widget["name"]), conditional_escape(widget["type"])
    return f'<input type="{kind}" name="{name}"{value}{_attrs(widget)}>'


def _textarea(widget: dict) -> str:
    """django/forms/widgets/textarea.html."""
    value = conditional_escape(widget["value"]) if widget["value"] else ""
    name = conditional_escape(widget["name"])
    return f'<textarea name="{name}"{_attrs(widget)}>\n{value}</textarea>'


#: Django's widget templates that hold nothing but a tag: written here in Python, the same HTML
#: byte for byte as the template's (which Django's renderer strips; tests/test_widgets.py
#: renders both). Each is a template render and an include
#: of attrs.html otherwise: the question editor has 33 widgets, about 10 ms of its 33 ms.
_PYTHON = {
    "django/forms/widgets/input.html": _input,
    "django/forms/widgets/textarea.html": _textarea,
    # Each of these is `{% include "django/forms/widgets/input.html" %}`.
    **{
        f"django/forms/widgets/{kind}.html": _input
        for kind in ("text", "hidden", "number", "checkbox", "email", "url", "password", "search")
    },
}


class FormRenderer(DjangoTemplates):
    """Django's default renderer, with the plain one-tag widgets written in Python."""

    def render(self, template_name, context, request=None):
        write = _PYTHON.get(template_name)
        if write is None:
            return super().render(template_name, context, request)
        return mark_safe(write(context["widget"]))  # noqa: S308 - every value escaped above
