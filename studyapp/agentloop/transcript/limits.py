"""Limits on untrusted input (size, depth, turns) and the format's constants; JSON read
within them."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import bounded, sdk
from .errors import TranscriptError, _err, join_path

if TYPE_CHECKING:
    import pydantic

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

# The fields a block needs before this package can use it (render it, pair its ids). Uploads
# keep a block that has these but does not match the installed SDK's type (a newer API field).
_BASE_MIN_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
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

#: Block types allowed inside a tool_result's content list.
TOOL_RESULT_CONTENT_TYPES = frozenset(
    {"text", "image", "document", "search_result", "tool_reference"}
)


# What depends on the SDK's block types is computed on first use (importing the SDK costs about
# 1.4 s; see agentloop/sdk.py). The module attributes of the same names stay available.
def block_models() -> dict[str, type[pydantic.BaseModel]]:
    """Response block type -> the SDK model that validates it (``anthropic.types.ContentBlock``)."""
    return sdk.block_models()


@functools.cache
def sdk_stop_reasons() -> frozenset[str]:
    """The stop_reason values the installed SDK declares."""
    return frozenset(sdk.stop_reasons())


@functools.cache
def min_fields() -> dict[str, dict[str, type | tuple[type, ...]]]:
    """Block type -> the fields it needs: the ones above, and ``tool_use_id`` for every server
    tool's result type the SDK declares (``web_search_tool_result``, …)."""
    fields = dict(_BASE_MIN_FIELDS)
    for name in block_models():
        if name.endswith("_tool_result"):
            fields[name] = {"tool_use_id": str}
    return fields


@functools.cache
def request_block_types() -> frozenset[str]:
    """Block types an application may send inside a message (request side)."""
    return frozenset(min_fields()) - {"tool_reference"}


if TYPE_CHECKING:
    BLOCK_MODELS: dict[str, type[pydantic.BaseModel]]
    SDK_STOP_REASONS: frozenset[str]
    _MIN_FIELDS: dict[str, dict[str, type | tuple[type, ...]]]
    REQUEST_BLOCK_TYPES: frozenset[str]

_LAZY: dict[str, Callable[[], object]] = {
    "BLOCK_MODELS": block_models,
    "SDK_STOP_REASONS": sdk_stop_reasons,
    "_MIN_FIELDS": min_fields,
    "REQUEST_BLOCK_TYPES": request_block_types,
}


def __getattr__(name: str) -> Any:
    """``BLOCK_MODELS``, ``SDK_STOP_REASONS``, ``_MIN_FIELDS``, ``REQUEST_BLOCK_TYPES``: read
    from the SDK when first asked for."""
    if name in _LAZY:
        return _LAZY[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
