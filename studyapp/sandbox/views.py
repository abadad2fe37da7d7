"""The sandbox: a library of recorded loops, the stepper, predict mode and uploads."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import secrets
from collections import OrderedDict

from django.contrib import messages
from django.contrib.humanize.templatetags.humanize import intcomma
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from core import i18n, today, urlcache
from core.i18n import generated
from core.owners import get_owner, owned_object
from studyapp.agentloop import catalogue
from studyapp.agentloop.runner import RunnerError
from studyapp.agentloop.transcript import TranscriptError, parse_transcript

from . import blockhtml, reference
from . import compare as compare_module
from . import live as live_services
from . import predict as predict_rules
from .charts import context_chart, context_markers
from .forms import UploadForm
from .leanjson import indented_json, lean_json
from .library import Run, build_run, library
from .models import LiveRun, PredictAnswer, UploadedRun
from .uploads import upload_parse

RAW_KEY = "sandbox_raw_json"
PREDICT_KEY = "sandbox_predictions"

logger = logging.getLogger(__name__)


# Uploads parsed and checked once, at upload time (and once per process after a restart): a
# step page then costs the same at 200 turns as at 5.
_UPLOADED: OrderedDict[tuple[int, str], Run] = OrderedDict()
_UPLOADED_MAX = 64
_UPLOADED_RUNS = _UPLOADED  # the name main's speed work used


def _uploaded_run(upload: UploadedRun) -> Run:
    key = (upload.pk, upload.created_at.isoformat())
    run = _UPLOADED.get(key)
    if run is None:
        try:
            transcript = parse_transcript(upload.data, strict=False)
        except TranscriptError as e:  # stored before a stricter parser: say so, don't crash
            raise Http404(f"This upload can no longer be read: {e}") from e
        transcript.source = upload.source or transcript.source  # a lone response stays one
        run = build_run(f"u{upload.pk}", transcript, uploaded_pk=upload.pk)
        _UPLOADED[key] = run
        while len(_UPLOADED) > _UPLOADED_MAX:
            _UPLOADED.popitem(last=False)
    else:
        _UPLOADED.move_to_end(key)
    return run


def _shared_run(token: str) -> Run:
    """A run read through its published link: anyone with the link, read-only."""
    if not token or len(token) < 20:
        raise Http404("No shared run with that link")
    upload = get_object_or_404(
        UploadedRun.objects.only("pk", "created_at", "source"), share_token=token
    )
    key = (upload.pk, upload.created_at.isoformat())
    if key not in _UPLOADED:
        upload.refresh_from_db(fields=["data"])
    run = _uploaded_run(upload)
    return dataclasses.replace(run, shared=token)


def _run(request, slug: str | None = None, pk: int | None = None) -> Run:
    if pk is not None:
        owner = get_owner(request, create=False)
        upload = owned_object(  # its SQL compiled once (core/owners.owned_object)
            "sandbox-upload",
            owner,
            lambda owned, pk: (
                owned(UploadedRun.objects)
                .only("pk", "created_at", "source", "share_token")
                .filter(pk=pk)
            ),
            pk=pk,
        )
        if upload is None:
            raise Http404("No UploadedRun matches the given query.")
        request._upload_share = upload.share_token
        key = (upload.pk, upload.created_at.isoformat())
        if key in _UPLOADED:
            return _uploaded_run(upload)
        upload.refresh_from_db(fields=["data"])
        return _uploaded_run(upload)

    run = library().get(slug or "")
    if run is None:
        raise Http404("No recorded loop with that name")
    return run


def _step_url(run: Run, n: int, mode: str = "steps") -> str:
    if run.shared:  # read-only: no predict mode through a shared link
        return reverse("sandbox:shared_steps", args=[run.shared, n])
    if run.live_pk:
        return reverse("sandbox:live_steps", args=[run.live_pk, n])
    if run.uploaded_pk:
        return reverse(f"sandbox:upload_{mode}", args=[run.uploaded_pk, n])
    return reverse(f"sandbox:{mode}", args=[run.key, n])


def _run_url(run: Run, name: str) -> str:
    if run.shared:
        return reverse(f"sandbox:shared_{name}", args=[run.shared])
    if run.uploaded_pk:
        return reverse(f"sandbox:upload_{name}", args=[run.uploaded_pk])
    return reverse(f"sandbox:{name}", args=[run.key])


#: The run list as sandbox/index.html#run-list renders it, by tag, language and where URLs
#: point, each with the runs it shows; for the runs in ``_run_lists_of`` (new runs: afresh).
_run_lists: dict[tuple, tuple[dict, str]] = {}
_run_lists_of: list[dict | None] = [None]
RUN_LISTS_MAX = 256  # languages × tags: a few dozen


def _run_list(library_runs: dict, runs: list, tag: str) -> str:
    """The library's run list (about 400 template nodes for two dozen runs) rendered once per
    tag and language instead of on every visit: it holds nothing of the visitor, only the
    library's runs (a changed file gives a new dict of them, and the lists kept are dropped)
    and this language's words and URLs."""
    if _run_lists_of[0] is not library_runs:
        _run_lists.clear()
        _run_lists_of[0] = library_runs
    key = (tag, *urlcache.where())
    # (a tag no run has gives the empty list: one key for all, whatever a visitor types)
    kept = _run_lists.get(key)
    if kept is None or kept[0] is not library_runs:  # (a list another thread rendered late)
        html = render_to_string("sandbox/index.html#run-list", {"runs": runs})
        if len(_run_lists) >= RUN_LISTS_MAX:
            _run_lists.clear()
        kept = _run_lists[key] = (library_runs, html)
    return mark_safe(kept[1])  # noqa: S308 - our template's autoescaped output


def sandbox_index(request):
    library_runs = library().runs()
    runs = sorted(library_runs.values(), key=lambda r: r.title)
    owner = get_owner(request, create=False)
    uploads = list(UploadedRun.objects.owned_by(owner).only("pk", "title", "created_at"))
    tag = request.GET.get("tag", "")
    tags = sorted({t for r in runs for t in r.transcript.tags})
    if tag:
        runs = [r for r in runs if tag in r.transcript.tags]
    return render(
        request,
        "sandbox/index.html",
        {
            "run_list": _run_list(library_runs, runs, tag if tag in tags or not tag else "\x00"),
            "uploads": uploads,
            "tags": tags,
            "tag": tag,
        },
    )


def _blocks_html(block_views, raw: bool) -> str:
    """The response's blocks as sandbox/_blocks.html renders them (written in blockhtml.py);
    ``block_views``: the step's on-demand ``_block_views``."""
    return blockhtml.blocks_html(block_views(), raw)


def _block_views(turn, raw: bool) -> list[dict]:
    views = []
    for block in turn.blocks:
        data = block.data
        view = {
            "block": block,
            "type": block.type,
            "data": data,
            "known": block.known,
            "json": _on_demand(lean_json, data),  # shown raw only: written when read
        }
        if block.type in ("tool_use", "server_tool_use"):
            view["input_json"] = indented_json(data.get("input", {}))
        views.append(view)
    return views


MAX_IMAGE_BYTES = 512 * 1024  # larger base64 images are named, not inlined
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _media_view(block: dict) -> dict:
    """An image or document block: what to show instead of its base64 text."""
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    view = {"type": block.get("type"), "source_type": source.get("type", ""), "src": ""}
    view["media_type"] = str(source.get("media_type", ""))
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        size = len(source["data"]) * 3 // 4
        view["size"] = size
        if block.get("type") == "image" and view["media_type"] in IMAGE_TYPES:
            if size <= MAX_IMAGE_BYTES:
                view["src"] = f"data:{view['media_type']};base64,{source['data']}"
            else:
                view["too_big"] = True
    elif source.get("type") == "url":
        view["url"] = str(source.get("url", ""))
    elif source.get("type") == "text":
        view["text"] = str(source.get("data", ""))[:2000]
    elif source.get("type") == "file":
        view["file_id"] = str(source.get("file_id", ""))
    view["title"] = str(block.get("title") or "")
    return view


def _result_views(turn) -> list[dict]:
    views = []
    for result in turn.tool_results:
        if not isinstance(result, dict):
            continue
        kind = result.get("type", "")
        if kind != "tool_result":  # e.g. a text block sent after the results (or before them)
            views.append(
                {
                    "kind": kind,
                    "text": result.get("text", "") if kind == "text" else "",
                    "media": _media_view(result) if kind in ("image", "document") else None,
                    "json": _on_demand(lean_json, result),
                }
            )
            continue
        content = result.get("content", "")
        media = []
        if isinstance(content, list):
            parts = []
            for c in content:
                if isinstance(c, dict) and c.get("type") in ("image", "document"):
                    media.append(_media_view(c))
                elif isinstance(c, dict):
                    parts.append(c.get("text", json.dumps(c, ensure_ascii=False)))
                else:
                    parts.append(str(c))
            text = "\n".join(parts)
        else:
            text = "" if content is None else str(content)
        views.append(
            {
                "kind": "tool_result",
                "id": result.get("tool_use_id", ""),
                "is_error": result.get("is_error") is True,
                "text": text,
                "media": media,
                "json": _on_demand(lean_json, result),
            }
        )
    return views


def _sent_views(run: Run, turn) -> list[dict]:
    """The messages this request added that no earlier step shows: on step 1 the messages the
    run started with; later, anything besides the previous response and its tool results
    (which the previous step shows). Images and documents render as on the conversation view."""
    if run.transcript.source == "message" or not turn.appended:
        return []
    prev = run.transcript.turns[turn.index - 1] if turn.index else None
    views = []
    for message in turn.appended:
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        if prev is not None and (
            (role == "assistant" and content == prev.response.get("content"))
            or (role == "user" and content == prev.tool_results)
        ):
            continue
        blocks = _message_views(message)
        if blocks:
            views.append({"role": str(role or "?"), "blocks": blocks})
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


def _markers(run: Run) -> dict[int, str]:
    cached = run.rendered.get("markers")
    if cached is None:
        cached = run.rendered["markers"] = context_markers(run.transcript.turns)
    return cached


def _usage_html(run: Run, series: list[dict], current: int, prefix: str, suffix: str):
    """The context chart and its table: rendered once per run and link form, then only the
    current step is marked (a long run's chart and table would otherwise cost every step)."""
    cache = run.rendered
    key = ("usage", prefix, suffix, get_language())  # the numbers are written per language
    html = cache.get(key)
    if html is None:
        chart = context_chart(series, -1, lambda s: f"{prefix}{s}/{suffix}", _markers(run))
        rows = "".join(
            f'<tr data-step="{r["step"]}"><th scope="row">{r["step"] + 1}</th>'
            f"<td>{intcomma(int(r['context_tokens']))}</td>"
            f"<td>{intcomma(int(r['output_tokens']))}</td>"
            f"<td>{intcomma(int(r['cache_read_input_tokens']))}</td></tr>"
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


def _on_demand(build, *args):
    """``build(*args)``, computed the first time a template reads it (templates call a
    callable), then the same value: a step's blocks and JSON are only needed to render the
    parts of the page that are not kept yet."""
    return functools.cache(functools.partial(build, *args))


#: How many kept step panels one run holds (a 200-step run read in four languages, raw and not).
PANELS_MAX = 2048
#: A part longer than this is rendered on every request, never kept: a step's request holds the
#: whole conversation so far, so a long uploaded run's parts grow with the square of its length.
PANEL_KEEP_MAX_CHARS = 64_000
#: What the kept parts of one run may hold in all (characters); past it they are dropped and
#: kept again from the next request on. Uploads kept in the process are bounded too (64).
PANELS_BUDGET_CHARS = 1_000_000
_PANELS_SIZE = ("panel", "size")


class _Panels:
    """The parts of a step page that depend only on the run, the step and the page
    (sandbox/_step_panel.html: the response, its blocks and tool results, the decision panel,
    the request): rendered once and kept with the run (``run.rendered``), so a library step or
    an upload read again, by anyone, costs its navigation only. The key holds everything else
    those parts read: raw mode, the language and URLconf (``urlcache.where``), the decision
    panel's texts and rows as this request computed them, and how a live run ended. A live
    run's Run is kept per saved state (live.py), so its parts last until its state changes.
    Bounded by count and by size: a part over ``PANEL_KEEP_MAX_CHARS`` is not kept, and a
    run's parts together stay under ``PANELS_BUDGET_CHARS``."""

    #: each part, written from the step's context
    PARTS = {
        "panel": functools.partial(render_to_string, "sandbox/_step_panel.html#panel"),
        "request": functools.partial(render_to_string, "sandbox/_step_panel.html#request"),
        # predict mode's response: sandbox/_blocks.html, written in Python (blockhtml.py)
        "blocks": lambda ctx: ctx["blocks_html"](),
        # predict mode's verdict (ctx["mode"] is in the key)
        "decision": functools.partial(render_to_string, "sandbox/_decision.html"),
    }

    def __init__(self, run: Run, ctx: dict) -> None:
        self.run, self.ctx = run, ctx

    def _render(self, name: str) -> str:
        ctx = self.ctx
        key = (
            "panel",
            name,
            ctx["turn"].index,
            ctx["raw"] if name != "request" else None,  # the request part does not read it
            bool(self.run.shared),
            ctx.get("mode"),
            str(ctx.get("ended_words") or ""),
            ctx["capped"],
            ctx["note"],
            ctx["note_lang"],
            repr(ctx["info"]),
            repr(ctx["action"]),
            repr(ctx["today_rows"]),
            *urlcache.where(),
        )
        kept = self.run.rendered
        html = kept.get(key)
        if html is None:
            html = self.PARTS[name](ctx)
            if len(html) <= PANEL_KEEP_MAX_CHARS:
                size = kept.get(_PANELS_SIZE, 0) + len(html)
                if len(kept) >= PANELS_MAX or size > PANELS_BUDGET_CHARS:
                    for old in [k for k in list(kept) if k[0] == "panel"]:
                        kept.pop(old, None)
                    size = len(html)
                kept[key] = html
                kept[_PANELS_SIZE] = size
        return mark_safe(html)  # noqa: S308 - our template's autoescaped output

    def __getattr__(self, name: str) -> str:
        """``kept.panel``, ``kept.request``, ``kept.blocks``, ``kept.decision`` in a template."""
        if name not in self.PARTS:
            raise AttributeError(name)
        return self._render(name)


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
    info = i18n.stop_reasons().get(turn.stop_reason or "")  # in the page's language
    action = i18n.next_actions().get(turn.action or "")
    is_last = n == len(turns)
    capped = is_last and run.transcript.ended_by in ("turn_cap", "repeated_call")
    # One reverse() for every step link: a 200-step run's chart links each of its bars.
    prefix = _step_url(run, 1).removesuffix("1/")
    series = run.usage_series
    ctx = {
        "run": run,
        "n": n,
        "total": len(turns),
        "turn": turn,
        "note": run.note(turn.index),
        "note_lang": run.note_lang(turn.index),
        # what only the kept parts read is built when a template first asks (not on a kept hit)
        "blocks": _on_demand(_block_views, turn, raw),
        "results": _on_demand(_result_views, turn),
        "sent": _on_demand(_sent_views, run, turn),
        "raw": raw,
        "info": info,
        "action": action,
        "is_last": is_last,
        "capped": capped,
        "listing_html": reference.listing_html(turn.stop_reason, turn.action, capped),
        # where the next request depends on the model: this run's model vs today's models
        "today_rows": today.decision_rows(run.transcript.params_for(turn.index), turn.response),
        "appended_json": _on_demand(lean_json, turn.appended) if turn.appended is not None else "",
        "request_json": _on_demand(lean_json, turn.request),
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
        "links": _run_links(run) if not run.live_pk else None,
        "response_json": _on_demand(lean_json, turn.response),
    }
    ctx["blocks_html"] = _on_demand(_blocks_html, ctx["blocks"], raw)
    ctx["kept"] = _Panels(run, ctx)
    return ctx


def step(request, n: int, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    ctx = step_context(request, run, n)
    for key in ("next_tool", "next_finding"):
        target = ctx["jumps"][key]
        ctx["jumps"][key + "_url"] = ctx["step_url"](target) if target else None
    if run.uploaded_pk and not run.shared:  # the owner: publish or revoke a read-only link
        token = getattr(request, "_upload_share", "")
        ctx["share_url"] = (
            request.build_absolute_uri(reverse("sandbox:shared_overview", args=[token]))
            if token
            else ""
        )
        ctx["share_action"] = reverse("sandbox:upload_share", args=[run.uploaded_pk])
    # A history-restore request (back button after a cache miss) needs the whole page.
    partial = request.htmx and not request.htmx.history_restore_request
    template = "sandbox/step.html#stepper" if partial else "sandbox/step.html"
    return render(request, template, ctx)


def run_start(request, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    return redirect(_step_url(run, 1))


# --- run overview and conversation view ------------------------------------------------------


def _run_links(run: Run) -> dict:
    return {
        "overview": _run_url(run, "overview"),
        "conversation": _run_url(run, "conversation"),
        "steps": _step_url(run, 1),
        "compare": "" if run.shared else reverse("sandbox:compare") + f"?a={run.key}&b={run.key}",
    }


def overview(request, slug: str | None = None, pk: int | None = None):
    """Every turn of the run at a glance, each linking to its step, and the context chart."""
    run = getattr(request, "_shared_run", None) or _run(request, slug, pk)
    by_step: dict[int, list] = {}
    for f in run.findings:
        if f.step is not None:
            by_step.setdefault(f.step, []).append(f)
    rows = []
    for turn in run.transcript.turns:
        rows.append(
            {
                "n": turn.index + 1,
                "turn": turn,
                "tools": [
                    b.data.get("name", "") for b in turn.blocks if b.type.endswith("tool_use")
                ],
                "findings": by_step.get(turn.index, []),
                "url": _step_url(run, turn.index + 1),
            }
        )
    total_ms = sum(t.elapsed_ms or 0 for t in run.transcript.turns)
    return render(
        request,
        "sandbox/overview.html",
        {
            "run": run,
            "rows": rows,
            "links": _run_links(run),
            "total_ms": total_ms,
            "total_in": sum(t.context_tokens for t in run.transcript.turns),
            "total_out": sum(t.output_tokens for t in run.transcript.turns),
            "run_findings": [f for f in run.findings if f.step is None],
            "chart": mark_safe(  # noqa: S308 - built from numbers and escaped URLs
                context_chart(
                    run.transcript.usage_series(),
                    -1,
                    lambda s: _step_url(run, s),
                    _markers(run),
                )
            ),
        },
    )


def _message_views(message: dict) -> list[dict]:
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    views = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = str(block.get("type", ""))
        view = {"type": kind, "data": block, "json": _on_demand(lean_json, block)}
        if kind in ("image", "document"):
            view["media"] = _media_view(block)
        elif kind == "tool_result":
            inner = block.get("content")
            if isinstance(inner, list):
                view["text"] = "\n".join(
                    str(c.get("text", "")) for c in inner if isinstance(c, dict) and "text" in c
                )
                view["media_list"] = [
                    _media_view(c)
                    for c in inner
                    if isinstance(c, dict) and c.get("type") in ("image", "document")
                ]
            else:
                view["text"] = "" if inner is None else str(inner)
        views.append(view)
    return views


def conversation(request, slug: str | None = None, pk: int | None = None):
    """The whole run as the alternating user / assistant messages the API saw, turn by turn."""
    run = getattr(request, "_shared_run", None) or _run(request, slug, pk)
    t = run.transcript
    entries = []
    seen = 0
    prev = None
    for turn in t.turns:
        sent = turn.request_messages if t.source != "message" else []
        new = sent[seen:] if turn.appended is not None else sent
        if turn.appended is None and turn.index:
            entries.append({"kind": "rewrite", "n": turn.index + 1})
        for m in new:
            if (
                isinstance(m, dict)
                and m.get("role") == "assistant"
                and prev is not None
                and m.get("content") == prev.response.get("content")
            ):
                continue  # the previous response, already shown as it came back
            if isinstance(m, dict):
                entries.append(
                    {"kind": "message", "role": m.get("role"), "blocks": _message_views(m)}
                )
        entries.append(
            {
                "kind": "response",
                "n": turn.index + 1,
                "turn": turn,
                "blocks": _message_views({"content": turn.response.get("content", [])}),
                "json": lean_json(turn.response),
                "url": _step_url(run, turn.index + 1),
            }
        )
        seen = len(sent)
        prev = turn
    return render(
        request,
        "sandbox/conversation.html",
        {"run": run, "entries": entries, "links": _run_links(run)},
    )


def shared_step(request, token: str, n: int):
    run = _shared_run(token)
    ctx = step_context(request, run, n)
    for key in ("next_tool", "next_finding"):
        target = ctx["jumps"][key]
        ctx["jumps"][key + "_url"] = _step_url(run, target) if target else None
    partial = request.htmx and not request.htmx.history_restore_request
    template = "sandbox/step.html#stepper" if partial else "sandbox/step.html"
    response = render(request, template, ctx)
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"  # the token stays out of other sites' logs
    return response


def shared_overview(request, token: str):
    request._shared_run = _shared_run(token)
    return overview(request)


def shared_conversation(request, token: str):
    request._shared_run = _shared_run(token)
    return conversation(request)


@require_POST
def upload_share(request, pk: int):
    """Publish a read-only link to one's own upload (a new unguessable token), or revoke it."""
    owner = get_owner(request, create=False)
    upload = get_object_or_404(UploadedRun.objects.owned_by(owner).only("pk", "title"), pk=pk)
    if request.POST.get("revoke"):
        UploadedRun.objects.filter(pk=upload.pk).update(share_token="")
        messages.success(request, _("The link no longer works: the run is private again."))
    else:
        UploadedRun.objects.filter(pk=upload.pk).update(share_token=secrets.token_urlsafe(24))
        messages.success(
            request, _("Anyone with the link below can read this run (not change it).")
        )
    return redirect("sandbox:upload_steps", pk=upload.pk, n=1)


def _pickable(request) -> tuple[list[tuple[str, str]], dict]:
    """The runs a visitor may compare: the library, their uploads and their live runs (two
    queries, whatever they own; a live run's state is read only once it is picked)."""
    choices = [(r.key, r.title) for r in sorted(library().runs().values(), key=lambda r: r.title)]
    owner = get_owner(request, create=False)
    mine: dict = {
        f"u{u.pk}": u for u in UploadedRun.objects.owned_by(owner).only("pk", "title", "created_at")
    }
    choices += [
        (key, _("Your upload: %(title)s") % {"title": generated(u.title)})
        for key, u in mine.items()
    ]
    lives = {f"live{r.pk}": r for r in LiveRun.objects.owned_by(owner).only("pk", "title")}
    choices += [
        (key, _("Your live run: %(title)s") % {"title": generated(r.title)})
        for key, r in lives.items()
    ]
    return choices, {**mine, **lives}


class _NotPickable(Exception):
    """A chosen run that can't be compared yet, with the reason in words."""


def _live_runs(keys: list[str], mine: dict) -> dict[str, Run]:
    """The chosen live runs as stepper runs, their state read in one query."""
    pks = [mine[k].pk for k in keys if k.startswith("live") and k in mine]
    if not pks:
        return {}
    runs = {}
    for live in LiveRun.objects.filter(pk__in=pks):
        try:
            run = live_services.as_sandbox_run(live)
        except (RunnerError, ValueError) as e:
            raise _NotPickable(
                _("“%(title)s” can't be read: %(error)s")
                % {"title": generated(live.title), "error": e}
            ) from e
        if run is None:
            raise _NotPickable(
                _("“%(title)s” has no response yet: step it once first.")
                % {"title": generated(live.title)}
            )
        runs[f"live{live.pk}"] = run
    return runs


def _pick(key: str, mine: dict, lives: dict[str, Run]) -> Run | None:
    if key.startswith("live") and key[4:].isdigit():
        if key not in mine:  # somebody else's live run (or none): it doesn't exist for them
            raise Http404("No live run of yours with that number")
        return lives.get(key)
    if key.startswith("u") and key[1:].isdigit():
        upload = mine.get(key)
        if upload is None:
            raise Http404("No upload of yours with that number")
        if (upload.pk, upload.created_at.isoformat()) not in _UPLOADED:
            upload.refresh_from_db(fields=["data", "source"])
        return _uploaded_run(upload)
    return library().get(key)


def compare_runs(request):
    """Two runs side by side, aligned turn by turn: library runs, one's own uploads and one's
    own live runs (a live run and its fork, before either is saved)."""
    choices, mine = _pickable(request)
    a_key, b_key = request.GET.get("a", ""), request.GET.get("b", "")
    ctx: dict = {"choices": choices, "a_key": a_key, "b_key": b_key, "error": ""}
    status = 200
    if a_key or b_key:
        try:
            lives = _live_runs([a_key, b_key], mine)
        except _NotPickable as e:
            ctx["error"] = str(e)
            return render(request, "sandbox/compare.html", ctx, status=400)
        a, b = _pick(a_key, mine, lives), _pick(b_key, mine, lives)
        if a is None or b is None:
            ctx["error"] = "Choose two runs from the lists."
            status = 400
        else:
            ctx.update({"a": a, "b": b, **compare_module.compare(a, b)})
            ctx["a_url"] = lambda n: _step_url(a, n)
    return render(request, "sandbox/compare.html", ctx, status=status)


@require_POST
def toggle_raw(request):
    request.session[RAW_KEY] = not request.session.get(RAW_KEY, False)
    target = request.POST.get("next", "")
    if not i18n.unprefixed(target).startswith("/sandbox/"):  # /pl/sandbox/… too
        target = reverse("sandbox:index")
    return redirect(target)


# --- predict mode ----------------------------------------------------------------------------

PREDICT_CHOICES = list(catalogue.NEXT_ACTIONS)


@require_http_methods(["GET", "POST"])
def predict(request, n: int, slug: str | None = None, pk: int | None = None):
    run = _run(request, slug, pk)
    turns = run.transcript.turns
    if not 1 <= n <= len(turns):
        raise Http404("No such step")
    turn = turns[n - 1]
    offered = predict_rules.choices_for(turn.action, f"{run.key}:{n}")
    store = request.session.setdefault(PREDICT_KEY, {})
    answers = store.setdefault(run.key, {})
    error = ""
    if request.method == "POST":
        choice = request.POST.get("action", "")
        if choice not in offered:
            error = "Choose what the loop must do next."
        elif str(n) not in answers:
            answers[str(n)] = choice
            request.session.modified = True
            owner = get_owner(request)
            PredictAnswer.objects.create(
                user=owner.user,
                owner_token=owner.token,
                run_key=run.key[:100],
                step=n,
                stop_reason=(turn.stop_reason or "")[:60],
                chosen=choice,
                right=turn.action or "",
                correct=choice == turn.action,
            )
    chosen = answers.get(str(n))
    right = turn.action
    ctx = step_context(request, run, n)
    confusion = predict_rules.why_wrong(right, chosen) if chosen and chosen != right else None
    ctx.update(
        {
            "mode": "predict",
            "choices": [i18n.next_actions()[c] for c in offered],
            "chosen": i18n.next_actions().get(chosen or ""),
            "right": i18n.next_actions().get(right or ""),
            "is_right": chosen is not None and chosen == right,
            "confusion": confusion,
            "family": confusion.family if confusion else "",
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
                "chosen": i18n.next_actions().get(chosen or ""),
                "right": i18n.next_actions().get(turn.action or ""),
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
            "steps_url": _step_url(run, 1),
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
            n = len(transcript.turns)
            _UPLOADED[(run.pk, run.created_at.isoformat())] = build_run(
                f"u{run.pk}", transcript, uploaded_pk=run.pk
            )
            messages.success(
                request,
                ngettext(
                    "Uploaded “%(title)s”: %(n)s step.", "Uploaded “%(title)s”: %(n)s steps.", n
                )
                % {"title": run.title, "n": n},
            )
            return redirect("sandbox:upload_steps", pk=run.pk, n=1)
    status = 400 if error else 200
    return render(request, "sandbox/upload.html", {"form": form, "error": error}, status=status)


@require_POST
def upload_delete(request, pk: int):
    owner = get_owner(request, create=False)
    run = get_object_or_404(UploadedRun.objects.owned_by(owner), pk=pk)
    run.delete()
    messages.success(request, _("Deleted “%(title)s”.") % {"title": run.title})
    return redirect("sandbox:index")
