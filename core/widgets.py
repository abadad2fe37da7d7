"""Form widgets every app may use, and the form renderer the project uses (FORM_RENDERER)."""

from __future__ import annotations

import html
from typing import Any

from django import forms
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.forms.boundfield import BoundField
from django.forms.renderers import DjangoTemplates
from django.utils.choices import BaseChoiceIterator
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import get_language


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


# --- a bound field's control written from the field itself ---------------------------------


class ShownChoices(BaseChoiceIterator):
    """Choices already in the shape Django's widgets read, (value, label) or (group, [(value,
    label), ...]), labels as the page shows them (or lazy ones, shown in the active language):
    a widget given one keeps it as it is, where a list is normalised again by every widget it
    is given to and every copy of the widget (the notes picker: 163 sections on every editor
    form), and every lazy label translated on every render.

    Its list is never changed once made (a menu that needs other choices is a new one), so
    ``control`` writes its options once per language and keeps them with it."""

    def __init__(self, choices: list):
        self.choices = choices
        self.written: dict[tuple, tuple[list[str], list[str], dict[str, int]]] = {}

    def __iter__(self):
        return iter(self.choices)

    def __copy__(self):
        # A widget's copy copies its choices (ChoiceWidget.__deepcopy__): the same menu, with
        # what is written of it.
        return self


#: bumped when a setting changes (languages, formats): the options kept are written again
_generation = 0


@receiver(setting_changed)
def _forget_written_options(**kwargs) -> None:
    global _generation
    _generation += 1


def _option_parts(choices, after: str) -> tuple[list[str], list[str], dict[str, int]]:
    """The pieces of a select's options as _select writes them from ChoiceWidget.optgroups:
    each piece the text of an option (or of a group's opening or closing tag), the same option
    selected at the same index (None for a group's tag), and the index of the first option of
    each value (the one Django marks selected)."""
    parts: list[str] = []
    selected: list[Any] = []
    first: dict[str, int] = {}
    for option_value, option_label in choices:
        if option_value is None:
            option_value = ""
        if isinstance(option_label, (list, tuple)):
            group_name, options = option_value, option_label
        else:
            group_name, options = None, [(option_value, option_label)]
        if group_name:
            parts.append(f'\n  <optgroup label="{_show(group_name)}">')
            selected.append(None)
        for value, label in options:
            first.setdefault(str(value), len(parts))
            text, shown = _text(value), _show(label)
            parts.append(f'\n  <option value="{text}">{shown}</option>{after}')
            selected.append(f'\n  <option value="{text}" selected>{shown}</option>{after}')
        if group_name:
            parts.append("\n  </optgroup>")
            selected.append(None)
    return parts, selected, first


def _write_select(widget, name: str, value, attrs: dict, after: str) -> str:
    """What Django's Select.get_context and _select write, from the choices themselves."""
    values = widget.format_value(value)
    choices = widget.choices
    if type(choices) is ShownChoices:
        key = (after, get_language(), _generation)
        kept = choices.written.get(key)
        if kept is None:
            if len(choices.written) > 16:  # languages x generations gone by
                choices.written.clear()
            kept = choices.written[key] = _option_parts(choices, after)
        parts, selected, first = kept
    else:
        parts, selected, first = _option_parts(choices, after)
    found = [first[v] for v in values if v in first]
    if found:
        at = min(found)
        parts = [*parts[:at], selected[at], *parts[at + 1 :]]
    shown = _attrs({"attrs": widget.build_attrs(widget.attrs, attrs)})
    return f'<select name="{esc(name)}"{shown}>{"".join(parts)}\n</select>'


def _write_input(widget, name: str, value, attrs: dict) -> str:
    return _input(
        {
            "name": name,
            "type": widget.input_type,
            "value": widget.format_value(value),
            "attrs": widget.build_attrs(widget.attrs, attrs),
        }
    )


def _write_password(widget, name: str, value, attrs: dict) -> str:
    """PasswordInput.get_context: the value is shown only when ``render_value`` says so."""
    return _write_input(widget, name, value if widget.render_value else None, attrs)


def _write_checkbox(widget, name: str, value, attrs: dict) -> str:
    if widget.check_test(value):
        attrs = {**attrs, "checked": True}
    return _write_input(widget, name, value, attrs)


def _write_textarea(widget, name: str, value, attrs: dict) -> str:
    return _textarea(
        {
            "name": name,
            "value": widget.format_value(value),
            "attrs": widget.build_attrs(widget.attrs, attrs),
        }
    )


#: The widgets ``control`` writes itself: exactly these classes (a subclass may render
#: otherwise), each with the template its class names.
_CONTROLS = {
    forms.TextInput: _write_input,
    forms.NumberInput: _write_input,
    forms.EmailInput: _write_input,
    forms.URLInput: _write_input,
    forms.HiddenInput: _write_input,
    forms.PasswordInput: _write_password,
    forms.CheckboxInput: _write_checkbox,
    forms.Textarea: _write_textarea,
    # django/forms/widgets/select.html keeps each option include's trailing newline
    forms.Select: lambda widget, *args: _write_select(widget, *args, "\n"),
    Select: lambda widget, *args: _write_select(widget, *args, ""),
}
#: What a field and its __init__ set on those widgets: anything else (a template of its own,
#: ``allow_multiple_selected``, localisation…) and Django renders it.
_PLAIN_STATE = frozenset(
    ("attrs", "_choices", "is_required", "input_type", "check_test", "render_value")
)


def control(bf) -> str:
    """``str(bf)``, the same HTML, written from the bound field: the widget's attributes as
    BoundField.as_widget builds them (required, disabled, aria-invalid, aria-describedby, id),
    its value as the widget formats it, and a select's options kept with its ShownChoices,
    written once per language. Django's way, for the question editor's 30 controls a page, is
    a context per widget (a dict per option of a select, 163 in the notes picker) and a
    renderer's call. Any field or widget this does not know is rendered by Django."""
    field = bf.field
    widget = field.widget
    write = _CONTROLS.get(type(widget))
    if (
        write is None
        or type(bf) is not BoundField
        or field.show_hidden_initial
        or field.localize
        or not widget.__dict__.keys() <= _PLAIN_STATE
        or type(bf.form.renderer) is not FormRenderer
    ):
        return str(bf)
    return write(widget, bf.html_name, bf.value(), _widget_attrs(bf, widget))


def _widget_attrs(bf, widget) -> dict:
    """``bf.build_widget_attrs({}, widget)`` with the id BoundField.as_widget adds, for the
    widgets ``control`` writes (no MultiWidget, no fieldset): the same attributes in the same
    order, the field's errors and auto_id read once (Django's reads build an empty ErrorList
    three times and format the id five times a control)."""
    field, form = bf.field, bf.form
    attrs: dict[str, Any] = {}
    if widget.use_required_attribute(bf.initial) and field.required and form.use_required_attribute:
        attrs["required"] = True
    if field.disabled:
        attrs["disabled"] = True
    errors = form.errors.get(bf.name)
    hidden = widget.is_hidden
    if not hidden and errors:
        attrs["aria-invalid"] = "true"
    auto_id = bf.auto_id
    # BoundField.aria_describedby, unless the widget names its own
    if (
        auto_id
        and not hidden
        and not widget.use_fieldset
        and not widget.attrs.get("aria-describedby")
    ):
        described = [f"{auto_id}_helptext"] if bf.help_text else []
        if errors:
            described.append(f"{auto_id}_error")
        if described:
            attrs["aria-describedby"] = " ".join(described)
    if auto_id and "id" not in widget.attrs:
        attrs["id"] = auto_id
    return attrs
