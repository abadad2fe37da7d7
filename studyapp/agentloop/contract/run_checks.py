"""Whole transcripts: every request of a recorded loop, plus the lints that need the run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import catalogue
from .. import models as model_catalogue
from ..i18n import Phrase, gettext_noop
from ..transcript import CAP_ENDINGS, GUARD_ENDINGS, Transcript, Turn, normalize_messages
from .check import _check
from .findings import Finding, _finding
from .history import _Msg
from .responses import _Responses


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
        value = d.detail.removeprefix("stop_reason ").split(" is not one", 1)[0]
        return [
            _finding(
                "unknown-stop-reason",
                d.path,
                gettext_noop(
                    "stop_reason %(value)s is not one the catalogue knows, so the replay cannot "
                    "tell what the loop should do next."
                ),
                {"value": value},
            )
        ]
    if d.kind == "mismatch":
        return [
            _finding(
                "replay-mismatch",
                d.path,
                gettext_noop(
                    "At step %(step)s the application sent something other than what the "
                    "loop's rules give: the logged messages and the replay first differ at "
                    "%(path)s."
                ),
                {"step": d.step + 1, "path": d.path},
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
                gettext_noop(
                    "Step %(step)s ended with stop_reason end_turn, yet the loop called the API "
                    "again. end_turn means Claude has finished: leave the loop on stop_reason, "
                    "whatever the text says."
                ),
                {"step": prev.index + 1},
            )
        ]
    if reason == "refusal":
        if same and not new_model:
            return [
                _finding(
                    "refusal-retried-unchanged",
                    turn_path,
                    gettext_noop(
                        "Step %(step)s was refused (stop_reason refusal, an HTTP 200, not an "
                        "error) and step %(next)s sent the same messages again. A refusal comes "
                        "back for the same context: change or reset the context first (remove "
                        "the refused turn), try a fallback model, or tell the user."
                    ),
                    {"step": prev.index + 1, "next": d.step + 1},
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
                gettext_noop(
                    "Step %(step)s was cut off at max_tokens and step %(next)s sent the same "
                    "request with the same budget, so it will be cut off again. Raise "
                    "max_tokens, or continue from the partial answer."
                ),
                {"step": prev.index + 1, "next": d.step + 1},
            )
        ]
    if not same:
        return []  # the application changed the history before going on
    return [
        _finding(
            "turn-after-stop",
            turn_path,
            gettext_noop(
                "Step %(step)s ended with stop_reason %(reason)s, which ends the loop, but step "
                "%(next)s sent the same messages again. Raising max_tokens does not make room "
                "in a full context window: shrink the history."
            )
            if reason == "model_context_window_exceeded"
            else gettext_noop(
                "Step %(step)s ended with stop_reason %(reason)s, which ends the loop, but step "
                "%(next)s sent the same messages again."
            ),
            {"step": prev.index + 1, "next": d.step + 1, "reason": reason},
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
                        gettext_noop(
                            "Step %(step)s cut a tool_use off at max_tokens; step %(next)s "
                            "retried with the same max_tokens, so the call will be cut off "
                            "again. Retry with a larger max_tokens (request_overrides)."
                        ),
                        {"step": prev.index + 1, "next": cur.index + 1},
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
    if last.continues and last.action is not None:  # a turn that continues has an action
        if cap and not reported:
            out.append(
                _finding(
                    "cap-only-stop",
                    path,
                    gettext_noop(
                        "The iteration cap ended the run while the last response still said "
                        "%(reason)s: the task is unfinished. A cap is a safety net, not the way "
                        "a loop should end: the loop ends on stop_reason, and a run that hits "
                        "the cap should be reported as incomplete (or escalated) and "
                        "investigated; this run records no ended_reason."
                    ),
                    {"reason": last.stop_reason},
                )
            )
        elif not cap and ended_by not in GUARD_ENDINGS:
            what = Phrase(
                gettext_noop("Claude was waiting for tool results")
                if last.stop_reason == "tool_use"
                else gettext_noop("the turn was only paused")
            )
            out.append(
                _finding(
                    "loop-ignores-stop-reason",
                    path,
                    gettext_noop(
                        "The run ended after a response with stop_reason %(reason)s, but "
                        "%(what)s. The loop must decide from stop_reason, not from the text: "
                        "%(action)s."
                    ),
                    {
                        "reason": last.stop_reason,
                        "what": what,
                        "action": Phrase(catalogue.NEXT_ACTIONS[last.action].label, lower=True),
                    },
                )
            )
    if last.action in ("handle_truncation", "retry_with_more_tokens") and (
        ended_by not in GUARD_ENDINGS
    ):
        out.append(
            _finding(
                "max-tokens-as-done",
                path,
                gettext_noop(
                    "The run ended on a response cut off at max_tokens, as if it were complete. "
                    "A max_tokens response is truncated: raise max_tokens and retry (a cut-off "
                    "tool_use must not be run), or continue the answer."
                ),
            )
        )
    return out
