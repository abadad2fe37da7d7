"""tool_use / tool_result rules: every call answered, once, first, in one message."""

from __future__ import annotations

import json

from ..i18n import Phrase, gettext_noop
from .findings import Finding, _api_path, _finding, _str
from .history import _ids, _Msg, _results


def _check_answers(findings: list[Finding], group: list[_Msg], user: list[_Msg] | None) -> None:
    """Every tool_use is answered by a tool_result in the very next user message."""
    answered = {_str(b.get("tool_use_id")) for _, _, b in _results(user)} if user else set()
    missing: dict[int, list[tuple[str, str]]] = {}
    for m, path, tool_id, _ in _ids(group, "tool_use"):
        if tool_id not in answered:
            missing.setdefault(m.index, []).append((path, tool_id))
    for index, items in missing.items():
        ids = ", ".join(tool_id for _, tool_id in items)
        one = len(items) == 1
        if user is None:
            where = Phrase(
                gettext_noop("the request ends there, with no user message to answer it")
                if one
                else gettext_noop("the request ends there, with no user message to answer them")
            )
        else:
            where = Phrase(
                gettext_noop("the next user message (messages[%(next)s]) has no tool_result for it")
                if one
                else gettext_noop(
                    "the next user message (messages[%(next)s]) has no tool_result for them"
                ),
                {"next": user[0].index},
            )
        findings.append(
            _finding(
                "tool-result-missing",
                items[0][0],
                gettext_noop(
                    "messages[%(index)s] calls %(ids)s, but %(where)s. Every tool_use needs a "
                    "tool_result with its id in the user message right after it, even when the "
                    "tool failed (then with is_error: true)."
                ),
                {"index": index, "ids": ids, "where": where},
                api_error=(
                    f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {ids}. Each `tool_use` block must have a corresponding "
                    "`tool_result` block in the next message."
                ),
            )
        )


def _check_results(
    findings: list[Finding], group: list[_Msg], assistant: list[_Msg] | None
) -> None:
    results = _results(group)
    if not results:
        return
    called = [tool_id for _, _, tool_id, _ in _ids(assistant, "tool_use")] if assistant else []
    seen: set[str] = set()
    for _m, path, block in results:
        tool_id = block.get("tool_use_id")
        shown = tool_id if isinstance(tool_id, str) else json.dumps(tool_id)
        if tool_id not in called:
            before: str | Phrase = (
                f"messages[{assistant[-1].index}]"
                if assistant
                else Phrase(gettext_noop("the previous message"))
            )
            findings.append(
                _finding(
                    "tool-result-orphan",
                    path,
                    gettext_noop(
                        "%(path)s answers %(id)s, but %(before)s has no tool_use with that id. A "
                        "tool_result must answer a tool_use of the assistant message right "
                        "before it."
                    ),
                    {"path": path, "id": shown, "before": before},
                    api_error=(
                        f"{_api_path(path)}: unexpected `tool_use_id` found in `tool_result` "
                        f"blocks: {shown}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message."
                    ),
                )
            )
        elif tool_id in seen:
            findings.append(
                _finding(
                    "tool-result-duplicate",
                    path,
                    gettext_noop(
                        "%(path)s is a second tool_result for %(id)s. Send exactly one result per "
                        "tool_use id. Expected 400: no recorded API error text for this case."
                    ),
                    {"path": path, "id": shown},
                )
            )
        if isinstance(tool_id, str):
            seen.add(tool_id)

    # Tool results first: nothing but tool_result blocks before the last of them.
    last_result = max(
        (m.index, k)
        for m in group
        for k, (_, block) in enumerate(m.blocks)
        if block.get("type") == "tool_result"
    )
    misplaced = next(
        (
            (path, block)
            for m in group
            for k, (path, block) in enumerate(m.blocks)
            if (m.index, k) < last_result and block.get("type") != "tool_result"
        ),
        None,
    )
    if misplaced:
        path, block = misplaced
        findings.append(
            _finding(
                "tool-result-not-first",
                path,
                gettext_noop(
                    "%(path)s is a %(type)s block placed before tool_result blocks of the same "
                    "user message. The tool_result blocks must come first; any text goes after "
                    "them."
                ),
                {"path": path, "type": block.get("type")},
                api_error=(
                    f"{_api_path(path).split('.content')[0]}: Did not find "
                    f"{len(called) or len(results)} `tool_result` "
                    "block(s) at the beginning of this message. Messages following `tool_use` "
                    "blocks must begin with a matching number of `tool_result` blocks."
                ),
            )
        )

    carriers = [m for m in group if any(b.get("type") == "tool_result" for _, b in m.blocks)]
    if assistant and len(carriers) > 1 and len(called) > 1:  # calls imply an assistant turn
        first_path = next(p for p, b in carriers[1].blocks if b.get("type") == "tool_result")
        listed = ", ".join(f"messages[{m.index}]" for m in carriers)
        findings.append(
            _finding(
                "tool-results-split",
                first_path,
                gettext_noop(
                    "The results for the tool calls of messages[%(index)s] are spread over "
                    "%(count)s user messages (%(listed)s). Send all results of a batch together "
                    "in ONE user message. Even where the API accepts this (it merges consecutive "
                    "user messages), the docs call it wrong: it teaches Claude to stop making "
                    "parallel calls."
                ),
                {"index": assistant[-1].index, "count": len(carriers), "listed": listed},
            )
        )
