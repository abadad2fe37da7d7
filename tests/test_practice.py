"""Practice: choose a set, answer one question at a time, get the why of every option."""

import re

import pytest

from core.owners import get_owner
from quizzes.models import Attempt, Response
from quizzes.services import practice_start

from .answers import right_answer
from .factories import make_bank

pytestmark = pytest.mark.django_db


def start(client, **data):
    payload = {"which": "all", "count": 20, **data}
    return client.post("/practice/", payload)


def test_the_start_page_offers_subtopics_and_modes(client, one_of_each):
    html = client.get("/practice/").content.decode()
    assert "Not seen yet" in html and "Missed last time" in html
    assert 'value="tool-choice"' in html


def test_starting_practice_redirects_to_the_first_question(client, one_of_each):
    response = start(client)
    attempt = Attempt.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/practice/{attempt.pk}/1/"
    assert attempt.mode == "practice" and attempt.question_count == 8


def test_an_empty_selection_says_why_instead_of_failing(client, one_of_each):
    response = start(client, subtopics=["guards"])
    assert response.status_code == 200
    assert "No published questions match that selection" in response.content.decode()
    assert not Attempt.objects.exists()


def _question_at(attempt, kind):
    return Response.objects.select_related("question").get(attempt=attempt, question__kind=kind)


@pytest.mark.parametrize(
    "kind",
    ["single", "multiple", "truefalse", "ordering", "matching", "next_action", "json", "fix"],
)
def test_a_right_answer_is_marked_right_with_every_why(client, one_of_each, kind):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, kind)
    url = f"/practice/{attempt.pk}/{r.position}/"
    response = client.post(url, right_answer(r.question))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Right." in html
    for option in r.question.options.all():
        assert option.why_html in html
    r.refresh_from_db()
    assert r.is_correct and r.score == 1 and r.answered_at


def test_a_wrong_answer_shows_the_trap_and_the_right_option(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "single")
    wrong = r.question.options.get(text="Option B")
    html = client.post(f"/practice/{attempt.pk}/{r.position}/", {"choice": wrong.key}).content
    html = html.decode()
    assert (
        "Not quite." in html
        and "The trap: <strong>Ending on the text</strong>" in html
        and "/traps/#trap-ends-on-text" in html
    )
    assert "Right answer" in html and "WHY-A-RIGHT" in html
    r.refresh_from_db()
    assert r.families == ["ends-on-text"]


def test_htmx_gets_only_the_answer_area_and_a_plain_post_gets_the_page(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "single")
    url = f"/practice/{attempt.pk}/{r.position}/"
    fragment = client.post(url, right_answer(r.question), headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="answer-area">') and "<html" not in body
    full = client.get(url).content.decode()
    assert "<html" in full and "Right." in full  # the answered state survives a reload


def test_a_double_submit_keeps_the_first_answer(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "single")
    url = f"/practice/{attempt.pk}/{r.position}/"
    client.post(url, right_answer(r.question))
    wrong = r.question.options.get(text="Option C")
    client.post(url, {"choice": wrong.key})
    r.refresh_from_db()
    assert r.is_correct and Response.objects.filter(attempt=attempt).count() == 8


def test_invalid_json_is_sent_back_for_correction_not_marked(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "json")
    html = client.post(f"/practice/{attempt.pk}/{r.position}/", {"text": "{type: tool"}).content
    html = html.decode()
    assert "not valid JSON" in html and "{type: tool</textarea>" in html
    r.refresh_from_db()
    assert r.answered_at is None


def test_a_missing_answer_is_explained(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "ordering")
    html = client.post(f"/practice/{attempt.pk}/{r.position}/", {}).content.decode()
    assert "Give every step a position" in html


def test_another_browser_cannot_open_my_attempt(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    client.cookies.clear()
    assert client.get(f"/practice/{attempt.pk}/1/").status_code == 404


def test_other_learners_cannot_open_my_attempt(client, one_of_each, learner, other_learner):
    client.force_login(learner)
    start(client)
    attempt = Attempt.objects.get()
    client.force_login(other_learner)
    assert client.get(f"/practice/{attempt.pk}/1/").status_code == 404
    assert client.post(f"/practice/{attempt.pk}/1/", {"choice": "x"}).status_code == 404


def test_missed_last_time_serves_only_what_i_got_wrong(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "single")
    wrong = r.question.options.get(text="Option B")
    client.post(f"/practice/{attempt.pk}/{r.position}/", {"choice": wrong.key})
    right = _question_at(attempt, "truefalse")
    client.post(f"/practice/{attempt.pk}/{right.position}/", right_answer(right.question))
    start(client, which="missed")
    latest = Attempt.objects.latest("pk")
    assert list(latest.responses.values_list("question__slug", flat=True)) == ["t-single"]


def test_not_seen_yet_skips_what_i_answered(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "single")
    client.post(f"/practice/{attempt.pk}/{r.position}/", right_answer(r.question))
    start(client, which="unseen")
    latest = Attempt.objects.latest("pk")
    assert "t-single" not in set(latest.responses.values_list("question__slug", flat=True))
    assert latest.question_count == 7


def test_the_done_page_summarises_the_set(client, one_of_each):
    start(client)
    attempt = Attempt.objects.get()
    r = _question_at(attempt, "single")
    client.post(f"/practice/{attempt.pk}/{r.position}/", right_answer(r.question))
    html = client.get(f"/practice/{attempt.pk}/done/").content.decode()
    assert "You answered 1 of 8 questions, scoring 100%" in html


def test_question_and_answer_queries_do_not_grow_with_the_bank(client, django_assert_num_queries):
    make_bank(500)
    client.get("/")  # a session exists from here on
    start(client, count=20)
    attempt = Attempt.objects.get()
    r = attempt.responses.select_related("question").get(position=3)
    url = f"/practice/{attempt.pk}/3/"
    # session, response + attempt + question, the options once per question version
    # (quizzes/versioncache.py): the bank's size never matters.
    with django_assert_num_queries(3):
        assert client.get(url).status_code == 200
    with django_assert_num_queries(2):
        assert client.get(url).status_code == 200
    answer = right_answer(r.question)
    # session, response + attempt + question, the update and the concept's review (progress:
    # card + retention in one read, the new card, the log)
    with django_assert_num_queries(6):
        assert client.post(url, answer).status_code == 200


def test_the_owner_moves_to_the_account_at_login(client, one_of_each, learner):
    start(client)
    attempt = Attempt.objects.get()
    assert attempt.user is None and attempt.owner_token
    client.post("/accounts/login/", {"username": "learner", "password": "pw-learner-123"})
    attempt.refresh_from_db()
    assert attempt.user == learner
    assert client.get(f"/practice/{attempt.pk}/1/").status_code == 200


def test_signing_up_claims_the_anonymous_work(client, one_of_each, django_user_model):
    start(client)
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "password1": "a-long-pass-phrase-42",
            "password2": "a-long-pass-phrase-42",
        },
    )
    assert response.status_code == 302
    assert Attempt.objects.get().user == django_user_model.objects.get(username="newbie")


def test_signup_errors_are_shown_in_words(client, db):
    html = client.post(
        "/accounts/signup/", {"username": "x", "password1": "a", "password2": "b"}
    ).content.decode()
    assert "password fields didn" in html


def test_get_owner_reuses_the_session_token(rf, db):
    from django.contrib.auth.models import AnonymousUser
    from django.contrib.sessions.backends.db import SessionStore

    request = rf.get("/")
    request.user, request.session = AnonymousUser(), SessionStore()
    token = get_owner(request).token
    assert token and get_owner(request).token == token
    assert re.fullmatch(r"[\w-]{32}", token)


def test_practice_start_service_seeds_attempts(one_of_each):
    from core.owners import Owner

    a = practice_start(owner=Owner(None, "tok"), subtopics=[], which="all", count=5)
    assert a.question_count == 5 and a.responses.count() == 5


def test_the_traps_page_explains_every_family(client, db):
    from quizzes.schema import FAMILIES

    html = client.get("/traps/").content.decode()
    for name in FAMILIES:
        assert f"<code>{name}</code>" in html


def test_the_today_line_shows_only_after_answering_and_comes_from_the_catalogue(client):
    import textwrap

    from quizzes import bank, schema

    from .factories import question_yaml

    text = "questions:\n" + question_yaml("single").replace(
        "    stem:", "    today: forced-tool-choice\n    stem:", 1
    )
    question = bank.save_question(schema.parse_text(textwrap.dedent(text)).questions[0])
    start(client)
    attempt = Attempt.objects.get()
    url = f"/practice/{attempt.pk}/1/"
    before = client.get(url).content.decode()
    assert "On today&#x27;s models" not in before and "The exam vs today" not in before
    right = next(o.key for o in question.options.all() if o.correct)
    after = client.post(url, {"choice": right}).content.decode()
    assert "keyed to the exam's answer" in after
    assert "On today&#x27;s models: claude-opus-5-5, claude-sonnet-5-5: 400 error" in after
    assert 'href="/notes/changes/#forced-tool-choice"' in after


@pytest.mark.parametrize("lang", ["en", "pl", "zh-hans"])
def test_the_inputs_written_without_the_wrapper_are_the_wrappers(lang):
    """quizzes/views._inputs_html renders a kind's input template on its own: the same HTML as
    quizzes/_inputs.html's include, for every kind, unanswered and answered (right or wrong),
    enabled and disabled, with an error, in each language, and escaped the same."""
    from django.db.models import prefetch_related_objects
    from django.template.loader import render_to_string
    from django.utils import translation
    from django.utils.safestring import SafeString

    from quizzes import grading, presentation, views

    from .answers import right_answer
    from .factories import ALL_KIND_BODIES, new_questions

    checked = 0
    questions = new_questions(
        [(kind, f"inputs-{kind}", "stop-reasons") for kind in ALL_KIND_BODIES]
    )
    prefetch_related_objects(questions, "options")  # as the pages read them (versioncache)
    with translation.override(lang):
        for kind, question in zip(ALL_KIND_BODIES, questions, strict=True):
            spec = question.grading_spec()
            answers = [None, {"text": "<b>x</b> & 'y'"}]
            typed = {"numerical": {"text": "7"}, "essay": {"text": "an <i>essay</i>"},
                     "short_answer": {"text": "a <b>word</b>"}}  # fmt: skip
            answers.append(grading.parse_answer(spec, typed.get(kind) or right_answer(question)))
            for answer in answers:
                form_ctx = presentation.present(question, 12345, answer)  # seeded: the same
                for disabled in (False, True):
                    for error in ("", "<script>bad</script>"):
                        ctx = {
                            "question": question,
                            "form_ctx": form_ctx,
                            "disabled": disabled,
                            "error": error,
                            "csrf_token": "tok",
                        }
                        got = views._inputs_html(ctx)
                        assert isinstance(got, SafeString)
                        assert got == render_to_string("quizzes/_inputs.html", ctx), kind
                        checked += 1
    assert checked == len(ALL_KIND_BODIES) * 3 * 2 * 2
    nothing = {"form_ctx": {}, "disabled": False}
    assert views._inputs_html(nothing) == render_to_string("quizzes/_inputs.html", nothing)
