"""The recorded loop as data: Transcript, Turn, Divergence."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import catalogue
from .blocks import Block
from .limits import FORMAT

if TYPE_CHECKING:
    from anthropic.types import Message

# --- the model ---------------------------------------------------------------------------------


@dataclass
class Divergence:
    """Something the replay noticed; :func:`contract.check_transcript` turns it into a finding."""

    step: int
    kind: str  # "mismatch" | "after_stop" | "unknown_stop_reason"
    path: str
    detail: str


@dataclass
class Turn:
    """One API call of the loop: the request the replay derives and the response recorded."""

    index: int
    response: dict[str, Any]  # exactly as recorded
    message: Message | None  # the SDK object; None for an upload that only validates loosely
    blocks: list[Block]
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    elapsed_ms: int | None = None
    note: str = ""
    request_overrides: dict[str, Any] = field(default_factory=dict)
    messages_sent: list[dict[str, Any]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Filled in by the replay:
    action: str | None = None  # catalogue next-action code; None for an unknown stop_reason
    request: dict[str, Any] = field(default_factory=dict)  # the full request JSON of this turn
    derived_messages: list[dict[str, Any]] = field(default_factory=list)
    appended: list[dict[str, Any]] | None = None  # added to the previous request; None: rewritten

    @property
    def stop_reason(self) -> str | None:
        return self.response.get("stop_reason")

    @property
    def api_error(self) -> dict[str, Any] | None:
        """The error of a failed call (an API error body was recorded instead of a Message)."""
        if self.response.get("type") == "error":
            error = self.response.get("error")
            return error if isinstance(error, dict) else {}
        return None

    @property
    def stream(self) -> dict[str, Any] | None:
        """For a response rebuilt from a stream: complete?, events, what is missing."""
        value = self.extra.get("stream")
        return value if isinstance(value, dict) else None

    @property
    def incomplete(self) -> bool:
        return bool(self.stream and not self.stream.get("complete"))

    @property
    def stop_sequence(self) -> str | None:
        return self.response.get("stop_sequence")

    @property
    def request_messages(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = self.request.get("messages", [])
        return messages

    @property
    def continues(self) -> bool:
        """Does the canonical loop call the API again after this turn?"""
        return self.action is not None and catalogue.NEXT_ACTIONS[self.action].continues

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b.data for b in self.blocks if b.type == "tool_use"]

    @property
    def has_raw_blocks(self) -> bool:
        return any(not b.known for b in self.blocks)

    @property
    def usage(self) -> dict[str, Any]:
        usage = self.response.get("usage")
        return usage if isinstance(usage, dict) else {}

    def _tokens(self, name: str) -> int:
        value = self.usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    @property
    def input_tokens(self) -> int:
        return self._tokens("input_tokens")

    @property
    def output_tokens(self) -> int:
        return self._tokens("output_tokens")

    @property
    def cache_creation_input_tokens(self) -> int:
        return self._tokens("cache_creation_input_tokens")

    @property
    def cache_read_input_tokens(self) -> int:
        return self._tokens("cache_read_input_tokens")

    @property
    def context_tokens(self) -> int:
        """Total input of this request: input + cache creation + cache read tokens."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"response": self.response, "tool_results": self.tool_results}
        if self.elapsed_ms is not None:
            out["elapsed_ms"] = self.elapsed_ms
        if self.note:
            out["note"] = self.note
        if self.request_overrides:
            out["request_overrides"] = self.request_overrides
        if self.messages_sent is not None:
            out["messages_sent"] = self.messages_sent
        out.update(self.extra)
        return out


@dataclass
class Transcript:
    """A recorded loop. ``params`` are the request parameters shared by every turn."""

    slug: str
    title: str
    summary: str
    tags: list[str]
    params: dict[str, Any]
    messages: list[dict[str, Any]]  # the initial messages
    turns: list[Turn]
    extra: dict[str, Any] = field(default_factory=dict)  # other top-level fields, kept
    source: str = "transcript"  # "transcript" | "raw_log" | "message"
    strict: bool = True
    warnings: list[str] = field(default_factory=list)  # things kept raw in an upload
    divergences: list[Divergence] = field(default_factory=list)

    # Convenience views of params and extra.
    @property
    def model(self) -> str:
        return self.params.get("model") or ""

    @property
    def system(self) -> Any:
        return self.params.get("system")

    @property
    def tools(self) -> list[dict[str, Any]]:
        return self.params.get("tools") or []

    @property
    def tool_choice(self) -> dict[str, Any] | None:
        return self.params.get("tool_choice")

    @property
    def thinking(self) -> dict[str, Any] | None:
        return self.params.get("thinking")

    @property
    def ended_by(self) -> str:
        value = self.extra.get("ended_by")
        return value if isinstance(value, str) else ""

    @property
    def guards(self) -> dict[str, Any]:
        value = self.extra.get("guards")
        return value if isinstance(value, dict) else {}

    @property
    def deliberately_broken(self) -> bool:
        return self.extra.get("deliberately_broken") is True

    @property
    def stop_reasons(self) -> list[str | None]:
        return [t.stop_reason for t in self.turns]

    def params_for(self, index: int) -> dict[str, Any]:
        """The request parameters of turn ``index`` (shared params + that turn's overrides)."""
        return {**self.params, **self.turns[index].request_overrides}

    def usage_series(self) -> list[dict[str, int]]:
        """Per turn: tokens of the turn and the running totals, for tables and the chart."""
        rows = []
        total_in = total_out = 0
        for turn in self.turns:
            total_in += turn.context_tokens
            total_out += turn.output_tokens
            rows.append(
                {
                    "step": turn.index,
                    "input_tokens": turn.input_tokens,
                    "output_tokens": turn.output_tokens,
                    "cache_creation_input_tokens": turn.cache_creation_input_tokens,
                    "cache_read_input_tokens": turn.cache_read_input_tokens,
                    # the size of the context this request sent, and after the response
                    "context_tokens": turn.context_tokens,
                    "context_after": turn.context_tokens + turn.output_tokens,
                    "cumulative_input_tokens": total_in,
                    "cumulative_output_tokens": total_out,
                }
            )
        return rows

    def context_series(self) -> list[int]:
        """The context size (input of the request + output of the response) after each turn."""
        return [t.context_tokens + t.output_tokens for t in self.turns]

    def to_dict(self) -> dict[str, Any]:
        """Serialise back to "loopcraft.transcript/1" (responses exactly as recorded)."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "slug": self.slug,
            "title": self.title,
            "summary": self.summary,
            "tags": list(self.tags),
        }
        out.update(self.extra)
        out.update(self.params)
        out["messages"] = self.messages
        out["turns"] = [t.to_dict() for t in self.turns]
        return out

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)
