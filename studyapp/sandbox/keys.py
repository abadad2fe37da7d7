"""A visitor's own API key for a live run: kept in their server-side session, sealed.

The key is never written to any model, never logged, never put in a page or a message. The
session itself is a database row (or a cache entry), so what goes into it is a sealed copy:
encrypted and authenticated with a key derived from SECRET_KEY (HMAC-SHA256 in counter mode,
then an HMAC tag over nonce and ciphertext: standard library only). A database dump alone holds
no copy of the key, not even an encoded one; only a process that has SECRET_KEY and the visitor's
session can open it, and it is opened only in memory, for the call that needs it.

A sealed key is bound to the session and the run it was given for (both are in the tag), kept
for at most ``MAX_KEYS`` runs, and dropped when the visitor forgets it or the session ends.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from django.conf import settings
from django.utils.translation import gettext

SESSION_FIELD = "live_own_keys"
MAX_KEYS = 10
MAX_LENGTH = 300


class KeyError_(ValueError):
    """A key the form refuses (the message says why, without repeating the key)."""


def clean_key(value: str) -> str:
    key = (value or "").strip()
    if not key:
        return ""
    if len(key) > MAX_LENGTH or any(c.isspace() for c in key) or not key.isprintable():
        raise KeyError_(
            gettext(
                "That does not look like an API key (one line of at most %(max)s characters, "
                "no spaces)."
            )
            % {"max": MAX_LENGTH}
        )
    return key


def _subkey(purpose: bytes) -> bytes:
    return hmac.new(
        settings.SECRET_KEY.encode(), b"loopcraft.own-key." + purpose, "sha256"
    ).digest()


def _stream(nonce: bytes, length: int) -> bytes:
    enc = _subkey(b"enc")
    out = b""
    counter = 0
    while len(out) < length:
        out += hmac.new(enc, nonce + counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1
    return out[:length]


def _tag(nonce: bytes, sealed: bytes, context: str) -> bytes:
    return hmac.new(_subkey(b"mac"), nonce + sealed + context.encode(), hashlib.sha256).digest()


def seal(key: str, context: str) -> str:
    plain = key.encode()
    nonce = secrets.token_bytes(16)
    sealed = bytes(a ^ b for a, b in zip(plain, _stream(nonce, len(plain)), strict=True))
    return base64.urlsafe_b64encode(nonce + sealed + _tag(nonce, sealed, context)).decode()


def unseal(token: str, context: str) -> str | None:
    try:
        raw = base64.urlsafe_b64decode(token.encode())
    except (ValueError, TypeError, AttributeError):
        return None
    if len(raw) < 16 + 32 + 1:
        return None
    nonce, sealed, tag = raw[:16], raw[16:-32], raw[-32:]
    if not hmac.compare_digest(tag, _tag(nonce, sealed, context)):
        return None
    plain = bytes(a ^ b for a, b in zip(sealed, _stream(nonce, len(sealed)), strict=True))
    try:
        return plain.decode()
    except UnicodeDecodeError:
        return None


def _context(request, run_pk: int) -> str:
    if not request.session.session_key:
        request.session.save()
    return f"{request.session.session_key}:{run_pk}"


def remember(request, run_pk: int, key: str) -> None:
    """Keep ``key`` (sealed) in the visitor's session for run ``run_pk``."""
    kept = dict(request.session.get(SESSION_FIELD) or {})
    kept.pop(str(run_pk), None)
    kept[str(run_pk)] = seal(key, _context(request, run_pk))
    while len(kept) > MAX_KEYS:
        kept.pop(next(iter(kept)))
    request.session[SESSION_FIELD] = kept


def own_key(request, run_pk: int) -> str | None:
    """The visitor's own key for this run, or None."""
    token = (request.session.get(SESSION_FIELD) or {}).get(str(run_pk))
    if not isinstance(token, str):
        return None
    return unseal(token, _context(request, run_pk))


def has_own_key(request, run_pk: int) -> bool:
    """Whether a key of the visitor's is kept for this run (and still opens in this session)."""
    if str(run_pk) not in (request.session.get(SESSION_FIELD) or {}):
        return False
    return own_key(request, run_pk) is not None


def forget(request, run_pk: int) -> None:
    kept = dict(request.session.get(SESSION_FIELD) or {})
    if kept.pop(str(run_pk), None) is not None:
        request.session[SESSION_FIELD] = kept
