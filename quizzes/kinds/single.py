"""Single choice: one right option among three to five (Moodle's multichoice, one answer).

YAML::

    kind: single
    options:
      - {text: "…", correct: true, why: "…"}
      - {text: "…", why: "…", family: ends-on-text}    # a wrong option names its trap
"""

from __future__ import annotations

from . import _choice
from .base import (  # noqa: F401 - the defaults this kind keeps
    AUTO_GRADED,
    KEEP_TYPED,
    XML_PENALTY,
    build,
    editor_fields,
    gettext_noop,
    shown_response,
)

LABEL = gettext_noop("Single choice")
MOODLE_QTYPE = "multichoice"
TEMPLATE = "quizzes/kinds/_choice_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_choice_feedback.html"
CHOICES = TRAPS_REQUIRED = True
ROWS, ROW_FIELDS, ROW_LEGEND, ROW_LABEL = (
    "options",
    _choice.ROW_FIELDS,
    gettext_noop("Options"),
    gettext_noop("Option"),
)
LEGEND = gettext_noop("Choose one answer")
START_ROWS = 4


def check(c, q: dict, out: dict) -> None:
    _choice.check_options(c, q, out, 3, 5)
    n = _choice.n_correct(out)
    if n != 1:
        c.err(f"a single question needs exactly one correct option (has {n})")
    _choice.unique_texts(c, out)


def parse_answer(spec: dict, get, getlist) -> dict:
    return _choice.parse_one(spec, get)


grade = _choice.grade_one
chosen_keys = _choice.chosen_one


def shown_order(options: list, rng) -> list:
    rng.shuffle(options)
    return options


def present(question, answer: dict, options: list, rng) -> dict:
    return _choice.present(question, answer, options, TEMPLATE, legend=LEGEND)


def feedback(question, answer: dict, options: list) -> dict:
    return _choice.feedback(question, answer, options, FEEDBACK_TEMPLATE)


def right_answer(question, options: list) -> dict:
    return {"choice": next((o.key for o in options if o.correct), "")}


def to_yaml(question, out: dict, options: list) -> None:
    out["options"] = [_choice.yaml_row(o, {"text": o.text}) for o in options]


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    from quizzes.formats import fraction_text

    if mq.qtype != "multichoice" or not mq.single:
        return None
    positive = [a.fraction for a in mq.answers if a.fraction > 0]
    partial = [a.fraction for a in mq.answers if 0 < abs(a.fraction) < 0.9999999 or a.fraction < 0]
    if partial or len(positive) != 1:
        marks = ", ".join(f"{fraction_text(f)} %" for f in partial or positive)
        return (
            f"an answer earns partial or negative credit ({marks}): our single-choice "
            "questions are graded right or wrong"
        ), []
    return "", []


from_moodle = _choice.from_moodle
meta = _choice.meta


def gift_lines(question: dict, escape, head: str) -> list[str]:
    from .base import gift_block

    return gift_block(head, _choice.gift_answers(question, escape, True), question, escape)


def xml_answers(el, question: dict, add_text) -> None:
    _choice.xml_multichoice(el, True)
    _choice.xml_answers(el, question, add_text, True)


def new_rows() -> list[dict]:
    return [{} for _ in range(START_ROWS)]


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    return _choice.from_editor(rows)


to_editor = _choice.to_editor
