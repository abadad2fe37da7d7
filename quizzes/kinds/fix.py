"""Fix the conversation: edit a broken message history until the contract checker accepts it.

YAML::

    kind: fix
    messages: [...]        # the broken history (the checker must find something)
    sample_fix: [...]      # one repaired history (the checker must accept it)
    tools: [...]           # optional request context: tools, tool_choice, thinking
    why: "…"

Right when studyapp.agentloop.contract accepts the history and no tool call was deleted.
GIFT and Moodle XML have no such question: they leave it out of an export.
"""

from __future__ import annotations

import json as jsonlib

from core.rendering import render_markdown

from .base import (  # noqa: F401 - the defaults this kind keeps
    AUTO_GRADED,
    KEEP_TYPED,
    XML_PENALTY,
    chosen_keys,
    from_moodle,
    gift_lines,
    meta,
    moodle_kind,
    new_rows,
    plain,
    shown_order,
    shown_response,
    text_answer,
    xml_answers,
)

LABEL = "Fix the conversation"
MOODLE_QTYPE = ""  # no Moodle equivalent
TEMPLATE = "quizzes/kinds/_fix_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_fix_feedback.html"
CHOICES = TRAPS_REQUIRED = False
ROWS, ROW_FIELDS, ROW_LEGEND, ROW_LABEL = "", (), "", ""
CONTEXT_KEYS = ("tools", "tool_choice", "thinking")
MAX_CHARS = 5000


def check(c, q: dict, out: dict) -> None:
    from studyapp.agentloop import contract

    messages = q.get("messages")
    sample = q.get("sample_fix")
    context = {k: plain(q[k]) for k in CONTEXT_KEYS if k in q}
    if not isinstance(messages, list) or not messages:
        c.err("messages must be the broken history: a list of messages")
        return
    if not isinstance(sample, list) or not sample:
        c.err("sample_fix must be a repaired history: a list of messages")
        return
    if not contract.check(plain(messages), **context):
        c.err("the checker finds nothing wrong with messages: the history to fix must be broken")
    found = contract.check(plain(sample), **context)
    if found:
        c.err(f"sample_fix does not pass the checker: {found[0].message}")
    out["data"].update(
        {"messages": plain(messages), "sample_fix": plain(sample), "context": context,
         "why": c.text(q, "why")}
    )  # fmt: skip


def build(data: dict, options: list) -> dict:
    data["why_html"] = render_markdown(data.get("why", "")).html
    return {}


def parse_answer(spec: dict, get, getlist) -> dict:
    from quizzes.grading import AnswerError, parse_json

    answer = text_answer(get, "Write a JSON value first.", MAX_CHARS)
    if not isinstance(parse_json(answer["text"]), list):
        raise AnswerError("The answer must be a JSON array of messages, like the one given.")
    return answer


def _tool_use_ids(messages) -> set[str]:
    ids = set()
    for m in messages if isinstance(messages, list) else []:
        content = m.get("content") if isinstance(m, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                ids.add(str(block.get("id")))
    return ids


def grade_value(data: dict, value):
    """Right when the contract checker accepts the history and no tool call was deleted."""
    from quizzes.grading import Graded
    from studyapp.agentloop import contract

    problems = []
    original = data["messages"]
    if not isinstance(value, list) or not value:
        problems.append("The answer must be a non-empty JSON array of messages.")
    else:
        missing = sorted(_tool_use_ids(original) - _tool_use_ids(value))
        if missing:
            problems.append(
                f"The tool call {missing[0]} was deleted: repair the history, keep the calls."
            )
        if value[0] != original[0]:
            problems.append("The first user message changed: keep the task as it was given.")
        problems += [
            f"{f.path}: {f.message}" if f.path else f.message
            for f in contract.check(value, **data.get("context", {}))
        ]
    return Graded(0.0 if problems else 1.0, details=problems)


def grade(spec: dict, answer: dict):
    from quizzes.grading import parse_json

    return grade_value(spec["data"], parse_json(answer["text"]))


def present(question, answer: dict, options: list, rng) -> dict:
    broken = jsonlib.dumps(question.data.get("messages", []), indent=2, ensure_ascii=False)
    text = answer.get("text") or broken
    return {"template": TEMPLATE, "text": text, "rows": min(40, text.count("\n") + 2)}


def feedback(question, answer: dict, options: list) -> dict:
    from quizzes import grading

    ctx = {
        "template": FEEDBACK_TEMPLATE,
        "text": answer.get("text", ""),
        "fix": True,
        "why_html": question.data.get("why_html", ""),
        "sample": jsonlib.dumps(question.data.get("sample_fix", []), indent=2),
        "problems": [],
    }
    if ctx["text"]:
        try:
            ctx["problems"] = grading.grade(question.grading_spec(), answer).details
        except grading.AnswerError as e:
            ctx["problems"] = [str(e)]
    return ctx


def right_answer(question, options: list) -> dict:
    return {"text": jsonlib.dumps((question.data or {}).get("sample_fix", []), indent=2)}


def to_yaml(question, out: dict, options: list) -> None:
    data = question.data or {}
    out["why"] = data.get("why", "")
    out.update(data.get("context", {}))
    out["messages"] = data.get("messages", [])
    out["sample_fix"] = data.get("sample_fix", [])


def editor_fields() -> dict:
    from django import forms

    from .editor import area

    return {
        "messages": forms.CharField(
            label="The broken history (JSON list of messages)", widget=area(12, code=True),
            required=False,
        ),
        "sample_fix": forms.CharField(
            label="A repaired history (JSON list of messages)", widget=area(12, code=True),
            required=False,
        ),
        "context": forms.CharField(
            label="Request context (JSON object)", widget=area(3, code=True), required=False,
            help_text="Optional: tools, tool_choice and thinking of the request, as an object.",
        ),
        "why": forms.CharField(
            label="Why the answer is right", widget=area(3), required=False, help_text="Markdown."
        ),
    }  # fmt: skip


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    out = {"messages": ed.json("messages"), "sample_fix": ed.json("sample_fix"),
           "why": data.get("why", "")}  # fmt: skip
    context = ed.json("context")
    if context is not None and not isinstance(context, dict):
        ed.error("context", 'The context must be a JSON object, e.g. {"tools": [...]}.')
    elif context:
        unknown = sorted(set(context) - set(CONTEXT_KEYS))
        if unknown:
            ed.error(
                "context",
                f"The context may hold {', '.join(CONTEXT_KEYS)} only (not {unknown[0]}).",
            )
        out.update({k: v for k, v in context.items() if k in CONTEXT_KEYS})
    return out


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    from .editor import dump

    data = parsed["data"]
    initial = {
        "messages": dump(data.get("messages", [])),
        "sample_fix": dump(data.get("sample_fix", [])),
        "context": dump(data["context"]) if data.get("context") else "",
        "why": data.get("why", ""),
    }
    return initial, []
