from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core import today
from core.owners import get_owner
from quizzes.models import Question
from quizzes.schema import SUBTOPIC_LABELS

from . import checks, progress, search
from .loader import glossary, library


def note_index(request):
    notes = library().notes().values()
    read = progress.read_slugs(get_owner(request, create=False))
    return render(
        request,
        "notes/index.html",
        {"notes": notes, "read": read, "read_count": sum(1 for n in notes if n.slug in read)},
    )


def changes(request):
    """What changed since the exam guide: every CHANGES entry, generated from the catalogue."""
    rows = [today.change_context(cid) for cid in today.known_ids()]
    return render(request, "notes/changes.html", {"changes": rows})


def _note(slug: str):
    note = library().get(slug)
    if note is None:
        raise Http404("No note with that name")
    return note


def _detail(request, note, *, answered=None, status=200):
    """The note page; ``answered`` is (question, POST data) when a check was answered."""
    questions = checks.questions_for(note)
    items = []
    for i, q in enumerate(questions, start=1):
        post = answered[1] if answered and answered[0].pk == q.pk else None
        items.append(checks.item(note, q, i, post=post))
    owner = get_owner(request, create=False)
    ctx = {
        "note": note,
        "checks": items,
        "check_subtopic": note.subtopics[0] if note.subtopics else "",
        "check_label": SUBTOPIC_LABELS.get(note.subtopics[0], "") if note.subtopics else "",
        "is_read": note.slug in progress.read_slugs(owner),
    }
    return render(request, "notes/detail.html", ctx, status=status)


def note_detail(request, slug: str):
    return _detail(request, _note(slug))


@require_POST
def check_answer(request, slug: str, question: str):
    """Grade one check-yourself answer: the item alone for htmx, the whole note without JS."""
    note = _note(slug)
    q = get_object_or_404(
        Question.objects.published().filter(kind__in=checks.INLINE_KINDS)
        .prefetch_related("options"),
        slug=question,
    )  # fmt: skip
    if request.htmx:
        position = next(
            (i for i, c in enumerate(checks.questions_for(note), start=1) if c.pk == q.pk), 1
        )
        ctx = checks.item(note, q, position, post=request.POST)
        ctx["note"] = note
        ctx["subtopic_labels"] = SUBTOPIC_LABELS
        # 200 even for a missing answer: htmx swaps only 2xx responses, and the message must show.
        return render(request, "notes/_check_item.html", ctx)
    return _detail(request, note, answered=(q, request.POST))


@require_POST
def mark_read(request, slug: str):
    note = _note(slug)
    owner = get_owner(request)
    read = request.POST.get("read", "1") != "0"
    progress.set_read(owner, note.slug, read)
    if request.htmx:
        return render(request, "notes/_read_button.html", {"note": note, "is_read": read})
    return redirect(f"/notes/{note.slug}/#read-status")


@require_http_methods(["GET"])
def search_page(request):
    query = request.GET.get("q", "").strip()
    error = ""
    if len(query) > search.MAX_QUERY:
        error = f"Searches are limited to {search.MAX_QUERY} characters; the rest was ignored."
    hits = search.search(query) if query else []
    return render(
        request,
        "notes/search.html",
        {"query": query[: search.MAX_QUERY], "hits": hits, "error": error,
         "engine": search.engine()},
    )  # fmt: skip


def cheat_sheet(request):
    from . import cheatsheet

    return render(request, "notes/cheat_sheet.html", cheatsheet.context())


def exam_blueprint(request):
    return render(request, "notes/blueprint.html", {"notes": library().notes().values()})


def glossary_page(request):
    terms = glossary()
    letters = sorted({t.term.lstrip("_")[0].upper() for t in terms})
    return render(request, "notes/glossary.html", {"terms": terms, "letters": letters})
