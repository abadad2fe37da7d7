"""Live mode: drive the refund scenarios against the Messages API, one call per step."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.humanize.templatetags.humanize import intcomma
from django.core.exceptions import ValidationError
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core import urlcache
from core.owners import get_owner, owned_object, owned_objects
from core.prepared import prepared
from studyapp.agentloop import demo, models, runner, runner_checks

from . import jobs, keys
from . import live as services
from .forms import ForkForm, LiveForm, OwnKeyForm, per_catalogue
from .models import LiveJob, LiveRun
from .views import step_context
from .words import said, stored_words

RUN_END_RULES = {"loop-ignores-stop-reason", "max-tokens-as-done", "cap-only-stop"}


def _live(request, pk: int) -> LiveRun:
    """The visitor's live run, or 404 (its query compiled once: core/owners.owned_object)."""
    owner = get_owner(request, create=False)
    live = owned_object(
        "sandbox-live", owner, lambda owned, pk: owned(LiveRun.objects).filter(pk=pk), pk=pk
    )
    if live is None:
        raise Http404("No LiveRun matches the given query.")
    return live


def _with_last_job(owned, pk: int):
    last = LiveJob.objects.filter(live=OuterRef("pk")).order_by("-pk")
    return (
        owned(LiveRun.objects)
        .annotate(
            last_job_pk=Subquery(last.values("pk")[:1]),
            last_job_status=Subquery(last.values("status")[:1]),
        )
        .filter(pk=pk)
    )


def _form(data=None):
    return LiveForm(
        data,
        scenarios=demo.SCENARIOS.values(),
        tool_names=[t["name"] for t in demo.TOOLS],
        default_model=settings.ANTHROPIC_MODEL,
    )


def server_key_refusal(request) -> str:
    """Why this visitor may not spend the server's key ('' when they may)."""
    if not runner.api_key_configured():
        return _(
            "Live mode is off on this server (no ANTHROPIC_API_KEY): bring your own API key "
            "for this run."
        )
    if not request.user.is_authenticated:
        return _(
            "Only signed-in accounts may use this server's API key. Sign in, or bring your "
            "own API key for this run."
        )
    return ""


def who_pays(request, live: LiveRun) -> tuple[str, str, str | None]:
    """(key source, payer, the visitor's own key) for the next call; LiveError if nobody."""
    own = keys.own_key(request, live.pk)
    if own:
        return "own", "", own
    refusal = server_key_refusal(request)
    if refusal:
        raise services.LiveError(refusal)
    return "server", services.payer_key(request.user), None


@require_http_methods(["GET", "POST"])
def live_index(request):
    enabled = runner.api_key_configured()
    form = _form(request.POST) if request.POST else None
    if form is not None and form.is_valid():
        own = form.cleaned_data["api_key"]
        refusal = "" if own else server_key_refusal(request)
        if refusal:
            form.add_error(None, refusal)
        else:
            try:
                live = services.live_start(
                    owner=get_owner(request),
                    scenario=form.cleaned_data["scenario"],
                    prompt=form.cleaned_data["prompt"],
                    options=form.cleaned_data["options"],
                )
            except (runner.RunnerError, ValueError) as e:
                form.add_error(None, said(e))
            else:
                if own:
                    keys.remember(request, live.pk, own)
                return redirect("sandbox:live_run", pk=live.pk)
    owner = get_owner(request, create=False)
    runs = owned_objects(  # its SQL compiled once (core/owners.owned_objects)
        "sandbox-live-index",
        owner,
        lambda owned: owned(LiveRun.objects).only("pk", "title", "updated_at")[:20],
    )
    ctx = {
        "enabled": enabled,
        "signed_in": request.user.is_authenticated,
        "form": form,
        "runs": runs,
        "scenarios": demo.SCENARIOS.values(),
        "model_table": model_table(),
        "caps": {
            "turns": runner.TURN_CAP,
            "tokens": runner.TOKEN_BUDGET_CAP,
            "seconds": runner.WALL_CLOCK_CAP_S,
            "daily": services.daily_cap(),
        },
    }
    if form is None:
        ctx["fields_html"] = start_fields(ctx)
    else:
        ctx["help_html"] = start_help(ctx)
    return render(request, "sandbox/live_index.html", ctx)


def start_help(ctx: dict) -> dict[str, str]:
    """What the start form says about the scenarios and the models (its two <details>, about
    half of a refused form's fields: seventeen models, every scenario, a dozen translations),
    rendered once per language, URLconf and model catalogue (forms.per_catalogue), like the
    fields themselves: from the scenarios and the model table alone, never the form or the
    visitor (tests/test_fields.py compares them with the fields partial written inline)."""

    def build(*_key) -> dict[str, str]:
        shown = {"scenarios": ctx["scenarios"], "model_table": ctx["model_table"]}
        parts = {"scenarios": "scenario-help", "models": "model-help"}
        return {
            name: mark_safe(render_to_string(f"sandbox/live_index.html#{part}", shown))  # noqa: S308 - our template's autoescaped output
            for name, part in parts.items()
        }

    return per_catalogue("live-start-help", build, *urlcache.where())


def start_fields(ctx: dict) -> str:
    """The start form's fields as a visitor first sees them (sandbox/live_index.html#fields:
    about twenty widgets, most of the page's time), rendered once per language, URLconf,
    default model, server caps and model catalogue (forms.per_catalogue), not per visit: an
    unbound form holds nothing of the visitor (its CSRF token is outside the part kept)."""
    caps = ctx["caps"]

    def build(*_key) -> str:
        html = render_to_string("sandbox/live_index.html#fields", {**ctx, "form": _form()})
        return mark_safe(html)  # noqa: S308 - our template's autoescaped output

    return per_catalogue(
        "live-start-fields",
        build,
        settings.ANTHROPIC_MODEL,
        caps["turns"],
        caps["tokens"],
        caps["seconds"],
        *urlcache.where(),
    )


def model_table() -> list[dict]:
    """What each model served today accepts, for the start page (from the model catalogue,
    built once per language and catalogue: forms.per_catalogue)."""
    return per_catalogue("model-table", _model_table)


def _model_table() -> list[dict]:
    return [
        {
            "id": m.id,
            "status": m.status_text(),
            "forced": models.per_model("forced-tool-choice", m.id),
            "off": models.per_model("thinking-disabled", m.id),
            "manual": models.per_model("manual-thinking", m.id),
        }
        for m in models.live_models()
    ]


def _damaged(request, live, error) -> HttpResponse:
    return render(
        request,
        "sandbox/live_damaged.html",
        {"live": live, "error": said(error)},
    )


def ended_words(run) -> str:
    """How the run ended, in the page's language where the runner kept a message id (the
    guards' and the stop_reason's reasons, a stop); the runner's English otherwise."""
    return stored_words(getattr(run, "ended_reason_msg", None), run.ended_reason)


def error_words(error: dict | None) -> str:
    """A failed call's message (``live.last_error``, a StepError's dict) in the page's language."""
    if not error:
        return ""
    return stored_words(error.get("msg"), str(error.get("message") or ""))


def live_run(request, pk: int):
    # The run and the status of its last job are read in one statement, so they agree: a worker
    # saves the run and then ends its job, and two reads could see the run from before a call
    # and the job from after it (a stale page that does not follow the call).
    live = owned_object(
        "sandbox-live-with-job", get_owner(request, create=False), _with_last_job, pk=pk
    )
    if live is None:
        raise Http404("No LiveRun matches the given query.")
    job = (
        prepared(
            ("sandbox-live-job",), lambda pk: LiveJob.objects.filter(pk=pk), pk=1_999_999_001
        ).first(pk=live.last_job_pk)
        if live.last_job_pk
        else None
    )
    # Seen active with the run: the page follows the job, even if it has ended since (its next
    # poll, a second later, reloads the page with the run as the job left it).
    active = job is not None and live.last_job_status in LiveJob.ACTIVE
    if active and job.status in LiveJob.ACTIVE and jobs.expire_stale(live):
        # its worker died (or none picked it up): this request failed it, and the run is as the
        # worker left it, so the page says so now
        job.refresh_from_db()
        active = False
    try:
        run = services.load(live)
        sandbox_run = services.as_sandbox_run(live, run)
    except (runner.RunnerError, ValueError) as e:
        return _damaged(request, live, e)
    model = run.effective_params.get("model", "")
    rules = models.get_model(model)
    own = keys.has_own_key(request, live.pk)
    refusal = "" if own else server_key_refusal(request)
    payer = services.payer_key(request.user) if request.user.is_authenticated and not own else ""
    ctx = {
        "live": live,
        "run": run,
        "job": job if active else None,
        "ended_words": ended_words(run),
        "last_error_words": error_words(live.last_error),
        "job_failed": stored_words(job.error_msg, job.error)
        if job is not None and job.status == LiveJob.FAILED
        else "",
        "enabled": not refusal,
        "refusal": refusal,
        "own_key": own,
        "key_field": _kept_form_part("key-field", "key_form", OwnKeyForm),
        "worst_case": runner_checks.worst_case_tokens(run) if run.status != "ended" else 0,
        "pending": [
            {
                "block": b,
                "input_json": json.dumps(b.get("input", {}), indent=2),
                "suggested": run.suggested_results().get(b["id"], {}),
            }
            for b in run.pending_tool_uses
        ],
        "next_request_json": json.dumps(run.next_request(), indent=2, ensure_ascii=False)
        if run.status != "ended"
        else "",
        "fork_fields": _kept_form_part(
            "fork-fields",
            "fork_form",
            lambda: ForkForm(initial={"at_step": len(run.turns)}, model=model),
            model,
            len(run.turns),
        ),
        "model_status": rules.status_text() if rules else _("rules unknown for this model"),
        "tokens_today": services.tokens_today(payer),
        "daily_cap": services.daily_cap(),
    }
    if sandbox_run is not None:
        ctx["step"] = step_context(request, sandbox_run, len(sandbox_run.transcript.turns))
        ctx["step"]["ended_words"] = ctx["ended_words"]  # the decision panel's guard reason
        if run.status != "ended":  # lints about how a run ended don't apply to one still going
            ctx["step"]["findings"] = [
                f for f in ctx["step"]["findings"] if f.rule not in RUN_END_RULES
            ]
    ctx["tool_choice_json"] = json.dumps(run.params.get("tool_choice") or {"type": "auto"})
    return render(request, "sandbox/live_run.html", ctx)


def _kept_form_part(part: str, name: str, make, *key) -> str:
    """An unbound form's fields on the run page (sandbox/live_run.html#<part>), rendered once
    per language, URLconf, model catalogue and ``key`` (the run's model and length: the fork
    form greys out what the model rejects) and kept: the form holds nothing of the visitor."""

    def build(*_key) -> str:
        html = render_to_string(f"sandbox/live_run.html#{part}", {name: make()})
        return mark_safe(html)  # noqa: S308 - our template's autoescaped output

    return per_catalogue(f"live-run-{part}", build, *key, *urlcache.where())


def live_steps(request, pk: int, n: int):
    """The stepper over a live run's turns so far."""
    live = _live(request, pk)
    try:
        run = services.load(live)
        sandbox_run = services.as_sandbox_run(live, run)
    except (runner.RunnerError, ValueError) as e:
        return _damaged(request, live, e)
    if sandbox_run is None:
        return redirect("sandbox:live_run", pk=pk)
    ctx = step_context(request, sandbox_run, n)
    ctx["live"] = live
    ctx["ended_words"] = ended_words(run)  # a guard's reason, as on the run page
    partial = request.htmx and not request.htmx.history_restore_request
    return render(request, "sandbox/step.html#stepper" if partial else "sandbox/step.html", ctx)


def _tool_results(request, run) -> dict:
    results = {}
    for block in run.pending_tool_uses:
        content = request.POST.get(f"result-{block['id']}", "")
        if len(content) > runner.MAX_RESULT_CHARS:
            raise runner.RunnerError(
                _("The result for %(id)s is longer than %(limit)s characters.")
                % {"id": block["id"], "limit": intcomma(runner.MAX_RESULT_CHARS)}
            )
        if "\x00" in content:  # no text column of PostgreSQL can store one
            raise runner.RunnerError(
                _("The result for %(id)s contains a NUL character (U+0000): remove it.")
                % {"id": block["id"]}
            )
        results[block["id"]] = {
            "content": content,
            "is_error": request.POST.get(f"error-{block['id']}") == "on",
        }
    return results


@require_POST
def live_step(request, pk: int):
    """Queue one API call (or "run to the end") for a worker, and go back to the run's page.

    Nothing here waits on the API: the page follows the job (htmx polling) until it is done."""
    live = _live(request, pk)
    to_end = request.POST.get("until") == "end"
    try:
        run = services.load(live)
        tool_results = None
        if request.POST.get("manual") == "1":
            tool_results = _tool_results(request, run)
            run._accept_results(run.pending_tool_uses, tool_results)  # refused here, in words
        elif run.status == "awaiting_tool_results":
            raise runner.RunnerError(_("Write the tool results first, then send them."))
        if run.status == "ended":
            raise runner.RunnerError(_("The run has ended; fork it to go on."))
        source, payer, own = who_pays(request, live)
        if source == "server":
            worst = runner_checks.worst_case_tokens(run)
            used = services.tokens_today(payer)
            if used + worst > services.daily_cap():
                raise services.LiveError(services.allowance_refusal(used, worst))
        jobs.enqueue(
            live=live,
            to_end=to_end,
            tool_results=tool_results,
            key_source=source,
            payer=payer,
            api_key=own,
        )
    except (services.LiveError, runner.RunnerError) as e:
        messages.error(request, said(e))
    return redirect("sandbox:live_run", pk=pk)


@require_GET
def live_job(request, pk: int):
    """The call in progress (htmx polls this); when it is over, the whole page reloads."""
    live = _live(request, pk)
    job = jobs.active_job(live)
    if job is None:
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Refresh"] = "true"
            return response
        return redirect("sandbox:live_run", pk=pk)
    if not request.htmx:
        return redirect("sandbox:live_run", pk=pk)
    return render(request, "sandbox/live_run.html#job", {"live": live, "job": job})


@require_POST
def live_key(request, pk: int):
    """Bring your own API key for this run, or forget it."""
    live = _live(request, pk)
    if request.POST.get("forget") == "1":
        keys.forget(request, live.pk)
        messages.success(request, _("Your key is forgotten: this run uses no key of yours now."))
        return redirect("sandbox:live_run", pk=pk)
    form = OwnKeyForm(request.POST)
    if form.is_valid():
        keys.remember(request, live.pk, form.cleaned_data["api_key"])
        messages.success(request, _("Your key is kept for this run, in your session only."))
    else:
        messages.error(request, " ".join(form.errors.get("api_key", [_("That key was refused.")])))
    return redirect("sandbox:live_run", pk=pk)


@require_POST
def live_stop(request, pk: int):
    live = _live(request, pk)
    if jobs.request_stop(live):
        messages.info(request, _("The run stops after the call in progress."))
    else:
        try:
            services.live_stop(live=live, reason=jobs.STOPPED_BY_LEARNER)
        except runner.RunnerError as e:
            messages.error(request, said(e))
    return redirect("sandbox:live_run", pk=pk)


@require_POST
def live_fork(request, pk: int):
    live = _live(request, pk)
    try:
        model = services.load(live).effective_params.get("model", "")
    except runner.RunnerError as e:
        messages.error(request, _("Can't fork this run: %(error)s") % {"error": said(e)})
        return redirect("sandbox:live_run", pk=pk)
    form = ForkForm(request.POST, model=model)
    if not form.is_valid():
        messages.error(request, _("Choose how many steps to keep (a whole number)."))
        return redirect("sandbox:live_run", pk=pk)
    try:
        changes = form.changes()
    except ValidationError as e:
        messages.error(request, _("Can't fork there: %(error)s") % {"error": " ".join(e.messages)})
        return redirect("sandbox:live_run", pk=pk)
    try:
        new = services.live_fork(
            owner=get_owner(request),
            live=live,
            at_step=form.cleaned_data["at_step"],
            changes=changes,
        )
    except (runner.RunnerError, ValueError) as e:
        messages.error(request, _("Can't fork there: %(error)s") % {"error": said(e)})
        return redirect("sandbox:live_run", pk=pk)
    own = keys.own_key(request, live.pk)
    if own:
        keys.remember(request, new.pk, own)  # the fork is the same learner's run
    messages.success(request, _("Forked at step %(n)s.") % {"n": form.cleaned_data["at_step"]})
    return redirect("sandbox:live_run", pk=new.pk)


@require_POST
def live_save(request, pk: int):
    try:
        saved = services.live_save(owner=get_owner(request), live=_live(request, pk))
    except runner.RunnerError as e:
        messages.error(request, _("Can't save this run: %(error)s") % {"error": said(e)})
        return redirect("sandbox:live_run", pk=pk)
    messages.success(request, _("Saved to your runs as “%(title)s”.") % {"title": saved.title})
    return redirect("sandbox:upload_steps", pk=saved.pk, n=1)
