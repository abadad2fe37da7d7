"""Raw logs of {request, response} pairs, JSONL, single messages, and their errors."""

import json

import pytest

from studyapp.agentloop import contract
from studyapp.agentloop.transcript import (
    MAX_BYTES,
    MAX_TURNS,
    TranscriptError,
    first_difference,
    loads_limited,
    parse_raw_log,
    parse_upload,
)

from .transcripts import (
    LOOKUP,
    MODEL,
    raw_pairs,
    response,
    text,
    tool_result,
    tool_use,
    transcript,
    turn,
    two_step,
    user,
)

# --- raw logs -----------------------------------------------------------------------------------


def test_a_json_array_of_pairs_imports_with_params_messages_and_results():
    pairs = raw_pairs(two_step())
    t = parse_raw_log(json.dumps(pairs))
    assert t.source == "raw_log" and not t.strict
    assert t.model == MODEL and t.system == "You are a support agent."
    assert t.tools == [LOOKUP] and t.tool_choice == {"type": "auto"}
    assert t.messages == [user("Where is order A1?")]
    assert t.turns[0].tool_results == [
        tool_result("toolu_1", "shipped"),
        tool_result("toolu_2", "paid"),
    ]
    assert t.turns[1].tool_results == []
    assert t.divergences == []
    assert contract.check_transcript(t) == []
    assert t.title == "Uploaded log (2 calls)"


def test_jsonl_imports_the_same_way():
    pairs = raw_pairs(two_step())
    lines = "\n".join(json.dumps(p) for p in pairs) + "\n\n"
    t = parse_raw_log(lines)
    assert len(t.turns) == 2 and t.turns[0].tool_results[1]["tool_use_id"] == "toolu_2"


def test_a_log_recovers_request_overrides_for_a_retry():
    cut = response(1, "max_tokens", tool_use("toolu_1"))
    data = transcript(
        turn(cut),
        turn(response(2, "end_turn", text("ok")), request_overrides={"max_tokens": 4096}),
    )
    t = parse_raw_log(json.dumps(raw_pairs(data)))
    assert t.turns[1].request_overrides == {"max_tokens": 4096}
    assert t.turns[1].request["max_tokens"] == 4096
    assert t.divergences == []


def test_a_log_does_not_take_old_results_for_a_retried_turn():
    data = transcript(
        turn(response(1, "tool_use", tool_use("toolu_1")), [tool_result("toolu_1")]),
        turn(response(2, "max_tokens", tool_use("toolu_2"))),
        turn(response(3, "end_turn", text("ok")), request_overrides={"max_tokens": 4096}),
    )
    t = parse_raw_log(json.dumps(raw_pairs(data)))
    assert t.turns[0].tool_results == [tool_result("toolu_1")]
    assert t.turns[1].tool_results == []  # turn 2 resent the same messages
    assert t.divergences == [] and contract.check_transcript(t) == []


def test_a_log_keeps_what_was_really_sent_and_the_replay_compares():
    data = two_step()
    pairs = raw_pairs(data)
    msgs = pairs[1]["request"]["messages"]
    pairs[1]["request"]["messages"] = [
        *msgs[:2],
        user([msgs[2]["content"][0]]),
        user([msgs[2]["content"][1]]),
    ]
    t = parse_raw_log(json.dumps(pairs))
    assert t.turns[1].messages_sent == pairs[1]["request"]["messages"]
    assert [d.kind for d in t.divergences] == ["mismatch"]
    rules = {f.rule for f in contract.check_transcript(t)}
    assert "tool-results-split" in rules


def test_a_single_pair_object_and_a_single_message_import():
    pair = raw_pairs(two_step())[1]
    t = parse_raw_log(json.dumps(pair))
    assert len(t.turns) == 1 and t.messages == pair["request"]["messages"]
    message = response(1, "end_turn", text("Hi."))
    t = parse_raw_log(json.dumps(message))
    assert t.source == "message" and t.messages == [] and t.turns[0].stop_reason == "end_turn"
    assert t.model == MODEL
    assert contract.check_transcript(t) == []


def test_parse_upload_takes_a_transcript_too():
    data = two_step()
    t = parse_upload(json.dumps(data).encode())
    assert t.source == "transcript" and not t.strict and t.slug == "sample-run"


def test_a_log_error_names_the_entry_path():
    pairs = raw_pairs(two_step())
    pairs[1]["response"]["content"][0]["type"] = 7
    with pytest.raises(TranscriptError) as info:
        parse_raw_log(json.dumps(pairs))
    assert info.value.path == "[1].response.content[0].type"


def test_a_jsonl_error_names_the_line():
    pairs = raw_pairs(two_step())
    del pairs[1]["response"]["usage"]
    lines = json.dumps(pairs[0]) + "\n" + json.dumps(pairs[1])
    with pytest.raises(TranscriptError) as info:
        parse_raw_log(lines)
    assert info.value.path == "line 2, response"
    assert str(info.value).startswith("line 2, response: missing field 'usage'")


def test_bad_json_on_a_jsonl_line_names_line_and_column():
    pairs = raw_pairs(two_step())
    lines = json.dumps(pairs[0]) + "\n" + "{oops}\n"
    with pytest.raises(TranscriptError) as info:
        parse_raw_log(lines)
    assert info.value.path == "line 2"
    assert "not valid JSON" in str(info.value)


def test_bad_json_names_line_and_column():
    with pytest.raises(TranscriptError, match=r"line 2, column \d+: not valid JSON"):
        parse_raw_log('[\n{"request": ]')


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("42", "JSON object or array"),
        ('{"hello": 1}', "none of their fields"),
        ("[]", "no {request, response} pairs"),
        ("[1]", "must be an object with 'request' and 'response'"),
        ('[{"request": {}}]', "missing field 'response'"),
        ('[{"request": {}, "response": {}}]', "missing field 'messages'"),
        ('{"type": "message", "content": [], "x": NaN}', "NaN is not valid JSON"),
        ("[" * 100 + "]" * 100, "nested more than 64 levels"),
    ],
)
def test_bad_logs_raise_one_readable_error(text, words):
    with pytest.raises(TranscriptError, match=None) as info:
        parse_raw_log(text)
    assert words in str(info.value)


def test_the_size_limit_is_checked_before_parsing(monkeypatch):
    def boom(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("json.loads ran on an oversized upload")

    monkeypatch.setattr(json, "loads", boom)
    big = " " * (MAX_BYTES + 1)
    with pytest.raises(TranscriptError, match="limit is 2 MB"):
        parse_raw_log(big)
    with pytest.raises(TranscriptError, match="limit is 2 MB"):
        parse_raw_log(big.encode())
    with pytest.raises(TranscriptError, match="limit is 2 MB"):
        loads_limited("é" * (MAX_BYTES // 2 + 1))  # 2 bytes each in UTF-8


def test_bytes_that_are_not_utf8_are_refused():
    with pytest.raises(TranscriptError, match="not UTF-8"):
        parse_raw_log(b"\xff\xfe{}")


def test_too_many_logged_calls_are_refused():
    pair = raw_pairs(two_step())[1]
    with pytest.raises(TranscriptError, match="limit is 500"):
        parse_raw_log(json.dumps([pair] * (MAX_TURNS + 1)))


def test_first_difference_finds_the_first_differing_path():
    assert first_difference([1, {"a": 2}], [1, {"a": 2}]) is None
    assert first_difference([1, {"a": 2}], [1, {"a": 3}]) == "messages[1].a"
    assert first_difference([1], [1, 2]) == "messages[1]"
    assert first_difference({"a": 1}, {"b": 1}, "x") == "x.a"
    assert first_difference(1, True, "x") == "x"
