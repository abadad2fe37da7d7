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

LABEL = "Essay (graded by an instructor)"
MOODLE_QTYPE = "essay"
TEMPLATE = "quizzes/kinds/_essay_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_essay_feedback.html"
AUTO_GRADED = False
MAX_CHARS = 5000
SELF_MARKS = {"right": "I got it", "partly": "Partly", "not-yet": "Not yet"}
GRADES = {"1": 1.0, "0.5": 0.5, "0": 0.0}


def check(c, q: dict, out: dict) -> None:
    out["data"]["model_answer"] = c.text(q, "model_answer")


def build(data: dict) -> None:
    data["model_answer_html"] = render_markdown(data.get("model_answer", "")).html


def parse_answer(spec: dict, get) -> dict:
    from quizzes.grading import AnswerError, NoAnswer

    text = get("text").strip()
    if not text:
        raise NoAnswer("Write your answer first.")
    if len(text) > MAX_CHARS:
        raise AnswerError(f"That is longer than {MAX_CHARS} characters.")
    return {"text": text}


def grade(spec: dict, answer: dict):
    from quizzes.grading import Graded

    return Graded(0.0, pending=True)  # no automatic grade: an instructor decides


def present(question, answer: dict) -> dict:
    return {"text": answer.get("text", ""), "template": TEMPLATE}


def feedback(question, answer: dict) -> dict:
    return {
        "template": FEEDBACK_TEMPLATE,
        "text": answer.get("text", ""),
        "model_html": question.data.get("model_answer_html", ""),
        "self_mark": SELF_MARKS.get(answer.get("self_mark", "")),
        "self_marks": SELF_MARKS,
        "pending": True,
    }


def right_answer(question) -> dict:
    return {"text": question.data.get("model_answer", "")}


def to_yaml(question, out: dict) -> None:
    out["model_answer"] = question.data.get("model_answer", "")


def from_moodle(mq, out: dict, meta: dict, keep) -> list[str]:
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


def gift_answers(question: dict, escape) -> list[str]:
    return []


def xml_answers(el, question: dict, add_text) -> None:
    import xml.etree.ElementTree as ET  # noqa: S405 - writing only

    ET.SubElement(el, "responseformat").text = "plain"
    ET.SubElement(el, "responserequired").text = "1"
    add_text(el, "graderinfo", question["model_answer"])
