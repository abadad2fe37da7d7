"""Authored Markdown cannot set ids or classes, so it cannot take over the page's own targets."""

import re

import pytest

from core.rendering import render_inline, render_markdown
from quizzes.models import Attempt, Question
from tests.factories import make_question

HOSTILE = [
    "A stem {#save-status}",
    "A paragraph\n{: #navigator .visually-hidden }",
    "## A heading {#navigator}",
    "```{#save-status .navigator}\ncode\n```",
    "*text*{: .btn #flag }",
    '!!! navigator "Title"\n    body',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_authored_markdown_has_no_ids_and_only_generated_classes(text):
    html = render_markdown(text).html + render_inline(text)
    assert "id=" not in html
    classes = set(" ".join(re.findall(r'class="([^"]*)"', html)).split())
    assert not classes & {"navigator", "visually-hidden", "btn", "save-status"}


def test_the_shipped_notes_still_set_their_heading_ids():
    html = render_markdown("## Signatures {#signatures}", trusted=True, toc=True).html
    assert '<h2 id="signatures">' in html


def test_code_highlighting_and_admonitions_keep_their_classes():
    html = render_markdown('!!! note "Mind"\n    x\n\n```python\nx = 1\n```').html
    assert 'class="admonition note"' in html and 'class="highlight"' in html


@pytest.mark.django_db
def test_a_hostile_stem_leaves_the_exam_page_one_save_status_and_one_navigator(client):
    question = make_question("single")
    from quizzes import bank

    stem = "Which? {#save-status}\n\n## x {#navigator}"
    Question.objects.filter(pk=question.pk).update(stem=stem, stem_html=render_markdown(stem).html)
    client.post("/exam/", {"count": 5})
    attempt = Attempt.objects.get()
    html = client.get(f"/exam/{attempt.pk}/q/1/").content.decode()
    assert html.count('id="save-status"') == 1
    assert html.count('id="navigator"') <= 1
    assert bank  # the bank renders stems with this same function
