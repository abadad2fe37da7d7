"""Matching: pair each left-hand item with a right-hand text (Moodle's match).

YAML::

    kind: matching
    pairs:
      - {left: "…", right: "…", why: "…"}
    extra_rights: ["…"]        # optional: right-hand texts that match nothing
"""

from __future__ import annotations

from core.rendering import render_inline

from .base import (  # noqa: F401 - the defaults this kind keeps
    AUTO_GRADED,
    KEEP_TYPED,
    XML_PENALTY,
    chosen_keys,
    gettext_noop,
    gift_block,
    option_list,
    shown_order,
    shown_response,
)

LABEL = "Matching"
MOODLE_QTYPE = "matching"
TEMPLATE = "quizzes/kinds/_matching_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_matching_feedback.html"
CHOICES = TRAPS_REQUIRED = False
ROWS, ROW_LEGEND, ROW_LABEL = "pairs", gettext_noop("Pairs"), gettext_noop("Pair")
ROW_FIELDS = ("text", "right", "why")
START_ROWS = 3


def check(c, q: dict, out: dict) -> None:
    for i, pair in enumerate(option_list(c, q, "pairs", 3, 6)):
        where = f"pairs[{i + 1}]."
        out["options"].append(
            {"text": c.text(pair, "left", where), "match": c.text(pair, "right", where),
             "correct": True, "why": c.text(pair, "why", where), "family": "", "position": i}
        )  # fmt: skip
    extra = q.get("extra_rights", [])
    if not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
        c.err("extra_rights must be a list of texts")
        extra = []
    out["data"]["extra_rights"] = extra
    lefts = [o["text"] for o in out["options"]]
    if len(set(lefts)) != len(lefts):
        c.err("two pairs have the same left-hand text")


def build(data: dict, options: list) -> dict:
    """One right-hand entry per distinct text, with its own key; returns {text: key}."""
    from quizzes.models import new_key

    by_text: dict[str, str] = {}
    rights = []
    for text in [o["match"] for o in options] + data.get("extra_rights", []):
        if text not in by_text:
            by_text[text] = new_key()
            rights.append({"key": by_text[text], "text": text, "html": render_inline(text)})
    data["rights"] = rights
    return by_text


def parse_answer(spec: dict, get, getlist) -> dict:
    from quizzes.grading import AnswerError, NoAnswer

    keys = [o["key"] for o in spec["options"]]
    rights = {r["key"] for r in spec["data"].get("rights", [])}
    if not any(get(f"match-{key}") for key in keys):
        raise NoAnswer("Choose a match for every item.")
    matches = {}
    for key in keys:
        value = get(f"match-{key}")
        if not value:
            raise AnswerError("Choose a match for every item.")
        if value not in rights:
            raise AnswerError("One of the matches is not among the choices.")
        matches[key] = value
    return {"matches": matches}


def grade(spec: dict, answer: dict):
    from quizzes.grading import Graded

    matches = answer["matches"]
    hits = sum(1 for o in spec["options"] if matches.get(o["key"]) == o["match"])
    return Graded(round(hits / len(spec["options"]), 4))


def present(question, answer: dict, options: list, rng) -> dict:
    lefts = list(options)
    rng.shuffle(lefts)
    rights = list(question.data.get("rights", []))
    rng.shuffle(rights)
    matches = answer.get("matches", {})
    return {
        "template": TEMPLATE,
        "lefts": [
            {"key": o.key, "html": o.text_html, "selected": matches.get(o.key, "")} for o in lefts
        ],
        "rights": [{"key": r["key"], "html": r["html"], "text": r["text"]} for r in rights],
    }


def feedback(question, answer: dict, options: list) -> dict:
    rights = {r["key"]: r["html"] for r in question.data.get("rights", [])}
    matches = answer.get("matches", {})
    return {
        "template": FEEDBACK_TEMPLATE,
        "pairs": [
            {"left": o.text_html, "right": rights.get(o.match, ""),
             "yours": rights.get(matches.get(o.key, ""), ""),
             "ok": matches.get(o.key) == o.match, "why_html": o.why_html}
            for o in options
        ],
    }  # fmt: skip


def right_answer(question, options: list) -> dict:
    return {"matches": {o.key: o.match for o in options}}


def to_yaml(question, out: dict, options: list) -> None:
    data = question.data or {}
    rights = {r["key"]: r["text"] for r in data.get("rights", [])}
    out["pairs"] = [
        {"left": o.text, "right": rights.get(o.match, ""), "why": o.why} for o in options
    ]
    if data.get("extra_rights"):
        out["extra_rights"] = list(data["extra_rights"])


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    return ("", []) if mq.qtype == "match" else None


def from_moodle(mq, out: dict, meta: dict, keep, ctx) -> list[str]:
    from quizzes.formats import MISSING_WHY

    whys = list(meta.get("whys") or [])
    out["pairs"] = []
    for i, (left, right) in enumerate(p for p in mq.pairs if p[0]):
        why = whys[i] if i < len(whys) else ""
        ctx.missing_why += not why
        out["pairs"].append({"left": left, "right": right, "why": why or MISSING_WHY})
    extra = [right for left, right in mq.pairs if not left]
    if extra:
        out["extra_rights"] = extra
    return []


def meta(question: dict) -> dict:
    return {"whys": [p["why"] for p in question["pairs"]]}


def gift_lines(question: dict, escape, head: str) -> list[str]:
    lines = [f"\t={escape(p['left'])} -> {escape(p['right'])}" for p in question["pairs"]]
    lines += [f"\t= -> {escape(right)}" for right in question.get("extra_rights", [])]
    return gift_block(head, lines, question, escape)


def xml_answers(el, question: dict, add_text) -> None:
    import xml.etree.ElementTree as ET  # noqa: S405 - writing only

    ET.SubElement(el, "shuffleanswers").text = "true"
    for p in question["pairs"]:
        sub = add_text(el, "subquestion", p["left"])
        add_text(sub, "answer", p["right"], None)
    for right in question.get("extra_rights", []):
        sub = add_text(el, "subquestion", "")
        add_text(sub, "answer", right, None)


def editor_fields() -> dict:
    from django import forms

    from .editor import area

    return {
        "extra_rights": forms.CharField(
            label="Extra right-hand texts",
            widget=area(2),
            required=False,
            help_text="Wrong answers that match nothing, one per line (optional).",
        )
    }


def new_rows() -> list[dict]:
    return [{} for _ in range(START_ROWS)]


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    from .editor import lines

    return {
        "pairs": [{"left": r["text"], "right": r["right"], "why": r["why"]} for r in rows],
        "extra_rights": lines(data.get("extra_rights", "")),
    }


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    rows = [{"text": o["text"], "right": o.get("match", ""), "why": o["why"]}
            for o in parsed["options"]]  # fmt: skip
    return {"extra_rights": "\n".join(parsed["data"].get("extra_rights", []))}, rows
