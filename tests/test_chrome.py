"""The site header and hreflang links, rendered once per kind of page (studyapp/templatetags/
chrome.py): each visitor still sees their own name, token, "next" path and language links, the
right section marked, and what is kept holds none of it."""

import re

import pytest
from django.test import Client

from quizzes.models import Attempt
from studyapp.templatetags import chrome

pytestmark = pytest.mark.django_db


def _header(html: str) -> str:
    return re.search(r'<header class="site-header">.*?</header>', html, re.S).group(0)


def _tokens(html: str) -> set[str]:
    return set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html))


def test_each_visitor_gets_their_own_name_and_token_and_the_kept_header_has_neither(
    one_of_each, django_user_model
):
    pages = {}
    for name in ("first-learner", "<b>bobby</b>"):
        client = Client()
        client.force_login(django_user_model.objects.create_user(name, password="pw-xyz-12345"))
        client.post("/practice/", {"which": "all", "count": 5})
        attempt = Attempt.objects.latest("pk")
        pages[name] = client.get(f"/practice/{attempt.pk}/1/").text
    first, second = pages["first-learner"], pages["<b>bobby</b>"]
    assert '<span class="muted">first-learner</span>' in _header(first)
    assert '<span class="muted">&lt;b&gt;bobby&lt;/b&gt;</span>' in _header(second)
    assert "first-learner" not in second and "bobby" not in first
    # One masked token per page: the log-out form carries the same one as the answer form.
    assert len(_tokens(first)) == 1 and len(_tokens(second)) == 1
    assert _tokens(first) != _tokens(second)
    assert '<a href="/practice/" aria-current="page">Practice</a>' in _header(second)
    for html in chrome.kept_html():
        assert "learner" not in html and "bobby" not in html
        assert not any(t in html for t in _tokens(first) | _tokens(second))
        assert "/practice/" not in html.split("language-switcher")[-1]  # no page's own path


def test_a_visitor_signed_out_gets_a_log_in_link_back_to_this_very_page(client):
    html = client.get("/glossary/?q=a%20b&x=<y>").text
    header = _header(html)
    assert 'href="/accounts/login/?next=/glossary/%3Fq%3Da%2520b%26x%3D%253Cy%253E"' in header
    assert '<a href="/notes/" aria-current="page">Notes</a>' in header  # the glossary is notes'
    login = _header(client.get("/accounts/login/").text)
    assert 'href="/accounts/login/"' in login and "?next=" not in login


def test_the_language_links_and_alternates_are_this_pages_in_each_language(client):
    html = client.get("/notes/changes/", HTTP_HOST="testserver").text
    for prefix in ("", "/zh-hans", "/zh-hant", "/pl"):
        assert f'href="{prefix}/notes/changes/" lang=' in html
        assert f'href="http://testserver{prefix}/notes/changes/"' in html
    header = _header(html)
    assert '<a href="/notes/changes/" aria-current="page">What changed</a>' in header
    assert '<a href="/notes/" >Notes</a>' in header  # not both marked
    polish = client.get("/pl/notes/changes/").text
    assert 'href="/pl/notes/changes/" lang="pl" hreflang="pl" data-lang-prefix="/pl"' in polish
    assert 'aria-current="true">Polski</a>' in polish


def test_a_page_rendered_without_a_request_still_renders():
    from django.template.loader import render_to_string

    html = render_to_string("429.html", {"retry_after": 3, "what": "requests"})
    assert '<header class="site-header">' in html and "</html>" in html
