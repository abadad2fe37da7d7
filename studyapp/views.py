from django.http import HttpResponse
from django.shortcuts import render

from studyapp.agentloop import catalogue
from studyapp.notes.loader import library


def healthz(request):
    """Plain 200 for load balancers, and the baseline that benchmarks compare pages against."""
    return HttpResponse("ok", content_type="text/plain")


def home(request):
    return render(
        request,
        "home.html",
        {"reasons": catalogue.STOP_REASONS.values(), "note_count": len(library().notes())},
    )
