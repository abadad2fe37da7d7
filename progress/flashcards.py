"""Flashcards generated from the agentloop catalogue, so review works from the first day.

Three families, each written once in ``studyapp.agentloop.catalogue``: stop_reason → the next
action, tool_choice shape → its effect, content block → who runs it. Each card is scheduled by
the same FSRS ``ConceptCard`` rows as the question concepts, under the concept
``flashcard-<id>``. No Django here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from studyapp.agentloop import catalogue

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
    "stop-reasons": "stop_reason → next action",
    "tool-choice": "tool_choice shape → effect",
    "blocks": "content block → who runs it",
}


@cache
def all_cards() -> tuple[Flashcard, ...]:
    cards: list[Flashcard] = []
    for value, info in catalogue.STOP_REASONS.items():
        action = info.next_action
        back = f"{action.label}. {action.detail}"
        if info.alternate_action:
            other = catalogue.NEXT_ACTIONS[info.alternate_action]
            back += f" When {info.alternate_when}: {other.label.lower()}."
        cards.append(
            Flashcard(
                id=f"stop-{value.replace('_', '-')}",
                family="stop-reasons",
                subtopic="stop-reasons",
                front=f"The response says stop_reason: {value}. What does the loop do next?",
                back=f"{back} Why: {info.why}",
                source=info.doc_url,
            )
        )
    for kind, mode in catalogue.TOOL_CHOICE_MODES.items():
        parallel = (
            f"With disable_parallel_tool_use: true, {mode.disable_parallel_means}."
            if mode.accepts_disable_parallel
            else f"disable_parallel_tool_use is {mode.disable_parallel_means}."
        )
        cards.append(
            Flashcard(
                id=f"tool-choice-{kind}",
                family="tool-choice",
                subtopic="tool-choice",
                front=f"tool_choice: {json.dumps(mode.example)}. What does it do?",
                back=(
                    f"{mode.meaning} {parallel} It is {mode.default_when}. With extended "
                    f"thinking: {mode.with_extended_thinking}."
                ),
                source=catalogue.TOOL_CHOICE_SOURCES[0],
            )
        )
    for kind, block in catalogue.BLOCKS.items():
        cards.append(
            Flashcard(
                id=f"block-{kind.replace('_', '-')}",
                family="blocks",
                subtopic=BLOCK_SUBTOPICS.get(kind, "tool-results"),
                front=f"A {kind} block in a response: who runs it, and what does the loop do?",
                back=f"Run by: {block.runs_it}. The loop: {block.loop_does}",
                source=catalogue.DOC_HANDLE,
            )
        )
    return tuple(cards)


def by_concept() -> dict[str, Flashcard]:
    return {c.concept: c for c in all_cards()}


def is_flashcard(concept: str) -> bool:
    return concept.startswith(PREFIX)
