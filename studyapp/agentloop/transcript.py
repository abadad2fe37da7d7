"""Recorded agent loops ("loopcraft.transcript/1"): parse, validate, replay, serialise.

A transcript keeps every response exactly as the API returned it. What the application sent
at each turn is not stored but derived by replaying the loop with the catalogue's next actions
(the Messages API is stateless: every request carries the whole history):

* turn 0 sends the initial ``messages``;
* after ``run_tools`` the application appends the assistant content unchanged and one user
  message holding the turn's ``tool_results``;
* after ``resend_paused`` it appends the assistant content only (no "continue" message);
* after ``retry_with_more_tokens`` it appends nothing: the same messages go out again, with the
  turn's ``request_overrides`` (for example a larger ``max_tokens``);
* any other stop_reason ends the run, so a later turn is a divergence for the checker.

A turn that logged what was really sent (``messages_sent``) is taken at its word; where that
disagrees with the replay, the disagreement is recorded for :mod:`contract` to report, never
raised. Every problem with the input itself raises one exception type, :class:`TranscriptError`.

Sources: https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons and
https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls.
"""

from __future__ import annotations

import copy
import json
import re
import typing
from dataclasses import dataclass, field
from typing import Any

import pydantic
from anthropic.types import ContentBlock, Message, StopReason

from . import catalogue

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
    """json.loads for untrusted text whose size was already checked."""
    if not _text_depth_ok(text, MAX_DEPTH):
        raise _err(where, f"the JSON is nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        at = f"{where}, " if where else ""
        raise TranscriptError(
            f"{at}line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg}).",
            where or f"line {exc.lineno}",
        ) from None
    except (ValueError, RecursionError) as exc:
        raise _err(where, f"not valid JSON ({exc})") from None


def loads_limited(text: str | bytes) -> Any:
    """Parse one JSON document from untrusted text, enforcing the size and depth limits."""
    return _loads(_as_text(text).strip())


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


def _describe(error: dict[str, Any]) -> str:
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


# --- blocks and messages ----------------------------------------------------------------------


@dataclass
class Block:
    """One content block of a response, as the UI renders it."""

    index: int
    type: str
    data: dict[str, Any]  # the block's JSON exactly as recorded
    known: bool = True  # False: an unknown type (or a newer shape), kept raw in an upload
    reason: str = ""  # why it was kept raw

    @property
    def raw(self) -> bool:
        return not self.known


def _check_min_fields(block: dict[str, Any], kind: str, path: str) -> None:
    for name, want in _MIN_FIELDS.get(kind, {}).items():
        if name not in block:
            raise _err(path, f"missing field '{name}'")
        _expect(block[name], want, join_path(path, name))


def _block_type(block: Any, path: str) -> str:
    _expect(block, dict, path)
    if "type" not in block:
        raise _err(path, "missing field 'type'")
    kind = block["type"]
    if not isinstance(kind, str) or not kind:
        raise _err(join_path(path, "type"), "must be a block type name such as 'text'")
    return kind


def _validate_request_block(
    block: Any, path: str, *, strict: bool, warnings: list[str], allowed: frozenset[str]
) -> None:
    kind = _block_type(block, path)
    if kind not in allowed:
        if strict:
            raise _err(join_path(path, "type"), f"unknown block type '{kind}'")
        warnings.append(f"{path}: unknown block type '{kind}' kept as is")
        return
    _check_min_fields(block, kind, path)
    if kind == "tool_result":
        content = block.get("content")
        if content is not None:
            _expect(content, (str, list), join_path(path, "content"))
            if isinstance(content, list):
                for i, item in enumerate(content):
                    _validate_request_block(
                        item,
                        join_path(join_path(path, "content"), i),
                        strict=strict,
                        warnings=warnings,
                        allowed=TOOL_RESULT_CONTENT_TYPES,
                    )
        if block.get("is_error") is not None:
            _expect(block["is_error"], bool, join_path(path, "is_error"))


def _validate_message(message: Any, path: str, *, strict: bool, warnings: list[str]) -> None:
    _expect(message, dict, path)
    if "role" not in message:
        raise _err(path, "missing field 'role'")
    if message["role"] not in ("user", "assistant"):
        raise _err(
            join_path(path, "role"), f"must be 'user' or 'assistant', not {_short(message['role'])}"
        )
    if "content" not in message:
        raise _err(path, "missing field 'content'")
    content = message["content"]
    _expect(content, (str, list), join_path(path, "content"))
    if isinstance(content, list):
        for i, block in enumerate(content):
            _validate_request_block(
                block,
                join_path(join_path(path, "content"), i),
                strict=strict,
                warnings=warnings,
                allowed=REQUEST_BLOCK_TYPES,
            )


def _validate_messages(value: Any, path: str, *, strict: bool, warnings: list[str]) -> None:
    _expect(value, list, path)
    for i, message in enumerate(value):
        _validate_message(message, join_path(path, i), strict=strict, warnings=warnings)


def _parse_response(
    data: Any, path: str, *, strict: bool, warnings: list[str]
) -> tuple[Message | None, list[Block]]:
    """Validate a recorded response; return the SDK Message (when it builds) and its blocks."""
    _expect(data, dict, path)
    if data.get("type") == "error" and not strict:  # an API error body: the call failed
        error = data.get("error")
        _expect(error, dict, join_path(path, "error"))
        for name in ("type", "message"):
            if name in error:
                _expect(error[name], str, join_path(join_path(path, "error"), name))
        return None, []
    for name in ("type", "role", "content"):
        if name not in data:
            raise _err(path, f"missing field '{name}'")
    if data["type"] != "message":
        raise _err(join_path(path, "type"), f"must be 'message', not {_short(data['type'])}")
    if data["role"] != "assistant":
        raise _err(join_path(path, "role"), f"must be 'assistant', not {_short(data['role'])}")
    content = data["content"]
    _expect(content, list, join_path(path, "content"))
    blocks: list[Block] = []
    validated: list[Any] = []
    all_known = True
    for i, raw in enumerate(content):
        where = join_path(join_path(path, "content"), i)
        kind = _block_type(raw, where)
        model = BLOCK_MODELS.get(kind)
        if model is None:
            if strict:
                raise _err(join_path(where, "type"), f"unknown block type '{kind}'")
            _check_min_fields(raw, kind, where)
            warnings.append(f"{where}: unknown block type '{kind}' shown raw")
            blocks.append(Block(i, kind, raw, known=False, reason=f"unknown block type '{kind}'"))
            all_known = False
            continue
        try:
            validated.append(model.model_validate(raw))
        except pydantic.ValidationError as exc:
            problem = _condense(exc, where)
            if strict:
                raise problem from None
            _check_min_fields(raw, kind, where)
            warnings.append(f"{problem.message} (block shown raw)")
            blocks.append(Block(i, kind, raw, known=False, reason=problem.message))
            all_known = False
            continue
        blocks.append(Block(i, kind, raw))

    stop_reason = data.get("stop_reason")
    if stop_reason is not None and not isinstance(stop_reason, str):
        raise _err(join_path(path, "stop_reason"), f"must be a string, not {_kind(stop_reason)}")
    head = dict(data, content=[])
    unknown_stop = isinstance(stop_reason, str) and stop_reason not in SDK_STOP_REASONS
    if unknown_stop:
        if strict:
            raise _err(
                join_path(path, "stop_reason"),
                f"unknown stop_reason {_short(stop_reason)} (expected one of "
                + ", ".join(sorted(SDK_STOP_REASONS))
                + ")",
            )
        warnings.append(f"{join_path(path, 'stop_reason')}: unknown stop_reason '{stop_reason}'")
        head["stop_reason"] = None
    try:
        Message.model_validate(head)
    except pydantic.ValidationError as exc:
        problem = _condense(exc, path)
        if strict:
            raise problem from None
        # An upload: insist only on what the loop itself reads.
        if "usage" not in data:
            raise _err(path, "missing field 'usage'") from None
        usage = data["usage"]
        _expect(usage, dict, join_path(path, "usage"))
        for name in ("input_tokens", "output_tokens"):
            if name not in usage:
                raise _err(join_path(path, "usage"), f"missing field '{name}'") from None
            _expect(usage[name], int, join_path(join_path(path, "usage"), name))
        warnings.append(f"{problem.message} (kept as recorded)")
        return None, blocks
    if strict:
        try:
            return Message.model_validate(data), blocks
        except pydantic.ValidationError as exc:  # pragma: no cover - blocks were checked above
            raise _condense(exc, path) from None
    if all_known and not unknown_stop:
        try:
            return Message.model_validate(data), blocks
        except pydantic.ValidationError:  # pragma: no cover - both halves validated
            return None, blocks
    return None, blocks


def _validate_params(data: dict[str, Any], path: str) -> None:
    def at(name: str) -> str:
        return join_path(path, name)

    if "model" in data:
        _expect(data["model"], str, at("model"))
    if "max_tokens" in data and data["max_tokens"] is not None:
        _expect(data["max_tokens"], int, at("max_tokens"))
    if "system" in data and data["system"] is not None:
        _expect(data["system"], (str, list), at("system"))
        if isinstance(data["system"], list):
            for i, block in enumerate(data["system"]):
                where = join_path(at("system"), i)
                if _block_type(block, where) != "text":
                    raise _err(join_path(where, "type"), "system blocks must be of type 'text'")
                _check_min_fields(block, "text", where)
    if "tools" in data and data["tools"] is not None:
        _expect(data["tools"], list, at("tools"))
        for i, tool in enumerate(data["tools"]):
            where = join_path(at("tools"), i)
            _expect(tool, dict, where)
            if "name" not in tool:
                raise _err(where, "missing field 'name'")
            _expect(tool["name"], str, join_path(where, "name"))
            if tool.get("type") in (None, "custom"):
                if "input_schema" not in tool:
                    raise _err(where, "missing field 'input_schema'")
                _expect(tool["input_schema"], dict, join_path(where, "input_schema"))
    for name in ("tool_choice", "thinking", "metadata"):
        if data.get(name) is not None:
            _expect(data[name], dict, at(name))
    if data.get("stop_sequences") is not None:
        _expect(data["stop_sequences"], list, at("stop_sequences"))
        for i, item in enumerate(data["stop_sequences"]):
            _expect(item, str, join_path(at("stop_sequences"), i))


# --- the model ---------------------------------------------------------------------------------


@dataclass
class Divergence:
    """Something the replay noticed; :func:`contract.check_transcript` turns it into a finding."""

    step: int
    kind: str  # "mismatch" | "after_stop" | "unknown_stop_reason"
    path: str
    detail: str


@dataclass
class Turn:
    """One API call of the loop: the request the replay derives and the response recorded."""

    index: int
    response: dict[str, Any]  # exactly as recorded
    message: Message | None  # the SDK object; None for an upload that only validates loosely
    blocks: list[Block]
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    elapsed_ms: int | None = None
    note: str = ""
    request_overrides: dict[str, Any] = field(default_factory=dict)
    messages_sent: list[dict[str, Any]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Filled in by the replay:
    action: str | None = None  # catalogue next-action code; None for an unknown stop_reason
    request: dict[str, Any] = field(default_factory=dict)  # the full request JSON of this turn
    derived_messages: list[dict[str, Any]] = field(default_factory=list)
    appended: list[dict[str, Any]] | None = None  # added to the previous request; None: rewritten

    @property
    def stop_reason(self) -> str | None:
        return self.response.get("stop_reason")

    @property
    def api_error(self) -> dict[str, Any] | None:
        """The error of a failed call (an API error body was recorded instead of a Message)."""
        if self.response.get("type") == "error":
            error = self.response.get("error")
            return error if isinstance(error, dict) else {}
        return None

    @property
    def stream(self) -> dict[str, Any] | None:
        """For a response rebuilt from a stream: complete?, events, what is missing."""
        value = self.extra.get("stream")
        return value if isinstance(value, dict) else None

    @property
    def incomplete(self) -> bool:
        return bool(self.stream and not self.stream.get("complete"))

    @property
    def stop_sequence(self) -> str | None:
        return self.response.get("stop_sequence")

    @property
    def request_messages(self) -> list[dict[str, Any]]:
        return self.request.get("messages", [])

    @property
    def continues(self) -> bool:
        """Does the canonical loop call the API again after this turn?"""
        return self.action is not None and catalogue.NEXT_ACTIONS[self.action].continues

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b.data for b in self.blocks if b.type == "tool_use"]

    @property
    def has_raw_blocks(self) -> bool:
        return any(not b.known for b in self.blocks)

    @property
    def usage(self) -> dict[str, Any]:
        usage = self.response.get("usage")
        return usage if isinstance(usage, dict) else {}

    def _tokens(self, name: str) -> int:
        value = self.usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    @property
    def input_tokens(self) -> int:
        return self._tokens("input_tokens")

    @property
    def output_tokens(self) -> int:
        return self._tokens("output_tokens")

    @property
    def cache_creation_input_tokens(self) -> int:
        return self._tokens("cache_creation_input_tokens")

    @property
    def cache_read_input_tokens(self) -> int:
        return self._tokens("cache_read_input_tokens")

    @property
    def context_tokens(self) -> int:
        """Total input of this request: input + cache creation + cache read tokens."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"response": self.response, "tool_results": self.tool_results}
        if self.elapsed_ms is not None:
            out["elapsed_ms"] = self.elapsed_ms
        if self.note:
            out["note"] = self.note
        if self.request_overrides:
            out["request_overrides"] = self.request_overrides
        if self.messages_sent is not None:
            out["messages_sent"] = self.messages_sent
        out.update(self.extra)
        return out


@dataclass
class Transcript:
    """A recorded loop. ``params`` are the request parameters shared by every turn."""

    slug: str
    title: str
    summary: str
    tags: list[str]
    params: dict[str, Any]
    messages: list[dict[str, Any]]  # the initial messages
    turns: list[Turn]
    extra: dict[str, Any] = field(default_factory=dict)  # other top-level fields, kept
    source: str = "transcript"  # "transcript" | "raw_log" | "message"
    strict: bool = True
    warnings: list[str] = field(default_factory=list)  # things kept raw in an upload
    divergences: list[Divergence] = field(default_factory=list)

    # Convenience views of params and extra.
    @property
    def model(self) -> str:
        return self.params.get("model") or ""

    @property
    def system(self) -> Any:
        return self.params.get("system")

    @property
    def tools(self) -> list[dict[str, Any]]:
        return self.params.get("tools") or []

    @property
    def tool_choice(self) -> dict[str, Any] | None:
        return self.params.get("tool_choice")

    @property
    def thinking(self) -> dict[str, Any] | None:
        return self.params.get("thinking")

    @property
    def ended_by(self) -> str:
        value = self.extra.get("ended_by")
        return value if isinstance(value, str) else ""

    @property
    def guards(self) -> dict[str, Any]:
        value = self.extra.get("guards")
        return value if isinstance(value, dict) else {}

    @property
    def deliberately_broken(self) -> bool:
        return self.extra.get("deliberately_broken") is True

    @property
    def stop_reasons(self) -> list[str | None]:
        return [t.stop_reason for t in self.turns]

    def params_for(self, index: int) -> dict[str, Any]:
        """The request parameters of turn ``index`` (shared params + that turn's overrides)."""
        return {**self.params, **self.turns[index].request_overrides}

    def usage_series(self) -> list[dict[str, int]]:
        """Per turn: tokens of the turn and the running totals, for tables and the chart."""
        rows = []
        total_in = total_out = 0
        for turn in self.turns:
            total_in += turn.context_tokens
            total_out += turn.output_tokens
            rows.append(
                {
                    "step": turn.index,
                    "input_tokens": turn.input_tokens,
                    "output_tokens": turn.output_tokens,
                    "cache_creation_input_tokens": turn.cache_creation_input_tokens,
                    "cache_read_input_tokens": turn.cache_read_input_tokens,
                    # the size of the context this request sent, and after the response
                    "context_tokens": turn.context_tokens,
                    "context_after": turn.context_tokens + turn.output_tokens,
                    "cumulative_input_tokens": total_in,
                    "cumulative_output_tokens": total_out,
                }
            )
        return rows

    def context_series(self) -> list[int]:
        """The context size (input of the request + output of the response) after each turn."""
        return [t.context_tokens + t.output_tokens for t in self.turns]

    def to_dict(self) -> dict[str, Any]:
        """Serialise back to "loopcraft.transcript/1" (responses exactly as recorded)."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "slug": self.slug,
            "title": self.title,
            "summary": self.summary,
            "tags": list(self.tags),
        }
        out.update(self.extra)
        out.update(self.params)
        out["messages"] = self.messages
        out["turns"] = [t.to_dict() for t in self.turns]
        return out

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


# --- parsing the transcript format -------------------------------------------------------------


def parse_transcript(data: Any, *, strict: bool) -> Transcript:
    """Parse a "loopcraft.transcript/1" document (already decoded from JSON) and replay it.

    ``strict=True`` (library files): every response must validate with
    ``anthropic.types.Message``. ``strict=False`` (uploads): unknown block types, newer block
    shapes and unknown stop_reasons are kept raw (``Block.known`` is False, ``warnings`` says
    where); the fields the loop relies on are still checked.
    """
    if not isinstance(data, dict):
        raise TranscriptError(f"A transcript must be a JSON object, not {_kind(data)}.", "")
    check_depth(data)
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
            allowed=REQUEST_BLOCK_TYPES,
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


# --- replay ------------------------------------------------------------------------------------


def _strip(value: Any) -> Any:
    """A comparable form: None-valued keys and cache_control markers dropped."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not None and k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def normalize_message(message: Any) -> Any:
    """A message in comparable form: string content as one text block, None fields dropped."""
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return {"role": message.get("role"), "content": _strip(content)}


def normalize_messages(messages: Any) -> Any:
    if not isinstance(messages, list):
        return messages
    return [normalize_message(m) for m in messages]


def first_difference(a: Any, b: Any, path: str = "messages") -> str | None:
    """The JSON path where ``a`` and ``b`` first differ, or None if they are equal."""
    stack = [(a, b, path)]
    while stack:
        x, y, where = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            keys = list(x) + [k for k in y if k not in x]
            pending = []
            for key in keys:
                if key not in x or key not in y:
                    return join_path(where, key)
                pending.append((x[key], y[key], join_path(where, key)))
            stack.extend(reversed(pending))
        elif isinstance(x, list) and isinstance(y, list):
            pending = [(x[i], y[i], join_path(where, i)) for i in range(min(len(x), len(y)))]
            if len(x) != len(y):
                # compare the common part first, then report the length difference
                stack.append((None, 0, join_path(where, min(len(x), len(y)))))
            stack.extend(reversed(pending))
        elif type(x) is not type(y) or x != y:
            return where
    return None


def _action(response: dict[str, Any]) -> str | None:
    try:
        return catalogue.next_action(response)
    except ValueError:
        return None


def replay(transcript: Transcript) -> None:
    """Derive the messages sent at every turn; record divergences instead of raising."""
    transcript.divergences = []
    previous: list[dict[str, Any]] = list(transcript.messages)
    prev_turn: Turn | None = None
    for turn in transcript.turns:
        turn.action = _action(turn.response)
        if turn.action is None and turn.api_error is None and not turn.incomplete:
            transcript.divergences.append(
                Divergence(
                    turn.index,
                    "unknown_stop_reason",
                    join_path(join_path("turns", turn.index), "response.stop_reason"),
                    f"stop_reason {_short(turn.stop_reason)} is not one the catalogue knows, so "
                    "the replay cannot tell what the loop should do next",
                )
            )
        if prev_turn is None:
            derived = list(previous)
        else:
            derived = _next_messages(previous, prev_turn)
            if not prev_turn.continues and prev_turn.action not in (None, "retry_with_more_tokens"):
                transcript.divergences.append(
                    Divergence(
                        turn.index,
                        "after_stop",
                        join_path("turns", turn.index),
                        f"step {prev_turn.index + 1} ended with stop_reason "
                        f"'{prev_turn.stop_reason}', which ends the loop, but the run "
                        "called the API again",
                    )
                )
        sent = derived
        if turn.messages_sent is not None:
            sent = turn.messages_sent
            comparable = (
                prev_turn is None
                or prev_turn.continues
                or (prev_turn.action == "retry_with_more_tokens")
            )
            if comparable:
                where = first_difference(normalize_messages(derived), normalize_messages(sent))
                if where is not None:
                    transcript.divergences.append(
                        Divergence(
                            turn.index,
                            "mismatch",
                            where,
                            "the messages this turn logged as sent differ from what replaying "
                            f"the loop gives, first at {where}",
                        )
                    )
        turn.derived_messages = derived
        n = len(previous)
        if prev_turn is None:
            turn.appended = list(sent)
        elif len(sent) >= n and (
            all(a is b for a, b in zip(sent, previous, strict=False))
            or normalize_messages(sent[:n]) == normalize_messages(previous)
        ):
            turn.appended = list(sent[n:])
        else:
            turn.appended = None
        params = transcript.params_for(turn.index)
        turn.request = {**params, "messages": sent}
        previous = list(sent)
        prev_turn = turn


def _next_messages(previous: list[dict[str, Any]], turn: Turn) -> list[dict[str, Any]]:
    """What the canonical loop sends after ``turn`` (following the turn's own evidence)."""
    assistant = {"role": "assistant", "content": turn.response.get("content", [])}
    results = [{"role": "user", "content": turn.tool_results}] if turn.tool_results else []
    if turn.action == "run_tools":
        return [*previous, assistant, *results]
    if turn.action == "resend_paused":
        return [*previous, assistant, *results]
    if turn.action == "retry_with_more_tokens" and turn.tool_results:
        # The application ran the cut-off call after all; the checker reports it.
        return [*previous, assistant, *results]
    return list(previous)


# --- raw logs of {request, response} pairs ----------------------------------------------------


def parse_upload(text: str | bytes) -> Transcript:
    """Anything a user may upload: a transcript, a raw log (JSON or JSONL) or one Message, and
    what the API and SDK produce besides (streams, error bodies, partial responses: shapes.py)."""
    from . import shapes

    return shapes.parse_upload_shapes(text, parse_raw_log, _single_message)


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

    if entries_paths is None:
        if isinstance(data, dict):
            if "format" in data:
                return parse_transcript(data, strict=False)
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
        try:
            value = json.loads(line, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            raise TranscriptError(
                f"{where}, column {exc.colno}: not valid JSON ({exc.msg}).", where
            ) from None
        except (ValueError, RecursionError) as exc:
            raise _err(where, f"not valid JSON ({exc})") from None
        entries.append(value)
        paths.append(where)
    return entries, paths


def _entry_path(base: str, key: str) -> str:
    if base.startswith("line "):
        return f"{base}, {key}"
    return join_path(base, key) if base else key


def _single_message(data: dict[str, Any]) -> Transcript:
    check_depth(data)
    warnings: list[str] = []
    message, blocks = _parse_response(data, "", strict=False, warnings=warnings)
    turn = Turn(index=0, response=data, message=message, blocks=blocks)
    params = {"model": data["model"]} if isinstance(data.get("model"), str) else {}
    transcript = Transcript(
        slug="uploaded-message",
        title="Uploaded response",
        summary="A single response, uploaded without the request that produced it.",
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
