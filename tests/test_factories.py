"""The test factories' shortcut: a question filled into a parsed copy equals a real parse."""

import textwrap

import pytest

from quizzes import schema

from .factories import KIND_BODIES, parse_question, question_yaml


@pytest.mark.parametrize("kind", KIND_BODIES)
def test_a_filled_in_copy_equals_parsing_the_yaml(kind):
    real = schema.parse_text(textwrap.dedent("questions:\n" + question_yaml(kind, "b-7", "guards")))
    assert not real.problems
    assert parse_question(kind, "b-7", "guards") == real.questions[0]
