"""Question kinds as modules: each owns its schema check, answer parsing, grading, presentation,
feedback, editor rows and its GIFT / Moodle XML / YAML mapping, behind one registry.

Core code never asks which kind a question is: it asks ``get(kind)`` (or ``of(kind)``) for the
module and calls the part it needs. Adding a kind is one module here, registered below, with its
templates and tests; ``tests/test_kinds_registry.py`` checks that each module has every part
and that no ``kind ==`` branch grows back outside this package.

The parts (see ``base`` for the defaults a module may import):

- ``LABEL``, ``MOODLE_QTYPE`` ("" when GIFT and Moodle XML can't hold the kind), ``TEMPLATE``
  and ``FEEDBACK_TEMPLATE`` (the answer inputs and the feedback), ``AUTO_GRADED``, ``CHOICES``
  (answers are picks among options), ``TRAPS_REQUIRED``, ``KEEP_TYPED``, ``XML_PENALTY``;
- ``check(c, q, out)`` the schema; ``build(data, options)`` stored HTML;
- ``parse_answer(spec, get, getlist)``, ``grade(spec, answer)``, ``chosen_keys(answer)``;
- ``shown_order``, ``present``, ``feedback``, ``right_answer``, ``shown_response``;
- ``to_yaml``; ``moodle_kind(mq)``, ``from_moodle``, ``meta``, ``gift_lines``, ``xml_answers``;
- the editor: ``ROWS``, ``ROW_FIELDS``, ``ROW_LEGEND``, ``ROW_LABEL``, ``editor_fields()``,
  ``new_rows()``, ``from_editor(data, rows, ed)``, ``to_editor(parsed)``.
"""

from __future__ import annotations

from enum import StrEnum
from types import ModuleType

from . import (
    essay,
    fix,
    json,
    matching,
    multiple,
    next_action,
    numerical,
    ordering,
    short_answer,
    single,
    truefalse,
)  # fmt: skip


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
    "LABEL", "MOODLE_QTYPE", "TEMPLATE", "FEEDBACK_TEMPLATE", "AUTO_GRADED", "CHOICES",
    "TRAPS_REQUIRED", "KEEP_TYPED", "XML_PENALTY",
    "check", "build", "parse_answer", "grade", "chosen_keys",
    "shown_order", "present", "feedback", "right_answer", "shown_response",
    "to_yaml", "moodle_kind", "from_moodle", "meta", "gift_lines", "xml_answers",
    "ROWS", "ROW_FIELDS", "ROW_LEGEND", "ROW_LABEL", "editor_fields", "new_rows",
    "from_editor", "to_editor",
)  # fmt: skip

REGISTRY: dict[str, ModuleType] = {
    Kind.SINGLE.value: single,
    Kind.MULTIPLE.value: multiple,
    Kind.TRUEFALSE.value: truefalse,
    Kind.ORDERING.value: ordering,
    Kind.MATCHING.value: matching,
    Kind.NEXT_ACTION.value: next_action,
    Kind.JSON.value: json,
    Kind.FIX.value: fix,
    Kind.SHORT_ANSWER.value: short_answer,
    Kind.NUMERICAL.value: numerical,
    Kind.ESSAY.value: essay,
}
LABELS = {k: m.LABEL for k, m in REGISTRY.items()}


def get(kind: str) -> ModuleType | None:
    return REGISTRY.get(kind)


def of(kind: str) -> ModuleType:
    """The module of a kind the database or the schema has already accepted."""
    return REGISTRY[kind]


def with_flag(flag: str) -> list[str]:
    """The kinds whose module sets ``flag`` (e.g. the ones an instructor grades by hand)."""
    return [k for k, m in REGISTRY.items() if getattr(m, flag)]
