"""core.widgets.Select writes the HTML Django's Select writes, with one template a render; the
project's form renderer writes the one-tag widgets in Python, the same HTML as Django's."""

import re

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates
from django.test.signals import template_rendered
from django.utils.safestring import mark_safe

from core.widgets import _PYTHON, FormRenderer, Select

#: one renderer of each kind for the whole module, as Django keeps one (get_default_renderer):
#: a new DjangoTemplates() builds a new template engine and compiles every template it renders
#: again (2.5 s for the option tests below, 0.04 s with one)
DJANGO = DjangoTemplates()
OURS = FormRenderer()

CHOICES = [
    ("", "Choose…"),
    ("The loop", [("loop#stop", "Stop <reasons> & “why”"), ("loop#pause", "pause_turn")]),
    ("Tools", [("tools#results", "Results")]),
    (3, "a number"),
]


def _html(widget: forms.Select, value, renderer=None) -> str:
    attrs = {"id": "id_notes", "aria-describedby": "id_notes_helptext", "required": True}
    html = widget.render("notes", value, attrs=attrs, renderer=renderer)
    return re.sub(r">\s+<", "><", html.strip())


def test_the_same_html_as_djangos_select_with_groups_a_selection_and_escaping():
    for value in ("", "loop#pause", "3", "not-offered"):
        ours, django = Select(choices=CHOICES), forms.Select(choices=CHOICES)
        for renderer in (None, DJANGO):  # in Python (the project's), from templates
            assert _html(ours, value, renderer) == _html(django, value, DJANGO)
    html = _html(Select(choices=CHOICES), "loop#pause")
    assert '<option value="loop#pause" selected>pause_turn</option>' in html
    assert "Stop &lt;reasons&gt; &amp; “why”" in html
    assert '<optgroup label="The loop">' in html
    assert 'aria-describedby="id_notes_helptext"' in html


@pytest.mark.template_context  # listens to template_rendered
def test_a_select_of_many_options_is_one_template_render_at_most():
    many = [("Notes", [(f"n#{i}", f"Section {i}") for i in range(200)])]
    names: list[str] = []

    def record(sender, template, **kwargs):
        names.append(template.name)

    template_rendered.connect(record)
    try:
        html = Select(choices=many).render("notes", "n#7")
        from_templates = Select(choices=many).render("notes", "n#7", renderer=DJANGO)
    finally:
        template_rendered.disconnect(record)
    assert html == from_templates and html.count("<option") == 200
    assert [n for n in names if "option" in n] == []
    # the project's renderer renders none at all; from the templates, one and its attributes
    assert names == ["core/widgets/select.html", "django/forms/widgets/attrs.html"]


VALUES = [None, "", "plain", 'a "quoted" <b>&amp;</b> \' value', 0, 12.5, mark_safe("<i>safe</i>")]
ATTRS = [
    {},
    {"rows": 3, "required": True, "disabled": False},
    {"class": 'x" onclick="y', "aria-describedby": "id_stem_helptext", "list": "concept-options"},
    {"placeholder": mark_safe("<safe>"), "data-n": 0, "checked": True},
]


#: the one-tag widgets (the selects, radio buttons and checkboxes have tests of their own below)
ONE_TAG = sorted(n for n in _PYTHON if not re.search(r"select|option|radio\.html|multiple", n))


@pytest.mark.parametrize("template_name", ONE_TAG)
def test_every_python_widget_writes_what_its_template_writes(template_name):
    kind = template_name.rsplit("/", 1)[1].removesuffix(".html")
    for value in VALUES:
        for attrs in ATTRS:
            widget = {"name": 'f<"x">', "type": kind, "value": value, "attrs": attrs}
            context = {"widget": widget}
            assert OURS.render(template_name, context) == DJANGO.render(template_name, context), (
                value,
                attrs,
            )


def test_the_project_renders_forms_with_it():
    class Form(forms.Form):
        name = forms.CharField(max_length=5, help_text="h")
        body = forms.CharField(widget=forms.Textarea)
        ok = forms.BooleanField(required=False)
        n = forms.IntegerField(widget=forms.HiddenInput)

    form = Form({"name": '<script>"x"</script>', "body": "</textarea>", "ok": "on", "n": "3"})
    assert isinstance(form.renderer, FormRenderer)
    assert str(form) == form.render(renderer=DJANGO)
    assert "&lt;/textarea&gt;</textarea>" in str(form["body"])


@pytest.mark.parametrize("widget_class", [forms.Select, Select])
def test_a_select_in_python_writes_what_its_templates_write(widget_class):
    class Other(forms.Select):
        option_template_name = "django/forms/widgets/input_option.html"

    choices = [*CHOICES, ("x", mark_safe("<b>safe</b>")), (2, 2.5), ("Empty group", [])]
    choices.append(('A <group> & "x"', [("g", "G")]))
    for value in ("", "loop#pause", "3", "2", None):
        for attrs in ATTRS:
            widget = widget_class(choices=choices, attrs=attrs)
            context = widget.get_context("n<x>", value, {"id": "id_n"})
            name = widget.template_name
            assert OURS.render(name, context) == DJANGO.render(name, context), (value, attrs)
    # a select whose options have a template of their own is rendered from the templates
    html = Other(choices=CHOICES).render("n", "")
    assert html == Other(choices=CHOICES).render("n", "", renderer=DJANGO)
    assert "<option" not in html and "<label" in html


def test_the_editor_field_tag_links_label_help_and_errors_to_the_control():
    from authoring.templatetags.editor import field

    class Form(forms.Form):
        stem = forms.CharField(max_length=3, help_text="Markdown & more.")
        ok = forms.BooleanField(required=False)

    form = Form({"stem": "<long>", "ok": "on"})
    html = field(form["stem"], 'The <stem> "text"')
    assert '<div class="field has-error">' in html
    assert '<label for="id_stem">The &lt;stem&gt; &quot;text&quot;</label>' in html
    assert 'aria-describedby="id_stem_helptext id_stem_error"' in html
    assert '<p class="help muted" id="id_stem_helptext">Markdown &amp; more.</p>' in html
    assert '<ul class="field-errors" id="id_stem_error"><li>Ensure this value' in html
    assert 'value="&lt;long&gt;"' in html
    check = field(form["ok"])
    assert '<div class="field field-check">' in check and "field-errors" not in check
    assert check.index("<input") < check.index('<label for="id_ok">Ok</label>')


OPTION_CHOICES = [
    ("a", "Plain"),
    ('q"<x>', 'A <b>"quoted"</b> & label'),
    ("The loop", [("stop", "Stop"), ("pause", mark_safe("<i>pause</i>"))]),
    (3, 2.5),
]


def _typed(value):
    """A context as a key: every value with its type (a safe string is not a plain one)."""
    if isinstance(value, dict):
        return dict, tuple((k, _typed(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value), tuple(_typed(v) for v in value)
    return type(value), value


@pytest.mark.parametrize("widget_class", [forms.RadioSelect, forms.CheckboxSelectMultiple])
def test_radio_buttons_and_checkboxes_in_python_write_what_their_templates_write(widget_class):
    class OwnOption(widget_class):
        option_template_name = "core/widgets/select.html"  # not one of Django's option templates

    rendered = set()  # each option's context once (most recur from one value to the next)
    for value in (None, "a", ["a", "pause"], 'q"<x>', "3"):
        for attrs in [*ATTRS, {"id": 'id_"w"', "class": "check-grid"}, {"class": "c"}]:
            widget = widget_class(choices=OPTION_CHOICES, attrs=attrs)
            context = widget.get_context('w<"x">', value, None)
            # the whole widget ({{ form.field }}), from radio.html / checkbox_select.html
            name = widget.template_name
            assert OURS.render(name, context) == DJANGO.render(name, context), (value, attrs)
            # each option on its own ({{ box.tag }}, with its label around it or not)
            for group in context["widget"]["optgroups"]:
                for option in group[1]:
                    for wrap_label in (False, True, None):
                        data = {"widget": {**option, "wrap_label": wrap_label}}
                        for name in (
                            option["template_name"],
                            "django/forms/widgets/input_option.html",
                        ):
                            if (name, _typed(data)) in rendered:
                                continue
                            rendered.add((name, _typed(data)))
                            assert OURS.render(name, data) == DJANGO.render(name, data), (
                                value,
                                attrs,
                                option["value"],
                                wrap_label,
                            )
        # an option with a template of its own is rendered from the templates
        own = OwnOption(choices=OPTION_CHOICES)
        assert own.render("w", value) == own.render("w", value, renderer=DJANGO)


def test_the_practice_forms_radio_buttons_and_checkboxes_are_what_djangos_templates_write():
    from quizzes.forms import PracticeForm

    data = {"subtopics": ["guards", "tool-choice"], "which": "missed"}
    ours, django = PracticeForm(data), PracticeForm(data, renderer=DJANGO)
    for name in ("subtopics", "which"):
        assert [box.tag() for box in ours[name]] == [box.tag() for box in django[name]]
        assert str(ours[name]) == str(django[name])
    assert (
        '<input type="radio" name="which" value="missed" required id="id_which_2" checked>'
        in str(ours["which"])
    )
