"""Ordering: put three to seven steps in order (graded as Moodle's qtype_ordering "relative to
the next item, excluding the last"). GIFT and Moodle XML export leave it out.

YAML::

    kind: ordering
    items:                     # in the right order
      - {text: "…", why: "…"}
"""

from __future__ import annotations

from .base import (  # noqa: F401 - the defaults this kind keeps
    AUTO_GRADED,
    KEEP_TYPED,
    XML_PENALTY,
    build,
    chosen_keys,
    editor_fields,
    from_moodle,
    gettext_noop,
    gift_lines,
    meta,
    moodle_kind,
    option_list,
    shown_order,
    shown_response,
    xml_answers,
)

LABEL = "Ordering"
MOODLE_QTYPE = ""  # Moodle's ordering is a plugin its XML format does not carry
TEMPLATE = "quizzes/kinds/_ordering_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_ordering_feedback.html"
CHOICES = TRAPS_REQUIRED = False
ROWS, ROW_LEGEND, ROW_LABEL = (
    "items",
    gettext_noop("Steps, in the right order"),
    gettext_noop("Step"),
)
ROW_FIELDS = ("text", "why")
START_ROWS = 4


def check(c, q: dict, out: dict) -> None:
    for i, item in enumerate(option_list(c, q, "items", 3, 7)):
        where = f"items[{i + 1}]."
        out["options"].append(
            {"text": c.text(item, "text", where), "correct": True,
             "why": c.text(item, "why", where), "family": "", "position": i}
        )  # fmt: skip


def parse_answer(spec: dict, get, getlist) -> dict:
    from quizzes.grading import AnswerError, NoAnswer

    keys = [o["key"] for o in spec["options"]]
    n = len(keys)
    if not any(get(f"pos-{key}") for key in keys):
        raise NoAnswer(f"Give every step a position from 1 to {n}.")
    positions: dict[str, int] = {}
    for key in keys:
        try:
            pos = int(get(f"pos-{key}"))
        except ValueError:
            raise AnswerError(f"Give every step a position from 1 to {n}.") from None
        if not 1 <= pos <= n:
            raise AnswerError(f"Positions run from 1 to {n}.")
        positions[key] = pos
    used = sorted(positions.values())
    dupes = sorted({p for p in used if used.count(p) > 1})
    if dupes:
        raise AnswerError(
            f"Each position can be used once; {', '.join(map(str, dupes))} is used twice."
        )
    return {"order": sorted(keys, key=positions.__getitem__)}


def grade(spec: dict, answer: dict):
    """Moodle's "relative to the next item (excluding last)": each adjacent pair of the
    learner's order that is also adjacent, in that order, in the right answer scores."""
    from quizzes.grading import Graded

    right = [o["key"] for o in sorted(spec["options"], key=lambda o: o["position"])]
    order = answer["order"]
    if order == right:
        return Graded(1.0)
    nxt = {right[i]: right[i + 1] for i in range(len(right) - 1)}
    hits = sum(1 for i in range(len(order) - 1) if nxt.get(order[i]) == order[i + 1])
    return Graded(round(hits / (len(right) - 1), 4))


def present(question, answer: dict, options: list, rng) -> dict:
    items = list(options)
    rng.shuffle(items)
    if len(items) > 1 and [o.position for o in items] == sorted(o.position for o in items):
        items = items[1:] + items[:1]  # never show the answer as the starting order
    rank = {k: i + 1 for i, k in enumerate(answer.get("order", []))}
    return {
        "template": TEMPLATE,
        # Positions start blank, so an untouched question is never saved as an answer.
        "order_items": [
            {"key": o.key, "html": o.text_html, "position": rank.get(o.key)} for o in items
        ],
        "positions": list(range(1, len(items) + 1)),
    }


def feedback(question, answer: dict, options: list) -> dict:
    yours = {k: i + 1 for i, k in enumerate(answer.get("order", []))}
    return {
        "template": FEEDBACK_TEMPLATE,
        "steps": [
            {"html": o.text_html, "why_html": o.why_html, "yours": yours.get(o.key)}
            for o in options
        ],
    }


def right_answer(question, options: list) -> dict:
    return {"order": [o.key for o in sorted(options, key=lambda o: o.position)]}


def to_yaml(question, out: dict, options: list) -> None:
    out["items"] = [{"text": o.text, "why": o.why} for o in options]


def new_rows() -> list[dict]:
    return [{} for _ in range(START_ROWS)]


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    return {"items": [{"text": r["text"], "why": r["why"]} for r in rows]}


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    return {}, [{"text": o["text"], "why": o["why"]} for o in parsed["options"]]
