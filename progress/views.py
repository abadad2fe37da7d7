"""The learner's dashboard and FSRS review queue: look up the owner, call a service, render."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.owners import get_owner
from quizzes.forms import SUBTOPIC_LABELS

from . import anki, flashcards, reports, rules, services
from .forms import RetentionForm


@require_GET
def dashboard(request):
    # Queries (signed in): session, user, scores by subtopic, bank by subtopic, cards, exams,
    # answers' traps, their questions, their options, certainty counts. None per row.
    owner = get_owner(request, create=False)
    ctx = reports.dashboard(owner, timezone.now())
    return render(request, "progress/dashboard.html", ctx)


def _review_page(request, form, status=200):
    owner = get_owner(request, create=False)
    now = timezone.now()
    cards = services.learner_cards(owner)
    due, upcoming = services.review_queue(owner, now, cards)
    for item in due:
        item.label = SUBTOPIC_LABELS.get(item.card.subtopic, item.card.subtopic)
    cards_due, cards_new = services.flashcard_queue(owner, now, cards)
    ctx = {
        "form": form,
        "due": due,
        "cards_due": len(cards_due),
        "cards_new": cards_new,
        "card_families": flashcards.family_titles().values(),
        "upcoming": [{"card": c, "when": rules.relative_day(c.due, now)} for c in upcoming[:10]],
        "upcoming_total": len(upcoming),
        "batch": services.REVIEW_BATCH,
    }
    return render(request, "progress/review.html", ctx, status=status)


@require_GET
def review(request):
    owner = get_owner(request, create=False)
    retention = services.retention_for(owner) if owner.user or owner.token else None
    initial = round(100 * (retention or rules.RETENTION_DEFAULT))
    return _review_page(request, RetentionForm(initial={"retention": initial}))


@require_POST
def review_start(request):
    try:
        attempt = services.review_start(owner=get_owner(request), now=timezone.now())
    except services.NothingDue as e:
        messages.info(request, str(e))
        return redirect("progress:review")
    return redirect("quizzes:practice_question", pk=attempt.pk, position=1)


@require_POST
def retention(request):
    form = RetentionForm(request.POST)
    saved = form.is_valid()
    if saved:
        services.retention_set(owner=get_owner(request), retention=form.cleaned_retention())
    if request.htmx:
        # htmx swaps only 2xx responses, so an invalid choice comes back as 200 with its message.
        ctx = {"form": form, "saved": saved}
        return render(request, "progress/review.html#retention-form", ctx)
    if not saved:
        return _review_page(request, form, status=422)
    messages.success(
        request, _("Desired retention saved. It applies from each concept's next review.")
    )
    return redirect("progress:review")


@require_POST
def study_ahead(request):
    try:
        attempt = services.study_ahead_start(owner=get_owner(request), now=timezone.now())
    except services.NothingDue as e:
        messages.info(request, str(e))
        return redirect("progress:review")
    messages.info(
        request,
        _("Studying ahead: concepts you have not met yet first, then the ones due soonest."),
    )
    return redirect("quizzes:practice_question", pk=attempt.pk, position=1)


RATINGS = (
    (1, gettext_lazy("Again")),
    (2, gettext_lazy("Hard")),
    (3, gettext_lazy("Good")),
    (4, gettext_lazy("Easy")),
)


@require_http_methods(["GET", "POST"])
def flashcard_review(request):
    """The next due flashcard; the answer is behind a disclosure, then the learner rates it."""
    owner = get_owner(request, create=False)
    now = timezone.now()
    if request.method == "POST":
        owner = get_owner(request)
        try:
            rating = int(request.POST.get("rating", ""))
            services.flashcard_rate(
                owner=owner, card_id=request.POST.get("card", ""), rating=rating, now=now
            )
        except (ValueError, services.UnknownFlashcard) as e:
            message = (
                str(e)
                if isinstance(e, services.UnknownFlashcard)
                else _("Choose Again, Hard, Good or Easy.")
            )
            messages.error(request, message)
        return redirect("progress:flashcards")
    due, new = services.flashcard_queue(owner, now)
    ctx = {
        "item": due[0] if due else None,
        "left": len(due),
        "new": new,
        "ratings": RATINGS,
        "family_titles": flashcards.family_titles(),
    }
    return render(request, "progress/flashcards.html", ctx)


@require_GET
def anki_export(request):
    data, _count = anki.build_package(get_owner(request, create=False))
    response = HttpResponse(data, content_type="application/octet-stream")
    response["Content-Disposition"] = 'attachment; filename="loopcraft.apkg"'
    return response
