"""Raw logs of {request, response} pairs (JSON or JSONL), and single responses, as
transcripts."""

from __future__ import annotations

from typing import Any

from ..i18n import gettext_noop
from .blocks import _parse_response, _validate_messages, _validate_params
from .errors import TranscriptError, _err, _expect, _kind, join_path
from .limits import MAX_TURNS, _as_text, _loads, check_depth
from .model import Transcript, Turn
from .parsing import parse_transcript
from .replay import replay

# --- raw logs of {request, response} pairs ----------------------------------------------------


def parse_upload(text: str | bytes) -> Transcript:
    """Anything a user may upload: a transcript, a raw log (JSON or JSONL) or one Message, and
    what the API and SDK produce besides (streams, error bodies, partial responses: shapes.py)."""
    from .. import shapes

    upload: Transcript = shapes.parse_upload_shapes(text, parse_raw_log, _single_message)
    return upload


def parse_raw_log(text: str | bytes) -> Transcript:
    """Import what an application logged: ``[{request, response}, ...]`` as a JSON array or as
    JSON Lines, or a single Message object. A "loopcraft.transcript/1" document is accepted too.

    The first request gives the model, system, tools, tool_choice and the initial messages;
    each next request's last user message gives the previous turn's tool results; each request's
    messages are kept as ``messages_sent`` so the replay can compare.
    """
    text = _as_text(text).strip()
    if not text:
        raise TranscriptError("The file is empty.", "")
    try:
        data = _loads(text)
        entries_paths = None
    except TranscriptError as exc:
        if not text.startswith("{") or "\n" not in text or "Extra data" not in exc.message:
            raise
        data, entries_paths = _loads_jsonl(text)
    return parse_loaded_log(data, entries_paths)


def parse_loaded_log(data: Any, entries_paths: list[str] | None = None) -> Transcript:
    """:func:`parse_raw_log` of a document already parsed by the bounded parser (``data``;
    with ``entries_paths`` "line N" when it was JSON Lines), so an upload is read once. The
    document is the caller's own decoding, handed over: the transcript keeps its parts (a
    transcript is not copied first: a deepcopy of a 1.4 MB upload of small blocks took 0.16 s)."""
    if entries_paths is None:
        if isinstance(data, dict):
            if "format" in data:
                return parse_transcript(data, strict=False, owned=True)
            if "request" in data or "response" in data:
                data = [data]
                entries_paths = [""]
            elif data.get("type") == "message" or "content" in data:
                return _single_message(data)
            else:
                raise TranscriptError(
                    "Expected a transcript, a list of {request, response} pairs or a Message "
                    "object; this JSON object has none of their fields.",
                    "",
                )
        elif isinstance(data, list):
            entries_paths = [f"[{i}]" for i in range(len(data))]
        else:
            raise TranscriptError(f"Expected a JSON object or array, not {_kind(data)}.", "")
    return _from_pairs(data, entries_paths)


def _loads_jsonl(text: str) -> tuple[list[Any], list[str]]:
    entries: list[Any] = []
    paths: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        value = _loads(line, where)  # the bounded parser, as for a whole document
        entries.append(value)
        paths.append(where)
    return entries, paths


def _entry_path(base: str, key: str) -> str:
    if base.startswith("line "):
        return f"{base}, {key}"
    return join_path(base, key) if base else key


#: The words an upload of one bare response gets (translated where shown: core.i18n.generated).
UPLOADED_TITLE = gettext_noop("Uploaded response")
UPLOADED_SUMMARY = gettext_noop("A single response, uploaded without the request that produced it.")


def _single_message(data: dict[str, Any]) -> Transcript:
    check_depth(data)
    warnings: list[str] = []
    message, blocks = _parse_response(data, "", strict=False, warnings=warnings)
    turn = Turn(index=0, response=data, message=message, blocks=blocks)
    params = {"model": data["model"]} if isinstance(data.get("model"), str) else {}
    transcript = Transcript(
        slug="uploaded-message",
        title=UPLOADED_TITLE,
        summary=UPLOADED_SUMMARY,
        tags=[],
        params=params,
        messages=[],
        turns=[turn],
        source="message",
        strict=False,
        warnings=warnings,
    )
    replay(transcript)
    return transcript


def _from_pairs(entries: list[Any], paths: list[str]) -> Transcript:
    if not entries:
        raise TranscriptError("The log holds no {request, response} pairs.", "")
    if len(entries) > MAX_TURNS:
        raise TranscriptError(f"The log holds {len(entries)} calls; the limit is {MAX_TURNS}.", "")
    warnings: list[str] = []
    requests: list[dict[str, Any]] = []
    turns: list[Turn] = []
    for i, (entry, base) in enumerate(zip(entries, paths, strict=True)):
        where = base or "the log"
        if not isinstance(entry, dict):
            raise _err(
                where, f"must be an object with 'request' and 'response', not {_kind(entry)}"
            )
        check_depth(entry, base)
        for name in ("request", "response"):
            if name not in entry:
                raise _err(where, f"missing field '{name}'")
        request = entry["request"]
        rpath = _entry_path(base, "request")
        _expect(request, dict, rpath)
        if "messages" not in request:
            raise _err(rpath, "missing field 'messages'")
        _validate_messages(
            request["messages"],
            _entry_path(base, "request.messages"),
            strict=False,
            warnings=warnings,
        )
        _validate_params(request, rpath)
        message, blocks = _parse_response(
            entry["response"], _entry_path(base, "response"), strict=False, warnings=warnings
        )
        requests.append(request)
        turns.append(
            Turn(
                index=i,
                response=entry["response"],
                message=message,
                blocks=blocks,
                messages_sent=request["messages"] if i else None,
            )
        )
    first = {k: v for k, v in requests[0].items() if k != "messages"}
    for i, turn in enumerate(turns):
        if i:
            params = {k: v for k, v in requests[i].items() if k != "messages"}
            turn.request_overrides = {
                k: v for k, v in params.items() if k not in first or first[k] != v
            }
        following = requests[i + 1]["messages"] if i + 1 < len(turns) else []
        if len(following) > len(requests[i]["messages"]):  # not a resend of the same messages
            turn.tool_results = _results_from(following)
    transcript = Transcript(
        slug="uploaded-log",
        title=f"Uploaded log ({len(turns)} call{'s' if len(turns) != 1 else ''})",
        summary="Imported from an application's log of API calls.",
        tags=[],
        params={k: v for k, v in first.items()},
        messages=requests[0]["messages"],
        turns=turns,
        source="raw_log",
        strict=False,
        warnings=warnings,
    )
    replay(transcript)
    return transcript


def _results_from(messages: list[Any]) -> list[dict[str, Any]]:
    """The content of the last user message, if it carries tool results."""
    if not messages:
        return []
    last = messages[-1]
    if last.get("role") != "user" or not isinstance(last.get("content"), list):
        return []
    content = last["content"]
    if any(block.get("type") == "tool_result" for block in content):
        return list(content)
    return []
