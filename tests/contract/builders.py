"""Builders of requests, responses and transcripts for the contract tests."""

from studyapp.agentloop.transcript import FORMAT, parse_transcript

MODEL = "claude-sonnet-4-5"
LOOKUP = {
    "name": "lookup_order",
    "description": "Look up an order.",
    "input_schema": {"type": "object"},
}
REFUND = {
    "name": "process_refund",
    "description": "Refund an order.",
    "input_schema": {"type": "object"},
}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
THINKING = {"type": "enabled", "budget_tokens": 2048}
SIGNATURE = "EqQBCkYIBxgCKkBq3vYQ3xZ8mQ=="


def response(n, stop_reason, *blocks, **usage):
    return {
        "id": f"msg_{n:02d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 500, "output_tokens": 50, **usage},
    }


def text(value):
    return {"type": "text", "text": value}


def tool_use(tool_id, name="lookup_order"):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"order_id": "A1"}}


def server_call(tool_id="srvtoolu_1"):
    return {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": "q"}}


def search_result(tool_id="srvtoolu_1"):
    return {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": []}


def thought(words="I should look the order up.", signature=SIGNATURE):
    return {"type": "thinking", "thinking": words, "signature": signature}


def result(tool_id, content="Order A1: shipped on 3 May.", **extra):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def user(content):
    return {"role": "user", "content": content}


def assistant(content):
    return {"role": "assistant", "content": content}


Q = user("Where is order A1, and has it been paid?")


def rules(findings):
    return [f.rule for f in findings]


def transcript(*turns, **top):
    data = {
        "format": FORMAT,
        "slug": "case",
        "title": "A case",
        "model": MODEL,
        "max_tokens": 1024,
        "tools": [LOOKUP, REFUND],
        "tool_choice": {"type": "auto"},
        "messages": [Q],
        "turns": list(turns),
    }
    data.update(top)
    return parse_transcript(data, strict=True)


def turn(resp, results=(), **extra):
    return {"response": resp, "tool_results": list(results), **extra}


def parallel_run(**top):
    return transcript(
        turn(
            response(1, "tool_use", tool_use("toolu_1"), tool_use("toolu_2")),
            [result("toolu_1"), result("toolu_2", "Paid in full.")],
        ),
        turn(response(2, "end_turn", text("It shipped and is paid."))),
        **top,
    )


PARALLEL = assistant([text("Checking both."), tool_use("toolu_1"), tool_use("toolu_2")])
