"""Predict mode's choices: per step, the right action and the moves learners confuse it with.

The confusions follow the question bank's distractor families (quizzes.schema.FAMILIES): each
wrong choice says which habit of mind it comes from and why it is wrong for *this* stop_reason.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from studyapp.agentloop import catalogue

MIN_CHOICES, MAX_CHOICES = 4, 5


@dataclass(frozen=True)
class Confusion:
    action: str
    family: str  # a quizzes.schema.FAMILIES key
    why: str  # why this move is wrong after this kind of response


# For each right action: the wrong moves that are plausible confusions, most tempting first.
CONFUSIONS: dict[str, tuple[Confusion, ...]] = {
    "run_tools": (
        Confusion(
            "run_tools_separately",
            "split-results",
            "The results of one turn belong in ONE user message; spread over several messages "
            "they break the pairing and teach Claude to stop calling tools in parallel.",
        ),
        Confusion(
            "finish",
            "ends-on-text",
            "stop_reason is tool_use: Claude is waiting for results. Any text before the call is "
            "not the answer.",
        ),
        Confusion(
            "resend_paused",
            "pause-as-tool-use",
            "Resending without results leaves every tool_use unanswered, which the API rejects "
            "(400). That move is for pause_turn, where the server runs the tools.",
        ),
        Confusion(
            "send_continue_message",
            "pause-as-tool-use",
            "A plain user message instead of tool_result blocks leaves the calls unanswered (400).",
        ),
    ),
    "resend_paused": (
        Confusion(
            "send_continue_message",
            "pause-as-tool-use",
            "A paused turn resumes when the assistant turn is sent back as it is; an extra "
            "“continue” user turn is not that.",
        ),
        Confusion(
            "run_tools",
            "wrong-executor",
            "There is no client tool to run: the paused calls are server tools, run on "
            "Anthropic's side.",
        ),
        Confusion(
            "finish",
            "truncation-as-done",
            "pause_turn means the turn is paused, not finished: the answer is still to come.",
        ),
        Confusion(
            "retry_unchanged",
            "retry-blindly",
            "Resending the previous request without the paused turn throws away the work the "
            "server already did.",
        ),
    ),
    "finish": (
        Confusion(
            "send_continue_message",
            "ends-on-text",
            "end_turn means the turn is over; asking for more starts a new turn the task "
            "does not need.",
        ),
        Confusion(
            "run_tools",
            "ends-on-text",
            "With end_turn there is no tool_use to answer, whatever the text says it will do.",
        ),
        Confusion(
            "handle_truncation",
            "truncation-as-done",
            "Nothing was cut off: only stop_reason max_tokens says so.",
        ),
        Confusion(
            "retry_unchanged",
            "retry-blindly",
            "The same request gives another finished answer and costs a call.",
        ),
    ),
    "retry_with_more_tokens": (
        Confusion(
            "run_tools",
            "truncation-as-done",
            "The last tool_use was cut off at max_tokens, so its input is incomplete: running it "
            "acts on a half-written call.",
        ),
        Confusion(
            "handle_truncation",
            "truncation-as-done",
            "Asking to continue cannot finish a tool_use block; the call must be generated whole, "
            "so retry with a larger max_tokens.",
        ),
        Confusion(
            "retry_unchanged",
            "retry-blindly",
            "The same max_tokens cuts the same call off again.",
        ),
        Confusion(
            "finish",
            "truncation-as-done",
            "stop_reason max_tokens is not a finished turn.",
        ),
    ),
    "handle_truncation": (
        Confusion(
            "finish",
            "truncation-as-done",
            "The text stopped at max_tokens: it is cut off, not complete.",
        ),
        Confusion(
            "retry_unchanged",
            "retry-blindly",
            "The same max_tokens cuts the answer off at the same place.",
        ),
        Confusion(
            "handle_context_full",
            "misread-contract",
            "max_tokens is your own output limit, not the context window: raising max_tokens or "
            "continuing helps here.",
        ),
        Confusion(
            "run_tools",
            "truncation-as-done",
            "There is no complete tool_use to run.",
        ),
    ),
    "handle_stop_sequence": (
        Confusion(
            "finish",
            "ends-on-text",
            "The output stopped at your marker, which may not be the end of the answer: read "
            "response.stop_sequence and act on what that marker means.",
        ),
        Confusion(
            "handle_truncation",
            "truncation-as-done",
            "Nothing ran out: one of your stop_sequences fired.",
        ),
        Confusion(
            "send_continue_message",
            "ends-on-text",
            "The application asked to stop there; what comes next is its decision, not a "
            "reflex “continue”.",
        ),
        Confusion(
            "retry_unchanged",
            "retry-blindly",
            "The same stop_sequences stop the same output at the same place.",
        ),
    ),
    "handle_refusal": (
        Confusion(
            "retry_unchanged",
            "retry-blindly",
            "The same context gets the same refusal: change or reset it, or tell the user.",
        ),
        Confusion(
            "send_continue_message",
            "retry-blindly",
            "Pushing on in the same conversation keeps the context that was refused.",
        ),
        Confusion(
            "finish",
            "ends-on-text",
            "A refusal is not an answer to show as the result; handle it as a refusal.",
        ),
        Confusion(
            "handle_truncation",
            "truncation-as-done",
            "Nothing was cut off by a limit: the model declined.",
        ),
    ),
    "handle_context_full": (
        Confusion(
            "handle_truncation",
            "misread-contract",
            "Raising max_tokens makes no room: the context window itself is full, so the history "
            "has to shrink.",
        ),
        Confusion(
            "finish",
            "truncation-as-done",
            "The answer is valid but truncated; it is not complete.",
        ),
        Confusion(
            "retry_unchanged",
            "retry-blindly",
            "The same history fills the same window again.",
        ),
        Confusion(
            "send_continue_message",
            "cap-as-control",
            "Adding a message makes the context bigger, not smaller.",
        ),
    ),
}


def choices_for(action: str | None, seed: str) -> list[str]:
    """4-5 action codes for a step: the right one and its likeliest confusions, in an order that
    is the same for the same run and step (so a reload does not reshuffle) but not always first.
    """
    if action not in CONFUSIONS:
        pool = list(catalogue.NEXT_ACTIONS)[:MAX_CHOICES]
        if action and action not in pool:
            pool[-1] = action
        codes = pool
    else:
        codes = [action] + [c.action for c in CONFUSIONS[action]][: MAX_CHOICES - 1]
    rng = random.Random(hashlib.sha256(seed.encode()).digest())  # noqa: S311 - not security
    rng.shuffle(codes)
    return codes


def why_wrong(right: str | None, chosen: str | None) -> Confusion | None:
    """The explanation of ``chosen`` as a confusion of ``right`` (None: no specific one)."""
    for c in CONFUSIONS.get(right or "", ()):
        if c.action == chosen:
            return c
    return None
