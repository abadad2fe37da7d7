"""Request parameters: their checks, the model's refusals, the conversation a run sends."""

from __future__ import annotations

import json
from typing import Any

from .. import catalogue, contract
from .. import models as model_catalogue
from .limits import API_VERSION, MAX_TOKENS_CAP, THINKING_TYPES, RunnerError


def _action(response: dict[str, Any]) -> str | None:
    try:
        return catalogue.next_action(response)
    except ValueError:
        return None


def _tool_uses(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in response.get("content", []) if b.get("type") == "tool_use"]


def _tokens(usage: Any) -> tuple[int, int]:
    """(input incl. cache reads and writes, output) of one response's usage."""
    usage = usage if isinstance(usage, dict) else {}

    def get(name: str) -> int:
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return (
        get("input_tokens") + get("cache_creation_input_tokens") + get("cache_read_input_tokens"),
        get("output_tokens"),
    )


def _approx_tokens(value: Any) -> int:
    # A deliberate over-estimate (about 3 characters a token) for text not yet sent.
    return len(json.dumps(value, ensure_ascii=False)) // 3 + 1


def conversation(
    messages: list[dict[str, Any]], turns: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The messages the loop sends after ``turns``: the same rules transcript.replay derives."""
    out = list(messages)
    for turn in turns:
        if _action(turn["response"]) in ("run_tools", "resend_paused"):
            out.append({"role": "assistant", "content": turn["response"]["content"]})
            if turn.get("tool_results"):
                out.append({"role": "user", "content": turn["tool_results"]})
    return out


def _thinking_budget(thinking: Any) -> bool:
    return isinstance(thinking, dict) and thinking.get("type") == "enabled"


def validate_params(params: dict[str, Any]) -> dict[str, Any]:
    """Check request parameters before anything is sent; return them or raise RunnerError."""
    model = params.get("model")
    if not isinstance(model, str) or not model.strip() or len(model) > 100:
        raise RunnerError("model must be a model name such as claude-haiku-5-5.")
    max_tokens = params.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        raise RunnerError("max_tokens must be a whole number.")
    if not 1 <= max_tokens <= MAX_TOKENS_CAP:
        raise RunnerError(f"max_tokens must be between 1 and {MAX_TOKENS_CAP:,} on this server.")
    system = params.get("system")
    if system is not None and not isinstance(system, str):
        raise RunnerError("system must be text.")
    tools = params.get("tools") or []
    if not isinstance(tools, list) or not all(
        isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools
    ):
        raise RunnerError("tools must be a list of tool definitions with a name.")
    thinking = params.get("thinking")
    if thinking is not None:
        if not isinstance(thinking, dict) or thinking.get("type") not in THINKING_TYPES:
            raise RunnerError(
                'thinking must be {"type": "enabled", "budget_tokens": N}, {"type": "adaptive"}, '
                '{"type": "disabled"} or {"type": "between_tools"}.'
            )
        budget = thinking.get("budget_tokens")
        if (
            _thinking_budget(thinking)
            and isinstance(budget, int)
            and not isinstance(budget, bool)
            and budget >= max_tokens
        ):
            raise RunnerError(
                f"thinking.budget_tokens ({budget:,}) must be below max_tokens ({max_tokens:,})."
            )
    tool_choice = params.get("tool_choice")
    if tool_choice is not None:
        try:
            catalogue.validate_tool_choice(
                tool_choice,
                tool_names={t["name"] for t in tools},
                extended_thinking=_thinking_budget(thinking),
            )
        except catalogue.ToolChoiceError as exc:
            raise RunnerError(str(exc)) from None
    # The contract checker holds the remaining request-level rules (budget_tokens >= 1,024, ...).
    for finding in contract.check([], tools=tools, tool_choice=tool_choice, thinking=thinking):
        if finding.is_error:
            raise RunnerError(finding.message)
    return params


def model_refusal(request: dict[str, Any]) -> str | None:
    """Why the request's model would reject this request body (one sentence), or None.

    Retired models, forced tool_choice, thinking modes, prefill and sampling, by
    ``models.check_request`` under the API version the SDK sends."""
    for v in model_catalogue.check_request(request.get("model"), request, api_version=API_VERSION):
        if v.is_error:
            sentence: str = v.sentence
            return sentence
    return None
