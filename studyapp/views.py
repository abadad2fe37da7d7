from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from studyapp.agentloop import catalogue
from studyapp.notes.loader import notes_in


def healthz(request):
    """Plain 200 for load balancers, and the baseline that benchmarks compare pages against."""
    return HttpResponse("ok", content_type="text/plain")


def home(request):
    return render(
        request,
        "home.html",
        {"reasons": catalogue.STOP_REASONS.values(), "note_count": len(notes_in())},
    )


@never_cache
def csrf(request):
    """Sets the CSRF cookie for a page that has none yet (htmx asks before its first POST)."""
    get_token(request)
    return HttpResponse(status=204)
