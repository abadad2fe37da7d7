"""Practice and mock-exam views: look up, guard, call a service, render or redirect."""

from __future__ import annotations

import html

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import time as time_filter
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import localtime
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from core import i18n, pageshell
from core.owners import get_owner, owned_object
from core.prepared import owner_stand_in, prepared, prepared_rows
from core.urlcache import reverse_ints

from . import grading, kinds, presentation, services, translations, versioncache
from .forms import SUBTOPIC_LABELS, CcafForm, ExamForm, PracticeForm
from .models import Attempt, Question, Response
from .scenarios import SCENARIOS, localised
from .scenarios import label as scenario_label
from .schema import FAMILIES
from .signals import practice_answered
from .templatetags.quiz_tags import clock


def _attempt(request: HttpRequest, pk: int, mode: str) -> Attempt:
    owner = get_owner(request, create=False)
    if owner.user is None and not owner.token:
        raise Http404("No such attempt")
    attempt = owned_object(  # its SQL compiled once (core/owners.owned_object)
        "quizzes-attempt",
        owner,
        lambda owned, pk, mode: owned(Attempt.objects).filter(pk=pk, mode=mode),
        pk=pk,
        mode=str(mode),
    )
    if attempt is None:
        raise Http404("No Attempt matches the given query.")
    return attempt


def _response(attempt: Attempt, position: int) -> Response:
    # The question's translation for the page's language comes in the same query.
    rows = translations.with_translation(
        Response.objects.select_related("question"), i18n.current(), prefix="question__"
    )
    response = get_object_or_404(rows, attempt=attempt, position=position)
    response.attempt = attempt  # already loaded: no second query
    versioncache.with_options(response.question)
    return response


def _attempt_response(request: HttpRequest, pk: int, position: int, mode: str) -> Response | None:
    """The visitor's response at ``position`` with its attempt and question in one query, and the
    question's options from the per-version cache (quizzes/versioncache.py); None when there
    is no such row, and the caller takes the slower path that says why (404, redirect)."""
    owner = get_owner(request, create=False)
    if owner.user is None and not owner.token:
        return None
    if not (0 < pk < 2**31 and 0 < position < 2**15):
        return None  # beyond the columns' range: no such row (the slow path says 404)
    lang = i18n.current()

    def build(pk, position, who):
        # A join, not a subquery of owned_by(): half the ORM's work on the page's hottest query.
        rows = Response.objects.select_related("attempt", "question")
        # The question's translation for the page's language comes in the same query.
        rows = translations.with_translation(rows, lang, prefix="question__")
        if owner.user is not None:
            mine = {"attempt__user_id": who}
        else:
            mine = {"attempt__user": None, "attempt__owner_token": who}
        return rows.filter(attempt_id=pk, attempt__mode=mode, position=position, **mine)

    # Compiled to SQL once per process (core/prepared.py): the ORM's work was most of the cost.
    signed_in = owner.user is not None
    query = prepared(
        ("attempt-response", lang, mode, signed_in),
        build,
        pk=1_999_999_001,
        position=32_001,
        who=owner_stand_in(signed_in),
    )
    who = owner.user.pk if signed_in else owner.token
    response = query.first(pk=pk, position=position, who=who)
    if response is None:
        return None
    versioncache.with_options(response.question)
    return response


def _words(shown_in: dict) -> str:
    return ":translated" if shown_in["translated"] else ":original" if shown_in["original"] else ""


def _in_page_language(request: HttpRequest, response: Response) -> dict:
    """Show the question in the page's language where a current translation exists (the
    learner may flip it to English with ?original=1); its key and grading stay English."""
    lang = i18n.current()
    shown = translations.localise(
        response.question, getattr(response, "tr_html", None), getattr(response, "tr_stale", None),
        lang,
    )  # fmt: skip
    original = request.GET.get("original") == "1" and shown.available
    if not original:
        response.question = shown.question  # a copy with the words swapped; nothing is saved
    return {
        "lang": i18n.tag(lang),
        "translated": shown.available and not original,
        "available": shown.available,
        "stale": shown.stale,
        "original": original,
        "path": request.path,
    }


def _inputs_html(context: dict) -> SafeString:
    """quizzes/_inputs.html for ``context``: the kind's input template rendered on its own, not
    through the include, with the two newlines the wrapper adds around it (one template render
    fewer on every question page; tests/test_practice.py compares the two for every kind)."""
    template = context["form_ctx"].get("template")
    inputs = render_to_string(template, context) if template else ""
    return mark_safe("\n" + inputs + "\n")  # noqa: S308 - our templates, autoescaped


def _body_html(question: Question, form_ctx: dict, *, practice: bool, words: str = "") -> str:
    """The part of a question page every learner sees alike (subtopic, scenario brief, stem, the
    response a next-action question shows), rendered once per version: quizzes/versioncache.py.
    The exam shows its brief itself (numbered within the attempt's scenarios)."""
    scenario = SCENARIOS.get(question.scenario) if practice else None
    if scenario is not None:
        scenario = localised(scenario, gettext)  # its words in the page's language
    context = {
        "question": question,
        "show_meta": practice,
        "brief": {"scenario": scenario} if scenario else None,
        "rv": form_ctx.get("response"),  # from question.data alone (presentation.response_view)
        # English words on another language's page (no current translation, or ?original=1)
        "stem_lang": "en" if i18n.current() != i18n.DEFAULT and words != ":translated" else "",
    }
    # ``words``: which words the page shows (a translation, or English on ?original=1), so
    # the per-language fragment of one shows never stands in for the other.
    return versioncache.fragment(
        ("practice-body" if practice else "exam-body") + words,
        question,
        lambda: render_to_string("quizzes/_question_body.html", context),
    )


OOB = ' hx-swap-oob="true"'
CURRENT = ' aria-current="step"'
FLAG = '<span aria-hidden="true">⚑</span>'


def _nav_words() -> tuple[str, str, str]:
    """The navigator's hidden words in the page's language, looked up once per page."""
    return (
        ", " + gettext("answered"),
        ", " + gettext("not answered"),
        ", " + gettext("flagged"),
    )


def _nav_html(
    item: dict, position: int, oob: bool = False, words: tuple[str, str, str] | None = None
) -> str:
    """One navigator entry. Built here rather than in the template: the exam page lists every
    question, and 60 entries through the template engine were a third of the page's time."""
    answered_w, unanswered_w, flagged_w = words or _nav_words()
    answered, flagged = bool(item["answered_at"]), bool(item["flagged"])
    classes = "nav-item" + (" is-answered" if answered else "") + (" is-flagged" if flagged else "")
    state = (answered_w if answered else unanswered_w) + (flagged_w if flagged else "")
    n = item["position"]
    url = item.get("url_html") or html.escape(item["url"])
    return (
        f'<li id="nav-q{n}"{OOB if oob else ""}><a href="{url}" '
        f'class="{classes}"{CURRENT if n == position else ""}>{n}'
        f'<span class="visually-hidden">{state}</span>{FLAG if flagged else ""}</a></li>'
    )


def _navigator_html(nav: list[dict], position: int) -> str:
    words = _nav_words()  # below: ints, escaped URLs and the catalogue's words
    return mark_safe("".join(_nav_html(n, position, words=words) for n in nav))  # noqa: S308


def _nav_item(attempt: Attempt, response: Response) -> dict:
    """The navigator entry of one response: what an autosave or a flag sends back (oob)."""
    url = reverse_ints("quizzes:exam_question", attempt.pk, response.position)
    item = {
        "position": response.position,
        "answered_at": response.answered_at,
        "flagged": response.flagged,
        "url": url,
    }
    return mark_safe(_nav_html(item, response.position, oob=True))  # noqa: S308 - see _nav_html


def _navigator(attempt: Attempt) -> list[dict]:
    # One reverse() for the whole list: resolving a URL per entry was half the page's cost.
    prefix = reverse_ints("quizzes:exam_question", attempt.pk, 1).removesuffix("1/")
    escaped = html.escape(prefix)  # once: what follows it is a whole number
    # Scenarios only matter to a CCA-F exam (its brief, its summary's column): no join otherwise.
    ccaf = attempt.exam_format == Attempt.Format.CCAF
    fields = ["position", "answered_at", "flagged"] + (["question__scenario"] if ccaf else [])

    def build(attempt_id):
        return Response.objects.filter(attempt_id=attempt_id).values_list(*fields)

    # Compiled to SQL once per process (core/prepared.py): the ORM's work was most of its cost.
    query = prepared_rows(("navigator", ccaf), build, attempt_id=1_999_999_003)
    return [
        {
            "position": row[0],
            "answered_at": row[1],
            "flagged": row[2],
            "url": f"{prefix}{row[0]}/",
            "url_html": f"{escaped}{int(row[0])}/",
            "scenario": scenario_label(row[3]) if ccaf else "",
        }
        for row in query.rows(attempt_id=attempt.pk)
    ]


def _brief(attempt: Attempt, response: Response, nav: list[dict]) -> dict | None:
    """The scenario brief shown with a CCA-F item, open on the first item of its scenario."""
    if attempt.exam_format != Attempt.Format.CCAF:
        return None
    scenario = SCENARIOS.get(response.question.scenario)
    if scenario is None:
        return None
    order = []
    for row in nav:
        if row["scenario"] not in order:
            order.append(row["scenario"])
    previous = nav[response.position - 2]["scenario"] if response.position > 1 else None
    return {
        "scenario": localised(scenario, gettext),  # its words in the page's language
        "number": order.index(scenario.title) + 1 if scenario.title in order else 1,
        "of": len(order),
        "first": previous != scenario.title,
    }


# --- practice -------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def practice_start(request):
    # "Practise this subtopic" links arrive with ?subtopic=<slug>; an unknown one is ignored.
    wanted = request.GET.get("subtopic", "")
    initial = {"subtopics": [wanted]} if wanted in SUBTOPIC_LABELS else {}
    form = PracticeForm(request.POST or None, initial=initial)
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
            note = services.fewer_than_asked(
                form.cleaned_data["count"], attempt.question_count, form.cleaned_data["which"]
            )
            if note:
                messages.info(request, note)
            return redirect("quizzes:practice_question", pk=attempt.pk, position=1)
    # Compiled to SQL once per process (core/prepared.py): building the aggregate was most of it.
    counts = dict(
        prepared_rows(
            ("published-subtopic-counts",),
            lambda: Question.objects.published().subtopic_counts_query(),
        ).rows()
    )
    # each box with its subtopic's count (None: no published question), paired here once
    # instead of a loop over every count inside the loop over the boxes
    subtopics = [(box, counts.get(box.data["value"])) for box in form["subtopics"]]
    return render(
        request,
        "quizzes/practice_start.html",
        {"form": form, "subtopics": subtopics},
        status=200,
    )


@require_http_methods(["GET", "POST"])
def practice_question(request, pk: int, position: int):
    response = _attempt_response(request, pk, position, Attempt.Mode.PRACTICE)
    if response is None:
        response = _response(_attempt(request, pk, Attempt.Mode.PRACTICE), position)
    attempt = response.attempt
    shown_in = _in_page_language(request, response)
    error = ""
    answer = response.answer
    if request.method == "POST" and response.answered and "self_mark" in request.POST:
        error = services.response_self_mark(response=response, mark=request.POST["self_mark"])
        answer = response.answer
    elif request.method == "POST" and not response.answered:
        spec = response.question.grading_spec()
        try:
            answer = grading.parse_answer(spec, request.POST)
        except grading.AnswerError as e:
            error, answer = str(e), {"text": request.POST.get("text", "")}
        else:
            response = services.response_save(
                response=response, answer=answer, lock_after_first=True
            ).response
            # Progress listens: the stated certainty and the concept's FSRS review.
            practice_answered.send(sender=Response, request=request, response=response)
            answer = response.answer
    question = response.question
    form_ctx = presentation.present(question, attempt.seed, answer)
    token = get_token(request)  # one masked token for the page's forms, not one per form
    ctx = {
        "csrf_token": token,
        "attempt": attempt,
        "response": response,
        "question": question,
        "error": error,
        "form_ctx": form_ctx,
        "position": position,
        "shown_in": shown_in,
        "disabled": response.answered,
    }
    feedback_html = ""
    if response.answered:  # earned: the key and every option's why
        ctx["fb"] = presentation.feedback(
            response.question, response.answer, response.score, seed=attempt.seed
        )
        ctx["self_mark_url"] = request.path
        feedback_html = render_to_string("quizzes/_feedback.html", {**ctx, "focus_verdict": True})
    last = position >= attempt.question_count
    # The answer area, kept per language and shape with this learner's parts put in.
    answer_html = pageshell.fragment(
        "quizzes/practice_question.html#answer-area",
        shape={},
        values={
            "inputs_html": _inputs_html(ctx),
            "feedback_html": feedback_html,
            "certainty_html": ""
            if response.answered
            else render_to_string(
                "progress/_certainty.html", {"response": response, "request": request}
            ),
            "error": error,
            "save_url": reverse_ints("quizzes:practice_question", attempt.pk, position),
            "next_url": ""
            if last
            else reverse_ints("quizzes:practice_question", attempt.pk, position + 1),
            "done_url": reverse_ints("quizzes:practice_done", attempt.pk),
        },
        csrf_token=token,
    )
    if request.htmx and request.method == "POST":
        return HttpResponse(answer_html)
    values = {
        "position": position,
        "question_count": attempt.question_count,
        "body_html": _body_html(question, form_ctx, practice=True, words=_words(shown_in)),
        "answer_html": answer_html,
        "report_box": versioncache.report_box(request, question, token),
    }
    shape = {"shown_in": {k: v for k, v in shown_in.items() if k != "path"}}
    return pageshell.render(
        request, "quizzes/practice_question.html", ctx, shape=shape, values=values
    )


def practice_done(request, pk: int):
    attempt = _attempt(request, pk, Attempt.Mode.PRACTICE)
    rows = attempt.responses.select_related("question")
    responses = list(translations.with_translation(rows, i18n.current(), "question__"))
    for r in responses:  # the list quotes each stem in the page's language
        r.question.stem_html = translations.stem_html(
            r.question.stem_html, getattr(r, "tr_html", None), getattr(r, "tr_stale", None)
        )
    answered = [r for r in responses if r.answered]
    last_answered = max((r.position for r in answered), default=0)
    for r in responses:
        # Passed over without an answer = skipped; after the last answer = never reached.
        r.status = (
            ("right" if r.is_correct else "partly" if r.score else "missed")
            if r.answered
            else ("skipped" if r.position < last_answered else "not reached")
        )
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
    ccaf = request.method == "POST" and request.POST.get("format") == "ccaf"
    form = ExamForm(request.POST if request.method == "POST" and not ccaf else None)
    ccaf_form = CcafForm(request.POST if ccaf else None)
    if request.method == "POST" and (ccaf_form if ccaf else form).is_valid():
        try:
            if ccaf:
                attempt = services.ccaf_exam_start(
                    owner=get_owner(request), per_scenario=ccaf_form.cleaned_data["per_scenario"]
                )
            else:
                attempt = services.exam_start(
                    owner=get_owner(request), count=form.cleaned_data["count"]
                )
        except services.SelectionError as e:
            (ccaf_form if ccaf else form).add_error(None, str(e))
        else:
            return redirect("quizzes:exam_question", pk=attempt.pk, position=1)
    owner = get_owner(request, create=False)
    past = []
    if owner.user is not None or owner.token:
        past = list(
            Attempt.objects.owned_by(owner)
            .filter(mode=Attempt.Mode.EXAM, retake_of__isnull=True)
            .order_by("-started_at")[:10]
        )
    return render(
        request,
        "quizzes/exam_start.html",
        {"form": form, "ccaf_form": ccaf_form, "past": past, "scenarios": SCENARIOS.values()},
    )


def _closed_redirect(request, attempt: Attempt, message: str):
    messages.warning(request, message)
    url = reverse("quizzes:exam_results", args=[attempt.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_http_methods(["GET", "POST"])
def exam_question(request, pk: int, position: int):
    response = _attempt_response(request, pk, position, Attempt.Mode.EXAM)
    attempt = response.attempt if response else _attempt(request, pk, Attempt.Mode.EXAM)
    if attempt.is_submitted:
        return redirect("quizzes:exam_results", pk=attempt.pk)
    if attempt.is_expired():
        services.attempt_submit(attempt=attempt)
        return _closed_redirect(
            request, attempt, "Time ran out; your exam was submitted with the answers you saved."
        )
    if response is None:
        response = _response(attempt, position)
    shown_in = _in_page_language(request, response)
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
            if kinds.of(response.question.kind).KEEP_TYPED:  # shown back as typed, to fix
                answer = {"text": request.POST.get("text", "")}
        except services.AttemptClosed as e:
            return _closed_redirect(request, attempt, str(e))
        if request.htmx:
            # The fragment uses no context processor's value: rendered without them (the site
            # header's, the language links', the messages') it is the same, at half the cost.
            fragment = render_to_string(
                "quizzes/exam_question.html#save-status",
                {
                    "error": error,
                    "saved_at": _saved_at(response),
                    "oob": True,
                    "nav_item": _nav_item(attempt, response),
                },
            )
            return HttpResponse(fragment)
        if not error:
            target = request.POST.get("go", "next")
            if target == "summary" or (target == "next" and position >= attempt.question_count):
                return redirect("quizzes:exam_summary", pk=attempt.pk)
            step = -1 if target == "prev" else 1
            new = min(max(1, position + step), attempt.question_count)
            return redirect("quizzes:exam_question", pk=attempt.pk, position=new)
    nav = _navigator(attempt)
    question = response.question
    form_ctx = presentation.present(question, attempt.seed, answer)
    brief = _brief(attempt, response, nav)
    seconds_left = attempt.seconds_left()
    context = {"attempt": attempt, "response": response, "question": question, "form_ctx": form_ctx}
    context["csrf_token"] = get_token(request)  # one masked token for the page's two forms
    # Each request's values, put into the page kept per language and shape (core/pageshell.py).
    values = {
        "position": position,
        "question_count": attempt.question_count,
        "seconds_left": seconds_left,
        "time_left": clock(seconds_left),
        "summary_url": reverse_ints("quizzes:exam_summary", attempt.pk),
        "save_url": reverse_ints("quizzes:exam_question", attempt.pk, position),
        "flag_url": reverse_ints("quizzes:exam_flag", attempt.pk, position),
        "brief_html": render_to_string(
            "quizzes/_scenario_brief.html", {"brief": brief, "open": brief["first"]}
        )
        if brief
        else "",
        "body_html": _body_html(question, form_ctx, practice=False, words=_words(shown_in)),
        "inputs_html": _inputs_html({**context, "error": error}),
        "error": error,
        "saved_at": _saved_at(response),
        "nav_html": _navigator_html(nav, position),
    }
    shape = {
        "first": position <= 1,
        "last": position >= attempt.question_count,
        "flagged": bool(response.flagged),
        "shown_in": {k: v for k, v in shown_in.items() if k != "path"},
        "oob": False,
    }
    return pageshell.render(
        request,
        "quizzes/exam_question.html",
        context,
        shape=shape,
        values=values,
        status=422 if error else 200,
    )


def _saved_at(response: Response) -> str:
    """When the answer was saved, as the page says it (UTC, to the second)."""
    return time_filter(localtime(response.answered_at), "H:i:s") if response.answered_at else ""


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
                "flag_url": reverse_ints("quizzes:exam_flag", attempt.pk, position),
                "flagged": response.flagged,
                "oob": True,
                "nav_item": _nav_item(attempt, response),
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
    rows = translations.with_translation(attempt.responses.all(), i18n.current(), "question__")
    fields = ["position", "question__stem_html"]
    if i18n.current() != i18n.DEFAULT:
        fields += ["tr_html", "tr_stale"]
    stems = {
        r[0]: translations.stem_html(r[1], *(r[2:] or (None, None)))
        for r in rows.values_list(*fields).order_by("position")
    }
    for row in nav:
        row["stem"] = stems.get(row["position"], "")
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
    "all": gettext_lazy("All"),
    "incorrect": gettext_lazy("Incorrect"),
    "correct": gettext_lazy("Correct"),
    "flagged": gettext_lazy("Flagged"),
    "unanswered": gettext_lazy("Unanswered"),
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
    lang = i18n.current()
    rows = attempt.responses.select_related("question")
    responses = list(translations.with_translation(rows, lang, prefix="question__"))
    # The options from the per-version cache: one query for the versions it lacks, none after.
    versioncache.with_options_all([r.question for r in responses])
    for r in responses:  # each in the page's language where a current translation exists
        r.question = translations.localise(
            r.question, getattr(r, "tr_html", None), getattr(r, "tr_stale", None), lang
        ).question
    token = get_token(request)  # one masked token for the page's forms, not one per form
    review = [
        {
            "response": r,
            "question": r.question,
            "fb": presentation.feedback(r.question, r.answer or {}, r.score, seed=attempt.seed),
            "rv": presentation.shown_response(r.question),
            "report_box": versioncache.report_box(request, r.question, token),
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
    subtopics = services.subtopic_report(responses)
    for row in subtopics:
        row["label"] = SUBTOPIC_LABELS.get(row["subtopic"], "")
    ctx = {
        "csrf_token": token,
        "attempt": attempt,
        "scenarios": services.scenario_report(responses)
        if attempt.exam_format == Attempt.Format.CCAF
        else [],
        "subtopics": subtopics,
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
    messages.info(
        request,
        _(
            "Practice set of the %(count)s you missed, with feedback after each answer. "
            "It is practice, so it does not count as a mock exam."
        )
        % {"count": new.question_count},
    )
    return redirect("quizzes:practice_question", pk=new.pk, position=1)


def traps(request):
    """The distractor families: the habits of mind that wrong options are tagged with."""
    return render(request, "quizzes/traps.html", {"families": FAMILIES})
