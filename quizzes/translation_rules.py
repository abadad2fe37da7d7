"""The rules of a question translation, without Django (the schema and its CLI use them).

A translation mirrors the English question's words only: the fields below, with the same
number and order of entries; ``quizzes.translations`` stores and shows them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

#: Translatable fields: list fields name the keys each of their entries may carry.
LIST_FIELDS: dict[str, tuple[str, ...]] = {
    "options": ("text", "why"),
    "items": ("text", "why"),
    "pairs": ("left", "right", "why"),
    "choices": ("why",),
    "wrong_answers": ("why",),
    "answers": ("why",),
}
TEXT_FIELDS = ("stem", "explanation", "why", "model_answer")
STRING_LISTS = ("extra_rights",)
#: Keys an entry may carry besides the translated fields.
ENTRY_KEYS = ("slug", "source")
BLOCK_FIELDS = ("stem", "explanation", "model_answer")  # Markdown blocks; the rest is inline


class TranslationError(ValueError):
    """A translation file or entry that cannot be used, naming the file, slug and field."""


def english_source(bank: dict[str, Any]) -> dict[str, Any]:
    """The translatable words of an English question in bank form (what a translation mirrors),
    trimmed as the schema trims them, so a file and its loaded question give the same words."""

    def words(value: Any) -> str:
        return value.strip() if isinstance(value, str) else ""

    out: dict[str, Any] = {}
    for name in TEXT_FIELDS:
        if isinstance(bank.get(name), str) and words(bank[name]):
            out[name] = words(bank[name])
    for name, keys in LIST_FIELDS.items():
        if isinstance(bank.get(name), list):
            out[name] = [
                {k: words(e.get(k)) for k in keys if k in e} if isinstance(e, dict) else {}
                for e in bank[name]
            ]
    for name in STRING_LISTS:
        if isinstance(bank.get(name), list) and bank[name]:
            out[name] = [words(v) for v in bank[name]]
    return out


def source_hash(bank: dict[str, Any]) -> str:
    """The stamp of an English question's words: a translation made from them carries it."""
    text = json.dumps(english_source(bank), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_entry(entry: Any, english: dict[str, Any]) -> list[str]:
    """What is wrong with one translation entry against its English question's bank form:
    unknown or extra fields, fields the English question lacks, counts that differ."""
    if not isinstance(entry, dict):
        return ["an entry must be a mapping with slug and the translated fields"]
    source = english_source(english)
    problems = []
    for name, value in entry.items():
        if name in ENTRY_KEYS:
            continue
        if name not in source:
            known = name in TEXT_FIELDS or name in LIST_FIELDS or name in STRING_LISTS
            problems.append(
                f"{name}: the English question has no {name}"
                if known
                else f"{name}: not a translatable field (only words are translated: "
                f"{', '.join(source)})"
            )
            continue
        if name in TEXT_FIELDS:
            if not isinstance(value, str) or not value.strip():
                problems.append(f"{name}: must be a non-empty text")
            continue
        if not isinstance(value, list) or len(value) != len(source[name]):
            count = len(value) if isinstance(value, list) else "no list"
            problems.append(
                f"{name}: has {count} entries; the English question has {len(source[name])} "
                "(same number and order)"
            )
            continue
        for i, item in enumerate(value, start=1):
            if name in STRING_LISTS:
                if not isinstance(item, str) or not item.strip():
                    problems.append(f"{name}[{i}]: must be a non-empty text")
                continue
            if not isinstance(item, dict):
                problems.append(f"{name}[{i}]: must be a mapping of {', '.join(LIST_FIELDS[name])}")
                continue
            wanted = set(source[name][i - 1])
            for key, text in item.items():
                if key not in wanted:
                    allowed = ", ".join(sorted(wanted))
                    problems.append(f"{name}[{i}].{key}: not translated here (allowed: {allowed})")
                elif not isinstance(text, str) or not text.strip():
                    problems.append(f"{name}[{i}].{key}: must be a non-empty text")
    return problems
