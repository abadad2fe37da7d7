"""Transcripts for the transcript tests, built in a few lines: responses, turns, raw logs."""

import pytest

from studyapp.agentloop.transcript import FORMAT, TranscriptError, parse_transcript

MODEL = "claude-sonnet-4-5"
LOOKUP = {
    "name": "lookup_order",
    "description": "Look up an order by id.",
    "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}

#: One Messages API response to upload: a hostile text block and a tool call.
MESSAGE = {
    "id": "msg_01XYZ",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "<script>alert('x')</script> Checking."},
        {"type": "tool_use", "id": "toolu_01A", "name": "lookup_order", "input": {"id": "1"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 50, "output_tokens": 20},
}


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


def parse_error(data, strict=True) -> TranscriptError:
    """The one error parsing ``data`` raises."""
    with pytest.raises(TranscriptError) as info:
        parse_transcript(data, strict=strict)
    return info.value
