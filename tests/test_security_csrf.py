"""CSRF is enforced on every POST, htmx ones included: generated from the URLconf through the
access matrix, so a new view is covered as soon as it has its row."""

import pytest
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory

from tests.access import MATRIX, PRESENT, client_as

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(shared_world):
    """Every test here only reads the world: build it once for the module."""
    return shared_world


def owner_client(world, *, enforce: bool) -> Client:
    return client_as(Client(enforce_csrf_checks=enforce), world, "learner")


@pytest.fixture(scope="module")
def csrf_cookie() -> str:
    """A csrftoken cookie's value, made as a page's {% csrf_token %} makes it (get_token): a
    random secret the server keeps nowhere, so one serves every test here."""
    request = RequestFactory().get("/")
    get_token(request)
    return request.META["CSRF_COOKIE"]


@pytest.mark.parametrize("name", PRESENT)
def test_a_post_without_a_valid_token_is_refused(world, csrf_cookie, name):
    url = MATRIX[name].url(name, world)
    client = owner_client(world, enforce=True)
    for headers in ({}, {"HX-Request": "true"}):
        response = client.post(url, {"action": "finish", "title": "x"}, headers=headers)
        assert response.status_code == 403, f"POST {url} {headers} without a CSRF token"
        assert b"CSRF" in response.content
    client.cookies["csrftoken"] = csrf_cookie  # a token that does not match the cookie fails too
    response = client.post(url, {}, headers={"X-CSRFToken": "A" * 32, "HX-Request": "true"})
    assert response.status_code == 403, f"POST {url} with a wrong CSRF token"


def test_the_token_htmx_sends_is_accepted(world):
    """The positive control: the cookie's token, sent as htmx does (static/js/site.js), gets
    through, so 403 above means CSRF."""
    client = owner_client(world, enforce=True)
    client.get(f"/exam/{world.exam.pk}/q/1/")  # the page's form sets the cookie
    token = client.cookies["csrftoken"].value
    response = client.post(
        f"/exam/{world.exam.pk}/q/1/flag/", headers={"X-CSRFToken": token, "HX-Request": "true"}
    )
    assert response.status_code == 200
    assert world.exam.responses.get(position=1).flagged


def test_no_view_is_csrf_exempt():
    from django.urls import get_resolver

    def views(patterns):
        for p in patterns:
            if hasattr(p, "url_patterns"):
                yield from views(p.url_patterns)
            else:
                yield p

    exempt = [str(p.pattern) for p in views(get_resolver().url_patterns) if getattr(
        p.callback, "csrf_exempt", False
    )]  # fmt: skip
    assert not exempt, f"csrf_exempt views: {exempt}"
