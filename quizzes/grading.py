"""Parse and grade answers for every question kind. Pure functions over plain data.

A question's grading spec is ``{"kind", "options": [{"key", "correct", "position", "match",
"family"}], "data": {...}}`` (see ``Question.grading_spec``). Answers are JSON-able dicts:

- single, truefalse, next_action: ``{"choice": key}``
- multiple: ``{"choices": [key, ...]}``
- ordering: ``{"order": [key, ...]}`` (first to last)
- matching: ``{"matches": {left_key: right_key}}``
- json: ``{"text": raw_text}``
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studyapp.agentloop import bounded

from . import kinds


class AnswerError(ValueError):
    """The answer can't be graded as given; the message tells the learner what to fix."""


class NoAnswer(AnswerError):
    """Nothing was answered at all (moving on without answering is allowed in an exam)."""


@dataclass
class Graded:
    score: float  # 0.0 to 1.0
    families: list[str] = field(default_factory=list)  # traps the answer fell into
    feedback_key: str = ""  # json: which anticipated wrong answer matched, if any
    details: list[str] = field(default_factory=list)  # fix: what the checker still finds
    pending: bool = False  # no automatic grade (essay): stored without a score

    @property
    def correct(self) -> bool:
        return self.score >= 0.999


def parse_answer(spec: dict, post: Any) -> dict:
    """Read an answer from submitted form data (a QueryDict or a dict of lists)."""

    def getlist(name: str) -> list[str]:
        if hasattr(post, "getlist"):
            return post.getlist(name)
        value = post.get(name, [])
        return value if isinstance(value, list) else [value]

    def get(name: str) -> str:
        values = getlist(name)
        return values[-1] if values else ""

    module = kinds.get(spec["kind"])
    if module is None:
        raise AnswerError(f"Unknown question kind {spec['kind']!r}.")
    return module.parse_answer(spec, get, getlist)


def parse_json(text: str) -> Any:
    """The candidate's JSON, within the bounded parser's answer limits (depth, count, keys)."""
    try:
        return bounded.loads_json(text, bounded.JSON_ANSWER, what="Your answer")
    except bounded.LimitError as e:
        raise AnswerError(f"{e} Fix it and submit again; it has not been marked.") from None


def grade(spec: dict, answer: dict) -> Graded:
    module = kinds.get(spec["kind"])
    if module is None:
        raise AnswerError(f"Unknown question kind {spec['kind']!r}.")
    return module.grade(spec, answer)
