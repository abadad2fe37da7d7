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
from threading import Lock

from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import get_related_populators

logger = logging.getLogger(__name__)


class Prepared:
    """``Prepared(lambda **v: queryset, attempt=-7_000_001, ...)``: the queryset is built once
    from the stand-ins given as keywords; ``first(attempt=12, ...)`` runs its SQL with those
    values and returns the first object (or None). Every stand-in must reach the SQL exactly once
    as a parameter, and no other parameter may equal one (checked when it is built)."""

    def __init__(self, build: Callable[..., QuerySet], **stand_ins: object) -> None:
        queryset = build(**stand_ins)
        self.db = queryset.db
        compiler = queryset.query.get_compiler(using=self.db)
        sql, params = compiler.as_sql()
        self.sql, self.params = sql, tuple(params)
        self.slots: list[tuple[int, str]] = []
        for name, value in stand_ins.items():
            at = [i for i, p in enumerate(params) if type(p) is type(value) and p == value]
            if len(at) != 1:
                raise ValueError(f"stand-in {name}={value!r} is in the SQL {len(at)} times")
            self.slots.append((at[0], name))
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
        params = list(self.params)
        for at, name in self.slots:
            params[at] = values[name]
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchmany(1)
        if not rows:
            return None
        if self.converters:
            rows = list(self.compiler.apply_converters(rows, self.converters))
        row = rows[0]
        obj = self.model.from_db(self.db, self.init_list, row[self.start : self.end])
        for populator in self.populators:
            populator.populate(row, obj)
        for name, col in self.annotations.items():
            setattr(obj, name, row[col])
        return obj


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
        self.slots = _slots(params, stand_ins)
        self.compiler = compiler
        self.converters = compiler.get_converters(
            [s[0] for s in compiler.select[: compiler.col_count]]
        )

    def rows(self, **values: object) -> list[tuple]:
        params = list(self.params)
        for at, name in self.slots:
            params[at] = values[name]
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


def _slots(params, stand_ins: dict) -> list[tuple[int, str]]:
    slots = []
    for name, value in stand_ins.items():
        at = [i for i, p in enumerate(params) if type(p) is type(value) and p == value]
        if len(at) != 1:
            raise ValueError(f"stand-in {name}={value!r} is in the SQL {len(at)} times")
        slots.append((at[0], name))
    return slots


_prepared: dict[tuple, Prepared | Unprepared | PreparedRows | UnpreparedRows] = {}
_lock = Lock()


class Unprepared:
    """The queryset run through the ORM on every call: what ``prepared`` keeps when a backend's
    SQL does not carry each stand-in as one plain parameter (PostgreSQL's adapters may wrap or
    cast them), so every database gets the right rows, and the fast path where it applies."""

    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self.build = build

    def first(self, **values: object):
        return self.build(**values).first()


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
