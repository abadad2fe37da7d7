"""Item statistics for instructors: /author/stats/ and /author/stats/<slug>/."""

from __future__ import annotations

from datetime import UTC, datetime

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_GET

from quizzes import kinds, stats
from quizzes.models import Option, Question, Response
from studyapp.agentloop import bounded

from .access import instructor_required

SORTS = {
    "slug": lambda i: i.slug,
    "n": lambda i: i.n,
    "facility": lambda i: i.facility,
    "sd": lambda i: i.sd if i.sd is not None else -1,
    "discrimination": lambda i: i.discrimination if i.discrimination is not None else -999,
    "efficiency": lambda i: i.efficiency if i.efficiency is not None else -999,
    "review": lambda i: (not i.review, i.slug),
}
COLUMNS = [
    ("slug", gettext_lazy("Question")),
    ("n", gettext_lazy("Attempts")),
    ("facility", gettext_lazy("Facility")),
    ("sd", pgettext_lazy("standard deviation, short", "SD")),
    ("discrimination", gettext_lazy("Discrimination")),
    ("efficiency", gettext_lazy("Disc. efficiency")),
    ("review", gettext_lazy("Needs review")),
]


def _options(request: HttpRequest) -> tuple[str, int | None]:
    which = "all" if request.GET.get("which") == "all" else "first"
    return which, bounded.int_param(request.GET.get("size"), low=1, high=999)


@instructor_required
@require_GET
def stats_index(request: HttpRequest) -> HttpResponse:
    """The whole exam and a sortable table of questions (1 query when cached, 3 when not)."""
    which, size = _options(request)
    report = stats.load_report(which, size)
    sort = request.GET.get("sort", "review")
    sort = sort if sort in SORTS else "review"
    descending = request.GET.get("dir") == "desc"
    items = sorted(report.items, key=SORTS[sort], reverse=descending)
    context = {
        "report": report,
        "items": items,
        "sort": sort,
        "descending": descending,
        "columns": COLUMNS,
        "which": which,
        "flagged": sum(1 for i in report.items if i.review),
        "few": stats.FEW,
        "min_for_flag": stats.MIN_FOR_FLAG,
        "computed_at": datetime.fromtimestamp(report.computed_at, tz=UTC)
        if report.computed_at
        else None,
    }
    return render(request, "authoring/stats_index.html", context)


@instructor_required
@require_GET
def stats_question(request: HttpRequest, slug: str) -> HttpResponse:
    """One question's figures and how often each option was chosen (4 queries when cached)."""
    question = Question.objects.current().filter(slug=slug).first()
    if question is None:
        raise Http404("No question with that slug.")
    which, size = _options(request)
    report = stats.load_report(which, size)
    item = next((i for i in report.items if i.slug == slug), None)
    ids = stats.chosen_attempts(which)
    rows = [
        (attempt_id, answer, score)
        for attempt_id, answer, score in Response.objects.filter(
            question__slug=slug, **stats._attempt_filter("attempt__")
        ).values_list("attempt_id", "answer", "score")
        if attempt_id in ids
    ]
    if kinds.of(question.kind).CHOICES:
        options = Option.objects.filter(question__slug=slug).order_by(
            "-question__version", "position"
        )
        analysis = stats.response_analysis(
            [{"key": o.key, "text": o.text, "correct": o.correct} for o in options],
            [a for _, a, _ in rows],
            question.kind,
        )
    else:
        analysis = stats.outcome_analysis([s if a else None for _, a, s in rows])
    context = {"question": question, "item": item, "analysis": analysis, "which": which,
               "few": stats.FEW, "s": len(rows)}  # fmt: skip
    return render(request, "authoring/stats_question.html", context)
