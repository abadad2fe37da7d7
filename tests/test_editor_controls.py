"""The question editor's controls as core.widgets.control writes them are Django's own
(``str(bound_field)``), byte for byte: every field of every kind's form and rows, unbound (new
and edited, the slug disabled) and bound (valid, with the bank's errors, hostile text, values the
menus do not offer), in several languages one after the other (the menus' options are kept per
language). And the editor's forms copy their fields as copy.deepcopy copies them."""

from __future__ import annotations

import copy

import pytest
from django import forms as django_forms
from django.forms.renderers import DjangoTemplates
from django.utils import translation

from authoring import forms, services, views
from authoring.templatetags import editor
from core import widgets
from quizzes import kinds
from quizzes.models import Question
from tests.editor import form_data
from tests.factories import ALL_KIND_BODIES, new_questions

LANGUAGES = ("en", "pl", "zh-hans", "en")  # English again: the kept options are per language
KINDS = list(ALL_KIND_BODIES)
HOSTILE = '<script>alert("x")</script>&amp; \'q\' "dq" <b>'


def _hostile(kind: str, data: dict) -> dict:
    """A post with errors of every sort: unknown menu values, bad JSON, text to escape, rows
    without their why, too long a grade, a row removed."""
    bad = dict(data)
    bad.update(slug="Bad Slug" + HOSTILE, stem="", concept=HOSTILE, difficulty="9",
               subtopic="nope" + HOSTILE, notes='x<y>#z"', today="nope" + HOSTILE,
               sources="http://x.example/" + HOSTILE, explanation=HOSTILE)  # fmt: skip
    for name in kinds.of(kind).editor_fields():
        bad[name] = "{bad json" + HOSTILE
    for i in range(int(data["opt-TOTAL_FORMS"])):
        bad[f"opt-{i}-why"] = "" if i == 0 else HOSTILE
        bad[f"opt-{i}-correct"] = "on"
        bad[f"opt-{i}-family"] = "nope" + HOSTILE
        bad[f"opt-{i}-action"] = "nope" + HOSTILE
        bad[f"opt-{i}-grade"] = "9" * 30
    bad["opt-0-DELETE"] = "on"
    return bad


def _states(kind: str, parsed: dict):
    """(what, form, rows) in every state the editor shows them, as its views make them."""
    initial, rows = forms.question_initial(parsed)
    yield (
        "new",
        forms.QuestionForm(kind=kind),
        forms.OptionFormSet(prefix="opt", initial=forms.new_rows(kind)),
    )
    yield (
        "edit",
        forms.QuestionForm(kind=kind, editing=True, initial=initial),
        (forms.OptionFormSet(prefix="opt", initial=rows)),
    )
    valid = form_data(parsed, save="draft")
    for what, data in (("valid", valid), ("errors", _hostile(kind, valid))):
        for editing in (False, True):
            form = forms.QuestionForm(data, kind=kind, editing=editing, initial=initial)
            formset = forms.OptionFormSet(data, prefix="opt")
            views._validate(form, formset, status="draft")  # the bank's messages placed
            yield f"{what}-{'edit' if editing else 'new'}", form, formset
    more = {**valid, "opt-TOTAL_FORMS": str(int(valid["opt-TOTAL_FORMS"]) + 1)}
    yield "added-row", forms.QuestionForm(more, kind=kind), forms.OptionFormSet(more, prefix="opt")


def _bound_fields(form, rows) -> list:
    return [*form, *(bf for row in rows.forms for bf in row)]


@pytest.fixture(scope="module")
def every_kind(django_db_setup, django_db_blocker):
    """One question of each kind, as the editor reads it to edit (written once, removed after)."""
    with django_db_blocker.unblock():
        made = new_questions(
            [(kind, f"ctl-{kind.replace('_', '-')}", "stop-reasons") for kind in KINDS]
        )
        editable = {q.kind: services.question_editable(q) for q in made}
    yield editable
    with django_db_blocker.unblock():
        Question.objects.filter(pk__in=[q.pk for q in made]).delete()


def test_every_kind_is_covered(every_kind):
    assert set(every_kind) == set(kinds.REGISTRY)


@pytest.mark.parametrize("kind", KINDS)
def test_every_control_of_every_kind_is_what_django_writes(every_kind, kind, monkeypatch):
    checked, states, first = 0, set(), {}
    for lang in LANGUAGES:
        with translation.override(lang):
            # A language again (English, after the others): its first pass's forms and what
            # Django wrote of them, the same as forms made again in it (each language's menus
            # are its own, kept per process); ours written again, from the options kept.
            made = first.get(lang) or [
                (what, form, rows, _bound_fields(form, rows), None)
                for what, form, rows in _states(kind, every_kind[kind])
            ]
            kept = []
            for what, form, rows, fields, theirs in made:
                states.add(what)
                # Written without Django's widget rendering (none of the editor's controls
                # falls back to it), then compared with it.
                with monkeypatch.context() as m:
                    m.setattr(widgets.FormRenderer, "render", _no_renderer)
                    ours = [widgets.control(bf) for bf in fields]
                theirs = theirs or [str(bf) for bf in fields]
                kept.append((what, form, rows, fields, theirs))
                for bf, html, django in zip(fields, ours, theirs, strict=True):
                    assert html == django, (lang, what, bf.html_name)
                    checked += 1
                if lang == LANGUAGES[0]:  # (it has no text to translate)
                    assert editor.management_form(rows) == str(rows.management_form), what
                if what == "edit":
                    assert 'name="slug"' in str(form["slug"]) and form["slug"].field.disabled
                    assert " disabled" in widgets.control(form["slug"])
                if what.startswith("errors"):
                    assert any("aria-invalid" in h for h in ours)
            first.setdefault(lang, kept)
    assert checked > 100 and len(states) == 7


def _no_renderer(*args, **kwargs):
    raise AssertionError("an editor control went through Django's widget rendering")


@pytest.mark.parametrize("kind", ["single", "matching", "next_action", "numerical", "fix"])
def test_the_field_tag_writes_what_it_wrote_with_djangos_controls(every_kind, kind, monkeypatch):
    """The whole ``{% field %}`` (label, control, help, errors) and ``{% option_rows %}``, with
    str(bf) in place of core.widgets.control and then with it, on the same forms, each time on
    bound fields of their own (a twin form's: editor.field translates a field's help text once,
    on its bound field; nothing else either writes is kept on the form)."""
    module = kinds.of(kind)
    labels = ("Row", "Left", "Right", "Text", "Correct", "Why", "Delete")
    for lang in ("pl", "en"):
        with translation.override(lang):
            ours = list(_states(kind, every_kind[kind]))
            with monkeypatch.context() as m:
                m.setattr(editor, "control", str)
                django = [
                    (
                        [editor.field(bf) for bf in form],
                        editor.option_rows(rows, module.ROW_FIELDS, *labels),
                    )
                    for _, form, rows in ours
                ]
            for _, form, rows in ours:
                for each in (form, *rows.forms):
                    each._bound_fields_cache.clear()  # BaseForm.__getitem__ makes them again
            for (what, form, rows), (fields, row_html) in zip(ours, django, strict=True):
                assert [editor.field(bf) for bf in form] == fields, (lang, what)
                assert editor.option_rows(rows, module.ROW_FIELDS, *labels) == row_html, what


CHOICES = [
    ("", "Choose…"),
    (None, "None as a value"),
    ("The loop", [("stop", "Stop <now> & “why”"), ("pause", "Pause"), (None, "none in a group")]),
    ("", [("empty-group", "in a group without a name")]),
    (3, "a number"),
    ("stop", "the same value again"),
    ('q"<x>', 12345),
]


class Sample(django_forms.Form):
    text = django_forms.CharField(max_length=5, help_text="Help & more.", required=True)
    area = django_forms.CharField(widget=django_forms.Textarea(attrs={"rows": 2, "class": 'a"b'}))
    box = django_forms.BooleanField(required=False, help_text="Tick it.")
    plain = django_forms.ChoiceField(choices=CHOICES, required=False)
    ours = django_forms.ChoiceField(choices=CHOICES, widget=widgets.Select, required=True)
    shown = django_forms.CharField(required=False, widget=widgets.Select)
    typed = django_forms.TypedChoiceField(choices=[(1, "one"), (2, "two")], coerce=int)
    number = django_forms.IntegerField(required=False, min_value=1, max_value=9)
    secret = django_forms.CharField(required=False, widget=django_forms.PasswordInput)
    echoed = django_forms.CharField(widget=django_forms.PasswordInput(render_value=True))
    mail = django_forms.EmailField(required=False)
    link = django_forms.URLField(required=False, assume_scheme="https")
    hidden = django_forms.CharField(required=False, widget=django_forms.HiddenInput)
    described = django_forms.CharField(  # its own aria-describedby, kept
        help_text="h", widget=django_forms.TextInput(attrs={"aria-describedby": "mine"})
    )
    off = django_forms.CharField(disabled=True, initial="<kept>")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["shown"].widget.choices = SHOWN


SHOWN = widgets.ShownChoices([("", "—"), ("Group", [("g1", "One"), ("g2", "Two")]), (7, 1234567)])

SAMPLES = [
    {},
    {"text": "<long text>", "area": "\r\nline & <b>", "box": "on", "plain": "stop", "ours": "3",
     "shown": "g2", "typed": "2", "number": "x", "off": "changed", "secret": "<s>&",
     "echoed": '"e"<', "mail": "a@<b>", "link": "x:<y>", "hidden": "<h>"},
    {"text": "ok", "box": "false", "plain": "None", "ours": "q\"<x>", "shown": "7", "typed": "9",
     "number": "12", "echoed": "kept", "mail": "a@b.example", "hidden": ""},
    {"plain": "", "ours": "nope", "shown": "not offered"},
]  # fmt: skip


@pytest.mark.parametrize("data", SAMPLES)
@pytest.mark.parametrize("lang", ["en", "pl"])
def test_each_widget_it_writes_is_what_django_writes(data, lang):
    with translation.override(lang):
        for form in (Sample(data or None), Sample(data, prefix="p", auto_id="f_%s"), Sample(
            initial={"plain": ["pause", "stop"], "ours": 3, "shown": "g1", "box": True, "text": 0,
                     "number": 4, "secret": "s", "echoed": "<e>", "hidden": 7}
        )):  # fmt: skip
            if form.is_bound:
                form.is_valid()
                form.add_error("area", "An error & <more>.")
            for bf in form:
                assert widgets.control(bf) == str(bf), (lang, bf.name)


def test_the_inputs_it_writes_go_through_no_renderer(monkeypatch):
    """The number, password, email, URL and hidden inputs (the live run form's, the sign-up
    form's) are written by control itself: compared with Django's above."""
    forms = [Sample(), Sample(SAMPLES[1]), Sample(SAMPLES[2])]
    names = ("text", "area", "box", "number", "secret", "echoed", "mail", "link", "hidden")
    expected = [[str(form[name]) for name in names] for form in forms]
    monkeypatch.setattr(widgets.FormRenderer, "render", _no_renderer)
    assert [[widgets.control(form[name]) for name in names] for form in forms] == expected
    assert 'value="&lt;s&gt;&amp;"' not in expected[1][4] and 'value="&quot;e' in expected[1][5]


def test_a_tampered_management_form_is_written_by_django():
    """Its errors and its inputs in a <div>, as Django's div.html writes them; a sound one is
    its four inputs."""
    for data in ({"opt-TOTAL_FORMS": "x<y>", "opt-INITIAL_FORMS": "0"}, {}):
        rows = forms.OptionFormSet(data, prefix="opt")
        assert editor.management_form(rows) == str(rows.management_form)
        assert "errorlist" in editor.management_form(rows)
    rows = forms.OptionFormSet({"opt-TOTAL_FORMS": "2", "opt-INITIAL_FORMS": "1"}, prefix="opt")
    html = editor.management_form(rows)
    assert html == str(rows.management_form) and html.count('<input type="hidden"') == 4


def test_a_value_offered_twice_is_selected_once_as_django_selects_it():
    """The first option, in the menu's order, of any of the values: once."""
    form = Sample(initial={"plain": ["pause", "stop"]})
    html = widgets.control(form["plain"])
    assert html == str(form["plain"])
    assert html.count(" selected") == 1 and '<option value="stop" selected>Stop' in html


def test_what_it_does_not_know_django_writes(settings):
    class Other(django_forms.TextInput):
        pass

    class Own(django_forms.Form):
        sub = django_forms.CharField(widget=Other)
        templated = django_forms.CharField()
        multiple = django_forms.ChoiceField(choices=CHOICES, widget=widgets.Select)
        local = django_forms.CharField(localize=True)
        hidden_initial = django_forms.CharField(show_hidden_initial=True, initial="x")

    form = Own(initial={"multiple": ["stop"]})
    form.fields["templated"].widget.template_name = "django/forms/widgets/textarea.html"
    form.fields["multiple"].widget.allow_multiple_selected = True
    for bf in form:
        assert widgets.control(bf) == str(bf)
    assert "<textarea" in widgets.control(form["templated"])
    assert " multiple" in widgets.control(form["multiple"])
    assert widgets.control(form["hidden_initial"]).count("<input") == 2
    other = Own(renderer=DjangoTemplates())
    for bf in other:
        assert widgets.control(bf) == str(bf)


def test_kept_options_follow_the_language_and_the_settings(settings):
    form = Sample(initial={"shown": "g1"})
    with translation.override("en"):
        english = widgets.control(form["shown"])
    with translation.override("pl"):
        polish = widgets.control(form["shown"])
    assert english == str(form["shown"]) and "1234567" in english
    settings.USE_THOUSAND_SEPARATOR = True  # a number's label is written again, with separators
    with translation.override("en"):
        assert widgets.control(form["shown"]) == str(form["shown"]) != english
    with translation.override("pl"):
        assert widgets.control(form["shown"]) == str(form["shown"]) != polish


def _editor_fields() -> list[django_forms.Field]:
    found = [*forms.QuestionForm.base_fields.values(), *forms.OptionForm.base_fields.values()]
    for module in kinds.REGISTRY.values():
        found += module.editor_fields().values()
    return [*found, forms._today_field(), *Sample.base_fields.values()]


def _state(field) -> dict:
    """A field's attributes and its widget's (a menu's choices as the list they give)."""
    state = dict(vars(field))
    widget = state.pop("widget")
    shown = dict(vars(widget))
    if "_choices" in shown:
        shown["_choices"] = list(shown["_choices"])
    return {**state, "widget": (type(widget), shown)}


def test_the_forms_copy_each_field_as_deepcopy_copies_it():
    for field in _editor_fields():
        ours, theirs = forms._field_copy(field, {}), copy.deepcopy(field)
        assert type(ours) is type(theirs) and _state(ours) == _state(theirs), field
        for name in ("widget", "error_messages", "validators"):
            assert getattr(ours, name) is not getattr(field, name)
        assert ours.widget.attrs is not field.widget.attrs
        ours.widget.attrs["data-x"] = "1"
        ours.error_messages["x"] = "y"
        assert "data-x" not in field.widget.attrs and "x" not in field.error_messages
    # A form's copy of its class's fields: a plain dict of copies, one copy of a shared widget.
    copied = copy.deepcopy(forms.OptionForm.base_fields)
    assert type(copied) is dict and copied.keys() == forms.OptionForm.base_fields.keys()
    shared = django_forms.CharField()
    twin = copy.copy(shared)
    both = copy.deepcopy(forms._Fields(a=shared, b=twin))
    assert both["a"].widget is both["b"].widget is not shared.widget
