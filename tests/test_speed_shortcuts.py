"""The per-process shortcuts of the signed-in pages give what the slow paths gave: a URL reversed
once (core/urlcache.py) is reverse()'s URL in every language, and the query compiled once
(core/prepared.py) finds only the visitor's own response."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from core.urlcache import reverse_ints
from quizzes.models import Attempt, Response

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("lang", ["en", "pl", "zh-hans"])
def test_a_url_reversed_once_is_reverses_url_in_each_language(lang):
    with translation.override(lang):
        for name, args in [
            ("quizzes:practice", ()),
            ("quizzes:practice_question", (12, 3)),
            ("quizzes:practice_done", (7,)),
            ("quizzes:exam_question", (10002, 60)),
            ("quizzes:exam_flag", (5, 1)),
            ("quizzes:exam_summary", (987650001,)),
        ]:
            assert reverse_ints(name, *args) == reverse(name, args=args)
            assert reverse_ints(name, *args) == reverse(name, args=args)  # the kept one


def test_the_compiled_lookup_finds_only_the_visitors_own_response(
    client, one_of_each, learner, other_learner
):
    client.force_login(learner)
    client.post("/practice/", {"which": "all", "count": 5})
    mine = Attempt.objects.latest("pk")
    page = client.get(f"/practice/{mine.pk}/2/")
    assert page.status_code == 200
    stem = Response.objects.get(attempt=mine, position=2).question.stem_html
    assert stem in page.text
    other = Client()
    other.force_login(other_learner)
    assert other.get(f"/practice/{mine.pk}/2/").status_code == 404
    assert Client().get(f"/practice/{mine.pk}/2/").status_code == 404  # anonymous
    assert client.get(f"/practice/{mine.pk}/99/").status_code == 404
    assert client.get(f"/practice/{mine.pk}/99999999999/").status_code == 404
    assert client.get(f"/exam/{mine.pk}/q/2/").status_code == 404  # not an exam
    client.post("/exam/", {"count": 5})
    exam = Attempt.objects.latest("pk")
    assert client.get(f"/exam/{exam.pk}/q/1/").status_code == 200
    assert other.get(f"/exam/{exam.pk}/q/1/").status_code == 404


def test_an_anonymous_visitors_attempt_is_found_by_their_token_only(client, one_of_each):
    client.post("/practice/", {"which": "all", "count": 5})
    mine = Attempt.objects.latest("pk")
    assert mine.user is None and mine.owner_token
    assert client.get(f"/practice/{mine.pk}/1/").status_code == 200
    stranger = Client()
    stranger.post("/practice/", {"which": "all", "count": 5})  # a token of their own
    assert stranger.get(f"/practice/{mine.pk}/1/").status_code == 404


def _directives(header: str) -> set[str]:
    return {d.strip() for d in header.split(";")}


def test_the_kept_policy_header_is_the_policy_and_follows_the_settings(client, settings):
    from csp.utils import build_policy

    first = client.get("/healthz")["Content-Security-Policy"]
    assert _directives(first) == _directives(build_policy())
    assert "script-src 'self'" in first and "frame-ancestors 'none'" in first
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": {"default-src": ["'self'"]}}
    assert client.get("/healthz")["Content-Security-Policy"] == "default-src 'self'"
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": {"img-src": ["'none'"]}}
    ro = client.get("/healthz")["Content-Security-Policy-Report-Only"]
    assert "img-src 'none'" in ro
    assert _directives(ro) == _directives(build_policy(report_only=True))


def test_a_view_that_asks_for_its_own_policy_still_gets_it(rf):
    from csp.decorators import csp_update
    from django.http import HttpResponse

    from studyapp.security import CSPMiddleware

    @csp_update({"img-src": ["https://example.org"]})
    def view(request):
        return HttpResponse("ok")

    request = rf.get("/x/")
    response = CSPMiddleware(view)(request)
    assert "https://example.org" in response["Content-Security-Policy"]
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_a_query_whose_stand_ins_are_not_plain_parameters_runs_through_the_orm(
    client, one_of_each, learner
):
    """Where a backend's SQL does not carry a stand-in once as a plain parameter (PostgreSQL
    wrapped the position's), the lookup falls back to the ORM: the right row, never a 500."""
    from core.prepared import Prepared, Unprepared, prepared

    client.force_login(learner)
    client.post("/practice/", {"which": "all", "count": 5})
    mine = Attempt.objects.latest("pk")
    twice = prepared(  # the stand-in is in the SQL twice: it can't be placed
        ("test-twice",), lambda pk: Attempt.objects.filter(pk__gte=pk, pk__lte=pk), pk=1_999_999_001
    )
    assert isinstance(twice, Unprepared)
    assert twice.first(pk=mine.pk) == mine and twice.first(pk=mine.pk + 999) is None
    once = prepared(("test-once",), lambda pk: Attempt.objects.filter(pk=pk), pk=1_999_999_001)
    assert isinstance(once, Prepared) and once.first(pk=mine.pk) == mine


def test_a_compiled_update_stores_what_the_orms_update_stores(client, one_of_each, learner):
    """core/prepared.PreparedUpdate (the exam's autosave on SQLite): the same column values as
    ``queryset.update()`` (JSON, None, a datetime), only on the rows its WHERE names."""
    from datetime import timedelta

    from django.db import connection
    from django.utils import timezone

    from core.prepared import STAND_IN_NOW, PreparedUpdate, prepared_update
    from quizzes import services

    client.force_login(learner)
    client.post("/exam/", {"count": 5})
    attempt = Attempt.objects.latest("pk")
    first, second = Response.objects.filter(attempt=attempt).order_by("position")[:2]
    fields = ("answer", "score", "is_correct", "families", "answered_at")
    save = prepared_update(
        ("test-save", False),
        lambda pk, attempt, now: services._if_open(pk, attempt, now, False),
        fields,
        pk=1_999_999_001,
        attempt=1_999_999_002,
        now=STAND_IN_NOW,
    )
    if connection.vendor == "sqlite":
        assert isinstance(save, PreparedUpdate)
    now = timezone.now()
    values = {"answer": {"choice": "b", "n": [1, None]}, "score": None, "is_correct": None,
              "families": ["x"], "answered_at": now}  # fmt: skip
    assert save.run(values, pk=first.pk, attempt=attempt.pk, now=now) == 1
    Response.objects.filter(pk=second.pk).update(**values)  # the ORM's own
    got, expected = (
        Response.objects.filter(pk=pk).values(*fields).get() for pk in (first.pk, second.pk)
    )
    assert got == expected and got["answered_at"] == now and got["answer"]["n"] == [1, None]
    # Past the deadline (now is the request's clock, not the database's), nothing is written.
    later = now + timedelta(hours=9)
    assert save.run({**values, "score": 1.0}, pk=first.pk, attempt=attempt.pk, now=later) == 0
    assert save.run(values, pk=first.pk, attempt=attempt.pk + 1, now=now) == 0  # not its attempt
    assert Response.objects.get(pk=first.pk).score is None


@pytest.mark.parametrize("lock_after_first", [True, False])
def test_the_compiled_practice_save_is_the_orms_update(one_of_each, learner, lock_after_first):
    """quizzes/services.response_save's practice UPDATE, compiled once (core/prepared.py), runs
    the SQL the ORM's ``rows.filter(attempt__submitted_at__isnull=True).update()`` ran, and
    writes only an unanswered (when locked) response of an attempt not yet submitted."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from core.prepared import PreparedUpdate, prepared_update
    from quizzes import services

    owner = services.Owner(learner, "")
    attempt = services.practice_start(owner=owner, subtopics=[], which="all", count=3)
    first, second, third = Response.objects.filter(attempt=attempt).order_by("position")
    values = {"answer": {"choice": "b", "n": [1, None]}, "score": None, "is_correct": None,
              "families": ["x"], "answered_at": timezone.now()}  # fmt: skip
    save = prepared_update(
        ("practice-save", lock_after_first),
        lambda pk: services._practice_rows(pk, lock_after_first),
        tuple(values),
        pk=1_999_999_001,
    )
    if connection.vendor == "sqlite":
        assert isinstance(save, PreparedUpdate)

    def orm(pk):  # what response_save ran before it was compiled once
        rows = Response.objects.filter(pk=pk)
        rows = rows.filter(answered_at__isnull=True) if lock_after_first else rows
        return rows.filter(attempt__submitted_at__isnull=True).update(**values)

    with CaptureQueriesContext(connection) as compiled:
        assert save.run(values, pk=first.pk) == 1
    with CaptureQueriesContext(connection) as theirs:
        assert orm(second.pk) == 1
    assert [q["sql"] for q in compiled.captured_queries] == [
        q["sql"].replace(f'U0."id" = {second.pk} ', f'U0."id" = {first.pk} ')
        for q in theirs.captured_queries
    ]
    fields = tuple(values)
    got, expected = (
        Response.objects.filter(pk=r.pk).values(*fields).get() for r in (first, second)
    )
    assert got == expected and got["answer"]["n"] == [1, None]
    # Answered already: a locked save writes nothing, an unlocked one writes again.
    assert save.run({**values, "score": 1.0}, pk=first.pk) == (0 if lock_after_first else 1)
    # The attempt submitted: nothing is written.
    Attempt.objects.filter(pk=attempt.pk).update(submitted_at=timezone.now())
    assert save.run(values, pk=third.pk) == 0 == orm(third.pk)
    assert Response.objects.get(pk=third.pk).answered_at is None
