"""The signed-in user's row read through the shared cache instead of the database.

Every signed-in request reads its session (Redis, through ``cached_db``) and then its user row.
With ``settings.USER_CACHE_SECONDS`` > 0 (the default when ``CACHE_URL`` names a shared Redis),
:class:`AuthenticationMiddleware` takes that row from the same cache, for at most that many
seconds, and every change to a user drops it at once on every server: a save or a delete of the
user, and a change to their groups or permissions (the signals below; also after the commit, so
a request that read the old row meanwhile can't put it back for long). The session is still
verified as Django does: the session's hash must match the user's password hash, so a password
change logs the other sessions out.

With ``cached_db`` sessions in that same cache, the session and the user's row come in one round
trip (:func:`_prefetch`): each process remembers which user a session key belongs to (a
session's user never changes under one key: signing in as another user or out gives a new key),
and asks for both keys at once. The hint only chooses what to fetch; the user is the one the
session read in that same round trip names, as before.

Never with a per-process cache: another process would keep a user it did not see change (a
password reset, a deactivation), so the setting is 0 without ``CACHE_URL``. The cached row holds
what the database holds (including the password *hash*): Redis is as private as the database
(docs/DEPLOY.md).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.middleware import (
    AuthenticationMiddleware as DjangoAuthenticationMiddleware,
)
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBSession
from django.core.cache import caches
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject

from core.prepared import prepared


def _key(user_id) -> str:
    return f"auth-user:{user_id}"


def _cache():
    return caches["default"]


def load_user(backend, user_id, prefetched: tuple[str, object] | None = None):
    """``backend.get_user(user_id)`` through the cache (ModelBackend rules: inactive is None);
    ``prefetched``: (user id, the cached row or None) read with the session (:func:`_prefetch`)."""
    seconds = settings.USER_CACHE_SECONDS
    if not seconds:
        return _user_row(backend, user_id)
    if prefetched is not None and prefetched[0] == str(user_id):
        user = prefetched[1]
    else:
        user = _cache().get(_key(user_id))
    if user is None:
        user = _user_row(backend, user_id)
        if user is not None:
            _cache().set(_key(user_id), user, seconds)
        return user
    can_authenticate = getattr(backend, "user_can_authenticate", None)
    return user if can_authenticate is None or can_authenticate(user) else None


def _user_row(backend, user_id):
    """``backend.get_user(user_id)``; ModelBackend's own (``_default_manager.get(pk=…)``, None
    for no row or one ``user_can_authenticate`` refuses) with its SQL compiled once per process
    (core/prepared.py), for the integer keys the ORM would send as they are."""
    if type(backend).get_user is not ModelBackend.get_user or not (
        type(user_id) is int and 0 < user_id < 2**31
    ):
        return backend.get_user(user_id)
    model = get_user_model()
    query = prepared(
        ("usercache.user", model._meta.label),
        lambda pk: model._default_manager.filter(pk=pk),
        pk=1_999_999_001,
    )
    user = query.first(pk=user_id)
    return user if user is not None and backend.user_can_authenticate(user) else None


def get_user(request):
    """django.contrib.auth.get_user (Django 5.2), with the row from :func:`load_user`."""
    user = None
    try:
        user_id = auth._get_user_session_key(request)
        backend_path = request.session[BACKEND_SESSION_KEY]
    except KeyError:
        pass
    else:
        if backend_path in settings.AUTHENTICATION_BACKENDS:
            _remember(request.session.session_key, user_id)
            prefetched = getattr(request, "_prefetched_user", None)
            user = load_user(auth.load_backend(backend_path), user_id, prefetched)
            if hasattr(user, "get_session_auth_hash"):
                session_hash = request.session.get(HASH_SESSION_KEY)
                verified = bool(session_hash) and constant_time_compare(
                    session_hash, user.get_session_auth_hash()
                )
                if not verified:
                    if session_hash and any(
                        constant_time_compare(session_hash, fallback)
                        for fallback in user.get_session_auth_fallback_hash()
                    ):
                        request.session.cycle_key()
                        request.session[HASH_SESSION_KEY] = user.get_session_auth_hash()
                    else:
                        request.session.flush()
                        user = None
    return user or AnonymousUser()


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    """Django's, reading the user through :func:`get_user` (settings.MIDDLEWARE)."""

    def process_request(self, request):
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: _request_user(request))


def _request_user(request):
    if not hasattr(request, "_cached_user"):
        _prefetch(request)
        request._cached_user = get_user(request)
    return request._cached_user


# session key -> the user id its session names, per process (a hint: see the module doc)
_users_of: dict[str, str] = {}
USERS_OF_MAX = 10_000


def _remember(session_key: str | None, user_id) -> None:
    if not settings.USER_CACHE_SECONDS or not session_key:
        return
    if len(_users_of) >= USERS_OF_MAX:
        _users_of.clear()
    _users_of[session_key] = str(user_id)


def _prefetch(request) -> None:
    """Read a ``cached_db`` session and its user's cached row in one round trip, where this
    process has seen the session before; otherwise nothing (the usual two reads follow)."""
    session = getattr(request, "session", None)
    if (
        not settings.USER_CACHE_SECONDS
        or not isinstance(session, CachedDBSession)
        or hasattr(session, "_session_cache")  # already read
        or session._cache is not _cache()
    ):
        return
    user_id = _users_of.get(session.session_key or "")
    if user_id is None:
        return
    user_key = _key(user_id)
    try:
        found = _cache().get_many([session.cache_key, user_key])
    except Exception:  # what cached_db does when the cache fails: read it the usual way
        return
    data = found.get(session.cache_key)
    if data is None:  # not in the cache: cached_db reads the database row
        return
    session._session_cache = data  # what SessionStore.load() would have returned
    request._prefetched_user = (user_id, found.get(user_key))


def forget(user_id) -> None:
    """Drop a user's cached row now and once the current transaction commits."""
    if not settings.USER_CACHE_SECONDS or user_id is None:
        return
    _cache().delete(_key(user_id))
    transaction.on_commit(lambda: _cache().delete(_key(user_id)))


def _user_changed(sender, instance, **kwargs):
    forget(instance.pk)


def _relations_changed(sender, instance, action, pk_set, **kwargs):
    if isinstance(instance, get_user_model()):
        if action.startswith("post_"):
            forget(instance.pk)
        return
    # From a group's (or a permission's) side: pk_set names the users, except for a clear.
    if action == "pre_clear":
        through = sender.objects.filter(**{instance._meta.model_name: instance})
        for user_id in through.values_list("user_id", flat=True):
            forget(user_id)
    elif action.startswith("post_"):
        for user_id in pk_set or ():
            forget(user_id)


def connect() -> None:
    """Listen for changes to users (StudyappConfig.ready)."""
    User = get_user_model()
    post_save.connect(_user_changed, sender=User, dispatch_uid="usercache.saved")
    post_delete.connect(_user_changed, sender=User, dispatch_uid="usercache.deleted")
    for through in (User.groups.through, User.user_permissions.through):
        m2m_changed.connect(_relations_changed, sender=through, dispatch_uid=f"usercache.{through}")
