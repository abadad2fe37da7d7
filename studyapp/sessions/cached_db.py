"""``SESSION_ENGINE = "studyapp.sessions.cached_db"``: Django's ``cached_db`` engine, its
database part from :mod:`studyapp.sessions.db` (the cache is read and written as Django does)."""

from django.contrib.sessions.backends import cached_db

from . import db


class SessionStore(cached_db.SessionStore, db.SessionStore):
    """Django's ``cached_db`` first, so its cache reads and writes wrap the compiled queries."""
