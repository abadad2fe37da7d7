"""URLs with whole-number arguments (``/exam/12/q/3/``) reversed once per process.

``reverse()`` walks the resolver's patterns on every call (≈95 Python calls); a question page
asks for five of them. ``reverse_ints`` reverses each name once per URLconf, script prefix and
language with stand-in numbers and puts the real numbers in their place, which gives the same
string for URLs whose arguments are ``<int:...>`` path converters.
"""

from __future__ import annotations

from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.translation import get_language

#: Stand-in arguments: digits no URL prefix or pattern of this site contains.
_STAND_INS = ("987650001", "987650002", "987650003")
_patterns: dict[tuple, tuple[str, ...]] = {}


def reverse_ints(name: str, *args: int) -> str:
    """``reverse(name, args=args)`` for a URL whose arguments are all ``<int:...>``."""
    key = (name, len(args), get_urlconf(), get_script_prefix(), get_language())
    parts = _patterns.get(key)
    if parts is None:
        url = reverse(name, args=[int(s) for s in _STAND_INS[: len(args)]])
        parts = (url,)
        for stand_in in _STAND_INS[: len(args)]:
            *head, tail = parts
            if tail.count(stand_in) != 1:
                return reverse(name, args=args)  # not a plain int URL: no shortcut
            parts = (*head, *tail.split(stand_in))
        _patterns[key] = parts
    out = [parts[0]]
    for arg, part in zip(args, parts[1:], strict=True):
        out += [str(int(arg)), part]
    return "".join(out)
