"""Shared, revalidatable reading pages: home, notes, glossary, "what changed" and library steps.

An anonymous GET of a page named in ``settings.PAGE_CACHE_VIEWS`` carries no per-visitor state
(no session, no CSRF cookie, no token in the HTML: htmx reads the token from the cookie, see
static/js/site.js), so one rendering can serve every anonymous visitor:

- the response says ``Cache-Control: public, max-age=settings.PAGE_CACHE_SECONDS`` with an
  ``ETag`` and a ``Last-Modified`` taken from the content version, and answers ``304`` to a
  revalidation without rendering;
- the rendered page is kept in Django's cache (``settings.PAGE_CACHE_ALIAS``: Redis when
  ``CACHE_URL`` is set, shared by every app server), keyed by the content version, the URL, the
  language and the htmx request header;
- ``manage.py loadcontent`` calls :func:`bump_content_version`, which moves every key at once:
  nothing stale is served after a content reload, on any server (each process re-reads the
  version at most every ``settings.PAGE_CACHE_VERSION_SECONDS`` and keeps its hottest pages in
  its own memory, so a cached page costs no round trip to Redis).

A visitor with a session (signed in, or an anonymous learner with answers or preferences) or a
pending message is never served from, nor stored in, the shared cache; such responses are marked
``private``. A rendering that touched the CSRF token, created a session or set a cookie is not
stored either, so a form added to one of these pages makes it uncacheable instead of leaking a
token to other visitors.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections import OrderedDict

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import http_date, parse_etags

VERSION_KEY = "loopcraft:content-version"
#: Response headers kept with a cached page (the rest is added by the middleware on the way out).
KEPT_HEADERS = ("Content-Type", "Content-Language", "HX-Push-Url", "HX-Trigger")


def _cache():
    return caches[settings.PAGE_CACHE_ALIAS]


# Each process remembers the version for settings.PAGE_CACHE_VERSION_SECONDS and keeps the pages
# it served last in its own memory (keyed by version too), so a cached page costs no round trip
# to Redis: a content reload reaches every server within that many seconds.
_local_version: list = [0.0, ""]  # [valid until (monotonic), version]
_local_pages: OrderedDict[tuple, tuple[bytes, dict]] = OrderedDict()
LOCAL_PAGES_MAX = 256


def reset_local() -> None:
    """Forget this process's copies (tests; a bump in this process does it too)."""
    _local_version[:] = [0.0, ""]
    _local_pages.clear()


def content_version() -> str:
    """The current content version, ``"<unix time>.<random>"``; created on first use."""
    now = time.monotonic()
    if _local_version[0] > now:
        return _local_version[1]
    cache = _cache()
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, _new_version(), None)  # the first server to ask wins
        version = cache.get(VERSION_KEY) or _new_version()
    _local_version[:] = [now + settings.PAGE_CACHE_VERSION_SECONDS, version]
    return version


def bump_content_version() -> str:
    """A new version: every cached page (on every server sharing the cache) is out of date."""
    version = _new_version()
    _cache().set(VERSION_KEY, version, None)
    reset_local()
    return version


def _remember(key: tuple, page: tuple[bytes, dict]) -> None:
    _local_pages[key] = page
    while len(_local_pages) > LOCAL_PAGES_MAX:
        try:
            _local_pages.popitem(last=False)
        except KeyError:  # another thread emptied it
            break


def _new_version() -> str:
    return f"{int(time.time())}.{secrets.token_hex(4)}"


def is_cacheable_request(request) -> bool:
    if request.method not in ("GET", "HEAD"):
        return False
    cookies = request.COOKIES
    return settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies


def _variant(request) -> str:
    """The local key: host, path with query, language and whether htmx wants a fragment."""
    meta = request.META
    htmx = meta.get("HTTP_HX_REQUEST") == "true"
    restore = meta.get("HTTP_HX_HISTORY_RESTORE_REQUEST") == "true"
    language = getattr(request, "LANGUAGE_CODE", settings.LANGUAGE_CODE)
    fragment = "h" if htmx and not restore else "f"
    return f"{meta.get('HTTP_HOST', '')}|{request.get_full_path()}|{language}|{fragment}"


def _shared_key(variant: str, version: str) -> tuple[str, str]:
    digest = hashlib.md5(variant.encode(), usedforsecurity=False).hexdigest()
    etag = f'"{version}-{digest[:12]}"'
    return f"page:{settings.CONTENT_DIR}:{version}:{digest}", etag


def _public(etag: str, version: str) -> dict[str, str]:
    """The headers of a shared page. It varies on Cookie because its header names the signed-in
    user (a CDN must tell the two apart), and on HX-Request (a fragment is not the page); not on
    Accept-Language: the URL's prefix alone decides the language (studyapp/urls.py)."""
    return {
        "Cache-Control": f"public, max-age={settings.PAGE_CACHE_SECONDS}",
        "Vary": "Cookie, HX-Request",
        "ETag": etag,
        "Last-Modified": http_date(int(version.split(".")[0])),
    }


class PageCacheMiddleware:
    """Serves and stores the pages named in settings.PAGE_CACHE_VIEWS (see the module doc)."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.views = frozenset(settings.PAGE_CACHE_VIEWS)
        self.enabled = settings.PAGE_CACHE_SECONDS > 0

    def process_view(self, request, view_func, view_args, view_kwargs):
        match = request.resolver_match
        if not self.enabled or match is None or match.view_name not in self.views:
            return None
        if not is_cacheable_request(request):
            request._page_cache = "private"
            return None
        version = content_version()
        variant = _variant(request)
        local = (version, variant)
        page = _local_pages.get(local)
        if page is None:
            key, etag = _shared_key(variant, version)
            page = _cache().get(key)
            if page is None:
                request._page_cache = (local, key, etag, version)
                return None
            _remember(local, page)
        content, headers = page
        request._page_cache = "served"
        if headers["ETag"] in parse_etags(request.META.get("HTTP_IF_NONE_MATCH", "")):
            response = HttpResponseNotModified()
            headers = {k: v for k, v in headers.items() if k != "Content-Type"}
        else:
            response = HttpResponse(content)
            response.headers["X-Page-Cache"] = "hit"
        for name, value in headers.items():
            response.headers[name] = value
        return response

    def __call__(self, request):
        response = self.get_response(request)
        state = getattr(request, "_page_cache", None)
        if state is None or state == "served":
            return response
        if state == "private" or not self._storable(request, response):
            patch_cache_control(response, private=True)
            return response
        local, key, etag, version = state
        headers = {h: response.headers[h] for h in KEPT_HEADERS if h in response.headers}
        public = _public(etag, version)
        patch_vary_headers(response, [v.strip() for v in public.pop("Vary").split(",")])
        headers["Vary"] = response.headers["Vary"]
        for name, value in public.items():
            response.headers[name] = headers[name] = value
        page = (response.content, headers)
        _cache().set(key, page, settings.PAGE_CACHE_SECONDS)
        _remember(local, page)
        response.headers["X-Page-Cache"] = "miss"
        return response

    @staticmethod
    def _storable(request, response) -> bool:
        if response.status_code != 200 or response.streaming or response.cookies:
            return False
        if request.META.get("CSRF_COOKIE_NEEDS_UPDATE"):  # the page used the CSRF token
            return False
        session = getattr(request, "session", None)
        if session is not None and session.modified:
            return False
        storage = getattr(request, "_messages", None)
        if storage is not None and getattr(storage, "added_new", False):
            return False
        return not response.has_header("Cache-Control")
