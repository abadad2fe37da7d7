"""The lint for tool failures returned as successes (no is_error), and its heuristic."""

from __future__ import annotations

import re
from typing import Any

from .. import bounded
from ..i18n import Phrase, gettext_noop
from .findings import Finding, _finding
from .history import _Msg

_FAIL_WORDS = re.compile(
    r"\b(errors?|failed|failure|exception|traceback|not[ _]found)\b", re.IGNORECASE
)
_FAIL_KEYS = ("error", "errors", "exception", "traceback")
_STATUS_KEYS = ("status", "state", "result", "outcome")
_OK_KEYS = ("ok", "success", "succeeded")


def failure_signal(content: Any) -> str | None:
    """Why a tool_result's content looks like a failure (a heuristic), or None."""
    reason = failure_reason(content)
    return str(reason) if reason else None


def failure_reason(content: Any) -> Phrase | None:
    """``failure_signal`` as a phrase to translate where it is read."""
    if content is None:
        return Phrase(gettext_noop("is empty"))
    if isinstance(content, list):
        texts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            else:
                return None  # an image, a document...: real output
        content = "\n".join(texts)
    if not isinstance(content, str):
        return None
    text = content.strip()
    if not text:
        return Phrase(gettext_noop("is empty"))
    if text[:1] in "{[":
        try:
            data = bounded.loads_json(text, bounded.UPLOAD)
        except bounded.LimitError:  # not JSON, or too deep to read: judged as plain text
            data = None
        if isinstance(data, dict):
            return _json_failure(data)
        if data is not None:
            return None
    match = _FAIL_WORDS.search(text)
    return Phrase(gettext_noop("says %(word)s"), {"word": repr(match.group(0))}) if match else None


def _json_failure(data: dict[str, Any]) -> Phrase | None:
    for key, value in data.items():
        name = str(key).lower()
        if name in _FAIL_KEYS and value:
            return Phrase(gettext_noop("has %(key)s set"), {"key": repr(key)})
        if name in _STATUS_KEYS and isinstance(value, str) and _FAIL_WORDS.search(value):
            return Phrase(
                gettext_noop("has %(key)s: %(value)s"), {"key": key, "value": repr(value)}
            )
        if name in _OK_KEYS and value is False:
            return Phrase(gettext_noop("has %(key)s: false"), {"key": key})
    return None


def _check_tool_errors(findings: list[Finding], msgs: list[_Msg], *, since: int) -> None:
    for m in msgs:
        if m.role != "user" or m.index < since:
            continue
        for path, block in m.blocks:
            if block.get("type") != "tool_result" or block.get("is_error") is True:
                continue
            reason = failure_reason(block.get("content"))
            if reason:
                findings.append(
                    _finding(
                        "tool-error-not-flagged",
                        path,
                        gettext_noop(
                            "The tool_result at %(path)s %(reason)s, but is_error is not true. If "
                            'the tool failed, send the error text with "is_error": true so Claude '
                            "knows the call did not work and can retry, change course or tell "
                            "the user; an empty or unflagged result reads as a success. (An empty "
                            "result is fine for a tool that really has nothing to return.)"
                        ),
                        {"path": path, "reason": reason},
                    )
                )
