"""A scripted fake of the Messages API behind the real anthropic SDK (an httpx2 MockTransport).

    api = FakeAPI([reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done"))])
    client = api.client()
    ...
    api.requests[1]["messages"]   # every request body the SDK sent, decoded

Script items: a response dict (build one with :func:`reply`), :class:`ApiError` (an HTTP error
status with the API's error body), or ``TIMEOUT`` / ``CONNECTION_ERROR``. A request whose body has
``"stream": true`` gets the same response as Server-Sent Events. ``on_request(body)`` runs for
every request (tests advance a fake clock there).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2

_ids = itertools.count(1)


def _next_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):06d}"


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(name: str, tool_input: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": id or _next_id("toolu"), "name": name, "input": tool_input}


def thinking(value: str, signature: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": signature}


def server_tool_use(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "server_tool_use",
        "id": _next_id("srvtoolu"),
        "name": name,
        "input": tool_input,
    }


def reply(
    *blocks: dict[str, Any],
    stop_reason: str | None = None,
    usage: tuple[int, int] = (100, 20),
    model: str = "claude-test",
) -> dict[str, Any]:
    """A Message as the API returns it; stop_reason defaults to tool_use/end_turn by content."""
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {
        "id": _next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


@dataclass
class ApiError:
    status: int
    type: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)


RATE_LIMITED = ApiError(429, "rate_limit_error", "Number of requests has exceeded your rate limit.")
OVERLOADED = ApiError(529, "overloaded_error", "Overloaded")
UNAUTHORIZED = ApiError(401, "authentication_error", "invalid x-api-key")
TIMEOUT = "timeout"
CONNECTION_ERROR = "connection_error"


def sse(message: dict[str, Any]) -> bytes:
    """The response as the streaming API sends it (text, thinking and tool input in pieces)."""
    out: list[str] = []

    def event(kind: str, data: dict[str, Any]) -> None:
        out.append(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n")

    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    start["usage"] = {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}
    event("message_start", {"message": start})
    for i, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            event(
                "content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}}
            )
            half = len(block["text"]) // 2
            for piece in (block["text"][:half], block["text"][half:]):
                event(
                    "content_block_delta",
                    {"index": i, "delta": {"type": "text_delta", "text": piece}},
                )
        elif kind == "thinking":
            empty = {"type": "thinking", "thinking": "", "signature": ""}
            event("content_block_start", {"index": i, "content_block": empty})
            event(
                "content_block_delta",
                {"index": i, "delta": {"type": "thinking_delta", "thinking": block["thinking"]}},
            )
            event(
                "content_block_delta",
                {"index": i, "delta": {"type": "signature_delta", "signature": block["signature"]}},
            )
        elif kind == "tool_use":
            event("content_block_start", {"index": i, "content_block": dict(block, input={})})
            raw = json.dumps(block["input"])
            half = len(raw) // 2
            for piece in (raw[:half], raw[half:]):
                event(
                    "content_block_delta",
                    {"index": i, "delta": {"type": "input_json_delta", "partial_json": piece}},
                )
        else:
            event("content_block_start", {"index": i, "content_block": block})
        event("content_block_stop", {"index": i})
    event(
        "message_delta",
        {
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    event("message_stop", {})
    return "".join(out).encode()


class FakeAPI:
    """Plays ``script`` in order, one item per request; records every request body."""

    def __init__(
        self,
        script: list[Any],
        *,
        on_request: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.on_request = on_request

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.on_request is not None:
            self.on_request(body)
        if not self.script:
            raise AssertionError(f"unexpected request #{len(self.requests)}: the script is over")
        item = self.script.pop(0)
        if item == TIMEOUT:
            raise httpx2.ReadTimeout("timed out", request=request)
        if item == CONNECTION_ERROR:
            raise httpx2.ConnectError("connection refused", request=request)
        if isinstance(item, ApiError):
            return httpx2.Response(
                item.status,
                json={
                    "type": "error",
                    "error": {"type": item.type, "message": item.message},
                    "request_id": "req_fake",
                },
                headers=item.headers,
            )
        if body.get("stream"):
            return httpx2.Response(
                200, content=sse(item), headers={"content-type": "text/event-stream"}
            )
        return httpx2.Response(200, json=item)

    def client(self) -> anthropic.Anthropic:
        transport = httpx2.MockTransport(self.handler)
        return anthropic.Anthropic(
            api_key="test-key", max_retries=0, http_client=httpx2.Client(transport=transport)
        )


class FakeClock:
    """A clock the fake API moves forward: ``FakeAPI(on_request=clock.tick_on_request(5))``."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def tick_on_request(self, seconds: float) -> Callable[[dict[str, Any]], None]:
        def tick(_body: dict[str, Any]) -> None:
            self.now += seconds

        return tick
