import datetime as dt

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from core import i18n, today, urlcache
from core.owners import get_owner
from quizzes import translations
from quizzes.schema import SUBTOPIC_LABELS
from studyapp.agentloop import models

from . import checks, progress, search
from .loader import glossary, note_in, notes_in


def note_index(request):
    """The shared list (cached for anonymous readers): each visitor's read marks come from
    :func:`reading`, loaded into it by htmx, or opened as a page of its own without JavaScript."""
    return render(request, "notes/index.html", {"notes": notes_in().values()})


@never_cache
@vary_on_headers("HX-Request")
@require_safe
def reading(request):
    """Which notes this visitor has read: for htmx, the count with an out-of-band "Read" badge
    per read note for the index; without JavaScript, the index with the marks in place."""
    notes = list(notes_in().values())
    read = progress.read_slugs(get_owner(request, create=False))
    ctx = {"notes": notes, "read": read, "read_count": sum(1 for n in notes if n.slug in read)}
    if request.htmx:
        return render(request, "notes/_reading.html", ctx)
    return render(request, "notes/index.html", {**ctx, "personal": True})


def changes(request):
    """What changed since the exam guide: every CHANGES entry, generated from the catalogue."""
    return render(request, "notes/changes.html", {"body": _changes_body()})


#: /notes/changes/'s sections by what they are made of; the catalogue's entries are kept with
#: them (so their ids, in the key, stay theirs while it is kept).
_changes: dict[tuple, tuple] = {}
_CHANGES_MAX = 64


def _changes_body() -> str:
    """The sections of /notes/changes/ (notes/_changes_body.html), rendered once per language,
    URLconf and script prefix (``urlcache.where``), day (a model's status is the day's) and set
    of catalogue entries (CHANGES and the models: an entry replaced is a new key), instead of
    on every request: a thousand gettext calls and as many template variables a page. Forgotten
    when a setting changes (translations, formats, URLs)."""
    entries = tuple(models.CHANGES.values())
    rules = tuple(models.all_models())
    key = (*urlcache.where(), dt.date.today(), *map(id, entries), None, *map(id, rules))
    kept = _changes.get(key)
    if kept is None:
        rows = [today.change_context(cid) for cid in today.known_ids()]
        html = render_to_string("notes/_changes_body.html", {"changes": rows})
        if len(_changes) >= _CHANGES_MAX:
            _changes.clear()
        kept = _changes[key] = (entries, rules, html)
    return kept[2]


@receiver(setting_changed)
def _forget_changes(**kwargs) -> None:
    _changes.clear()


def _note(slug: str):
    note = note_in(slug)  # the page's language, else English (the page says so)
    if note is None:
        raise Http404("No note with that name")
    return note


def _detail(request, note, *, answered=None, status=200):
    """The note page, the same for every reader (so it can be cached: the visitor's reading
    status is loaded into it from ``notes:read``); ``answered`` is (question, answer data) when
    a check-yourself question was answered without JavaScript."""
    questions = checks.questions_for(note)
    items = []
    for i, q in enumerate(questions, start=1):
        data = answered[1] if answered and answered[0].pk == q.pk else None
        items.append(checks.item(note, q, i, post=data))
    ctx = {
        "note": note,
        "checks": items,
        "check_subtopic": note.subtopics[0] if note.subtopics else "",
        "check_label": SUBTOPIC_LABELS.get(note.subtopics[0], "") if note.subtopics else "",
    }
    return render(request, "notes/detail.html", ctx, status=status)


def note_detail(request, slug: str):
    return _detail(request, _note(slug))


@vary_on_headers("HX-Request")
@require_safe
def check_answer(request, slug: str, question: str):
    """Grade one check-yourself answer: the item alone for htmx, the whole note without JS.

    A GET (nothing is recorded, so no CSRF token is needed and the note page stays shareable);
    the form sends ``answered=1``, so a bare GET of this URL shows the question unanswered.
    """
    note = _note(slug)
    q = checks.checkable(question)
    if q is None:
        raise Http404("No such question")
    q = translations.localise(
        q, getattr(q, "tr_html", None), getattr(q, "tr_stale", None), i18n.current()
    ).question
    data = request.GET or None
    if request.htmx:
        position = next(
            (i for i, c in enumerate(checks.questions_for(note), start=1) if c.pk == q.pk), 1
        )
        ctx = checks.item(note, q, position, post=data)
        ctx["note"] = note
        ctx["subtopic_labels"] = SUBTOPIC_LABELS
        # 200 even for a missing answer: htmx swaps only 2xx responses, and the message must show.
        return render(request, "notes/_check_item.html", ctx)
    return _detail(request, note, answered=(q, data) if data is not None else None)


@never_cache
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "HEAD", "POST"])
def mark_read(request, slug: str):
    """This visitor's reading status of a note. GET: for htmx, the block the note page loads
    (with an out-of-band "Read" badge for its header); without JavaScript, a small page with the
    form. POST: mark it read (``read=1``) or not read (``read=0``)."""
    note = _note(slug)
    if request.method == "POST":
        owner = get_owner(request)
        is_read = request.POST.get("read", "1") != "0"
        progress.set_read(owner, note.slug, is_read)
        if not request.htmx:
            return redirect("notes:read", slug=note.slug)
        # Unmarked by hand: don't mark it again on the next scroll.
        ctx = {"note": note, "is_read": is_read, "auto_read": "done" if is_read else "off"}
        return render(request, "notes/_read_status.html", ctx)
    is_read = note.slug in progress.read_slugs(get_owner(request, create=False))
    if request.htmx:  # in the note: marked read once the reader scrolls to it (site.js)
        ctx = {"note": note, "is_read": is_read, "auto_read": "done" if is_read else "on"}
        return render(request, "notes/_read_status.html", ctx)
    return render(
        request, "notes/read.html", {"note": note, "is_read": is_read, "auto_read": "off"}
    )


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
    return render(request, "notes/blueprint.html", {"notes": notes_in().values()})


def glossary_page(request):
    terms = glossary()
    letters = sorted({t.term.lstrip("_")[0].upper() for t in terms})
    return render(request, "notes/glossary.html", {"terms": terms, "letters": letters})
