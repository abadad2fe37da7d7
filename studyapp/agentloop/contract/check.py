"""One request checked: the rule families run in order over the history."""

from __future__ import annotations

from typing import Any

from .. import models as model_catalogue
from ..i18n import gettext_noop
from ..transcript import MAX_DEPTH, TranscriptError, check_depth
from .findings import Finding, _finding
from .history import _groups, _Msg, _read, _role, _touches
from .request import _check_model, _check_request, _tool_names
from .responses import _Responses
from .server_tools import _check_paused, _check_server_tools
from .thinking import _check_thinking
from .tool_errors import _check_tool_errors
from .tool_results import _check_answers, _check_results
from .truncation import _check_truncated


def check(
    messages: Any,
    *,
    tools: Any = None,
    tool_choice: Any = None,
    thinking: Any = None,
    responses: list[Any] | None = None,
    params: dict[str, Any] | None = None,
    model: str | None = None,
    api_version: str = model_catalogue.API_VERSION,
    check_status: bool = True,
) -> list[Finding]:
    """Check one request against the API's rules.

    ``responses``: the responses received earlier in this conversation (oldest first, dicts or
    SDK Messages); with them the checker can tell whether thinking blocks and paused turns
    were passed back unchanged and whether a cut-off tool_use was executed. ``params``: the
    request's other top-level fields (for example to spot a top-level
    ``disable_parallel_tool_use``). ``model`` (or ``params["model"]``): also check the
    request against that model's rules (models.check_request) under ``api_version``;
    ``check_status=False`` leaves out retirement (for loops recorded when the model was served).
    Never raises on bad input: shape problems are findings.
    """
    return _check(
        messages,
        tools=tools,
        tool_choice=tool_choice,
        thinking=thinking,
        responses=responses,
        params=params,
        since=0,
        model=model,
        api_version=api_version,
        check_status=check_status,
    )


def _check(
    messages: Any,
    *,
    tools: Any,
    tool_choice: Any,
    thinking: Any,
    responses: list[Any] | _Responses | None,
    params: dict[str, Any] | None,
    since: int,
    cache: dict[int, tuple[Any, _Msg]] | None = None,
    model: str | None = None,
    api_version: str = model_catalogue.API_VERSION,
    check_status: bool = True,
) -> list[Finding]:
    findings: list[Finding] = []
    _check_request(findings, tools=tools, tool_choice=tool_choice, thinking=thinking, params=params)
    if model is None and isinstance(params, dict):
        model = params.get("model")
    if model is not None:
        _check_model(
            findings,
            model,
            {
                **(params if isinstance(params, dict) else {}),
                "tools": tools,
                "tool_choice": tool_choice,
                "thinking": thinking,
                "messages": messages,
            },
            api_version=api_version,
            check_status=check_status,
        )
    if not isinstance(messages, list):
        findings.append(
            _finding(
                "message-shape",
                "messages",
                gettext_noop("messages must be a list of message objects."),
            )
        )
        return findings
    if cache is None:  # a standalone call on data that did not come through the parser
        try:
            check_depth([messages, responses if isinstance(responses, list) else None])
        except TranscriptError:
            findings.append(
                _finding(
                    "message-shape",
                    "messages",
                    gettext_noop("The history is nested more than %(depth)s levels deep."),
                    {"depth": MAX_DEPTH},
                )
            )
            return findings
    msgs = _read(messages, findings, since, cache)
    groups = _groups(msgs)
    index = responses if isinstance(responses, _Responses) else _Responses(responses)
    tool_names = _tool_names(tools)

    for g, group in enumerate(groups):
        before = groups[g - 1] if g > 0 else None
        after = groups[g + 1] if g + 1 < len(groups) else None
        if _role(group) == "assistant" and (_touches(group, since) or _touches(after, since)):
            paused = any(
                index.answers[j]["stop_reason"] == "pause_turn"
                for j in (index.match(m) for m in group)
                if j is not None
            )
            _check_answers(findings, group, after if _role(after) == "user" else None)
            _check_server_tools(
                findings,
                group,
                after if _role(after) == "user" else None,
                tool_names=tool_names,
                paused=paused,
            )
        if _role(group) == "user" and _touches(group, since):
            _check_results(findings, group, before if _role(before) == "assistant" else None)

    _check_thinking(findings, groups, thinking=thinking, index=index, since=since)
    _check_paused(findings, msgs, index, since=since)
    _check_truncated(findings, msgs, index, since=since)
    _check_tool_errors(findings, msgs, since=since)
    return findings
