"""Django's database session engines, with the queries of every request compiled once.

``settings.SESSION_ENGINE`` names :mod:`studyapp.sessions.db` (one process, SQLite) or
:mod:`studyapp.sessions.cached_db` (a shared Redis in front of the database). Each is Django's
engine of that name; only the SQL of reading a session's row, asking whether a key is taken,
updating a row and inserting a new one is compiled once per process (core/prepared.py) instead
of built by the ORM on every request: a signed-in request reads its session before anything
else, and building that ``get()`` cost more than SQLite answering it. The same queries, the
same rows, the same errors: an expired or unknown session is a new empty one, an update that
finds no row is Django's ``UpdateError``, an insert of a taken key its ``CreateError``.
"""

from __future__ import annotations

import zlib

from django.conf import settings
from django.contrib.sessions.backends.base import CreateError, UpdateError
from django.core import signing
from django.db import IntegrityError, connections, router, transaction
from django.db.models import sql
from django.utils import timezone

from core.prepared import STAND_IN_NOW, prepared, prepared_rows, prepared_update

#: In place of the session key while the SQL is compiled (never sent to the database).
_STAND_IN_KEY = "\x00stand-in session key"


#: (session data, salt, secret keys) -> the payload its good signature covers, per process.
_verified: dict[tuple, bytes] = {}
VERIFIED_MAX = 4096


def _payload(session_data: str, salt: str) -> bytes:
    """What ``signing.loads(session_data, salt=salt)`` hands its serializer (Django 5.2's
    ``TimestampSigner.unsign_object`` up to its last line); raises where it raises."""
    base64d = signing.TimestampSigner(salt=salt).unsign(session_data).encode()
    decompress = base64d[:1] == b"."
    data = signing.b64_decode(base64d[1:] if decompress else base64d)
    return zlib.decompress(data) if decompress else data


class PreparedQueries:
    """The three per-request queries of ``django.contrib.sessions.backends.db.SessionStore``
    (mixed in before it, or before its ``cached_db`` subclass)."""

    def decode(self, session_data):
        """Django's ``decode()``, with the signature of a session's data checked once per
        process: the same text under the same salt and secret keys gives the same payload (its
        signature good), so only the JSON is read again (each session a fresh dict). Data
        whose signature, timestamp or compression is wrong is never kept: Django's decode()
        reads it every time (a warning, an empty session), as before."""
        if not isinstance(session_data, str):
            return super().decode(session_data)
        key = (session_data, self.key_salt, settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)
        payload = _verified.get(key)
        if payload is None:
            try:
                payload = _payload(session_data, self.key_salt)
            except Exception:
                return super().decode(session_data)
            if len(_verified) >= VERIFIED_MAX:
                _verified.clear()
            _verified[key] = payload
        try:
            return self.serializer().loads(payload)
        except Exception:  # what Django's decode() gives for data it cannot read
            return {}

    def _kept_as(self, name: str) -> tuple:
        return (f"sessions.{name}", self.model._meta.label)

    def _get_session_from_db(self):
        """The session's row, or None (and no key) when it is unknown or has expired: Django's
        ``get(session_key=…, expire_date__gt=now)``, with the date compared here."""
        if not isinstance(self.session_key, str):
            return super()._get_session_from_db()
        row = self._row(self.session_key)
        if row is None or not row.expire_date > timezone.now():
            self._session_key = None
            return None
        return row

    def _row(self, session_key: str):
        model = self.model
        query = prepared(
            self._kept_as("row"),
            lambda session_key: model.objects.filter(session_key=session_key),
            session_key=_STAND_IN_KEY,
        )
        return query.first(session_key=session_key)

    def delete(self, session_key=None):
        """Django's: the row read (here through the compiled query), then ``Model.delete()``."""
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        if not isinstance(session_key, str):
            return super().delete(session_key)
        row = self._row(session_key)
        if row is not None:
            row.delete()

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
        """Django's ``save()``: an update (the usual case: a request changed its session) runs
        its compiled UPDATE, a new session (``create()``: a log-in, a first visit that stores
        something) its compiled INSERT, each in the same savepoint as Django's
        ``Model.save(force_update=True)`` / ``Model.save(force_insert=True)``."""
        if self.session_key is None:
            return super().save(must_create=must_create)  # create(): a new key, then here
        if must_create:
            return self._insert()
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

    def _insert(self) -> None:
        data = self._get_session(no_load=True)
        obj = self.create_model_instance(data)
        using = router.db_for_write(self.model, instance=obj)
        insert = _compiled_insert(self.model, using)
        if insert is None:
            return super().save(must_create=True)
        sql_text, fields = insert
        connection = connections[using]
        params = [
            f.get_db_prep_save(getattr(obj, f.attname), connection=connection) for f in fields
        ]
        try:
            with transaction.atomic(using=using), connection.cursor() as cursor:
                cursor.execute(sql_text, params)
        except IntegrityError:  # the key is taken: create() draws another
            raise CreateError from None


_inserts: dict[tuple, tuple[str, list] | None] = {}


def _compiled_insert(model, using: str) -> tuple[str, list] | None:
    """The INSERT of ``Model.save(force_insert=True)`` for a session row, compiled once per
    process and database (its fields in order, each value prepared as the ORM prepares it);
    None where the compiled statement is not that plain INSERT (the ORM's save is used)."""
    connection = connections[using]
    key = (model._meta.label, using, connection.vendor)
    if key not in _inserts:
        meta = model._meta
        fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field]
        fields = [f for f in fields if not getattr(f, "generated", False)]
        stand_in = model(
            session_key=_STAND_IN_KEY,
            session_data="\x00stand-in session data",
            expire_date=STAND_IN_NOW,
        )
        query = sql.InsertQuery(model)
        query.insert_values(fields, [stand_in])
        compiled = query.get_compiler(using=using).as_sql()
        expected = [
            f.get_db_prep_save(getattr(stand_in, f.attname), connection=connection) for f in fields
        ]
        plain = (
            len(compiled) == 1
            and compiled[0][0].startswith("INSERT INTO ")
            and list(compiled[0][1]) == expected
            and not meta.db_returning_fields
        )
        _inserts[key] = (compiled[0][0], fields) if plain else None
    return _inserts[key]
