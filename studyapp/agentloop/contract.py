"""The Messages API contract: which histories the API rejects, and what it accepts but is wrong.

:func:`check` looks at one request (its ``messages`` plus ``tools``, ``tool_choice`` and
``thinking``) and, when the earlier responses are given, at how the application treated them.
:func:`check_transcript` runs it on every request a recorded loop sent and adds the lints that
need the whole run (how the loop ended, refusals retried, caps).

Severity ``"error"``: the API would reject the request (HTTP 400, ``invalid_request_error``);
``api_error`` then quotes the API's own text where the fact sheet records it.
Severity ``"lint"``: the API accepts it, but it is wrong by the documentation's standards.

The model of a history used here: the API combines consecutive messages of the same role into
one turn (SDK docstring of ``messages``), so "the next user message" is the run of user messages
right after the assistant turn.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from . import catalogue
from . import models as model_catalogue
from .transcript import (
    CAP_ENDINGS,
    GUARD_ENDINGS,
    MAX_DEPTH,
    Transcript,
    TranscriptError,
    Turn,
    check_depth,
    first_difference,
    join_path,
    normalize_message,
    normalize_messages,
)

DOC_PARALLEL = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use"
DOC_WEBSEARCH = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool"
DOC_AGENT_LOOP = "https://code.claude.com/docs/en/agent-sdk/agent-loop"
DOC_ERRORS = "https://platform.claude.com/docs/en/api/errors"

ERROR = "error"
LINT = "lint"


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str  # the usual severity; a finding may differ (see pause-turn-continue-message)
    title: str
    doc_url: str


RULES: dict[str, Rule] = {
    r.code: r
    for r in [
        # --- the API rejects these ----------------------------------------------------------
        Rule("message-shape", ERROR, "Message history is not well formed", DOC_ERRORS),
        Rule(
            "tool-result-missing",
            ERROR,
            "A tool_use has no tool_result in the very next user message",
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "tool-result-orphan",
            ERROR,
            "A tool_result answers no tool_use of the previous assistant message",
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "tool-result-duplicate",
            ERROR,
            "Two tool_result blocks answer the same tool_use",
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "tool-result-not-first",
            ERROR,
            "Text comes before the tool_result blocks",
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "server-tool-result-pending",
            ERROR,
            "A server tool call is still pending, but the user message adds other content",
            catalogue.DOC_STOP,
        ),
        Rule(
            "server-tool-not-provided",
            ERROR,
            "Resuming a server tool call without that server tool in tools",
            catalogue.DOC_STOP,
        ),
        Rule(
            "thinking-missing",
            ERROR,
            "Thinking is missing from the assistant message of the tool loop",
            catalogue.DOC_THINK,
        ),
        Rule(
            "thinking-modified",
            ERROR,
            "Thinking blocks were not passed back unchanged",
            catalogue.DOC_THINK,
        ),
        Rule(
            "thinking-budget-invalid",
            ERROR,
            "budget_tokens must be a whole number of at least 1,024",
            catalogue.DOC_THINK,
        ),
        Rule(
            "tool-choice-invalid", ERROR, "tool_choice has an invalid shape", catalogue.DOC_DEFINE
        ),
        Rule(
            "tool-choice-forced-with-thinking",
            ERROR,
            "Forced tool_choice (any/tool) with budget-style extended thinking",
            catalogue.DOC_DEFINE,
        ),
        # per model (models.check_request): the message names the model and the rule
        Rule(
            "model-retirement",
            ERROR,
            "The model is retired (or past its retirement date)",
            model_catalogue.DOC_DEPRECATIONS,
        ),
        Rule(
            "model-sampling",
            ERROR,
            "The model rejects temperature / top_p / top_k under this API version",
            model_catalogue.DOC_VERSIONING,
        ),
        Rule(
            "model-forced-tool-choice",
            ERROR,
            "The model rejects forced tool_choice (any / tool)",
            model_catalogue.DOC_THINK_TOOLS,
        ),
        Rule(
            "model-prefill",
            ERROR,
            "The model rejects assistant prefill",
            model_catalogue.DOC_PREFILL,
        ),
        Rule(
            "model-manual-thinking",
            ERROR,
            "The model rejects this thinking mode (budget_tokens / adaptive)",
            model_catalogue.DOC_THINK_TROUBLE,
        ),
        Rule(
            "model-thinking-disabled",
            ERROR,
            "The model does not turn thinking off this way",
            model_catalogue.DOC_THINK_TROUBLE,
        ),
        Rule(
            "model-unknown",
            LINT,
            "Rules unknown for this model",
            model_catalogue.DOC_DEPRECATIONS,
        ),
        Rule(
            "disable-parallel-top-level",
            ERROR,
            "disable_parallel_tool_use belongs inside tool_choice",
            catalogue.DOC_DEFINE,
        ),
        # --- the API accepts these, the documentation calls them wrong -------------------------
        Rule(
            "thinking-toggled",
            LINT,
            "Thinking switched on in the middle of a tool loop",
            model_catalogue.DOC_EXTENDED,
        ),
        Rule(
            "tool-results-split",
            LINT,
            "Results of one parallel batch are split across user messages",
            DOC_PARALLEL,
        ),
        Rule(
            "pause-turn-continue-message",
            LINT,
            "A paused turn was followed by an added user message",
            catalogue.DOC_STOP,
        ),
        Rule(
            "pause-turn-not-resent",
            LINT,
            "A paused turn was not sent back as it came",
            catalogue.DOC_STOP,
        ),
        Rule(
            "truncated-tool-use-executed",
            LINT,
            "A tool_use cut off by max_tokens was executed",
            catalogue.DOC_STOP,
        ),
        Rule(
            "retry-without-more-tokens",
            LINT,
            "A cut-off tool_use was retried without a larger max_tokens",
            catalogue.DOC_STOP,
        ),
        Rule(
            "tool-error-not-flagged",
            LINT,
            "A tool failure is returned as a success (no is_error)",
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "loop-ignores-stop-reason",
            LINT,
            "The loop ended (or went on) against stop_reason",
            catalogue.DOC_STOP,
        ),
        Rule(
            "max-tokens-as-done",
            LINT,
            "The run ended on a max_tokens response as if it were complete",
            catalogue.DOC_STOP,
        ),
        Rule(
            "refusal-retried-unchanged",
            LINT,
            "A refused request was sent again unchanged",
            catalogue.DOC_REFUSAL,
        ),
        Rule(
            "cap-only-stop",
            LINT,
            "The iteration cap ended a run that stop_reason had not ended",
            DOC_AGENT_LOOP,
        ),
        Rule(
            "turn-after-stop",
            LINT,
            "The run called the API again after a stop_reason that ends the loop",
            catalogue.DOC_STOP,
        ),
        Rule(
            "replay-mismatch",
            LINT,
            "What the turn logged as sent differs from the replay of the loop",
            catalogue.DOC_STOP,
        ),
        Rule(
            "unknown-stop-reason",
            LINT,
            "A stop_reason the catalogue does not know",
            catalogue.SDK_STOP_REASON,
        ),
    ]
}


@dataclass(frozen=True)
class Finding:
    """One problem, where it is and what the API (or the docs) say about it."""

    rule: str  # a code of RULES
    severity: str  # "error" | "lint"
    step: int | None  # the turn whose request (or response) it is in; None for check()
    path: str  # JSON path, relative to that request: messages[4].content[0], tool_choice...
    message: str  # plain words
    api_error: str = ""  # the API's own error text, where the fact sheet records it
    doc_url: str = ""

    @property
    def title(self) -> str:
        return RULES[self.rule].title

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "step": self.step,
            "path": self.path,
            "message": self.message,
            "api_error": self.api_error,
            "doc_url": self.doc_url,
        }


def _finding(
    rule: str, path: str, message: str, *, api_error: str = "", severity: str | None = None
) -> Finding:
    info = RULES[rule]
    return Finding(
        rule=rule,
        severity=severity or info.severity,
        step=None,
        path=path,
        message=message,
        api_error=api_error,
        doc_url=info.doc_url,
    )


def _str(value: Any) -> str | None:
    """Ids come from untrusted JSON: anything but a string counts as no id."""
    return value if isinstance(value, str) else None


def _api_path(path: str) -> str:
    """messages[4].content[1] -> messages.4.content.1 (how the API names places)."""
    return path.replace("[", ".").replace("]", "")


# --- reading a history -------------------------------------------------------------------------

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
                        "message-shape", path, f"{path} must be an object with role and content."
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
                        f"{path}.role must be 'user' or 'assistant'.",
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
                            f"{where} must be a content block object with a 'type'.",
                        )
                    )
        elif report:
            findings.append(
                _finding(
                    "message-shape",
                    join_path(path, "content"),
                    f"{path}.content must be a string or a list of content blocks.",
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
    return bool(group) and group[-1].index >= since


# --- response matching -------------------------------------------------------------------------


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


# --- the rules ---------------------------------------------------------------------------------


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
            _finding("message-shape", "messages", "messages must be a list of message objects.")
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
                    f"The history is nested more than {MAX_DEPTH} levels deep.",
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


def _check_model(
    findings: list[Finding],
    model: Any,
    request: dict[str, Any],
    *,
    api_version: str,
    check_status: bool,
) -> None:
    """The chosen model's own rules, as findings that name the model and the rule."""
    request = {k: v for k, v in request.items() if v is not None}
    for v in model_catalogue.check_request(
        model, request, api_version=api_version, check_status=check_status
    ):
        thinking = request.get("thinking")
        manual = isinstance(thinking, dict) and thinking.get("type") == "enabled"
        if v.rule == "forced-tool-choice" and manual:
            continue  # tool-choice-forced-with-thinking already says it, for every model
        code = v.rule if v.rule.startswith("model-") else f"model-{v.rule}"
        if code not in RULES:
            code = "model-manual-thinking"
        text = v.sentence
        findings.append(
            replace(
                _finding(
                    code,
                    v.path,
                    text,
                    api_error=v.api_error,
                    severity=ERROR if v.is_error else LINT,
                ),
                doc_url=v.source or RULES[code].doc_url,
            )
        )


def _tool_names(tools: Any) -> set[str] | None:
    if not isinstance(tools, list):
        return None
    return {t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)}


def _check_request(
    findings: list[Finding], *, tools: Any, tool_choice: Any, thinking: Any, params: Any
) -> None:
    budget_thinking = isinstance(thinking, dict) and thinking.get("type") == "enabled"
    if isinstance(tool_choice, dict) and not isinstance(tool_choice.get("type"), str):
        findings.append(
            _finding(
                "tool-choice-invalid",
                "tool_choice.type",
                "tool_choice.type must be one of auto, any, tool, none.",
            )
        )
    elif tool_choice is not None:
        try:
            catalogue.validate_tool_choice(tool_choice, tool_names=_tool_names(tools))
        except catalogue.ToolChoiceError as exc:
            findings.append(_finding("tool-choice-invalid", "tool_choice", str(exc)))
        else:
            if budget_thinking and tool_choice.get("type") in ("any", "tool"):
                findings.append(
                    _finding(
                        "tool-choice-forced-with-thinking",
                        "tool_choice",
                        f'tool_choice {{"type": "{tool_choice["type"]}"}} forces a tool call, '
                        "which extended thinking with budget_tokens does not support: only "
                        '"auto" and "none" work with it. Use "auto" and ask for the tool in the '
                        "prompt. (2026 docs: adaptive thinking accepts forced tool use on some "
                        "models, skipping thinking, but Opus 5.5, Sonnet 5.5 and Fable/Mythos "
                        "5.1+ reject forced tool use altogether.)",
                    )
                )
    if isinstance(params, dict) and "disable_parallel_tool_use" in params:
        findings.append(
            _finding(
                "disable-parallel-top-level",
                "disable_parallel_tool_use",
                "disable_parallel_tool_use is not a top-level request parameter: put it inside "
                'tool_choice, e.g. {"type": "auto", "disable_parallel_tool_use": true} '
                '(never with {"type": "none"}).',
            )
        )
    if budget_thinking:
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1024:
            findings.append(
                _finding(
                    "thinking-budget-invalid",
                    "thinking.budget_tokens",
                    "Extended thinking needs budget_tokens: a whole number of at least 1,024, "
                    f"below max_tokens (got {json.dumps(budget)}).",
                )
            )


def _check_answers(findings: list[Finding], group: list[_Msg], user: list[_Msg] | None) -> None:
    """Every tool_use is answered by a tool_result in the very next user message."""
    answered = {_str(b.get("tool_use_id")) for _, _, b in _results(user)} if user else set()
    missing: dict[int, list[tuple[str, str]]] = {}
    for m, path, tool_id, _ in _ids(group, "tool_use"):
        if tool_id not in answered:
            missing.setdefault(m.index, []).append((path, tool_id))
    for index, items in missing.items():
        ids = ", ".join(tool_id for _, tool_id in items)
        them = "it" if len(items) == 1 else "them"
        where = (
            "the request ends there, with no user message to answer " + them
            if user is None
            else f"the next user message (messages[{user[0].index}]) has no tool_result for {them}"
        )
        findings.append(
            _finding(
                "tool-result-missing",
                items[0][0],
                f"messages[{index}] calls {ids}, but {where}. Every tool_use needs a "
                "tool_result with its id in the user message right after it, even when the tool "
                "failed (then with is_error: true).",
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
            before = f"messages[{assistant[-1].index}]" if assistant else "the previous message"
            findings.append(
                _finding(
                    "tool-result-orphan",
                    path,
                    f"{path} answers {shown}, but {before} has no tool_use with that id. A "
                    "tool_result must answer a tool_use of the assistant message right before it.",
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
                    f"{path} is a second tool_result for {shown}. Send exactly one result per "
                    "tool_use id. Expected 400: no recorded API error text for this case.",
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
                f"{path} is a {block.get('type')} block placed before tool_result blocks of the "
                "same user message. The tool_result blocks must come first; any text goes after "
                "them.",
                api_error=(
                    f"{_api_path(path).split('.content')[0]}: Did not find "
                    f"{len(called) or len(results)} `tool_result` "
                    "block(s) at the beginning of this message. Messages following `tool_use` "
                    "blocks must begin with a matching number of `tool_result` blocks."
                ),
            )
        )

    carriers = [m for m in group if any(b.get("type") == "tool_result" for _, b in m.blocks)]
    if len(carriers) > 1 and len(called) > 1:
        first_path = next(p for p, b in carriers[1].blocks if b.get("type") == "tool_result")
        listed = ", ".join(f"messages[{m.index}]" for m in carriers)
        findings.append(
            _finding(
                "tool-results-split",
                first_path,
                f"The results for the tool calls of messages[{assistant[-1].index}] are spread "
                f"over {len(carriers)} user messages ({listed}). Send all results of a batch "
                "together in ONE user message. Even where the API accepts this (it merges "
                "consecutive user messages), the docs call it wrong: it teaches Claude to stop "
                "making parallel calls.",
            )
        )


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
                        f"{path} is a {name} call that the server will resume, but tools has no "
                        f"{name} tool. Continue a paused or deferred server tool call with the "
                        "same tools as before.",
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
                        f"The {name or 'server tool'} call at {call_path} has no result yet (the "
                        "server runs it on the next request), so the user message must hold only "
                        f"tool_result blocks; {path} adds a {block.get('type')} block. "
                        "(Rule from the 2026 docs.)",
                        api_error=_server_api_error(name, tool_id),
                    )
                )
                return


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
                f"Thinking was switched on in the middle of a tool loop: messages[{first.index}] "
                "came from a response without thinking. Thinking will be silently disabled for "
                'that request (current docs, "Graceful thinking degradation"; in 2025 this was '
                "a 400). Keep one thinking configuration per assistant turn: change it only "
                "between turns (after an end_turn).",
            )
        )
    elif first_type not in _THINKING_TYPES and (response_thinks or budget_thinking):
        reported_first = True
        findings.append(
            _finding(
                "thinking-missing",
                join_path(f"messages[{first.index}]", "content[0]"),
                f"messages[{first.index}] starts with a {first_type} block, but with "
                "thinking enabled the assistant message of an unfinished tool loop must be sent "
                "back starting with its thinking block, complete and unchanged.",
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
                f"The thinking blocks of messages[{m.index}] differ from the response they came "
                "from (edited, reordered, dropped or re-signed). During a tool loop pass them "
                "back exactly as received, signature included.",
                # Full text as real API logs show it (anthropics/claude-code#63404, 2026-05).
                api_error=(
                    f"{_api_path(where)}: `thinking` or `redacted_thinking` blocks in the latest "
                    "assistant message cannot be modified. These blocks must remain as they were "
                    "in the original response."
                ),
            )
        )


def _check_paused(
    findings: list[Finding], msgs: list[_Msg], index: _Responses, *, since: int
) -> None:
    answers = index.answers
    by_response: dict[int, int] = {}
    for m in msgs[max(since - 1, 0) :]:
        j = index.match(m)
        if j is not None:
            by_response[j] = m.index  # the latest copy is the one being resent
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
                        "The last response paused (stop_reason pause_turn), but its content is "
                        "not in this request. Append the paused assistant content as it came and "
                        "call again with the same tools; the server resumes from there.",
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
                    f"messages[{m}] is the paused turn, but not as it came back (first "
                    f"difference at {where}). Send the paused content back unchanged unless you "
                    "mean to redirect Claude.",
                )
            )
        if m + 1 < len(msgs) and msgs[m + 1].role == "user":
            pending = _pending_server_calls([msgs[m]])
            findings.append(
                _finding(
                    "pause-turn-continue-message",
                    f"messages[{m + 1}]",
                    f"messages[{m + 1}] is a user message added after the paused turn "
                    f"messages[{m}]. A paused turn is continued by sending the assistant content "
                    'back as is, with no extra "continue" message.'
                    + (
                        f" Here the {pending[0][2]} call {pending[0][1]} has no result yet, so "
                        "the API rejects the request."
                        if pending
                        else ""
                    ),
                    severity=ERROR if pending else LINT,
                    api_error=_server_api_error(pending[0][2], pending[0][1]) if pending else "",
                )
            )


def _check_truncated(
    findings: list[Finding], msgs: list[_Msg], index: _Responses, *, since: int
) -> None:
    cut = index.cut
    if not cut:
        return
    appended: set[str] = set()  # cut-off calls the application put back into the history
    for m in msgs:
        if m.role == "assistant":
            appended.update(
                b["id"]
                for _, b in m.blocks
                if b.get("type") == "tool_use" and _str(b.get("id")) in cut
            )
        if m.role != "user" or m.index < since:
            continue
        for path, block in m.blocks:
            tool_id = block.get("tool_use_id")
            if block.get("type") == "tool_result" and _str(tool_id) in appended:
                findings.append(
                    _finding(
                        "truncated-tool-use-executed",
                        path,
                        f"{path} answers {tool_id}, a tool_use that max_tokens cut off, so its "
                        "input was incomplete. Don't run a cut-off call: send the same request "
                        "again with a larger max_tokens.",
                    )
                )


_FAIL_WORDS = re.compile(
    r"\b(errors?|failed|failure|exception|traceback|not[ _]found)\b", re.IGNORECASE
)
_FAIL_KEYS = ("error", "errors", "exception", "traceback")
_STATUS_KEYS = ("status", "state", "result", "outcome")
_OK_KEYS = ("ok", "success", "succeeded")


def failure_signal(content: Any) -> str | None:
    """Why a tool_result's content looks like a failure (a heuristic), or None."""
    if content is None:
        return "is empty"
    if isinstance(content, list):
        texts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            else:
                return None  # an image, a document...: real output
        content = "\n".join(texts)
    if not isinstance(content, str):
        return None
    text = content.strip()
    if not text:
        return "is empty"
    if text[:1] in "{[":
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return _json_failure(data)
        if data is not None:
            return None
    match = _FAIL_WORDS.search(text)
    return f"says {match.group(0)!r}" if match else None


def _json_failure(data: dict[str, Any]) -> str | None:
    for key, value in data.items():
        name = str(key).lower()
        if name in _FAIL_KEYS and value:
            return f"has {key!r} set"
        if name in _STATUS_KEYS and isinstance(value, str) and _FAIL_WORDS.search(value):
            return f"has {key}: {value!r}"
        if name in _OK_KEYS and value is False:
            return f"has {key}: false"
    return None


def _check_tool_errors(findings: list[Finding], msgs: list[_Msg], *, since: int) -> None:
    for m in msgs:
        if m.role != "user" or m.index < since:
            continue
        for path, block in m.blocks:
            if block.get("type") != "tool_result" or block.get("is_error") is True:
                continue
            reason = failure_signal(block.get("content"))
            if reason:
                findings.append(
                    _finding(
                        "tool-error-not-flagged",
                        path,
                        f"The tool_result at {path} {reason}, but is_error is not true. If the "
                        'tool failed, send the error text with "is_error": true so Claude knows '
                        "the call did not work and can retry, change course or tell the user; "
                        "an empty or unflagged result reads as a success. (An empty result is "
                        "fine for a tool that really has nothing to return.)",
                    )
                )


# --- whole transcripts -------------------------------------------------------------------------


def check_transcript(t: Transcript) -> list[Finding]:
    """Every request of a recorded loop checked, plus the lints that need the whole run.

    A finding is reported once, at the first step where it occurs. ``step`` is the turn whose
    request holds it (paths are relative to that request's JSON), or the turn whose response
    the run-level lints are about.
    """
    findings: list[Finding] = []
    seen: set[tuple[str, str, str]] = set()

    def add(items: list[Finding], step: int) -> None:
        for f in items:
            key = (f.rule, f.path, f.message)
            if key not in seen:
                seen.add(key)
                findings.append(replace(f, step=step))

    top_level = {k: t.extra[k] for k in ("disable_parallel_tool_use",) if k in t.extra}
    version = transcript_api_version(t)
    index = _Responses()
    cache: dict[int, tuple[Any, _Msg]] = {}
    previous_len = 0
    for turn in t.turns:
        params = {**top_level, **t.params_for(turn.index)}
        since = previous_len if turn.index and turn.appended is not None else 0
        if t.source != "message":
            add(_check_turn(turn, params, index, since, cache, version), turn.index)
        index.add(turn.response)
        previous_len = max(len(turn.request_messages) - 1, 0)

    last = t.turns[-1]
    if last.tool_results and t.source != "message":
        pending = [
            *last.request_messages,
            {"role": "assistant", "content": last.response.get("content", [])},
            {"role": "user", "content": last.tool_results},
        ]
        params = {**top_level, **t.params_for(last.index)}
        add(
            _check(
                pending,
                tools=params.get("tools"),
                tool_choice=params.get("tool_choice"),
                thinking=params.get("thinking"),
                responses=index,
                params=params,
                since=max(len(last.request_messages) - 1, 0),
                cache=cache,
                api_version=version,
                check_status=False,
            ),
            last.index,
        )

    for d in t.divergences:
        add(_from_divergence(t, d), d.step)
    if t.source != "message":
        add(_run_lints(t), last.index)
    findings.sort(key=lambda f: f.step if f.step is not None else -1)
    return findings


def _check_turn(
    turn: Turn,
    params: dict[str, Any],
    index: _Responses,
    since: int,
    cache: dict[int, tuple[Any, _Msg]],
    api_version: str,
) -> list[Finding]:
    # A recorded loop is judged by the rules of the model it was sent to; retirement is left
    # out (the model was served when the loop was recorded).
    return _check(
        turn.request_messages,
        tools=params.get("tools"),
        tool_choice=params.get("tool_choice"),
        thinking=params.get("thinking"),
        responses=index,
        params=params,
        since=since,
        cache=cache,
        api_version=api_version,
        check_status=False,
    )


def transcript_api_version(t: Transcript) -> str:
    """The API version a recorded loop was sent with: its ``api_version`` field, else
    2023-06-01 (loops recorded before SDK 2.x, which sent 2026-10-21, did not say)."""
    value = t.extra.get("api_version")
    return value if value in model_catalogue.API_VERSIONS else model_catalogue.OLD_API_VERSION


def _max_tokens(t: Transcript, index: int) -> int | None:
    value = t.params_for(index).get("max_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _from_divergence(t: Transcript, d: Any) -> list[Finding]:
    turn_path = f"turns[{d.step}]"
    if d.kind == "unknown_stop_reason":
        return [_finding("unknown-stop-reason", d.path, d.detail[0].upper() + d.detail[1:] + ".")]
    if d.kind == "mismatch":
        return [
            _finding(
                "replay-mismatch",
                d.path,
                f"At step {d.step + 1} the application sent something other than what the loop's "
                f"rules give: the logged messages and the replay first differ at {d.path}.",
            )
        ]
    if d.kind != "after_stop":
        return []
    prev, cur = t.turns[d.step - 1], t.turns[d.step]
    same = normalize_messages(cur.request_messages) == normalize_messages(prev.request_messages)
    new_model = cur.request_overrides.get("model") not in (
        None,
        t.params_for(prev.index).get("model"),
    )
    before, after = _max_tokens(t, prev.index), _max_tokens(t, cur.index)
    bigger = after is not None and (before is None or after > before)
    reason = prev.stop_reason
    if reason == "end_turn":
        new_user_turn = (
            cur.messages_sent is not None
            and not same
            and bool(cur.request_messages)
            and isinstance(cur.request_messages[-1], dict)
            and cur.request_messages[-1].get("role") == "user"
        )
        if new_user_turn:
            return []  # a new message from the user: a new conversation turn, not the loop
        return [
            _finding(
                "loop-ignores-stop-reason",
                turn_path,
                f"Step {prev.index + 1} ended with stop_reason end_turn, yet the loop called the "
                "API again. end_turn means Claude has finished: leave the loop on stop_reason, "
                "whatever the text says.",
            )
        ]
    if reason == "refusal":
        if same and not new_model:
            return [
                _finding(
                    "refusal-retried-unchanged",
                    turn_path,
                    f"Step {prev.index + 1} was refused (stop_reason refusal, an HTTP 200, not an "
                    f"error) and step {d.step + 1} sent the same messages again. A refusal comes "
                    "back for the same context: change or reset the context first (remove the "
                    "refused turn), try a fallback model, or tell the user.",
                )
            ]
        return []
    if reason == "max_tokens":
        if bigger or not same:
            return []
        return [
            _finding(
                "turn-after-stop",
                turn_path,
                f"Step {prev.index + 1} was cut off at max_tokens and step {d.step + 1} sent "
                "the same request with the same budget, so it will be cut off again. "
                "Raise max_tokens, or continue from the partial answer.",
            )
        ]
    if not same:
        return []  # the application changed the history before going on
    extra = (
        " Raising max_tokens does not make room in a full context window: shrink the history."
        if reason == "model_context_window_exceeded"
        else ""
    )
    return [
        _finding(
            "turn-after-stop",
            turn_path,
            f"Step {prev.index + 1} ended with stop_reason {reason}, which ends the loop, but step "
            f"{d.step + 1} sent the same messages again.{extra}",
        )
    ]


def _run_lints(t: Transcript) -> list[Finding]:
    out: list[Finding] = []
    for prev, cur in zip(t.turns, t.turns[1:], strict=False):
        if prev.action == "retry_with_more_tokens" and not prev.tool_results:
            before, after = _max_tokens(t, prev.index), _max_tokens(t, cur.index)
            same = normalize_messages(cur.request_messages) == normalize_messages(
                prev.request_messages
            )
            if same and not (after is not None and (before is None or after > before)):
                out.append(
                    _finding(
                        "retry-without-more-tokens",
                        f"turns[{cur.index}]",
                        f"Step {prev.index + 1} cut a tool_use off at max_tokens; "
                        f"step {cur.index + 1} retried with the same max_tokens, so the call "
                        "will be cut off again. "
                        "Retry with a larger max_tokens (request_overrides).",
                    )
                )
    last = t.turns[-1]
    path = f"turns[{last.index}].response.stop_reason"
    ended_by = t.ended_by
    max_turns = t.guards.get("max_turns")
    cap = ended_by in CAP_ENDINGS or (
        not ended_by and isinstance(max_turns, int) and len(t.turns) >= max_turns
    )
    # A run the cap stopped and the application reported (ended_reason: escalated, marked
    # unfinished) used the cap as the safety net it is; only a silent stop is the mistake.
    reason_text = t.extra.get("ended_reason")
    reported = isinstance(reason_text, str) and bool(reason_text.strip())
    if last.continues:
        if cap and not reported:
            out.append(
                _finding(
                    "cap-only-stop",
                    path,
                    f"The iteration cap ended the run while the last response still said "
                    f"{last.stop_reason}: the task is unfinished. A cap is a safety net, not the "
                    "way a loop should end: the loop ends on stop_reason, and a run that hits "
                    "the cap should be reported as incomplete (or escalated) and investigated; "
                    "this run records no ended_reason.",
                )
            )
        elif not cap and ended_by not in GUARD_ENDINGS:
            what = (
                "Claude was waiting for tool results"
                if last.stop_reason == "tool_use"
                else "the turn was only paused"
            )
            out.append(
                _finding(
                    "loop-ignores-stop-reason",
                    path,
                    f"The run ended after a response with stop_reason {last.stop_reason}, but "
                    f"{what}. The loop must decide from stop_reason, not from the text: "
                    f"{catalogue.NEXT_ACTIONS[last.action].label.lower()}.",
                )
            )
    if last.action in ("handle_truncation", "retry_with_more_tokens") and (
        ended_by not in GUARD_ENDINGS
    ):
        out.append(
            _finding(
                "max-tokens-as-done",
                path,
                "The run ended on a response cut off at max_tokens, as if it were complete. A "
                "max_tokens response is truncated: raise max_tokens and retry (a cut-off "
                "tool_use must not be run), or continue the answer.",
            )
        )
    return out
