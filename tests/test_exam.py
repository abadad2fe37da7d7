"""The mock exam: blueprint, a deadline held on the server, autosave, flags, results, review."""

import json
import random
import re
from datetime import timedelta
from html import unescape

import pytest
from django.db import connection
from django.utils import timezone

from quizzes import services
from quizzes.models import Attempt, Response

from .answers import right_answer, start_exam
from .factories import make_bank

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank(db, module_bank):
    return module_bank


def test_allocate_splits_by_weight_and_sums_to_n():
    for n in (5, 10, 30, 60):
        counts = services.allocate(n, services.BLUEPRINT)
        assert sum(counts.values()) == n
    assert services.allocate(30, services.BLUEPRINT)["stop-reasons"] == 7


def test_the_draw_follows_the_blueprint_and_is_rebuilt_from_its_seed(bank):
    pool = [(q.id, q.subtopic) for q in bank]
    first = services.draw_exam(pool, 30, random.Random(42))
    assert first == services.draw_exam(pool, 30, random.Random(42))
    assert len(set(first)) == 30
    topics = {q.id: q.subtopic for q in bank}
    assert sum(topics[i] == "stop-reasons" for i in first) == 5  # all 5 the bank has


def test_starting_an_exam_sets_a_server_deadline(client, bank):
    attempt = start_exam(client, count=10)
    assert attempt.mode == "exam" and attempt.question_count == 10
    assert attempt.deadline - attempt.started_at == timedelta(minutes=20)


@pytest.mark.template_context  # reads response.context
def test_a_reload_shows_the_same_remaining_time(client, bank):
    attempt = start_exam(client)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=300))
    first = client.get(f"/exam/{attempt.pk}/q/1/").context["seconds_left"]
    again = client.get(f"/exam/{attempt.pk}/q/1/").context["seconds_left"]
    assert 295 <= again <= first <= 300


@pytest.mark.template_context  # reads response.context
def test_option_order_is_shuffled_per_attempt_but_stable(client, bank):
    attempt = start_exam(client, count=60)
    r = attempt.responses.filter(question__kind="single").first()
    url = f"/exam/{attempt.pk}/q/{r.position}/"
    keys = [c["key"] for c in client.get(url).context["form_ctx"]["choices"]]
    assert keys == [c["key"] for c in client.get(url).context["form_ctx"]["choices"]]


def test_choosing_an_answer_autosaves_with_htmx(client, bank):
    attempt = start_exam(client)
    r = attempt.responses.select_related("question").get(position=1)
    response = client.post(
        f"/exam/{attempt.pk}/q/1/", right_answer(r.question), headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert "Saved at" in html and 'hx-swap-oob="true"' in html and "<html" not in html
    # The navigator entry of this question now says answered; no other entry is re-sent.
    assert '<li id="nav-q1" hx-swap-oob="true">' in html
    assert '1<span class="visually-hidden">, answered' in html and 'id="nav-q2"' not in html
    r.refresh_from_db()
    assert r.answered_at and r.is_correct
    assert "Right" not in html  # the exam never reveals a verdict before submitting


def test_changing_an_answer_keeps_the_last_one(client, bank):
    attempt = start_exam(client, count=60)
    r = attempt.responses.select_related("question").filter(question__kind="single").first()
    wrong = r.question.options.get(text="Option B")
    url = f"/exam/{attempt.pk}/q/{r.position}/"
    client.post(url, right_answer(r.question), headers={"HX-Request": "true"})
    client.post(url, {"choice": wrong.key}, headers={"HX-Request": "true"})
    r.refresh_from_db()
    assert r.answer == {"choice": wrong.key} and not r.is_correct
    assert Response.objects.filter(attempt=attempt, question=r.question).count() == 1


def assert_shows_answer(html: str, answer: dict) -> None:
    """The page shows the saved answer in its inputs: each name checked, selected or typed."""
    for name, value in answer.items():
        if name == "choice":
            assert f'value="{value}" checked' in html
        elif name == "choices":
            for key in value:
                assert f'value="{key}" checked' in html
        elif name == "text":
            typed = re.search(r"<textarea name=\"text\"[^>]*>(.*?)</textarea>", html, re.S)
            assert typed and json.loads(unescape(typed[1])) == json.loads(value)
        else:  # pos-<key> or match-<key>: one <select> each
            select = re.search(rf'<select name="{name}".*?</select>', html, re.S)
            assert select and f'value="{value}" selected' in select[0], name


@pytest.mark.parametrize(
    "kind",
    ["single", "multiple", "truefalse", "ordering", "matching", "next_action", "json", "fix"],
)
def test_save_and_next_works_without_javascript(client, bank, kind):
    attempt = start_exam(client, count=60)
    r = (
        attempt.responses.select_related("question")
        .filter(question__kind=kind, position__lt=attempt.question_count)
        .first()
    )
    n, answer = r.position, right_answer(r.question)
    response = client.post(f"/exam/{attempt.pk}/q/{n}/", {**answer, "go": "next"})
    assert response["Location"] == f"/exam/{attempt.pk}/q/{n + 1}/"
    back = client.post(f"/exam/{attempt.pk}/q/{n + 1}/", {"go": "prev"})
    assert back["Location"] == f"/exam/{attempt.pk}/q/{n}/"  # moving on without answering is fine
    assert_shows_answer(client.get(f"/exam/{attempt.pk}/q/{n}/").content.decode(), answer)


def test_a_saved_answer_is_shown_again_but_never_the_key(client, bank):
    attempt = start_exam(client, count=60)
    r = attempt.responses.select_related("question").filter(question__kind="single").first()
    wrong = r.question.options.get(text="Option C")
    url = f"/exam/{attempt.pk}/q/{r.position}/"
    client.post(url, {"choice": wrong.key})
    html = client.get(url).content.decode()
    assert f'value="{wrong.key}" checked' in html
    assert "WHY-" not in html


def test_answers_after_the_deadline_are_refused_and_the_exam_submitted(client, bank):
    attempt = start_exam(client)
    r = attempt.responses.select_related("question").get(position=1)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = client.post(f"/exam/{attempt.pk}/q/1/", right_answer(r.question), follow=True)
    html = response.content.decode()
    assert "Time ran out" in html and "Your results" in html
    r.refresh_from_db()
    attempt.refresh_from_db()
    assert r.answered_at is None and attempt.is_submitted
    assert attempt.submitted_at <= attempt.deadline


def test_an_htmx_save_after_the_deadline_redirects_the_whole_page(client, bank):
    attempt = start_exam(client)
    r = attempt.responses.select_related("question").get(position=1)
    url = f"/exam/{attempt.pk}/q/1/"
    client.get(url)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    # The page was open before the deadline; the save arrives after it.
    response = client.post(url, right_answer(r.question), headers={"HX-Request": "true"})
    assert response["HX-Redirect"] == f"/exam/{attempt.pk}/results/"


def test_flagging_toggles_and_shows_in_the_navigator(client, bank):
    attempt = start_exam(client)
    client.post(f"/exam/{attempt.pk}/q/2/flag/")
    assert Response.objects.get(attempt=attempt, position=2).flagged
    html = client.get(f"/exam/{attempt.pk}/q/1/").content.decode()
    assert '2<span class="visually-hidden">, not answered, flagged' in html
    fragment = client.post(f"/exam/{attempt.pk}/q/2/flag/", headers={"HX-Request": "true"})
    assert 'aria-pressed="false"' in fragment.content.decode()
    assert not Response.objects.get(attempt=attempt, position=2).flagged


def test_the_summary_lists_unanswered_and_flagged(client, bank):
    attempt = start_exam(client)
    client.post(f"/exam/{attempt.pk}/q/3/flag/")
    html = client.get(f"/exam/{attempt.pk}/summary/").content.decode()
    assert "5 not answered, 1 flagged" in html


@pytest.mark.template_context  # reads response.context
def test_results_by_subtopic_family_and_a_filtered_review(client, bank):
    attempt = start_exam(client, count=60)
    rs = list(attempt.responses.select_related("question").order_by("position"))
    single = next(r for r in rs if r.question.kind == "single")
    wrong = single.question.options.get(text="Option B")
    client.post(f"/exam/{attempt.pk}/q/{single.position}/", {"choice": wrong.key})
    right = next(r for r in rs if r.question.kind == "truefalse")
    client.post(f"/exam/{attempt.pk}/q/{right.position}/", right_answer(right.question))
    client.post(f"/exam/{attempt.pk}/q/{right.position}/flag/")
    client.post(f"/exam/{attempt.pk}/submit/")
    page = client.get(f"/exam/{attempt.pk}/results/")
    html = page.content.decode()
    assert "2%</strong>" in html and "1.7%" not in html  # one way to write a share
    assert "1 right out of 60 (2 answered)" in html
    assert "Ending on the text</a></strong>" in html  # the trap in words, linked
    assert re.search(r"Offered in \d+ questions; you chose it 1 time\.", html)
    assert "of the 1 time" not in html
    assert "WHY-A-RIGHT" in html  # now earned: every option's why
    incorrect = client.get(f"/exam/{attempt.pk}/results/?show=incorrect").context["review"]
    assert [i["response"].position for i in incorrect] == [single.position]
    flagged = client.get(
        f"/exam/{attempt.pk}/results/?show=flagged", headers={"HX-Request": "true"}
    )
    assert flagged.content.decode().lstrip().startswith('<div id="review-list">')
    assert len(flagged.context["review"]) == 1


def test_results_before_submitting_go_to_the_summary(client, bank):
    attempt = start_exam(client)
    assert client.get(f"/exam/{attempt.pk}/results/")["Location"] == f"/exam/{attempt.pk}/summary/"


def test_retake_the_ones_i_missed(client, bank):
    attempt = start_exam(client)
    r = attempt.responses.select_related("question").get(position=1)
    client.post(f"/exam/{attempt.pk}/q/1/", right_answer(r.question))
    client.post(f"/exam/{attempt.pk}/submit/")
    response = client.post(f"/exam/{attempt.pk}/retake/")
    retake = Attempt.objects.latest("pk")
    assert response["Location"] == f"/practice/{retake.pk}/1/"  # practice, not a new exam
    assert retake.mode == "practice"
    assert retake.question_count == 4 and retake.retake_of == attempt
    assert r.question_id not in set(retake.responses.values_list("question_id", flat=True))


def test_submitting_twice_changes_nothing(client, bank):
    attempt = start_exam(client)
    client.post(f"/exam/{attempt.pk}/submit/")
    first = Attempt.objects.get(pk=attempt.pk).submitted_at
    client.post(f"/exam/{attempt.pk}/submit/")
    assert Attempt.objects.get(pk=attempt.pk).submitted_at == first


def test_a_submitted_exam_takes_no_more_answers(client, bank):
    attempt = start_exam(client)
    client.post(f"/exam/{attempt.pk}/submit/")
    r = attempt.responses.select_related("question").get(position=1)
    response = client.post(f"/exam/{attempt.pk}/q/1/", right_answer(r.question))
    assert response["Location"] == f"/exam/{attempt.pk}/results/"
    r.refresh_from_db()
    assert r.answered_at is None


@pytest.mark.parametrize("method", ["get", "post"])
def test_only_the_owner_reaches_an_exam(client, bank, learner, other_learner, method):
    client.force_login(learner)
    attempt = start_exam(client)
    client.force_login(other_learner)
    for url in (
        f"/exam/{attempt.pk}/q/1/",
        f"/exam/{attempt.pk}/summary/",
        f"/exam/{attempt.pk}/results/",
    ):
        assert getattr(client, method)(url).status_code in (404, 405)


def test_every_post_needs_a_csrf_token(bank):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    assert strict.post("/exam/", {"count": 5}).status_code == 403
    assert strict.post("/practice/", {"which": "all", "count": 5}).status_code == 403


def test_exam_pages_run_a_constant_number_of_queries(client, django_assert_num_queries):
    make_bank(500)
    attempt = start_exam(client, count=60)
    r = attempt.responses.select_related("question").get(position=7)
    url = f"/exam/{attempt.pk}/q/7/"
    # The first view of a question version reads its options once for the process
    # (quizzes/versioncache.py): session, response + attempt + question, options, navigator.
    with django_assert_num_queries(4):
        client.get(url)
    # From then on: session, response + attempt + question (one query), navigator.
    with django_assert_num_queries(3):
        client.get(url)
    answer = right_answer(r.question)
    # session, response + attempt + question, the answer's update: on SQLite one UPDATE that
    # checks the attempt is still open; elsewhere + the attempt's row lock (in the suite's outer
    # transaction the save's own transaction adds a SAVEPOINT and its RELEASE). The autosave
    # sends back only the navigator entry that changed.
    with django_assert_num_queries(3 if connection.vendor == "sqlite" else 6):
        assert "Saved at" in client.post(url, answer, headers={"HX-Request": "true"}).text
    assert Response.objects.get(pk=r.pk).is_correct is True  # stored, and graded
    client.post(f"/exam/{attempt.pk}/submit/")
    # session, attempt, responses + questions, options
    with django_assert_num_queries(4):
        assert client.get(f"/exam/{attempt.pk}/results/").status_code == 200


def test_an_attempt_number_beyond_the_column_or_of_another_mode_is_a_404(client, one_of_each):
    """The attempt's lookup is compiled once per process (core/owners.owned_object): an id no
    column can hold, a practice attempt asked for as an exam, or another browser's attempt is
    a 404 on each attempt page, never a 500."""
    from django.test import Client

    client.post("/exam/", {"count": 5})
    exam = Attempt.objects.get(mode="exam")
    client.post("/practice/", {"which": "all", "count": 5})
    practice = Attempt.objects.get(mode="practice")
    assert client.get(f"/exam/{exam.pk}/summary/").status_code == 200
    stranger = Client()
    stranger.get("/practice/")  # a browser of its own (a token once it has work)
    for page in ("summary/", "results/"):
        for pk in (2**40, 2**70, practice.pk):
            assert client.get(f"/exam/{pk}/{page}").status_code == 404
        assert stranger.get(f"/exam/{exam.pk}/{page}").status_code == 404
    assert client.get(f"/practice/{2**40}/done/").status_code == 404
