"""Next action: a Messages API response is shown; the candidate picks what the loop does next.

YAML::

    kind: next_action
    response: {…a whole Message…}
    choices:
      - {action: run-tools-send-results, correct: true, why: "…"}
      - {action: finish, why: "…", family: ends-on-text}

The key comes from the stop_reason catalogue (studyapp.agentloop.catalogue), not from a flag an
author could mistype: the schema refuses a key the catalogue contradicts. GIFT and Moodle XML
have no such question: they leave it out of an export.
"""

from __future__ import annotations

from studyapp.agentloop import catalogue

from . import _choice
from .base import (  # noqa: F401 - the defaults this kind keeps
    AUTO_GRADED,
    KEEP_TYPED,
    XML_PENALTY,
    build,
    from_moodle,
    gettext_noop,
    gift_lines,
    moodle_kind,
    plain,
    xml_answers,
)

LABEL = gettext_noop("Next action (a response is shown)")
MOODLE_QTYPE = ""  # no Moodle equivalent
TEMPLATE = "quizzes/kinds/_choice_input.html"
FEEDBACK_TEMPLATE = "quizzes/kinds/_choice_feedback.html"
CHOICES = TRAPS_REQUIRED = True
ROWS, ROW_LEGEND, ROW_LABEL = "choices", gettext_noop("Choices"), gettext_noop("Choice")
ROW_FIELDS = ("action", "correct", "why", "family")
LEGEND = gettext_noop("What must the loop do next?")
START_ROWS = 3


def check(c, q: dict, out: dict) -> None:
    from anthropic.types import Message
    from pydantic import ValidationError

    from .base import option_list

    response = q.get("response")
    expected = None
    if not isinstance(response, dict):
        c.err("response must be a Messages API response (a mapping)")
    else:
        try:
            Message.model_validate(plain(response))
            expected = catalogue.next_action(response)
        except ValidationError as e:
            first = e.errors()[0]
            path = ".".join(str(p) for p in first["loc"])
            c.err(f"response is not a valid Message at {path}: {first['msg']}", response)
        except ValueError as e:
            c.err(f"response: {e}", response)
    out["data"]["response"] = plain(response) if isinstance(response, dict) else None
    seen = set()
    for i, ch in enumerate(option_list(c, q, "choices", 3, 5)):
        where = f"choices[{i + 1}]."
        action = ch.get("action")
        if action not in catalogue.NEXT_ACTIONS:
            c.err(f"{where}action must be a next-action code (got {action!r})", ch)
            continue
        if action in seen:
            c.err(f"{where}action {action} is offered twice", ch)
        seen.add(action)
        correct = ch.get("correct", False) is True
        out["options"].append(
            {
                "key": action,
                "text": catalogue.NEXT_ACTIONS[action].label,
                "correct": correct,
                "why": c.text(ch, "why", where),
                "family": "" if correct else c.family(ch, where),
            }
        )
    marked = [o["key"] for o in out["options"] if o["correct"]]
    if len(marked) != 1:
        c.err(f"a next_action question marks exactly one choice correct (has {len(marked)})")
    elif expected and marked[0] != expected:
        c.err(
            f"the key says {marked[0]} but the stop_reason catalogue says {expected} for this "
            "response"
        )
    if expected and expected not in seen:
        c.err(f"the catalogue's answer {expected} is not among the choices")


def parse_answer(spec: dict, get, getlist) -> dict:
    return _choice.parse_one(spec, get)


def grade(spec: dict, answer: dict):
    from quizzes.grading import Graded

    right = catalogue.next_action(spec["data"]["response"])
    chosen = {o["key"]: o for o in spec["options"]}[answer["choice"]]
    ok = chosen["key"] == right
    return Graded(1.0 if ok else 0.0, [] if ok else _choice.fam(chosen))


chosen_keys = _choice.chosen_one


def shown_order(options: list, rng) -> list:
    rng.shuffle(options)
    return options


def shown_response(question) -> dict | None:  # noqa: F811 - this kind shows one
    from quizzes.presentation import response_view

    return response_view(question.data.get("response") or {})


def _in_language(options: list) -> list:
    """The catalogue's label of each action in the reader's language (core.i18n)."""
    from core import i18n

    actions = i18n.next_actions()
    return _choice.with_words(options, lambda o: actions[o.key].label if o.key in actions else "")


def present(question, answer: dict, options: list, rng) -> dict:
    options = _in_language(options)
    return _choice.present(
        question, answer, options, TEMPLATE, legend=LEGEND, response=shown_response(question)
    )


def feedback(question, answer: dict, options: list) -> dict:
    right = catalogue.next_action(question.data["response"])
    options = _in_language(options)
    return _choice.feedback(question, answer, options, FEEDBACK_TEMPLATE, right=right)


def right_answer(question, options: list) -> dict:
    return {"choice": catalogue.next_action(question.data["response"])}


def to_yaml(question, out: dict, options: list) -> None:
    out["response"] = (question.data or {}).get("response")
    out["choices"] = [_choice.yaml_row(o, {"action": o.key}) for o in options]


def meta(question: dict) -> dict:
    return _choice.meta(question, "choices")


def editor_fields() -> dict:
    from django import forms
    from django.utils.translation import gettext_lazy as _

    from .editor import area

    return {
        "response": forms.CharField(
            label=_("The API response (JSON)"),
            widget=area(14, code=True),
            required=False,
            help_text=_(
                "A whole Messages API response; the right action comes from its stop_reason."
            ),
        )
    }


def new_rows() -> list[dict]:
    return [{} for _ in range(START_ROWS)]


def from_editor(data: dict, rows: list[dict], ed) -> dict:
    entries = []
    for r in rows:
        e = {"action": r["action"] or None, "correct": r["correct"], "why": r["why"]}
        if r.get("family"):
            e["family"] = r["family"]
        entries.append(e)
    return {"choices": entries, "response": ed.json("response")}


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    rows = [
        {"action": o.get("key", ""), "correct": o["correct"], "why": o["why"],
         "family": o.get("family", ""), "text": o["text"]}
        for o in parsed["options"]
    ]  # fmt: skip
    return {"response": ed_dump(parsed["data"].get("response"))}, rows


def ed_dump(value) -> str:
    from .editor import dump

    return dump(value)
