"""What a learner sees of a question before answering: shuffled, and nothing that gives it away."""

from __future__ import annotations

import json
import random

from core.today import feedback_line as today_line
from studyapp.agentloop import catalogue, models

from . import grading
from .models import Question


def _rng(seed: int, question: Question) -> random.Random:
    # Stable per attempt and question, so back and forward show the same order.
    return random.Random(f"{seed}:{question.slug}")


def _shown_order(question: Question, options: list, rng: random.Random) -> list:
    """Choices in the order the learner saw them (and sees them again in the feedback)."""
    if question.kind == "truefalse":
        options.sort(key=lambda o: o.text != "True")
    elif question.kind in ("single", "multiple", "next_action"):
        rng.shuffle(options)
    return options


def present(question: Question, seed: int, answer: dict | None = None) -> dict:
    """Template context for a question's inputs, with the learner's own saved answer if any."""
    rng = _rng(seed, question)
    options = _shown_order(question, list(question.options.all()), rng)
    answer = answer or {}
    ctx: dict = {"kind": question.kind, "answer": answer}
    chosen = set(answer.get("choices", [])) | {answer.get("choice")}
    ctx["choices"] = [
        {"key": o.key, "html": o.text_html, "checked": o.key in chosen} for o in options
    ]
    if question.kind == "ordering":
        items = list(options)
        rng.shuffle(items)
        if len(items) > 1 and [o.position for o in items] == sorted(o.position for o in items):
            items = items[1:] + items[:1]  # never show the answer as the starting order
        rank = {k: i + 1 for i, k in enumerate(answer.get("order", []))}
        # Positions start blank, so an untouched question is never saved as an answer.
        ctx["order_items"] = [
            {"key": o.key, "html": o.text_html, "position": rank.get(o.key)} for o in items
        ]
        ctx["positions"] = list(range(1, len(items) + 1))
    if question.kind == "matching":
        lefts = list(options)
        rng.shuffle(lefts)
        rights = list(question.data.get("rights", []))
        rng.shuffle(rights)
        matches = answer.get("matches", {})
        ctx["lefts"] = [
            {"key": o.key, "html": o.text_html, "selected": matches.get(o.key, "")} for o in lefts
        ]
        ctx["rights"] = [{"key": r["key"], "html": r["html"], "text": r["text"]} for r in rights]
    if question.kind == "next_action":
        ctx["response"] = response_view(question.data.get("response") or {})
    if question.kind == "json":
        ctx["placeholder"] = question.data.get("placeholder", "")
        ctx["text"] = answer.get("text", "")
    if question.kind == "fix":
        broken = json.dumps(question.data.get("messages", []), indent=2, ensure_ascii=False)
        ctx["text"] = answer.get("text") or broken
        ctx["rows"] = min(40, ctx["text"].count("\n") + 2)
    return ctx


def response_view(response: dict) -> dict:
    """A Messages API response prepared for display: each block with pretty JSON where useful."""
    blocks = []
    for block in response.get("content", []):
        kind = block.get("type", "?")
        view = {"type": kind, "block": block}
        if kind in ("tool_use", "server_tool_use"):
            view["input_json"] = json.dumps(block.get("input", {}), indent=2, ensure_ascii=False)
        if kind not in ("text", "thinking", "redacted_thinking", "tool_use", "server_tool_use"):
            view["raw_json"] = json.dumps(block, indent=2, ensure_ascii=False)
        blocks.append(view)
    return {
        "stop_reason": response.get("stop_reason"),
        "stop_sequence": response.get("stop_sequence"),
        "usage": response.get("usage", {}),
        "blocks": blocks,
        "known": response.get("stop_reason") in catalogue.STOP_REASONS,
    }


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
    if question.kind in ("single", "multiple", "truefalse", "next_action"):
        if seed is not None:
            options = _shown_order(question, options, _rng(seed, question))
        chosen = set(answer.get("choices", [])) | {answer.get("choice")}
        right = None
        if question.kind == "next_action":
            right = catalogue.next_action(question.data["response"])
        ctx["options"] = [
            {
                "html": o.text_html,
                "why_html": o.why_html,
                "correct": (o.key == right) if right else o.correct,
                "chosen": o.key in chosen,
                "family": o.family,
            }
            for o in options
        ]
    elif question.kind == "ordering":
        order = answer.get("order", [])
        yours = {k: i + 1 for i, k in enumerate(order)}
        ctx["steps"] = [
            {"html": o.text_html, "why_html": o.why_html, "yours": yours.get(o.key)}
            for o in options
        ]
    elif question.kind == "matching":
        rights = {r["key"]: r["html"] for r in question.data.get("rights", [])}
        matches = answer.get("matches", {})
        ctx["pairs"] = [
            {
                "left": o.text_html,
                "right": rights.get(o.match, ""),
                "yours": rights.get(matches.get(o.key, ""), ""),
                "ok": matches.get(o.key) == o.match,
                "why_html": o.why_html,
            }
            for o in options
        ]
    elif question.kind == "json":
        data = question.data
        ctx["text"] = answer.get("text", "")
        ctx["accept"] = [json.dumps(a, indent=2) for a in data.get("accept", [])]
        ctx["why_html"] = data.get("why_html", "")
        ctx["matched"] = None
        if ctx["text"]:
            try:
                key = grading.grade(question.grading_spec(), answer).feedback_key
            except grading.AnswerError:
                key = ""
            if key.startswith("wrong-"):
                ctx["matched"] = data["wrong_answers"][int(key[6:])]
    elif question.kind == "fix":
        ctx["text"] = answer.get("text", "")
        ctx["fix"] = True
        ctx["why_html"] = question.data.get("why_html", "")
        ctx["sample"] = json.dumps(question.data.get("sample_fix", []), indent=2)
        ctx["problems"] = []
        if ctx["text"]:
            try:
                ctx["problems"] = grading.grade(question.grading_spec(), answer).details
            except grading.AnswerError as e:
                ctx["problems"] = [str(e)]
    return ctx
