"""Small helpers for the kinds' editor fields (the authoring editor builds the form from them)."""

from __future__ import annotations

import json
from typing import Any


def area(rows: int, *, code: bool = False):
    from django import forms

    attrs: dict[str, Any] = {"rows": rows}
    if code:
        attrs.update(spellcheck="false", autocomplete="off", **{"class": "code"})
    return forms.Textarea(attrs=attrs)


def dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]
