"""Strict errors name the first problem with its JSON path; limits on size, depth and turns."""

import copy

import pytest

from studyapp.agentloop.transcript import (
    MAX_DEPTH,
    MAX_TURNS,
    TranscriptError,
    check_depth,
    parse_transcript,
)

from .transcripts import (
    parse_error,
    response,
    text,
    transcript,
    turn,
    two_step,
)

# --- strict errors: one sentence with a JSON path ----------------------------------------------


def test_an_unknown_block_type_is_rejected_strictly_with_its_path():
    data = two_step()
    data["turns"][1]["response"]["content"].insert(0, {"type": "foo", "x": 1})
    error = parse_error(data)
    assert error.path == "turns[1].response.content[0].type"
    assert str(error) == "turns[1].response.content[0].type: unknown block type 'foo'."


def test_pydantic_union_errors_are_condensed_into_one_sentence():
    data = two_step()
    del data["turns"][0]["response"]["content"][2]["id"]
    error = parse_error(data)
    assert str(error) == "turns[0].response.content[2]: missing field 'id'."
    assert error.path == "turns[0].response.content[2]"
    assert "\n" not in str(error) and "validation error" not in str(error)


def test_a_wrong_field_type_inside_a_block_names_the_field():
    data = two_step()
    data["turns"][0]["response"]["content"][0]["text"] = 5
    error = parse_error(data)
    assert error.path == "turns[0].response.content[0].text"
    assert "must be a string" in str(error)


def test_nested_union_errors_pick_the_branch_that_got_furthest():
    result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "https://example.com/"}],
    }
    data = transcript(turn(response(1, "end_turn", result)))
    error = parse_error(data)
    assert error.path == "turns[0].response.content[0].content[0]"
    assert "missing field" in str(error)


def test_an_unknown_stop_reason_is_rejected_strictly():
    data = transcript(turn(response(1, "compaction", text("..."))))
    error = parse_error(data)
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
    error = parse_error(data)
    assert error.path == path
    assert words in str(error)
    assert str(error).endswith(".")


def test_the_top_level_must_be_an_object():
    with pytest.raises(TranscriptError, match="A transcript must be a JSON object, not a list"):
        parse_transcript([], strict=False)


def test_too_many_turns_are_refused():
    one = two_step()["turns"][1]
    data = transcript(*[copy.deepcopy(one) for _ in range(MAX_TURNS + 1)])
    error = parse_error(data, strict=False)
    assert error.path == "turns" and str(MAX_TURNS) in str(error)


def test_too_deep_nesting_is_refused_with_its_path():
    deep = value = {}
    for _ in range(MAX_DEPTH + 5):
        value["a"] = {}
        value = value["a"]
    data = two_step()
    data["turns"][0]["response"]["content"][1]["input"] = deep
    error = parse_error(data, strict=False)
    assert "nested more than 64 levels" in str(error)
    assert error.path.startswith("turns[0].response.content[1].input.a")


def test_check_depth_accepts_the_limit_itself():
    value = []
    for _ in range(MAX_DEPTH - 1):
        value = [value]
    check_depth(value)
    with pytest.raises(TranscriptError):
        check_depth([value])
