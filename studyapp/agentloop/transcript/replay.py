"""Replay: what the application sent each turn, derived from the responses."""

from __future__ import annotations

from typing import Any

from .. import catalogue
from .errors import _short, join_path
from .model import Divergence, Transcript, Turn

# --- replay ------------------------------------------------------------------------------------


def _strip(value: Any) -> Any:
    """A comparable form: None-valued keys and cache_control markers dropped."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not None and k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def normalize_message(message: Any) -> Any:
    """A message in comparable form: string content as one text block, None fields dropped."""
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return {"role": message.get("role"), "content": _strip(content)}


def normalize_messages(messages: Any) -> Any:
    if not isinstance(messages, list):
        return messages
    return [normalize_message(m) for m in messages]


def first_difference(a: Any, b: Any, path: str = "messages") -> str | None:
    """The JSON path where ``a`` and ``b`` first differ, or None if they are equal."""
    stack = [(a, b, path)]
    while stack:
        x, y, where = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            keys = list(x) + [k for k in y if k not in x]
            pending = []
            for key in keys:
                if key not in x or key not in y:
                    return join_path(where, key)
                pending.append((x[key], y[key], join_path(where, key)))
            stack.extend(reversed(pending))
        elif isinstance(x, list) and isinstance(y, list):
            pending = [(x[i], y[i], join_path(where, i)) for i in range(min(len(x), len(y)))]
            if len(x) != len(y):
                # compare the common part first, then report the length difference
                stack.append((None, 0, join_path(where, min(len(x), len(y)))))
            stack.extend(reversed(pending))
        elif type(x) is not type(y) or x != y:
            return where
    return None


def _action(response: dict[str, Any]) -> str | None:
    try:
        return catalogue.next_action(response)
    except ValueError:
        return None


def replay(transcript: Transcript) -> None:
    """Derive the messages sent at every turn; record divergences instead of raising."""
    transcript.divergences = []
    previous: list[dict[str, Any]] = list(transcript.messages)
    prev_turn: Turn | None = None
    for turn in transcript.turns:
        turn.action = _action(turn.response)
        if turn.action is None and turn.api_error is None and not turn.incomplete:
            transcript.divergences.append(
                Divergence(
                    turn.index,
                    "unknown_stop_reason",
                    join_path(join_path("turns", turn.index), "response.stop_reason"),
                    f"stop_reason {_short(turn.stop_reason)} is not one the catalogue knows, so "
                    "the replay cannot tell what the loop should do next",
                )
            )
        if prev_turn is None:
            derived = list(previous)
        else:
            derived = _next_messages(previous, prev_turn)
            if not prev_turn.continues and prev_turn.action not in (None, "retry_with_more_tokens"):
                transcript.divergences.append(
                    Divergence(
                        turn.index,
                        "after_stop",
                        join_path("turns", turn.index),
                        f"step {prev_turn.index + 1} ended with stop_reason "
                        f"'{prev_turn.stop_reason}', which ends the loop, but the run "
                        "called the API again",
                    )
                )
        sent = derived
        if turn.messages_sent is not None:
            sent = turn.messages_sent
            comparable = (
                prev_turn is None
                or prev_turn.continues
                or (prev_turn.action == "retry_with_more_tokens")
            )
            if comparable:
                where = first_difference(normalize_messages(derived), normalize_messages(sent))
                if where is not None:
                    transcript.divergences.append(
                        Divergence(
                            turn.index,
                            "mismatch",
                            where,
                            "the messages this turn logged as sent differ from what replaying "
                            f"the loop gives, first at {where}",
                        )
                    )
        turn.derived_messages = derived
        n = len(previous)
        if prev_turn is None:
            turn.appended = list(sent)
        elif len(sent) >= n and (
            all(a is b for a, b in zip(sent, previous, strict=False))
            or normalize_messages(sent[:n]) == normalize_messages(previous)
        ):
            turn.appended = list(sent[n:])
        else:
            turn.appended = None
        params = transcript.params_for(turn.index)
        turn.request = {**params, "messages": sent}
        previous = list(sent)
        prev_turn = turn


def _next_messages(previous: list[dict[str, Any]], turn: Turn) -> list[dict[str, Any]]:
    """What the canonical loop sends after ``turn`` (following the turn's own evidence)."""
    assistant = {"role": "assistant", "content": turn.response.get("content", [])}
    results = [{"role": "user", "content": turn.tool_results}] if turn.tool_results else []
    if turn.action == "run_tools":
        return [*previous, assistant, *results]
    if turn.action == "resend_paused":
        return [*previous, assistant, *results]
    if turn.action == "retry_with_more_tokens" and turn.tool_results:
        # The application ran the cut-off call after all; the checker reports it.
        return [*previous, assistant, *results]
    return list(previous)
