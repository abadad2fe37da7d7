"""Request-level rules: tool_choice, top-level parameters, budget_tokens, the model."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from .. import catalogue
from .. import models as model_catalogue
from ..i18n import gettext_noop
from .findings import ERROR, LINT, RULES, Finding, _finding


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
        findings.append(
            replace(
                _finding(
                    code,
                    v.path,
                    "%(sentence)s",  # the model rule's own words, translated when read
                    {"sentence": v},
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
                gettext_noop("tool_choice.type must be one of auto, any, tool, none."),
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
                        gettext_noop(
                            'tool_choice {"type": "%(type)s"} forces a tool call, which extended '
                            'thinking with budget_tokens does not support: only "auto" and "none" '
                            'work with it. Use "auto" and ask for the tool in the prompt. (2026 '
                            "docs: adaptive thinking accepts forced tool use on some models, "
                            "skipping thinking, but Opus 5.5, Sonnet 5.5 and Fable/Mythos 5.1+ "
                            "reject forced tool use altogether.)"
                        ),
                        {"type": tool_choice["type"]},
                    )
                )
    if isinstance(params, dict) and "disable_parallel_tool_use" in params:
        findings.append(
            _finding(
                "disable-parallel-top-level",
                "disable_parallel_tool_use",
                gettext_noop(
                    "disable_parallel_tool_use is not a top-level request parameter: put it "
                    'inside tool_choice, e.g. {"type": "auto", "disable_parallel_tool_use": true} '
                    '(never with {"type": "none"}).'
                ),
            )
        )
    if budget_thinking:
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1024:
            findings.append(
                _finding(
                    "thinking-budget-invalid",
                    "thinking.budget_tokens",
                    gettext_noop(
                        "Extended thinking needs budget_tokens: a whole number of at least 1,024, "
                        "below max_tokens (got %(got)s)."
                    ),
                    {"got": json.dumps(budget)},
                )
            )
