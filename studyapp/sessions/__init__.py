"""Django's database session engines, with the queries of every request compiled once.

``settings.SESSION_ENGINE`` names :mod:`studyapp.sessions.db` (one process, SQLite) or
:mod:`studyapp.sessions.cached_db` (a shared Redis in front of the database). Each is Django's
engine of that name; only the SQL of reading a session's row, asking whether a key is taken and
updating a row is compiled once per process (core/prepared.py) instead of built by the ORM on
every request: a signed-in request reads its session before anything else, and building that
``get()`` cost more than SQLite answering it. The same queries, the same rows, the same
errors: an expired or unknown session is a new empty one, an update that finds no row is
Django's ``UpdateError``.
"""

from __future__ import annotations

from django.contrib.sessions.backends.base import UpdateError
from django.db import router, transaction
from django.utils import timezone

from core.prepared import prepared, prepared_rows, prepared_update

#: In place of the session key while the SQL is compiled (never sent to the database).
_STAND_IN_KEY = "\x00stand-in session key"


class PreparedQueries:
    """The three per-request queries of ``django.contrib.sessions.backends.db.SessionStore``
    (mixed in before it, or before its ``cached_db`` subclass)."""

    def _kept_as(self, name: str) -> tuple:
        return (f"sessions.{name}", self.model._meta.label)

    def _get_session_from_db(self):
        """The session's row, or None (and no key) when it is unknown or has expired: Django's
        ``get(session_key=…, expire_date__gt=now)``, with the date compared here."""
        if not isinstance(self.session_key, str):
            return super()._get_session_from_db()
        model = self.model
        query = prepared(
            self._kept_as("row"),
            lambda session_key: model.objects.filter(session_key=session_key),
            session_key=_STAND_IN_KEY,
        )
        row = query.first(session_key=self.session_key)
        if row is None or not row.expire_date > timezone.now():
            self._session_key = None
            return None
        return row

    def exists(self, session_key):
        if not isinstance(session_key, str):
            return super().exists(session_key)
        model = self.model
        query = prepared_rows(
            self._kept_as("exists"),
            lambda session_key: model.objects.filter(session_key=session_key).values_list(
                "session_key"
            ),
            session_key=_STAND_IN_KEY,
        )
        return bool(query.rows(session_key=session_key))

    def save(self, must_create=False):
        """Django's ``save()``; an update (the usual case: a request changed its session) runs
        its compiled UPDATE in the same savepoint instead of ``Model.save(force_update=True)``."""
        if self.session_key is None or must_create:
            return super().save(must_create=must_create)
        data = self._get_session(no_load=False)
        model = self.model
        values = {
            "session_data": self.encode(data),
            "expire_date": self.get_expiry_date(),
        }
        update = prepared_update(
            self._kept_as("update"),
            lambda session_key: model.objects.filter(session_key=session_key),
            ("session_data", "expire_date"),
            session_key=_STAND_IN_KEY,
        )
        using = router.db_for_write(model)
        with transaction.atomic(using=using):
            changed = update.run(values, session_key=self.session_key)
        if not changed:  # what Model.save(force_update=True) raises on no row
            raise UpdateError
