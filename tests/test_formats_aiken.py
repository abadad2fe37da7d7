"""Aiken import (issue 13): what many question writers use."""

import pytest

from quizzes import importing
from quizzes.formats import Defaults, aiken, detect
from quizzes.models import Question

AIKEN = """What does the loop do after stop_reason end_turn?
A. Call the API again with the same messages
B) Finish and use the answer
C. Retry with a larger max_tokens
ANSWER: B

Which value means a server tool paused a long turn?
A. pause_turn
B. tool_use
C. refusal
D. max_tokens
ANSWER: A
"""


def test_aiken_reads_each_question_with_its_right_letter():
    assert detect(AIKEN) == "aiken"
    parsed = aiken.parse(AIKEN)
    assert parsed.errors == []
    first, second = parsed.questions
    assert first.text == "What does the loop do after stop_reason end_turn?"
    assert [(a.text, a.fraction) for a in first.answers] == [
        ("Call the API again with the same messages", 0.0),
        ("Finish and use the answer", 1.0),
        ("Retry with a larger max_tokens", 0.0),
    ]
    assert (second.where, second.answers[0].fraction) == ("line 7", 1.0)


@pytest.mark.parametrize(
    "text, message",
    [
        ("Q?\nA. a\nB. b\n", "no ANSWER: line"),
        ("Q?\nA. a\nB. b\nANSWER: E\n", "names none of the choices"),
        ("Q?\nA. a\nANSWER: A\n", "at least 2 choices"),
    ],
)
def test_broken_aiken_is_named_with_its_line(text, message):
    parsed = aiken.parse(text)
    assert parsed.questions == [] and message in parsed.errors[0].message
    assert parsed.errors[0].where == "line 1"


@pytest.mark.django_db
def test_aiken_imports_as_single_choice_drafts():
    d = Defaults("stop-reasons", "stop-reasons#max-tokens", "https://example.com/doc")
    preview = importing.import_preview(AIKEN, "auto", d)
    assert preview.format == "aiken" and preview.errors == []
    importing.import_apply(preview)
    q = Question.objects.current().get(slug="which-value-means-a-server-tool-paused-a-long-turn")
    assert (q.kind, q.status) == ("single", "draft")
    assert q.options.get(correct=True).text == "pause_turn"
