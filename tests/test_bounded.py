"""The bounded parser: every JSON and YAML the site reads, within limits that name themselves."""

from __future__ import annotations

import json

import pytest

from authoring import services as author_services
from quizzes.models import Attempt
from studyapp.agentloop import bounded
from tests.editor import edit_url, form_data
from tests.factories import make_question

DEEP_ANSWER = "[" * 942 + "]" * 942  # 1,884 characters, under the answer's 5,000 limit
ALIAS_BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "questions: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
)


def deep_yaml(levels: int = 990) -> str:
    return "questions:\n" + "".join("  " * i + "- \n" for i in range(1, levels + 1))


# --- the parser itself ------------------------------------------------------------------------


def test_json_deeper_than_the_limit_is_refused_before_parsing():
    with pytest.raises(bounded.LimitError) as e:
        bounded.loads_json(DEEP_ANSWER, bounded.JSON_ANSWER)
    assert e.value.limit == "depth"
    assert "nested more than 32 levels deep" in str(e.value)


def test_brackets_inside_strings_do_not_count_towards_the_depth():
    text = json.dumps({"text": "[" * 5000})
    assert bounded.loads_json(text, bounded.UPLOAD) == {"text": "[" * 5000}


def test_duplicate_json_keys_are_refused_by_name():
    with pytest.raises(bounded.LimitError, match='the key "type" twice') as e:
        bounded.loads_json('{"type": "auto", "type": "any"}')
    assert e.value.limit == "duplicate-key"


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("[" + ",".join(["1"] * 6000) + "]", "count"),
        ("x" * 30_000, "size"),
        ("[NaN]", "syntax"),
        (b"\xff\xfe", "encoding"),
        ('{"a": ', "syntax"),
    ],
)
def test_every_refusal_names_its_limit(text, limit):
    with pytest.raises(bounded.LimitError) as e:
        bounded.loads_json(text, bounded.JSON_ANSWER)
    assert e.value.limit == limit


def test_an_alias_bomb_is_refused_at_its_first_anchor():
    assert len(ALIAS_BOMB) < 700
    with pytest.raises(bounded.LimitError, match=r"anchor \(&a\) at line 1") as e:
        bounded.load_yaml(ALIAS_BOMB)
    assert e.value.limit == "alias"


def test_deep_yaml_is_refused_while_composing():
    with pytest.raises(bounded.LimitError, match="nested more than 48 levels") as e:
        bounded.load_yaml(deep_yaml())
    assert e.value.limit == "depth"
    flow = "x: " + "[" * 990 + "]" * 990
    with pytest.raises(bounded.LimitError, match="nested more than"):
        bounded.load_yaml(flow)


def test_yaml_node_count_and_duplicate_keys_are_bounded():
    with pytest.raises(bounded.LimitError) as e:
        bounded.load_yaml("[" + ", ".join(["1"] * 50) + "]", bounded.IMPORT.but(max_values=20))
    assert e.value.limit == "count"
    with pytest.raises(bounded.LimitError, match="key 'slug' twice") as e:
        bounded.load_yaml("slug: a\nkind: single\nslug: b\n")
    assert e.value.line == 3


def test_check_tree_bounds_values_already_parsed_without_recursion():
    value: list = []
    for _ in range(5000):
        value = [value]
    with pytest.raises(bounded.LimitError) as e:
        bounded.check_tree(value, bounded.UPLOAD)
    assert e.value.limit == "depth"


# --- every reader goes through it: no 500 anywhere ----------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["json", "fix"])
def test_a_deeply_nested_answer_in_practice_is_a_message_for_an_anonymous_visitor(client, kind):
    make_question(kind)
    assert client.post("/practice/", {"which": "all", "count": 5}).status_code == 302
    attempt = Attempt.objects.get()
    response = client.post(f"/practice/{attempt.pk}/1/", {"text": DEEP_ANSWER})
    assert response.status_code == 200
    assert "nested more than 32 levels deep" in response.content.decode()
    assert not attempt.responses.get().answered  # not marked: the candidate can fix it


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["json", "fix"])
def test_a_deeply_nested_answer_in_the_exam_is_not_saved_and_says_why(client, kind):
    make_question(kind)
    assert client.post("/exam/", {"count": 5}).status_code == 302
    attempt = Attempt.objects.get()
    response = client.post(f"/exam/{attempt.pk}/q/1/", {"text": DEEP_ANSWER})
    assert response.status_code == 422
    assert "Not saved: Your answer is nested more than 32 levels" in response.content.decode()


@pytest.mark.django_db
def test_duplicate_keys_in_an_answer_are_named(client):
    make_question("json")
    client.post("/practice/", {"which": "all", "count": 5})
    attempt = Attempt.objects.get()
    response = client.post(
        f"/practice/{attempt.pk}/1/", {"text": '{"type": "tool", "type": "auto"}'}
    )
    assert "has the key &quot;type&quot; twice" in response.content.decode()


@pytest.mark.django_db
def test_a_deeply_nested_editor_json_field_is_a_message_on_the_field(client, instructor):
    client.force_login(instructor)
    question = make_question("next_action")
    parsed = author_services.question_parsed(question)
    response = client.post(edit_url(question.slug), form_data(parsed, response=DEEP_ANSWER))
    assert response.status_code == 422
    assert "This is nested more than 32 levels deep" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "words"),
    [
        (deep_yaml(), "nested more than 48 levels deep"),
        (ALIAS_BOMB, "aliases and anchors are not accepted"),
    ],
)
def test_a_hostile_yaml_import_is_an_error_in_the_preview(client, instructor, text, words):
    client.force_login(instructor)
    response = client.post("/author/import/", {"text": text, "format": "yaml"})
    assert response.status_code == 200
    assert words in response.content.decode()


def test_the_contract_checker_reads_a_too_deep_tool_result_as_plain_text():
    from studyapp.agentloop import contract

    deep = '{"error": ' + "[" * 2000 + "]" * 2000 + "}"
    assert contract.failure_signal(deep) == "says 'error'"  # no RecursionError


# --- numbers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [("12", 12), ("9" * 5000, None), ("²", None), ("-1", None), ("", None), (None, None),
     (" 7 ", 7), ("1000", None), ("0", None)],
)  # fmt: skip
def test_int_param_never_raises(value, expected):
    assert bounded.int_param(value, low=1, high=999) == expected


def test_a_json_number_with_thousands_of_digits_names_the_limit_not_python():
    with pytest.raises(bounded.LimitError) as e:
        bounded.loads_json('{"input_tokens": ' + "1" * 5000 + "}")
    assert e.value.limit == "number" and "at most 100 digits" in str(e.value)
    assert "set_int_max_str_digits" not in str(e.value)
    with pytest.raises(bounded.LimitError, match="too large"):
        bounded.loads_json("[1e999]")


@pytest.mark.django_db
def test_an_uploaded_transcript_with_a_huge_number_says_so_in_words(client):
    body = '{"type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": '
    body += "1" * 5000 + "}}"
    response = client.post("/sandbox/upload/", {"text": body})
    html = response.content.decode()
    assert response.status_code in (200, 400, 422)
    assert "set_int_max_str_digits" not in html
    assert "at most 100 digits" in html


@pytest.mark.django_db
def test_stats_with_a_5000_digit_size_is_the_default_page(client, instructor):
    client.force_login(instructor)
    response = client.get("/author/stats/?size=" + "9" * 5000)
    assert response.status_code == 200


@pytest.mark.parametrize(
    "value", ["1" * 5000, "2026-13-45", "0x" + "f" * 200], ids=["digits", "date", "hex"]
)
def test_a_yaml_value_the_loader_cannot_build_is_a_message(value):
    with pytest.raises(bounded.LimitError) as e:
        bounded.load_yaml(f"questions:\n  - difficulty: {value}\n")
    assert "set_int_max_str_digits" not in str(e.value)


@pytest.mark.django_db
def test_a_raw_log_line_with_a_huge_number_says_so_in_words(client):
    ok = '{"request": {"model": "m", "messages": []}, "response": {"usage": {"input_tokens": 1}}}'
    bad = ok.replace('"input_tokens": 1', '"input_tokens": ' + "1" * 5000)
    response = client.post("/sandbox/upload/", {"text": ok + "\n" + bad})
    html = response.content.decode()
    assert response.status_code == 400
    assert "line 2: the JSON has a number with 5,000 characters" in html
    assert "set_int_max_str_digits" not in html
