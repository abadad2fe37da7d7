"""A recorded block's JSON as the step pages print it, base64 data shortened, written in one pass.

``json.dumps(lean(value), indent=2, ensure_ascii=False)`` wrote it before: an indented dump runs
json's pure-Python encoder (its C encoder takes no indent), after a walk that copied the value to
shorten its base64. ``lean_json`` walks once and writes the same text, character for character
(tests/test_sandbox_render.py compares the two on every block, response and request of the
library and on the values json treats apart: floats, non-string keys, empty containers, tuples).
"""

from __future__ import annotations

from json.encoder import encode_basestring  # json's own string encoder (C when available)

_INFINITY = float("inf")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _key(key) -> str:
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return encode_basestring(int.__repr__(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _write(value, out: list[str], indent: str, lean: bool) -> None:
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = indent + "  "
        short = lean and value.get("type") == "base64" and isinstance(value.get("data"), str)
        out.append("{")
        first = True
        for k, v in value.items():
            out.append(inner if first else "," + inner)
            first = False
            out.append(_key(k))
            out.append(": ")
            if short and k == "data":
                out.append(encode_basestring(f"<{len(v):,} characters of base64>"))
            else:
                _write(v, out, inner, lean)
        out.append(indent + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = indent + "  "
        lean = lean and isinstance(value, list)  # (the old walk went into lists only)
        out.append("[")
        first = True
        for v in value:
            out.append(inner if first else "," + inner)
            first = False
            _write(v, out, inner, lean)
        out.append(indent + "]")
    else:
        raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def lean_json(value) -> str:
    """``value`` as indented JSON (two spaces, non-ASCII kept), each ``{"type": "base64",
    "data": "..."}`` dict's data replaced by how many characters it had."""
    out: list[str] = []
    _write(value, out, "\n", True)
    return "".join(out)


def indented_json(value) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, nothing shortened."""
    out: list[str] = []
    _write(value, out, "\n", False)
    return "".join(out)
