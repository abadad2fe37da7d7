"""Requests too big for Django's limits come back to their form with a message in words."""

from __future__ import annotations

from django.conf import settings
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
