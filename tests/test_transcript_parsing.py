"""The transcript format parsed strictly, its replay, and the recorded library."""

import copy
import json

import pytest
from anthropic.types import Message

from studyapp.agentloop.transcript import (
    FORMAT,
    Transcript,
    parse_transcript,
)

from .transcripts import (
    LOOKUP,
    MODEL,
    WEB_SEARCH,
    assistant,
    response,
    text,
    tool_result,
    tool_use,
    transcript,
    turn,
    two_step,
    user,
)

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
