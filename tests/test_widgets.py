"""core.widgets.Select writes the HTML Django's Select writes, with one template a render."""

import re

import pytest
from django import forms
from django.test.signals import template_rendered

from core.widgets import Select

CHOICES = [
    ("", "Choose…"),
    ("The loop", [("loop#stop", "Stop <reasons> & “why”"), ("loop#pause", "pause_turn")]),
    ("Tools", [("tools#results", "Results")]),
    (3, "a number"),
]


def _html(widget: forms.Select, value) -> str:
    attrs = {"id": "id_notes", "aria-describedby": "id_notes_helptext", "required": True}
    html = widget.render("notes", value, attrs=attrs)
    return re.sub(r">\s+<", "><", html.strip())


def test_the_same_html_as_djangos_select_with_groups_a_selection_and_escaping():
    for value in ("", "loop#pause", "3", "not-offered"):
        ours, django = Select(choices=CHOICES), forms.Select(choices=CHOICES)
        assert _html(ours, value) == _html(django, value)
    html = _html(Select(choices=CHOICES), "loop#pause")
    assert '<option value="loop#pause" selected>pause_turn</option>' in html
    assert "Stop &lt;reasons&gt; &amp; “why”" in html
    assert '<optgroup label="The loop">' in html
    assert 'aria-describedby="id_notes_helptext"' in html


@pytest.mark.template_context  # listens to template_rendered
def test_a_select_of_many_options_is_one_template_render():
    many = [("Notes", [(f"n#{i}", f"Section {i}") for i in range(200)])]
    names: list[str] = []

    def record(sender, template, **kwargs):
        names.append(template.name)

    template_rendered.connect(record)
    try:
        html = Select(choices=many).render("notes", "n#7")
    finally:
        template_rendered.disconnect(record)
    assert html.count("<option") == 200
    assert [n for n in names if "option" in n] == []
    assert names.count("core/widgets/select.html") == 1
