"""The site's fixed URLs, reversed once per process and language instead of on every page."""

from __future__ import annotations

from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.translation import get_language

#: name in templates -> URL name; a name the URLconf lacks gives "" (the link is left out)
FIXED = {
    "home": "home",
    "notes": "notes:index",
    "changes": "notes:changes",
    "glossary": "glossary",
    "practice": "quizzes:practice",
    "exam": "quizzes:exam_start",
    "sandbox": "sandbox:index",
    "author": "author:index",
    "progress": "progress:dashboard",
    "login": "login",
    "logout": "logout",
    "csrf": "csrf",
}
_resolved: dict[tuple, dict[str, str]] = {}


def _reverse(name: str) -> str:
    try:
        return reverse(name)
    except NoReverseMatch:
        return ""


def site_urls(request) -> dict:
    # Each language has its own prefix (/pl/notes/), so its own set.
    key = (get_urlconf(), get_script_prefix(), get_language())
    urls = _resolved.get(key)
    if urls is None:
        urls = _resolved[key] = {short: _reverse(name) for short, name in FIXED.items()}
    return {"site_urls": urls}
