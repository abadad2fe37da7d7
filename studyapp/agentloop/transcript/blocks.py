"""Content blocks and messages: the fields this package needs, request and response
validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pydantic

from .. import sdk
from .errors import _condense, _err, _expect, _kind, _short, join_path
from .limits import (
    TOOL_RESULT_CONTENT_TYPES,
    block_models,
    min_fields,
    request_block_types,
    sdk_stop_reasons,
)

if TYPE_CHECKING:
    from anthropic.types import Message

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
    for name, want in min_fields().get(kind, {}).items():
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
                allowed=request_block_types(),
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
    models = block_models()
    all_known = True
    for i, raw in enumerate(content):
        where = join_path(join_path(path, "content"), i)
        kind = _block_type(raw, where)
        model = models.get(kind)
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
    known_stops = sdk_stop_reasons()
    unknown_stop = isinstance(stop_reason, str) and stop_reason not in known_stops
    if unknown_stop:
        if strict:
            raise _err(
                join_path(path, "stop_reason"),
                f"unknown stop_reason {_short(stop_reason)} (expected one of "
                + ", ".join(sorted(known_stops))
                + ")",
            )
        warnings.append(f"{join_path(path, 'stop_reason')}: unknown stop_reason '{stop_reason}'")
        head["stop_reason"] = None
    message_type = sdk.message_type()
    try:
        message_type.model_validate(head)
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
            return message_type.model_validate(data), blocks
        except pydantic.ValidationError as exc:  # pragma: no cover - blocks were checked above
            raise _condense(exc, path) from None
    if all_known and not unknown_stop:
        try:
            return message_type.model_validate(data), blocks
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
