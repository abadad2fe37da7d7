"""The learner's dashboard and FSRS review queue: look up the owner, call a service, render."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from core.owners import get_owner
from quizzes.forms import SUBTOPIC_LABELS

from . import reports, rules, services
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
    due, upcoming = services.review_queue(owner, now)
    for item in due:
        item.label = SUBTOPIC_LABELS.get(item.card.subtopic, item.card.subtopic)
    ctx = {
        "form": form,
        "due": due,
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
        request, "Desired retention saved. It applies from each concept's next review."
    )
    return redirect("progress:review")
