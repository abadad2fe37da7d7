"""Server tools and pause_turn: pending server calls, paused turns sent back as they came."""

from __future__ import annotations

from ..i18n import Phrase, gettext_noop
from ..transcript import first_difference, normalize_message
from .findings import ERROR, LINT, Finding, _finding, _str
from .history import _ids, _Msg
from .responses import _Responses


def _pending_server_calls(group: list[_Msg]) -> list[tuple[str, str, str]]:
    """(path, id, name) of server_tool_use blocks without their result block in the turn."""
    resolved = {
        _str(block.get("tool_use_id"))
        for m in group
        for _, block in m.blocks
        if str(block.get("type", "")).endswith("_tool_result")
        and block.get("type") != "tool_result"
    }
    return [
        (path, tool_id, str(block.get("name", "")))
        for _, path, tool_id, block in _ids(group, "server_tool_use")
        if tool_id not in resolved
    ]


def _server_api_error(name: str, tool_id: str) -> str:
    if name != "web_search":  # the fact sheet records the web_search wording only
        return ""
    return (
        f"`web_search` tool use with id `{tool_id}` was found without a corresponding "
        "`web_search_tool_result` block"
    )


def _check_server_tools(
    findings: list[Finding],
    group: list[_Msg],
    user: list[_Msg] | None,
    *,
    tool_names: set[str] | None,
    paused: bool,
) -> None:
    pending = _pending_server_calls(group)
    if not pending:
        return
    if user is None and tool_names is not None:
        for path, _tool_id, name in pending:
            if name and name not in tool_names:
                findings.append(
                    _finding(
                        "server-tool-not-provided",
                        path,
                        gettext_noop(
                            "%(path)s is a %(name)s call that the server will resume, but tools "
                            "has no %(name)s tool. Continue a paused or deferred server tool call "
                            "with the same tools as before."
                        ),
                        {"path": path, "name": name},
                        api_error=f"... but no `{name}` tool was provided"
                        if name == "web_search"
                        else "",
                    )
                )
    if user is None or paused:
        return  # a paused turn followed by a user message is reported by the pause rule
    for m in user:
        for path, block in m.blocks:
            if block.get("type") != "tool_result":
                call_path, tool_id, name = pending[0]
                findings.append(
                    _finding(
                        "server-tool-result-pending",
                        path,
                        gettext_noop(
                            "The %(name)s call at %(call)s has no result yet (the server runs it "
                            "on the next request), so the user message must hold only "
                            "tool_result blocks; %(path)s adds a %(type)s block. (Rule from the "
                            "2026 docs.)"
                        ),
                        {
                            "name": name or Phrase(gettext_noop("server tool")),
                            "call": call_path,
                            "path": path,
                            "type": block.get("type"),
                        },
                        api_error=_server_api_error(name, tool_id),
                    )
                )
                return


def _check_paused(
    findings: list[Finding], msgs: list[_Msg], index: _Responses, *, since: int
) -> None:
    answers = index.answers
    by_response: dict[int, int] = {}
    for msg in msgs[max(since - 1, 0) :]:
        j = index.match(msg)
        if j is not None:
            by_response[j] = msg.index  # the latest copy is the one being resent
    for j, response in enumerate(answers):
        if response["stop_reason"] != "pause_turn":
            continue
        m = by_response.get(j)
        if m is None:
            if j == len(answers) - 1:
                findings.append(
                    _finding(
                        "pause-turn-not-resent",
                        "messages",
                        gettext_noop(
                            "The last response paused (stop_reason pause_turn), but its content "
                            "is not in this request. Append the paused assistant content as it "
                            "came and call again with the same tools; the server resumes from "
                            "there."
                        ),
                    )
                )
            continue
        if m + 1 < len(msgs) and m + 1 < since:
            continue  # reported when that request was checked
        sent = normalize_message({"content": [b for _, b in msgs[m].blocks]})["content"]
        original = normalize_message({"content": response["content"]})["content"]
        if sent != original:
            where = first_difference(original, sent, f"messages[{m}].content")
            findings.append(
                _finding(
                    "pause-turn-not-resent",
                    where or f"messages[{m}]",
                    gettext_noop(
                        "messages[%(index)s] is the paused turn, but not as it came back (first "
                        "difference at %(where)s). Send the paused content back unchanged unless "
                        "you mean to redirect Claude."
                    ),
                    {"index": m, "where": where},
                )
            )
        if m + 1 < len(msgs) and msgs[m + 1].role == "user":
            pending = _pending_server_calls([msgs[m]])
            findings.append(
                _finding(
                    "pause-turn-continue-message",
                    f"messages[{m + 1}]",
                    gettext_noop(
                        "messages[%(next)s] is a user message added after the paused turn "
                        "messages[%(index)s]. A paused turn is continued by sending the assistant "
                        'content back as is, with no extra "continue" message. Here the %(name)s '
                        "call %(id)s has no result yet, so the API rejects the request."
                    )
                    if pending
                    else gettext_noop(
                        "messages[%(next)s] is a user message added after the paused turn "
                        "messages[%(index)s]. A paused turn is continued by sending the assistant "
                        'content back as is, with no extra "continue" message.'
                    ),
                    {
                        "next": m + 1,
                        "index": m,
                        **({"name": pending[0][2], "id": pending[0][1]} if pending else {}),
                    },
                    severity=ERROR if pending else LINT,
                    api_error=_server_api_error(pending[0][2], pending[0][1]) if pending else "",
                )
            )
