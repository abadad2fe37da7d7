"""The dashboard, the review queue and certainty in practice, through HTTP."""

import re
from datetime import timedelta

import pytest
from django.db.models import F
from django.utils import timezone

from progress import hooks
from progress.models import ConceptCard, Confidence, ReviewLog, StudyPrefs
from quizzes.models import Attempt, Response

from .answers import answer_all, option, start_practice
from .factories import insert_rows, make_bank

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_fuzz(settings):
    settings.PROGRESS_FSRS_FUZZ = False


def days_pass(days: float):
    """Move the learner's clock: every card and review happened ``days`` earlier."""
    shift = timedelta(days=days)
    ConceptCard.objects.update(due=F("due") - shift, last_review=F("last_review") - shift)
    ReviewLog.objects.update(reviewed_at=F("reviewed_at") - shift, due_after=F("due_after") - shift)


# --- certainty in practice ------------------------------------------------------------------


def test_the_practice_form_offers_an_optional_certainty_and_a_signed_stamp(client, guards_bank):
    attempt = start_practice(client, "guards")
    html = client.get(f"/practice/{attempt.pk}/1/").content.decode()
    assert "How sure are you?" in html and "(optional)" in html
    for label in ("1 · Unsure", "2 · Mid", "3 · Quite sure"):
        assert label in html
    assert "right +3, wrong -6" in html
    stamp = re.search(r'name="shown" value="([^"]+)"', html).group(1)
    response = attempt.responses.get(position=1)
    assert hooks.seconds_since_shown(stamp, response.pk) < 5


def test_a_quick_certain_right_answer_is_easy_and_stores_the_certainty(client, guards_bank):
    attempt = start_practice(client, "guards")
    answer_all(client, attempt, certainty="3", shown_ago=5)
    logs = list(ReviewLog.objects.all())
    assert [log.rating for log in logs] == [4, 4]
    assert Confidence.objects.filter(certainty=3).count() == 2
    card = ConceptCard.objects.get()
    assert card.concept == "turn-cap" and card.owner_token and card.user is None


def test_a_slow_or_forged_stamp_never_earns_easy(client, guards_bank):
    attempt = start_practice(client, "guards")
    r1, r2 = attempt.responses.select_related("question").order_by("position")
    client.post(
        f"/practice/{attempt.pk}/1/",
        {"choice": option(r1), "certainty": "3", "shown": hooks.make_stamp(r2.pk)},  # not r1's
    )
    client.post(
        f"/practice/{attempt.pk}/2/", {"choice": option(r2), "certainty": "3", "shown": "x:y:z"}
    )
    assert list(ReviewLog.objects.values_list("rating", flat=True)) == [3, 3]


def test_a_nonsense_certainty_is_ignored_and_the_answer_still_counts(client, guards_bank):
    attempt = start_practice(client, "tool-choice")
    r = attempt.responses.select_related("question").get()
    page = client.post(f"/practice/{attempt.pk}/1/", {"choice": option(r), "certainty": "9"})
    assert page.status_code == 200 and "Right." in page.content.decode()
    assert not Confidence.objects.exists() and ReviewLog.objects.get().rating == 3


def test_htmx_answers_are_recorded_too_and_a_double_submit_counts_once(client, guards_bank):
    attempt = start_practice(client, "tool-choice")
    answer_all(client, attempt, correct=False, HX_Request="true")
    answer_all(client, attempt, correct=True)
    assert ReviewLog.objects.get().rating == 1


def test_an_invalid_answer_keeps_the_chosen_certainty(client, one_of_each):
    attempt = start_practice(client)
    r = attempt.responses.get(question__kind="json")
    html = client.post(
        f"/practice/{attempt.pk}/{r.position}/", {"text": "{nope", "certainty": "2"}
    ).content.decode()
    assert '<option value="2" selected>2 · Mid' in html
    assert not ReviewLog.objects.exists()


# --- dashboard --------------------------------------------------------------------------------


def test_a_new_visitor_is_invited_to_start(client):
    html = client.get("/me/").content.decode()
    assert "Nothing to show yet" in html and "log in</a> and it moves to your account" in html


def test_the_dashboard_shows_mastery_seen_and_due_weakest_first(client, guards_bank):
    answer_all(client, start_practice(client, "guards"), correct=False)
    answer_all(client, start_practice(client, "tool-choice"), certainty="2")
    days_pass(2)
    html = client.get("/me/").content.decode()
    rows = re.findall(r'<tr data-subtopic="([a-z-]+)">(.*?)</tr>', html, re.S)
    assert [slug for slug, _ in rows][:2] == ["guards", "tool-choice"]  # weakest first
    guards = dict(rows)["guards"]
    assert "25% <span" in guards and "0 of 2 right" in guards and "2 of 2" in guards
    assert "<td>1</td>" in guards  # one concept due
    assert re.search(r'id="due-total">2<', html)
    assert '<input type="hidden" name="subtopics" value="guards">' in html


def test_the_practise_button_starts_practice_on_that_subtopic(client, guards_bank):
    answer_all(client, start_practice(client, "guards"), correct=False)
    response = client.post("/practice/", {"subtopics": "guards", "which": "all", "count": "10"})
    attempt = Attempt.objects.order_by("-pk").first()
    assert response.status_code == 302
    assert set(attempt.responses.values_list("question__subtopic", flat=True)) == {"guards"}


def test_certainty_marks_sit_beside_the_plain_score_with_a_calibration_chart(client, guards_bank):
    answer_all(client, start_practice(client, "guards"), certainty="3", correct=False)
    answer_all(client, start_practice(client, "tool-choice"), certainty="1")
    html = client.get("/me/").content.decode()
    assert "33%</span> right" in html  # 1 of 3 right
    assert re.search(r'id="cbm-average">-3.67<', html)  # (1 + 2 × -6) / 3
    assert '<title id="cal-title">' in html and "100% (1 of 1)" in html and "0% (0 of 2)" in html
    table = html.split('id="calibration-table"')[1].split("</table>")[0]
    assert "over-confident" in table and "-12" in table


def test_exam_history_has_a_trend_chart_and_a_table(client, learner, guards_bank):
    client.force_login(learner)
    for i, score in enumerate((40.0, 64.5, 80.0)):
        Attempt.objects.create(
            mode="exam", user=learner, seed=i, question_count=5, score=score,
            submitted_at=timezone.now() - timedelta(days=3 - i),
        )  # fmt: skip
    Attempt.objects.create(mode="exam", user=learner, seed=9, question_count=5)  # in progress
    html = client.get("/me/").content.decode()
    assert "Exam 1: 40%. Exam 2: 65%. Exam 3: 80%." in html  # the chart's text alternative
    assert html.count('class="p-dot"') == 3
    assert re.findall(r'class="c-label p-value"[^>]*>(\d+)%<', html) == ["40", "65", "80"]
    assert re.findall(r"<td>(\d+)%</td></tr>", html) == ["40", "65", "80"]


def test_the_traps_that_catch_me_are_ranked_by_rate(client, guards_bank):
    attempt = start_practice(client, "guards")
    r1, r2 = attempt.responses.select_related("question").order_by("position")
    wrong = r1.question.options.get(text="Option B")
    client.post(f"/practice/{attempt.pk}/1/", {"choice": wrong.key})
    client.post(f"/practice/{attempt.pk}/2/", {"choice": option(r2)})
    html = client.get("/me/").content.decode()
    table = html.split('id="families-table"')[1].split("</table>")[0]
    assert "ends-on-text" in table and "<td>1</td><td>2</td><td>50%</td>" in table


def _history(user, questions, n_attempts, per_attempt):
    """n_attempts × per_attempt answered responses, with certainty on a third of them."""
    now = timezone.now()
    attempts = Attempt.objects.bulk_create(
        Attempt(
            mode="exam" if i % 4 == 0 else "practice", user=user, seed=i,
            question_count=per_attempt, score=50.0, submitted_at=now if i % 4 == 0 else None,
        )
        for i in range(n_attempts)
    )  # fmt: skip
    insert_rows(
        Response,
        [
            {
                "attempt_id": a.pk, "question_id": questions[(i + j) % len(questions)].pk,
                "position": j + 1, "answer": {}, "score": float((i + j) % 2),
                "is_correct": bool((i + j) % 2), "answered_at": now,
                "families": [] if (i + j) % 2 else ["ends-on-text"],
            }
            for i, a in enumerate(attempts)
            for j in range(per_attempt)
        ],
    )  # fmt: skip
    pks = list(
        Response.objects.filter(attempt__in=attempts).order_by("pk").values_list("pk", flat=True)
    )
    insert_rows(
        Confidence,
        [{"response_id": pk, "certainty": 1 + pk % 3} for pk in pks[::3]],
    )
    ConceptCard.objects.bulk_create(
        ConceptCard(user=user, concept=q.concept, subtopic=q.subtopic, due=now, last_review=now,
                    stability=2.0, difficulty=5.0, state=2)
        for q in questions
    )  # fmt: skip


@pytest.mark.parametrize("n_attempts", [1, 500])
def test_the_dashboard_runs_the_same_queries_with_10000_answers(
    client, learner, django_assert_num_queries, n_attempts
):
    questions = make_bank(24)
    _history(learner, questions, n_attempts, 20)
    client.force_login(learner)
    # session, user, scores by subtopic and mode, bank by subtopic with seen counts, cards,
    # exams, answers' traps, their questions, their options, certainty counts, notes read,
    # the problems the learner reported, sandbox predictions by stop_reason
    with django_assert_num_queries(13):
        page = client.get("/me/")
    assert page.status_code == 200
    assert Response.objects.count() == 20 * n_attempts


def test_other_learners_never_see_my_progress(client, learner, other_learner, guards_bank):
    client.force_login(learner)
    answer_all(client, start_practice(client, "guards"), certainty="3")
    client.force_login(other_learner)
    html = client.get("/me/").content.decode()
    assert "Nothing to show yet" in html
    assert "Turn cap" not in client.get("/review/").content.decode()


# --- review queue -------------------------------------------------------------------------


def test_a_missed_concept_is_due_tomorrow_then_reviewed_with_the_other_question(
    client, guards_bank
):
    attempt = start_practice(client, "guards")
    r1 = attempt.responses.select_related("question").get(position=1)
    client.post(f"/practice/{attempt.pk}/1/", {"choice": option(r1, correct=False)})
    html = client.get("/review/").content.decode()
    assert "Nothing is due right now" in html
    assert re.search(r"<strong>Turn cap</strong>, due <time[^>]*>tomorrow</time>", html)

    days_pass(1.01)
    html = client.get("/review/").content.decode()
    assert "Start reviewing" in html and "Turn cap" in html.split('id="due-list"')[1]
    started = client.post("/review/start/")
    review = Attempt.objects.order_by("-pk").first()
    assert started["Location"] == f"/practice/{review.pk}/1/"
    (r,) = review.responses.select_related("question")
    assert r.question != r1.question and r.question.concept == "turn-cap"  # seen least
    client.post(f"/practice/{review.pk}/1/", {"choice": option(r)})
    card = ConceptCard.objects.get()
    assert card.reviews == 2 and card.due > timezone.now() + timedelta(days=1)


def test_starting_a_review_with_nothing_due_says_so(client):
    page = client.post("/review/start/", follow=True)
    assert "Nothing is due for review right now" in page.content.decode()


def test_review_start_needs_post(client):
    assert client.get("/review/start/").status_code == 405
    assert client.post("/me/").status_code == 405


def test_the_desired_retention_is_saved_and_bad_values_are_named(client):
    page = client.post("/review/retention/", {"retention": "70"})
    assert page.status_code == 422
    assert "Choose a desired retention between 80% and 95%." in page.content.decode()
    assert not StudyPrefs.objects.exists()
    assert client.post("/review/retention/", {"retention": "85"}).status_code == 302
    assert StudyPrefs.objects.get().desired_retention == 0.85
    assert '<option value="85" selected>' in client.get("/review/").content.decode()


def test_htmx_gets_just_the_retention_form(client):
    page = client.post("/review/retention/", {"retention": "92"}, headers={"HX-Request": "true"})
    body = page.content.decode()
    assert body.lstrip().startswith("<form") and "<html" not in body and "Saved." in body
    bad = client.post("/review/retention/", {"retention": "abc"}, headers={"HX-Request": "true"})
    assert bad.status_code == 200 and "between 80% and 95%" in bad.content.decode()


def test_every_post_needs_the_csrf_token(guards_bank):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    assert client.post("/review/retention/", {"retention": "85"}).status_code == 403
    assert client.post("/review/start/").status_code == 403


def test_logging_in_moves_this_browsers_progress_to_the_account(client, learner, guards_bank):
    answer_all(client, start_practice(client, "guards"), certainty="3")
    client.post("/review/retention/", {"retention": "88"})
    client.post("/accounts/login/", {"username": "learner", "password": "pw-learner-123"})
    card = ConceptCard.objects.get()
    assert card.user == learner
    assert StudyPrefs.objects.get().user == learner
    html = client.get("/me/").content.decode()
    assert "100%</span> right" in html and "Nothing to show yet" not in html


@pytest.mark.parametrize("n_cards", [1, 80])
def test_the_review_page_runs_the_same_queries_however_many_cards(
    client, guards_bank, django_assert_num_queries, n_cards
):
    start_practice(client, "guards")
    token = client.session["owner_token"]
    now = timezone.now()
    ConceptCard.objects.bulk_create(
        ConceptCard(owner_token=token, concept=f"c-{i}", subtopic="guards", due=now, state=2,
                    last_review=now - timedelta(days=3), stability=2.0 + i, difficulty=5.0)
        for i in range(n_cards)
    )  # fmt: skip
    # session, desired retention, the learner's cards
    with django_assert_num_queries(3):
        html = client.get("/review/").content.decode()
    items = re.findall(r"<strong>(C \d+)</strong>", html.split('id="due-list"')[1])
    assert items == [f"C {i}" for i in range(n_cards)]  # least stable, so most forgotten, first


def test_answering_adds_a_fixed_number_of_queries_for_the_review(
    client, guards_bank, django_assert_num_queries
):
    attempt = start_practice(client, "guards")
    r = attempt.responses.select_related("question").get(position=1)
    url = f"/practice/{attempt.pk}/1/"
    data = {"choice": option(r), "certainty": "2", "shown": hooks.make_stamp(r.pk)}
    # 4 for the practice page (session, response + attempt + question, the options read once per
    # question version, update) and 4 for the review: card + retention + already logged? in one
    # read, the certainty, the card, the log
    with django_assert_num_queries(8):
        client.post(url, data)
    assert ReviewLog.objects.count() == 1


@pytest.mark.parametrize("signed_in", [True, False])
def test_the_compiled_dashboard_queries_give_what_the_orms_give(learner, other_learner, signed_in):
    """progress/reports.py's three subtopic queries, compiled once per process, against the same
    querysets run through the ORM: a history with exams (one still open, whose answers must not
    count), practice, cards due and not due, and another learner's answers that are not mine."""
    from core.owners import Owner
    from progress import reports

    questions = make_bank(12)
    _history(learner, questions, 8, 6)
    _history(other_learner, questions, 3, 6)
    if not signed_in:
        Attempt.objects.filter(user=learner).update(user=None, owner_token="tok-dash")
        ConceptCard.objects.filter(user=learner).update(user=None, owner_token="tok-dash")
    owner = Owner(learner, "") if signed_in else Owner(None, "tok-dash")
    mine = Attempt.objects.owned_by(owner)
    still_open = mine.filter(mode="exam").first()
    Attempt.objects.filter(pk=still_open.pk).update(
        submitted_at=None, deadline=timezone.now() + timedelta(hours=1)
    )
    ConceptCard.objects.filter(pk=ConceptCard.objects.owned_by(owner).first().pk).update(
        due=timezone.now() + timedelta(days=3)
    )
    scores, bank, cards = reports._subtopic_queries(owner)
    answered = reports._answered(owner)
    orm_scores = list(reports._scores_query(answered))
    orm_bank = list(reports._bank_query(answered, answered))
    orm_cards = list(ConceptCard.objects.owned_by(owner).values_list("subtopic", "due"))
    key = lambda row: tuple(str(v) for v in row.values())  # noqa: E731
    assert sorted(scores, key=key) == sorted(orm_scores, key=key) and scores
    assert sorted(bank, key=key) == sorted(orm_bank, key=key) and bank
    assert sorted(cards) == sorted(orm_cards) and cards
    compiled = {
        "exams": reports._compiled(
            "progress-exams", owner,
            lambda s, who, now: reports._exams_query(reports._attempts_by(s, who)),
            reports._EXAM_COLUMNS,
        ),
        "certainty": [
            (r["certainty"], r["n"], r["right"])
            for r in reports._compiled(
                "progress-certainty", owner,
                lambda s, who, now: reports._certainty_query(reports._attempts_by(s, who)),
                ("certainty", "n", "right"),
            )
        ],
    }  # fmt: skip
    orm = {
        "exams": list(reports._exams_query(mine)),
        "certainty": [(r["certainty"], r["n"], r["right"]) for r in reports._certainty_query(mine)],
    }
    assert compiled["exams"] == orm["exams"] and len(orm["exams"]) == 1  # one exam is open
    assert sorted(compiled["certainty"]) == sorted(orm["certainty"]) and orm["certainty"]
    assert [r["family"] for r in reports.family_rows(owner)] == ["ends-on-text"]
    groups = reports._compiled(
        "progress-families", owner,
        lambda s, who, now: reports._families_query(reports._answered_by(s, who, now)),
        ("question_id", "families", "n"), at_now=True,
    )  # fmt: skip
    orm_groups = list(reports._families_query(answered))
    assert sorted(groups, key=key) == sorted(orm_groups, key=key) and groups
    # the open exam's answers are left out of both
    assert (
        sum(r["n"] for r in scores)
        == reports._answered(owner).count()
        < (Response.objects.filter(attempt__in=mine).count())
    )


def test_the_traps_ranked_from_kept_options_are_what_the_orms_prefetch_gives(
    learner, django_assert_num_queries
):
    """progress/reports.family_rows reads its questions' options from the per-version cache
    (quizzes/versioncache.py): the same rows as the ``prefetch_related("options")`` it replaced,
    the first time (one query for the options) and once they are kept (none), and a question's
    new version is read afresh, never its old version's options."""
    from types import SimpleNamespace

    from core.owners import Owner
    from progress import reports
    from quizzes import services as quiz_services
    from quizzes import versioncache
    from quizzes.models import Question
    from quizzes.schema import FAMILIES

    from .factories import make_question

    questions = make_bank(12)
    _history(learner, questions, 6, 12)
    owner = Owner(learner, "")

    def by_the_orm():  # what family_rows did before it read the kept options
        groups = list(reports._families_query(reports._answered(owner)))
        stand_ins = {}
        for q in (
            Question.objects.filter(pk__in={g["question_id"] for g in groups})
            .only("id", "data")
            .prefetch_related("options")
        ):
            options = [SimpleNamespace(family=o.family) for o in q.options.all()]
            stand_ins[q.pk] = SimpleNamespace(
                data=q.data, options=SimpleNamespace(all=lambda options=options: options)
            )
        answers = []
        for g in groups:
            answers += [
                SimpleNamespace(question=stand_ins[g["question_id"]], families=g["families"])
            ] * g["n"]
        rows = quiz_services.family_report(answers)
        for row in rows:
            row["description"] = FAMILIES.get(row["family"], "")
            row["percent"] = round(100 * row["rate"])
        return rows[: reports.TOP_FAMILIES]

    expected = by_the_orm()
    assert expected  # the history fell into traps
    for q in questions:
        versioncache._options.pop(versioncache.version_key(q), None)
    with django_assert_num_queries(3):  # answers' traps, their questions, their options
        assert reports.family_rows(owner) == expected
    with django_assert_num_queries(2):  # the options kept
        assert reports.family_rows(owner) == expected
    # A new version of an answered question, with other traps: its own options, not the old.
    old = questions[0]
    new = make_question("single", "family-new-version")
    new.options.update(family="")
    Response.objects.filter(question=old).update(question=new)
    assert reports.family_rows(owner) == by_the_orm() != expected


def test_an_essay_answered_in_practice_and_not_yet_graded_still_shows_the_dashboard(
    client, learner
):
    """An answer with no automatic grade has no score until an instructor gives one: the
    dashboard's mastery counts it as no points (it used to fail: 100 * None)."""
    from .factories import make_question

    question = make_question("essay", "dashboard-essay")
    client.force_login(learner)
    attempt = start_practice(client)
    assert attempt is not None and attempt.responses.get().question == question
    client.post(f"/practice/{attempt.pk}/1/", {"text": "An essay of my own."})
    answered = attempt.responses.get()
    assert answered.answered and answered.score is None
    page = client.get("/me/")
    assert page.status_code == 200
    assert "0%" in page.content.decode()
