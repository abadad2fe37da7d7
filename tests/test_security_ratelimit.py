"""Rate limits on log-in, sign-up and upload: a clear 429 page that says when to try again."""

import pytest
from django.core.cache import cache

from studyapp import ratelimit

pytestmark = pytest.mark.django_db


@pytest.fixture
def limits(settings, rate_clock):
    cache.clear()
    settings.RATELIMIT_ENABLED = True
    settings.RATE_LIMITS = {
        "login": {"views": ["login", "signup"], "rate": (3, 60), "what": "log-in attempts"},
        "upload": {"views": ["sandbox:upload"], "rate": (2, 60), "what": "uploads"},
        "live": {"views": ["sandbox:live", "sandbox:live_fork"], "rate": (2, 60), "what": "runs"},
    }
    yield settings
    cache.clear()


def test_the_fourth_login_in_a_minute_gets_a_429_that_says_when_to_retry(client, limits, learner):
    for _ in range(3):
        response = client.post("/accounts/login/", {"username": "learner", "password": "wrong"})
        assert response.status_code == 200  # the form says the password is wrong
    response = client.post(
        "/accounts/login/", {"username": "learner", "password": "pw-learner-123"}
    )
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    html = response.content.decode()
    assert "Too many log-in attempts" in html
    assert f"wait {response['Retry-After']} second" in html
    assert "_auth_user_id" not in client.session  # the right password did not get through


def test_reading_the_login_page_is_not_limited(client, limits):
    for _ in range(10):
        assert client.get("/accounts/login/").status_code == 200


def test_signup_shares_the_login_bucket(client, limits):
    for _ in range(3):
        client.post("/accounts/login/", {"username": "x", "password": "y"})
    response = client.post("/accounts/signup/", {"username": "newbie"})
    assert response.status_code == 429


def test_each_client_has_its_own_bucket(client, limits):
    for _ in range(3):
        client.post("/accounts/login/", {"username": "x", "password": "y"}, REMOTE_ADDR="10.0.0.1")
    other = client.post(
        "/accounts/login/", {"username": "x", "password": "y"}, REMOTE_ADDR="10.0.0.2"
    )
    assert other.status_code == 200


def test_uploads_are_limited_per_user_and_say_so_to_htmx_too(client, limits, learner):
    client.force_login(learner)
    for _ in range(2):
        assert client.post("/sandbox/upload/", {"text": "{}"}).status_code == 400
    response = client.post("/sandbox/upload/", {"text": "{}"}, headers={"HX-Request": "true"})
    assert response.status_code == 429
    assert "Too many uploads" in response.content.decode()


def test_behind_a_proxy_the_configured_header_names_the_client(rf, settings):
    settings.RATELIMIT_IP_META = "HTTP_X_FORWARDED_FOR"
    request = rf.post("/", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    request.user = type("Anon", (), {"is_authenticated": False})()
    # The last entry is what our proxy saw; earlier ones are whatever the client claimed.
    assert ratelimit.client_key(request) == "ip203.0.113.9"


def test_the_window_resets(limits):
    assert ratelimit.hit("t", "k", 1, 60, now=120.0) == 0
    assert ratelimit.hit("t", "k", 1, 60, now=130.0) == 50
    assert ratelimit.hit("t", "k", 1, 60, now=180.0) == 0


def test_starting_live_runs_is_limited_but_reading_them_is_not(client, limits, learner):
    client.force_login(learner)
    for _ in range(2):
        assert client.post("/sandbox/live/", {}).status_code != 429
    response = client.post("/sandbox/live/", {})
    assert response.status_code == 429
    assert "Too many runs" in response.content.decode()
    assert client.get("/sandbox/live/").status_code == 200


def test_view_names_match_exactly_or_by_a_trailing_star(settings):
    settings.RATE_LIMITS = {"g": {"views": ["sandbox:upload", "author:*"], "rate": (1, 1)}}
    middleware = ratelimit.RateLimitMiddleware(lambda r: None)
    assert middleware.group_for("sandbox:upload") == "g"
    assert middleware.group_for("author:import") == "g"
    assert middleware.group_for("sandbox:upload_delete") is None


@pytest.mark.parametrize("value", ["10", "ten/60", "0/60", "5/0", "/"])
def test_bad_rates_are_refused(value, monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from studyapp.settings import envrate

    monkeypatch.setenv("RATELIMIT_X", value)
    with pytest.raises(ImproperlyConfigured, match="RATELIMIT_X must look like 10/300"):
        envrate("RATELIMIT_X", "1/1")
