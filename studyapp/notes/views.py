from django.http import Http404
from django.shortcuts import render

from studyapp import today

from .loader import glossary, library


def note_index(request):
    notes = library().notes().values()
    return render(request, "notes/index.html", {"notes": notes})


def changes(request):
    """What changed since the exam guide: every CHANGES entry, generated from the catalogue."""
    rows = [today.change_context(cid) for cid in today.known_ids()]
    return render(request, "notes/changes.html", {"changes": rows})


def note_detail(request, slug: str):
    note = library().get(slug)
    if note is None:
        raise Http404("No note with that name")
    return render(request, "notes/detail.html", {"note": note})


def glossary_page(request):
    terms = glossary()
    letters = sorted({t.term.lstrip("_")[0].upper() for t in terms})
    return render(request, "notes/glossary.html", {"terms": terms, "letters": letters})
