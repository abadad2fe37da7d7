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
