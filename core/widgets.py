"""Form widgets every app may use, and the form renderer the project uses (FORM_RENDERER)."""

from __future__ import annotations

import html

from django import forms
from django.forms.renderers import DjangoTemplates
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, mark_safe


class Select(forms.Select):
    """Django's ``<select>``, the same HTML, with its options written by one loop in one template
    (core/templates/core/widgets/select.html). Django's own template includes an option template
    and an attributes template for every option: the question editor's notes-section picker (163
    sections) cost about 330 template renders a page that way. The project's FormRenderer writes
    both in Python; the template is for any other renderer."""

    template_name = "core/widgets/select.html"


def esc(value) -> str:
    """``conditional_escape(value)``, the same text, without its lazy-argument check and the
    SafeString it wraps a plain ``str`` in (about a third of the cost of a select's options)."""
    return html.escape(value) if type(value) is str else conditional_escape(value)


def _text(value) -> str:
    """``{{ value|stringformat:'s' }}``: str() of the value, escaped unless it is safe."""
    if type(value) is str:
        return html.escape(value)
    return value if isinstance(value, SafeData) else conditional_escape(str(value))


def _show(value) -> str:
    """``{{ value }}``: localized and escaped, as the template engine writes a variable."""
    return html.escape(value) if type(value) is str else conditional_escape(localize(value))


def _attrs(widget: dict) -> str:
    """django/forms/widgets/attrs.html, written in Python."""
    attrs = widget["attrs"]
    if not attrs:
        return ""
    out = []
    for name, value in attrs.items():
        if value is not False:
            out.append(f" {esc(name)}")
            if value is not True:
                out.append(f'="{_text(value)}"')
    return "".join(out)


def _input(widget: dict) -> str:
    """django/forms/widgets/input.html (and text, hidden, number, checkbox…, which include it)."""
    value = "" if widget["value"] is None else f' value="{_text(widget["value"])}"'
    name, kind = esc(widget["name"]), esc(widget["type"])
    return f'<input type="{kind}" name="{name}"{value}{_attrs(widget)}>'


def _textarea(widget: dict) -> str:
    """django/forms/widgets/textarea.html."""
    value = esc(widget["value"]) if widget["value"] else ""
    name = esc(widget["name"])
    return f'<textarea name="{name}"{_attrs(widget)}>\n{value}</textarea>'


OPTION = "django/forms/widgets/select_option.html"


def _select(widget: dict, after_option: str) -> str | None:
    """django/forms/widgets/select.html with select_option.html for each option (whose
    trailing newline each include keeps: ``after_option``), or core/widgets/select.html (the
    same HTML without it); None when an option has a template of its own."""
    out = [f'<select name="{esc(widget["name"])}"{_attrs(widget)}>']
    for group_name, group_choices, _ in widget["optgroups"]:
        if group_name:
            out.append(f'\n  <optgroup label="{_show(group_name)}">')
        for option in group_choices:
            if option["template_name"] != OPTION:
                return None
            value, label = _text(option["value"]), _show(option["label"])
            out.append(
                f'\n  <option value="{value}"{_attrs(option)}>{label}</option>{after_option}'
            )
        if group_name:
            out.append("\n  </optgroup>")
    out.append("\n</select>")
    return "".join(out)


#: Django's option templates of radio buttons and checkboxes: radio_option.html and
#: checkbox_option.html are each ``{% include "django/forms/widgets/input_option.html" %}``.
INPUT_OPTION = "django/forms/widgets/input_option.html"
_OPTIONS = {
    INPUT_OPTION: "\n",  # what the template adds after input_option.html's own output
    "django/forms/widgets/radio_option.html": "\n\n",
    "django/forms/widgets/checkbox_option.html": "\n\n",
}


def _input_option(widget: dict) -> str:
    """django/forms/widgets/input_option.html as an include writes it (input.html's trailing
    newline kept inside the label): the renderer strips what ``_OPTIONS`` adds after it."""
    tag = _input(widget)
    if not widget.get("wrap_label"):
        return f"{tag}\n"
    id_ = widget["attrs"].get("id")
    label_for = f' for="{_show(id_)}"' if id_ else ""
    return f"<label{label_for}>{tag}\n {_show(widget['label'])}</label>"


def _multiple_input(widget: dict) -> str | None:
    """django/forms/widgets/multiple_input.html (radio.html and checkbox_select.html include
    it), each option included as its template writes it; None when an option has a template
    of its own."""
    attrs = widget["attrs"]
    id_, css = attrs.get("id"), attrs.get("class")
    id_attr = f' id="{_show(id_)}"' if id_ else ""
    class_attr = f' class="{_show(css)}"' if css else ""
    out = [f"<div{id_attr}{class_attr}>"]
    for group_name, group_choices, _ in widget["optgroups"]:
        if group_name:
            out.append(f"\n  <div><label>{_show(group_name)}</label>")
        for option in group_choices:
            after = _OPTIONS.get(option["template_name"])
            if after is None:
                return None
            out.append(f"<div>\n    {_input_option(option)}{after}</div>")
        if group_name:
            out.append("\n  </div>")
    out.append("\n</div>")
    return "".join(out)


#: Django's widget templates that hold nothing but a tag: written here in Python, the same HTML
#: byte for byte as the template's (which Django's renderer strips; tests/test_widgets.py
#: renders both). Each is a template render and an include of attrs.html (per option, in Django's
#: select) otherwise: the question editor's 33 widgets cost about 5 ms of its 32 ms that way, the
#: live run form's five selects about 7 ms of its 20 ms (December 2026).
_PYTHON = {
    "django/forms/widgets/input.html": _input,
    "django/forms/widgets/textarea.html": _textarea,
    "django/forms/widgets/select.html": lambda widget: _select(widget, "\n"),
    Select.template_name: lambda widget: _select(widget, ""),
    # A radio button or checkbox of a RadioSelect or CheckboxSelectMultiple: {{ box.tag }}.
    **{name: lambda widget: _input_option(widget).strip() for name in _OPTIONS},
    # The whole RadioSelect or CheckboxSelectMultiple: {{ form.field }}.
    "django/forms/widgets/multiple_input.html": _multiple_input,
    "django/forms/widgets/radio.html": _multiple_input,
    "django/forms/widgets/checkbox_select.html": _multiple_input,
    # Each of these is `{% include "django/forms/widgets/input.html" %}`.
    **{
        f"django/forms/widgets/{kind}.html": _input
        for kind in ("text", "hidden", "number", "checkbox", "email", "url", "password", "search")
    },
}


class FormRenderer(DjangoTemplates):
    """Django's default renderer, with the plain one-tag widgets and the selects written in
    Python."""

    def render(self, template_name, context, request=None):
        write = _PYTHON.get(template_name)
        html = write(context["widget"]) if write is not None else None
        if html is None:
            return super().render(template_name, context, request)
        return mark_safe(html)  # noqa: S308 - every value escaped above
