"""{% form_field %} and {% form_fields %} (studyapp/templatetags/fields.py) write what the
templates they replaced wrote, byte for byte, for fields with and without errors, help text,
lazy labels, HTML in labels and errors, and the project's forms."""

import pytest
from django import forms
from django.template import engines
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from studyapp.templatetags.fields import form_field, form_fields

#: studyapp/templates/_field.html and _form_fields.html as they were (December 2026).
FIELD_TEMPLATE = (
    '<div class="field">\n'
    '  <label for="{{ field.id_for_label }}">{{ field.label }}</label>\n'
    "  {{ field }}\n"
    '  {% if field.errors %}<div class="field-error" role="alert">{{'
    ' field.errors|join:" " }}</div>{% endif %}\n'
    "</div>\n"
)
FIELDS_TEMPLATE = (
    "{# Every field of a form with its label, errors in words, and help; non-field"
    " errors first. #}\n"
    '{% if form.non_field_errors %}<div class="message error" role="alert">{{'
    ' form.non_field_errors|join:" " }}</div>{% endif %}\n'
    "{% for field in form %}\n"
    '<div class="field">\n'
    '  <label for="{{ field.id_for_label }}">{{ field.label }}</label>\n'
    "  {{ field }}\n"
    '  {% if field.errors %}<div class="field-error" role="alert">{{'
    ' field.errors|join:" " }}</div>{% endif %}\n'
    '  {% if field.help_text %}<div class="muted help">{{ field.help_text|safe'
    " }}</div>{% endif %}\n"
    "</div>\n"
    "{% endfor %}\n"
)


class Form(forms.Form):
    name = forms.CharField(max_length=3, label='Name <b>"x"</b>', help_text="Up to 3 & no more")
    lazy = forms.CharField(required=False, label=gettext_lazy("Title (optional)"))
    safe = forms.CharField(required=False, label=mark_safe("<i>safe</i>"), help_text="")
    pick = forms.ChoiceField(choices=[("a", "A"), ("b", "B <c>")], widget=forms.RadioSelect)
    many = forms.MultipleChoiceField(
        required=False, choices=[("x", "X")], widget=forms.CheckboxSelectMultiple
    )
    ok = forms.BooleanField(required=False, help_text=mark_safe("<em>help</em>"))
    hidden = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean(self):
        if self.data.get("name") == "ok":
            raise forms.ValidationError(["Both <wrong>", 'and "this"'])


def _forms():
    yield Form()
    yield Form({"name": "<script>long</script>", "pick": "zz", "ok": "on", "hidden": "<h>"})
    yield Form({"name": "ok", "pick": "a"})
    from django.contrib.auth.forms import UserCreationForm

    from studyapp.sandbox.forms import UploadForm
    from studyapp.sandbox.views_live import _form

    yield UploadForm()
    yield UploadForm({"title": "<t>"})
    yield UserCreationForm({"username": "<x>", "password1": "a", "password2": "b"})
    yield _form()
    yield _form({"max_turns": "<b>", "model": "nope", "prompt": "</textarea>"})
    # The forms {% control %} writes a field of ({{ field }} before): the import, the log-in.
    from django.contrib.auth.forms import AuthenticationForm

    from authoring.views_io import ImportForm

    yield ImportForm()
    yield ImportForm({"default_notes": "x<y>", "default_source": "http://<x>", "format": "?"})
    yield AuthenticationForm(data={"username": "<u>", "password": "p"})


@pytest.mark.parametrize("language", ["en", "pl"])
def test_form_field_and_form_fields_write_what_the_templates_wrote(language, db):
    from django.utils import translation

    engine = engines["django"]
    one, every = engine.from_string(FIELD_TEMPLATE), engine.from_string(FIELDS_TEMPLATE)
    with translation.override(language):
        for form in _forms():
            assert form_fields(form) == every.render({"form": form}), type(form)
            for field in form:
                assert form_field(field) == one.render({"field": field}), field.name


def test_what_they_write():
    form = Form({"name": "<long>"})
    html = (
        engines["django"]
        .from_string("{% load fields %}{% form_fields form %}")
        .render({"form": form})
    )
    assert '<div class="field-error" role="alert">Ensure this value' in html
    assert '<label for="id_name">Name &lt;b&gt;&quot;x&quot;&lt;/b&gt;</label>' in html
    assert '<div class="muted help">Up to 3 & no more</div>' in html  # help is the form's HTML
    assert 'value="&lt;long&gt;"' in html
    errors = form_fields(Form({"name": "ok", "pick": "a"}))
    assert errors.startswith('\n<div class="message error" role="alert">Both &lt;wrong&gt; and ')


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_live_forms_kept_help_is_what_its_template_writes(language, db):
    """The start form's two <details> (views_live.start_help, kept per language and catalogue)
    are what the fields partial writes inline, for a refused form (the one they are kept for:
    a blank form's fields are kept whole)."""
    from django.template.loader import render_to_string
    from django.utils import translation

    from studyapp.sandbox import views_live

    with translation.override(language):
        form = views_live._form({"max_turns": "<b>", "model": "x"})
        ctx = {"form": form, "scenarios": views_live.demo.SCENARIOS.values()}
        ctx.update(model_table=views_live.model_table(), caps={"daily": 1})
        inline = render_to_string("sandbox/live_index.html#fields", ctx)
        kept = views_live.start_help(ctx)
        assert kept["models"] in inline and "<details>" in kept["scenarios"] in inline
        assert render_to_string("sandbox/live_index.html#fields", {**ctx, "help_html": kept}) == (
            inline
        )
