"""Short answer: the candidate types a word or phrase (Moodle's qtype_shortanswer).

YAML::

    kind: short_answer
    case_sensitive: false          # optional, as Moodle's "Case sensitivity: No"
    answers:                       # tried in order; the first that matches gives its grade
      - {answer: "end_turn", why: "…"}            # grade: 100 by default
      - {answer: "end*", grade: 0, why: "…", family: misread-contract}

``*`` matches any run of characters (``\\*`` is a literal star), the whole answer must match, and
the response is trimmed first, all as Moodle compares them.
"""

from __future__ import annotations

import math
import re

from core.rendering import render_inline

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

LABEL = gettext_noop("Short answer (typed text)")
MOODLE_QTYPE = "shortanswer"
TEMPLATE = "quizzes/kinds/_short_answer_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_typed_feedback.html"
AUTO_GRADED = True
MAX_CHARS = 200


def _grade_value(c, node: dict, where: str) -> float:
    raw = node.get("grade", 100)
    if not isinstance(raw, (int, float)) or isinstance(raw, bool) or not 0 <= raw <= 100:
        c.err(f"{where}grade must be a percentage from 0 to 100 (got {raw!r})", node)
        return 0.0
    return raw / 100


def check(c, q: dict, out: dict) -> None:
    answers = q.get("answers")
    if not isinstance(answers, list) or not answers:
        c.err("answers must list at least one accepted answer")
        return
    rows = []
    for i, a in enumerate(answers):
        where = f"answers[{i + 1}]."
        if not isinstance(a, dict):
            c.err(f"answers[{i + 1}] must be a mapping")
            continue
        text = c.text(a, "answer", where=where)
        row = {
            "answer": text,
            "grade": _grade_value(c, a, where),
            "why": c.text(a, "why", where=where),
        }
        if row["grade"] < 1 and a.get("family") is not None:
            row["family"] = c.family(a, where)
        rows.append(row)
    if rows and max(r["grade"] for r in rows) < 1:
        c.err("one of the answers must be worth 100 % (grade: 100)")
    case = q.get("case_sensitive", False)
    if not isinstance(case, bool):
        c.err("case_sensitive must be true or false")
    out["data"]["answers"] = rows
    out["data"]["case_sensitive"] = bool(case)


def build(data: dict, options: list) -> dict:
    """Add rendered HTML to the stored data (bank._build calls it)."""
    for a in data.get("answers", []):
        a["why_html"] = render_inline(a["why"])
    return {}


def parse_answer(spec: dict, get, getlist) -> dict:
    return text_answer(get, "Type your answer first.", MAX_CHARS)


def matches(pattern: str, response: str, case_sensitive: bool) -> bool:
    """Moodle's compare_string_with_wildcard: * is any run, \\* a star, the whole must match."""
    parts = re.split(r"(?<!\\)\*", pattern)
    regex = ".*".join(re.escape(p.replace("\\*", "*")) for p in parts)
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.fullmatch(regex, response.strip(), flags | re.DOTALL) is not None


def matching_answer(data: dict, text: str) -> int | None:
    for i, a in enumerate(data.get("answers", [])):
        if matches(a["answer"], text, data.get("case_sensitive", False)):
            return i
    return None


def grade(spec: dict, answer: dict):
    data = spec["data"]
    return graded_match(data, matching_answer(data, answer["text"]))


def graded_match(data: dict, i: int | None):
    """The grade of answer row ``i`` (None: no row matched), for every typed-answer kind."""
    from quizzes.grading import Graded

    if i is None:
        return Graded(0.0)
    a = data["answers"][i]
    families = [a["family"]] if a.get("family") and a["grade"] < 1 else []
    return Graded(round(a["grade"], 4), families, feedback_key=f"answer-{i}")


def present(question, answer: dict, options: list, rng) -> dict:
    return {"text": answer.get("text", ""), "template": TEMPLATE}


def feedback(question, answer: dict, options: list) -> dict:
    data = question.data
    text = answer.get("text", "")
    i = matching_answer(data, text) if text else None
    best = max(data.get("answers", []), key=lambda a: a["grade"], default=None)
    return {
        "template": FEEDBACK_TEMPLATE,
        "text": text,
        "matched": data["answers"][i] if i is not None else None,
        "best": best,
        "case_note": "Capitals count." if data.get("case_sensitive") else "Capitals don't count.",
    }


def right_answer(question, options: list) -> dict:
    best = max(question.data["answers"], key=lambda a: a["grade"])
    return {"text": best["answer"].replace("\\*", "\x00").replace("*", "x").replace("\x00", "*")}


def to_yaml(question, out: dict, options: list) -> None:
    data = question.data
    if data.get("case_sensitive"):
        out["case_sensitive"] = True
    out["answers"] = [_yaml_answer(a) for a in data.get("answers", [])]


def _yaml_answer(a: dict) -> dict:
    row = {"answer": a["answer"], "why": a["why"]}
    if a["grade"] != 1:
        row["grade"] = _percent(a["grade"])
    if a.get("family"):
        row["family"] = a["family"]
    return row


def _percent(fraction: float):
    value = round(fraction * 100, 5)
    return int(value) if value == int(value) else value


def from_moodle(mq, out: dict, meta: dict, keep, ctx) -> list[str]:
    """Fill ``out`` (bank YAML) from a MoodleQuestion; returns warnings."""
    families = list(meta.get("families") or [])
    out["answers"] = []
    for i, a in enumerate(mq.answers):
        row = {"answer": a.text, "why": keep(a.feedback) or "", "grade": _percent(a.fraction)}
        if i < len(families) and families[i]:
            row["family"] = families[i]
        if not row["why"]:
            from quizzes.formats import MISSING_WHY

            row["why"] = MISSING_WHY
        out["answers"].append(row)
    if meta.get("case_sensitive") or getattr(mq, "case_sensitive", False):
        out["case_sensitive"] = True
    return []


def meta(question: dict) -> dict:
    out = {"families": [a.get("family", "") for a in question["answers"]]}
    if question.get("case_sensitive"):
        out["case_sensitive"] = True
    return out


def gift_lines(question: dict, escape, head: str) -> list[str]:
    from quizzes.formats import fraction_text

    lines = []
    for a in question["answers"]:
        grade = a.get("grade", 100) / 100
        mark = "=" if grade == 1 else f"=%{fraction_text(grade)}%"
        lines.append(f"\t{mark}{escape(a['answer'])}#{escape(a['why'])}")
    return gift_block(head, lines, question, escape)


def xml_answers(el, question: dict, add_text) -> None:
    import xml.etree.ElementTree as ET  # noqa: S405 - writing only

    from quizzes.formats import fraction_text

    ET.SubElement(el, "usecase").text = "1" if question.get("case_sensitive") else "0"
    for a in question["answers"]:
        attrs = {
            "fraction": fraction_text(a.get("grade", 100) / 100),
            "format": "moodle_auto_format",
        }
        ans = ET.SubElement(el, "answer", attrs)
        ET.SubElement(ans, "text").text = a["answer"]
        add_text(ans, "feedback", a["why"])


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    return ("", []) if mq.qtype == "shortanswer" else None


# --- the editor -----------------------------------------------------------------------------

ROWS, ROW_LEGEND, ROW_LABEL = (
    "answers",
    gettext_noop("Accepted answers (tried in order)"),
    gettext_noop("Answer"),
)
ROW_TEXT_LABEL = gettext_noop("Answer (* matches any run of characters, \\* is a star)")
ROW_FIELDS = ("text", "grade", "why", "family")


def editor_fields() -> dict:
    from django import forms
    from django.utils.translation import gettext_lazy as _

    return {
        "case_sensitive": forms.BooleanField(
            label=_("Capitals count (case sensitive)"),
            required=False,
            help_text=_("As Moodle's “Case sensitivity”: off, END_TURN is end_turn."),
        )
    }


def new_rows() -> list[dict]:
    return [{"grade": "100"}, {}]


def editor_grade(raw: str):
    """A grade typed in the editor: a number when it is one (the schema checks the range),
    else the text itself, so the schema's message names what was typed."""
    raw = (raw or "").strip().rstrip("%").strip()
    if not raw:
        return 100
    try:
        value = float(raw.replace(",", "."))
    except ValueError:
        return raw
    if not math.isfinite(value):
        return raw
    return int(value) if value == int(value) else value


def editor_row(r: dict, head: dict) -> dict:
    head["grade"] = editor_grade(r.get("grade", ""))
    head["why"] = r["why"]
    if r.get("family"):
        head["family"] = r["family"]
    return head


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    return {
        "answers": [editor_row(r, {"answer": r["text"]}) for r in rows],
        "case_sensitive": bool(data.get("case_sensitive")),
    }


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    data = parsed["data"]
    rows = [
        {"text": a["answer"], "grade": str(_percent(a["grade"])), "why": a["why"],
         "family": a.get("family", "")}
        for a in data.get("answers", [])
    ]  # fmt: skip
    return {"case_sensitive": data.get("case_sensitive", False)}, rows
