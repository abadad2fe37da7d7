"""Grading of every question kind: pure functions over the grading spec."""

import pytest
from django.http import QueryDict

from quizzes import grading


def spec(kind, options, data=None):
    return {"kind": kind, "options": options, "data": data or {}}


def opt(key, correct=False, family="", position=0, match=""):
    return {"key": key, "correct": correct, "family": family, "position": position, "match": match}


SINGLE = spec("single", [opt("a", True), opt("b", family="ends-on-text"), opt("c")])
MULTI = spec(
    "multiple", [opt("a", True), opt("b", True), opt("c", family="split-results"), opt("d")]
)
ORDER = spec("ordering", [opt(k, True, position=i) for i, k in enumerate("wxyz")])
MATCH = spec(
    "matching",
    [opt("l1", match="r1"), opt("l2", match="r2"), opt("l3", match="r3")],
    {"rights": [{"key": k} for k in ("r1", "r2", "r3", "r4")]},
)
RESPONSE = {"stop_reason": "pause_turn", "content": [{"type": "text", "text": "Searching"}]}
NEXT = spec(
    "next_action",
    [opt("resend_paused"), opt("send_continue_message", True, "pause-as-tool-use")],
    {"response": RESPONSE},
)
JSON = spec(
    "json",
    [],
    {
        "accept": [{"type": "tool", "name": "lookup_order"}],
        "normalize": "tool_choice",
        "wrong_answers": [{"answer": {"type": "any"}, "family": "forced-choice-mixup", "why": "x"}],
    },
)


def test_single_choice_scores_one_or_zero_and_names_the_trap():
    assert grading.grade(SINGLE, {"choice": "a"}).score == 1
    wrong = grading.grade(SINGLE, {"choice": "b"})
    assert wrong.score == 0 and wrong.families == ["ends-on-text"] and not wrong.correct


@pytest.mark.parametrize(
    ("choices", "score"),
    [(["a", "b"], 1.0), (["a"], 0.5), (["a", "c"], 0.0), (["a", "b", "c"], 0.5), (["c", "d"], 0)],
)
def test_multiple_response_gives_partial_credit_and_punishes_guessing(choices, score):
    assert grading.grade(MULTI, {"choices": choices}).score == score


def test_choosing_every_option_earns_nothing():
    assert grading.grade(MULTI, {"choices": ["a", "b", "c", "d"]}).score == 0


@pytest.mark.parametrize(
    ("order", "score"),
    [
        (list("wxyz"), 1.0),
        (list("zyxw"), 0.0),  # every adjacent pair reversed
        (list("xyzw"), 0.6667),  # x→y and y→z kept
        (list("wxzy"), 0.3333),  # only w→x kept
    ],
)
def test_ordering_scores_pairs_relative_to_the_next_item(order, score):
    assert grading.grade(ORDER, {"order": order}).score == score


def test_matching_scores_the_share_matched():
    answer = {"matches": {"l1": "r1", "l2": "r3", "l3": "r4"}}
    assert grading.grade(MATCH, answer).score == 0.3333
    assert grading.grade(MATCH, {"matches": {"l1": "r1", "l2": "r2", "l3": "r3"}}).correct


def test_next_action_is_keyed_by_the_catalogue_not_the_author_flag():
    # The option flags above are deliberately wrong; the catalogue says pause_turn → resend.
    assert grading.grade(NEXT, {"choice": "resend_paused"}).score == 1
    wrong = grading.grade(NEXT, {"choice": "send_continue_message"})
    assert wrong.score == 0 and wrong.families == ["pause-as-tool-use"]


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "tool", "name": "lookup_order"}',
        '{"name": "lookup_order", "type": "tool"}',
        '{"type":"tool","name":"lookup_order","disable_parallel_tool_use":false}',
        '  {\n "type" : "tool",\n "name": "lookup_order" }  ',
    ],
)
def test_json_answers_compare_by_structure(text):
    assert grading.grade(JSON, {"text": text}).correct


def test_json_answer_recognises_an_anticipated_mistake():
    g = grading.grade(JSON, {"text": '{"type": "any"}'})
    assert g.score == 0 and g.families == ["forced-choice-mixup"] and g.feedback_key == "wrong-0"


def test_a_none_with_disable_parallel_is_not_normalised_into_a_right_answer():
    data = {"accept": [{"type": "none"}], "normalize": "tool_choice"}
    s = spec("json", [], data)
    assert not grading.grade(
        s, {"text": '{"type": "none", "disable_parallel_tool_use": false}'}
    ).correct


def test_invalid_json_is_returned_for_correction_with_the_parser_message():
    with pytest.raises(grading.AnswerError, match=r"not valid JSON: Expecting .*line 1, column"):
        grading.parse_answer(JSON, QueryDict("text={type: tool}"))


@pytest.mark.parametrize(
    ("s", "query", "message"),
    [
        (SINGLE, "", "Choose one answer"),
        (SINGLE, "choice=zzz", "not one of this question's options"),
        (MULTI, "", "at least one"),
        (MULTI, "choices=a&choices=q", "not an option"),
        (ORDER, "pos-w=1&pos-x=1&pos-y=2&pos-z=3", "1 is used twice"),
        (ORDER, "pos-w=1&pos-x=2&pos-y=3&pos-z=9", "run from 1 to 4"),
        (ORDER, "pos-w=1", "from 1 to 4"),
        (MATCH, "match-l1=r1", "for every item"),
        (MATCH, "match-l1=r1&match-l2=r2&match-l3=evil", "not among the choices"),
        (JSON, "text=", "Write a JSON value"),
        (JSON, "text=" + "1" * 6000, "longer than"),
    ],
)
def test_unusable_answers_say_what_to_fix(s, query, message):
    with pytest.raises(grading.AnswerError, match=message):
        grading.parse_answer(s, QueryDict(query))


def test_parsed_answers_round_trip_into_grades():
    assert grading.parse_answer(ORDER, QueryDict("pos-w=4&pos-x=1&pos-y=2&pos-z=3")) == {
        "order": ["x", "y", "z", "w"]
    }
    assert grading.parse_answer(MULTI, QueryDict("choices=b&choices=a")) == {"choices": ["a", "b"]}


FIX_ORIGINAL = [
    {"role": "user", "content": "Where are orders 1 and 2?"},
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_01A", "name": "lookup_order", "input": {}},
            {"type": "tool_use", "id": "toolu_01B", "name": "lookup_order", "input": {}},
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "ok"}],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_01B", "content": "ok"}],
    },
]
FIX = spec("fix", [], {"messages": FIX_ORIGINAL, "context": {}})


def _fixed():
    merged = FIX_ORIGINAL[2]["content"] + FIX_ORIGINAL[3]["content"]
    return FIX_ORIGINAL[:2] + [{"role": "user", "content": merged}]


def test_a_repaired_history_passes_the_contract_checker():
    import json

    assert grading.grade(FIX, {"text": json.dumps(_fixed())}).correct


def test_the_broken_history_as_given_is_not_accepted():
    import json

    g = grading.grade(FIX, {"text": json.dumps(FIX_ORIGINAL)})
    assert not g.correct and any("parallel calls" in d for d in g.details)


def test_deleting_the_tool_calls_is_not_a_repair():
    import json

    g = grading.grade(FIX, {"text": json.dumps(FIX_ORIGINAL[:1])})
    assert not g.correct and "was deleted" in g.details[0]


def test_a_fix_answer_must_be_an_array():
    with pytest.raises(grading.AnswerError, match="JSON array of messages"):
        grading.parse_answer(FIX, QueryDict("text=%7B%7D"))
