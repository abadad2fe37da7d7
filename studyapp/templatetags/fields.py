"""A form field with its label and errors (``{% form_field %}``), every field of a form with
its help (``{% form_fields %}``) and a field's control alone (``{% control %}``), written in
Python.

They were the templates _field.html and _form_fields.html, included once per field: the live
run form's 13 fields cost about 0.4 ms a page in includes and lookups alone. The HTML is the
templates' own, byte for byte (tests/test_fields.py renders the templates they were and
compares), escaped as the template engine escapes a variable; each control is written by
core.widgets.control (Django's str(bound_field), byte for byte, without a widget context and a
renderer's call for the plain inputs, text areas, checkboxes and selects).
"""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from core.widgets import control

register = template.Library()


def _errors(errors) -> str:
    """``{{ errors|join:" " }}``: each message escaped, joined by a space."""
    return " ".join(conditional_escape(e) for e in errors)


def _field(field, help_text: bool) -> str:
    errors = field.errors
    out = [
        '<div class="field">\n'
        f'  <label for="{conditional_escape(field.id_for_label)}">'
        f"{conditional_escape(field.label)}</label>\n"
        f"  {control(field)}\n  "
    ]
    if errors:
        out.append(f'<div class="field-error" role="alert">{_errors(errors)}</div>')
    if help_text:
        out.append("\n  ")
        if field.help_text:
            out.append(f'<div class="muted help">{field.help_text}</div>')
    out.append("\n</div>\n")
    return "".join(out)


@register.simple_tag(name="control")
def control_tag(field) -> SafeString:
    """``{% control form.name %}``: what ``{{ form.name }}`` writes (Django's str(bound_field)),
    through core.widgets.control."""
    return mark_safe(control(field))  # noqa: S308 - control escapes every value


@register.simple_tag
def form_field(field) -> SafeString:
    """One field: its label, its control and its errors in words (what _field.html wrote)."""
    return mark_safe(_field(field, help_text=False))  # noqa: S308 - every value escaped above


@register.simple_tag
def form_fields(form) -> SafeString:
    """Every field of ``form`` with its label, errors and help (help text is the form's own
    HTML, as ``|safe`` let it through); the form's non-field errors first."""
    non_field = form.non_field_errors()
    out = [
        "\n",  # the template's comment line
        f'<div class="message error" role="alert">{_errors(non_field)}</div>' if non_field else "",
        "\n",
    ]
    for field in form:
        out.append("\n")
        out.append(_field(field, help_text=True))
    out.append("\n")
    return mark_safe("".join(out))  # noqa: S308 - every value escaped; help text is the form's
