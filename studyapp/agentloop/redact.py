"""Keep API keys out of every message, error and log line (pure: no Django).

``redact(text, *secrets)`` replaces

- anything shaped like an Anthropic key: the ``sk-ant-`` prefix and the key characters after it,
  whatever their length (a truncated key is still a key);
- any copy of a known secret (the server's key, a visitor's own key) of at least
  ``PARTIAL_MIN`` characters, with or without its prefix: an upstream error that quotes
  "...Xy12ab34cd56..." from the middle of the key is caught too.

``RedactingFilter`` does the same to every log record; settings.LOGGING installs it on the
handlers, with the server's key taken from ANTHROPIC_API_KEY.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Any

__all__ = ["redact", "RedactingFilter", "KEY_RE", "MARK", "PARTIAL_MIN"]

MARK = "[key]"
#: The prefix and the key alphabet. Keys today are ``sk-ant-api03-`` + 95 characters.
KEY_RE = re.compile(r"sk-ant-[A-Za-z0-9_\-]*")
#: A run this long copied from a secret counts as a copy (about 60 bits of a random key).
PARTIAL_MIN = 10


def _spans_of_copies(text: str, secret: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that copy at least PARTIAL_MIN consecutive characters of ``secret``.

    Linear in the text: the secret's windows of PARTIAL_MIN characters go into a set, and each
    position of the text is looked up once.
    """
    k = PARTIAL_MIN
    if len(secret) < k or len(text) < k:
        return (
            [(m.start(), m.end()) for m in re.finditer(re.escape(secret), text)] if secret else []
        )
    windows = {secret[i : i + k] for i in range(len(secret) - k + 1)}
    spans: list[tuple[int, int]] = []
    for i in range(len(text) - k + 1):
        if text[i : i + k] in windows:
            if spans and i <= spans[-1][1]:
                spans[-1] = (spans[-1][0], i + k)
            else:
                spans.append((i, i + k))
    return spans


def redact(text: Any, *secrets: str | None) -> str:
    """``text`` (made a string) with every key-like string and every copy of a secret hidden."""
    text = text if isinstance(text, str) else str(text)
    spans: list[tuple[int, int]] = []
    for secret in secrets:
        if secret and secret.strip():
            spans += _spans_of_copies(text, secret.strip())
    if spans:
        spans.sort()
        merged = [spans[0]]
        for start, end in spans[1:]:
            if start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        parts, last = [], 0
        for start, end in merged:
            parts += [text[last:start], MARK]
            last = end
        text = "".join(parts) + text[last:]
    return KEY_RE.sub(MARK, text)


class RedactingFilter(logging.Filter):
    """Redacts each record's final message (and its exception text) before any handler sees it."""

    def __init__(self, name: str = "", secrets: tuple[str, ...] | None = None) -> None:
        super().__init__(name)
        self._secrets = secrets

    def _keys(self) -> tuple[str, ...]:
        if self._secrets is not None:
            return self._secrets
        return (os.environ.get("ANTHROPIC_API_KEY", ""),)

    def filter(self, record: logging.LogRecord) -> bool:
        keys = self._keys()
        message = record.getMessage()
        clean = redact(message, *keys)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, *keys)
        return True
