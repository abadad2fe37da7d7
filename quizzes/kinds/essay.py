"""Essay: a written answer with no automatic grade (Moodle's qtype_essay).

YAML::

    kind: essay
    model_answer: |               # shown after answering; the candidate marks themselves
      …

After answering, the candidate compares their text with the model answer and marks it
(right, partly, not yet): the self-mark is kept with the answer and never counts as a grade.
An instructor grades from the queue (/author/grading/); until then the response has no score,
and a mock exam leaves it out of its score.
"""

from __future__ import annotations

from core.rendering import render_markdown

from .base import (  # noqa: F401 - the defaults this kind keeps
    CHOICES,
    KEEP_TYPED,
    TRAPS_REQUIRED,
    XML_PENALTY,
    chosen_keys,
    gettext_noop,
    gift_block,
    shown_order,
    shown_response,
    text_answer,
)

LABEL = gettext_noop("Essay (graded by an instructor)")
MOODLE_QTYPE = "essay"
TEMPLATE = "quizzes/kinds/_essay_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_essay_feedback.html"
AUTO_GRADED = False
MAX_CHARS = 5000
SELF_MARKS = {"right": "I got it", "partly": "Partly", "not-yet": "Not yet"}
GRADES = {"1": 1.0, "0.5": 0.5, "0": 0.0}


def check(c, q: dict, out: dict) -> None:
    out["data"]["model_answer"] = c.text(q, "model_answer")


def build(data: dict, options: list) -> dict:
    data["model_answer_html"] = render_markdown(data.get("model_answer", "")).html
    return {}


def parse_answer(spec: dict, get, getlist) -> dict:
    return text_answer(get, "Write your answer first.", MAX_CHARS)


def grade(spec: dict, answer: dict):
    from quizzes.grading import Graded

    return Graded(0.0, pending=True)  # no automatic grade: an instructor decides


def present(question, answer: dict, options: list, rng) -> dict:
    return {"text": answer.get("text", ""), "template": TEMPLATE}


def feedback(question, answer: dict, options: list) -> dict:
    return {
        "template": FEEDBACK_TEMPLATE,
        "text": answer.get("text", ""),
        "model_html": question.data.get("model_answer_html", ""),
        "self_mark": SELF_MARKS.get(answer.get("self_mark", "")),
        "self_marks": SELF_MARKS,
        "pending": True,
    }


def right_answer(question, options: list) -> dict:
    return {"text": question.data.get("model_answer", "")}


def to_yaml(question, out: dict, options: list) -> None:
    out["model_answer"] = question.data.get("model_answer", "")


def from_moodle(mq, out: dict, meta: dict, keep, ctx) -> list[str]:
    model = meta.get("model_answer") or keep(getattr(mq, "graderinfo", "") or "")
    warnings = []
    if not model and mq.general_feedback.strip():  # GIFT has no grader information
        model = keep(mq.general_feedback)
        warnings.append("model answer taken from the general feedback: check it")
    if not model:
        model = "TODO (imported without grader information): write the model answer."
        warnings.append("no model answer in the file: write one before publishing")
    out["model_answer"] = model
    return warnings


def meta(question: dict) -> dict:
    return {"model_answer": question["model_answer"]}


def gift_lines(question: dict, escape, head: str) -> list[str]:
    return gift_block(head, [], question, escape)


def xml_answers(el, question: dict, add_text) -> None:
    import xml.etree.ElementTree as ET  # noqa: S405 - writing only

    ET.SubElement(el, "responseformat").text = "plain"
    ET.SubElement(el, "responserequired").text = "1"
    add_text(el, "graderinfo", question["model_answer"])


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    return ("", []) if mq.qtype == "essay" else None


# --- the editor -----------------------------------------------------------------------------

ROWS, ROW_FIELDS, ROW_LEGEND, ROW_LABEL = "", (), "", ""


def editor_fields() -> dict:
    from django import forms
    from django.utils.translation import gettext_lazy as _

    from .editor import area

    return {
        "model_answer": forms.CharField(
            label=_("Model answer"),
            widget=area(6),
            required=False,
            help_text=_(
                "Markdown. Shown after answering: the candidate compares their text with it and "
                "marks themselves; an instructor grades from the queue."
            ),
        )
    }


def new_rows() -> list[dict]:
    return []


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    return {"model_answer": data.get("model_answer", "")}


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    return {"model_answer": parsed["data"].get("model_answer", "")}, []
