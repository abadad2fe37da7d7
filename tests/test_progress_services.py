"""Progress services with a frozen clock: rating answers, the review queue, claiming on login."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db.models import F

from core.owners import Owner, claim_all
from progress import services
from progress.models import ConceptCard, Confidence, ReviewLog, StudyPrefs
from quizzes.models import Attempt, Question, Response
from quizzes.services import attempt_start

from .factories import make_question

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ANON = Owner(None, "tok-anon")


@pytest.fixture(autouse=True)
def _no_fuzz(settings):
    settings.PROGRESS_FSRS_FUZZ = False


def concept_questions(concept: str, n: int, subtopic="guards") -> list[Question]:
    qs = [make_question("single", f"{concept}-{i}", subtopic) for i in range(n)]
    Question.objects.filter(pk__in=[q.pk for q in qs]).update(concept=concept)
    return list(Question.objects.filter(pk__in=[q.pk for q in qs]).order_by("slug"))


def answer(owner, question, *, correct=True, at=NOW, certainty=None, seconds=30.0):
    """A practice answer saved at ``at`` and recorded the way the practice view does."""
    attempt = attempt_start(owner=owner, mode="practice", question_ids=[question.pk], seed=1)
    response = Response.objects.select_related("question", "attempt").get(attempt=attempt)
    Response.objects.filter(pk=response.pk).update(
        answered_at=at, is_correct=correct, score=1.0 if correct else 0.0, answer={}
    )
    response.refresh_from_db()
    log = services.answer_record(response=response, certainty=certainty, seconds=seconds, now=at)
    return response, log


def card(owner, concept) -> ConceptCard:
    return ConceptCard.objects.owned_by(owner).get(concept=concept)


def test_a_wrong_answer_makes_the_concept_due_tomorrow():
    (q,) = concept_questions("pause-resume", 1)
    _, log = answer(ANON, q, correct=False)
    c = card(ANON, "pause-resume")
    assert c.due == NOW + timedelta(days=1) and c.last_review == NOW
    assert c.subtopic == "guards" and c.reviews == 1
    assert log.rating == ReviewLog.Rating.AGAIN and log.retrievability == 0


def test_right_certain_and_quick_is_easy_and_comes_back_much_later():
    (q,) = concept_questions("c", 1)
    _, log = answer(ANON, q, certainty=3, seconds=8)
    assert log.rating == ReviewLog.Rating.EASY and log.duration_ms == 8000
    assert card(ANON, "c").due == NOW + timedelta(days=8)
    assert Confidence.objects.get(response=log.response).certainty == 3


def test_right_but_unsure_is_hard():
    (q,) = concept_questions("c", 1)
    _, log = answer(ANON, q, certainty=1, seconds=5)
    assert log.rating == ReviewLog.Rating.HARD


def test_an_answer_is_rated_once_even_if_recorded_twice():
    (q,) = concept_questions("c", 1)
    response, _ = answer(ANON, q)
    again = services.answer_record(response=response, certainty=3, seconds=1, now=NOW)
    assert again is None
    assert ReviewLog.objects.count() == 1 and card(ANON, "c").reviews == 1
    assert not Confidence.objects.exists()  # the first record said nothing about certainty


def test_questions_of_one_concept_share_one_card():
    q1, q2 = concept_questions("shared", 2)
    answer(ANON, q1, correct=False)
    answer(ANON, q2, at=NOW + timedelta(days=1))
    c = card(ANON, "shared")
    assert ConceptCard.objects.count() == 1 and c.reviews == 2
    assert [log.rating for log in c.logs.all()] == [1, 3]
    assert c.logs.last().retrievability > 0


def test_a_lapse_is_counted_when_a_learnt_concept_is_missed():
    (q,) = concept_questions("c", 1)
    answer(ANON, q)
    answer(ANON, q, correct=False, at=NOW + timedelta(days=2))
    assert card(ANON, "c").lapses == 1


def test_the_learners_retention_sets_the_interval():
    (q,) = concept_questions("c", 1)
    services.retention_set(owner=ANON, retention=0.80)
    answer(ANON, q, certainty=3, seconds=3)
    relaxed = card(ANON, "c").due - NOW
    other = Owner(None, "tok-other")
    services.retention_set(owner=other, retention=0.95)
    answer(other, q, certainty=3, seconds=3)
    assert relaxed > card(other, "c").due - NOW


def test_retention_outside_the_range_is_refused():
    with pytest.raises(ValueError, match="between 80% and 95%"):
        services.retention_set(owner=ANON, retention=0.5)
    assert not StudyPrefs.objects.exists()


def test_the_queue_serves_the_most_forgotten_first_and_only_what_is_due():
    (a,) = concept_questions("a-weak", 1)
    (b,) = concept_questions("b-strong", 1)
    (c,) = concept_questions("c-later", 1)
    answer(ANON, a, correct=False)  # due in 1 day, low stability
    answer(ANON, b, certainty=1, seconds=5)  # Hard: due in 1 day, higher stability
    answer(ANON, c, certainty=3, seconds=5)  # Easy: due in 8 days
    due, upcoming = services.review_queue(ANON, NOW + timedelta(days=3))
    assert [i.card.concept for i in due] == ["a-weak", "b-strong"]
    assert due[0].recall < due[1].recall
    assert [x.concept for x in upcoming] == ["c-later"]
    nothing, _ = services.review_queue(ANON, NOW + timedelta(hours=12))
    assert nothing == []


def test_queues_are_private_to_their_owner(learner):
    (q,) = concept_questions("c", 1)
    answer(ANON, q, correct=False)
    later = NOW + timedelta(days=2)
    assert services.review_queue(Owner(learner, ""), later) == ([], [])
    assert services.review_queue(Owner(None, "tok-someone-else"), later) == ([], [])
    assert services.review_queue(Owner(None, ""), later) == ([], [])


def test_a_review_asks_the_question_of_the_concept_seen_least():
    q1, q2, q3 = concept_questions("c", 3)
    answer(ANON, q1, correct=False)
    answer(ANON, q2, correct=False, at=NOW + timedelta(minutes=1))
    answer(ANON, q2, correct=False, at=NOW + timedelta(minutes=2))
    attempt = services.review_start(owner=ANON, now=NOW + timedelta(days=2))
    (response,) = attempt.responses.all()
    assert response.question == q3  # never answered
    answer(ANON, q3, correct=False, at=NOW + timedelta(minutes=3))
    attempt = services.review_start(owner=ANON, now=NOW + timedelta(days=2))
    assert attempt.responses.get().question == q1  # once, and met longest ago


def test_a_review_session_keeps_the_queue_order_and_its_size_limit():
    for name in ("x", "y", "z"):
        (q,) = concept_questions(name, 1)
        answer(ANON, q, correct=name != "y", certainty=1 if name == "z" else None, seconds=5)
    attempt = services.review_start(owner=ANON, now=NOW + timedelta(days=10), limit=2)
    order = list(attempt.responses.order_by("position").values_list("question__concept", flat=True))
    assert order == ["y", "z"]  # y was missed (least stable); z was hard; x was good
    assert attempt.mode == Attempt.Mode.PRACTICE and attempt.owner_token == ANON.token


def test_nothing_due_is_said_plainly():
    with pytest.raises(services.NothingDue, match="Nothing is due"):
        services.review_start(owner=ANON, now=NOW)


def test_claiming_moves_cards_and_keeps_the_latest_where_both_have_one(learner):
    q1, q2 = concept_questions("both", 2)
    (solo,) = concept_questions("solo", 1)
    me = Owner(learner, "")
    answer(me, q1, at=NOW - timedelta(days=5))
    answer(ANON, q2, correct=False)  # newer than the account's card
    answer(ANON, solo)
    services.retention_set(owner=ANON, retention=0.85)
    assert claim_all(ANON.token, learner)["progress.ConceptCard"] == 2
    both = card(me, "both")
    assert both.last_review == NOW and both.logs.count() == 2
    assert card(me, "solo").reviews == 1
    assert not ConceptCard.objects.filter(user=None).exists()
    assert services.retention_for(me) == 0.85


def test_claiming_keeps_the_accounts_newer_card_and_settings(learner):
    q1, q2 = concept_questions("both", 2)
    me = Owner(learner, "")
    services.retention_set(owner=me, retention=0.92)
    services.retention_set(owner=ANON, retention=0.81)
    answer(ANON, q2, at=NOW - timedelta(days=5))
    answer(me, q1)
    assert claim_all(ANON.token, learner)["progress.ConceptCard"] == 0
    kept = card(me, "both")
    assert kept.last_review == NOW and kept.logs.count() == 2
    assert services.retention_for(me) == 0.92 and StudyPrefs.objects.count() == 1


def test_a_review_that_lands_while_another_is_recorded_is_not_counted_twice(monkeypatch):
    q1, q2 = concept_questions("race", 2)
    answer(ANON, q1)
    read = services._card_for

    def read_then_race(*args):
        found = read(*args)
        ConceptCard.objects.update(reviews=F("reviews") + 1)  # another tab's review lands
        return found

    monkeypatch.setattr(services, "_card_for", read_then_race)
    _, log = answer(ANON, q2, at=NOW + timedelta(days=1))
    assert log is None and ReviewLog.objects.count() == 1
    assert card(ANON, "race").last_review == NOW  # the stale computation was not written


@pytest.mark.parametrize("signed_in", [True, False])
def test_the_compiled_card_read_gives_what_the_orms_query_gives(django_user_model, signed_in):
    """progress.services._card_for (its SQL compiled once) against the ORM's query it replaced:
    no card yet, a card with prefs, another owner's card and prefs never read, a logged answer."""
    from django.db import connection

    from core.prepared import PreparedRows, _prepared

    user = django_user_model.objects.create_user("carder")
    me = Owner(user, "") if signed_in else Owner(None, "tok-card")
    other = Owner(None, "tok-card") if signed_in else Owner(user, "")
    q1, q2 = concept_questions("read", 2)
    attempt = attempt_start(owner=me, mode="practice", question_ids=[q1.pk], seed=1)
    response = Response.objects.get(attempt=attempt)

    def both():
        return services._card_for(me, "read", response), services._card_row_orm(
            me, "read", response
        )

    fresh, orm = both()
    assert fresh == orm == (None, services.rules.RETENTION_DEFAULT, False)
    answer(other, q2)  # someone else's card and retention: never mine
    services.retention_set(owner=other, retention=0.85)
    assert both()[0] == (None, services.rules.RETENTION_DEFAULT, False)
    answer(me, q2, at=NOW - timedelta(days=3))
    services.retention_set(owner=me, retention=0.9)
    (card_a, ret_a, logged_a), (card_b, ret_b, logged_b) = both()
    fields = ("pk", *services.CARD_FIELDS)
    assert [getattr(card_a, f) for f in fields] == [getattr(card_b, f) for f in fields]
    assert card_a.pk == card(me, "read").pk and card_a.due == card(me, "read").due
    assert (ret_a, logged_a) == (ret_b, logged_b) == (0.9, False)
    Response.objects.filter(pk=response.pk).update(answered_at=NOW, is_correct=True, answer={})
    response.refresh_from_db()
    services.answer_record(response=response, certainty=None, seconds=5.0, now=NOW)
    assert both()[0][2] is both()[1][2] is True  # this answer is logged now
    assert type(_prepared[(("progress-card-for", signed_in), connection.vendor)]) is PreparedRows


def test_the_compiled_card_update_is_the_orms_and_only_if_not_reviewed_since(learner):
    """progress/services._card_update (answer_record's write of a card it read), compiled once
    per process: the SQL and the stored columns of ``filter(pk=, reviews=).update()``, and no
    row changed when another review landed since the card was read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core.prepared import PreparedUpdate

    now = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
    mine, theirs = (
        ConceptCard.objects.create(user=learner, concept=c, subtopic="guards", due=now, reviews=3)
        for c in ("one", "two")
    )
    values = {"state": 2, "step": None, "stability": 2.5, "difficulty": 5.25,
              "due": now + timedelta(days=3), "last_review": now, "subtopic": "stop-reasons",
              "reviews": 4, "lapses": 1}  # fmt: skip
    assert set(values) == set(services.CARD_FIELDS)
    save = services._card_update()
    if connection.vendor == "sqlite":
        assert isinstance(save, PreparedUpdate)
    with CaptureQueriesContext(connection) as compiled:
        assert save.run(values, pk=mine.pk, seen=3) == 1
    with CaptureQueriesContext(connection) as orm:
        assert ConceptCard.objects.filter(pk=theirs.pk, reviews=3).update(**values) == 1
    assert [q["sql"] for q in compiled.captured_queries] == [
        q["sql"].replace(f'"id" = {theirs.pk} ', f'"id" = {mine.pk} ') for q in orm.captured_queries
    ]
    fields = services.CARD_FIELDS
    got, expected = (
        ConceptCard.objects.filter(pk=c.pk).values(*fields).get() for c in (mine, theirs)
    )
    assert got == expected == values
    assert save.run({**values, "reviews": 5}, pk=mine.pk, seen=3) == 0  # reviewed since
    assert ConceptCard.objects.get(pk=mine.pk).reviews == 4
