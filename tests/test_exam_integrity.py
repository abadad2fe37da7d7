"""Exam integrity: an open exam's answers feed nothing else, and nothing changes after it closes."""

import threading
from datetime import timedelta
from unittest import mock

import pytest
from django.db import connection
from django.utils import timezone

from progress import reports
from quizzes import grading, services
from quizzes.models import Attempt, Response

from .answers import right_answer, start_exam
from .factories import make_bank

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank(db):
    return make_bank(20)


def _answer_wrong(client, attempt):
    r = attempt.responses.select_related("question").filter(question__kind="single").first()
    wrong = next(o for o in r.question.options.all() if not o.correct)
    saved = client.post(f"/exam/{attempt.pk}/q/{r.position}/", {"choice": wrong.key})
    assert saved.status_code == 302
    return r


def test_a_retake_before_submitting_is_refused_and_shows_no_key(client, bank):
    attempt = start_exam(client, count=20)
    _answer_wrong(client, attempt)
    response = client.post(f"/exam/{attempt.pk}/retake/", follow=True)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Submit this exam first" in html
    assert Attempt.objects.count() == 1  # no retake attempt was made
    assert "WHY-" not in html
    attempt.refresh_from_db()
    assert not attempt.is_submitted  # the candidate can still finish the exam


def test_a_retake_after_the_deadline_closes_the_exam_first(client, bank):
    attempt = start_exam(client)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = client.post(f"/exam/{attempt.pk}/retake/")
    retake = Attempt.objects.latest("pk")
    assert retake.retake_of_id == attempt.pk
    # A retake is a practice set of what was missed (never counted as an exam).
    assert response["Location"] == f"/practice/{retake.pk}/1/"
    assert Attempt.objects.get(pk=attempt.pk).is_submitted


def test_practice_missed_last_time_ignores_an_open_exam(client, bank):
    attempt = start_exam(client, count=20)
    _answer_wrong(client, attempt)
    response = client.post("/practice/", {"which": "missed", "count": 5})
    assert response.status_code == 200  # the form again, with its message: nothing missed yet
    assert "Nothing in that selection was missed" in response.content.decode()
    assert Attempt.objects.filter(mode="practice").count() == 0
    client.post(f"/exam/{attempt.pk}/submit/")
    response = client.post("/practice/", {"which": "missed", "count": 5})
    assert response.status_code == 302  # once submitted, its misses are fair game


def test_the_dashboard_and_fsrs_ignore_an_open_exam(client, bank):
    attempt = start_exam(client)
    r = attempt.responses.select_related("question").get(position=1)
    client.post(f"/exam/{attempt.pk}/q/1/", right_answer(r.question))
    owner = services.Owner(None, client.session["owner_token"])
    assert not reports._answered(owner).exists()
    assert not Response.objects.released().filter(attempt=attempt).exists()
    from progress.services import answer_record

    r = Response.objects.select_related("attempt", "question").get(pk=r.pk)
    assert answer_record(response=r, certainty=None, seconds=None, now=timezone.now()) is None
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert reports._answered(owner).count() == 1  # expired counts as closed


def test_a_save_from_a_stale_page_after_submit_is_refused(bank):
    owner = services.Owner(None, "tok-stale")
    attempt = services.exam_start(owner=owner, count=5)
    # The save request loaded the attempt before the submit landed.
    stale = Response.objects.select_related("attempt", "question").get(attempt=attempt, position=1)
    services.attempt_submit(attempt=Attempt.objects.get(pk=attempt.pk))
    with pytest.raises(services.AttemptClosed):
        services.response_save(response=stale, answer=_answer_dict(stale), lock_after_first=False)
    assert Response.objects.get(pk=stale.pk).answered_at is None


def test_a_save_whose_deadline_passed_after_the_page_loaded_it_is_refused(bank):
    owner = services.Owner(None, "tok-late")
    attempt = services.exam_start(owner=owner, count=5)
    # The save request loaded the attempt just before its deadline passed.
    stale = Response.objects.select_related("attempt", "question").get(attempt=attempt, position=1)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    with pytest.raises(services.AttemptClosed, match="Time ran out"):
        services.response_save(response=stale, answer=_answer_dict(stale), lock_after_first=False)
    assert Response.objects.get(pk=stale.pk).answered_at is None
    assert Attempt.objects.get(pk=attempt.pk).is_submitted  # and the exam closed with it


def _answer_dict(response):
    from django.http import QueryDict

    body = QueryDict(mutable=True)
    for key, value in right_answer(response.question).items():
        if isinstance(value, list):
            body.setlist(key, value)
        else:
            body[key] = str(value)
    return grading.parse_answer(response.question.grading_spec(), body)


def test_a_submit_landing_while_a_save_is_graded_wins(bank):
    """The race, interleaved by hand: the submit commits between the save's read and write."""
    owner = services.Owner(None, "tok-race")
    attempt = services.exam_start(owner=owner, count=5)
    r = Response.objects.select_related("attempt", "question").get(attempt=attempt, position=1)
    answer = _answer_dict(r)
    real_grade = grading.grade

    def grade_then_submit(spec, ans):
        result = real_grade(spec, ans)
        services.attempt_submit(attempt=Attempt.objects.get(pk=attempt.pk))
        return result

    with (
        mock.patch.object(grading, "grade", grade_then_submit),
        pytest.raises(services.AttemptClosed),
    ):
        services.response_save(response=r, answer=answer, lock_after_first=False)
    closed = Attempt.objects.get(pk=attempt.pk)
    assert not Response.objects.filter(attempt=attempt, answered_at__isnull=False).exists()
    assert closed.score == 0.0


@pytest.mark.django_db(transaction=True)
def test_autosaves_racing_a_submit_never_store_an_answer_after_it(bank):
    """Real threads: every answer stored is older than submitted_at and counted in the score."""
    owner = services.Owner(None, "tok-threads")
    for _ in range(3):
        attempt = services.exam_start(owner=owner, count=5)
        rows = list(Response.objects.select_related("attempt", "question").filter(attempt=attempt))
        answers = [_answer_dict(r) for r in rows]
        go = threading.Barrier(len(rows) + 1)

        def save(r, a, go=go):
            go.wait()
            try:
                services.response_save(response=r, answer=a, lock_after_first=False)
            except services.AttemptClosed:
                pass
            finally:
                connection.close()

        def submit(go=go, pk=attempt.pk):
            go.wait()
            services.attempt_submit(attempt=Attempt.objects.get(pk=pk))
            connection.close()

        threads = [threading.Thread(target=save, args=p) for p in zip(rows, answers, strict=True)]
        threads.append(threading.Thread(target=submit))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        closed = Attempt.objects.get(pk=attempt.pk)
        stored = list(Response.objects.filter(attempt=attempt, answered_at__isnull=False))
        assert all(s.answered_at <= closed.submitted_at for s in stored)
        assert closed.score == round(100 * sum(s.score for s in stored) / 5, 1)


def test_flags_cannot_change_after_the_deadline(client, bank):
    attempt = start_exam(client)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = client.post(f"/exam/{attempt.pk}/q/2/flag/")
    assert response["Location"] == f"/exam/{attempt.pk}/results/"
    assert not Response.objects.get(attempt=attempt, position=2).flagged
    assert Attempt.objects.get(pk=attempt.pk).is_submitted


def test_a_flag_from_a_stale_page_after_submit_is_refused(bank):
    owner = services.Owner(None, "tok-flag")
    attempt = services.exam_start(owner=owner, count=5)
    stale = Response.objects.select_related("attempt").get(attempt=attempt, position=1)
    services.attempt_submit(attempt=Attempt.objects.get(pk=attempt.pk))
    stale.attempt.submitted_at = None  # loaded before the submit
    with pytest.raises(services.AttemptClosed):
        services.response_flag(response=stale)
    assert not Response.objects.get(pk=stale.pk).flagged
