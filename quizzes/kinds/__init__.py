"""Question kinds as modules: each owns its schema check, answer parsing, grading, presentation,
feedback and its GIFT / Moodle XML / YAML mapping, behind one registry.

The kinds Moodle users bring (short answer, numerical, essay) live here already; the older
kinds are still spread over schema, grading, presentation and formats and move here one by one.
Core code asks ``get(kind)`` and uses the module when there is one.
"""

from __future__ import annotations

from enum import StrEnum
from types import ModuleType

from . import essay, numerical, short_answer


class Kind(StrEnum):
    SINGLE = "single"
    MULTIPLE = "multiple"
    TRUEFALSE = "truefalse"
    ORDERING = "ordering"
    MATCHING = "matching"
    NEXT_ACTION = "next_action"
    JSON = "json"
    FIX = "fix"
    SHORT_ANSWER = "short_answer"
    NUMERICAL = "numerical"
    ESSAY = "essay"


#: Every part a kind module implements (a test checks each registered module has them all).
PARTS = (
    "LABEL", "MOODLE_QTYPE", "check", "parse_answer", "grade", "present", "feedback",
    "right_answer", "to_yaml", "from_moodle", "gift_answers", "xml_answers", "TEMPLATE",
    "FEEDBACK_TEMPLATE", "AUTO_GRADED",
)  # fmt: skip

REGISTRY: dict[str, ModuleType] = {
    Kind.SHORT_ANSWER.value: short_answer,
    Kind.NUMERICAL.value: numerical,
    Kind.ESSAY.value: essay,
}
BY_MOODLE_QTYPE = {m.MOODLE_QTYPE: k for k, m in REGISTRY.items()}


def get(kind: str) -> ModuleType | None:
    return REGISTRY.get(kind)
