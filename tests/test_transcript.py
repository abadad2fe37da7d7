"""The transcript model: strict and lenient parsing, the replay, raw logs, limits, errors."""

import copy
import json
import string

import pytest
from anthropic.types import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studyapp.agentloop import contract
from studyapp.agentloop.transcript import (
    FORMAT,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_TURNS,
    Transcript,
    TranscriptError,
    check_depth,
    first_difference,
    loads_limited,
    parse_raw_log,
    parse_transcript,
    parse_upload,
)

# --- builders ---------------------------------------------------------------------------------

MODEL = "claude-sonnet-4-5"
LOOKUP = {
    "name": "lookup_order",
    "description": "Look up an order by id.",
    "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}


def response(n, stop_reason, *blocks, input_tokens=400, output_tokens=60, **extra):
    return {
        "id": f"msg_{n:02d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        **extra,
    }


def text(value):
    return {"type": "text", "text": value}


def tool_use(tool_id, name="lookup_order", **tool_input):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input or {"q": 1}}


def tool_result(tool_id, content="ok", **extra):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def user(content):
    return {"role": "user", "content": content}


def assistant(content):
    return {"role": "assistant", "content": content}


def transcript(*turns, **top):
    data = {
        "format": FORMAT,
        "slug": "sample-run",
        "title": "A sample run",
        "summary": "A constructed example.",
        "tags": ["tool_use"],
        "model": MODEL,
        "max_tokens": 1024,
        "system": "You are a support agent.",
        "tools": [LOOKUP],
        "tool_choice": {"type": "auto"},
        "messages": [user("Where is order A1?")],
        "turns": list(turns),
    }
    data.update(top)
    return data


def turn(resp, results=(), **extra):
    return {"response": resp, "tool_results": list(results), "elapsed_ms": 800, **extra}


def two_step():
    """tool_use with two parallel calls, then end_turn."""
    return transcript(
        turn(
            response(1, "tool_use", text("Checking."), tool_use("toolu_1"), tool_use("toolu_2")),
            [tool_result("toolu_1", "shipped"), tool_result("toolu_2", "paid")],
            note="Two lookups at once.",
        ),
        turn(response(2, "end_turn", text("It shipped."), input_tokens=700, output_tokens=20)),
    )


def raw_pairs(data):
    """The {request, response} log an application would have written for a transcript."""
    t = parse_transcript(data, strict=True)
    return [{"request": x.request, "response": x.response} for x in t.turns]


# --- parsing the format -----------------------------------------------------------------------


def test_a_valid_transcript_parses_strictly_into_sdk_messages():
    t = parse_transcript(two_step(), strict=True)
    assert isinstance(t, Transcript)
    assert t.slug == "sample-run" and t.title == "A sample run" and t.tags == ["tool_use"]
    assert t.model == MODEL and t.tools == [LOOKUP] and t.tool_choice == {"type": "auto"}
    assert [x.stop_reason for x in t.turns] == ["tool_use", "end_turn"]
    assert all(isinstance(x.message, Message) for x in t.turns)
    assert [b.type for b in t.turns[0].blocks] == ["text", "tool_use", "tool_use"]
    assert all(b.known for b in t.turns[0].blocks)
    assert t.turns[0].note == "Two lookups at once." and t.turns[0].elapsed_ms == 800
    assert t.turns[0].tool_uses[1]["id"] == "toolu_2"
    assert t.warnings == [] and t.divergences == []


def test_parsing_does_not_mutate_or_alias_the_input():
    data = two_step()
    before = copy.deepcopy(data)
    t = parse_transcript(data, strict=True)
    t.turns[0].response["content"].clear()
    assert data == before


def test_actions_come_from_the_catalogue():
    t = parse_transcript(two_step(), strict=True)
    assert [x.action for x in t.turns] == ["run_tools", "finish"]
    assert [x.continues for x in t.turns] == [True, False]


def test_replay_appends_assistant_content_and_one_user_message_of_results():
    t = parse_transcript(two_step(), strict=True)
    first, second = t.turns
    assert first.request_messages == [user("Where is order A1?")]
    assert second.request_messages == [
        user("Where is order A1?"),
        assistant(first.response["content"]),
        user([tool_result("toolu_1", "shipped"), tool_result("toolu_2", "paid")]),
    ]
    assert second.appended == second.request_messages[1:]
    assert first.appended == first.request_messages


def test_the_request_of_a_turn_carries_every_parameter():
    t = parse_transcript(two_step(), strict=True)
    request = t.turns[1].request
    assert request["model"] == MODEL and request["max_tokens"] == 1024
    assert request["system"] == "You are a support agent."
    assert request["tools"] == [LOOKUP] and request["tool_choice"] == {"type": "auto"}
    assert request["messages"] is t.turns[1].request_messages


def test_pause_turn_is_resent_as_is_with_no_user_message():
    paused = response(
        1,
        "pause_turn",
        text("Searching."),
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}},
    )
    data = transcript(
        turn(paused), turn(response(2, "end_turn", text("Found it."))), tools=[WEB_SEARCH]
    )
    t = parse_transcript(data, strict=True)
    assert t.turns[0].action == "resend_paused"
    assert t.turns[1].request_messages == [data["messages"][0], assistant(paused["content"])]
    assert t.turns[1].appended == [assistant(paused["content"])]


def test_a_cut_off_tool_use_is_retried_with_the_same_messages_and_the_overrides():
    cut = response(1, "max_tokens", text("Let me file it."), tool_use("toolu_1"))
    data = transcript(
        turn(cut),
        turn(
            response(2, "tool_use", tool_use("toolu_2")),
            [tool_result("toolu_2")],
            request_overrides={"max_tokens": 4096},
        ),
        turn(response(3, "end_turn", text("Filed."))),
    )
    t = parse_transcript(data, strict=True)
    assert t.turns[0].action == "retry_with_more_tokens"
    assert t.turns[1].request_messages == t.turns[0].request_messages
    assert t.turns[1].appended == []
    assert t.turns[1].request["max_tokens"] == 4096
    assert t.turns[0].request["max_tokens"] == 1024
    assert t.params_for(1)["max_tokens"] == 4096
    assert t.divergences == []


def test_a_turn_after_a_terminal_stop_reason_is_a_divergence_not_a_crash():
    data = transcript(
        turn(response(1, "end_turn", text("Done."))),
        turn(response(2, "end_turn", text("Done again."))),
    )
    t = parse_transcript(data, strict=True)
    assert [(d.step, d.kind) for d in t.divergences] == [(1, "after_stop")]
    assert t.turns[1].request_messages == t.turns[0].request_messages


def test_messages_sent_that_disagree_with_the_replay_are_a_divergence():
    data = two_step()
    sent = [
        user("Where is order A1?"),
        assistant(data["turns"][0]["response"]["content"]),
        user([tool_result("toolu_1", "shipped")]),
        user([tool_result("toolu_2", "paid")]),
    ]
    data["turns"][1]["messages_sent"] = sent
    t = parse_transcript(data, strict=True)
    assert [(d.step, d.kind, d.path) for d in t.divergences] == [
        (1, "mismatch", "messages[2].content[1]")
    ]
    # What was really sent is what the request shows and what the checker reads.
    assert t.turns[1].request_messages == sent


def test_messages_sent_that_agree_in_substance_are_not_a_divergence():
    data = two_step()
    t0 = parse_transcript(data, strict=True)
    sent = copy.deepcopy(t0.turns[1].request_messages)
    sent[0] = user([text("Where is order A1?")])  # string vs one text block
    sent[1]["content"][0]["citations"] = None  # a None field an SDK dump adds
    sent[2]["content"][1]["cache_control"] = {"type": "ephemeral"}  # a caching marker
    data["turns"][1]["messages_sent"] = sent
    assert parse_transcript(data, strict=True).divergences == []


def test_a_rewritten_history_has_no_appended_list():
    data = transcript(
        turn(response(1, "refusal", text("I can't help with that."))),
        turn(
            response(2, "end_turn", text("Sure.")),
            messages_sent=[user("Something else, then.")],
        ),
    )
    t = parse_transcript(data, strict=True)
    assert t.turns[1].appended is None
    assert t.turns[1].request_messages == [user("Something else, then.")]


def test_extra_top_level_and_turn_fields_are_kept():
    data = two_step()
    data.update(constructed=True, guards={"max_turns": 8}, ended_by="stop_reason")
    data["turns"][0]["label"] = "first"
    t = parse_transcript(data, strict=True)
    assert t.extra == {"constructed": True, "guards": {"max_turns": 8}, "ended_by": "stop_reason"}
    assert t.guards == {"max_turns": 8} and t.ended_by == "stop_reason"
    assert t.turns[0].extra == {"label": "first"}
    assert not t.deliberately_broken


def test_usage_per_turn_and_the_context_series():
    data = two_step()
    data["turns"][1]["response"]["usage"].update(
        cache_read_input_tokens=300, cache_creation_input_tokens=10
    )
    t = parse_transcript(data, strict=True)
    second = t.turns[1]
    assert (second.input_tokens, second.output_tokens) == (700, 20)
    assert second.context_tokens == 700 + 300 + 10
    rows = t.usage_series()
    assert [r["context_tokens"] for r in rows] == [400, 1010]
    assert [r["cumulative_input_tokens"] for r in rows] == [400, 1410]
    assert [r["cumulative_output_tokens"] for r in rows] == [60, 80]
    assert t.context_series() == [460, 1030]


def test_to_dict_round_trips():
    data = two_step()
    data["constructed"] = True
    data["turns"][1]["request_overrides"] = {"max_tokens": 2048}
    t = parse_transcript(data, strict=True)
    out = t.to_dict()
    assert out["format"] == FORMAT
    assert out["turns"][0]["response"] == data["turns"][0]["response"]
    again = parse_transcript(json.loads(json.dumps(out)), strict=True)
    assert again.to_dict() == out
    assert json.loads(t.to_json()) == out


# --- strict errors: one sentence with a JSON path ----------------------------------------------


def _error(data, strict=True):
    with pytest.raises(TranscriptError) as info:
        parse_transcript(data, strict=strict)
    return info.value


def test_an_unknown_block_type_is_rejected_strictly_with_its_path():
    data = two_step()
    data["turns"][1]["response"]["content"].insert(0, {"type": "foo", "x": 1})
    error = _error(data)
    assert error.path == "turns[1].response.content[0].type"
    assert str(error) == "turns[1].response.content[0].type: unknown block type 'foo'."


def test_pydantic_union_errors_are_condensed_into_one_sentence():
    data = two_step()
    del data["turns"][0]["response"]["content"][2]["id"]
    error = _error(data)
    assert str(error) == "turns[0].response.content[2]: missing field 'id'."
    assert error.path == "turns[0].response.content[2]"
    assert "\n" not in str(error) and "validation error" not in str(error)


def test_a_wrong_field_type_inside_a_block_names_the_field():
    data = two_step()
    data["turns"][0]["response"]["content"][0]["text"] = 5
    error = _error(data)
    assert error.path == "turns[0].response.content[0].text"
    assert "must be a string" in str(error)


def test_nested_union_errors_pick_the_branch_that_got_furthest():
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "https://example.com/"}],
    }
    data = transcript(turn(response(1, "end_turn", result)))
    error = _error(data)
    assert error.path == "turns[0].response.content[0].content[0]"
    assert "missing field" in str(error)


def test_an_unknown_stop_reason_is_rejected_strictly():
    data = transcript(turn(response(1, "compaction", text("..."))))
    error = _error(data)
    assert error.path == "turns[0].response.stop_reason"
    assert "unknown stop_reason 'compaction'" in str(error)


@pytest.mark.parametrize(
    ("mutate", "path", "words"),
    [
        (lambda d: d.update(format="other/1"), "format", "must be 'loopcraft.transcript/1'"),
        (lambda d: d.pop("turns"), "", "The transcript is missing field 'turns'"),
        (lambda d: d.update(turns=[]), "turns", "at least one turn"),
        (lambda d: d.update(slug="Bad Slug"), "slug", "lowercase"),
        (lambda d: d.update(title=""), "title", "is required"),
        (lambda d: d.update(tags="a"), "tags", "must be a list"),
        (lambda d: d.update(tool_choice="auto"), "tool_choice", "must be an object"),
        (lambda d: d["tools"].append({"name": "x"}), "tools[1]", "missing field 'input_schema'"),
        (
            lambda d: d["messages"].append({"role": "system", "content": "x"}),
            "messages[1].role",
            "",
        ),
        (lambda d: d["messages"][0].pop("content"), "messages[0]", "missing field 'content'"),
        (lambda d: d["turns"][0].pop("response"), "turns[0]", "missing field 'response'"),
        (
            lambda d: d["turns"][0]["response"].update(role="user"),
            "turns[0].response.role",
            "must be 'assistant'",
        ),
        (
            lambda d: d["turns"][0]["response"].pop("usage"),
            "turns[0].response",
            "missing field 'usage'",
        ),
        (
            lambda d: d["turns"][0]["tool_results"][0].pop("tool_use_id"),
            "turns[0].tool_results[0]",
            "missing field 'tool_use_id'",
        ),
        (
            lambda d: d["turns"][0]["tool_results"][0].update(is_error="yes"),
            "turns[0].tool_results[0].is_error",
            "must be true or false",
        ),
        (
            lambda d: d["turns"][0]["tool_results"][0].update(content=[{"type": "video"}]),
            "turns[0].tool_results[0].content[0].type",
            "unknown block type 'video'",
        ),
        (lambda d: d["turns"][0].update(elapsed_ms=-1), "turns[0].elapsed_ms", "negative"),
        (lambda d: d["turns"][0].update(elapsed_ms=True), "turns[0].elapsed_ms", "whole number"),
        (lambda d: d["turns"][0].update(note=3), "turns[0].note", "must be a string"),
        (
            lambda d: d["turns"][1].update(messages_sent=[{"role": "user"}]),
            "turns[1].messages_sent[0]",
            "missing field 'content'",
        ),
        (
            lambda d: d["turns"][1].update(request_overrides={"messages": []}),
            "turns[1].request_overrides.messages",
            "messages_sent",
        ),
    ],
)
def test_structural_errors_name_the_first_problem(mutate, path, words):
    data = two_step()
    mutate(data)
    error = _error(data)
    assert error.path == path
    assert words in str(error)
    assert str(error).endswith(".")


def test_the_top_level_must_be_an_object():
    with pytest.raises(TranscriptError, match="A transcript must be a JSON object, not a list"):
        parse_transcript([], strict=False)


def test_too_many_turns_are_refused():
    one = two_step()["turns"][1]
    data = transcript(*[copy.deepcopy(one) for _ in range(MAX_TURNS + 1)])
    error = _error(data, strict=False)
    assert error.path == "turns" and str(MAX_TURNS) in str(error)


def test_too_deep_nesting_is_refused_with_its_path():
    deep = value = {}
    for _ in range(MAX_DEPTH + 5):
        value["a"] = {}
        value = value["a"]
    data = two_step()
    data["turns"][0]["response"]["content"][1]["input"] = deep
    error = _error(data, strict=False)
    assert "nested more than 64 levels" in str(error)
    assert error.path.startswith("turns[0].response.content[1].input.a")


def test_check_depth_accepts_the_limit_itself():
    value = []
    for _ in range(MAX_DEPTH - 1):
        value = [value]
    check_depth(value)
    with pytest.raises(TranscriptError):
        check_depth([value])


# --- uploads: lenient where the API is newer than the SDK -------------------------------------


def test_uploads_keep_unknown_block_types_raw_and_flag_them():
    data = two_step()
    data["turns"][1]["response"]["content"].insert(
        0, {"type": "compaction", "content": "summary of earlier turns"}
    )
    t = parse_transcript(data, strict=False)
    blocks = t.turns[1].blocks
    assert [(b.type, b.known) for b in blocks] == [("compaction", False), ("text", True)]
    assert blocks[0].data == {"type": "compaction", "content": "summary of earlier turns"}
    assert blocks[0].raw and "unknown block type 'compaction'" in blocks[0].reason
    assert t.turns[1].has_raw_blocks
    assert t.turns[1].message is None  # the SDK object can't hold it; the raw dict is kept
    assert any("turns[1].response.content[0]" in w for w in t.warnings)
    assert t.turns[1].action == "finish"


def test_uploads_keep_a_newer_shape_of_a_known_block_raw():
    data = two_step()
    data["turns"][0]["response"]["content"][1]["caller"] = {"type": "code_execution_29990101"}
    with pytest.raises(TranscriptError):
        parse_transcript(data, strict=True)
    t = parse_transcript(data, strict=False)
    block = t.turns[0].blocks[1]
    assert block.type == "tool_use" and not block.known
    assert t.turns[0].tool_uses[0]["id"] == "toolu_1"


def test_uploads_still_reject_blocks_the_loop_cannot_use():
    data = two_step()
    data["turns"][0]["response"]["content"][1]["input"] = "not an object"
    error = _error(data, strict=False)
    assert error.path == "turns[0].response.content[1].input"


def test_uploads_keep_an_unknown_stop_reason_and_the_replay_flags_it():
    data = transcript(turn(response(1, "compaction", text("Summary."))))
    t = parse_transcript(data, strict=False)
    assert t.turns[0].stop_reason == "compaction" and t.turns[0].action is None
    assert [d.kind for d in t.divergences] == ["unknown_stop_reason"]
    assert [f.rule for f in contract.check_transcript(t)] == ["unknown-stop-reason"]


def test_uploads_accept_unknown_request_block_types_and_default_metadata():
    data = two_step()
    for name in ("slug", "title", "summary", "tags"):
        data.pop(name)
    data["messages"][0]["content"] = [{"type": "video", "url": "https://example.com/v"}]
    t = parse_transcript(data, strict=False)
    assert t.slug == "uploaded-run" and t.title == "Uploaded run"
    assert any("unknown block type 'video'" in w for w in t.warnings)
    with pytest.raises(TranscriptError):
        parse_transcript(data, strict=True)


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
    import studyapp.agentloop.transcript as module

    def boom(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("json.loads ran on an oversized upload")

    monkeypatch.setattr(module.json, "loads", boom)
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


# --- the library, parsed strictly ---------------------------------------------------------------


def _library():
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "content" / "transcripts"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.mark.parametrize("path", _library(), ids=lambda p: p.stem)
def test_every_library_transcript_parses_strictly(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    t = parse_transcript(data, strict=True)
    assert t.slug == path.stem
    for x in t.turns:
        Message.model_validate(x.response)


# --- property tests: only TranscriptError, whatever comes in -------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(
        [
            "text",
            "tool_use",
            "tool_result",
            "thinking",
            "message",
            "assistant",
            "user",
            "toolu_1",
            "end_turn",
            "tool_use",
            "pause_turn",
            "max_tokens",
            "refusal",
            FORMAT,
            "type",
            "id",
        ]
    )
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "id",
                    "content",
                    "role",
                    "text",
                    "input",
                    "name",
                    "tool_use_id",
                    "usage",
                    "stop_reason",
                    "messages",
                    "turns",
                    "response",
                    "request",
                    "format",
                    "is_error",
                ]
            )
            | st.text(max_size=6),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))


def _set(value, path, new):
    if not path:
        return new
    target = value
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return value


@st.composite
def mutated(draw, base):
    """A valid document with a few random places replaced, deleted or duplicated."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if action == "replace" or not path:
            data = _set(data, path, draw(json_values))
            continue
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(parent[path[-1]]))
    return data


def _base_transcript():
    data = two_step()
    data["turns"].insert(
        1,
        turn(
            response(
                9,
                "pause_turn",
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "x"},
                },
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            )
        ),
    )
    return data


PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _only_transcript_errors(fn, *args, **kwargs):
    try:
        result = fn(*args, **kwargs)
    except TranscriptError as exc:
        assert str(exc) and isinstance(exc.path, str)
        return None
    contract.check_transcript(result)  # whatever parsed can be checked without a crash
    return result


@PROPERTY
@given(json_values)
def test_parse_transcript_lenient_raises_only_transcript_error_on_any_json(data):
    _only_transcript_errors(parse_transcript, data, strict=False)


@PROPERTY
@given(mutated(_base_transcript()))
def test_parse_transcript_raises_only_transcript_error_on_mutated_transcripts(data):
    _only_transcript_errors(parse_transcript, data, strict=False)
    _only_transcript_errors(parse_transcript, data, strict=True)


@PROPERTY
@given(st.text(max_size=300))
def test_parse_raw_log_raises_only_transcript_error_on_any_text(data):
    _only_transcript_errors(parse_raw_log, data)


@PROPERTY
@given(st.text(alphabet=string.printable + '{}[]":,', max_size=300))
def test_parse_raw_log_raises_only_transcript_error_on_json_like_text(data):
    _only_transcript_errors(parse_raw_log, data)


@PROPERTY
@given(mutated(raw_pairs(_base_transcript())), st.booleans())
def test_parse_raw_log_raises_only_transcript_error_on_mutated_logs(pairs, as_jsonl):
    if as_jsonl and isinstance(pairs, list):
        body = "\n".join(json.dumps(p) for p in pairs)
    else:
        body = json.dumps(pairs)
    _only_transcript_errors(parse_raw_log, body)


@PROPERTY
@given(json_values)
def test_parse_raw_log_raises_only_transcript_error_on_any_json_document(data):
    _only_transcript_errors(parse_raw_log, json.dumps(data))
