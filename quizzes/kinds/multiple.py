"""Multiple response: two or more right options among four to six (Moodle's multichoice with
several answers allowed). Each wrong pick takes back one right pick, floored at 0: Moodle's
grading with −100/k % on the wrong answers.

YAML: as ``single``, with two or more ``correct: true``.
"""

from __future__ import annotations

from . import _choice
from .base import (  # noqa: F401 - the defaults this kind keeps
    AUTO_GRADED,
    KEEP_TYPED,
    XML_PENALTY,
    build,
    editor_fields,
    fam,
    gettext_noop,
    gift_block,
    shown_response,
)

LABEL = gettext_noop("Multiple response")
MOODLE_QTYPE = "multichoice"
TEMPLATE = "quizzes/kinds/_multiple_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_choice_feedback.html"
CHOICES = TRAPS_REQUIRED = True
ROWS, ROW_FIELDS, ROW_LEGEND, ROW_LABEL = (
    "options",
    _choice.ROW_FIELDS,
    gettext_noop("Options"),
    gettext_noop("Option"),
)
START_ROWS = 4


def check(c, q: dict, out: dict) -> None:
    _choice.check_options(c, q, out, 4, 6)
    n = _choice.n_correct(out)
    if n < 2:
        c.err(f"a multiple-response question needs two or more correct options (has {n})")
    _choice.unique_texts(c, out)


def parse_answer(spec: dict, get, getlist) -> dict:
    from quizzes.grading import AnswerError, NoAnswer

    choices = sorted(set(getlist("choices")))
    if not choices:
        raise NoAnswer("Choose at least one answer first.")
    if not set(choices) <= {o["key"] for o in spec["options"]}:
        raise AnswerError("One of those choices is not an option of this question.")
    return {"choices": choices}


def grade(spec: dict, answer: dict):
    from quizzes.grading import Graded

    options = spec["options"]
    by_key = {o["key"]: o for o in options}
    chosen = set(answer["choices"])
    correct = {o["key"] for o in options if o["correct"]}
    if chosen == correct:
        return Graded(1.0)
    wrong_picks = chosen - correct
    score = max(0, len(chosen & correct) - len(wrong_picks)) / len(correct)
    return Graded(round(score, 4), [f for k in sorted(wrong_picks) for f in fam(by_key[k])])


def chosen_keys(answer: dict) -> list:
    return answer.get("choices", [])


def shown_order(options: list, rng) -> list:
    rng.shuffle(options)
    return options


def present(question, answer: dict, options: list, rng) -> dict:
    return _choice.present(question, answer, options, TEMPLATE)


def feedback(question, answer: dict, options: list) -> dict:
    return _choice.feedback(question, answer, options, FEEDBACK_TEMPLATE)


def right_answer(question, options: list) -> dict:
    return {"choices": [o.key for o in options if o.correct]}


def to_yaml(question, out: dict, options: list) -> None:
    out["options"] = [_choice.yaml_row(o, {"text": o.text}) for o in options]


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    from quizzes.formats import fraction_text

    if mq.qtype != "multichoice" or mq.single:
        return None
    positive = [a.fraction for a in mq.answers if a.fraction > 0]
    k = len(positive)
    if k < 2 or any(abs(f - 1 / k) > 1e-4 for f in positive):
        marks = ", ".join(f"{fraction_text(f)} %" for f in positive)
        return (
            f"the correct answers are weighted {marks}: our multiple-response questions weight "
            "every correct answer equally"
        ), []
    negative = {round(a.fraction, 4) for a in mq.answers if a.fraction <= 0}
    warnings = []
    if negative != {round(-1 / k, 4)}:
        marks = ", ".join(f"{fraction_text(f)} %" for f in sorted(negative))
        warnings.append(
            f"wrong answers are worth {marks} in the file; Loopcraft deducts "
            f"{fraction_text(1 / k)} % per wrong pick"
        )
    return "", warnings


from_moodle = _choice.from_moodle
meta = _choice.meta


def gift_lines(question: dict, escape, head: str) -> list[str]:
    return gift_block(head, _choice.gift_answers(question, escape, False), question, escape)


def xml_answers(el, question: dict, add_text) -> None:
    _choice.xml_multichoice(el, False)
    _choice.xml_answers(el, question, add_text, False)


def new_rows() -> list[dict]:
    return [{} for _ in range(START_ROWS)]


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    return _choice.from_editor(rows)


to_editor = _choice.to_editor
