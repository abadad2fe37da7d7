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
- ``manage.py loadcontent`` calls :func:`bump_content_version`, which moves every key at once,
  and so does a question written, published or imported in the browser (quizzes'
  ``bank_changed``, sent when its transaction commits: note pages end with questions of the
  bank): nothing stale is served after a content change, on any server (each process re-reads the
  version at most every ``settings.PAGE_CACHE_VERSION_SECONDS`` and keeps its hottest pages in
  its own memory, so a cached page costs no round trip to Redis).

The middleware is the outermost one: a hit is answered before the rest of the stack runs and
before the URL is resolved, with every header the whole stack gave the page when it was stored,
so it is byte for byte the response a rendering would give (tests/test_pagecache.py compares
them). The key decides the language as LocaleMiddleware does, and a page is stored only when the
language LocaleMiddleware chose is the key's.

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
from contextlib import suppress

from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.core.cache import caches
from django.http import HttpResponse, HttpResponseNotModified
from django.middleware.csrf import InvalidTokenFormat, _check_token_format
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import http_date, parse_etags

from core import i18n

VERSION_KEY = "loopcraft:content-version"


def _cache():
    return caches[settings.PAGE_CACHE_ALIAS]


# Each process remembers the version for settings.PAGE_CACHE_VERSION_SECONDS and keeps the pages
# it served last in its own memory (keyed by version too), so a cached page costs no round trip
# to Redis: a content reload reaches every server within that many seconds.
_local_version: list = [0.0, ""]  # [valid until (monotonic), version]
_local_pages: OrderedDict[tuple, tuple] = OrderedDict()
LOCAL_PAGES_MAX = 256
SHARED_MAX = 10_000


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


def _remember(key: tuple, page: tuple) -> None:
    _local_pages[key] = page
    while len(_local_pages) > LOCAL_PAGES_MAX:
        try:
            _local_pages.popitem(last=False)
        except KeyError:  # another thread emptied it
            break


def _new_version() -> str:
    return f"{int(time.time())}.{secrets.token_hex(4)}"


def is_cacheable_request(request) -> bool:
    """May this request be answered from, and its answer stored in, the shared cache? A GET or
    HEAD with no session, no pending message and nothing the inner middleware would answer
    differently for (a CSRF cookie it would replace, a user agent it would refuse)."""
    if request.method not in ("GET", "HEAD"):
        return False
    if "HTTP_COOKIE" in request.META:
        cookies = request.COOKIES
        if settings.SESSION_COOKIE_NAME in cookies or "messages" in cookies:
            return False
        token = cookies.get(settings.CSRF_COOKIE_NAME)
        if token is not None:  # CsrfViewMiddleware sets a new cookie for a malformed one
            try:
                _check_token_format(token)
            except InvalidTokenFormat:
                return False
    return not settings.DISALLOWED_USER_AGENTS and not settings.CSRF_USE_SESSIONS


def _language(request) -> str:
    """The language LocaleMiddleware will activate for this request (its own steps)."""
    urlconf = getattr(request, "urlconf", settings.ROOT_URLCONF)
    used, prefixed_default = is_language_prefix_patterns_used(urlconf)
    from_path = i18n.language_from_path(request.path_info)
    if from_path:
        return from_path
    if used and not prefixed_default:
        return settings.LANGUAGE_CODE
    return translation.get_language_from_request(request, check_path=used)


def _variant(request) -> tuple[str, ...]:
    """The local key: scheme, host, path, query, language and what htmx asks for (the
    fragment, or the whole page to restore its history). A tuple: no value's characters can
    make two requests' keys one."""
    meta = request.META
    htmx = "f"
    if meta.get("HTTP_HX_REQUEST") == "true":
        htmx = "r" if meta.get("HTTP_HX_HISTORY_RESTORE_REQUEST") == "true" else "h"
    host = meta.get("HTTP_HOST", "")
    if settings.USE_X_FORWARDED_HOST:
        host = f"{meta.get('HTTP_X_FORWARDED_HOST', '')}>{host}"
    query = meta.get("QUERY_STRING", "")
    scheme = "https" if request.is_secure() else "http"
    return (scheme, host, request.path, query, _language(request), htmx)


def _shared_key(variant: tuple[str, ...], version: str) -> tuple[str, str]:
    digest = hashlib.md5(repr(variant).encode(), usedforsecurity=False).hexdigest()
    etag = f'"{version}-{digest[:12]}"'
    return f"page2:{settings.CONTENT_DIR}:{version}:{digest}", etag


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
    """Serves and stores the pages named in settings.PAGE_CACHE_VIEWS (see the module doc).

    The outermost middleware: a cached page is answered before the rest of the stack runs and
    before its URL is resolved, with the headers the whole stack gave it when it was stored
    (security headers, CSP, Content-Language, Vary, Cache-Control, ETag, Last-Modified), so a
    hit costs about what ``/healthz`` does and is byte for byte the page the stack would give.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.views = frozenset(settings.PAGE_CACHE_VIEWS)
        self.enabled = settings.PAGE_CACHE_SECONDS > 0
        # Per path, whether it resolves to a shared view: resolved once per process, as the
        # stack would resolve it, so /healthz and a cacheable request for a page of one's own
        # never look in the cache (nor read the content version) and a cached page's hit
        # resolves nothing.
        self.shared: dict[str, bool] = {}
        self.static = settings.STATIC_URL if settings.STATIC_URL.startswith("/") else "/static/"

    def __call__(self, request):
        if not self.enabled:
            return self.get_response(request)
        state = None
        # The request first (a method and a cookie): a POST or a signed-in visitor's path is
        # never resolved here (ids in paths: each would be resolved twice, here and below).
        if is_cacheable_request(request) and self._shared_path(request):
            version = content_version()
            variant = _variant(request)
            local = (version, variant)
            page = _local_pages.get(local)
            if page is None:
                key, etag = _shared_key(variant, version)
                page = _cache().get(key)
                if page is None:
                    state = (local, key, etag, version)
                else:
                    _remember(local, page)
            if page is not None:
                return _serve(request, page)
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        if match is None or match.view_name not in self.views:
            return response
        if state is None or not self._storable(request, response, state[0][1]):
            patch_cache_control(response, private=True)
            return response
        local, key, etag, version = state
        public = _public(etag, version)
        patch_vary_headers(response, [v.strip() for v in public.pop("Vary").split(",")])
        for name, value in public.items():
            response.headers[name] = value
        page = (response.content, tuple(response.headers.items()), etag)
        _cache().set(key, page, settings.PAGE_CACHE_SECONDS)
        _remember(local, page)
        response.headers["X-Page-Cache"] = "miss"
        return response

    def _shared_path(self, request) -> bool:
        path = request.path_info
        shared = self.shared.get(path)
        if shared is None:
            shared = False
            if not request.path.startswith(self.static):
                # What LocaleMiddleware and the handler would do: the language, then resolve().
                with translation.override(_language(request)), suppress(Resolver404):
                    shared = resolve(path).view_name in self.views
            if len(self.shared) >= SHARED_MAX:  # ids in paths: start again
                self.shared.clear()
            self.shared[path] = shared
        return shared

    @staticmethod
    def _storable(request, response, variant: tuple[str, ...]) -> bool:
        if response.status_code != 200 or response.streaming or response.cookies:
            return False
        # The key named the language LocaleMiddleware was to choose: it must be the one it chose.
        if variant[4] != getattr(request, "LANGUAGE_CODE", None):
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


def _serve(request, page: tuple[bytes, tuple[tuple[str, str], ...], str]) -> HttpResponse:
    """The stored page (or 304 to a revalidation), with every header it was stored with."""
    content, headers, etag = page
    if etag in parse_etags(request.META.get("HTTP_IF_NONE_MATCH", "")):
        response: HttpResponse = HttpResponseNotModified()
        for name, value in headers:
            if name not in ("Content-Type", "Content-Length"):  # RFC 9110 15.4.5
                response.headers[name] = value
        return response
    response = HttpResponse(content)
    for name, value in headers:
        response.headers[name] = value
    response.headers["X-Page-Cache"] = "hit"
    return response
