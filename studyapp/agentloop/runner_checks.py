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
from .i18n import Phrase, english, gettext_noop

#: The API's answer: as large as an upload, at most 64 levels deep.
RESPONSE_LIMITS = bounded.UPLOAD
_TEXT_FIELDS = {"text": "text", "thinking": "thinking"}


class ResponseError(ValueError):
    """The API's answer is not a response the loop can use (the message says why, in English;
    ``phrase``, where set, is the same as a message id, for the page)."""

    def __init__(self, message: str = "", *, phrase: Phrase | None = None) -> None:
        super().__init__(message)
        self.phrase = phrase


def read_body(body: bytes | str) -> dict[str, Any]:
    """The response body as JSON data, within the bounded parser's limits."""
    try:
        data = bounded.loads_json(body, RESPONSE_LIMITS, what="The API's answer")
    except bounded.LimitError as exc:
        text = str(exc)
        if not text.startswith("The API's answer"):  # e.g. "NaN is not valid JSON."
            text = f"The API's answer is refused: {text}"
        raise ResponseError(text) from None
    phrase = problem_phrase(data)
    if phrase:
        raise ResponseError(english(phrase.text, phrase.params), phrase=phrase)
    return clean_response(data)


def response_problem(data: Any) -> str | None:
    """Why ``data`` is not a Messages API response the loop can continue from, or None (in
    English; :func:`problem_phrase` has the same words as a message id, for the page)."""
    phrase = problem_phrase(data)
    return english(phrase.text, phrase.params) if phrase else None


def problem_phrase(data: Any) -> Phrase | None:
    """:func:`response_problem` as a Phrase: worded in the reader's language when shown (the
    paths, types and field names in it are never translated)."""
    if not isinstance(data, dict):
        return Phrase(
            gettext_noop("The API's answer is not a JSON object (it is %(kind)s)."),
            {"kind": _kind(data)},
        )
    if data.get("type") not in (None, "message"):
        return Phrase(
            gettext_noop("The API's answer has type %(type)s, not 'message'."),
            {"type": repr(str(data.get("type"))[:40])},
        )
    content = data.get("content")
    if not isinstance(content, list):
        return Phrase(
            gettext_noop("The API's answer has content that is %(kind)s, not a list of blocks."),
            {"kind": _kind(content)},
        )
    for i, block in enumerate(content):
        where = f"content[{i}]"
        if not isinstance(block, dict):
            return Phrase(
                gettext_noop("The API's answer has %(where)s that is %(kind)s, not a block."),
                {"where": where, "kind": _kind(block)},
            )
        kind = block.get("type")
        if not isinstance(kind, str) or not kind:
            return Phrase(
                gettext_noop("The API's answer has %(where)s without a type."), {"where": where}
            )
        if kind in ("tool_use", "server_tool_use"):
            for name in ("id", "name"):
                if not isinstance(block.get(name), str) or not block.get(name):
                    return Phrase(
                        gettext_noop(
                            "The API's answer has a %(type)s block (%(where)s) without a text "
                            "%(field)s."
                        ),
                        {"type": kind, "where": where, "field": name},
                    )
            if not isinstance(block.get("input"), dict):
                return Phrase(
                    gettext_noop(
                        "The API's answer has a %(type)s block (%(where)s) whose input is "
                        "%(kind)s, not an object."
                    ),
                    {"type": kind, "where": where, "kind": _kind(block.get("input"))},
                )
        field = _TEXT_FIELDS.get(kind)
        if field and not isinstance(block.get(field), str):
            return Phrase(
                gettext_noop(
                    "The API's answer has a %(type)s block (%(where)s) whose %(field)s is not text."
                ),
                {"type": kind, "where": where, "field": field},
            )
    stop = data.get("stop_reason")
    if stop is not None and not isinstance(stop, str):
        return Phrase(
            gettext_noop("The API's answer has a stop_reason that is %(kind)s, not text."),
            {"kind": _kind(stop)},
        )
    usage = data.get("usage")
    if usage is not None and not isinstance(usage, dict):
        return Phrase(
            gettext_noop("The API's answer has usage that is %(kind)s, not an object."),
            {"kind": _kind(usage)},
        )
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


_KINDS = {
    dict: gettext_noop("an object"),
    list: gettext_noop("a list"),
    str: gettext_noop("text"),
    bool: gettext_noop("true/false"),
    type(None): "null",
}


def _kind(value: Any) -> Phrase | str:
    """What JSON ``value`` is, in words (a Phrase, translated when read; null and a Python
    type's name stay as they are)."""
    for cls, name in _KINDS.items():
        if type(value) is cls:
            return Phrase(name) if name != "null" else name
    return (
        Phrase(gettext_noop("a number")) if isinstance(value, int | float) else type(value).__name__
    )


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
