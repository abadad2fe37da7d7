"""What every kind module shares: defaults for the parts most kinds don't change, and helpers.

A kind module imports the defaults it keeps (``from .base import shown_order, ...``) so that
each module names every part of the protocol (``kinds.PARTS``) and a test can check them all.
"""

from __future__ import annotations

from typing import Any

XML_PENALTY = "0.3333333"  # Moodle's default penalty for a wrong try
AUTO_GRADED = True
CHOICES = False  # answers are picks among options: option statistics, Anki backs, trap checks
TRAPS_REQUIRED = False  # the editor asks for a trap family on every wrong row
KEEP_TYPED = False  # an answer that can't be saved is shown back as typed
ROWS = ""  # the bank key of the editor's rows ("" for none)
ROW_FIELDS: tuple[str, ...] = ()
ROW_LEGEND = ""
ROW_LABEL = ""


def gettext_noop(s: str) -> str:
    """Marks a string for translation (makemessages extracts this keyword) without importing
    Django's, which needs settings: ``python -m quizzes.schema`` runs without them. The string
    is translated where it is rendered (``{% translate %}``)."""
    return s


def plain(value: Any) -> Any:
    """Turn loader dicts back into plain JSON-able values."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def option_list(c, q: dict, key: str, low: int, high: int) -> list:
    """The mappings of ``q[key]``, with the count checked against low..high."""
    items = q.get(key)
    if not isinstance(items, list):
        c.err(f"{key} must be a list")
        return []
    if not low <= len(items) <= high:
        c.err(f"{key} must have {low} to {high} entries (has {len(items)})")
        if len(items) > 4 * high:
            return []  # far too many: the count is the problem, checking each says nothing more
    good = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            c.err(f"{key}[{i + 1}] must be a mapping")
        else:
            good.append(item)
    return good


def fam(option: dict) -> list[str]:
    return [option["family"]] if option.get("family") else []


# --- defaults -------------------------------------------------------------------------------


def build(data: dict, options: list) -> dict:
    """Add rendered HTML to the stored data; returns {right text: key} for matching rows."""
    return {}


def shown_order(options: list, rng) -> list:
    """The options in the order the learner sees them (and sees again in the feedback)."""
    return options


def chosen_keys(answer: dict) -> list:
    """The option keys an answer picked (for the option statistics)."""
    return []


def shown_response(question) -> dict | None:
    """A Messages API response shown with the question (next_action only)."""
    return None


def moodle_kind(mq) -> tuple[str, list[str]] | None:
    """None: this kind does not take the Moodle question; else (skip reason or "", warnings)."""
    return None


def from_moodle(mq, out: dict, meta: dict, keep, ctx) -> list[str]:
    return []


def meta(question: dict) -> dict:
    return {}


def gift_lines(question: dict, escape, head: str) -> list[str]:
    """The question's GIFT lines from ``head`` (``::name::text{``) to the closing brace."""
    return []


def xml_answers(el, question: dict, add_text) -> None:
    return None


def gift_block(head: str, answers: list[str], question: dict, escape) -> list[str]:
    """The usual GIFT layout: one answer a line, then the general feedback, then ``}``."""
    return [head, *answers, f"\t####{escape(question['explanation'])}", "}"]


def editor_fields() -> dict:
    """The kind's own fields of the editor (Django form fields, made fresh per form)."""
    return {}


def new_rows() -> list[dict]:
    """The rows a new question of this kind starts with in the editor."""
    return []


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    """(initial values of the kind's own fields, rows) from a parsed question."""
    return {}, []


def text_answer(get, what: str, limit: int) -> dict:
    """A typed answer (json, fix, short answer, essay): trimmed, required, bounded."""
    from quizzes.grading import AnswerError, NoAnswer

    text = get("text").strip()
    if not text:
        raise NoAnswer(what)
    if len(text) > limit:
        raise AnswerError(f"That is longer than {limit} characters.")
    return {"text": text}
