"""The sandbox: a library of recorded loops, the stepper, predict mode and uploads."""

from __future__ import annotations

import json
import logging
from collections import OrderedDict

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from core import today
from core.owners import get_owner
from studyapp.agentloop import catalogue
from studyapp.agentloop.transcript import TranscriptError, parse_transcript

from . import reference
from .charts import context_chart
from .forms import UploadForm
from .library import Run, build_run, library
from .models import UploadedRun
from .uploads import upload_parse

RAW_KEY = "sandbox_raw_json"
PREDICT_KEY = "sandbox_predictions"

logger = logging.getLogger(__name__)


# Uploads never change once stored: each process keeps the last few parsed and checked, so a
# step of a 200-turn upload does not re-read, re-parse and re-check all 200 turns.
_UPLOADED_RUNS: OrderedDict[tuple, Run] = OrderedDict()
_UPLOADED_RUNS_MAX = 32


def _uploaded_run(request, pk: int) -> Run:
    owner = get_owner(request, create=False)
    upload = get_object_or_404(UploadedRun.objects.owned_by(owner).defer("data"), pk=pk)
    key = (pk, upload.size, upload.created_at)
    run = _UPLOADED_RUNS.get(key)
    if run is not None:
        _UPLOADED_RUNS.move_to_end(key)
        return run
    try:
        transcript = parse_transcript(upload.data, strict=False)
    except TranscriptError as e:  # stored before a stricter parser: say so, don't crash
        raise Http404(f"This upload can no longer be read: {e}") from e
    run = build_run(f"u{pk}", transcript, uploaded_pk=pk)
    _UPLOADED_RUNS[key] = run
    while len(_UPLOADED_RUNS) > _UPLOADED_RUNS_MAX:
        _UPLOADED_RUNS.popitem(last=False)
    return run


def _run(request, slug: str | None = None, pk: int | None = None) -> Run:
    if pk is not None:
        return _uploaded_run(request, pk)
    run = library().get(slug or "")
    if run is None:
        raise Http404("No recorded loop with that name")
    return run


def _step_url(run: Run, n: int, mode: str = "steps") -> str:
    if run.live_pk:
        return reverse("sandbox:live_steps", args=[run.live_pk, n])
    if run.uploaded_pk:
        return reverse(f"sandbox:upload_{mode}", args=[run.uploaded_pk, n])
    return reverse(f"sandbox:{mode}", args=[run.key, n])


def _run_url(run: Run, name: str) -> str:
    if run.uploaded_pk:
        return reverse(f"sandbox:upload_{name}", args=[run.uploaded_pk])
    return reverse(f"sandbox:{name}", args=[run.key])


def sandbox_index(request):
    runs = sorted(library().runs().values(), key=lambda r: r.title)
    owner = get_owner(request, create=False)
    uploads = list(UploadedRun.objects.owned_by(owner).only("pk", "title", "created_at"))
    tag = request.GET.get("tag", "")
    tags = sorted({t for r in runs for t in r.transcript.tags})
    if tag:
        runs = [r for r in runs if tag in r.transcript.tags]
    return render(
        request,
        "sandbox/index.html",
        {"runs": runs, "uploads": uploads, "tags": tags, "tag": tag},
    )


def _block_views(turn, raw: bool) -> list[dict]:
    views = []
    for block in turn.blocks:
        data = block.data
        view = {
            "block": block,
            "type": block.type,
            "data": data,
            "known": block.known,
            "json": json.dumps(data, indent=2, ensure_ascii=False),
        }
        if block.type in ("tool_use", "server_tool_use"):
            view["input_json"] = json.dumps(data.get("input", {}), indent=2, ensure_ascii=False)
        views.append(view)
    return views


def _result_views(turn) -> list[dict]:
    views = []
    for result in turn.tool_results:
        content = result.get("content", "")
        if isinstance(content, list):
            text = "\n".join(
                c.get("text", json.dumps(c, ensure_ascii=False)) if isinstance(c, dict) else str(c)
                for c in content
            )
        else:
            text = "" if content is None else str(content)
        views.append(
            {
                "id": result.get("tool_use_id", ""),
                "is_error": result.get("is_error") is True,
                "text": text,
                "json": json.dumps(result, indent=2, ensure_ascii=False),
            }
        )
    return views


def _jumps(run: Run, index: int) -> dict:
    turns = run.transcript.turns
    after = range(index + 1, len(turns))
    next_tool = next((i for i in after if turns[i].stop_reason == "tool_use"), None)
    finding_steps = sorted({f.step for f in run.findings if f.step is not None and f.step > index})
    return {
        "next_tool": next_tool + 1 if next_tool is not None else None,
        "next_finding": finding_steps[0] + 1 if finding_steps else None,
    }


def _usage_html(run: Run, series: list[dict], current: int, prefix: str, suffix: str):
    """The context chart and its table: rendered once per run and link form, then only the
    current step is marked (a long run's chart and table would otherwise cost every step)."""
    cache = run.rendered
    key = ("usage", prefix, suffix)
    html = cache.get(key)
    if html is None:
        chart = context_chart(series, -1, lambda s: f"{prefix}{s}/{suffix}")
        rows = "".join(
            f'<tr data-step="{r["step"]}"><th scope="row">{r["step"] + 1}</th>'
            f"<td>{int(r['context_tokens'])}</td><td>{int(r['output_tokens'])}</td>"
            f"<td>{int(r['cache_read_input_tokens'])}</td></tr>"
            for r in series
        )
        html = cache[key] = (chart, rows)
    chart, rows = html
    bar = f'<rect class="c-bar" data-step="{current}"'
    row = f'<tr data-step="{current}">'
    return {
        "chart": mark_safe(chart.replace(bar, bar.replace("c-bar", "c-bar is-current"), 1)),  # noqa: S308 - numbers and escaped URLs
        "rows": mark_safe(rows.replace(row, f'<tr data-step="{current}" class="is-current">', 1)),  # noqa: S308 - numbers only
    }


def step_context(request, run: Run, n: int) -> dict:
    turns = run.transcript.turns
    if not 1 <= n <= len(turns):
        raise Http404("No such step")
    turn = turns[n - 1]
    # ?raw=1 / ?raw=0 (the toggle is a GET form, so a library step stays one cacheable page per
    # URL); without it, the preference a visitor saved with the older POST toggle.
    chosen = request.GET.get("raw")
    raw = chosen == "1" if chosen in ("0", "1") else bool(request.session.get(RAW_KEY, False))
    suffix = "?raw=1" if chosen == "1" else ""
    info = catalogue.STOP_REASONS.get(turn.stop_reason or "")
    action = catalogue.NEXT_ACTIONS.get(turn.action or "")
    is_last = n == len(turns)
    capped = is_last and run.transcript.ended_by in ("turn_cap", "repeated_call")
    # One reverse() for every step link: a 200-step run's chart links each of its bars.
    prefix = _step_url(run, 1).removesuffix("1/")
    series = run.usage_series
    return {
        "run": run,
        "n": n,
        "total": len(turns),
        "turn": turn,
        "blocks": _block_views(turn, raw),
        "results": _result_views(turn),
        "raw": raw,
        "info": info,
        "action": action,
        "is_last": is_last,
        "capped": capped,
        "listing": reference.listing(turn.stop_reason, turn.action, capped),
        # where the next request depends on the model: this run's model vs today's models
        "today_rows": today.decision_rows(run.transcript.params_for(turn.index), turn.response),
        "appended_json": json.dumps(turn.appended, indent=2, ensure_ascii=False)
        if turn.appended is not None
        else "",
        "request_json": json.dumps(turn.request, indent=2, ensure_ascii=False),
        "tool_choice_json": json.dumps(run.transcript.tool_choice)
        if run.transcript.tool_choice
        else "",
        "findings": [f for f in run.findings if f.step == turn.index],
        "run_findings": [f for f in run.findings if f.step is None],
        "usage": _usage_html(run, series, turn.index, prefix, suffix),
        "jumps": _jumps(run, turn.index),
        "urls": {
            "first": f"{prefix}1/{suffix}",
            "prev": f"{prefix}{n - 1}/{suffix}" if n > 1 else None,
            "next": f"{prefix}{n + 1}/{suffix}" if not is_last else None,
            "last": f"{prefix}{len(turns)}/{suffix}",
            "predict": _step_url(run, 1, "predict"),
            "self": f"{prefix}{n}/",
            "raw_toggle": f"{prefix}{n}/",
        },
        "step_url": lambda s: f"{prefix}{s}/{suffix}",
    }


def step(request, n: int, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    ctx = step_context(request, run, n)
    for key in ("next_tool", "next_finding"):
        target = ctx["jumps"][key]
        ctx["jumps"][key + "_url"] = ctx["step_url"](target) if target else None
    # A history-restore request (back button after a cache miss) needs the whole page.
    partial = request.htmx and not request.htmx.history_restore_request
    template = "sandbox/step.html#stepper" if partial else "sandbox/step.html"
    return render(request, template, ctx)


def run_start(request, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    return redirect(_step_url(run, 1))


@require_POST
def toggle_raw(request):
    request.session[RAW_KEY] = not request.session.get(RAW_KEY, False)
    target = request.POST.get("next", "")
    if not target.startswith("/sandbox/"):
        target = reverse("sandbox:index")
    return redirect(target)


# --- predict mode ----------------------------------------------------------------------------

PREDICT_CHOICES = list(catalogue.CANONICAL_ACTIONS) + [
    "send_continue_message",
    "run_tools_separately",
    "retry_unchanged",
]


@require_http_methods(["GET", "POST"])
def predict(request, n: int, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    turns = run.transcript.turns
    if not 1 <= n <= len(turns):
        raise Http404("No such step")
    turn = turns[n - 1]
    store = request.session.setdefault(PREDICT_KEY, {})
    answers = store.setdefault(run.key, {})
    error = ""
    if request.method == "POST":
        choice = request.POST.get("action", "")
        if choice not in PREDICT_CHOICES:
            error = "Choose what the loop must do next."
        elif str(n) not in answers:
            answers[str(n)] = choice
            request.session.modified = True
    chosen = answers.get(str(n))
    right = turn.action
    ctx = step_context(request, run, n)
    ctx.update(
        {
            "mode": "predict",
            "choices": [catalogue.NEXT_ACTIONS[c] for c in PREDICT_CHOICES],
            "chosen": catalogue.NEXT_ACTIONS.get(chosen or ""),
            "right": catalogue.NEXT_ACTIONS.get(right or ""),
            "is_right": chosen is not None and chosen == right,
            "error": error,
            "predict_next": _step_url(run, n + 1, "predict") if n < len(turns) else None,
            "summary_url": _run_url(run, "predict_summary"),
        }
    )
    template = "sandbox/predict.html"
    if request.htmx and request.method == "POST":
        template += "#verdict"
    return render(request, template, ctx)


def predict_summary(request, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    answers = request.session.get(PREDICT_KEY, {}).get(run.key, {})
    rows = []
    for turn in run.transcript.turns:
        chosen = answers.get(str(turn.index + 1))
        rows.append(
            {
                "n": turn.index + 1,
                "stop_reason": turn.stop_reason,
                "chosen": catalogue.NEXT_ACTIONS.get(chosen or ""),
                "right": catalogue.NEXT_ACTIONS.get(turn.action or ""),
                "ok": chosen == turn.action,
                "url": _step_url(run, turn.index + 1, "predict"),
            }
        )
    answered = [r for r in rows if r["chosen"]]
    return render(
        request,
        "sandbox/predict_summary.html",
        {
            "run": run,
            "rows": rows,
            "answered": len(answered),
            "right": sum(r["ok"] for r in answered),
            "reset_url": _run_url(run, "predict_reset"),
        },
    )


@require_POST
def predict_reset(request, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    store = request.session.get(PREDICT_KEY, {})
    store.pop(run.key, None)
    request.session[PREDICT_KEY] = store
    return redirect(_step_url(run, 1, "predict"))


# --- uploads -------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def upload(request):
    form = UploadForm(request.POST or None, request.FILES or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            transcript, text = upload_parse(form.cleaned_data["text"], form.cleaned_data["file"])
        except TranscriptError as e:
            error = str(e)
            logger.info("upload rejected: %s", error)
        else:
            owner = get_owner(request)
            title = form.cleaned_data["title"] or transcript.title or "My uploaded run"
            data = transcript.to_dict()
            data["title"] = title
            run = UploadedRun.objects.create(
                user=owner.user,
                owner_token=owner.token,
                title=title[:200],
                source=transcript.source,
                data=data,
                size=len(text.encode()),
            )
            messages.success(request, f"Uploaded “{run.title}”: {len(transcript.turns)} steps.")
            return redirect("sandbox:upload_steps", pk=run.pk, n=1)
    status = 400 if error else 200
    return render(request, "sandbox/upload.html", {"form": form, "error": error}, status=status)


@require_POST
def upload_delete(request, pk: int):
    owner = get_owner(request, create=False)
    run = get_object_or_404(UploadedRun.objects.owned_by(owner), pk=pk)
    run.delete()
    messages.success(request, f"Deleted “{run.title}”.")
    return redirect("sandbox:index")
