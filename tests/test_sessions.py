"""The session engines (studyapp/sessions) and the signed-in user's row (studyapp/usercache.py),
their per-request SQL compiled once: every request is signed in, or not, exactly as Django's own
engine and ModelBackend decide."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.prepared import Prepared, PreparedRows, PreparedUpdate, _prepared
from studyapp import usercache
from studyapp.sessions.db import SessionStore

pytestmark = pytest.mark.django_db


def _signed_in(client, name: str) -> bool:
    page = client.get("/practice/")
    assert page.status_code == 200
    return f">{name}<" in page.text


def _key(client) -> str:
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_the_suite_and_production_use_these_engines():
    assert settings.SESSION_ENGINE == "studyapp.sessions.db"
    assert SessionStore.__mro__.index(DjangoStore) > 0


def test_a_signed_in_request_runs_the_queries_djangos_engine_runs(client, learner, settings):
    """Same number of queries, same user, and the compiled queries are the ones in use."""
    client.force_login(learner)
    assert _signed_in(client, "learner")
    with CaptureQueriesContext(connection) as ours:
        assert _signed_in(client, "learner")
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    with CaptureQueriesContext(connection) as djangos:
        assert _signed_in(client, "learner")
    assert len(ours) == len(djangos)
    for table in ('FROM "django_session"', 'FROM "auth_user"'):
        assert sum(table in q["sql"] for q in ours.captured_queries) == 1
    # compiled once, on SQLite and PostgreSQL alike (not core/prepared.py's ORM fallback)
    kept = {key[0][0]: type(value) for key, value in _prepared.items()}
    assert kept["sessions.row"] is Prepared
    assert kept["usercache.user"] is Prepared


def test_an_expired_session_is_signed_out_and_its_key_dropped(client, learner):
    client.force_login(learner)
    key = _key(client)
    Session.objects.filter(pk=key).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert not _signed_in(client, "learner")
    store = SessionStore(key)
    assert store.load() == {} and store.session_key is None


def test_an_unknown_session_key_is_an_empty_new_session(client, learner):
    client.force_login(learner)
    Session.objects.filter(pk=_key(client)).delete()
    assert not _signed_in(client, "learner")
    assert SessionStore("no-such-session-key-0123456789").load() == {}


def test_a_password_change_logs_the_other_sessions_out(client, learner):
    client.force_login(learner)
    assert _signed_in(client, "learner")
    learner.set_password("a-new-password-456")
    learner.save()
    assert not _signed_in(client, "learner")
    # ...and the flushed session is gone from the database.
    assert not Session.objects.filter(pk=_key(client)).exists()


def test_an_inactive_or_deleted_user_is_signed_out(client, learner, other_learner):
    client.force_login(learner)
    other = Client()
    other.force_login(other_learner)
    assert _signed_in(client, "learner") and _signed_in(other, "other")
    learner.is_active = False
    learner.save(update_fields=["is_active"])
    other_learner.delete()
    assert not _signed_in(client, "learner")
    assert not _signed_in(other, "other")


def test_a_backend_that_allows_inactive_users_is_asked(client, learner, settings):
    """The compiled read keeps ModelBackend's rules per backend: user_can_authenticate of the
    backend the session names (here one that lets inactive users in)."""
    allow_all = "django.contrib.auth.backends.AllowAllUsersModelBackend"
    settings.AUTHENTICATION_BACKENDS = [allow_all, *settings.AUTHENTICATION_BACKENDS]
    learner.is_active = False
    learner.save(update_fields=["is_active"])
    client.force_login(learner, backend=allow_all)
    assert _signed_in(client, "learner")
    client.force_login(learner, backend="django.contrib.auth.backends.ModelBackend")
    assert not _signed_in(client, "learner")


def test_the_compiled_user_read_gives_the_row_modelbackend_gives(learner, instructor):
    backend = ModelBackend()
    for user in (learner, instructor):
        ours = usercache._user_row(backend, user.pk)
        djangos = backend.get_user(user.pk)
        assert type(ours) is type(djangos) is get_user_model()
        assert ours.__dict__.keys() == djangos.__dict__.keys()
        assert {k: v for k, v in ours.__dict__.items() if k != "_state"} == {
            k: v for k, v in djangos.__dict__.items() if k != "_state"
        }
    assert usercache._user_row(backend, learner.pk + 1000) is None
    assert usercache._user_row(backend, 2**40) is None  # beyond the column: the ORM's answer


def test_a_changed_session_is_stored_as_djangos_engine_stores_it(client, learner):
    client.force_login(learner)
    key = _key(client)
    store = SessionStore(key)
    store["note"] = {"seen": [1, 2, "três"]}
    store.set_expiry(3600)
    before = timezone.now()
    store.save()
    row = Session.objects.get(pk=key)
    assert DjangoStore(key).load()["note"] == {"seen": [1, 2, "três"]}
    assert before + timedelta(seconds=3599) < row.expire_date <= timezone.now() + timedelta(hours=1)
    assert _signed_in(client, "learner")  # the rest of the session is still there
    kind = type(_prepared[(("sessions.update", "sessions.Session"), connection.vendor)])
    assert kind is PreparedUpdate


def test_saving_a_session_whose_row_is_gone_is_djangos_update_error(client, learner):
    client.force_login(learner)
    store = SessionStore(_key(client))
    assert store.get("_auth_user_id") == str(learner.pk)  # read before the row goes
    Session.objects.filter(pk=_key(client)).delete()
    store["x"] = 1
    with pytest.raises(UpdateError):
        store.save()
    with CaptureQueriesContext(connection):  # and the test's transaction is still usable
        assert not Session.objects.filter(pk=_key(client)).exists()


def test_exists_answers_for_taken_and_free_keys(client, learner):
    client.force_login(learner)
    store = SessionStore()
    assert store.exists(_key(client)) is True
    assert store.exists("free-session-key-0123456789abcdef") is False
    kind = type(_prepared[(("sessions.exists", "sessions.Session"), connection.vendor)])
    assert kind is PreparedRows


def test_the_cached_db_engine_keeps_djangos_cache_reads_and_writes(client, learner, settings):
    from django.core.cache import caches

    from studyapp.sessions.cached_db import SessionStore as CachedStore

    settings.SESSION_ENGINE = "studyapp.sessions.cached_db"
    client.force_login(learner)
    key = _key(client)
    cache = caches[settings.SESSION_CACHE_ALIAS]
    assert cache.get(CachedStore(key).cache_key)  # written on log-in
    cache.delete(CachedStore(key).cache_key)
    assert _signed_in(client, "learner")  # from the database, then put back in the cache
    assert cache.get(CachedStore(key).cache_key)
    store = CachedStore(key)
    store["x"] = 2
    store.save()
    assert cache.get(store.cache_key)["x"] == 2
    assert DjangoStore(key).load()["x"] == 2


def test_a_new_session_is_inserted_as_djangos_engine_inserts_it(client, learner, settings):
    from studyapp import sessions

    before = timezone.now()
    client.force_login(learner)  # a new session: create() and its INSERT
    row = Session.objects.get(pk=_key(client))
    assert DjangoStore(row.pk).load()["_auth_user_id"] == str(learner.pk)
    age = timedelta(seconds=settings.SESSION_COOKIE_AGE)
    assert before + age - timedelta(seconds=5) < row.expire_date <= timezone.now() + age
    assert sessions._inserts[("sessions.Session", "default", connection.vendor)] is not None
    assert _signed_in(client, "learner")


def test_inserting_a_taken_key_is_djangos_create_error(client, learner):
    from django.contrib.sessions.backends.base import CreateError

    client.force_login(learner)
    taken = SessionStore(_key(client))
    taken["x"] = 1
    with pytest.raises(CreateError):
        taken.save(must_create=True)
    # the test's transaction is still usable, and the first session's row is unchanged
    assert DjangoStore(_key(client)).load()["_auth_user_id"] == str(learner.pk)
    assert "x" not in DjangoStore(_key(client)).load()


def test_logging_out_deletes_the_sessions_row(client, learner):
    client.force_login(learner)
    key = _key(client)
    assert client.post("/accounts/logout/").status_code == 302
    assert not Session.objects.filter(pk=key).exists()
    assert not _signed_in(client, "learner")
    SessionStore().delete("never-existed-key-0123456789abcdef")  # nothing to delete: no error


def test_session_data_decodes_as_djangos_engine_decodes_it(settings):
    """A signature checked once per process (PreparedQueries.decode): good data, data kept,
    compressed data, tampered data, another secret key and a fallback key give Django's dict."""
    from studyapp import sessions

    ours, theirs = SessionStore(), DjangoStore()
    long = {"k": "x" * 500, "n": [1, {"a": None}]}  # signing compresses it
    texts = [theirs.encode({"a": 1, "b": [1, 2]}), theirs.encode(long), theirs.encode({})]
    texts += [texts[0][:-1] + ("A" if texts[0][-1] != "A" else "B"), "garbage", "", "a:b:c"]
    for text in texts * 2:  # read, then kept
        assert ours.decode(text) == theirs.decode(text)
    first = ours.decode(texts[1])
    first["n"][1]["a"] = "changed"  # each decode is a fresh dict
    assert ours.decode(texts[1]) == long
    assert not any(key[0] in texts[3:] for key in sessions._verified)  # bad data is not kept
    old = settings.SECRET_KEY
    settings.SECRET_KEY = old + "-rotated"
    assert ours.decode(texts[0]) == theirs.decode(texts[0]) == {}
    settings.SECRET_KEY_FALLBACKS = [old]
    assert ours.decode(texts[0]) == theirs.decode(texts[0]) == {"a": 1, "b": [1, 2]}
