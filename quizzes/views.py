"""Practice and mock-exam views: look up, guard, call a service, render or redirect."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from progress.hooks import practice_answered

from . import grading, presentation, services
from .forms import SUBTOPIC_LABELS, ExamForm, PracticeForm
from .models import Attempt, Question, Response
from .owners import get_owner
from .schema import FAMILIES


def _attempt(request: HttpRequest, pk: int, mode: str) -> Attempt:
    owner = get_owner(request, create=False)
    if owner.user is None and not owner.token:
        raise Http404("No such attempt")
    return get_object_or_404(Attempt.objects.owned_by(owner), pk=pk, mode=mode)


def _response(attempt: Attempt, position: int) -> Response:
    qs = Response.objects.select_related("question").prefetch_related("question__options")
    response = get_object_or_404(qs, attempt=attempt, position=position)
    response.attempt = attempt  # already loaded: no second query
    return response


def _navigator(attempt: Attempt) -> list[dict]:
    # One reverse() for the whole list: resolving a URL per entry was half the page's cost.
    prefix = reverse("quizzes:exam_question", args=[attempt.pk, 1]).removesuffix("1/")
    rows = list(attempt.responses.values("position", "answered_at", "flagged"))
    for row in rows:
        row["url"] = f"{prefix}{row['position']}/"
    return rows


# --- practice -------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def practice_start(request):
    form = PracticeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            attempt = services.practice_start(
                owner=get_owner(request),
                subtopics=form.cleaned_data["subtopics"],
                which=form.cleaned_data["which"],
                count=form.cleaned_data["count"],
            )
        except services.SelectionError as e:
            form.add_error(None, str(e))
        else:
            return redirect("quizzes:practice_question", pk=attempt.pk, position=1)
    counts = Question.objects.published().subtopic_counts()
    return render(
        request, "quizzes/practice_start.html", {"form": form, "counts": counts}, status=200
    )


@require_http_methods(["GET", "POST"])
def practice_question(request, pk: int, position: int):
    attempt = _attempt(request, pk, Attempt.Mode.PRACTICE)
    response = _response(attempt, position)
    error = ""
    answer = response.answer
    if request.method == "POST" and not response.answered:
        spec = response.question.grading_spec()
        try:
            answer = grading.parse_answer(spec, request.POST)
        except grading.AnswerError as e:
            error, answer = str(e), {"text": request.POST.get("text", "")}
        else:
            response = services.response_save(
                response=response, answer=answer, lock_after_first=True
            ).response
            practice_answered(request, response)  # certainty + the concept's FSRS review
            answer = response.answer
    ctx = {
        "attempt": attempt,
        "response": response,
        "question": response.question,
        "error": error,
        "form_ctx": presentation.present(response.question, attempt.seed, answer),
        "position": position,
        "next_position": position + 1 if position < attempt.question_count else None,
    }
    if response.answered:
        ctx["fb"] = presentation.feedback(response.question, response.answer, response.score)
    template = "quizzes/practice_question.html"
    if request.htmx and request.method == "POST":
        template += "#answer-area"
    return render(request, template, ctx)


def practice_done(request, pk: int):
    attempt = _attempt(request, pk, Attempt.Mode.PRACTICE)
    responses = list(attempt.responses.select_related("question"))
    answered = [r for r in responses if r.answered]
    score = sum(r.score or 0 for r in answered)
    return render(
        request,
        "quizzes/practice_done.html",
        {
            "attempt": attempt,
            "responses": responses,
            "answered": len(answered),
            "percent": round(100 * score / len(answered)) if answered else 0,
            "subtopic_labels": SUBTOPIC_LABELS,
        },
    )


# --- mock exam ------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def exam_start(request):
    form = ExamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            attempt = services.exam_start(
                owner=get_owner(request), count=form.cleaned_data["count"]
            )
        except services.SelectionError as e:
            form.add_error(None, str(e))
        else:
            return redirect("quizzes:exam_question", pk=attempt.pk, position=1)
    owner = get_owner(request, create=False)
    past = []
    if owner.user is not None or owner.token:
        past = list(
            Attempt.objects.owned_by(owner)
            .filter(mode=Attempt.Mode.EXAM)
            .order_by("-started_at")[:10]
        )
    return render(request, "quizzes/exam_start.html", {"form": form, "past": past})


def _closed_redirect(request, attempt: Attempt, message: str):
    messages.warning(request, message)
    url = reverse("quizzes:exam_results", args=[attempt.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_http_methods(["GET", "POST"])
def exam_question(request, pk: int, position: int):
    attempt = _attempt(request, pk, Attempt.Mode.EXAM)
    if attempt.is_submitted:
        return redirect("quizzes:exam_results", pk=attempt.pk)
    if attempt.is_expired():
        services.attempt_submit(attempt=attempt)
        return _closed_redirect(
            request, attempt, "Time ran out; your exam was submitted with the answers you saved."
        )
    response = _response(attempt, position)
    error, answer = "", response.answer
    if request.method == "POST":
        try:
            answer = grading.parse_answer(response.question.grading_spec(), request.POST)
            response = services.response_save(
                response=response, answer=answer, lock_after_first=False
            ).response
        except grading.NoAnswer:
            pass  # moving on without answering is allowed
        except grading.AnswerError as e:
            error = f"Not saved: {e}"
            answer = (
                {"text": request.POST.get("text", "")}
                if response.question.kind == "json"
                else answer
            )
        except services.AttemptClosed as e:
            return _closed_redirect(request, attempt, str(e))
        if request.htmx:
            return render(
                request,
                "quizzes/exam_question.html#save-status",
                {
                    "response": response,
                    "error": error,
                    "attempt": attempt,
                    "oob": True,
                    "nav": _navigator(attempt),
                    "position": position,
                },
            )
        if not error:
            target = request.POST.get("go", "next")
            if target == "summary" or (target == "next" and position >= attempt.question_count):
                return redirect("quizzes:exam_summary", pk=attempt.pk)
            step = -1 if target == "prev" else 1
            new = min(max(1, position + step), attempt.question_count)
            return redirect("quizzes:exam_question", pk=attempt.pk, position=new)
    return render(
        request,
        "quizzes/exam_question.html",
        {
            "attempt": attempt,
            "response": response,
            "question": response.question,
            "form_ctx": presentation.present(response.question, attempt.seed, answer),
            "error": error,
            "nav": _navigator(attempt),
            "position": position,
            "seconds_left": attempt.seconds_left(),
        },
        status=422 if error else 200,
    )


@require_POST
def exam_flag(request, pk: int, position: int):
    attempt = _attempt(request, pk, Attempt.Mode.EXAM)
    if attempt.is_submitted:
        return redirect("quizzes:exam_results", pk=attempt.pk)
    response = get_object_or_404(Response, attempt=attempt, position=position)
    response.attempt = attempt
    try:
        services.response_flag(response=response)
    except services.AttemptClosed as e:
        return _closed_redirect(request, attempt, str(e))
    if request.htmx:
        return render(
            request,
            "quizzes/exam_question.html#flag",
            {
                "attempt": attempt,
                "response": response,
                "position": position,
                "oob": True,
                "nav": _navigator(attempt),
            },
        )
    return redirect("quizzes:exam_question", pk=attempt.pk, position=position)


def exam_summary(request, pk: int):
    attempt = _attempt(request, pk, Attempt.Mode.EXAM)
    if attempt.is_submitted:
        return redirect("quizzes:exam_results", pk=attempt.pk)
    if attempt.is_expired():
        services.attempt_submit(attempt=attempt)
        return _closed_redirect(request, attempt, "Time ran out; your exam was submitted.")
    nav = _navigator(attempt)
    return render(
        request,
        "quizzes/exam_summary.html",
        {
            "attempt": attempt,
            "nav": nav,
            "unanswered": [n["position"] for n in nav if not n["answered_at"]],
            "flagged": [n["position"] for n in nav if n["flagged"]],
            "seconds_left": attempt.seconds_left(),
        },
    )


@require_POST
def exam_submit(request, pk: int):
    attempt = _attempt(request, pk, Attempt.Mode.EXAM)
    services.attempt_submit(attempt=attempt)
    return redirect("quizzes:exam_results", pk=attempt.pk)


REVIEW_FILTERS = {
    "all": "All",
    "incorrect": "Incorrect",
    "correct": "Correct",
    "flagged": "Flagged",
    "unanswered": "Unanswered",
}


def exam_results(request, pk: int):
    attempt = _attempt(request, pk, Attempt.Mode.EXAM)
    if not attempt.is_submitted:
        if not attempt.is_expired():
            return redirect("quizzes:exam_summary", pk=attempt.pk)
        attempt = services.attempt_submit(attempt=attempt)
    show = request.GET.get("show", "all")
    if show not in REVIEW_FILTERS:
        show = "all"
    responses = list(
        attempt.responses.select_related("question").prefetch_related("question__options")
    )
    review = [
        {
            "response": r,
            "question": r.question,
            "fb": presentation.feedback(r.question, r.answer or {}, r.score),
            "rv": presentation.response_view(r.question.data["response"])
            if r.question.kind == "next_action"
            else None,
        }
        for r in responses
        if show == "all"
        or (show == "correct" and r.is_correct)
        or (show == "incorrect" and r.answered and not r.is_correct)
        or (show == "flagged" and r.flagged)
        or (show == "unanswered" and not r.answered)
    ]
    families = services.family_report(responses)
    for row in families:
        row["description"] = FAMILIES.get(row["family"], "")
    ctx = {
        "attempt": attempt,
        "subtopics": services.subtopic_report(responses),
        "subtopic_labels": SUBTOPIC_LABELS,
        "families": families,
        "review": review,
        "show": show,
        "filters": REVIEW_FILTERS,
        "missed": sum(1 for r in responses if not r.is_correct),
        "answered": sum(1 for r in responses if r.answered),
        "correct": sum(1 for r in responses if r.is_correct),
    }
    template = "quizzes/exam_results.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#review"
    return render(request, template, ctx)


@require_POST
def exam_retake(request, pk: int):
    attempt = _attempt(request, pk, Attempt.Mode.EXAM)
    try:
        new = services.exam_retake_missed(owner=get_owner(request), attempt=attempt)
    except services.AttemptOpen as e:
        messages.warning(request, str(e))
        return redirect("quizzes:exam_summary", pk=attempt.pk)
    except services.SelectionError as e:
        messages.info(request, str(e))
        return redirect("quizzes:exam_results", pk=attempt.pk)
    return redirect("quizzes:exam_question", pk=new.pk, position=1)


def traps(request):
    """The distractor families: the habits of mind that wrong options are tagged with."""
    return render(request, "quizzes/traps.html", {"families": FAMILIES})
