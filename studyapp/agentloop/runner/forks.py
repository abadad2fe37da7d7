"""Forks: a new run state from a prefix of a run's turns, with changed parameters."""

from __future__ import annotations

import copy
from typing import Any

from .. import catalogue, i18n
from .. import models as model_catalogue
from ..i18n import Phrase, gettext_noop
from .core import NOT_SENT, STOP_REASON_ENDED, Run
from .limits import (
    BOUND_PARTS,
    FORK_CHANGES,
    MAX_TOKENS_CAP,
    RETRY_FACTOR,
    TOOL_MODES,
    Guards,
    RunnerError,
)
from .params import _action, model_refusal, validate_params


def _run_end(turns: list[dict[str, Any]]) -> tuple[str, str]:
    """How a prefix of turns ends by the loop's own rules ('' when the loop would go on)."""
    by, reason, _msg = _run_end_msg(turns)
    return by, reason


def _run_end_msg(turns: list[dict[str, Any]]) -> tuple[str, str, dict[str, Any] | None]:
    """:func:`_run_end` and the reason as a message id with its values (None: no end)."""
    if not turns:
        return "", "", None
    response = turns[-1]["response"]
    action = _action(response)
    text = ""
    values: dict[str, Any] = {}
    if action is None:
        text = gettext_noop("stop_reason %(stop_reason)s is unknown.")
        values = {"stop_reason": repr(response.get("stop_reason"))}
    elif action == "retry_with_more_tokens":
        if len(turns) > 1 and _action(turns[-2]["response"]) == action:
            text = gettext_noop("max_tokens cut a tool_use off again after a retry.")
    elif not catalogue.NEXT_ACTIONS[action].continues:
        text = STOP_REASON_ENDED
        values = {
            "stop_reason": str(response.get("stop_reason")),
            "label": Phrase(catalogue.NEXT_ACTIONS[action].label),
        }
    if not text:
        return "", "", None
    return "stop_reason", i18n.english(text, values), i18n.dump(text, values)


def fork(state: dict[str, Any], at_step: int, **changes: Any) -> dict[str, Any]:
    """A new run state: the first ``at_step`` turns of ``state``, then the changed parameters.

    ``changes``: model, max_tokens, tool_choice, thinking (None: off), guards, tool_mode. Request
    parameters change through ``request_overrides`` from the fork on, so the kept turns still
    show what they were sent. Raises RunnerError when the change is not allowed or the next
    request would be rejected.
    """
    bound = sorted(set(changes) & set(BOUND_PARTS))
    if bound:
        raise RunnerError.worded(
            gettext_noop(
                "A fork can't change %(part)s: thinking blocks are bound to the system prompt, "
                "tools and every message before them, so newer models reject the edited "
                'history with a 400 ("The block is bound to a different conversation"). Start '
                "a new run instead."
            ),
            {"part": bound[0]},
        )
    unknown = sorted(set(changes) - set(FORK_CHANGES))
    if unknown:
        raise RunnerError.worded(
            gettext_noop("A fork can change %(parts)s; not %(name)s."),
            {"parts": ", ".join(FORK_CHANGES), "name": repr(unknown[0])},
        )
    source = Run.from_state(None, state)
    turns = source.turns
    if not isinstance(at_step, int) or isinstance(at_step, bool) or not 0 <= at_step <= len(turns):
        raise RunnerError.worded(
            gettext_noop("at_step must be between 0 and %(last)s (got %(value)s)."),
            {"last": str(len(turns)), "value": repr(at_step)},
        )
    kept = turns[:at_step]
    if at_step < len(turns):
        overrides = copy.deepcopy(turns[at_step].get("request_overrides") or {})
    else:
        overrides = copy.deepcopy(source.overrides)
    if kept and _action(kept[-1]["response"]) == "retry_with_more_tokens":
        overrides.setdefault(
            "max_tokens", min(source.effective_params["max_tokens"] * RETRY_FACTOR, MAX_TOKENS_CAP)
        )
    for name in ("model", "max_tokens", "tool_choice", "thinking"):
        if name not in changes:
            continue
        value = changes[name]
        if value is None and name == "thinking":
            model = changes.get("model") or source.effective_params["model"]
            off = model_catalogue.thinking_off(model)
            if off is None:
                raise RunnerError.worded(
                    gettext_noop(
                        '%(model)s cannot turn thinking off: it always thinks (thinking {"type": '
                        '"disabled"} is a 400 there). Keep thinking, or fork on a model that can '
                        "turn it off."
                    ),
                    {"model": str(model)},
                )
            value = off or None  # {}: leave thinking out of the request
            if value is None:
                if "thinking" in source.params:
                    overrides["thinking"] = None
                else:
                    overrides.pop("thinking", None)
                continue
        elif value is None and name == "tool_choice":
            value = {"type": "auto"}
        if value is None:
            raise RunnerError.worded(gettext_noop("%(name)s cannot be empty."), {"name": name})
        if source.params.get(name) == value:
            overrides.pop(name, None)
        else:
            overrides[name] = value
    run = Run.from_state(None, state)
    run.turns = kept
    run.contexts = run.contexts[:at_step]
    run.context = copy.deepcopy(run.contexts[-1]) if run.contexts else {}
    run.overrides = overrides
    run.errors = []
    run.active_ms = sum(int(t.get("elapsed_ms") or 0) for t in kept)
    # recomputed from the kept turns: a guard's reason (and its message id) does not carry over
    run.ended_by, run.ended_reason, run.ended_reason_msg = _run_end_msg(kept)
    if "guards" in changes:
        run.guards = Guards.from_dict(changes["guards"])
    if "tool_mode" in changes:
        if changes["tool_mode"] not in TOOL_MODES:
            raise RunnerError("tool_mode must be 'automatic' or 'manual'.")
        run.tool_mode = changes["tool_mode"]
    validate_params(run.effective_params)
    problem = model_refusal(run.next_request())
    if problem:
        raise RunnerError(problem)
    if not run.ended_by and not run.pending_tool_uses:
        finding = run._preflight_finding(run.next_request())
        if finding is not None:
            raise RunnerError.worded(NOT_SENT, {"problem": finding})
    run.meta = {
        **run.meta,
        "forked_from": {"at_step": at_step, "changes": _json_safe_changes(changes)},
    }
    return run.to_state()


def _json_safe_changes(changes: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.to_dict() if isinstance(v, Guards) else v) for k, v in changes.items()}
