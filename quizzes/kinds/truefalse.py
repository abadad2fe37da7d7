"""True or false: the options are exactly True and False (Moodle's truefalse).

YAML: as ``single``, with the two options ``True`` and ``False``.
"""

from __future__ import annotations

from . import _choice
from .base import AUTO_GRADED, KEEP_TYPED, build, gettext_noop, shown_response  # noqa: F401 - kept defaults

LABEL = gettext_noop("True or false")
MOODLE_QTYPE = "truefalse"
TEMPLATE = "quizzes/kinds/_choice_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_choice_feedback.html"
CHOICES = TRAPS_REQUIRED = True
XML_PENALTY = "1"  # Moodle's own for true/false: a second try would be a sure win
ROWS, ROW_FIELDS, ROW_LEGEND, ROW_LABEL = (
    "options",
    _choice.ROW_FIELDS,
    gettext_noop("Options"),
    gettext_noop("Option"),
)
LEGEND = gettext_noop("Choose one answer")


def check(c, q: dict, out: dict) -> None:
    _choice.check_options(c, q, out, 2, 2)
    n = _choice.n_correct(out)
    if n != 1:
        c.err(f"a truefalse question needs exactly one correct option (has {n})")
    if sorted(o["text"] for o in out["options"]) != ["False", "True"]:
        c.err("a truefalse question's options are exactly 'True' and 'False'")
    _choice.unique_texts(c, out)


def parse_answer(spec: dict, get, getlist) -> dict:
    return _choice.parse_one(spec, get)


grade = _choice.grade_one
chosen_keys = _choice.chosen_one


def shown_order(options: list, rng) -> list:
    options.sort(key=lambda o: o.text != "True")  # True first, always
    return options


#: The two option texts every true/false question stores, shown in the reader's language.
WORDS = {"True": gettext_noop("True"), "False": gettext_noop("False")}


def _in_language(options: list) -> list:
    from django.utils.translation import gettext

    return _choice.with_words(options, lambda o: gettext(WORDS[o.text]) if o.text in WORDS else "")


def present(question, answer: dict, options: list, rng) -> dict:
    return _choice.present(question, answer, _in_language(options), TEMPLATE, legend=LEGEND)


def feedback(question, answer: dict, options: list) -> dict:
    return _choice.feedback(question, answer, _in_language(options), FEEDBACK_TEMPLATE)


def right_answer(question, options: list) -> dict:
    return {"choice": next((o.key for o in options if o.correct), "")}


def to_yaml(question, out: dict, options: list) -> None:
    out["options"] = [_choice.yaml_row(o, {"text": o.text}) for o in options]


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    return ("", []) if mq.qtype == "truefalse" else None


from_moodle = _choice.from_moodle
meta = _choice.meta


def gift_lines(question: dict, escape, head: str) -> list[str]:
    """GIFT's one-line form: {TRUE#feedback if wrong#feedback if right####general}."""
    right = next(o for o in question["options"] if o.get("correct"))
    wrong = next(o for o in question["options"] if not o.get("correct"))
    value = "TRUE" if right["text"] == "True" else "FALSE"
    line = f"{head}{value}#{escape(wrong['why'])}#{escape(right['why'])}"
    return [f"{line}####{escape(question['explanation'])}}}"]


def xml_answers(el, question: dict, add_text) -> None:
    _choice.xml_answers(el, question, add_text, True, lower=True)


def editor_fields() -> dict:
    return {}


def new_rows() -> list[dict]:
    return [{"text": "True"}, {"text": "False"}]


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    return _choice.from_editor(rows)


to_editor = _choice.to_editor
