"""core/prepared.py with date and datetime stand-ins: found in the compiled SQL as the backend
adapts them (SQLite sends text), and each call's value sent the same way, so the rows are the
ones the ORM's own query gives on either side of every boundary."""

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from core.prepared import Prepared, PreparedRows, _prepared, prepared, prepared_rows
from studyapp.sandbox import live
from studyapp.sandbox.models import LiveUsage

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 12, 2)


def test_a_date_stand_in_reads_the_rows_the_orm_reads(learner, other_learner):
    for user, day, tokens in ((learner, DAY, 500), (learner, DAY - dt.timedelta(1), 7)):
        LiveUsage.objects.create(user=user, day=day, tokens=tokens)
    LiveUsage.objects.create(owner_token="tok", day=DAY, tokens=9)  # a session's, not an account's
    payer = live.payer_key(learner)
    assert live.tokens_today(payer, timezone.make_aware(dt.datetime(2026, 12, 2, 23, 59))) == 500
    assert live.tokens_today(payer, timezone.make_aware(dt.datetime(2026, 12, 1, 0, 0))) == 7
    assert live.tokens_today(payer, timezone.make_aware(dt.datetime(2026, 12, 3, 0, 0))) == 0
    assert live.tokens_today(live.payer_key(other_learner)) == 0
    kept = _prepared[(("live-tokens-today",), connection.vendor)]
    assert type(kept) is PreparedRows


def test_a_datetime_stand_in_compares_as_the_orm_compares(learner):
    """Rows just before, at and after the moment; a microsecond either side."""
    from quizzes.models import Attempt

    at = timezone.make_aware(dt.datetime(2026, 12, 2, 10, 0, 0, 500_000))
    made = []
    for delta in (-1, 0, 1):
        made.append(
            Attempt.objects.create(
                user=learner,
                mode="exam",
                seed=1,
                question_count=1,
                deadline=at + dt.timedelta(microseconds=delta),
            )
        )
    query = prepared(
        ("test-deadline-after",),
        lambda user, now: Attempt.objects.filter(user_id=user, deadline__gt=now).order_by("pk"),
        user=1_999_999_001,
        now=dt.datetime(2199, 1, 2, 3, 4, 5, 678_901, tzinfo=dt.UTC),
    )
    assert type(query) is Prepared
    rows = prepared_rows(
        ("test-deadline-upto",),
        lambda user, now: (
            Attempt.objects.filter(user_id=user, deadline__lte=now).order_by("pk").values_list("pk")
        ),
        user=1_999_999_001,
        now=dt.datetime(2199, 1, 2, 3, 4, 5, 678_901, tzinfo=dt.UTC),
    )
    for when in (at - dt.timedelta(seconds=1), at, at + dt.timedelta(microseconds=1)):
        orm_after = Attempt.objects.filter(user=learner, deadline__gt=when).order_by("pk")
        orm_upto = Attempt.objects.filter(user=learner, deadline__lte=when).order_by("pk")
        assert query.first(user=learner.pk, now=when) == orm_after.first()
        assert [pk for (pk,) in rows.rows(user=learner.pk, now=when)] == [a.pk for a in orm_upto]
    # Not the same instant in another zone: the value is adapted per call, not compared as text.
    paris = at.astimezone(dt.timezone(dt.timedelta(hours=1)))
    assert [pk for (pk,) in rows.rows(user=learner.pk, now=paris)] == [made[0].pk, made[1].pk]
