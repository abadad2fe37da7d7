"""Thinking in a tool loop: present, unmodified, not switched on mid-loop."""

from __future__ import annotations

from typing import Any

from ..i18n import gettext_noop
from ..transcript import join_path, normalize_message
from .findings import Finding, _api_path, _finding
from .history import _THINKING_TYPES, _Msg, _results, _role
from .responses import _Responses


def _current_turn(groups: list[list[_Msg]]) -> list[_Msg] | None:
    """The assistant messages of a tool loop still in progress (the request ends with results)."""
    if not groups or _role(groups[-1]) != "user" or not _results(groups[-1]):
        return None
    turn: list[_Msg] = []
    for group in reversed(groups[:-1]):
        role = _role(group)
        if role == "assistant":
            turn[:0] = group
        elif role == "user" and _results(group):
            continue
        else:
            break
    return turn or None


def _thinking_blocks(blocks: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [(p, b) for p, b in blocks if isinstance(b, dict) and b.get("type") in _THINKING_TYPES]


def _check_thinking(
    findings: list[Finding],
    groups: list[list[_Msg]],
    *,
    thinking: Any,
    index: _Responses,
    since: int,
) -> None:
    turn = _current_turn(groups)
    if not turn:
        return
    budget_thinking = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    first = turn[0]
    first_type = first.blocks[0][1].get("type") if first.blocks else "nothing"
    j = index.match(first)
    response = index.answers[j] if j is not None else None
    response_thinks = bool(
        response
        and response["content"]
        and isinstance(response["content"][0], dict)
        and response["content"][0].get("type") in _THINKING_TYPES
    )
    reported_first = False
    # Thinking switched on in the middle of a tool loop: the response being continued has no
    # thinking block to send back, and the API still demands one (the loop is one turn).
    toggled_on = budget_thinking and response is not None and not response_thinks
    if toggled_on and first_type not in _THINKING_TYPES:
        # 2025 docs: a 400. Current docs ("Graceful thinking degradation"): no error, the API
        # silently disables thinking for that request. Still wrong: one configuration per turn.
        reported_first = True
        findings.append(
            _finding(
                "thinking-toggled",
                join_path(f"messages[{first.index}]", "content[0]"),
                gettext_noop(
                    "Thinking was switched on in the middle of a tool loop: messages[%(index)s] "
                    "came from a response without thinking. Thinking will be silently disabled "
                    'for that request (current docs, "Graceful thinking degradation"; in 2025 '
                    "this was a 400). Keep one thinking configuration per assistant turn: change "
                    "it only between turns (after an end_turn)."
                ),
                {"index": first.index},
            )
        )
    elif first_type not in _THINKING_TYPES and (response_thinks or budget_thinking):
        reported_first = True
        findings.append(
            _finding(
                "thinking-missing",
                join_path(f"messages[{first.index}]", "content[0]"),
                gettext_noop(
                    "messages[%(index)s] starts with a %(type)s block, but with thinking enabled "
                    "the assistant message of an unfinished tool loop must be sent back starting "
                    "with its thinking block, complete and unchanged."
                ),
                {"index": first.index, "type": first_type},
                api_error=(
                    f"messages.{first.index}.content.0.type: Expected `thinking` or "
                    f"`redacted_thinking`, but found `{first_type}`. When `thinking` is enabled, "
                    "a final `assistant` message must start with a thinking block (preceeding "
                    "the lastmost set of `tool_use` and `tool_result` blocks). …"
                ),
            )
        )
    for m in turn:
        if m is not first and m.index < since - 1:
            continue  # checked when it was the latest assistant message
        j = index.match(m)
        if j is None:
            continue
        sent = [
            (p, normalize_message({"content": [b]})["content"][0])
            for p, b in _thinking_blocks(m.blocks)
        ]
        original = [
            normalize_message({"content": [b]})["content"][0]
            for b in index.answers[j]["content"]
            if isinstance(b, dict) and b.get("type") in _THINKING_TYPES
        ]
        if [b for _, b in sent] == original or not original:
            continue
        if m is first and reported_first and not sent:
            continue
        where = f"messages[{m.index}]"
        for k in range(max(len(sent), len(original))):
            if k >= len(sent) or k >= len(original) or sent[k][1] != original[k]:
                where = sent[k][0] if k < len(sent) else f"messages[{m.index}].content"
                break
        findings.append(
            _finding(
                "thinking-modified",
                where,
                gettext_noop(
                    "The thinking blocks of messages[%(index)s] differ from the response they "
                    "came from (edited, reordered, dropped or re-signed). During a tool loop pass "
                    "them back exactly as received, signature included."
                ),
                {"index": m.index},
                # Full text as real API logs show it (anthropics/claude-code#63404, 2026-05).
                api_error=(
                    f"{_api_path(where)}: `thinking` or `redacted_thinking` blocks in the latest "
                    "assistant message cannot be modified. These blocks must remain as they were "
                    "in the original response."
                ),
            )
        )
