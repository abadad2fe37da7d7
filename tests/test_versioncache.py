"""What signed-in question pages keep between requests (quizzes/versioncache.py): only what a
question version shows every learner alike, never an answer before it is earned, never one
learner's page, token or work; and those pages never come from the shared page cache."""

import re

import pytest
from django.test import Client

from quizzes import versioncache
from quizzes.models import Attempt, Question

pytestmark = pytest.mark.django_db

CHOICE_KINDS = ("single", "multiple", "truefalse", "next_action")


def _practice(client) -> Attempt:
    client.post("/practice/", {"which": "all", "count": 20})
    return Attempt.objects.latest("pk")


def _csrf(html: str) -> set[str]:
    return set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html))


def test_the_kept_fragments_hold_no_answer_token_or_learner(client, one_of_each, learner):
    versioncache.clear()
    client.force_login(learner)
    attempt = _practice(client)
    pages = [client.get(f"/practice/{attempt.pk}/{n}/") for n in range(1, 9)]
    assert all(p.status_code == 200 for p in pages)
    kept = versioncache.kept_fragments()
    assert len(kept) >= 8  # a body and a report box per question seen
    secrets_of_the_bank = []
    for q in Question.objects.prefetch_related("options"):
        secrets_of_the_bank += [q.explanation_html, *(o.why_html for o in q.options.all())]
        if q.kind in CHOICE_KINDS:  # which option is right shows in no kept fragment
            secrets_of_the_bank += [o.text_html for o in q.options.all()]
    tokens = set().union(*(_csrf(p.text) for p in pages))
    assert tokens
    for html in kept:
        assert not any(s and s in html for s in secrets_of_the_bank)
        assert not any(t in html for t in tokens)
        assert "learner" not in html and f"/practice/{attempt.pk}/" not in html
        assert "is-correct" not in html and "Correct" not in html


def test_a_kept_report_box_carries_each_visitors_own_token_and_path(
    client, one_of_each, learner, other_learner
):
    client.force_login(learner)
    mine = _practice(client)
    other = Client()
    other.force_login(other_learner)
    theirs = _practice(other)
    first = client.get(f"/practice/{mine.pk}/1/").text
    same_question = next(
        n
        for n in range(1, 9)
        if theirs.responses.get(position=n).question_id
        == mine.responses.get(position=1).question_id
    )
    second = other.get(f"/practice/{theirs.pk}/{same_question}/").text
    box = re.compile(r'<div class="report-problem".*?</div>', re.S)
    mine_box, their_box = box.search(first).group(0), box.search(second).group(0)
    assert f'name="next" value="/practice/{mine.pk}/1/"' in mine_box
    assert f'name="next" value="/practice/{theirs.pk}/{same_question}/"' in their_box
    assert _csrf(mine_box) and _csrf(their_box) and not _csrf(mine_box) & _csrf(their_box)
    assert versioncache.CSRF_HOLE not in first + second
    assert versioncache.PATH_HOLE not in first + second


def test_signed_in_question_pages_are_never_served_from_the_shared_page_cache(
    client, one_of_each, learner, other_learner, settings
):
    settings.PAGE_CACHE_SECONDS = 300
    client.force_login(learner)
    practice = _practice(client)
    exam_start = client.post("/exam/", {"count": 5})
    exam = Attempt.objects.latest("pk")
    assert exam_start.status_code == 302
    urls = [f"/practice/{practice.pk}/1/", f"/exam/{exam.pk}/q/1/"]
    for url in urls:
        for _ in range(2):
            page = client.get(url)
            assert page.status_code == 200
            assert "X-Page-Cache" not in page.headers, url
            assert "public" not in page.headers.get("Cache-Control", ""), url
            assert ">learner<" in page.text
    # Someone else asking for the same URLs gets nothing of it, signed in or not.
    other = Client()
    other.force_login(other_learner)
    for visitor in (other, Client()):
        for url in urls:
            response = visitor.get(url)
            assert response.status_code == 404, url
            assert ">learner<" not in response.text


def test_a_content_reload_renders_the_kept_parts_again(client, one_of_each, learner):
    from studyapp.pagecache import bump_content_version

    client.force_login(learner)
    attempt = _practice(client)
    url = f"/practice/{attempt.pk}/1/"
    question = attempt.responses.get(position=1).question
    assert question.stem_html in client.get(url).text
    # What a reload may change without a new version (a translation, say): the next page has it.
    Question.objects.filter(pk=question.pk).update(stem_html="<p>Reworded after a reload.</p>")
    bump_content_version()
    assert "Reworded after a reload." in client.get(url).text
