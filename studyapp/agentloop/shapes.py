"""What the API and the SDK really produce, read into a transcript.

:func:`parse_upload_shapes` is the one entry point (called by ``transcript.parse_upload``). Before
the general parser sees an upload it recognises:

- a server-sent-events stream (``event: ...`` / ``data: {...}`` lines, as the API streams them),
  rebuilt with the SDK's own accumulator (``anthropic.lib.streaming``); a stream cut before
  ``message_stop`` is kept, marked incomplete, with what is missing named;
- an API error body ``{"type": "error", "error": {"type": ..., "message": ...}}``: one error step;
- a docs-style partial response (content and stop_reason, no ``type``/``role``/``usage``): accepted,
  with a notice of each field that was filled in;
- a log entry whose call failed (``"response": null``, with an optional ``error``): an error step,
  the rest of the log kept.

Pure Python, no Django.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

# The fields the parser needs and what a docs example leaves out; filled in with a notice.
_FILL = (
    ("type", "message"),
    ("role", "assistant"),
)
NOTICES_KEY = "upload_notices"  # top-level extra of the transcript: what was filled in or rebuilt
STREAM_KEY = "stream"  # turn extra: {"complete": bool, "missing": [...], "events": n}
FAILED_KEY = "failed_call"  # turn extra: the log entry's call failed (no response)


def _is_sse(text: str) -> bool:
    head = text.lstrip()[:200]
    return head.startswith("event:") or head.startswith("data:")


def _sse_events(text: str) -> list[dict[str, Any]]:
    """The JSON payloads of an SSE stream, in order; a cut last event is dropped."""
    from .transcript import TranscriptError, _loads

    events: list[dict[str, Any]] = []
    data_lines: list[str] = []
    number = 0

    def flush() -> None:
        if not data_lines:
            return
        payload = "\n".join(data_lines)
        data_lines.clear()
        try:
            value = _loads(payload, f"line {number}")  # the bounded parser, as for any upload
        except TranscriptError:
            raise TranscriptError(
                f"event {len(events) + 1} of the stream (line {number}): its data is not "
                "valid JSON.",
                f"line {number}",
            ) from None
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            raise TranscriptError(
                f"event {len(events) + 1} of the stream (line {number}): data must be a JSON "
                "object with a 'type'.",
                f"line {number}",
            )
        events.append(value)

    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):  # noqa: B007 - read by flush()
        if not line.strip():
            flush()
        elif line.startswith("data:"):
            data_lines.append(line[5:].lstrip())
        # "event:", "id:", "retry:" and ":" comment lines carry nothing the payload lacks
    # the last event has no blank line after it when the stream was cut: keep it if it parses
    if data_lines:
        try:
            flush()
        except TranscriptError:
            data_lines.clear()
    return events


def _missing_after_cut(snapshot: dict[str, Any], open_blocks: set[int]) -> list[str]:
    missing = []
    content = snapshot.get("content") or []
    for i in sorted(open_blocks):
        if i < len(content):
            block = content[i]
            kind = block.get("type", "?")
            what = f"the end of content[{i}] ({kind}"
            if kind in ("tool_use", "server_tool_use"):
                what += f" {block.get('name', '')}: its input is incomplete, so it must not run"
            what += ")"
            missing.append(what)
    if snapshot.get("stop_reason") is None:
        missing.append("stop_reason (the stream ended before message_delta)")
    missing.append("the final usage.output_tokens")
    return missing


def rebuild_stream(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Message an SSE stream adds up to, with the SDK's accumulator; and the stream's state."""
    from anthropic.lib.streaming._messages import accumulate_event

    from .transcript import TranscriptError

    events = _sse_events(text)
    if not events:
        raise TranscriptError("The stream holds no events.", "")
    snapshot: Any = None
    json_bufs: dict[int, bytes] = {}
    open_blocks: set[int] = set()
    complete = False
    error = None
    pings = 0
    for i, event in enumerate(events):
        kind = event["type"]
        if kind == "ping":
            pings += 1
            continue
        if kind == "error":
            error = event.get("error") if isinstance(event.get("error"), dict) else {}
            break
        if kind == "message_stop":
            complete = True
            continue
        if snapshot is None and kind != "message_start":
            raise TranscriptError(
                f"event {i + 1} of the stream is {kind!r}; a stream starts with message_start.",
                "",
            )
        try:
            snapshot = accumulate_event(
                event=cast(Any, event), current_snapshot=snapshot, json_bufs=json_bufs
            )
        except (ValueError, TypeError, RuntimeError, IndexError, AttributeError) as exc:
            raise TranscriptError(
                f"event {i + 1} of the stream ({kind}) cannot be added up: {exc}", ""
            ) from None
        index = event.get("index")
        if kind == "content_block_start" and isinstance(index, int):
            open_blocks.add(index)
        elif kind == "content_block_stop" and isinstance(index, int):
            open_blocks.discard(index)
    if snapshot is None:
        if error is not None:
            return {"type": "error", "error": error}, {"complete": False, "events": len(events)}
        raise TranscriptError("The stream has no message_start event.", "")
    message = snapshot.to_dict(mode="json", exclude_none=False)
    for block in message.get("content") or []:
        block.pop("parsed_output", None)
    state: dict[str, Any] = {"complete": complete and not open_blocks, "events": len(events)}
    if not state["complete"]:
        state["missing"] = _missing_after_cut(message, open_blocks)
        if open_blocks:
            state["open_blocks"] = sorted(open_blocks)
        partial = {
            str(i): json_bufs[i].decode("utf-8", "replace") for i in open_blocks if i in json_bufs
        }
        if partial:
            state["partial_input_json"] = partial  # the tool input as far as it was streamed
    if error is not None:
        state["error"] = error
    return message, state


def fill_partial(response: dict[str, Any]) -> list[str]:
    """Fill in what a docs-style response leaves out; say what was filled in (in place)."""
    filled = []
    for name, value in _FILL:
        if name not in response:
            response[name] = value
            filled.append(f"{name}: {json.dumps(value)}")
    if "usage" not in response:
        response["usage"] = {"input_tokens": 0, "output_tokens": 0}
        filled.append("usage (unknown: counted as 0 tokens)")
    elif isinstance(response["usage"], dict):
        for name in ("input_tokens", "output_tokens"):
            if name not in response["usage"]:
                response["usage"][name] = 0
                filled.append(f"usage.{name} (unknown: counted as 0)")
    if "stop_reason" not in response:
        response["stop_reason"] = None
        filled.append("stop_reason: null (not given)")
    return filled


def _looks_like_response(data: Any) -> bool:
    return (
        isinstance(data, dict) and isinstance(data.get("content"), list) and "request" not in data
    )


def _failed_entry(entry: dict[str, Any]) -> dict[str, Any]:
    error = entry.get("error")
    if isinstance(error, dict) and isinstance(error.get("error"), dict):
        error = error["error"]  # the whole error body was logged
    if not isinstance(error, dict):
        error = {
            "type": "unknown_error",
            "message": str(error) if error else "the call failed; the log kept no response",
        }
    body = {"type": "error", "error": error}
    if isinstance(entry.get("status"), int):
        body["status"] = entry["status"]
    return body


def parse_upload_shapes(
    text: str | bytes,
    parse_raw_log: Callable[..., Any],
    single_message: Callable[..., Any],
) -> Any:
    """Parse an upload, recognising the shapes above first. Returns a Transcript."""
    from .transcript import TranscriptError, _as_text, _loads, _loads_jsonl, replay
    from .transcript.rawlog import parse_loaded_log

    text = _as_text(text).strip()
    if text and _is_sse(text):
        message, state = rebuild_stream(text)
        transcript = single_message(message)
        transcript.title = "Uploaded stream" + ("" if state["complete"] else " (cut off)")
        transcript.summary = "A streamed response, added up with the SDK's stream accumulator."
        transcript.turns[0].extra[STREAM_KEY] = state
        notices = [f"Rebuilt from {state['events']} stream events with the SDK's accumulator."]
        if not state["complete"]:
            notices.append("The stream was cut off; missing: " + "; ".join(state["missing"]) + ".")
        transcript.extra[NOTICES_KEY] = notices
        replay(transcript)  # again: the cut turn is known now, not an unknown stop_reason
        return transcript

    paths: list[str] | None = None  # "line N" of each entry when the upload is JSON Lines
    try:
        data: Any = _loads(text) if text else None
        jsonl = False
    except TranscriptError as exc:
        if not text.startswith("{") or "\n" not in text or "Extra data" not in exc.message:
            raise
        data, paths = _loads_jsonl(text)
        jsonl = True

    if isinstance(data, dict) and data.get("type") == "error" and "format" not in data:
        error = data.get("error")
        if not isinstance(error, dict) or not isinstance(error.get("message"), str):
            raise TranscriptError(
                "An API error body needs 'error' with a 'type' and a 'message'.", "error"
            )
        transcript = single_message(data)
        transcript.title = f"API error: {error.get('type', 'error')}"
        transcript.summary = "An error body the API returned instead of a Message."
        return transcript

    if _looks_like_response(data) and "format" not in data:
        filled = fill_partial(data)
        transcript = single_message(data)
        if filled:
            transcript.extra[NOTICES_KEY] = [
                "A partial response (as the docs show them): filled in " + ", ".join(filled) + "."
            ]
        return transcript

    entries = data if isinstance(data, list) else [data] if isinstance(data, dict) else None
    if entries and all(isinstance(e, dict) and "request" in e for e in entries):
        failed = [i for i, e in enumerate(entries) if e.get("response") is None]
        filled_any = []
        for i, entry in enumerate(entries):
            if entry.get("response") is None:
                entry["response"] = _failed_entry(entry)
            elif _looks_like_response(entry["response"]):
                filled = fill_partial(entry["response"])
                if filled:
                    filled_any.append(f"call {i + 1}: " + ", ".join(filled))
        if failed or filled_any:
            text = "\n".join(json.dumps(e) for e in entries) if jsonl else json.dumps(entries)
            transcript = parse_raw_log(text)
            notices = []
            for i in failed:
                transcript.turns[i].extra[FAILED_KEY] = True
                notices.append(f"Call {i + 1} failed (no response): shown as an error step.")
            if filled_any:
                notices.append("Filled in " + "; ".join(filled_any) + ".")
            transcript.extra[NOTICES_KEY] = notices
            return transcript
    if not text:
        return parse_raw_log(text)  # its words for an empty upload
    # the document as parsed above (nothing was filled in on this path): not parsed again
    return parse_loaded_log(data, paths)
