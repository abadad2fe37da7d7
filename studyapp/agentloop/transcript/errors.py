"""Every problem with an input is one TranscriptError naming where it is; pydantic's
validation errors condensed into one sentence."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pydantic


class TranscriptError(ValueError):
    """A transcript or log that can't be used: one readable sentence naming the first problem.

    ``path`` is the JSON path of the problem (``turns[3].response.content[1].type``), or
    ``line 4`` / ``line 4, response.content[0]`` for JSON Lines.
    """

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def _err(path: str, problem: str) -> TranscriptError:
    text = f"{path}: {problem}" if path else problem
    if not text.endswith("."):
        text += "."
    return TranscriptError(text[0].upper() + text[1:] if not path else text, path)


def join_path(base: str, key: str | int) -> str:
    """``join_path("turns[2]", "response")`` -> ``turns[2].response``; ints become ``[n]``."""
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_TYPE_WORDS = {
    str: "a string",
    dict: "an object",
    list: "a list",
    int: "a whole number",
    bool: "true or false",
}


def _expect(value: Any, kind: type | tuple[type, ...], path: str) -> None:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        want = " or ".join(_TYPE_WORDS.get(k, k.__name__) for k in kinds)
        raise _err(path, f"must be {want}, not {_kind(value)}")


# --- pydantic errors, condensed into one sentence ----------------------------------------------


def _is_branch_label(segment: Any) -> bool:
    # pydantic names union branches in `loc` by class or type ("TextBlock", "list[...]");
    # anthropic's field names are snake_case.
    return isinstance(segment, str) and (segment[:1].isupper() or "[" in segment)


def _loc_path(base: str, loc: tuple[Any, ...]) -> str:
    path = base
    for segment in loc:
        if _is_branch_label(segment):
            continue
        path = join_path(path, segment)
    return path


def _describe(error: Mapping[str, Any]) -> str:
    kind = error.get("type", "")
    loc = [s for s in error.get("loc", ()) if not _is_branch_label(s)]
    name = loc[-1] if loc and isinstance(loc[-1], str) else None
    value = error.get("input")
    if kind == "missing":
        return f"missing field '{name}'" if name else "a required field is missing"
    if kind == "literal_error":
        expected = (error.get("ctx") or {}).get("expected", "")
        return f"unexpected value {_short(value)} (expected {expected})"
    words = {
        "string_type": "must be a string",
        "int_type": "must be a whole number",
        "int_parsing": "must be a whole number",
        "float_type": "must be a number",
        "bool_type": "must be true or false",
        "list_type": "must be a list",
        "dict_type": "must be an object",
        "model_type": "must be an object",
        "model_attributes_type": "must be an object",
    }
    if kind in words:
        return f"{words[kind]}, not {_kind(value)}"
    return str(error.get("msg", "is not valid")).rstrip(".")


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _condense(exc: pydantic.ValidationError, base: str) -> TranscriptError:
    """One sentence for pydantic's many union-branch errors: the branch that got furthest."""
    errors = exc.errors()
    if not errors:
        return _err(base, "is not valid")
    # Branches that failed only because their `type` literal did not match are noise.
    useful = [
        e
        for e in errors
        if not (e.get("type") == "literal_error" and e.get("loc", ())[-1:] == ("type",))
    ] or errors
    best = max(useful, key=lambda e: len([s for s in e["loc"] if not _is_branch_label(s)]))
    loc = tuple(best.get("loc", ()))
    if best.get("type") == "missing" and loc:
        return _err(_loc_path(base, loc[:-1]), _describe(best))
    return _err(_loc_path(base, loc), _describe(best))
