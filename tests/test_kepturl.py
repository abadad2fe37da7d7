"""{% url %} reverses each address once per process (studyapp/templatetags/kepturl.py): the
address it writes is reverse()'s in every language, script prefix and URLconf, and what Django's
tag does with a name that does not reverse is unchanged."""

import pytest
from django.template import engines
from django.template.loader import get_template
from django.test import override_settings
from django.urls import NoReverseMatch, clear_script_prefix, reverse, set_script_prefix
from django.utils import translation

from core.urlcache import _kept
from studyapp.templatetags.kepturl import KeptURLNode

ENGINE = engines["django"]
TEMPLATE = (
    "{% url 'sandbox:steps' slug 2 %}|{% url 'quizzes:practice_question' pk=pk position=1 %}|"
    "{% url 'notes:detail' slug=note %}|{% url 'home' %}|"
    "{% url 'quizzes:traps' as traps %}{{ traps }}"
)
CONTEXT = {"slug": "refund-25-days", "pk": 7, "note": "stop-reasons"}


def _expected() -> str:
    return "|".join(
        [
            reverse("sandbox:steps", args=["refund-25-days", 2]),
            reverse("quizzes:practice_question", kwargs={"pk": 7, "position": 1}),
            reverse("notes:detail", kwargs={"slug": "stop-reasons"}),
            reverse("home"),
            reverse("quizzes:traps"),
        ]
    )


@pytest.mark.parametrize("prefix", ["/", "/study/"])
def test_every_address_is_reverses_in_each_language_and_script_prefix(prefix):
    template = ENGINE.from_string(TEMPLATE)
    set_script_prefix(prefix)
    try:
        for code in ("en", "pl", "zh-hans", "en"):
            with translation.override(code):
                for _ in range(2):  # reversed, then kept
                    assert template.render(CONTEXT) == _expected()
        with translation.override("pl"):
            assert template.render(CONTEXT).startswith(f"{prefix}pl/sandbox/refund-25-days/")
    finally:
        clear_script_prefix()


def test_an_argument_of_another_type_is_not_answered_from_an_equal_one():
    template = ENGINE.from_string("{% url 'quizzes:practice_question' n n as there %}[{{ there }}]")
    assert template.render({"n": 1}) == "[/practice/1/1/]"
    assert True == 1 and template.render({"n": True}) == "[]"  # "True" is no int: no match


def test_a_name_that_does_not_reverse_raises_every_time_and_gives_nothing_with_as():
    bad = ENGINE.from_string("{% url 'sandbox:steps' slug %}")
    for _ in range(2):
        with pytest.raises(NoReverseMatch):
            bad.render({"slug": "x"})
    quiet = ENGINE.from_string("{% url 'no-such-view' as u %}[{{ u }}]")
    assert quiet.render({}) == quiet.render({}) == "[]"


def test_escaped_as_djangos_tag_escapes_and_forgotten_when_the_urlconf_changes():
    template = ENGINE.from_string("{% url 'sandbox:steps' slug 1 %}")
    assert template.render({"slug": "a-b"}) == "/sandbox/a-b/steps/1/"
    assert _kept
    with override_settings(ROOT_URLCONF="studyapp.urls"):
        assert not _kept  # override_settings of the URLconf starts from nothing kept


def test_every_template_of_the_site_uses_it():
    nodes = get_template("sandbox/index.html").template.nodelist.get_nodes_by_type(KeptURLNode)
    assert len(nodes) >= 5


def test_a_urlconf_set_without_a_signal_is_the_one_reversed(monkeypatch):
    """pytest-django's urls marker assigns settings.ROOT_URLCONF directly: the key is the
    URLconf reverse() would read, not only the request's."""
    from django.conf import settings
    from django.urls import clear_url_caches

    template = ENGINE.from_string("{% url 'home' %}")
    assert template.render({}) == "/"
    monkeypatch.setattr(settings, "ROOT_URLCONF", "tests.urls_elsewhere")
    clear_url_caches()
    try:
        assert template.render({}) == reverse("home") == "/elsewhere/"
    finally:
        monkeypatch.undo()
        clear_url_caches()
    assert template.render({}) == "/"
