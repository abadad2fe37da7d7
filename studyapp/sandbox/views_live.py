"""Live mode: drive the refund scenarios against the Messages API, one call per step."""

from __future__ import annotations

import json
import queue
import threading

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.owners import get_owner
from studyapp.agentloop import demo, models, runner

from . import live as services
from .forms import ForkForm, LiveForm
from .models import LiveRun
from .views import step_context

RUN_END_RULES = {"loop-ignores-stop-reason", "max-tokens-as-done", "cap-only-stop"}


def _live(request, pk: int) -> LiveRun:
    owner = get_owner(request, create=False)
    return get_object_or_404(LiveRun.objects.owned_by(owner), pk=pk)


def _form(data=None):
    return LiveForm(
        data,
        scenarios=demo.SCENARIOS.values(),
        tool_names=[t["name"] for t in demo.TOOLS],
        default_model=settings.ANTHROPIC_MODEL,
    )


@require_http_methods(["GET", "POST"])
def live_index(request):
    enabled = runner.api_key_configured()
    form = _form(request.POST or None)
    if request.method == "POST" and enabled and form.is_valid():
        try:
            live = services.live_start(
                owner=get_owner(request),
                scenario=form.cleaned_data["scenario"],
                prompt=form.cleaned_data["prompt"],
                options=form.cleaned_data["options"],
            )
        except (runner.RunnerError, ValueError) as e:
            form.add_error(None, str(e))
        else:
            return redirect("sandbox:live_run", pk=live.pk)
    owner = get_owner(request, create=False)
    runs = list(LiveRun.objects.owned_by(owner).only("pk", "title", "updated_at")[:20])
    return render(
        request,
        "sandbox/live_index.html",
        {
            "enabled": enabled,
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
        },
    )


def model_table() -> list[dict]:
    """What each model served today accepts, for the start page (from the model catalogue)."""
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


def live_run(request, pk: int):
    live = _live(request, pk)
    run = services.load(live)
    model = run.effective_params.get("model", "")
    rules = models.get_model(model)
    sandbox_run = services.as_sandbox_run(live)
    ctx = {
        "live": live,
        "run": run,
        "enabled": runner.api_key_configured(),
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
        "fork_form": ForkForm(initial={"at_step": len(run.turns)}, model=model),
        "model_status": rules.status_text() if rules else "rules unknown for this model",
        "tokens_today": services.tokens_today(get_owner(request, create=False)),
        "daily_cap": services.daily_cap(),
    }
    if sandbox_run is not None:
        ctx["step"] = step_context(request, sandbox_run, len(sandbox_run.transcript.turns))
        if run.status != "ended":  # lints about how a run ended don't apply to one still going
            ctx["step"]["findings"] = [
                f for f in ctx["step"]["findings"] if f.rule not in RUN_END_RULES
            ]
    ctx["tool_choice_json"] = json.dumps(run.params.get("tool_choice") or {"type": "auto"})
    return render(request, "sandbox/live_run.html", ctx)


def live_steps(request, pk: int, n: int):
    """The stepper over a live run's turns so far."""
    live = _live(request, pk)
    sandbox_run = services.as_sandbox_run(live)
    if sandbox_run is None:
        return redirect("sandbox:live_run", pk=pk)
    ctx = step_context(request, sandbox_run, n)
    ctx["live"] = live
    partial = request.htmx and not request.htmx.history_restore_request
    return render(request, "sandbox/step.html#stepper" if partial else "sandbox/step.html", ctx)


def _tool_results(request, run) -> dict:
    results = {}
    for block in run.pending_tool_uses:
        content = request.POST.get(f"result-{block['id']}", "")
        if len(content) > runner.MAX_RESULT_CHARS:
            raise runner.RunnerError(
                f"The result for {block['id']} is longer than {runner.MAX_RESULT_CHARS:,} "
                "characters."
            )
        results[block["id"]] = {
            "content": content,
            "is_error": request.POST.get(f"error-{block['id']}") == "on",
        }
    return results


def _report(request, results) -> None:
    for result in results:
        if result.error is not None:
            messages.error(request, f"The API call failed: {result.error.message}")
        elif result.kind == "ended" and result.ended_reason:
            messages.info(request, result.ended_reason)


@require_POST
def live_step(request, pk: int):
    live = _live(request, pk)
    owner = get_owner(request)
    to_end = request.POST.get("until") == "end"
    try:
        tool_results = None
        if request.POST.get("manual") == "1":
            tool_results = _tool_results(request, services.load(live))
        if request.headers.get("Accept") == "text/event-stream" and not to_end:
            return _stream_step(owner, live, tool_results)
        _report(
            request,
            services.live_step(owner=owner, live=live, to_end=to_end, tool_results=tool_results),
        )
    except (services.LiveError, runner.RunnerError) as e:
        messages.error(request, str(e))
    return redirect("sandbox:live_run", pk=pk)


def _stream_step(owner, live, tool_results):
    """Server-sent events: text deltas as they arrive, then 'done' when the step is saved.

    Only the API call runs in a worker thread; the database is touched in this one.
    """
    run = services.live_prepare(owner=owner, live=live)
    deltas: queue.Queue = queue.Queue()
    outcome: dict = {}

    def work():
        try:
            outcome["result"] = run.step(on_text=deltas.put, tool_results=tool_results)
        except runner.RunnerError as e:
            outcome["error"] = str(e)
        finally:
            deltas.put(None)

    def events():
        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        while (delta := deltas.get()) is not None:
            yield f"event: text\ndata: {json.dumps(delta)}\n\n"
        thread.join()
        result = outcome.get("result")
        if result is not None:
            services.live_persist(owner=owner, live=live, run=run, results=[result])
        error = outcome.get("error") or (result.error.message if result and result.error else "")
        yield f"event: done\ndata: {json.dumps({'error': error})}\n\n"

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@require_POST
def live_stop(request, pk: int):
    services.live_stop(live=_live(request, pk), reason="Stopped by the learner.")
    return redirect("sandbox:live_run", pk=pk)


@require_POST
def live_fork(request, pk: int):
    live = _live(request, pk)
    model = services.load(live).effective_params.get("model", "")
    form = ForkForm(request.POST, model=model)
    if not form.is_valid():
        messages.error(request, "Choose how many steps to keep (a whole number).")
        return redirect("sandbox:live_run", pk=pk)
    try:
        changes = form.changes()
    except ValidationError as e:
        messages.error(request, f"Can't fork there: {' '.join(e.messages)}")
        return redirect("sandbox:live_run", pk=pk)
    try:
        new = services.live_fork(
            owner=get_owner(request),
            live=live,
            at_step=form.cleaned_data["at_step"],
            changes=changes,
        )
    except (runner.RunnerError, ValueError) as e:
        messages.error(request, f"Can't fork there: {e}")
        return redirect("sandbox:live_run", pk=pk)
    messages.success(request, f"Forked at step {form.cleaned_data['at_step']}.")
    return redirect("sandbox:live_run", pk=new.pk)


@require_POST
def live_save(request, pk: int):
    saved = services.live_save(owner=get_owner(request), live=_live(request, pk))
    messages.success(request, f"Saved to your runs as “{saved.title}”.")
    return redirect("sandbox:upload_steps", pk=saved.pk, n=1)
