"""The exam and practice question pages from a kept shell (core/pageshell.py): byte for byte the
page the template engine renders, in every state; and what is kept holds nothing of any learner,
attempt or answer, never a correct answer, and never one language's words on another's page."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils.safestring import mark_safe

from core import pageshell
from core.owners import Owner
from quizzes import bank, schema, services
from quizzes.importing import question_to_bank
from quizzes.models import Attempt, Question, Response

from .i18n_content import copy_fixture

pytestmark = pytest.mark.django_db

PL_STEM = "Co pętla robi dalej?"
EN_STEM = "What does the loop do next?"


@pytest.fixture(autouse=True)
def fresh_shells(monkeypatch):
    pageshell.clear()
    # The timer ticks between two requests; everything else on the page must match exactly.
    monkeypatch.setattr(Attempt, "seconds_left", lambda self: 1234)
    yield
    pageshell.clear()


def _same_parts(html: str) -> str:
    """The page less what differs between any two requests: the masked CSRF token (new for
    every response) and the certainty field's signed shown-at stamp."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "CSRF", html)
    return re.sub(r'name="shown" value="[^"]+"', "STAMP", html)


def _both_ways(client, method: str, url: str, data=None, status: int = 200) -> str:
    """The page from the kept shell (twice: filling it, then from it) and from the engine
    alone; asserts they are the same and returns the page."""
    pages = []
    for enabled in (True, True, False):
        pageshell.enabled = enabled
        try:
            response = getattr(client, method)(url, data or {})
        finally:
            pageshell.enabled = True
        assert response.status_code == status, (url, response.status_code)
        pages.append(_same_parts(response.content.decode()))
    assert pages[0] == pages[1] == pages[2], url
    return pages[0]


def _exam(client) -> Attempt:
    """An exam of every question of the bank (fewer than the 20 asked for)."""
    assert client.post("/exam/", {"count": 20}).status_code == 302
    return Attempt.objects.filter(mode=Attempt.Mode.EXAM).latest("pk")


def _practice(client, count: int = 20) -> Attempt:
    assert client.post("/practice/", {"which": "all", "count": count}).status_code == 302
    attempt = Attempt.objects.filter(mode=Attempt.Mode.PRACTICE).latest("pk")
    client.get(f"/practice/{attempt.pk}/1/")  # shows (and so uses up) the "fewer than asked" note
    return attempt


def test_the_exam_page_is_the_same_kept_or_rendered_in_every_state(client, one_of_each, learner):
    client.force_login(learner)
    attempt = _exam(client)
    last = attempt.question_count
    url = f"/exam/{attempt.pk}/q/%d/"
    for n in (1, 2, last):  # first (no "previous"), middle, last ("save and review")
        assert "Not answered yet" in _both_ways(client, "get", url % n)
    single = attempt.responses.get(question__kind="single")
    key = single.question.options.first().key
    client.post(url % single.position, {"choice": key, "go": "next"})
    client.post(f"/exam/{attempt.pk}/q/{single.position}/flag/")
    page = _both_ways(client, "get", url % single.position)
    assert "Saved at" in page and 'aria-pressed="true"' in page and "checked" in page
    json_item = attempt.responses.get(question__kind="json")
    page = _both_ways(client, "post", url % json_item.position, {"text": "{not json"}, status=422)
    assert "Not saved:" in page and 'role="alert"' in page
    # In Polish, and with the question's English words on a Polish page.
    assert 'lang="pl"' in _both_ways(client, "get", f"/pl/exam/{attempt.pk}/q/1/")
    assert len(pageshell.kept_shells()) >= 5


def test_the_practice_page_is_the_same_kept_or_rendered_in_every_state(
    client, one_of_each, learner
):
    client.force_login(learner)
    attempt = _practice(client)
    url = f"/practice/{attempt.pk}/%d/"
    for n in range(1, attempt.question_count + 1):  # every kind's inputs, before an answer
        _both_ways(client, "get", url % n)
    single = attempt.responses.get(question__kind="single")
    key = single.question.options.first().key
    client.post(url % single.position, {"choice": key})
    page = _both_ways(client, "get", url % single.position)  # with its feedback, earned
    assert 'id="feedback"' in page
    json_item = attempt.responses.get(question__kind="json")
    page = _both_ways(client, "post", url % json_item.position, {"text": "{not json"})
    assert 'class="message error"' in page
    _both_ways(client, "get", f"/pl/practice/{attempt.pk}/1/")
    # An anonymous visitor's practice set (owned by a token in the session).
    anonymous = Client()
    mine = _practice(anonymous, 5)
    assert "Log in" in _both_ways(anonymous, "get", f"/practice/{mine.pk}/1/")
    page = _both_ways(anonymous, "get", f"/practice/{mine.pk}/2/?original=1&x=%3Cb%3E")
    assert f"next=/practice/{mine.pk}/2/%3Foriginal%3D1%26x%3D%253Cb%253E" in page


def test_a_page_with_messages_to_show_is_rendered_the_ordinary_way(client, one_of_each, learner):
    client.force_login(learner)
    response = client.post("/practice/", {"which": "all", "count": 40}, follow=True)
    # Fewer questions than asked: the page says so once, and the next page doesn't.
    assert response.status_code == 200 and 'class="message' in response.content.decode()
    again = client.get(response.request["PATH_INFO"]).content.decode()
    assert 'class="message' not in again
    assert not any('class="message' in shell for shell in pageshell.kept_shells())


def _secrets(attempt: Attempt) -> list[str]:
    """What a page may show only once earned: explanations and every option's why."""
    found = []
    for r in attempt.responses.select_related("question").prefetch_related("question__options"):
        found += [r.question.explanation_html, *(o.why_html for o in r.question.options.all())]
    return [s for s in found if s]


def test_two_learners_never_see_each_others_answers_names_or_attempts(
    client, one_of_each, learner, other_learner
):
    client.force_login(learner)
    mine = _exam(client)
    other = Client()
    other.force_login(other_learner)
    theirs = _exam(other)
    mine_single = mine.responses.get(question__kind="single")
    key = mine_single.question.options.first().key
    client.post(f"/exam/{mine.pk}/q/{mine_single.position}/", {"choice": key, "go": "next"})
    client.post(f"/exam/{mine.pk}/q/{mine_single.position}/flag/")
    assert "checked" in client.get(f"/exam/{mine.pk}/q/{mine_single.position}/").text
    their_single = theirs.responses.get(question__kind="single")  # the same question
    assert their_single.question_id == mine_single.question_id
    page = other.get(f"/exam/{theirs.pk}/q/{their_single.position}/").content.decode()
    assert "checked" not in page and "Saved at" not in page
    assert 'aria-pressed="false"' in page and ">other<" in page and ">learner<" not in page
    assert f"/exam/{mine.pk}/" not in page and f"/exam/{theirs.pk}/q/" in page
    tokens = set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page))
    secrets = _secrets(mine)  # read once: the pages change no question
    for shell in pageshell.kept_shells():
        assert "learner" not in shell and ">other<" not in shell and "checked" not in shell
        assert f"/exam/{mine.pk}/" not in shell and f"/exam/{theirs.pk}/" not in shell
        assert not any(t in shell for t in tokens)
        assert not any(s in shell for s in secrets)


def test_no_page_shows_a_correct_answer_before_it_is_earned(client, one_of_each, learner):
    client.force_login(learner)
    attempt = _practice(client)
    secrets = _secrets(attempt)
    single = attempt.responses.get(question__kind="single")
    url = f"/practice/{attempt.pk}/{single.position}/"
    before = client.get(url).content.decode()
    assert "is-correct" not in before and not any(s in before for s in secrets)
    for n in range(1, attempt.question_count + 1):
        page = client.get(f"/practice/{attempt.pk}/{n}/").content.decode()
        assert not any(s in page for s in secrets), n
    right = next(o.key for o in single.question.options.all() if o.correct)
    after = client.post(url, {"choice": right}).content.decode()
    assert single.question.explanation_html in after  # earned: the feedback shows
    exam = _exam(client)
    exam_secrets = _secrets(exam)  # read once: the pages change no question
    for n in range(1, exam.question_count + 1):  # an exam shows none until its results
        page = client.get(f"/exam/{exam.pk}/q/{n}/").content.decode()
        assert not any(s in page for s in exam_secrets), n
    for shell in pageshell.kept_shells():
        assert not any(s in shell for s in secrets + exam_secrets)


@pytest.fixture
def content(db, tmp_path, settings):
    settings.CONTENT_DIR = copy_fixture(tmp_path)
    call_command("loadcontent", stdout=StringIO(), stderr=StringIO())
    return settings.CONTENT_DIR


def test_a_language_switch_gives_that_languages_page(client, content, learner):
    client.force_login(learner)
    attempt = services.practice_start(owner=Owner(learner, ""), subtopics=[], which="all", count=2)
    n = Response.objects.get(attempt=attempt, question__slug="mini-exit").position
    english = client.get(f"/practice/{attempt.pk}/{n}/").content.decode()
    polish = client.get(f"/pl/practice/{attempt.pk}/{n}/").content.decode()
    again = client.get(f"/practice/{attempt.pk}/{n}/").content.decode()
    assert EN_STEM in english and '<html lang="en"' in english and "Check my answer" in english
    assert PL_STEM in polish and '<html lang="pl"' in polish and "Check my answer" not in polish
    assert EN_STEM not in polish and f'href="/pl/practice/{attempt.pk}/{n}/' in polish
    assert _same_parts(again) == _same_parts(english)
    original = client.get(f"/pl/practice/{attempt.pk}/{n}/?original=1").content.decode()
    assert EN_STEM in original and '<html lang="pl"' in original


def test_an_edited_question_shows_its_new_text(client, content, learner):
    client.force_login(learner)
    owner = Owner(learner, "")
    first = services.practice_start(owner=owner, subtopics=[], which="all", count=2)
    n = Response.objects.get(attempt=first, question__slug="mini-exit").position
    assert EN_STEM in client.get(f"/practice/{first.pk}/{n}/").content.decode()
    q = Question.objects.current().prefetch_related("options").get(slug="mini-exit")
    parsed = question_to_bank(q)
    parsed["stem"] = "What does the loop do now, after the edit?"
    checked, problems = schema.check_question(
        {k: v for k, v in parsed.items() if k != "data"}, "edit"
    )
    assert not problems, problems
    assert bank.save_question(checked, origin=Question.Origin.BROWSER).version == 2
    second = services.practice_start(owner=owner, subtopics=[], which="all", count=2)
    m = Response.objects.get(attempt=second, question__slug="mini-exit").position
    page = client.get(f"/practice/{second.pk}/{m}/").content.decode()
    assert "after the edit?" in page and EN_STEM not in page
    # The attempt that drew the first version keeps showing the words it was asked in.
    assert EN_STEM in client.get(f"/practice/{first.pk}/{n}/").content.decode()


def test_values_are_escaped_unless_safe_and_no_stand_in_is_left(rf, learner):
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.contrib.sessions.backends.db import SessionStore

    request = rf.get("/practice/1/1/")
    request.user, request.session = learner, SessionStore()
    request._messages = FallbackStorage(request)
    values = {
        "position": 1,
        "question_count": 3,
        "body_html": mark_safe("<p>kept <b>as is</b></p>"),
        "answer_html": '<script>alert("x")</script>',
        "report_box": "",
    }
    shape = {"shown_in": {"available": False, "original": False, "stale": False}}
    html = pageshell.render(
        request, "quizzes/practice_question.html", {}, shape=shape, values=values
    ).content.decode()
    assert "<p>kept <b>as is</b></p>" in html
    assert (
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html and "<script>alert" not in html
    )
    assert pageshell._HOLE not in html and ">learner<" in html


def test_a_ccaf_exam_page_with_its_brief_is_the_same_kept_or_rendered(client, learner):
    from .factories import load_real_bank

    load_real_bank()
    client.force_login(learner)
    assert client.post("/exam/", {"format": "ccaf", "per_scenario": 5}).status_code == 302
    attempt = Attempt.objects.get(user=learner)
    first = _both_ways(client, "get", f"/exam/{attempt.pk}/q/1/")  # the brief open
    assert "Scenario 1 of 4" in first and '<details class="scenario-brief" open' in first
    second = _both_ways(client, "get", f"/exam/{attempt.pk}/q/2/")  # the same scenario: folded
    assert '<details class="scenario-brief"  id' in second
    assert "Scenario 2 of 4" in _both_ways(client, "get", f"/exam/{attempt.pk}/q/6/")
