"""Fuzzed answers, editor fields and YAML imports: a message in words every time, never a 500.

The Django test client raises any exception a view lets through, so Hypothesis shrinks straight
to the input that broke a page.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from authoring import services as author_services
from quizzes.models import Attempt, Question
from studyapp.agentloop import bounded
from tests.editor import edit_url, form_data
from tests.factories import make_question
from tests.fuzzing import fuzz as _fuzz
from tests.imports import preview_in_words

pytestmark = pytest.mark.django_db


def fuzz(examples: int):
    return _fuzz(examples, derandomize=True)


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)
JSON_BITS = ["{", "}", "[", "]", '"', ":", ",", '"type"', '"a"', "1" * 60, "NaN", "-Infinity",
             "1e999", "\\", "\\u0000", "true", "null", '{"role": "user", "content": "x"}',
             '"type": "tool"', '{"type": "auto", "type": "any"}']  # fmt: skip
json_texts = st.one_of(
    values.map(lambda v: json.dumps(v, allow_nan=True)),
    st.integers(1, 2500).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 1500).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.lists(st.sampled_from(JSON_BITS) | st.text(max_size=4), max_size=50).map("".join),
    st.integers(100, 6000).map(lambda n: "[" + "1" * n + "]"),
)

_CLIENTS: dict[str, Client] = {}


def _client(name: str) -> Client:
    if name not in _CLIENTS:
        _CLIENTS[name] = Client()
    return _CLIENTS[name]


def _exam(client: Client) -> Attempt:
    """One open exam over a JSON and a fix question, reused by every example."""
    if not Question.objects.filter(slug="fz-json").exists():
        make_question("json", slug="fz-json")
        make_question("fix", slug="fz-fix")
    attempt = Attempt.objects.filter(mode="exam", submitted_at=None).first()
    if attempt is None:
        assert client.post("/exam/", {"count": 5}).status_code == 302
        attempt = Attempt.objects.get(mode="exam", submitted_at=None)
    return attempt


@fuzz(150)
@given(text=json_texts, position=st.sampled_from([1, 2]), htmx=st.booleans())
def test_fuzzed_json_and_fix_answers_in_the_exam_never_crash(text, position, htmx):
    client = _client("exam")
    attempt = _exam(client)
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.post(f"/exam/{attempt.pk}/q/{position}/", {"text": text}, headers=headers)
    assert response.status_code in (200, 302, 422), response.status_code
    if response.status_code == 422:
        assert "Not saved:" in response.content.decode()


@fuzz(100)
@given(text=json_texts)
def test_fuzzed_answers_in_practice_never_crash(text):
    client = _client("practice")
    if not Question.objects.filter(slug="fz-json").exists():
        make_question("json", slug="fz-json")
        make_question("fix", slug="fz-fix")
    assert client.post("/practice/", {"which": "all", "count": 5}).status_code == 302
    attempt = Attempt.objects.filter(mode="practice").latest("pk")
    for position in (1, 2):
        response = client.post(f"/practice/{attempt.pk}/{position}/", {"text": text})
        assert response.status_code == 200


@fuzz(100)
@given(field=st.sampled_from(["response", "messages", "sample_fix"]), text=json_texts)
def test_fuzzed_editor_json_fields_never_crash(field, text):
    client = _client("author")
    user = client.session.get("_auth_user_id")
    if user is None or not Question.objects.filter(slug="fz-next").exists():
        from django.contrib.auth import get_user_model

        teacher, _ = get_user_model().objects.get_or_create(username="fz-teach")
        teacher.groups.add(Group.objects.get(name="Instructors"))
        client.force_login(teacher)
        make_question("next_action", slug="fz-next")
        make_question("fix", slug="fz-fix-edit")
    slug = "fz-next" if field == "response" else "fz-fix-edit"
    question = Question.objects.current().get(slug=slug)
    data = form_data(author_services.question_parsed(question), **{field: text})
    response = client.post(edit_url(slug), data)
    assert response.status_code in (200, 302, 422), response.status_code


YAML_BITS = ["questions:", "\n", "  ", "- ", "&a ", "*a", "<<: *a", "[", "]", "{", "}", ": ",
             "slug: s", "kind: single", "!!python/object:os.system", "!!binary", "'", '"',
             "#", "---", "...", "? ", "|", ">", "1" * 120, "2026-13-45", "~"]  # fmt: skip


@fuzz(200)
@given(
    st.lists(st.sampled_from(YAML_BITS) | st.text(max_size=6), max_size=60).map("".join)
    | st.integers(1, 1200).map(lambda n: "questions:\n" + "- [" * n)
)
def test_fuzzed_yaml_imports_never_crash(text):
    preview_in_words(text, "yaml")
    preview_in_words(text, "auto")


@fuzz(200)
@given(text=json_texts | st.text(max_size=200))
def test_the_bounded_parser_raises_only_limit_errors(text):
    for limits in (bounded.JSON_ANSWER, bounded.UPLOAD):
        try:
            bounded.loads_json(text, limits)
        except bounded.LimitError as e:
            assert e.limit and str(e)
    try:
        bounded.load_yaml(text)
    except bounded.LimitError as e:
        assert e.limit and str(e)
    except Exception as e:  # a syntax error: yaml's own, with its mark, for the caller
        import yaml

        assert isinstance(e, yaml.YAMLError), type(e)
