"""Defects seen by candidates (issue 14): each test failed before its fix."""

import re

import pytest

from quizzes import presentation
from quizzes.models import Attempt

from .answers import right_answer
from .factories import make_bank

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank(db):
    return make_bank(24)


def _exam(client, count=5):
    assert client.post("/exam/", {"count": count}).status_code == 302
    return Attempt.objects.latest("pk")


def _practice(client, **data):
    data = {"which": "all", "count": 5, **data}
    response = client.post("/practice/", data)
    assert response.status_code == 302, response.content
    return Attempt.objects.latest("pk")


@pytest.mark.template_context  # reads response.context
def test_a_retake_is_practice_and_never_listed_or_charted_as_an_exam(client, bank, learner):
    client.force_login(learner)
    exam = _exam(client)
    client.post(f"/exam/{exam.pk}/submit/")
    client.post(f"/exam/{exam.pk}/retake/")
    retake = Attempt.objects.latest("pk")
    assert retake.mode == Attempt.Mode.PRACTICE and retake.deadline is None
    for r in retake.responses.select_related("question"):
        client.post(f"/practice/{retake.pk}/{r.position}/", right_answer(r.question))
    me = client.get("/me/")
    assert [e["id"] for e in me.context["exams"]] == [exam.pk]  # only the real exam
    assert "Exam 2" not in me.content.decode()
    past = client.get("/exam/").context["past"]
    assert [a.pk for a in past] == [exam.pk]


@pytest.mark.template_context  # reads response.context
def test_an_old_exam_mode_retake_is_not_counted_either(client, bank, learner):
    client.force_login(learner)
    exam = _exam(client)
    client.post(f"/exam/{exam.pk}/submit/")
    old = _exam(client)
    Attempt.objects.filter(pk=old.pk).update(retake_of=exam)
    client.post(f"/exam/{old.pk}/submit/")
    assert [e["id"] for e in client.get("/me/").context["exams"]] == [exam.pk]


def test_the_practice_summary_shows_each_question_and_tells_skipped_from_not_reached(client, bank):
    attempt = _practice(client)
    second = attempt.responses.select_related("question").get(position=2)
    client.post(f"/practice/{attempt.pk}/2/", right_answer(second.question))
    html = client.get(f"/practice/{attempt.pk}/done/").content.decode()
    assert f"Question 2: Stem of {second.question.slug}" in html
    assert html.count("skipped") == 1  # question 1 was passed over
    assert html.count("not reached") == 3  # 3, 4 and 5 were never reached


def test_asking_for_more_unseen_questions_than_exist_says_so(client, bank):
    seen = _practice(client, count=20)
    for r in seen.responses.select_related("question"):
        client.post(f"/practice/{seen.pk}/{r.position}/", right_answer(r.question))
    response = client.post("/practice/", {"which": "unseen", "count": 20}, follow=True)
    html = response.content.decode()
    assert "You asked for 20 unseen questions; only 4 are available, so this set has 4." in html


def test_practice_offers_the_sizes_candidates_ask_for(client, db):
    html = client.get("/practice/").content.decode()
    for n in (5, 10, 15, 20, 40):
        assert f'<option value="{n}"' in html


@pytest.mark.template_context  # reads response.context
def test_feedback_lists_the_options_in_the_order_the_question_showed_them(client, bank):
    attempt = _practice(client, count=40)
    r = next(r for r in attempt.responses.select_related("question") if r.question.kind == "single")
    url = f"/practice/{attempt.pk}/{r.position}/"
    shown = [c["html"] for c in client.get(url).context["form_ctx"]["choices"]]
    after = client.post(url, right_answer(r.question)).context["fb"]["options"]
    assert [o["html"] for o in after] == shown
    stored = [o.text_html for o in r.question.options.all()]
    assert [o["html"] for o in presentation.feedback(r.question, {}, None)["options"]] == stored


def test_feedback_names_sources_by_title_and_links_the_note_and_the_subtopic(client, bank):
    attempt = _practice(client)
    r = attempt.responses.select_related("question").get(position=1)
    html = client.post(f"/practice/{attempt.pk}/1/", right_answer(r.question)).content.decode()
    assert "source 1" not in html
    assert ">Claude docs: Stop reasons</a>" in html
    assert "Read the note on this</a>" in html
    assert f'href="/practice/?subtopic={r.question.subtopic}"' in html


def test_the_practise_this_subtopic_link_preselects_it(client, bank):
    html = client.get("/practice/?subtopic=context").content.decode()
    assert re.search(r'value="context"[^>]*checked', html)
    client.get("/practice/?subtopic=<script>")  # an unknown subtopic is ignored, no error


def test_focus_goes_to_the_verdict_not_past_it(client, bank):
    attempt = _practice(client)
    r = attempt.responses.select_related("question").get(position=1)
    html = client.post(f"/practice/{attempt.pk}/1/", right_answer(r.question)).content.decode()
    assert re.search(r'<p class="verdict"[^>]*tabindex="-1"[^>]* autofocus>', html)
    assert html.count("autofocus") == 1


def test_the_review_before_submit_is_a_table_of_every_question(client, bank):
    attempt = _exam(client, count=5)
    client.post(f"/exam/{attempt.pk}/q/2/flag/")
    html = client.get(f"/exam/{attempt.pk}/summary/").content.decode()
    table = html[html.index('id="summary-table"') :]
    assert table.count("<tr") == 6  # a header and one row per question
    for n in range(1, 6):
        assert f'href="/exam/{attempt.pk}/q/{n}/"' in table
    assert table.count("Not answered") == 5 and table.count("Flagged") == 1


def test_during_an_exam_the_navigation_highlights_exam(client, bank):
    attempt = _exam(client)
    html = client.get(f"/exam/{attempt.pk}/q/1/").content.decode()
    assert '<a href="/exam/" aria-current="page">Exam</a>' in html
    assert '<a href="/practice/" aria-current="page">' not in html


def test_without_javascript_the_timer_reads_minutes_and_seconds(client, bank):
    attempt = _exam(client, count=5)  # 10 minutes
    html = client.get(f"/exam/{attempt.pk}/q/1/").content.decode()
    value = re.search(r'<strong class="timer-value">([^<]*)</strong>', html).group(1)
    assert re.fullmatch(r"(10:00|9:5\d)", value), value
    assert " s</strong>" not in html


def test_signup_returns_to_the_page_the_learner_was_on(client, db):
    page = client.get("/accounts/signup/?next=/me/").content.decode()
    assert 'name="next" value="/me/"' in page
    response = client.post(
        "/accounts/signup/",
        {"username": "newbie", "password1": "a-long-pass-42!", "password2": "a-long-pass-42!",
         "next": "/me/"},
    )  # fmt: skip
    assert response["Location"] == "/me/"
    evil = client.get("/accounts/signup/?next=https://evil.example/").content.decode()
    assert "evil.example" not in evil


def test_the_me_page_links_sign_up_back_to_itself(client, bank):
    _practice(client)
    assert 'href="/accounts/signup/?next=/me/"' in client.get("/me/").content.decode()


def test_question_text_in_summaries_reads_as_plain_text(client, db):
    from .factories import make_question

    q = make_question("single", "quoted")
    q.stem_html = "<p>Use <code>&quot;end_turn&quot;</code> &amp; stop</p>"
    q.save()
    attempt = _practice(client)
    html = client.get(f"/practice/{attempt.pk}/done/").content.decode()
    assert "Question 1: Use &quot;end_turn&quot; &amp; stop" in html  # escaped once, no tags
    assert "&amp;quot;" not in html and "<code>" not in html.split("summary-list")[1]
