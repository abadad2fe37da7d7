"""The site's fixed URLs, reversed once per process and language instead of on every page."""

from __future__ import annotations

from django.templatetags.static import static
from django.urls import NoReverseMatch, reverse

from core import urlcache

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
#: name in templates -> static file (base.html's head): the manifest is read once, not per page
STATIC = {"css": "css/site.css", "icon": "img/favicon.svg", "js": "js/site.js"}
_resolved: dict[tuple, dict[str, str]] = {}


def _reverse(name: str) -> str:
    try:
        return reverse(name)
    except NoReverseMatch:
        return ""


def site_urls(request) -> dict:
    # By language too: under i18n_patterns a URL carries the language's prefix (/pl/...).
    key = urlcache.where()
    urls = _resolved.get(key)
    if urls is None:
        urls = {short: _reverse(name) for short, name in FIXED.items()}
        urls.update({f"static_{short}": static(path) for short, path in STATIC.items()})
        _resolved[key] = urls
    return {"site_urls": urls}
