"""Reading a message history: messages, their blocks, and turns of one role."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..i18n import gettext_noop
from ..transcript import join_path
from .findings import Finding, _finding

_THINKING_TYPES = ("thinking", "redacted_thinking")


@dataclass
class _Msg:
    index: int
    role: str | None  # None: not a usable message (already reported)
    blocks: list[tuple[str, dict[str, Any]]]  # (path, block)


def _read(
    messages: list[Any],
    findings: list[Finding],
    since: int,
    cache: dict[int, tuple[Any, _Msg]] | None = None,
) -> list[_Msg]:
    out = []
    for i, message in enumerate(messages):
        if cache is not None:
            hit = cache.get(id(message))
            if hit is not None and hit[0] is message and hit[1].index == i:
                out.append(hit[1])
                continue
        path = f"messages[{i}]"
        report = i >= since
        if not isinstance(message, dict):
            if report:
                findings.append(
                    _finding(
                        "message-shape",
                        path,
                        gettext_noop("%(path)s must be an object with role and content."),
                        {"path": path},
                    )
                )
            out.append(_Msg(i, None, []))
            continue
        role = message.get("role")
        if role not in ("user", "assistant"):
            if report:
                findings.append(
                    _finding(
                        "message-shape",
                        join_path(path, "role"),
                        gettext_noop("%(path)s.role must be 'user' or 'assistant'."),
                        {"path": path},
                    )
                )
            role = None
        content = message.get("content")
        blocks: list[tuple[str, dict[str, Any]]] = []
        if isinstance(content, str):
            blocks.append((join_path(path, "content"), {"type": "text", "text": content}))
        elif isinstance(content, list):
            for k, block in enumerate(content):
                where = join_path(join_path(path, "content"), k)
                if isinstance(block, dict) and isinstance(block.get("type"), str):
                    blocks.append((where, block))
                elif report:
                    findings.append(
                        _finding(
                            "message-shape",
                            where,
                            gettext_noop("%(path)s must be a content block object with a 'type'."),
                            {"path": where},
                        )
                    )
        elif report:
            findings.append(
                _finding(
                    "message-shape",
                    join_path(path, "content"),
                    gettext_noop("%(path)s.content must be a string or a list of content blocks."),
                    {"path": path},
                )
            )
        out.append(_Msg(i, role, blocks))
        if cache is not None:
            cache[id(message)] = (message, out[-1])
    return out


def _groups(msgs: list[_Msg]) -> list[list[_Msg]]:
    """Runs of consecutive messages with the same role (the API merges them into one turn)."""
    groups: list[list[_Msg]] = []
    for m in msgs:
        if groups and m.role is not None and groups[-1][0].role == m.role:
            groups[-1].append(m)
        else:
            groups.append([m])
    return groups


def _role(group: list[_Msg] | None) -> str | None:
    return group[0].role if group else None


def _ids(group: list[_Msg], kind: str) -> list[tuple[_Msg, str, str, dict[str, Any]]]:
    out = []
    for m in group:
        for path, block in m.blocks:
            if block.get("type") == kind and isinstance(block.get("id"), str):
                out.append((m, path, block["id"], block))
    return out


def _results(group: list[_Msg]) -> list[tuple[_Msg, str, dict[str, Any]]]:
    return [
        (m, path, block)
        for m in group
        for path, block in m.blocks
        if block.get("type") == "tool_result"
    ]


def _touches(group: list[_Msg] | None, since: int) -> bool:
    if not group:
        return False
    return group[-1].index >= since
