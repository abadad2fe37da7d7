"""Limits on untrusted input (size, depth, turns) and the format's constants; JSON read
within them."""

from __future__ import annotations

import re
import typing
from typing import Any

import pydantic
from anthropic.types import ContentBlock, StopReason

from .. import bounded
from .errors import TranscriptError, _err, join_path

FORMAT = "loopcraft.transcript/1"
MAX_BYTES = 2 * 1024 * 1024  # uploads: checked before any JSON parsing
MAX_DEPTH = 64  # nesting of objects and arrays
MAX_TURNS = 500

#: Request parameters a transcript may carry at the top level (and a turn may override).
REQUEST_PARAMS = (
    "model",
    "max_tokens",
    "system",
    "tools",
    "tool_choice",
    "thinking",
    "stop_sequences",
    "temperature",
    "top_p",
    "top_k",
    "metadata",
    "service_tier",
    "container",
    "mcp_servers",
    "context_management",
    "output_config",
    "output_format",
    "inference_geo",
)
_META = ("format", "slug", "title", "summary", "tags")
_TURN_KEYS = (
    "response",
    "tool_results",
    "elapsed_ms",
    "note",
    "request_overrides",
    "messages_sent",
)

#: ``ended_by`` values that name a guard of the application (not the model's stop_reason).
GUARD_ENDINGS = frozenset(
    {
        "turn_cap",
        "max_turns",
        "max_iterations",
        "iteration_cap",
        "repeated_call",
        "token_budget",
        "budget",
        "cost_budget",
        "wall_clock",
        "time_limit",
    }
)
#: The guards that are iteration caps.
CAP_ENDINGS = frozenset({"turn_cap", "max_turns", "max_iterations", "iteration_cap"})

#: Response block type -> the SDK model that validates it (from ``anthropic.types.ContentBlock``).
BLOCK_MODELS: dict[str, type[pydantic.BaseModel]] = {
    typing.get_args(cls.model_fields["type"].annotation)[0]: cls
    for cls in typing.get_args(typing.get_args(ContentBlock)[0])
}
SDK_STOP_REASONS = frozenset(typing.get_args(StopReason))

# The fields a block needs before this package can use it (render it, pair its ids). Uploads
# keep a block that has these but does not match the installed SDK's type (a newer API field).
_MIN_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "text": {"text": str},
    "thinking": {"thinking": str, "signature": str},
    "redacted_thinking": {"data": str},
    "tool_use": {"id": str, "name": str, "input": dict},
    "server_tool_use": {"id": str, "name": str, "input": dict},
    "tool_result": {"tool_use_id": str},
    "container_upload": {"file_id": str},
    "image": {"source": dict},
    "document": {"source": dict},
    "search_result": {"source": str, "title": str, "content": list},
    "tool_reference": {},
}
for _name in BLOCK_MODELS:
    if _name.endswith("_tool_result"):
        _MIN_FIELDS[_name] = {"tool_use_id": str}

#: Block types an application may send inside a message (request side).
REQUEST_BLOCK_TYPES = frozenset(_MIN_FIELDS) - {"tool_reference"}
#: Block types allowed inside a tool_result's content list.
TOOL_RESULT_CONTENT_TYPES = frozenset(
    {"text", "image", "document", "search_result", "tool_reference"}
)

_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")


# --- untrusted text: size, depth, JSON ---------------------------------------------------------

_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def _text_depth_ok(text: str, limit: int) -> bool:
    depth = 0
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return False
        elif token in ("]", "}"):
            depth -= 1
    return True


def check_depth(data: Any, path: str = "", limit: int = MAX_DEPTH) -> None:
    """Raise TranscriptError if objects and arrays nest deeper than ``limit`` (no recursion)."""
    stack: list[tuple[Any, int, str]] = [(data, 1, path)]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        if depth > limit:
            raise _err(where, f"nested more than {limit} levels deep")
        for key, child in items:
            if isinstance(child, dict | list):
                sub = join_path(where, key) if isinstance(key, int | str) else where
                stack.append((child, depth + 1, sub))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _as_text(text: str | bytes) -> str:
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_BYTES:
            raise _too_big(len(text))
        try:
            return bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TranscriptError(
                f"The file is not UTF-8 text (bad byte at position {exc.start}).", ""
            ) from None
    if not isinstance(text, str):
        raise TranscriptError("Expected JSON text.", "")
    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise _too_big(len(text.encode("utf-8", "surrogatepass")))
    return text


def _too_big(size: int) -> TranscriptError:
    return TranscriptError(
        f"The file is {size / 1024 / 1024:.1f} MB; the limit is {MAX_BYTES // 1024 // 1024} MB.",
        "",
    )


def _loads(text: str, where: str = "") -> Any:
    """json.loads for untrusted text whose size was already checked (the bounded parser)."""
    try:
        return bounded.loads_json(text, _BOUNDS, what="the JSON")
    except bounded.LimitError as exc:
        if exc.limit == "syntax" and exc.line:
            if where.startswith("line ") and exc.line == 1:  # one line of a JSONL log
                at = f"{where}, column {exc.column}"
            else:
                at = (f"{where}, " if where else "") + f"line {exc.line}, column {exc.column}"
            raise TranscriptError(
                f"{at}: not valid JSON ({exc.detail}).", where or f"line {exc.line}"
            ) from None
        raise _err(where, str(exc).removesuffix(".")) from None


_BOUNDS = bounded.UPLOAD.but(max_bytes=MAX_BYTES, max_depth=MAX_DEPTH)


def loads_limited(text: str | bytes) -> Any:
    """Parse one JSON document from untrusted text, enforcing the size and depth limits."""
    return _loads(_as_text(text).strip())
