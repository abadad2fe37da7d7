"""Matching assistant messages to the earlier responses they came from."""

from __future__ import annotations

import json
from typing import Any

from ..transcript import normalize_message
from .history import _Msg


def _content(response: Any) -> list[Any]:
    if isinstance(response, dict):
        content = response.get("content")
    else:
        content = getattr(response, "content", None)
        if content is not None and not isinstance(content, list):
            content = None
        if content is not None:
            content = [b.model_dump() if hasattr(b, "model_dump") else b for b in content]
    return content if isinstance(content, list) else []


def _stop_reason(response: Any) -> Any:
    if isinstance(response, dict):
        return response.get("stop_reason")
    return getattr(response, "stop_reason", None)


class _Responses:
    """The earlier responses, indexed for matching (built once, grown turn by turn)."""

    def __init__(self, responses: list[Any] | None = None) -> None:
        self.answers: list[dict[str, Any]] = []
        self.by_key: dict[tuple[str, Any], int] = {}
        self.paused: dict[str, int] = {}
        self.cut: dict[str, int] = {}
        for response in responses if isinstance(responses, list | tuple) else []:
            self.add(response)

    def add(self, response: Any) -> None:
        j = len(self.answers)
        content = _content(response)
        answer = {"stop_reason": _stop_reason(response), "content": content}
        self.answers.append(answer)
        for block in content:
            key = _block_key(block)
            if key is not None:
                self.by_key.setdefault(key, j)
        if answer["stop_reason"] == "pause_turn" and content:
            self.paused.setdefault(_key(content), j)
        last = content[-1] if content else None
        if (
            answer["stop_reason"] == "max_tokens"
            and isinstance(last, dict)
            and last.get("type") == "tool_use"
            and isinstance(last.get("id"), str)
        ):
            self.cut[last["id"]] = j

    def match(self, m: _Msg) -> int | None:
        """Which earlier response an assistant message came from: by tool id, by thinking
        signature, or (for a paused turn) by identical content."""
        if m.role != "assistant" or not self.answers:
            return None
        for _, block in m.blocks:
            key = _block_key(block)
            if key is not None and key in self.by_key:
                return self.by_key[key]
        if self.paused and m.blocks:
            return self.paused.get(_key([b for _, b in m.blocks]))
        return None


def _block_key(block: Any) -> tuple[str, Any] | None:
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind in ("tool_use", "server_tool_use") and isinstance(block.get("id"), str):
        return ("id", block["id"])
    if kind == "thinking" and isinstance(block.get("signature"), str):
        return ("sig", block["signature"])
    if kind == "redacted_thinking" and isinstance(block.get("data"), str):
        return ("sig", block["data"])
    return None


def _key(content: list[Any]) -> str:
    return json.dumps(normalize_message({"content": content})["content"], sort_keys=True)
