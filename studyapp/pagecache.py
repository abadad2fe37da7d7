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
  nothing stale is served after a content reload, on any server.

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

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import http_date, parse_etags
from django.utils.translation import get_language

VERSION_KEY = "loopcraft:content-version"
#: Response headers kept with a cached page (the rest is added by the middleware on the way out).
KEPT_HEADERS = ("Content-Type", "Content-Language", "HX-Push-Url", "HX-Trigger")


def _cache():
    return caches[settings.PAGE_CACHE_ALIAS]


def content_version() -> str:
    """The current content version, ``"<unix time>.<random>"``; created on first use."""
    cache = _cache()
    version = cache.get(VERSION_KEY)
    if version is None:
        cache.add(VERSION_KEY, _new_version(), None)  # the first server to ask wins
        version = cache.get(VERSION_KEY) or _new_version()
    return version


def bump_content_version() -> str:
    """A new version: every cached page (on every server sharing the cache) is out of date."""
    version = _new_version()
    _cache().set(VERSION_KEY, version, None)
    return version


def _new_version() -> str:
    return f"{int(time.time())}.{secrets.token_hex(4)}"


def is_cacheable_request(request) -> bool:
    if request.method not in ("GET", "HEAD"):
        return False
    cookies = request.COOKIES
    return settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies


def _key(request, version: str) -> tuple[str, str]:
    htmx = request.headers.get("HX-Request") == "true"
    restore = request.headers.get("HX-History-Restore-Request") == "true"
    variant = "h" if htmx and not restore else "f"
    raw = f"{request.get_host()}|{request.get_full_path()}|{get_language()}|{variant}"
    digest = hashlib.md5(raw.encode(), usedforsecurity=False).hexdigest()
    etag = f'"{version}-{digest[:12]}"'
    return f"page:{settings.CONTENT_DIR}:{version}:{digest}", etag


def _public_headers(response, etag: str, version: str) -> None:
    patch_cache_control(response, public=True, max_age=settings.PAGE_CACHE_SECONDS)
    # The header of the page names the signed-in user: a shared cache must tell the two apart,
    # and an htmx request gets a fragment, not the page.
    patch_vary_headers(response, ("Cookie", "HX-Request", "Accept-Language"))
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = http_date(int(version.split(".")[0]))


class PageCacheMiddleware:
    """Serves and stores the pages named in settings.PAGE_CACHE_VIEWS (see the module doc)."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.views = frozenset(settings.PAGE_CACHE_VIEWS)
        self.enabled = settings.PAGE_CACHE_SECONDS > 0

    def _wanted(self, request) -> bool:
        match = getattr(request, "resolver_match", None)
        return self.enabled and match is not None and match.view_name in self.views

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not self._wanted(request):
            return None
        if not is_cacheable_request(request):
            request._page_cache = "private"
            return None
        version = content_version()
        key, etag = _key(request, version)
        request._page_cache = (key, etag, version)
        if etag in parse_etags(request.headers.get("If-None-Match", "")):
            response = HttpResponseNotModified()
            _public_headers(response, etag, version)
            request._page_cache = "served"
            return response
        stored = _cache().get(key)
        if stored is None:
            return None
        content, headers = stored
        response = HttpResponse(content)
        for name, value in headers.items():
            response.headers[name] = value
        _public_headers(response, etag, version)
        response.headers["X-Page-Cache"] = "hit"
        request._page_cache = "served"
        return response

    def __call__(self, request):
        response = self.get_response(request)
        state = getattr(request, "_page_cache", None)
        if state is None or state == "served":
            return response
        if state == "private" or not self._storable(request, response):
            patch_cache_control(response, private=True)
            return response
        key, etag, version = state
        headers = {h: response.headers[h] for h in KEPT_HEADERS if h in response.headers}
        _cache().set(key, (response.content, headers), settings.PAGE_CACHE_SECONDS)
        _public_headers(response, etag, version)
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
