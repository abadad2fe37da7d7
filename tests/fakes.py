"""A scripted fake of the Messages API behind the real anthropic SDK (an httpx2 MockTransport).

    api = FakeAPI([reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done"))])
    client = api.client()
    ...
    api.requests[1]["messages"]   # every request body the SDK sent, decoded

Script items: a response dict (build one with :func:`reply`), :class:`ApiError` (an HTTP error
status with the API's error body), or ``TIMEOUT`` / ``CONNECTION_ERROR``. A request whose body has
``"stream": true`` gets the same response as Server-Sent Events. ``on_request(body)`` runs for
every request (tests advance a fake clock there).

The fake enforces today's per-model rules (facts-current §2 and §4), written here independently
of ``studyapp.agentloop.models`` so that the two check each other: retired and unknown model ids
(404), sampling parameters under API version 2026-10-21, forced tool_choice, thinking modes,
assistant prefill (400 with the API's text where one is published). For models whose thinking is
on, every response starts with a thinking block with empty text (``display: "omitted"``) and a
signature derived from a hash of the model, system, tools and everything before the block; a
request that sends such a block back after that prefix changed gets the documented 400 ("The
block is bound to a different conversation"). A rejected request consumes no script item.
``rejected`` lists the (status, message) of each refusal.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
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


# --- the per-model rules the fake enforces -------------------------------------------------------
# forced: True (accepted) | False (400) | "not_with_manual" (400 with thinking type enabled)
_GEN_55 = {"forced": False, "modes": {"adaptive"}, "on": True, "prefill": False, "bound": True}
FAKE_MODELS: dict[str, dict[str, Any]] = {
    "claude-opus-5-5": _GEN_55,
    "claude-fable-5-1": _GEN_55,
    "claude-sonnet-5-5": {**_GEN_55, "modes": {"adaptive", "between_tools"}},
    "claude-haiku-5-5": {**_GEN_55, "forced": True, "modes": {"adaptive", "disabled"}},
    "claude-opus-5": {**_GEN_55, "forced": True, "modes": {"adaptive", "disabled"}, "bound": False},
    "claude-opus-4-6": {
        "forced": "not_with_manual",
        "modes": {"adaptive", "enabled", "disabled"},
        "on": False,
        "prefill": False,
        "bound": False,
    },
    "claude-haiku-4-5": {
        "forced": "not_with_manual",
        "modes": {"enabled", "disabled"},
        "on": False,
        "prefill": True,
        "bound": False,
    },
}
FAKE_MODELS["claude-sonnet-4-6"] = FAKE_MODELS["claude-opus-4-6"]
FAKE_MODELS["claude-opus-4-5"] = FAKE_MODELS["claude-haiku-4-5"]
RETIRED = {
    "claude-sonnet-4-5",
    "claude-sonnet-4-5-20250929",
    "claude-sonnet-4-20250514",
    "claude-opus-4-20250514",
    "claude-opus-4-1",
    "claude-opus-4-1-20250805",
}
TEXT_THINKING = (
    '"thinking.type.{kind}" is not supported for this model. Use "thinking.type.adaptive" and '
    '"output_config.effort" to control thinking behavior.'
)
TEXT_PREFILL = (
    "This model does not support assistant message prefill. The conversation must end with a "
    "user message."
)
TEXT_BOUND = (
    "messages.{m}.content.{c}: Invalid `signature` in `thinking` block. The block is bound to a "
    "different conversation. Remove the block, or set "
    '`thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)


def bound_signature(model: str, body: dict[str, Any], messages: list[Any], before: list[Any]):
    """The fake's signature: a hash of the model, system, tools and everything before a block."""
    prefix = {
        "model": model,
        "system": body.get("system"),
        "tools": body.get("tools"),
        "messages": messages,
        "before": before,
    }
    digest = hashlib.sha256(json.dumps(prefix, sort_keys=True).encode()).hexdigest()
    return f"fakesig-{model}-{digest[:32]}"


def _thinking_on(rules: dict[str, Any], body: dict[str, Any]) -> bool:
    kind = (body.get("thinking") or {}).get("type")
    if kind is None:
        return rules["on"]
    return kind in ("adaptive", "enabled")


def model_rule_error(body: dict[str, Any], version: str) -> ApiError | None:
    """The error the stand-in API returns for this request, or None when it is accepted."""
    model = body.get("model")
    if model in RETIRED or model not in FAKE_MODELS:
        return ApiError(404, "not_found_error", f"model: {model}")
    rules = FAKE_MODELS[model]
    if version == "2026-10-21":
        for name in ("temperature", "top_p", "top_k"):
            if name in body:
                return ApiError(
                    400, "invalid_request_error", f"{name}: Extra inputs are not permitted"
                )
    kind = (body.get("thinking") or {}).get("type")
    if kind is not None and kind not in rules["modes"]:
        return ApiError(400, "invalid_request_error", TEXT_THINKING.format(kind=kind))
    forced = (body.get("tool_choice") or {}).get("type") in ("any", "tool")
    if forced and (
        rules["forced"] is False or (rules["forced"] == "not_with_manual" and kind == "enabled")
    ):
        return ApiError(
            400, "invalid_request_error", "(fake) forced tool_choice is not supported here"
        )
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    text_only = isinstance(last.get("content"), str) or all(
        b.get("type") == "text" for b in last.get("content") or []
    )  # a paused turn (server tool blocks) sent back to be resumed is not a prefill
    if last.get("role") == "assistant" and text_only and not rules["prefill"]:
        return ApiError(400, "invalid_request_error", TEXT_PREFILL)
    if rules["bound"]:
        for m, message in enumerate(messages):
            content = message.get("content")
            if message.get("role") != "assistant" or not isinstance(content, list):
                continue
            for c, block in enumerate(content):
                signature = block.get("signature", "") if isinstance(block, dict) else ""
                if block.get("type") != "thinking" or not signature.startswith("fakesig-"):
                    continue
                if not signature.startswith(f"fakesig-{model}-"):
                    continue  # another model's block: the API drops it without an error
                if signature != bound_signature(model, body, messages[:m], content[:c]):
                    return ApiError(400, "invalid_request_error", TEXT_BOUND.format(m=m, c=c))
    return None


class FakeAPI:
    """Plays ``script`` in order, one item per request; records every request body."""

    def __init__(
        self,
        script: list[Any],
        *,
        on_request: Callable[[dict[str, Any]], None] | None = None,
        enforce_rules: bool = True,
    ) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.rejected: list[tuple[int, str]] = []
        self.on_request = on_request
        self.enforce_rules = enforce_rules

    def _error(self, item: ApiError) -> httpx2.Response:
        return httpx2.Response(
            item.status,
            json={
                "type": "error",
                "error": {"type": item.type, "message": item.message},
                "request_id": "req_fake",
            },
            headers=item.headers,
        )

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.on_request is not None:
            self.on_request(body)
        if self.enforce_rules:
            refused = model_rule_error(body, request.headers.get("anthropic-version", ""))
            if refused is not None:
                self.rejected.append((refused.status, refused.message))
                return self._error(refused)
        if not self.script:
            raise AssertionError(f"unexpected request #{len(self.requests)}: the script is over")
        item = self.script.pop(0)
        if isinstance(item, dict) and self.enforce_rules:
            self._think(item, body)
        if item == TIMEOUT:
            raise httpx2.ReadTimeout("timed out", request=request)
        if item == CONNECTION_ERROR:
            raise httpx2.ConnectError("connection refused", request=request)
        if isinstance(item, ApiError):
            return self._error(item)
        if body.get("stream"):
            return httpx2.Response(
                200, content=sse(item), headers={"content-type": "text/event-stream"}
            )
        return httpx2.Response(200, json=item)

    def _think(self, item: dict[str, Any], body: dict[str, Any]) -> None:
        """For a thinking model, start the response with a bound, text-omitted thinking block.

        The script item is changed in place, so a test's reference to it shows what was served.
        """
        model = body.get("model")
        item["model"] = model
        rules = FAKE_MODELS.get(model)
        if rules is None or not _thinking_on(rules, body):
            return
        if (body.get("tool_choice") or {}).get("type") in ("any", "tool"):
            return  # forced tool use is accepted: thinking is skipped
        if any(b.get("type") in ("thinking", "redacted_thinking") for b in item["content"]):
            return
        messages = body.get("messages") or []
        signature = bound_signature(model, body, messages, [])
        item["content"].insert(0, {"type": "thinking", "thinking": "", "signature": signature})

    def client(self, api_key: str | None = None, **_: object) -> anthropic.Anthropic:
        """An SDK client on the fake: with the server's key (ANTHROPIC_API_KEY), or ``api_key``
        as ``runner.make_client`` passes a visitor's own key."""
        transport = httpx2.MockTransport(self.handler)
        return anthropic.Anthropic(
            api_key=api_key or os.environ.get("ANTHROPIC_API_KEY") or "test-key",
            max_retries=0,
            http_client=httpx2.Client(transport=transport),
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
