"""The signed-in user read through the shared cache (studyapp/usercache.py): one query fewer per
signed-in request, and every change to the user is seen on the next request."""

import pytest
from django.contrib.auth.models import Group
from django.core.cache import caches

from studyapp import usercache


@pytest.fixture
def user_cache(settings, learner):
    settings.USER_CACHE_SECONDS = 60
    caches["default"].delete(usercache._key(learner.pk))
    yield
    caches["default"].delete(usercache._key(learner.pk))


def _user_queries(queries) -> int:
    return sum('FROM "auth_user"' in q["sql"] for q in queries.captured_queries)


@pytest.mark.django_db
def test_a_signed_in_request_reads_the_user_row_once_then_from_the_cache(
    client, learner, user_cache, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(learner)
    with CaptureQueriesContext(connection) as first:
        assert "learner" in client.get("/practice/").text
    with CaptureQueriesContext(connection) as second:
        assert "learner" in client.get("/practice/").text
    assert _user_queries(first) == 1
    assert _user_queries(second) == 0
    assert len(second) == len(first) - 1


@pytest.mark.django_db
def test_without_a_shared_cache_every_request_reads_the_user(client, learner, settings):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.USER_CACHE_SECONDS = 0
    client.force_login(learner)
    client.get("/practice/")
    with CaptureQueriesContext(connection) as again:
        client.get("/practice/")
    assert _user_queries(again) == 1


@pytest.mark.django_db
def test_a_password_change_logs_the_other_sessions_out_at_once(client, learner, user_cache):
    client.force_login(learner)
    assert "learner" in client.get("/practice/").text  # the row is cached now
    learner.set_password("a-new-password-456")
    learner.save()
    page = client.get("/practice/")
    assert "Log in" in page.text and ">learner<" not in page.text


@pytest.mark.django_db
def test_a_deactivated_user_is_signed_out_on_the_next_request(client, learner, user_cache):
    client.force_login(learner)
    client.get("/practice/")
    learner.is_active = False
    learner.save(update_fields=["is_active"])
    assert "Log in" in client.get("/practice/").text


@pytest.mark.django_db
def test_joining_or_leaving_a_group_drops_the_cached_row(client, learner, user_cache):
    key = usercache._key(learner.pk)
    instructors = Group.objects.get(name="Instructors")
    client.force_login(learner)
    client.get("/practice/")
    assert caches["default"].get(key) is not None
    instructors.user_set.add(learner)  # from the group's side
    assert caches["default"].get(key) is None
    client.get("/practice/")
    learner.groups.remove(instructors)  # from the user's side
    assert caches["default"].get(key) is None
    client.get("/practice/")
    instructors.user_set.add(learner)
    client.get("/practice/")
    instructors.user_set.clear()
    assert caches["default"].get(key) is None


@pytest.mark.django_db
def test_each_session_gets_its_own_user(client, learner, other_learner, user_cache):
    from django.test import Client

    client.force_login(learner)
    other = Client()
    other.force_login(other_learner)
    for _ in range(2):
        assert ">learner<" in client.get("/practice/").text
        page = other.get("/practice/")
        assert ">other<" in page.text and ">learner<" not in page.text
    caches["default"].delete(usercache._key(other_learner.pk))


def _reads(calls: list[str]) -> list[str]:
    """The session's and the user's reads among a request's cache calls, in order."""
    out = []
    for call in calls:
        name, key = call.split(" ", 1)
        what = "+".join(w for w, k in (("session", "sessions.cached_db"), ("user", "auth-user:"))
                        if k in key)  # fmt: skip
        if what:
            out.append(f"{name} {what}")
    return out


@pytest.mark.django_db
def test_a_cached_db_session_and_its_user_come_in_one_round_trip(
    client, learner, other_learner, user_cache, settings, monkeypatch
):
    """Once a process has seen a session, its data and its user's row are one get_many (one
    Redis MGET) instead of two reads; the user is still the one that session names."""
    settings.SESSION_ENGINE = "studyapp.sessions.cached_db"
    cache = caches["default"]
    calls: list[str] = []
    real_get, real_get_many = cache.get, cache.get_many

    def get(key, *args, **kwargs):
        calls.append(f"get {key}")
        return real_get(key, *args, **kwargs)

    def get_many(keys, *args, **kwargs):  # one MGET on Redis; LocMemCache's calls get() itself
        calls.append(f"get_many {keys}")
        monkeypatch.setattr(cache, "get", real_get)
        try:
            return real_get_many(keys, *args, **kwargs)
        finally:
            monkeypatch.setattr(cache, "get", get)

    monkeypatch.setattr(cache, "get", get)
    monkeypatch.setattr(cache, "get_many", get_many)
    client.force_login(learner)
    calls.clear()
    assert ">learner<" in client.get("/practice/").text  # first sight: session, then user
    assert _reads(calls) == ["get session", "get user"], calls
    calls.clear()
    assert ">learner<" in client.get("/practice/").text
    assert _reads(calls) == ["get_many session+user"], calls
    # A change to the user is seen at once (the row was dropped: read from the database).
    learner.first_name = "Renamed"
    learner.save()
    client.get("/practice/")
    assert caches["default"].get(usercache._key(learner.pk)).first_name == "Renamed"
    # A stale hint (this key now names another user) fetches the wrong row: never used.
    session_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    usercache._users_of[session_key] = str(other_learner.pk)
    caches["default"].set(usercache._key(other_learner.pk), other_learner, 60)
    page = client.get("/practice/").text
    assert ">learner<" in page and ">other<" not in page
    # Signed out: the session key is gone, and with it the hint's use.
    client.logout()
    assert ">learner<" not in client.get("/practice/").text
