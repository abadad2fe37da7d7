"""models.check_request: would model M accept request R, and if not, why (the API's words).

Re-exported as ``models.check_request`` and ``models.Violation``; the rules themselves are the
entries of :mod:`.models`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from .models import (
    API_VERSION,
    CHECKED,
    CONFIRMED,
    DOC_DEPRECATIONS,
    DOC_PREFILL,
    DOC_THINK_TOOLS,
    DOC_THINK_TROUBLE,
    DOC_VERSIONING,
    FORCED_NO,
    FORCED_NOT_WITH_MANUAL,
    FORCED_UNKNOWN,
    OLD_API_VERSION,
    SAMPLING_DEFAULT_ONLY,
    SAMPLING_NONE,
    SAMPLING_ONE,
    SAMPLING_PARAMS,
    TEXT_DISABLED,
    TEXT_ENABLED,
    TEXT_PREFILL,
    TEXT_SAMPLING_BOTH,
    TEXT_SAMPLING_DEPRECATED,
    TEXT_SAMPLING_REMOVED,
    THINKING_MODES,
    THIRD_PARTY,
    ModelRules,
    get_model,
    thinking_off,
)

# --- check_request -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """One thing model M would not accept in request R (or could not be judged)."""

    model: str
    rule: str  # a CHANGES id, or "model-unknown" / "model-deprecated"
    severity: str  # "error": the API returns an error | "warning": sent, but read this
    path: str  # where in the request
    message: str  # plain words, naming the model and the rule
    fix: str = ""  # what to do instead
    api_error: str = ""  # the API's own text where a source records it
    source: str = ""
    label: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def sentence(self) -> str:
        """The message and what to do instead, as one text (for refusals and findings)."""
        if not self.fix:
            return self.message
        return f"{self.message} Instead: {self.fix[:1].lower()}{self.fix[1:]}"


def _v(
    m: ModelRules | None, model_id: str, rule: str, path: str, message: str, **kw: Any
) -> Violation:
    source = kw.pop("source", m.source if m else "")
    label = kw.pop("label", m.label_for(rule) if m else "")
    severity = kw.pop("severity", "error")
    return Violation(model_id, rule, severity, path, message, source=source, label=label, **kw)


def _is_prefill(messages: Any) -> bool:
    """The request ends on assistant text: a prefill. (A paused turn, with server tool blocks,
    sent back so the server resumes it, is not one: INFERRED from the pause_turn docs.)"""
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return False
    last = messages[-1]
    content = last.get("content")
    text_only = isinstance(content, str) or (
        isinstance(content, list)
        and all(isinstance(b, dict) and b.get("type") == "text" for b in content)
    )
    return last.get("role") == "assistant" and text_only


def _effort(request: dict[str, Any]) -> str:
    config = request.get("output_config")
    effort = config.get("effort") if isinstance(config, dict) else None
    return effort if isinstance(effort, str) else ""


def check_request(
    model_id: Any,
    request: Any,
    *,
    api_version: str = API_VERSION,
    check_status: bool = True,
    day: dt.date | None = None,
) -> list[Violation]:
    """Would ``model_id`` accept ``request`` (a Messages API body), and if not, why?

    ``check_status=False`` skips retirement (a recorded transcript is judged by the rules of the
    model it was sent to, which was served then). Never raises on bad input.
    """
    shown = model_id if isinstance(model_id, str) else repr(model_id)
    request = request if isinstance(request, dict) else {}
    m = get_model(model_id)
    out: list[Violation] = []
    if m is None:
        return [
            _v(
                None,
                shown,
                "model-unknown",
                "model",
                f"Rules unknown for this model: {shown} is not in the model catalogue (checked "
                f"{CHECKED:%Y-%m-%d}), so forced tool_choice, thinking modes, prefill and "
                "sampling could not be checked for it.",
                severity="warning",
                fix="Pick a model from the catalogue, or check its documentation yourself.",
            )
        ]
    status = m.status_on(day)
    if check_status and status == "retired":
        out.append(
            _v(
                m,
                shown,
                "model-retirement",
                "model",
                f"{shown} is {m.status_text(day, translated=False)}: requests to retired models "
                "fail, so nothing was sent."
                + (
                    " Its deprecation announced this retirement date, which has passed."
                    if m.status == "deprecated"
                    else ""
                ),
                fix=f"use {m.replacement or 'a current model'}.",
                source=DOC_DEPRECATIONS,
                label=CONFIRMED,
            )
        )
        return out
    if check_status and status == "deprecated":
        out.append(
            _v(
                m,
                shown,
                "model-retirement",
                "model",
                f"{shown} is deprecated and retires on {m.retires:%Y-%m-%d}; it still works.",
                severity="warning",
                fix=f"Move to {m.replacement or 'a current model'} before then.",
                source=DOC_DEPRECATIONS,
                label=CONFIRMED,
            )
        )
    _check_sampling(out, m, shown, request, api_version)
    thinking = request.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    _check_thinking(out, m, shown, request, kind)
    _check_forced(out, m, shown, request, kind)
    if _is_prefill(request.get("messages")) and (
        not m.prefill or (kind == "enabled" and not m.prefill_with_thinking)
    ):
        why = "with thinking on" if m.prefill else "at all"
        out.append(
            _v(
                m,
                shown,
                "prefill",
                f"messages[{len(request['messages']) - 1}]",
                f"{shown} rejects assistant prefill {why}: the request ends on an assistant "
                "message.",
                fix="End on a user message; shape the output with structured outputs "
                "(output_config.format) or the prompt.",
                api_error=TEXT_PREFILL if not m.prefill else "",
                source=DOC_PREFILL,
            )
        )
    return out


def _check_sampling(
    out: list[Violation], m: ModelRules, shown: str, request: dict[str, Any], api_version: str
) -> None:
    sent = [p for p in SAMPLING_PARAMS if p in request]
    if not sent:
        return
    if api_version != OLD_API_VERSION:
        for p in sent:
            out.append(
                _v(
                    m,
                    shown,
                    "sampling",
                    p,
                    f"{p} is not a request parameter under API version {api_version}: every "
                    f"model, {shown} included, rejects temperature, top_p and top_k.",
                    fix="Remove it (tests that need repeatable runs should script the API, not "
                    "tune it).",
                    api_error=TEXT_SAMPLING_REMOVED.format(name=p),
                    source=DOC_VERSIONING,
                    label=CONFIRMED,
                )
            )
        return
    rule = m.sampling_2023
    defaults = {"temperature": 1, "top_p": 1}
    bad: list[str] = []
    if rule == SAMPLING_NONE:
        bad = sent
    elif rule == SAMPLING_DEFAULT_ONLY:
        bad = [p for p in sent if p not in defaults or request[p] != defaults[p]]
    if bad:
        for p in bad:
            out.append(
                _v(
                    m,
                    shown,
                    "sampling",
                    p,
                    f"{shown} rejects {p}"
                    + (" at any value" if rule == SAMPLING_NONE else " at a non-default value")
                    + f", even under API version {api_version}.",
                    fix="Remove it.",
                    api_error=TEXT_SAMPLING_DEPRECATED.format(name=p),
                )
            )
    elif rule == SAMPLING_ONE and "temperature" in sent and "top_p" in sent:
        out.append(
            _v(
                m,
                shown,
                "sampling",
                "top_p",
                f"{shown} accepts temperature or top_p, not both.",
                fix="Send only one of them.",
                api_error=TEXT_SAMPLING_BOTH,
            )
        )


def _check_thinking(
    out: list[Violation], m: ModelRules, shown: str, request: dict[str, Any], kind: Any
) -> None:
    if kind is None or kind not in THINKING_MODES:
        return  # absent, or a shape problem the contract checker reports
    if kind in m.thinking_unsure:
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled",
                "thinking.type",
                f'Sources disagree on whether {shown} accepts thinking {{"type": "{kind}"}}.',
                severity="warning",
                fix="Omit thinking instead (it is off by default on this model).",
                label=THIRD_PARTY,
            )
        )
        return
    if kind in m.thinking_modes:
        if kind == "disabled" and m.disabled_max_effort and _effort(request) in ("xhigh", "max"):
            out.append(
                _v(
                    m,
                    shown,
                    "thinking-disabled",
                    "thinking.type",
                    f'{shown} accepts thinking {{"type": "disabled"}} only at effort '
                    f"{m.disabled_max_effort} or below, not at {_effort(request)}.",
                    fix="Lower output_config.effort, or leave thinking on.",
                )
            )
        return
    if kind == "enabled":
        out.append(
            _v(
                m,
                shown,
                "manual-thinking",
                "thinking.type",
                f'{shown} rejects manual thinking ({{"type": "enabled", "budget_tokens": N}}).',
                fix='Use {"type": "adaptive"} (or omit thinking where it is on by default) and '
                "control depth with output_config.effort.",
                api_error=TEXT_ENABLED,
            )
        )
    elif kind == "disabled":
        off = thinking_off(m.id)
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled",
                "thinking.type",
                f'{shown} rejects thinking {{"type": "disabled"}}: thinking cannot be turned off '
                "that way on this model.",
                fix=(
                    f"Send thinking {off} instead."
                    if off
                    else "Thinking cannot be turned off on this model; lower output_config.effort."
                ),
                api_error=TEXT_DISABLED,
            )
        )
    else:
        why = {
            "between_tools": "only claude-sonnet-5-5 accepts between_tools",
            "adaptive": "its only thinking mode is manual thinking (budget_tokens)",
        }[kind]
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled" if kind == "between_tools" else "manual-thinking",
                "thinking.type",
                f'{shown} rejects thinking {{"type": "{kind}"}}: {why}.',
                fix=f"Accepted here: {', '.join(m.thinking_modes) or 'no thinking setting'}.",
                source=DOC_THINK_TROUBLE,
            )
        )


def _check_forced(
    out: list[Violation], m: ModelRules, shown: str, request: dict[str, Any], kind: Any
) -> None:
    choice = request.get("tool_choice")
    if not isinstance(choice, dict) or choice.get("type") not in ("any", "tool"):
        return  # not forced
    if m.forced_tool_choice == FORCED_NO:
        out.append(
            _v(
                m,
                shown,
                "forced-tool-choice",
                "tool_choice",
                f'{shown} rejects forced tool_choice ({{"type": "{choice["type"]}"}}) with a 400 '
                "error (the error text is not published).",
                fix="Use auto with strict tools (or structured outputs), or pick a model that "
                "accepts it, such as claude-haiku-5-5.",
                source=DOC_THINK_TOOLS,
            )
        )
    elif m.forced_tool_choice == FORCED_UNKNOWN:
        out.append(
            _v(
                m,
                shown,
                "forced-tool-choice",
                "tool_choice",
                f"Whether {shown} accepts forced tool_choice is not documented.",
                severity="warning",
                fix="Prefer auto with strict tools.",
            )
        )
    elif m.forced_tool_choice == FORCED_NOT_WITH_MANUAL and kind == "enabled":
        out.append(
            _v(
                m,
                shown,
                "forced-tool-choice",
                "tool_choice",
                f'{shown} rejects forced tool_choice ({{"type": "{choice["type"]}"}}) together '
                "with manual thinking (budget_tokens): only auto and none work with it.",
                fix="Use auto and ask for the tool in the prompt, or leave thinking off.",
                source=DOC_THINK_TOOLS,
            )
        )
