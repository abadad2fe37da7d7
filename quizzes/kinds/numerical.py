"""Numerical: the candidate types a number, right within a tolerance (Moodle's qtype_numerical).

YAML::

    kind: numerical
    answers:                       # tried in order; the first within tolerance gives its grade
      - {answer: 7, tolerance: 0, why: "…"}      # grade: 100 by default
      - {answer: "*", grade: 0, why: "…"}        # "*": any other number (Moodle's catch-all)

As Moodle's "nominal" tolerance: a response x earns an answer when |x − answer| ≤ tolerance.
A decimal comma is read as a point; anything that is not a number is refused, not marked.
"""

from __future__ import annotations

import math

from .base import (  # noqa: F401 - the defaults this kind keeps
    CHOICES,
    KEEP_TYPED,
    TRAPS_REQUIRED,
    XML_PENALTY,
    chosen_keys,
    editor_fields,
    gettext_noop,
    gift_block,
    shown_order,
    shown_response,
)
from .short_answer import _grade_value, _percent, build, graded_match  # noqa: F401 - build: the same answers' whys

LABEL = gettext_noop("Numerical (a number, with a tolerance)")
MOODLE_QTYPE = "numerical"
TEMPLATE = "quizzes/kinds/_numerical_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_typed_feedback.html"
AUTO_GRADED = True


def _number(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    try:
        number = float(str(value).strip().replace(",", "."))
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def check(c, q: dict, out: dict) -> None:
    answers = q.get("answers")
    if not isinstance(answers, list) or not answers:
        c.err("answers must list at least one number")
        return
    rows = []
    for i, a in enumerate(answers):
        where = f"answers[{i + 1}]."
        if not isinstance(a, dict):
            c.err(f"answers[{i + 1}] must be a mapping")
            continue
        raw = a.get("answer")
        value = "*" if raw == "*" else _number(raw)
        if value is None:
            c.err(f"{where}answer must be a number or * (got {raw!r})", a)
            continue
        tolerance = _number(a.get("tolerance", 0))
        if tolerance is None or tolerance < 0:
            c.err(f"{where}tolerance must be a number of at least 0", a)
            tolerance = 0.0
        row = {
            "answer": value,
            "tolerance": tolerance,
            "grade": _grade_value(c, a, where),
            "why": c.text(a, "why", where=where),
        }
        if row["grade"] < 1 and a.get("family") is not None:
            row["family"] = c.family(a, where)
        rows.append(row)
    if rows and max(r["grade"] for r in rows) < 1:
        c.err("one of the answers must be worth 100 % (grade: 100)")
    out["data"]["answers"] = rows


def parse_answer(spec: dict, get, getlist) -> dict:
    from quizzes.grading import AnswerError, NoAnswer

    text = get("text").strip()
    if not text:
        raise NoAnswer("Type a number first.")
    if _number(text) is None or len(text) > 40:
        raise AnswerError(f"“{text[:40]}” is not a number: type digits, like 7 or 0.5.")
    return {"text": text}


def matching_answer(data: dict, text: str) -> int | None:
    x = _number(text)
    if x is None:
        return None
    for i, a in enumerate(data.get("answers", [])):
        if a["answer"] == "*" or abs(x - a["answer"]) <= a["tolerance"] + 1e-12:
            return i
    return None


def grade(spec: dict, answer: dict):
    data = spec["data"]
    return graded_match(data, matching_answer(data, answer["text"]))


def present(question, answer: dict, options: list, rng) -> dict:
    return {"text": answer.get("text", ""), "template": TEMPLATE}


def _shown(a: dict) -> str:
    value = a["answer"]
    if value == "*":
        return "any other number"
    text = f"{value:g}"
    return f"{text} ± {a['tolerance']:g}" if a["tolerance"] else text


def feedback(question, answer: dict, options: list) -> dict:
    data = question.data
    text = answer.get("text", "")
    i = matching_answer(data, text) if text else None
    best = max(data.get("answers", []), key=lambda a: a["grade"], default=None)
    return {
        "template": FEEDBACK_TEMPLATE,
        "text": text,
        "matched": data["answers"][i] if i is not None else None,
        "best": {**best, "answer": _shown(best)} if best else None,
        "case_note": "",
    }


def right_answer(question, options: list) -> dict:
    best = max(question.data["answers"], key=lambda a: a["grade"])
    return {"text": f"{best['answer']:g}"}


def _yaml_number(value):
    if value == "*":
        return "*"
    return int(value) if float(value).is_integer() else value


def to_yaml(question, out: dict, options: list) -> None:
    out["answers"] = []
    for a in question.data.get("answers", []):
        row = {"answer": _yaml_number(a["answer"])}
        if a["tolerance"]:
            row["tolerance"] = _yaml_number(a["tolerance"])
        row["why"] = a["why"]
        if a["grade"] != 1:
            row["grade"] = _percent(a["grade"])
        if a.get("family"):
            row["family"] = a["family"]
        out["answers"].append(row)


def from_moodle(mq, out: dict, meta: dict, keep, ctx) -> list[str]:
    """GIFT gives "value", "value:tolerance" or "min..max"; XML gives the value and tolerance."""
    from quizzes.formats import MISSING_WHY

    families = list(meta.get("families") or [])
    out["answers"] = []
    for i, a in enumerate(mq.answers):
        text = a.text.strip()
        tolerance = getattr(a, "tolerance", None)
        if tolerance is None:
            tolerance = 0.0
            if ".." in text[1:]:
                low, _, high = text.partition("..")
                low_n, high_n = _number(low), _number(high)
                text = str((low_n + high_n) / 2)
                tolerance = abs(high_n - low_n) / 2
            elif ":" in text[1:]:
                text, _, tol = text.partition(":")
                tolerance = _number(tol) or 0.0
        value = "*" if text == "*" else _number(text)
        row = {"answer": _yaml_number(value) if value is not None else text}
        if tolerance:
            row["tolerance"] = _yaml_number(tolerance)
        row["why"] = keep(a.feedback) or MISSING_WHY
        row["grade"] = _percent(a.fraction)
        if i < len(families) and families[i]:
            row["family"] = families[i]
        out["answers"].append(row)
    return []


def meta(question: dict) -> dict:
    return {"families": [a.get("family", "") for a in question["answers"]]}


def _gift_number(a: dict) -> str:
    value = a["answer"]
    if value == "*":
        return "*"
    text = f"{_yaml_number(value)}"
    return f"{text}:{_yaml_number(a['tolerance'])}" if a.get("tolerance") else text


def gift_lines(question: dict, escape, head: str) -> list[str]:
    from quizzes.formats import fraction_text

    lines = []
    for a in question["answers"]:
        grade = a.get("grade", 100) / 100
        mark = "=" if grade == 1 else f"=%{fraction_text(grade)}%"
        lines.append(f"\t{mark}{_gift_number(a)}#{escape(a['why'])}")
    return gift_block(head + "#", lines, question, escape)


def xml_answers(el, question: dict, add_text) -> None:
    import xml.etree.ElementTree as ET  # noqa: S405 - writing only

    from quizzes.formats import fraction_text

    for a in question["answers"]:
        attrs = {
            "fraction": fraction_text(a.get("grade", 100) / 100),
            "format": "moodle_auto_format",
        }
        ans = ET.SubElement(el, "answer", attrs)
        ET.SubElement(ans, "text").text = str(_yaml_number(a["answer"]))
        add_text(ans, "feedback", a["why"])
        ET.SubElement(ans, "tolerance").text = str(_yaml_number(a.get("tolerance", 0)))


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    return ("", []) if mq.qtype == "numerical" else None


# --- the editor -----------------------------------------------------------------------------

ROWS, ROW_LEGEND, ROW_LABEL = (
    "answers",
    gettext_noop("Accepted numbers (tried in order)"),
    gettext_noop("Answer"),
)
ROW_TEXT_LABEL = gettext_noop("Number (or * for any other number)")
ROW_FIELDS = ("text", "tolerance", "grade", "why", "family")


def new_rows() -> list[dict]:
    return [{"grade": "100", "tolerance": "0"}, {}]


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    from .short_answer import editor_row

    answers = []
    for r in rows:
        head = {"answer": (r["text"] or "").strip()}
        tolerance = (r.get("tolerance") or "").strip()
        if tolerance:
            head["tolerance"] = tolerance
        answers.append(editor_row(r, head))
    return {"answers": answers}


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    rows = [
        {"text": str(_yaml_number(a["answer"])), "tolerance": str(_yaml_number(a["tolerance"])),
         "grade": str(_percent(a["grade"])), "why": a["why"], "family": a.get("family", "")}
        for a in parsed["data"].get("answers", [])
    ]  # fmt: skip
    return {}, rows
