"""The page's language as the templates need it: <html lang>, hreflang alternates, the switcher.

English pages live at the root and the others under their prefix (``/pl/notes/…``): a page in
another language is the same path with the other prefix, so the switcher and the alternates
are plain links (cacheable, no cookie, no JavaScript), computed without a URL resolver.
"""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from django.utils.translation import get_language, get_language_from_path

#: The language every page falls back to and the prefix-less one.
DEFAULT = settings.LANGUAGE_CODE
CODES = tuple(code for code, _ in settings.LANGUAGES)


def tag(code: str) -> str:
    """The BCP 47 tag of a Django language code: ``zh-hans`` -> ``zh-Hans``."""
    return settings.LANGUAGE_TAGS.get(code, code)


def current() -> str:
    """The active Django language code, one of settings.LANGUAGES (English outside a request)."""
    code = get_language() or DEFAULT
    return code if code in CODES else DEFAULT


def unprefixed(path_info: str) -> str:
    """The path without its language prefix: ``/pl/notes/x/`` -> ``/notes/x/``."""
    code = get_language_from_path(path_info)
    if code and code != DEFAULT and path_info.startswith(f"/{code}/"):
        return path_info[len(code) + 1 :]
    return path_info


def in_language(path_info: str, code: str) -> str:
    """The same page in another language (a path without the script prefix)."""
    bare = unprefixed(path_info)
    return bare if code == DEFAULT else f"/{code}{bare}"


def localise_path(path: str, code: str | None = None) -> str:
    """An English site path (``/notes/x/#a``) in the active (or the given) language's prefix."""
    code = code or current()
    return path if code == DEFAULT or not path.startswith("/") else f"/{code}{path}"


def other_languages() -> tuple[str, ...]:
    """The translated languages (every code but the source's)."""
    return tuple(c for c in CODES if c != DEFAULT)


def languages(request) -> dict:
    """Context processor: ``html_lang`` and ``language_links`` (one per language, this page)."""
    code = current()
    path_info = request.path_info
    script = request.path[: len(request.path) - len(path_info)] if request.path else ""
    query = request.META.get("QUERY_STRING", "")
    links = []
    base = script.rstrip("/")
    for other, name in settings.LANGUAGES:
        path = quote(f"{script}{in_language(path_info, other)}", safe="/:@!$&'()*+,;=-._~%")
        links.append(
            {
                "code": other,
                "tag": tag(other),
                "name": name,
                "path": path,
                "url": f"{path}?{query}" if query else path,
                "prefix": base if other == DEFAULT else f"{base}/{other}",
                "current": other == code,
            }
        )
    prefixes = " ".join(f"{base}/{c}" for c in CODES if c != DEFAULT)
    english = next(link["url"] for link in links if link["code"] == DEFAULT)
    return {
        "html_lang": tag(code),
        "language_links": links,
        "language_prefixes": prefixes,
        "page_in_english": english,
    }
