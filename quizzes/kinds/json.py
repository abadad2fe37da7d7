"""JSON answer: the candidate writes a JSON value (say a ``tool_choice``), graded by structure.

YAML::

    kind: json
    accept: [{type: any}]             # every value that is right
    normalize: tool_choice            # optional: compare as the API reads a tool_choice
    why: "…"
    wrong_answers:                    # optional: anticipated wrong values, each with its why
      - {answer: {type: auto}, why: "…", family: forced-choice-mixup}
    placeholder: '{"type": …}'

GIFT and Moodle XML have no such question: they leave it out of an export.
"""

from __future__ import annotations

import json as jsonlib

from core.rendering import render_inline
from studyapp.agentloop import catalogue

from .base import (  # noqa: F401 - the defaults this kind keeps
    AUTO_GRADED,
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

LABEL = "JSON answer"
MOODLE_QTYPE = ""  # no Moodle equivalent
TEMPLATE = "quizzes/kinds/_json_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_json_feedback.html"
CHOICES = TRAPS_REQUIRED = False
KEEP_TYPED = True  # an answer that does not parse is shown back as typed, to be fixed
ROWS, ROW_FIELDS, ROW_LEGEND, ROW_LABEL = "", (), "", ""
MAX_CHARS = 5000


def check(c, q: dict, out: dict) -> None:
    accept = q.get("accept")
    if not isinstance(accept, list) or not accept:
        c.err("accept must list at least one JSON value that is right")
        accept = []
    normalize = q.get("normalize")
    if normalize not in (None, "tool_choice"):
        c.err("normalize must be tool_choice or left out")
    if normalize == "tool_choice":
        for a in accept:
            try:
                catalogue.validate_tool_choice(plain(a))
            except catalogue.ToolChoiceError as e:
                c.err(f"an accepted answer is not a valid tool_choice: {e}")
    why = c.text(q, "why")
    wrong = q.get("wrong_answers", [])
    if not isinstance(wrong, list):
        c.err("wrong_answers must be a list")
        wrong = []
    wrong_out = []
    for i, w in enumerate(wrong):
        where = f"wrong_answers[{i + 1}]."
        if not isinstance(w, dict) or "answer" not in w:
            c.err(f"{where}answer is required")
            continue
        wrong_out.append(
            {"answer": plain(w["answer"]), "why": c.text(w, "why", where),
             "family": c.family(w, where)}
        )  # fmt: skip
    out["data"].update(
        {"accept": plain(accept), "normalize": normalize or "", "why": why,
         "wrong_answers": wrong_out, "placeholder": str(q.get("placeholder") or "")}
    )  # fmt: skip
    try:
        jsonlib.dumps(out["data"])
    except (TypeError, ValueError):
        c.err("accept and wrong_answers must be plain JSON values")


def build(data: dict, options: list) -> dict:
    data["why_html"] = render_inline(data.get("why", ""))
    for w in data.get("wrong_answers", []):
        w["why_html"] = render_inline(w["why"])
    return {}


def parse_answer(spec: dict, get, getlist) -> dict:
    from quizzes.grading import parse_json

    answer = text_answer(get, "Write a JSON value first.", MAX_CHARS)
    parse_json(answer["text"])
    return answer


def _normalize(data: dict, value):
    if data.get("normalize") == "tool_choice":
        try:
            catalogue.validate_tool_choice(value)
        except catalogue.ToolChoiceError:
            return ("invalid", jsonlib.dumps(value, sort_keys=True))
        return catalogue.normalize_tool_choice(value)
    return value


def grade_value(data: dict, value):
    """Compare by structure: key order and whitespace never matter."""
    from quizzes.grading import Graded

    normalized = _normalize(data, value)
    if any(normalized == _normalize(data, a) for a in data["accept"]):
        return Graded(1.0)
    for i, wrong in enumerate(data.get("wrong_answers", [])):
        if normalized == _normalize(data, wrong["answer"]):
            return Graded(0.0, [wrong["family"]] if wrong.get("family") else [], f"wrong-{i}")
    return Graded(0.0)


def grade(spec: dict, answer: dict):
    from quizzes.grading import parse_json

    return grade_value(spec["data"], parse_json(answer["text"]))


def present(question, answer: dict, options: list, rng) -> dict:
    return {
        "template": TEMPLATE,
        "placeholder": question.data.get("placeholder", ""),
        "text": answer.get("text", ""),
    }


def feedback(question, answer: dict, options: list) -> dict:
    from quizzes import grading

    data = question.data
    ctx = {
        "template": FEEDBACK_TEMPLATE,
        "text": answer.get("text", ""),
        "accept": [jsonlib.dumps(a, indent=2) for a in data.get("accept", [])],
        "why_html": data.get("why_html", ""),
        "matched": None,
    }
    if ctx["text"]:
        try:
            key = grading.grade(question.grading_spec(), answer).feedback_key
        except grading.AnswerError:
            key = ""
        if key.startswith("wrong-"):
            ctx["matched"] = data["wrong_answers"][int(key[6:])]
    return ctx


def right_answer(question, options: list) -> dict:
    return {"text": jsonlib.dumps(((question.data or {}).get("accept") or [None])[0], indent=2)}


def to_yaml(question, out: dict, options: list) -> None:
    data = question.data or {}
    out["accept"] = data.get("accept", [])
    if data.get("normalize"):
        out["normalize"] = data["normalize"]
    out["why"] = data.get("why", "")
    if data.get("placeholder"):
        out["placeholder"] = data["placeholder"]
    if data.get("wrong_answers"):
        out["wrong_answers"] = [
            {"answer": w["answer"], "why": w["why"], "family": w["family"]}
            for w in data["wrong_answers"]
        ]


def editor_fields() -> dict:
    from django import forms

    from .editor import area

    return {
        "accept": forms.CharField(
            label="Accepted answers (a JSON list)", widget=area(5, code=True), required=False,
            help_text="Each value that is right, compared by structure, not by text.",
        ),
        "normalize": forms.ChoiceField(
            choices=[("", "Compare as written"), ("tool_choice", "Normalise as a tool_choice")],
            required=False,
        ),
        "why": forms.CharField(
            label="Why the answer is right", widget=area(3), required=False, help_text="Markdown."
        ),
        "wrong_answers": forms.CharField(
            label="Anticipated wrong answers (a JSON list)", widget=area(5, code=True),
            required=False, help_text='Optional: [{"answer": …, "why": "…", "family": "…"}].',
        ),
        "placeholder": forms.CharField(max_length=200, required=False),
    }  # fmt: skip


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    wrong = ed.json("wrong_answers")
    out = {"accept": ed.json("accept"), "wrong_answers": wrong if wrong is not None else []}
    if data.get("normalize"):
        out["normalize"] = data["normalize"]
    out["why"] = data.get("why", "")
    out["placeholder"] = data.get("placeholder", "")
    return out


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    from .editor import dump

    data = parsed["data"]
    wrong = [{k: w[k] for k in ("answer", "why", "family") if k in w}
             for w in data.get("wrong_answers", [])]  # fmt: skip
    initial = {
        "accept": dump(data.get("accept", [])),
        "normalize": data.get("normalize", ""),
        "why": data.get("why", ""),
        "wrong_answers": dump(wrong) if wrong else "",
        "placeholder": data.get("placeholder", ""),
    }
    return initial, []
