"""``{% field f label %}``: one form field with its label, control, help and errors."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from core.widgets import esc

register = template.Library()


@register.simple_tag
def field(f, label: str = "") -> SafeString:
    """What authoring/_field.html wrote, in Python (the question editor shows 29 fields; as an
    include each cost a template render, about 4 ms a page). Django links the help and the
    errors to the control with aria-describedby; the ids here are the ones it names."""
    checkbox = f.widget_type == "checkbox"
    errors = f.errors
    control = str(f)  # the widget, already escaped
    shown = f'<label for="{esc(f.id_for_label)}">'
    shown += f"{esc(label or f.label)}</label>"
    classes = "field" + (" has-error" if errors else "") + (" field-check" if checkbox else "")
    html = [
        f'\n<div class="{classes}">',
        f"\n  {control} {shown}\n  " if checkbox else f"\n  {shown}\n  {control}",
        "\n  ",
    ]
    auto_id = esc(f.auto_id)
    if f.help_text:
        html.append(f'<p class="help muted" id="{auto_id}_helptext">{esc(f.help_text)}</p>')
    html.append("\n  ")
    if errors:
        items = "".join(f"<li>{esc(e)}</li>" for e in errors)
        html.append(f'<ul class="field-errors" id="{auto_id}_error">{items}</ul>')
    html.append("\n</div>\n")
    return mark_safe("".join(html))  # noqa: S308 - every value escaped above
