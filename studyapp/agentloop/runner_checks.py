"""What the live runner checks around each API call (pure: no Django).

- :func:`read_body`: the raw body of a Messages API response, through the one bounded parser
  (size, depth, count, duplicate keys), so a hostile or broken endpoint cannot make the runner
  recurse or allocate without limit.
- :func:`response_problem`: whether a response (as JSON data) has the shape the loop relies on
  (``content`` a list of blocks with a ``type``; a ``tool_use`` with a text ``id`` and ``name``
  and an object ``input``; text blocks with text; a text or null ``stop_reason``). A response
  that fails is never added to a run: the step becomes an error step with the reason.
- :func:`clean_response`: ``None`` fields dropped (the SDK's ``model_dump(exclude_none=True)``),
  so blocks go back to the API in the shape it accepts.
- :func:`worst_case_tokens`: the most the next call can cost, input so far plus ``max_tokens``
  (an over-estimate), which the daily allowance is checked against before anything is sent.
"""

from __future__ import annotations

import json
from typing import Any

from . import bounded

#: The API's answer: as large as an upload, at most 64 levels deep.
RESPONSE_LIMITS = bounded.UPLOAD
_TEXT_FIELDS = {"text": "text", "thinking": "thinking"}


class ResponseError(ValueError):
    """The API's answer is not a response the loop can use (the message says why)."""


def read_body(body: bytes | str) -> dict[str, Any]:
    """The response body as JSON data, within the bounded parser's limits."""
    try:
        data = bounded.loads_json(body, RESPONSE_LIMITS, what="The API's answer")
    except bounded.LimitError as exc:
        text = str(exc)
        if not text.startswith("The API's answer"):  # e.g. "NaN is not valid JSON."
            text = f"The API's answer is refused: {text}"
        raise ResponseError(text) from None
    problem = response_problem(data)
    if problem:
        raise ResponseError(problem)
    return clean_response(data)


def response_problem(data: Any) -> str | None:
    """Why ``data`` is not a Messages API response the loop can continue from, or None."""
    if not isinstance(data, dict):
        return f"The API's answer is not a JSON object (it is {_kind(data)})."
    if data.get("type") not in (None, "message"):
        return f"The API's answer has type {str(data.get('type'))[:40]!r}, not 'message'."
    content = data.get("content")
    if not isinstance(content, list):
        return f"The API's answer has content that is {_kind(content)}, not a list of blocks."
    for i, block in enumerate(content):
        where = f"content[{i}]"
        if not isinstance(block, dict):
            return f"The API's answer has {where} that is {_kind(block)}, not a block."
        kind = block.get("type")
        if not isinstance(kind, str) or not kind:
            return f"The API's answer has {where} without a type."
        if kind in ("tool_use", "server_tool_use"):
            for name in ("id", "name"):
                if not isinstance(block.get(name), str) or not block.get(name):
                    return f"The API's answer has a {kind} block ({where}) without a text {name}."
            if not isinstance(block.get("input"), dict):
                return (
                    f"The API's answer has a {kind} block ({where}) whose input is "
                    f"{_kind(block.get('input'))}, not an object."
                )
        field = _TEXT_FIELDS.get(kind)
        if field and not isinstance(block.get(field), str):
            return f"The API's answer has a {kind} block ({where}) whose {field} is not text."
    stop = data.get("stop_reason")
    if stop is not None and not isinstance(stop, str):
        return f"The API's answer has a stop_reason that is {_kind(stop)}, not text."
    usage = data.get("usage")
    if usage is not None and not isinstance(usage, dict):
        return f"The API's answer has usage that is {_kind(usage)}, not an object."
    return None


def clean_response(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without None fields (stop_sequence kept), without recursion."""
    stop_sequence = data.get("stop_sequence")
    out: dict[str, Any] = _drop_none(data)
    out["stop_sequence"] = stop_sequence
    return out


def _drop_none(value: Any) -> Any:
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, dict):
            new: Any = {}
            parent[key] = new
            kept = [(k, v) for k, v in item.items() if v is not None]
            for k, _ in kept:  # the keys keep the API's order
                new[k] = None
            stack.extend((v, new, k) for k, v in kept)
        elif isinstance(item, list):
            new = [None] * len(item)
            parent[key] = new
            for i, v in enumerate(item):
                stack.append((v, new, i))
        else:
            parent[key] = item
    return root[0]


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}
    for cls, name in names.items():
        if type(value) is cls:
            return name
    return "a number" if isinstance(value, int | float) else type(value).__name__


def approx_tokens(value: Any) -> int:
    """A deliberate over-estimate of the tokens in ``value`` (about 3 characters a token)."""
    return len(json.dumps(value, ensure_ascii=False)) // 3 + 1


def worst_case_tokens(run: Any) -> int:
    """The most the run's next call can cost: its input (known or over-estimated) + max_tokens.

    The runner's own estimate uses the last call's reported input; the whole next request,
    measured in characters, bounds the first call (and any call whose usage was not reported).
    """
    request = run.next_request()
    estimate = approx_tokens(request) + int(request["max_tokens"])
    return max(estimate, int(run._next_call_estimate()))
