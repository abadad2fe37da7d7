"""Starting a live run through the sandbox's form, shared by the live-mode test modules."""

import json

from studyapp.sandbox.models import LiveRun

#: What the live form posts: the refund scenario on Haiku 5.5.
FORM = {
    "scenario": "refund-25-days",
    "prompt": "",
    "model": "claude-haiku-5-5",
    "tool_choice": "auto",
    "thinking": "default",
    "tool_name": "",
    "max_tokens": 1024,
    "budget_tokens": 2048,
    "tool_mode": "automatic",
    "max_turns": 6,
    "token_budget": 60000,
    "wall_clock_s": 120,
    "max_identical_calls": 2,
}


def create(client, **changes):
    """Start a live run with ``changes`` to the form; the run the redirect points at."""
    response = client.post("/sandbox/live/", {**FORM, **changes})
    assert response.status_code == 302, response.content.decode()[-1500:]
    return LiveRun.objects.latest("pk")


def sse(*events):
    """A streamed Messages API answer: ``(event type, fields)`` pairs as server-sent events."""
    return "".join(f"event: {k}\ndata: {json.dumps({'type': k, **d})}\n\n" for k, d in events)


#: The ``message_start`` of a streamed answer, before any content block.
STREAM_START = {
    "id": "msg_x",
    "type": "message",
    "role": "assistant",
    "model": "claude-haiku-5-5",
    "content": [],
    "stop_reason": None,
    "usage": {"input_tokens": 5, "output_tokens": 1},
}
