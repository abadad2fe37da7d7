"""The instructor's side: the question list, the editor with its preview, and problem reports."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import (
    Count,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from core import i18n
from core.owners import get_owner
from core.prepared import prepared
from core.urlcache import kept_reverse, reverse_ints
from quizzes import grading, importing, kinds, presentation, stats, translations, versioncache
from quizzes.models import Attempt, Question
from quizzes.templatetags.quiz_tags import code_word
from studyapp.agentloop import bounded
from studyapp.sandbox.library import library

from . import forms, pickers, services
from .access import instructor_required, is_instructor
from .models import ProblemReport


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


LIST_PAGE_SIZE = 100
REPORT_PAGE_SIZE = 50


# --- the question list ---------------------------------------------------------------------


def _open_reports():
    """Open reports on any version of the row's slug, as a number (a correlated subquery)."""
    return Coalesce(
        Subquery(
            ProblemReport.objects.open()
            .filter(question__slug=OuterRef("slug"))
            .order_by()
            .values("question__slug")
            .annotate(n=Count("pk"))
            .values("n"),
            output_field=IntegerField(),
        ),
        Value(0),
    )


@instructor_required
def question_list(request: HtmxHttpRequest):
    form = forms.QuestionFilterForm(request.GET or None)
    chosen = form.cleaned_data if form.is_valid() else {}
    qs = (
        Question.objects.current()
        .only("slug", "version", "kind", "subtopic", "status", "origin", "stem", "created_at")
        .annotate(open_reports=_open_reports())
        .order_by("subtopic", "slug")
    )
    for name in ("subtopic", "kind", "status"):
        if chosen.get(name):
            qs = qs.filter(**{name: chosen[name]})
    if chosen.get("q"):
        qs = qs.filter(Q(slug__icontains=chosen["q"]) | Q(stem__icontains=chosen["q"]))
    # The statistics' flags (cached by quizzes.stats until the next exam is submitted).
    flagged = stats.needs_review_by_slug()
    if chosen.get("review"):
        qs = qs.filter(Q(open_reports__gt=0) | Q(slug__in=list(flagged)))
    page = Paginator(qs, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    status = translations.status_by_question(page.object_list)  # one query for the page
    # Each label translated once a page, not once a row (Django's get_FOO_display hashes every
    # choice of the field each time it is called).
    kind_labels = {code: str(label) for code, label in forms.KIND_LABELS.items()}
    subtopic_labels = {code: str(label) for code, label in forms.SUBTOPIC_LABELS.items()}
    words: dict[str, str] = {}  # the status and origin codes in words, once each a page
    for question in page.object_list:
        for code in (question.status, question.origin):
            if code not in words:
                words[code] = code_word(code)
        question.status_word, question.origin_word = words[question.status], words[question.origin]
        question.kind_label = kind_labels.get(question.kind, "")
        question.subtopic_label = subtopic_labels.get(question.subtopic, question.subtopic)
        question.review_reason = flagged.get(question.slug, "")
        question.translation_gaps = [
            {"tag": i18n.tag(lang), "state": state}
            for lang, state in status[question.pk].items()
            if state != "ok"
        ]
    query = request.GET.copy()
    query.pop("page", None)
    template = "authoring/question_list.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#results"
    return render(
        request,
        template,
        {"form": form, "page": page, "query": query.urlencode(), "kinds": forms.KIND_LABELS},
    )


# --- the editor ----------------------------------------------------------------------------


def _bind(request, kind: str, parsed: dict | None, editing: bool):
    initial, rows = forms.question_initial(parsed) if parsed else ({}, forms.new_rows(kind))
    if request.method != "POST":
        return (
            forms.QuestionForm(kind=kind, editing=editing, initial=initial),
            forms.OptionFormSet(prefix="opt", initial=rows),
        )
    data = request.POST
    if "add_option" in data:
        data = data.copy()
        try:
            total = int(data.get("opt-TOTAL_FORMS", "0"))
        except ValueError:
            total = 0
        data["opt-TOTAL_FORMS"] = str(max(0, min(total + 1, forms.MAX_ROWS)))
    return (
        forms.QuestionForm(data, kind=kind, editing=editing, initial=initial),
        forms.OptionFormSet(data, prefix="opt"),
    )


def _validate(
    form, rows, *, status: str, slug_if_blank: str = "", strict: bool = True
) -> tuple[dict | None, list]:
    """The parsed question if the bank's schema accepts it; problems go next to their fields."""
    if not (form.is_valid() & rows.is_valid()):
        return None, []
    question, json_errors, used = forms.build_question(form, rows, status=status)
    for field, errors in json_errors.items():
        for error in errors:
            form.add_error(field, error)
    if slug_if_blank and not question["slug"]:
        question["slug"] = slug_if_blank
    # One run of the schema for both answers (forms.check with and without the trap rule).
    parsed, lenient, problems = forms.check_both(question)
    group = forms.place_problems(problems, form, rows, used)
    if parsed is None and not strict:  # the live preview shows a wrong answer without a trap
        parsed = lenient
    return (None if json_errors else parsed), group


def _translation_status(question: Question) -> list[dict]:
    """Per translated language: "ok", "stale" (English changed since) or "missing"."""
    states = services.translation_states(question)
    return [
        {"lang": lang, "tag": i18n.tag(lang), "name": name, "state": states[lang]}
        for lang, name in settings.LANGUAGES
        if lang in states
    ]


def _preview_context(parsed: dict, stored: Question | None = None) -> dict:
    def look(question):
        # What a candidate sees after a right answer: graded, so the preview can't lie.
        answer = presentation.right_answer(question)
        score = grading.grade(question.grading_spec(), answer).score
        return {
            "question": question,
            "form_ctx": presentation.present(question, 0),
            "fb": presentation.feedback(question, answer, score),
        }

    return services.preview(parsed, look, stored=stored)


def _editor(request, *, kind: str, question: Question | None):
    editing = question is not None
    module = kinds.of(kind)
    form, rows = _bind(
        request, kind, services.question_editable(question) if editing else None, editing
    )
    ctx = {"form": form, "rows": rows, "kind": kind, "kind_label": forms.KIND_LABELS[kind]}
    ctx["concepts"] = pickers.concept_choices()  # one query: the concepts the bank uses
    ctx.update(question=question, status=200, row_list=module.ROWS, row_fields=module.ROW_FIELDS)
    ctx.update(row_legend=module.ROW_LEGEND, row_label=module.ROW_LABEL)
    ctx["row_text_label"] = getattr(module, "ROW_TEXT_LABEL", gettext_noop("Text"))
    if request.method == "POST" and "add_option" not in request.POST:
        action = request.POST.get("save", "")
        publish = action == "publish"
        new, ctx["group_errors"] = _validate(form, rows, status="published" if publish else "draft")
        if new and not editing and Question.objects.filter(slug=new["slug"]).exists():
            form.add_error("slug", _("A question with this slug already exists: choose another."))
            new = None
        if new and action in ("draft", "publish"):
            saved, changed = services.question_save(parsed=new, publish=publish)
            if not changed:
                done = _("Nothing changed: not saved.")
            elif publish:
                done = _("Version %(version)s published.") % {"version": saved.version}
            else:
                done = _("Version %(version)s saved as a draft.") % {"version": saved.version}
            messages.success(request, done)
            return redirect("author:question_edit", slug=saved.slug)
        if new:
            ctx["preview"] = _preview_context(new)
        ctx["status"] = 200 if new else 422
    if editing and request.method == "GET":
        # An imported wrong answer may have no trap yet: the editor asks for one, and the
        # preview still shows the question as candidates see it.
        _strict, parsed, ctx["problems"] = forms.check_both(
            services.question_as_bank_dict(question)
        )
        ctx["preview"] = _preview_context(parsed, stored=question) if parsed else None
    if editing:
        ctx["translation_status"] = _translation_status(question)
        ctx["versions"] = services.versions(question.slug)
    return render(request, "authoring/question_form.html", ctx, status=ctx["status"])


@instructor_required
@require_http_methods(["GET", "POST"])
def question_new(request):
    kind = request.GET.get("kind") or request.POST.get("kind", "")
    if kinds.get(kind) is None:
        return render(
            request,
            "authoring/question_kind.html",
            {"kinds": forms.KIND_LABELS, "asked": kind},
            status=400 if kind else 200,
        )
    return _editor(request, kind=kind, question=None)


@instructor_required
@require_http_methods(["GET", "POST"])
def question_edit(request, slug: str):
    question = services.current_version(slug)
    if question is None:
        raise Http404("No Question matches the given query.")
    # Its options as if prefetched, read once per process for the version (a version's options
    # never change): the editor only reads them (question_editable, the stored preview).
    versioncache.with_options(question)
    return _editor(request, kind=question.kind, question=question)


@require_POST  # a GET gets 405 before anything is looked up
@instructor_required
def question_preview(request: HtmxHttpRequest):
    """The question exactly as candidates will see it, from the editor's unsaved fields."""
    kind, original = request.POST.get("kind", ""), request.POST.get("original", "")
    if kinds.get(kind) is None:
        return render(request, "authoring/preview_page.html", {"bad_kind": kind}, status=400)
    form = forms.QuestionForm(
        request.POST, kind=kind, editing=bool(original), initial={"slug": original}
    )
    rows = forms.OptionFormSet(request.POST, prefix="opt")
    parsed, group = _validate(
        form, rows, status="published", slug_if_blank="preview-question", strict=False
    )
    problems = [str(e) for e in form.non_field_errors()] + group
    problems += [f"{form[name].label}: {e}" for name in form.errors if name != "__all__"
                 for e in form.errors[name]]  # fmt: skip
    for i, row in enumerate(rows.forms):
        problems += [
            _("Row %(n)s: %(error)s") % {"n": i + 1, "error": e}
            for errs in row.errors.values()
            for e in errs
        ]
    problems += list(rows.non_form_errors())
    ctx = {"preview": _preview_context(parsed) if parsed else None, "problems": problems}
    template = "authoring/preview_page.html"
    if request.htmx:
        template = "authoring/question_form.html#preview"
    return render(request, template, ctx)


@require_POST  # a GET gets 405 before anything is looked up
@instructor_required
def question_publish(request, slug: str):
    question = get_object_or_404(Question.objects.current(), slug=slug)
    try:
        services.question_publish(question=question)
    except services.AuthoringError as e:
        messages.error(request, str(e))
    else:
        messages.success(
            request,
            _("Version %(version)s is published: it is in practice.")
            % {"version": question.version},
        )
    return redirect("author:question_edit", slug=slug)


# --- from the sandbox ----------------------------------------------------------------------


@require_POST  # a GET gets 405 before anything is looked up
@instructor_required
def from_step(request):
    run = library().get(request.POST.get("run", ""))
    if run is None:
        raise Http404("No recorded loop with that name")
    try:
        n = int(request.POST.get("step", ""))
        turn = run.transcript.turns[n - 1] if n >= 1 else None
    except (ValueError, IndexError):
        turn = None
    if turn is None:
        raise Http404("No such step in that loop")
    try:
        question = services.draft_from_step(
            run_key=run.key, title=run.title, step=n, response=turn.response
        )
    except services.AuthoringError as e:
        messages.error(request, str(e))
        return redirect("sandbox:steps", slug=run.key, n=n)
    messages.success(
        request,
        _("Draft %(slug)s made from step %(n)s: finish and publish it.")
        % {"slug": question.slug, "n": n},
    )
    return redirect("author:question_edit", slug=question.slug)


# --- problem reports -----------------------------------------------------------------------


def _reportable(request: HttpRequest, slug: str, version: str | None) -> Question:
    """The version a report is about. Instructors may name any version; anyone else the current
    published one, or an older version they answered themselves (a review shows that one).
    Drafts and versions a visitor never met are not shown to them (404)."""
    qs = Question.objects.filter(slug=slug)
    asked = bounded.int_param(version, low=1, high=2**31 - 1)
    if is_instructor(request.user):
        found = qs.filter(version=asked).first() if asked is not None else None
        return found or get_object_or_404(qs.current())
    current = get_object_or_404(qs.published())
    if asked is None or asked == current.version:
        return current
    owner = get_owner(request, create=False)
    if owner.user is None and not owner.token:
        return current
    met = qs.filter(version=asked, responses__attempt__in=Attempt.objects.owned_by(owner)).first()
    return met or current


@require_http_methods(["GET", "POST"])
def report_problem(request: HtmxHttpRequest, slug: str):
    """Anyone who can answer a question can report it: no instructor check here."""
    form = forms.ReportForm(request.POST or None, initial={"next": request.GET.get("next", "")})
    question = _reportable(request, slug, request.POST.get("version") or request.GET.get("version"))
    sent = False
    if request.method == "POST" and form.is_valid():
        services.report_create(
            question=question, owner=get_owner(request), text=form.cleaned_data["text"]
        )
        sent = True
        if not request.htmx:
            messages.success(request, _("Thank you: your report went to the instructors."))
            target = form.cleaned_data["next"]
            safe = url_has_allowed_host_and_scheme(target, {request.get_host()})
            return redirect(target if target and safe else reverse("home"))
    ctx = {"question": question, "report_form": form, "report_sent": sent}
    if request.htmx:
        # htmx does not swap error responses, so a form with a problem comes back as a 200.
        return render(request, "quizzes/_report_problem.html", ctx)
    return render(request, "authoring/report_problem.html", ctx, status=422 if form.errors else 200)


@instructor_required
def reports(request: HtmxHttpRequest):
    form = forms.ReportFilterForm(request.GET or None)
    status = (form.cleaned_data.get("status") if form.is_valid() else "") or "open"
    qs = ProblemReport.objects.for_triage()
    if status != "all":
        qs = qs.filter(status=status)
    page = Paginator(qs, REPORT_PAGE_SIZE).get_page(request.GET.get("page"))
    _triage_rows(page.object_list)
    return render(
        request,
        "authoring/reports.html",
        {"form": form, "page": page, "status": status, "statuses": ProblemReport.Status},
    )


def _triage_rows(reports) -> None:
    """What each row of the triage list writes about its report, worked out once here instead
    of by the row's tags (two or four {% url %}, three numbers localised by {% blocktranslate %}
    and {{ }}, a date formatted twice: about 1 ms a row, 50 rows a page). Numbers are written as
    Django localises them with USE_THOUSAND_SEPARATOR off; dates in the current time zone, as
    the date filter does (``|date:"c"`` is isoformat())."""
    for report in reports:
        question = report.question
        report.edit_url = kept_reverse("author:question_edit", args=[question.slug])
        report.version_url = kept_reverse(
            "author:question_version", args=[question.slug, question.version]
        )
        report.resolve_url = reverse_ints("author:report_resolve", report.pk)
        report.pk_text, report.version_text = str(report.pk), str(question.version)
        created = timezone.localtime(report.created_at)
        report.created_iso = created.isoformat()
        report.created_shown = (
            f"{created.year:04d}-{created.month:02d}-{created.day:02d} "
            f"{created.hour:02d}:{created.minute:02d}"
        )


def _report_for_triage(pk: int) -> ProblemReport:
    """The report with its question and reporter (one query, compiled once per process), or
    404; a pk beyond the column goes through the ORM, which answers no row."""
    qs = ProblemReport.objects.select_related("question", "user")
    if not 0 < pk < 2**31:
        return get_object_or_404(qs, pk=pk)
    query = prepared(("author-report",), lambda pk: qs.filter(pk=pk), pk=1_999_999_001)
    report = query.first(pk=pk)
    if report is None:
        raise Http404("No ProblemReport matches the given query.")
    return report


@require_POST  # a GET gets 405 before anything is looked up
@instructor_required
def report_resolve(request: HtmxHttpRequest, pk: int):
    report = _report_for_triage(pk)
    try:
        services.report_close(
            report=report,
            outcome=request.POST.get("outcome", ""),
            by=request.user,
            note=request.POST.get("note", ""),
        )
    except services.AuthoringError as e:
        messages.error(request, str(e))
        return redirect("author:reports")
    if request.htmx:
        _triage_rows([report])
        return render(request, "authoring/reports.html#report-row", {"report": report})
    messages.success(
        request,
        _("Report %(pk)s %(status)s.")
        % {"pk": report.pk, "status": str(report.get_status_display()).lower()},
    )
    return redirect("author:reports")


# --- old versions -------------------------------------------------------------------------


def _as_yaml(question: Question) -> list[str]:
    from quizzes.formats import yamlfmt

    return yamlfmt.export([importing.question_to_bank(question)])[0].splitlines()


@instructor_required
@require_http_methods(["GET"])
def question_version(request, slug: str, version: int):
    """Any version, read-only, as candidates saw it, with its diff from the version before."""
    import difflib

    rows = {
        q.version: q
        for q in Question.objects.filter(
            slug=slug, version__in=[version - 1, version]
        ).prefetch_related("options")
    }
    question = rows.get(version)
    if question is None:
        raise Http404("No such version.")
    before = rows.get(version - 1)
    diff = []
    if before is not None:
        for line in difflib.unified_diff(_as_yaml(before), _as_yaml(question), lineterm="", n=2):
            if line.startswith(("---", "+++")):
                continue
            change = {"+": "added", "-": "removed", "@": "hunk"}.get(line[:1], "same")
            diff.append({"change": change, "text": line})
    answer = presentation.right_answer(question)
    preview = {
        "question": question,
        "form_ctx": presentation.present(question, 0),
        "fb": presentation.feedback(
            question, answer, grading.grade(question.grading_spec(), answer).score
        ),
    }
    return render(
        request,
        "authoring/question_version.html",
        {"question": question, "before": before, "diff": diff, "preview": preview},
    )
