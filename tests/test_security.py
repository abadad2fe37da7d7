"""Security headers and cookies: a Content-Security-Policy without inline scripts on every page,
secure cookies in production."""

import json
import re
from html.parser import HTMLParser

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from tests.access import MATRIX, PRESENT, client_as

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(shared_world):
    """Every test here only reads the world: build it once for the module."""
    return shared_world


def directives(header: str) -> dict[str, list[str]]:
    parts = [d.split() for d in header.split(";") if d.strip()]
    return {p[0]: p[1:] for p in parts}


def test_the_policy_allows_only_our_own_scripts_and_styles(client):
    policy = directives(client.get("/").headers["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in str(policy) and "'unsafe-eval'" not in str(policy)


class Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inline, self.srcs, self.handlers, self.styles = [], [], [], []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.handlers += [f"{tag} {k}" for k in attrs if k.startswith("on")]
        if "style" in attrs:
            self.styles.append(tag)
        if tag == "style":
            self.styles.append("<style>")
        if tag == "script":
            self._in_script = "src" not in attrs
            if "src" in attrs:
                self.srcs.append(attrs["src"])

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline.append(data.strip()[:60])


@pytest.mark.parametrize("name", [n for n in PRESENT if MATRIX[n].get["learner"] == 200])
def test_every_page_sends_the_policy_and_needs_no_inline_script(world, name):
    client = client_as(Client(), world, "learner")
    response = client.get(MATRIX[name].url(name, world))
    assert response.status_code == 200
    assert directives(response["Content-Security-Policy"])["script-src"] == ["'self'"]
    if not response["Content-Type"].startswith("text/html"):
        return
    found = Scripts()
    found.feed(response.content.decode())
    assert found.inline == [], f"inline <script> on {name}: CSP blocks it"
    assert found.handlers == [], f"inline event handlers on {name}: CSP blocks them"
    assert found.styles == [], f"inline styles on {name}: style-src 'self' blocks them"
    assert all(src.startswith("/static/") for src in found.srcs), found.srcs


def test_error_pages_carry_the_policy_too(client):
    response = client.get("/notes/no-such-note/")
    assert response.status_code == 404
    assert "Content-Security-Policy" in response


def test_htmx_is_told_not_to_inject_styles_or_eval(client):
    html = client.get("/").content.decode()
    config = re.search(r'<meta name="htmx-config" content=\'([^\']+)\'>', html)
    assert json.loads(config.group(1)) == {"includeIndicatorStyles": False, "allowEval": False}


def test_production_cookies_are_secure_and_the_session_cookie_http_only(
    settings_from_env, production_env
):
    # The CSRF cookie is readable by the page's own script on purpose: htmx sends it as a header
    # (Django's documented AJAX recipe), so no page has to carry a per-visitor token.
    s = settings_from_env(**production_env)
    assert s["SESSION_COOKIE_SECURE"] and s["CSRF_COOKIE_SECURE"]
    assert s["SESSION_COOKIE_HTTPONLY"] and not s["CSRF_COOKIE_HTTPONLY"]
    assert s["SECURE_SSL_REDIRECT"] and s["SECURE_HSTS_SECONDS"] > 0


def test_a_bad_rate_setting_names_the_variable(settings_from_env, production_env):
    with pytest.raises(ImproperlyConfigured, match="RATELIMIT_LOGIN must look like 10/300"):
        settings_from_env(**production_env, RATELIMIT_LOGIN="ten per minute")
