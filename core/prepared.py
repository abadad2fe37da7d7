"""A hot queryset compiled to SQL once per process, then run with each request's values.

Django builds and compiles a queryset's SQL on every evaluation; for a page's one lookup that is
most of its cost (a join with ``select_related`` and two annotations: ≈3,300 Python calls, where
SQLite itself spends a few hundred microseconds). ``Prepared`` asks the ORM for the SQL once,
with stand-in values where each request's values go, and keeps the compiler's own row-to-object
machinery (its converters, the ``select_related`` populators, the annotations' columns), so the
objects are the ones the queryset would have made: same SQL, same conversions, same instances.

Only for querysets whose shape does not change between calls (the same filters, joins and
annotations; only the compared values differ): the stand-ins must reach the SQL as parameters,
which a value compared with ``=`` does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, date, datetime
from threading import Lock

from django.db import connections, transaction
from django.db.models import QuerySet
from django.db.models.query import get_related_populators

logger = logging.getLogger(__name__)


#: A "now" no row or request carries, for a datetime stand-in (add microseconds for another).
STAND_IN_NOW = datetime(2199, 1, 2, 3, 4, 5, 678_901, tzinfo=UTC)


def owner_stand_in(signed_in: bool, i: int = 0) -> int | str:
    """The stand-in for the owner where a query names one: a user's pk, or an anonymous token;
    ``i`` tells apart the places one query names it."""
    return 1_999_999_100 + i if signed_in else f"\x00stand-in token {i}"


class Prepared:
    """``Prepared(lambda **v: queryset, attempt=-7_000_001, ...)``: the queryset is built once
    from the stand-ins given as keywords; ``first(attempt=12, ...)`` runs its SQL with those
    values and returns the first object (or None). Every stand-in must reach the SQL exactly once
    as a parameter, and no other parameter may equal one (checked when it is built). A date or
    datetime stand-in (compared with a date or datetime column) is found, and each call's value
    sent, as the backend adapts one (:func:`_adapters`)."""

    def __init__(self, build: Callable[..., QuerySet], **stand_ins: object) -> None:
        queryset = build(**stand_ins)
        self.db = queryset.db
        compiler = queryset.query.get_compiler(using=self.db)
        sql, params = compiler.as_sql()
        self.sql, self.params = sql, tuple(params)
        self.adapt = _adapters(self.db, stand_ins)
        self.slots = _slots(params, _adapted(self.adapt, stand_ins))
        self.compiler = compiler
        select, klass_info = compiler.select, compiler.klass_info
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.model = klass_info["model"]
        self.init_list = [f[0].target.attname for f in select[self.start : self.end]]
        self.populators = get_related_populators(klass_info, select, self.db)
        self.annotations = dict(compiler.annotation_col_map)
        self.converters = compiler.get_converters([s[0] for s in select[: compiler.col_count]])

    def first(self, **values: object):
        found = self._objects(values, 1)
        return found[0] if found else None

    def all(self, **values: object) -> list:
        """Every object the queryset gives, in its order (``list(queryset)``)."""
        return self._objects(values, None)

    def _objects(self, values: dict, most: int | None) -> list:
        params = _filled(self.params, self.slots, _adapted(self.adapt, values))
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchmany(most) if most else cursor.fetchall()
        if self.converters:
            rows = list(self.compiler.apply_converters(rows, self.converters))
        objects = []
        for row in rows:
            obj = self.model.from_db(self.db, self.init_list, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, col in self.annotations.items():
                setattr(obj, name, row[col])
            objects.append(obj)
        return objects


class PreparedRows:
    """A ``values_list()`` queryset compiled once, like :class:`Prepared`: ``rows(attempt=12)``
    runs its SQL with those values and gives every row as a tuple, converted as the ORM would
    (a datetime from SQLite's text, say), in the queryset's order."""

    def __init__(self, build: Callable[..., QuerySet], **stand_ins: object) -> None:
        queryset = build(**stand_ins)
        self.db = queryset.db
        compiler = queryset.query.get_compiler(using=self.db)
        sql, params = compiler.as_sql()
        self.sql, self.params = sql, tuple(params)
        self.adapt = _adapters(self.db, stand_ins)
        self.slots = _slots(params, _adapted(self.adapt, stand_ins))
        self.compiler = compiler
        self.converters = compiler.get_converters(
            [s[0] for s in compiler.select[: compiler.col_count]]
        )

    def rows(self, **values: object) -> list[tuple]:
        params = _filled(self.params, self.slots, _adapted(self.adapt, values))
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        if self.converters:
            rows = [tuple(r) for r in self.compiler.apply_converters(rows, self.converters)]
        return rows


class UnpreparedRows:
    """The ``values_list()`` queryset through the ORM each time (see :class:`Unprepared`)."""

    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self.build = build

    def rows(self, **values: object) -> list[tuple]:
        return list(self.build(**values))


def _adapters(db: str, stand_ins: dict) -> dict[str, Callable]:
    """name -> how the backend sends that stand-in's kind of value compared with a date or a
    datetime column (SQLite: as text; PostgreSQL: as it is), so it can be found in the
    compiled parameters and each call's value sent as the ORM sends it."""
    ops = connections[db].ops
    adapt = {}
    for name, value in stand_ins.items():
        if isinstance(value, datetime):
            adapt[name] = ops.adapt_datetimefield_value
        elif isinstance(value, date):
            adapt[name] = ops.adapt_datefield_value
    return adapt


def _adapted(adapt: dict[str, Callable], values: dict) -> dict:
    if not adapt:
        return values
    return {n: adapt[n](v) if n in adapt else v for n, v in values.items()}


def _slots(params, stand_ins: dict) -> list[tuple[int, str]]:
    """(position in ``params``, name) of each stand-in, which must be there exactly once."""
    slots = []
    for name, value in stand_ins.items():
        at = [i for i, p in enumerate(params) if type(p) is type(value) and p == value]
        if len(at) != 1:
            raise ValueError(f"stand-in {name}={value!r} is in the SQL {len(at)} times")
        slots.append((at[0], name))
    return slots


def _filled(params: tuple, slots: list[tuple[int, str]], values: dict) -> list:
    """The compiled parameters with this call's values at the stand-ins' positions."""
    filled = list(params)
    for at, name in slots:
        filled[at] = values[name]
    return filled


class PreparedUpdate:
    """``queryset.update(**values)`` compiled once, like :class:`Prepared`: ``build(**stand_ins)``
    gives the filtered queryset, ``fields`` the columns set; ``run({field: value, ...}, pk=12,
    ...)`` runs the UPDATE with this request's values and gives the number of rows changed. Each
    value is prepared for the database as the ORM's update compiler prepares it
    (``get_db_prep_save``); a datetime stand-in is compared as the backend stores it."""

    def __init__(self, build: Callable[..., QuerySet], fields: tuple[str, ...], **stand_ins):
        from django.db.models import Value, sql

        queryset = build(**stand_ins)
        self.db = queryset.db
        connection = connections[self.db]
        model = queryset.model
        self.fields = [model._meta.get_field(name) for name in fields]
        if any(hasattr(f, "get_placeholder") for f in self.fields):
            raise ValueError("a field with its own placeholder")
        query = queryset.query.chain(sql.UpdateQuery)
        # Each column set from one parameter, filled in per request (a None would compile to NULL).
        query.add_update_values({f.name: Value(i) for i, f in enumerate(self.fields)})
        compiler = query.get_compiler(using=self.db)
        sql_text, params = compiler.as_sql()
        if (
            query.related_updates
            or not sql_text.startswith("UPDATE ")
            or list(params[: len(self.fields)]) != list(range(len(self.fields)))
        ):
            raise ValueError("not one plain UPDATE")
        self.sql, self.params = sql_text, list(params)
        self.adapt = {
            name: connection.ops.adapt_datetimefield_value
            for name, value in stand_ins.items()
            if isinstance(value, datetime)
        }
        where = params[len(self.fields) :]
        adapted = {n: self.adapt[n](v) if n in self.adapt else v for n, v in stand_ins.items()}
        self.slots = [(at + len(self.fields), name) for at, name in _slots(where, adapted)]

    def run(self, values: dict[str, object], **where: object) -> int:
        connection = connections[self.db]
        params = list(self.params)
        for i, field in enumerate(self.fields):
            params[i] = field.get_db_prep_save(values[field.name], connection=connection)
        for at, name in self.slots:
            value = where[name]
            params[at] = self.adapt[name](value) if name in self.adapt else value
        with transaction.mark_for_rollback_on_error(using=self.db), connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            return cursor.rowcount


class UnpreparedUpdate:
    """The UPDATE through the ORM each time (see :class:`Unprepared`)."""

    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self.build = build

    def run(self, values: dict[str, object], **where: object) -> int:
        return self.build(**where).update(**values)


_prepared: dict[tuple, object] = {}
_lock = Lock()


class Unprepared:
    """The queryset run through the ORM on every call: what ``prepared`` keeps when a backend's
    SQL does not carry each stand-in as one plain parameter (PostgreSQL's adapters may wrap or
    cast them), so every database gets the right rows, and the fast path where it applies."""

    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self.build = build

    def first(self, **values: object):
        return self.build(**values).first()

    def all(self, **values: object) -> list:
        return list(self.build(**values))


def _kept(key: tuple, make: Callable[[], object], fallback: Callable[[], object]) -> object:
    """What is kept under ``key`` and this database's vendor, made on first use; ``fallback``
    when the query can't be compiled once."""
    full = (key, connections["default"].vendor)
    found = _prepared.get(full)
    if found is None:
        try:
            found = make()
        except ValueError as e:
            logger.info("not compiled once (%s): %s; the ORM runs it each time", key, e)
            found = fallback()
        with _lock:
            _prepared[full] = found
    return found


def prepared(
    key: tuple, build: Callable[..., QuerySet], **stand_ins: object
) -> Prepared | Unprepared:
    """The ``Prepared`` kept under ``key`` in this process (built on first use). The key must
    name everything that changes the queryset's shape (the database's vendor is added here)."""
    return _kept(  # type: ignore[return-value]
        key, lambda: Prepared(build, **stand_ins), lambda: Unprepared(build)
    )


def prepared_rows(
    key: tuple, build: Callable[..., QuerySet], **stand_ins: object
) -> PreparedRows | UnpreparedRows:
    """Like :func:`prepared`, for a ``values_list()`` queryset read whole: ``.rows(**values)``."""
    return _kept(  # type: ignore[return-value]
        key, lambda: PreparedRows(build, **stand_ins), lambda: UnpreparedRows(build)
    )


def prepared_update(
    key: tuple, build: Callable[..., QuerySet], fields: tuple[str, ...], **stand_ins: object
) -> PreparedUpdate | UnpreparedUpdate:
    """Like :func:`prepared`, for ``build(...).update(**values)``: ``.run(values, **where)``."""
    return _kept(  # type: ignore[return-value]
        key,
        lambda: PreparedUpdate(build, fields, **stand_ins),
        lambda: UnpreparedUpdate(build),
    )


class PreparedWrite:
    """A queryset's UPDATE or DELETE compiled once, whatever its SET values are (an ``F()`` sum
    with a stand-in in it, say, which :class:`PreparedUpdate`'s one-parameter columns do not
    take): ``build(**stand_ins)`` gives (the filtered queryset, its ``update()`` values), or
    (the queryset, None) for its fast DELETE (no row refers to it, no signal listens);
    ``run(**values)`` runs the statement with this call's values in the stand-ins' places and
    gives the rows it changed."""

    def __init__(self, build: Callable[..., tuple[QuerySet, dict | None]], **stand_ins) -> None:
        from django.db.models import sql

        queryset, changes = build(**stand_ins)
        self.db = queryset.db
        if changes is None:
            query, verb = queryset.query.chain(sql.DeleteQuery), "DELETE "
        else:
            query, verb = queryset.query.chain(sql.UpdateQuery), "UPDATE "
            query.add_update_values(changes)
        sql_text, params = query.get_compiler(using=self.db).as_sql()
        if getattr(query, "related_updates", None) or not sql_text.startswith(verb):
            raise ValueError(f"not one plain {verb.strip()}")
        self.sql, self.params = sql_text, tuple(params)
        self.adapt = _adapters(self.db, stand_ins)
        self.slots = _slots(params, _adapted(self.adapt, stand_ins))

    def run(self, **values: object) -> int:
        params = _filled(self.params, self.slots, _adapted(self.adapt, values))
        connection = connections[self.db]
        with transaction.mark_for_rollback_on_error(using=self.db), connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            return cursor.rowcount


class UnpreparedWrite:
    """The UPDATE or DELETE through the ORM each time (see :class:`Unprepared`)."""

    def __init__(self, build: Callable[..., tuple[QuerySet, dict | None]]) -> None:
        self.build = build

    def run(self, **values: object) -> int:
        queryset, changes = self.build(**values)
        if changes is None:
            return queryset.delete()[0]
        return queryset.update(**changes)


def prepared_write(
    key: tuple, build: Callable[..., tuple[QuerySet, dict | None]], **stand_ins: object
) -> PreparedWrite | UnpreparedWrite:
    """Like :func:`prepared`, for ``build``'s UPDATE or DELETE (:class:`PreparedWrite`)."""
    return _kept(  # type: ignore[return-value]
        key, lambda: PreparedWrite(build, **stand_ins), lambda: UnpreparedWrite(build)
    )
