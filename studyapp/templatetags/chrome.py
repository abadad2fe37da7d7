"""The site's header and hreflang links, rendered once per process and kind of page.

Every page renders the same header: the section links (one marked current), the visitor's name
and log-out form or a log-in link, and the language switcher; and, in <head>, the same page's
address in each language. Through the template engine that was a third of a signed-in page's
work. Here each is rendered once per language, script prefix, current section and kind of
visitor (signed in or not, on the log-in page or not), with random stand-ins where each request
has its own value (the name, the CSRF token, the "next" path, the scheme and host, each
language's link), and those are filled in, escaped, on the way out.

What is kept holds nothing of any one visitor: the stand-ins stand for every value that comes
from the request or the user.
"""

from __future__ import annotations

import secrets
from threading import Lock

from django import template
from django.core.exceptions import DisallowedHost
from django.template.defaultfilters import urlencode
from django.template.loader import get_template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

register = template.Library()

_HOLE = "lc" + secrets.token_hex(8)
NAME, CSRF, NEXT, SCHEME, HOST = (
    f"{_HOLE}{part}" for part in ("name", "csrf", "next", "scheme", "host")
)
_kept: dict[tuple, str] = {}
_lock = Lock()
MAX_KEPT = 512  # a few dozen in practice: languages × sections × kinds of visitor


def _url(i: int) -> str:
    return f"{_HOLE}url{i}x"


def _path(i: int) -> str:
    return f"{_HOLE}path{i}x"


def _kept_or_render(key: tuple, name: str, context: dict, strip: bool = False) -> str:
    html = _kept.get(key)
    if html is None:
        html = get_template(name).render(context)
        html = html.strip() if strip else html
        with _lock:
            if len(_kept) >= MAX_KEPT:
                _kept.clear()
            _kept[key] = html
    return html


def _links(context) -> tuple[list[dict], tuple]:
    """The language links with stand-ins for their addresses, and what the rest depends on."""
    links = context.get("language_links") or []
    shape = tuple(
        (link["code"], link["tag"], link["name"], link["prefix"], link["current"]) for link in links
    )
    stand_ins = [{**link, "url": _url(i), "path": _path(i)} for i, link in enumerate(links)]
    return stand_ins, shape


def _current(context) -> dict[str, bool]:
    """Which section link is marked current (the conditions base.html had)."""
    urls = context.get("site_urls") or {}
    page = context.get("page_path") or ""
    request = context.get("request")
    path = request.path if request is not None else ""
    return {
        "notes": page[:7] == "/notes/" and path != urls.get("changes") or page == "/glossary/",
        "changes": path == urls.get("changes"),
        "practice": page[:10] == "/practice/" or page == "/traps/",
        "exam": page[:6] == "/exam/",
        "sandbox": page[:9] == "/sandbox/",
        "author": page[:8] == "/author/",
        "progress": path == urls.get("progress") or page[:8] == "/review/",
    }


class _User:
    """What the kept header may read of the user: a stand-in name."""

    def __init__(self, signed_in: bool) -> None:
        self.is_authenticated = signed_in

    def get_username(self) -> str:
        return NAME


@register.simple_tag(takes_context=True)
def site_header(context) -> SafeString:
    request = context.get("request")
    urls = context.get("site_urls") or {}
    user = context.get("user")
    signed_in = bool(user is not None and user.is_authenticated)
    on_login = request is not None and request.path == urls.get("login")
    current = _current(context)
    links, shape = _links(context)
    key = ("header", get_language(), tuple(sorted(urls.items())), tuple(current.values()),
           signed_in, on_login, shape, context.get("language_prefixes"))  # fmt: skip
    html = _kept_or_render(
        key,
        "_site_header.html",
        {
            "site_urls": urls,
            "current": current,
            "user": _User(signed_in),
            "csrf_token": CSRF,
            "on_login_page": on_login,
            "login_next": NEXT,
            "language_links": links,
            "language_prefixes": context.get("language_prefixes"),
        },
        strip=True,
    )
    if signed_in:
        html = html.replace(NAME, escape(user.get_username()))
        if CSRF in html:
            html = html.replace(CSRF, str(context.get("csrf_token")))
    elif NEXT in html:
        path = request.get_full_path() if request is not None else ""  # rendered without one
        html = html.replace(NEXT, escape(urlencode(path)))
    for i, link in enumerate(context.get("language_links") or []):
        html = html.replace(_url(i), escape(link["url"]))
    return mark_safe(html)  # noqa: S308 - our template, autoescaped; the values are escaped


class _Request:
    scheme = SCHEME

    def get_host(self) -> str:
        return HOST


@register.simple_tag(takes_context=True)
def site_hreflang(context) -> SafeString:
    request = context.get("request")
    links, shape = _links(context)
    key = ("hreflang", get_language(), shape)
    html = _kept_or_render(key, "_hreflang.html", {"language_links": links, "request": _Request()})
    try:
        scheme, host = (request.scheme, request.get_host()) if request is not None else ("", "")
    except DisallowedHost:
        # The 400 page for a request whose Host is not ours: it has no address to offer in
        # other languages (asking again would raise inside the error page: a 500).
        return mark_safe("")  # noqa: S308 - empty
    html = html.replace(SCHEME, escape(scheme)).replace(HOST, escape(host))
    for i, link in enumerate(context.get("language_links") or []):
        html = html.replace(_path(i), escape(link["path"]))
    return mark_safe(html)  # noqa: S308 - our template, autoescaped; the values are escaped


def kept_html() -> list[str]:
    """Every header and hreflang block this process keeps (tests look inside)."""
    return list(_kept.values())
