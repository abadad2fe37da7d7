"""Flashcards generated from the agentloop catalogue, so review works from the first day.

Three families, each written once in ``studyapp.agentloop.catalogue``: stop_reason → the next
action, tool_choice shape → its effect, content block → who runs it. Each card is scheduled by
the same FSRS ``ConceptCard`` rows as the question concepts, under the concept
``flashcard-<id>``. The words are in the active language (the catalogue's texts through its
translation hook), built once per language.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from django.utils.translation import get_language

from studyapp.agentloop import catalogue
from studyapp.agentloop.i18n import gettext, gettext_noop

PREFIX = "flashcard-"


@dataclass(frozen=True)
class Flashcard:
    id: str
    family: str  # stop-reasons / tool-choice / blocks
    subtopic: str
    front: str
    back: str
    source: str

    @property
    def concept(self) -> str:
        return PREFIX + self.id


BLOCK_SUBTOPICS = {
    "server_tool_use": "server-tools",
    "web_search_tool_result": "server-tools",
    "thinking": "thinking",
    "redacted_thinking": "thinking",
}

FAMILY_TITLES = {
    "stop-reasons": gettext_noop("stop_reason → next action"),
    "tool-choice": gettext_noop("tool_choice shape → effect"),
    "blocks": gettext_noop("content block → who runs it"),
}


def family_titles() -> dict[str, str]:
    """FAMILY_TITLES in the active language."""
    return {k: gettext(v) for k, v in FAMILY_TITLES.items()}


def _t(text: str) -> str:
    return gettext(text) if text else text


def all_cards() -> tuple[Flashcard, ...]:
    """Every card, its words in the active language (built once per language)."""
    return _cards(get_language() or "en")


@cache
def _cards(lang: str) -> tuple[Flashcard, ...]:
    cards: list[Flashcard] = []
    for value, info in catalogue.STOP_REASONS.items():
        action = info.next_action
        back = gettext("%(action)s. %(detail)s") % {
            "action": _t(action.label),
            "detail": _t(action.detail),
        }
        if info.alternate_action:
            other = catalogue.NEXT_ACTIONS[info.alternate_action]
            label = _t(other.label)
            back = gettext("%(back)s When %(when)s: %(action)s.") % {
                "back": back,
                "when": _t(info.alternate_when),
                "action": label[:1].lower() + label[1:],
            }
        cards.append(
            Flashcard(
                id=f"stop-{value.replace('_', '-')}",
                family="stop-reasons",
                subtopic="stop-reasons",
                front=gettext(
                    "The response says stop_reason: %(value)s. What does the loop do next?"
                )
                % {"value": value},
                back=gettext("%(back)s Why: %(why)s") % {"back": back, "why": _t(info.why)},
                source=info.doc_url,
            )
        )
    for kind, mode in catalogue.TOOL_CHOICE_MODES.items():
        means = _t(mode.disable_parallel_means)
        parallel = (
            gettext("With disable_parallel_tool_use: true, %(means)s.") % {"means": means}
            if mode.accepts_disable_parallel
            else gettext("disable_parallel_tool_use is %(means)s.") % {"means": means}
        )
        cards.append(
            Flashcard(
                id=f"tool-choice-{kind}",
                family="tool-choice",
                subtopic="tool-choice",
                front=gettext("tool_choice: %(json)s. What does it do?")
                % {"json": json.dumps(mode.example)},
                back=gettext(
                    "%(meaning)s %(parallel)s It is %(default_when)s. With extended thinking: "
                    "%(thinking)s."
                )
                % {
                    "meaning": _t(mode.meaning),
                    "parallel": parallel,
                    "default_when": _t(mode.default_when),
                    "thinking": _t(mode.with_extended_thinking),
                },
                source=catalogue.TOOL_CHOICE_SOURCES[0],
            )
        )
    for kind, block in catalogue.BLOCKS.items():
        cards.append(
            Flashcard(
                id=f"block-{kind.replace('_', '-')}",
                family="blocks",
                subtopic=BLOCK_SUBTOPICS.get(kind, "tool-results"),
                front=gettext(
                    "A %(type)s block in a response: who runs it, and what does the loop do?"
                )
                % {"type": kind},
                back=gettext("Run by: %(who)s. The loop: %(does)s")
                % {"who": _t(block.runs_it), "does": _t(block.loop_does)},
                source=catalogue.DOC_HANDLE,
            )
        )
    return tuple(cards)


def by_concept() -> dict[str, Flashcard]:
    return {c.concept: c for c in all_cards()}


def is_flashcard(concept: str) -> bool:
    return concept.startswith(PREFIX)
