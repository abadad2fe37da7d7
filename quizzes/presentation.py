"""What a learner sees of a question before answering: shuffled, and nothing that gives it away."""

from __future__ import annotations

import json
import random

from core.today import feedback_line as today_line
from studyapp.agentloop import catalogue, models

from . import kinds
from .models import Question


def _rng(seed: int, question: Question) -> random.Random:
    # Stable per attempt and question, so back and forward show the same order.
    return random.Random(f"{seed}:{question.slug}")


def _shown_order(question: Question, options: list, rng: random.Random) -> list:
    """Choices in the order the learner saw them (and sees them again in the feedback)."""
    return kinds.of(question.kind).shown_order(options, rng)


def present(question: Question, seed: int, answer: dict | None = None) -> dict:
    """Template context for a question's inputs, with the learner's own saved answer if any."""
    rng = _rng(seed, question)
    options = _shown_order(question, list(question.options.all()), rng)
    answer = answer or {}
    ctx: dict = {"kind": question.kind, "answer": answer}
    ctx.update(kinds.of(question.kind).present(question, answer, options, rng))
    return ctx


def shown_response(question: Question) -> dict | None:
    """The API response a question shows with its stem, ready for display (or None)."""
    return kinds.of(question.kind).shown_response(question)


def response_view(response: dict) -> dict:
    """A Messages API response prepared for display: each block with pretty JSON where useful."""
    blocks = []
    for block in response.get("content", []):
        btype = block.get("type", "?")
        view = {"type": btype, "block": block}
        if btype in ("tool_use", "server_tool_use"):
            view["input_json"] = json.dumps(block.get("input", {}), indent=2, ensure_ascii=False)
        if btype not in ("text", "thinking", "redacted_thinking", "tool_use", "server_tool_use"):
            view["raw_json"] = json.dumps(block, indent=2, ensure_ascii=False)
        blocks.append(view)
    return {
        "stop_reason": response.get("stop_reason"),
        "stop_sequence": response.get("stop_sequence"),
        "usage": response.get("usage", {}),
        "blocks": blocks,
        "known": response.get("stop_reason") in catalogue.STOP_REASONS,
    }


def right_answer(question: Question) -> dict:
    """An answer that earns full marks, in the form the grader reads (for author previews)."""
    return kinds.of(question.kind).right_answer(question, list(question.options.all()))


def feedback(
    question: Question, answer: dict, score: float | None, seed: int | None = None
) -> dict:
    """Everything the learner earns after answering: the key and the why of every option.

    With the attempt's ``seed``, choices come in the order the learner saw them.
    """
    options = list(question.options.all())
    ctx: dict = {"score": score, "percent": round(100 * (score or 0))}
    today_id = (question.data or {}).get("today")
    if today_id in models.CHANGES:  # generated now, from the catalogue
        ctx["today"] = {"id": today_id, "line": today_line(today_id)}
    module = kinds.of(question.kind)
    if seed is not None:
        options = _shown_order(question, options, _rng(seed, question))
    ctx.update(module.feedback(question, answer, options))
    if ctx.get("pending") and score is not None:  # an instructor has graded it
        ctx["graded"] = ctx["percent"]
    return ctx
