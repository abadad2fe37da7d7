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

import json
from dataclasses import dataclass, field
from typing import Any

from studyapp.agentloop import bounded, catalogue

MAX_JSON_CHARS = 5000


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

    @property
    def correct(self) -> bool:
        return self.score >= 0.999


def _keys(spec: dict) -> list[str]:
    return [o["key"] for o in spec["options"]]


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

    kind = spec["kind"]
    keys = _keys(spec)
    if kind in ("single", "truefalse", "next_action"):
        choice = get("choice")
        if not choice:
            raise NoAnswer("Choose one answer first.")
        if choice not in keys:
            raise AnswerError("That choice is not one of this question's options.")
        return {"choice": choice}
    if kind == "multiple":
        choices = sorted(set(getlist("choices")))
        if not choices:
            raise NoAnswer("Choose at least one answer first.")
        if not set(choices) <= set(keys):
            raise AnswerError("One of those choices is not an option of this question.")
        return {"choices": choices}
    if kind == "ordering":
        n = len(keys)
        if not any(get(f"pos-{key}") for key in keys):
            raise NoAnswer(f"Give every step a position from 1 to {n}.")
        positions: dict[str, int] = {}
        for key in keys:
            raw = get(f"pos-{key}")
            try:
                pos = int(raw)
            except ValueError:
                raise AnswerError(f"Give every step a position from 1 to {n}.") from None
            if not 1 <= pos <= n:
                raise AnswerError(f"Positions run from 1 to {n}.")
            positions[key] = pos
        used = sorted(positions.values())
        dupes = sorted({p for p in used if used.count(p) > 1})
        if dupes:
            raise AnswerError(
                f"Each position can be used once; {', '.join(map(str, dupes))} is used twice."
            )
        return {"order": sorted(keys, key=positions.__getitem__)}
    if kind == "matching":
        rights = {r["key"] for r in spec["data"].get("rights", [])}
        matches = {}
        if not any(get(f"match-{key}") for key in keys):
            raise NoAnswer("Choose a match for every item.")
        for key in keys:
            value = get(f"match-{key}")
            if not value:
                raise AnswerError("Choose a match for every item.")
            if value not in rights:
                raise AnswerError("One of the matches is not among the choices.")
            matches[key] = value
        return {"matches": matches}
    if kind in ("json", "fix"):
        text = get("text").strip()
        if not text:
            raise NoAnswer("Write a JSON value first.")
        if len(text) > MAX_JSON_CHARS:
            raise AnswerError(f"That is longer than {MAX_JSON_CHARS} characters.")
        value = parse_json(text)
        if kind == "fix" and not isinstance(value, list):
            raise AnswerError("The answer must be a JSON array of messages, like the one given.")
        return {"text": text}
    raise AnswerError(f"Unknown question kind {kind!r}.")


def parse_json(text: str) -> Any:
    """The candidate's JSON, within the bounded parser's answer limits (depth, count, keys)."""
    try:
        return bounded.loads_json(text, bounded.JSON_ANSWER, what="Your answer")
    except bounded.LimitError as e:
        raise AnswerError(f"{e} Fix it and submit again; it has not been marked.") from None


def grade(spec: dict, answer: dict) -> Graded:
    kind = spec["kind"]
    options = spec["options"]
    by_key = {o["key"]: o for o in options}
    if kind in ("single", "truefalse"):
        chosen = by_key[answer["choice"]]
        return Graded(1.0 if chosen["correct"] else 0.0, [] if chosen["correct"] else _fam(chosen))
    if kind == "next_action":
        # The key comes from the stop_reason catalogue, not from a flag an author could mistype.
        right = catalogue.next_action(spec["data"]["response"])
        chosen = by_key[answer["choice"]]
        return Graded(
            1.0 if chosen["key"] == right else 0.0, _fam(chosen) if chosen["key"] != right else []
        )
    if kind == "multiple":
        chosen = set(answer["choices"])
        correct = {o["key"] for o in options if o["correct"]}
        if chosen == correct:
            return Graded(1.0)
        right_picks = len(chosen & correct)
        wrong_picks = chosen - correct
        score = max(0, right_picks - len(wrong_picks)) / len(correct)
        families = [f for k in sorted(wrong_picks) for f in _fam(by_key[k])]
        return Graded(round(score, 4), families)
    if kind == "ordering":
        # Moodle's "relative to the next item (excluding last)": each adjacent pair of the
        # learner's order that is also adjacent, in that order, in the right answer scores.
        right = [o["key"] for o in sorted(options, key=lambda o: o["position"])]
        order = answer["order"]
        if order == right:
            return Graded(1.0)
        nxt = {right[i]: right[i + 1] for i in range(len(right) - 1)}
        hits = sum(1 for i in range(len(order) - 1) if nxt.get(order[i]) == order[i + 1])
        return Graded(round(hits / (len(right) - 1), 4))
    if kind == "matching":
        matches = answer["matches"]
        hits = sum(1 for o in options if matches.get(o["key"]) == o["match"])
        return Graded(round(hits / len(options), 4))
    if kind == "json":
        return grade_json(spec["data"], parse_json(answer["text"]))
    if kind == "fix":
        return grade_fix(spec["data"], parse_json(answer["text"]))
    raise AnswerError(f"Unknown question kind {kind!r}.")


def _fam(option: dict) -> list[str]:
    return [option["family"]] if option.get("family") else []


def _normalize(data: dict, value: Any) -> Any:
    if data.get("normalize") == "tool_choice":
        try:
            catalogue.validate_tool_choice(value)
        except catalogue.ToolChoiceError:
            return ("invalid", json.dumps(value, sort_keys=True))
        return catalogue.normalize_tool_choice(value)
    return value


def grade_json(data: dict, value: Any) -> Graded:
    """Compare by structure: key order and whitespace never matter."""
    normalized = _normalize(data, value)
    if any(normalized == _normalize(data, a) for a in data["accept"]):
        return Graded(1.0)
    for i, wrong in enumerate(data.get("wrong_answers", [])):
        if normalized == _normalize(data, wrong["answer"]):
            return Graded(0.0, [wrong["family"]] if wrong.get("family") else [], f"wrong-{i}")
    return Graded(0.0)


def _tool_use_ids(messages: Any) -> set[str]:
    ids = set()
    for m in messages if isinstance(messages, list) else []:
        content = m.get("content") if isinstance(m, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                ids.add(str(block.get("id")))
    return ids


def grade_fix(data: dict, value: Any) -> Graded:
    """Right when the contract checker accepts the history and no tool call was deleted."""
    from studyapp.agentloop import contract

    problems = []
    original = data["messages"]
    if not isinstance(value, list) or not value:
        problems.append("The answer must be a non-empty JSON array of messages.")
    else:
        missing = sorted(_tool_use_ids(original) - _tool_use_ids(value))
        if missing:
            problems.append(
                f"The tool call {missing[0]} was deleted: repair the history, keep the calls."
            )
        if value[0] != original[0]:
            problems.append("The first user message changed: keep the task as it was given.")
        problems += [
            f"{f.path}: {f.message}" if f.path else f.message
            for f in contract.check(value, **data.get("context", {}))
        ]
    return Graded(0.0 if problems else 1.0, details=problems)
