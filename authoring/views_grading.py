"""The grading queue: answers with no automatic grade (essays), oldest first, for instructors."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from quizzes import kinds, services
from quizzes.models import Response

from .access import instructor_required

QUEUE_SIZE = 50


def _waiting():
    manual = [k for k, m in kinds.REGISTRY.items() if not m.AUTO_GRADED]
    return Response.objects.filter(
        question__kind__in=manual, answered_at__isnull=False, score__isnull=True
    )


@instructor_required
@require_GET
def grading_queue(request):
    """One query for the rows (question and attempt joined), one for the count."""
    waiting = _waiting()
    rows = list(
        waiting.select_related("question", "attempt").order_by("answered_at", "pk")[:QUEUE_SIZE]
    )
    context = {"rows": rows, "total": waiting.count(), "grades": kinds.essay.GRADES}
    return render(request, "authoring/grading.html", context)


@instructor_required
@require_POST
def grading_grade(request, pk: int):
    response = get_object_or_404(_waiting().select_related("attempt", "question"), pk=pk)
    value = request.POST.get("score", "")
    if value not in kinds.essay.GRADES:
        messages.error(request, _("Choose a grade: 0, 50 or 100 %."))
        return redirect("author:grading")
    services.response_grade(response=response, score=kinds.essay.GRADES[value])
    messages.success(
        request,
        _("Graded %(score)s %% (%(slug)s).")
        % {"score": round(100 * kinds.essay.GRADES[value]), "slug": response.question.slug},
    )
    return redirect("author:grading")
