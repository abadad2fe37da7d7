"""Parsing the loopcraft.transcript/1 format."""

from __future__ import annotations

import copy
from typing import Any

from .blocks import _parse_response, _validate_messages, _validate_params, _validate_request_block
from .errors import TranscriptError, _err, _expect, _kind, _short, join_path
from .limits import (
    _META,
    _SLUG_RE,
    _TURN_KEYS,
    FORMAT,
    MAX_TURNS,
    REQUEST_PARAMS,
    check_depth,
    request_block_types,
)
from .model import Transcript, Turn
from .replay import replay

# --- parsing the transcript format -------------------------------------------------------------


def parse_transcript(data: Any, *, strict: bool, owned: bool = False) -> Transcript:
    """Parse a "loopcraft.transcript/1" document (already decoded from JSON) and replay it.

    ``strict=True`` (library files): every response must validate with
    ``anthropic.types.Message``. ``strict=False`` (uploads): unknown block types, newer block
    shapes and unknown stop_reasons are kept raw (``Block.known`` is False, ``warnings`` says
    where); the fields the loop relies on are still checked.

    The transcript keeps parts of ``data``, so it works on a copy, unless ``owned``: the caller
    hands over a document it decoded itself and keeps no reference to (an upload, read once).
    """
    if not isinstance(data, dict):
        raise TranscriptError(f"A transcript must be a JSON object, not {_kind(data)}.", "")
    check_depth(data)
    if not owned:
        data = copy.deepcopy(data)
    if data.get("format") != FORMAT:
        raise _err("format", f"must be {FORMAT!r}, not {_short(data.get('format'))}")
    warnings: list[str] = []

    meta: dict[str, Any] = {}
    for name, default in (("slug", ""), ("title", ""), ("summary", "")):
        value = data.get(name, default)
        _expect(value, str, name)
        meta[name] = value
    if strict:
        for name in ("slug", "title"):
            if not meta[name]:
                raise _err(name, "is required")
        if not _SLUG_RE.match(meta["slug"]):
            raise _err("slug", "must use lowercase letters, digits and hyphens")
    tags = data.get("tags", [])
    _expect(tags, list, "tags")
    for i, tag in enumerate(tags):
        _expect(tag, str, join_path("tags", i))

    _validate_params(data, "")
    params = {k: data[k] for k in REQUEST_PARAMS if k in data}
    if "messages" not in data:
        raise _err("", "the transcript is missing field 'messages'")
    _validate_messages(data["messages"], "messages", strict=strict, warnings=warnings)
    if "turns" not in data:
        raise _err("", "the transcript is missing field 'turns'")
    raw_turns = data["turns"]
    _expect(raw_turns, list, "turns")
    if not raw_turns:
        raise _err("turns", "needs at least one turn")
    if len(raw_turns) > MAX_TURNS:
        raise _err("turns", f"has {len(raw_turns)} turns; the limit is {MAX_TURNS}")

    turns = [
        _parse_turn(raw, i, strict=strict, warnings=warnings) for i, raw in enumerate(raw_turns)
    ]
    extra = {
        k: v
        for k, v in data.items()
        if k not in _META and k not in REQUEST_PARAMS and k not in ("messages", "turns")
    }
    transcript = Transcript(
        slug=meta["slug"] or "uploaded-run",
        title=meta["title"] or "Uploaded run",
        summary=meta["summary"],
        tags=list(tags),
        params=params,
        messages=data["messages"],
        turns=turns,
        extra=extra,
        source="transcript",
        strict=strict,
        warnings=warnings,
    )
    replay(transcript)
    return transcript


def _parse_turn(raw: Any, i: int, *, strict: bool, warnings: list[str]) -> Turn:
    path = join_path("turns", i)
    _expect(raw, dict, path)
    if "response" not in raw:
        raise _err(path, "missing field 'response'")
    message, blocks = _parse_response(
        raw["response"], join_path(path, "response"), strict=strict, warnings=warnings
    )
    results = raw.get("tool_results", [])
    if results is None:
        results = []
    _expect(results, list, join_path(path, "tool_results"))
    for k, block in enumerate(results):
        _validate_request_block(
            block,
            join_path(join_path(path, "tool_results"), k),
            strict=strict,
            warnings=warnings,
            allowed=request_block_types(),
        )
    elapsed = raw.get("elapsed_ms")
    if elapsed is not None:
        _expect(elapsed, int, join_path(path, "elapsed_ms"))
        if elapsed < 0:
            raise _err(join_path(path, "elapsed_ms"), "must not be negative")
    note = raw.get("note", "")
    if note is None:
        note = ""
    _expect(note, str, join_path(path, "note"))
    overrides = raw.get("request_overrides") or {}
    _expect(overrides, dict, join_path(path, "request_overrides"))
    if "messages" in overrides:
        raise _err(
            join_path(join_path(path, "request_overrides"), "messages"),
            "put the messages actually sent in 'messages_sent'",
        )
    _validate_params(overrides, join_path(path, "request_overrides"))
    sent = raw.get("messages_sent")
    if sent is not None:
        _validate_messages(sent, join_path(path, "messages_sent"), strict=strict, warnings=warnings)
    return Turn(
        index=i,
        response=raw["response"],
        message=message,
        blocks=blocks,
        tool_results=results,
        elapsed_ms=elapsed,
        note=note,
        request_overrides=overrides,
        messages_sent=sent,
        extra={k: v for k, v in raw.items() if k not in _TURN_KEYS},
    )
