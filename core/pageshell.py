"""A signed-in page rendered once per process and shape, with each request's values put in.

The exam and practice question pages are the same page for every learner but for a handful of
values: the attempt's numbers and URLs, the saved answer's inputs, the timer, the navigator, the
visitor's name and CSRF token, this page's address in each language. Through the template engine
the page (base.html and its header included) was about half of a request's work. ``render`` asks
the engine for it once per template, language, script prefix and *shape* (which branches the
template takes), with random stand-ins where the values go, keeps that, and fills in each
request's values, escaped as the template would have, on the way out.

What is kept holds nothing of any visitor or attempt: every value that comes from the request,
the user or the data is a stand-in (a hole), and the page's own context holds only the shape.
Each hole's truthiness (and a falsy value itself) is part of the shape, so ``{% if error %}``
still picks its branch; a template used this way must do nothing else with a hole (no filters,
no comparisons, no attribute reads): ``tests/test_pageshell.py`` renders each page both ways, in
many states, and compares them byte for byte. A page with messages to show (they are consumed by
rendering) is rendered the ordinary way, and so is everything under ``DEBUG`` (templates edited
in place) and under ``/author/`` (its sub-navigation asks who the visitor is).
"""

from __future__ import annotations

import html
import re
import secrets
import sys
from collections import OrderedDict
from threading import Lock

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render as django_render
from django.template import engines
from django.template.defaultfilters import urlencode
from django.template.loader import get_template
from django.urls import get_script_prefix, get_urlconf
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

#: Off: every page through the template engine as before (tests compare the two).
enabled = True

#: Shells kept per process: templates × languages × shapes (a few dozen in practice).
MAX_KEPT = 1024

_HOLE = "lc" + secrets.token_hex(8)
#: A kept page as its text split at the stand-ins: literal, stand-in, literal, … (odd: stand-ins).
#: Every stand-in: the prefix, letters, digits or "_", and a "-" that no name contains.
_STAND_IN = re.compile(re.escape(_HOLE) + r"[A-Za-z0-9_]+-")
_kept: OrderedDict[tuple, tuple[str, ...]] = OrderedDict()
_lock = Lock()

# The request's own values in base.html and its header (studyapp/templatetags/chrome.py).
NAME, CSRF, PATH, FULL_PATH, SCHEME, HOST, TAIL = (
    f"{_HOLE}{part}-" for part in ("name", "csrf", "path", "fullpath", "scheme", "host", "tail")
)


def hole(name: str) -> str:
    """The stand-in rendered where the value called ``name`` goes."""
    return f"{_HOLE}v{name}-"


def _link_hole(i: int, part: str) -> str:
    return f"{_HOLE}l{i}{part}-"


class _Request:
    """What a kept page may read of the request: stand-ins, and GET (the shape says which)."""

    method = "GET"
    POST: dict = {}
    GET: dict = {}
    path = PATH
    scheme = SCHEME

    def __init__(self, htmx: bool = False) -> None:
        self.htmx = htmx

    def get_full_path(self) -> str:
        return FULL_PATH

    def get_host(self) -> str:
        return HOST


class _User:
    def __init__(self, signed_in: bool) -> None:
        self.is_authenticated = signed_in
        self.is_anonymous = not signed_in

    def get_username(self) -> str:
        return NAME


def _truthiness(values: dict) -> tuple:
    """Which values are printed from a stand-in (the truthy ones) and what the others are (a
    falsy value is rendered as it is: ``""`` and ``0`` print differently)."""
    return tuple((name, True if values[name] else repr(values[name])) for name in sorted(values))


def _frozen(value):
    return tuple(sorted(value.items())) if isinstance(value, dict) else value


def _shape_key(template_name: str, shape: dict, values: dict) -> tuple:
    """What picks a kept rendering, for pages and fragments alike: the template, the language,
    the script prefix and URL conf, the shape, and which values are truthy."""
    return (
        template_name,
        get_language(),
        get_script_prefix(),
        get_urlconf(),
        tuple((k, _frozen(v)) for k, v in sorted(shape.items())),
        _truthiness(values),
    )


def _escape(text: str) -> str:
    """django.utils.html.escape's characters and entities, without its lazy-string wrapper."""
    return html.escape(text)


def _fill_value(value) -> str:
    """A value as ``{{ value }}`` prints it: safe strings as they are, whole numbers as digits,
    the rest escaped."""
    if isinstance(value, SafeString):
        return value
    if type(value) is int:
        return str(value)
    return conditional_escape(value) if hasattr(value, "__html__") else html.escape(str(value))


def render(
    request: HttpRequest,
    template_name: str,
    context: dict,
    *,
    shape: dict,
    values: dict,
    status: int = 200,
) -> HttpResponse:
    """``django.shortcuts.render(request, template_name, {**context, **shape, **values})``,
    from a kept shell when it can be.

    ``shape``: what picks the template's branches (booleans, a few words), part of the key;
    ``values``: what the page prints, put in per request (a ``SafeString`` as it is, anything
    else escaped); ``context``: what only the ordinary rendering reads (kept out of the shell, so
    a page that falls back still has it, and tests still see it in ``response.context``).
    """
    if not enabled or settings.DEBUG or get_messages(request):
        return django_render(request, template_name, {**context, **shape, **values}, status=status)
    user = request.user
    signed_in = bool(user.is_authenticated)
    processed: dict = {}
    for processor in engines["django"].engine.template_context_processors:
        processed.update(processor(request))
    links = processed.get("language_links") or []
    page_path = processed.get("page_path") or ""
    section = page_path[: page_path.find("/", 1) + 1] if page_path.count("/") > 1 else page_path
    if section[:8] == "/author/":  # the instructor's sub-navigation asks who this is
        return django_render(request, template_name, {**context, **shape, **values}, status=status)
    links_shape = tuple(
        (link["code"], link["tag"], link["name"], link["prefix"], link["current"]) for link in links
    )
    key = (
        *_shape_key(template_name, shape, values),
        signed_in,
        links_shape,
        processed.get("language_prefixes"),
        section,
        bool(getattr(request, "htmx", False)),
    )
    _announce(template_name, context, shape, values)  # before the stand-ins' rendering
    parts = _kept.get(key)
    if parts is None:
        stand_ins = {
            **processed,
            "request": _Request(bool(getattr(request, "htmx", False))),
            "user": _User(signed_in),
            "perms": None,
            "messages": [],
            "csrf_token": CSRF,
            "user_is_instructor": False,
            "language_links": [
                {**link, "url": _link_hole(i, "url"), "path": _link_hole(i, "path")}
                for i, link in enumerate(links)
            ],
            "page_in_english": _link_hole(0, "english"),
            "page_path": section + TAIL,
            **shape,
            **{name: hole(name) if value else value for name, value in values.items()},
        }
        parts = _keep(key, get_template(template_name).render(stand_ins))
    csrf = context.get("csrf_token") or processed.get("csrf_token") or ""
    fills = [
        (NAME, _escape(user.get_username()) if signed_in else ""),
        (CSRF, str(csrf)),
        # Its one reader is the header's log-in link (?next=…), which url-encodes it.
        (FULL_PATH, _escape(urlencode(request.get_full_path()))),
        (PATH, _escape(request.path)),
        (SCHEME, _escape(request.scheme)),
        (HOST, _escape(request.get_host())),
        (TAIL, _escape(page_path[len(section) :])),
        (_link_hole(0, "english"), _escape(processed.get("page_in_english", ""))),
    ]
    for i, link in enumerate(links):
        fills.append((_link_hole(i, "url"), _escape(link["url"])))
        fills.append((_link_hole(i, "path"), _escape(link["path"])))
    fills += [(hole(name), _fill_value(value)) for name, value in values.items() if value]
    return HttpResponse(_filled(parts, dict(fills)), status=status)


def fragment(template_name: str, *, shape: dict, values: dict, csrf_token: str = "") -> SafeString:
    """A part of a page (a partial: ``"page.html#part"``) kept like :func:`render`'s pages, for
    the same reason and by the same rules; it may use ``{% csrf_token %}`` (``csrf_token``, this
    response's) and nothing else of the request. Under ``DEBUG`` or switched off it is simply
    the template's rendering with the values."""
    if not enabled or settings.DEBUG:
        context = {**shape, **values, "csrf_token": csrf_token}
        return get_template(template_name).render(context)
    key = ("fragment", *_shape_key(template_name, shape, values))
    parts = _kept.get(key)
    if parts is None:
        stand_ins = {
            "request": _Request(),
            "csrf_token": CSRF,
            **shape,
            **{name: hole(name) if value else value for name, value in values.items()},
        }
        parts = _keep(key, get_template(template_name).render(stand_ins))
    fills = [(CSRF, str(csrf_token))]
    fills += [(hole(name), _fill_value(value)) for name, value in values.items() if value]
    return mark_safe(_filled(parts, dict(fills)))  # noqa: S308 - our template, autoescaped; the values escaped


def _keep(key: tuple, html_text: str) -> tuple[str, ...]:
    """Keep a rendered page split at its stand-ins (filling it is then one join)."""
    parts = _split(html_text)
    with _lock:
        _kept[key] = parts
        _kept.move_to_end(key)
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return parts


def _split(html_text: str) -> tuple[str, ...]:
    parts: list[str] = []
    at = 0
    for found in _STAND_IN.finditer(html_text):
        parts += [html_text[at : found.start()], found.group(0)]
        at = found.end()
    parts.append(html_text[at:])
    return tuple(parts)


def _filled(parts: tuple[str, ...], fills: dict[str, str]) -> str:
    """The kept page with each stand-in replaced by this request's value (an unknown one is
    left as it is: tests look for any)."""
    return "".join([fills.get(p, p) if i & 1 else p for i, p in enumerate(parts)])


def _announce(template_name: str, *contexts: dict) -> None:
    """Under the test client, tell it which template and context made the page, as a rendering
    would (``response.context``); nothing listens otherwise."""
    signals = sys.modules.get("django.test.signals")
    if signals is not None and signals.template_rendered.receivers:
        context = {k: v for c in contexts for k, v in c.items()}
        template = get_template(template_name)
        signals.template_rendered.send(sender=None, template=template, context=context)


def kept_shells() -> list[str]:
    """Every shell this process keeps (tests look inside)."""
    return ["".join(parts) for parts in _kept.values()]


def clear() -> None:
    with _lock:
        _kept.clear()
