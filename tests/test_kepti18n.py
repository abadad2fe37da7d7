"""{% translate %} of a literal is translated once per node and catalogue
(studyapp/templatetags/kepti18n.py): what it writes is what Django's own tag writes, in every
language, with autoescape on and off, for each form of the tag, and a new catalogue is read."""

from django.template import Context, Engine, engines
from django.template.base import Template
from django.utils import translation
from django.utils.translation import trans_real

from studyapp.templatetags import kepti18n

SOURCE = (
    "{% load i18n %}{% translate 'Read' %}|{% trans \"Glossary\" %}"
    "|{% translate 'Skip to content' %}"
    "|{% translate 'id' context 'tool call id' %}|{% translate 'from' context ctx %}"
    "|{% translate 'Read' as read %}[{{ read }}]|{% translate 'Read' noop %}|{% translate text %}"
    "|{% translate 'Read'|upper %}|{% translate '<b>100%% & \"x\"</b>' %}|{% translate '' %}"
)
CONTEXT = {"text": "Glossary", "ctx": "caller"}
DJANGO = Engine(libraries={"i18n": "django.templatetags.i18n"})


def _render(template, autoescape: bool) -> str:
    return template.render(Context(CONTEXT, autoescape=autoescape))


def test_the_site_loads_this_library_as_i18n():
    libraries = engines["django"].engine.template_libraries
    assert libraries["i18n"] is kepti18n.register
    assert set(libraries["i18n"].tags) == set(DJANGO.template_libraries["i18n"].tags)
    assert set(libraries["i18n"].filters) == set(DJANGO.template_libraries["i18n"].filters)


def test_each_form_writes_what_djangos_tag_writes_in_every_language():
    ours = engines["django"].from_string(SOURCE).template
    theirs = Template(SOURCE, engine=DJANGO)
    kept = [n for n in ours.nodelist if isinstance(n, kepti18n.KeptTranslateNode)]
    assert [n._kept is not None for n in kept] == [1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1]
    seen = set()
    for code in ["en", "pl", "zh-hans", "zh-hant"]:
        with translation.override(code):
            for autoescape in (True, False):
                expected = _render(theirs, autoescape)
                assert _render(ours, autoescape) == expected  # computed, then kept
                assert _render(ours, autoescape) == expected  # from what was kept
                seen.add(expected)
    assert len(seen) == 4  # the languages differ (every catalogue was read)
    assert all(n._kept for n in kept if n._kept is not None)


class _Catalogue:
    def gettext(self, message):
        return f"new {message}"


def test_a_catalogue_loaded_again_is_read_again():
    template = engines["django"].from_string("{% load i18n %}{% translate 'Read' %}")
    with translation.override("pl"):
        before = template.render({})
        active = trans_real._active.value
        trans_real._active.value = _Catalogue()
        try:
            assert template.render({}) == "new Read"
        finally:
            trans_real._active.value = active
        assert template.render({}) == before != "Read"


BLOCKS = (
    "{% load i18n %}{% blocktranslate count counter=n trimmed %}\n  {{ counter }} note on\n"
    "  the loop, {{ name }}.{% plural %}{{ counter }} notes on the loop, {{ name }}."
    "{% endblocktranslate %}|{% blocktranslate count counter=n %}{{ counter }} source{% plural %}"
    "{{ counter }} sources{% endblocktranslate %}|{% blocktrans with who=name %}100% {{ who }}"
    "{% endblocktrans %}|{% blocktranslate context 'tool call id' %}id{% endblocktranslate %}"
    "|{% blocktranslate asvar said %}<b>{{ name }}</b>{% endblocktranslate %}[{{ said }}]"
    "|{% blocktranslate %}{{ missing }}!{% endblocktranslate %}"
)


def test_blocktranslate_writes_what_djangos_tag_writes_in_every_language():
    ours = engines["django"].from_string(BLOCKS).template
    theirs = Template(BLOCKS, engine=DJANGO)
    nodes = [n for n in ours.nodelist if isinstance(n, kepti18n.KeptBlockTranslateNode)]
    assert len(nodes) == 6
    seen = set()
    for code in ["en", "pl", "zh-hans", "zh-hant"]:
        with translation.override(code):
            for n in (1, 2, 5):
                for autoescape in (True, False):
                    context = {"n": n, "name": "<Ann & Bo>"}
                    expected = theirs.render(Context(context, autoescape=autoescape))
                    for _ in range(2):  # message ids made, then kept
                        assert ours.render(Context(context, autoescape=autoescape)) == expected
                    seen.add(expected)
    assert len(seen) > 12
    assert all(n._ids is not None for n in nodes)
