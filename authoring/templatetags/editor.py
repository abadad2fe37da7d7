"""The editor's template tags: ``{% field f label %}`` (one form field with its label, control,
help and errors), ``{% option_rows ... %}`` (the formset's rows, each a fieldset of fields),
``{% management_form rows %}`` (the formset's hidden inputs) and ``{% subnav %}`` (the
instructor tools' links, kept)."""

from __future__ import annotations

from threading import Lock

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from core.urlcache import where
from core.widgets import control, esc

register = template.Library()


@register.simple_tag
def field(f, label: str = "") -> SafeString:
    """What authoring/_field.html wrote, in Python (the question editor shows 29 fields; as an
    include each cost a template render, about 4 ms a page). Django links the help and the
    errors to the control with aria-describedby; the ids here are the ones it names."""
    checkbox = f.widget_type == "checkbox"
    errors = f.errors
    help_text = f.help_text
    if type(help_text) is not str:
        # Translated once for the field, not again for the control's aria-describedby, the test
        # below and the text (a lazy text is translated each time it is read).
        help_text = f.help_text = str(help_text)
    control_html = control(f)  # str(f): the widget, already escaped
    shown = f'<label for="{esc(f.id_for_label)}">'
    shown += f"{esc(label or f.label)}</label>"
    classes = "field" + (" has-error" if errors else "") + (" field-check" if checkbox else "")
    html = [
        f'\n<div class="{classes}">',
        f"\n  {control_html} {shown}\n  " if checkbox else f"\n  {shown}\n  {control_html}",
        "\n  ",
    ]
    auto_id = esc(f.auto_id)
    if help_text:
        html.append(f'<p class="help muted" id="{auto_id}_helptext">{esc(help_text)}</p>')
    html.append("\n  ")
    if errors:
        items = "".join(f"<li>{esc(e)}</li>" for e in errors)
        html.append(f'<ul class="field-errors" id="{auto_id}_error">{items}</ul>')
    html.append("\n</div>\n")
    return mark_safe("".join(html))  # noqa: S308 - every value escaped above


@register.simple_tag
def option_rows(rows, row_fields, word, left, right, text, correct, why, delete) -> SafeString:
    """Every row of the formset as its own fieldset: the fields the kind names (ROW_FIELDS in
    quizzes/kinds/<kind>.py), each through ``field``; the labels come translated from the
    template. What the template's loop over the rows wrote, without its ten conditions a row."""
    html = []
    for n, row in enumerate(rows, 1):
        classes = "option-row has-error" if row.errors else "option-row"
        html.append(
            f'\n    <fieldset class="{classes}">\n      <legend>{esc(word)} {n}</legend>\n      '
        )
        non_field = row.non_field_errors()
        if non_field:
            items = "".join(f"<li>{esc(e)}</li>" for e in non_field)
            html.append(f'<ul class="field-errors">{items}</ul>')
        if "action" in row_fields:
            html.append(field(row["action"]))
        if "right" in row_fields:
            html += [field(row["text"], left), field(row["right"], right)]
        elif "text" in row_fields:
            html.append(field(row["text"], text))
        for name in ("tolerance", "grade"):
            if name in row_fields:
                html.append(field(row[name]))
        if "correct" in row_fields:
            html.append(field(row["correct"], correct))
        html.append(field(row["why"], why))
        if "family" in row_fields:
            html.append(field(row["family"]))
        html += [field(row["DELETE"], delete), "\n    </fieldset>"]
    return mark_safe("".join(html))  # noqa: S308 - every value escaped (field, esc)


@register.simple_tag
def management_form(rows) -> SafeString:
    """``{{ rows.management_form }}``: its four hidden inputs, each written by ``control``, when
    the management form has no errors (Django's div.html then writes those inputs and nothing
    else); Django writes it otherwise (its errors, the inputs in a <div>)."""
    form = rows.management_form
    if form.errors:
        return str(form)
    return mark_safe("".join(control(bf) for bf in form))  # noqa: S308 - escaped by control


SUBNAV = "authoring/_subnav_links.html"
#: (the page's URL name, its namespace, core.urlcache.where()) -> the rendered links
_subnav_kept: dict[tuple, str] = {}
_subnav_lock = Lock()
MAX_SUBNAV_KEPT = 256  # the authoring pages (about 20) × languages × script prefixes


@register.simple_tag(takes_context=True)
def subnav(context) -> SafeString:
    """authoring/_subnav_links.html, rendered once per process for each page it marks current,
    language, URLconf and script prefix: all it reads (the page's URL name and the addresses
    {% url %} reverses there), nothing of the visitor. Through the template engine it cost
    about 1 ms on every /author/ page (seven reversed URLs, seven translations)."""
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    key = (getattr(match, "url_name", None), getattr(match, "namespace", None), *where())
    html = _subnav_kept.get(key)
    if html is None:
        html = get_template(SUBNAV).render({"request": request}, request)
        with _subnav_lock:
            if len(_subnav_kept) >= MAX_SUBNAV_KEPT:
                _subnav_kept.clear()
            _subnav_kept[key] = html
    return mark_safe(html)  # noqa: S308 - a template's own output


@receiver(setting_changed)
def _forget_subnav(**kwargs) -> None:
    """A test that changes settings (URLs, languages, templates) renders the links afresh."""
    _subnav_kept.clear()
