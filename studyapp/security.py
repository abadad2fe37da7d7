"""A Content-Security-Policy header on every response (Django 5.2 has none built in)."""

from __future__ import annotations

from django.conf import settings

#: Only our own files may run or style the page: no inline script, no eval, no plug-ins, no
#: framing. htmx is served from /static/ by django-htmx, and base.html's htmx-config meta tag
#: stops it injecting its indicator <style> and using eval, so the policy costs it nothing.
DEFAULT_POLICY: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def build_policy(policy: dict[str, list[str]]) -> str:
    """The header value: directives in the given order, separated by semicolons."""
    return "; ".join(" ".join([name, *sources]) for name, sources in policy.items())


class ContentSecurityPolicyMiddleware:
    """Adds the policy in settings.CONTENT_SECURITY_POLICY unless a view set its own."""

    def __init__(self, get_response):
        self.get_response = get_response
        policy = getattr(settings, "CONTENT_SECURITY_POLICY", DEFAULT_POLICY)
        self.header = build_policy(policy) if policy else ""

    def __call__(self, request):
        response = self.get_response(request)
        if self.header:
            response.headers.setdefault("Content-Security-Policy", self.header)
        return response


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
        from django.contrib import messages
        from django.core.exceptions import (
            RequestDataTooBig,
            TooManyFieldsSent,
            TooManyFilesSent,
        )
        from django.http import HttpResponse, HttpResponseRedirect

        if request.method != "POST":
            return None
        try:
            request.POST  # noqa: B018 - parsing is the check
        except RequestDataTooBig:
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024 / 1024
            text = (
                f"What you sent is larger than {limit:.0f} MB, the limit for text typed or "
                "pasted into a form, so nothing was read. Upload it as a file instead where "
                "the form takes one, or send less."
            )
        except (TooManyFieldsSent, TooManyFilesSent):
            text = (
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
