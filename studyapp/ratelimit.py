"""A small cache-based rate limiter for the expensive or guessable POSTs (log-in, upload, live).

Configured in settings.RATE_LIMITS, one bucket per group of URL names:

    RATE_LIMITS = {"login": {"views": ["login", "signup"], "rate": (10, 300), "what": "..."}}

A view name may end in ``*`` to cover names that share a prefix ("sandbox:live*"). Each client
(the signed-in user, else the address in settings.RATELIMIT_IP_META) gets ``rate[0]`` requests
per fixed window of ``rate[1]`` seconds; the next one gets a 429 page that says when to retry.
The counts live in the cache named by settings.RATELIMIT_CACHE: with several app servers, point
it at a shared cache (see docs/DEPLOY.md), or each process counts on its own.
"""

from __future__ import annotations

import fnmatch
import time

from django.conf import settings
from django.core.cache import caches
from django.shortcuts import render
from django.utils.translation import gettext, gettext_noop

#: The words settings.RATE_LIMITS uses for what was limited, marked for translation here so that
#: settings.py stays plain; the 429 page shows them through gettext.
WHAT_WORDS = (
    gettext_noop("log-in attempts"),
    gettext_noop("uploads"),
    gettext_noop("live runs"),
    gettext_noop("live steps"),
    gettext_noop("problem reports"),
    gettext_noop("requests"),
)


def client_key(request) -> str:
    if request.user.is_authenticated:
        return f"u{request.user.pk}"
    meta = settings.RATELIMIT_IP_META
    # A proxy's X-Forwarded-For ends with the address it saw: the only part it vouches for.
    address = request.META.get(meta, "").split(",")[-1].strip()
    return f"ip{address or request.META.get('REMOTE_ADDR', '')}"


def hit(group: str, key: str, limit: int, period: int, now: float | None = None) -> int:
    """Count one request; return 0 if it is allowed, else the seconds until the window ends."""
    now = time.time() if now is None else now
    window = int(now // period)
    cache = caches[settings.RATELIMIT_CACHE]
    name = f"ratelimit:{group}:{key}:{window}"
    cache.add(name, 0, timeout=period + 1)
    try:
        count = cache.incr(name)
    except ValueError:  # expired between add and incr
        cache.set(name, 1, timeout=period + 1)
        count = 1
    if count <= limit:
        return 0
    return max(1, int((window + 1) * period - now))


class RateLimitMiddleware:
    """Limits the configured methods of the views named in settings.RATE_LIMITS."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.enabled = settings.RATELIMIT_ENABLED
        self.methods = set(settings.RATELIMIT_METHODS)
        self.groups = settings.RATE_LIMITS

    def __call__(self, request):
        return self.get_response(request)

    def group_for(self, view_name: str) -> str | None:
        for group, rule in self.groups.items():
            if any(fnmatch.fnmatchcase(view_name, pattern) for pattern in rule["views"]):
                return group
        return None

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not self.enabled or request.method not in self.methods:
            return None
        match = request.resolver_match
        group = self.group_for(match.view_name if match else "")
        if group is None:
            return None
        limit, period = self.groups[group]["rate"]
        wait = hit(group, client_key(request), limit, period)
        if not wait:
            return None
        response = render(
            request,
            "429.html",
            {"retry_after": wait, "what": gettext(self.groups[group].get("what", "requests"))},
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response
