"""Requests too big for Django's limits come back to their form with a message in words; the
Content-Security-Policy header built once per policy."""

from __future__ import annotations

import csp.middleware as _csp
from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.utils import build_policy
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpResponse, HttpResponseRedirect
from django.utils.translation import gettext


class RequestTooBigMiddleware:
    """A POST over Django's limits (DATA_UPLOAD_MAX_MEMORY_SIZE, the field and file counts)
    comes back to the form it was sent from, with a message in words, instead of a bare 400.

    It reads ``request.POST`` before the CSRF middleware would (that is where the limit trips),
    so it sits just before CsrfViewMiddleware. Nothing of the refused body was parsed, so the
    form comes back empty; the message says what to do instead.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view, args, kwargs):
        if request.method != "POST":
            return None
        try:
            request.POST  # noqa: B018 - parsing is the check
        except RequestDataTooBig:
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024 / 1024
            text = gettext(
                "What you sent is larger than %(limit).0f MB, the limit for text typed or "
                "pasted into a form, so nothing was read. Upload it as a file instead where "
                "the form takes one, or send less."
            ) % {"limit": limit}
        except (TooManyFieldsSent, TooManyFilesSent):
            text = gettext(
                "That form sent more fields or files than any of our forms has, "
                "so nothing was read."
            )
        else:
            return None
        messages.error(request, text)
        url = request.get_full_path()
        if request.headers.get("HX-Request"):
            response = HttpResponse(status=413)
            response["HX-Redirect"] = url
            return response
        return HttpResponseRedirect(url, status=303)


class CSPMiddleware(_csp.CSPMiddleware):
    """django-csp's middleware, with the header built once per policy instead of twice per
    response: upstream turns the settings into the header string (``asdict`` of the policy
    parts, then ``build_policy`` for the policy and for the report-only one) on every response,
    ≈300 Python calls, a quarter of what ``/healthz`` costs. A response or request that asks
    for its own policy (a ``@csp_update``/``@csp_replace``/``@csp`` decorator, a nonce) takes
    upstream's path unchanged."""

    _built: dict[bool, tuple[object, str]] = {}

    def _policy(self, report_only: bool) -> str:
        source = _setting(report_only)  # a new object when a test overrides it
        kept = self._built.get(report_only)
        if kept is None or kept[0] is not source:
            kept = (source, build_policy(report_only=report_only))
            self._built[report_only] = kept
        return kept[1]

    def process_response(self, request, response):
        own = any(getattr(response, f"_csp_{part}", None) is not None for part in _PARTS)
        if own or getattr(request, "_csp_nonce", None) is not None:
            return super().process_response(request, response)
        if response.status_code in (500, 404) and settings.DEBUG:
            return response
        for report_only, header, exempt in (
            (False, HEADER, "_csp_exempt"),
            (True, HEADER_REPORT_ONLY, "_csp_exempt_ro"),
        ):
            csp = self._policy(report_only)
            if not csp or getattr(response, exempt, False) is not False or header in response:
                continue
            prefixes = (_setting(report_only) or {}).get("EXCLUDE_URL_PREFIXES") or ()
            if not request.path_info.startswith(tuple(prefixes)):
                response[header] = csp
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)
        return response


def _setting(report_only: bool):
    if report_only:
        return settings.CONTENT_SECURITY_POLICY_REPORT_ONLY
    return settings.CONTENT_SECURITY_POLICY


_PARTS = ("config", "update", "replace", "config_ro", "update_ro", "replace_ro")
