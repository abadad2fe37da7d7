"""Live runs: start, step, fork and save loops driven against the real Messages API."""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from studyapp.agentloop import demo, runner
from studyapp.agentloop.transcript import parse_transcript

from .library import Run, build_run
from .models import LiveRun, LiveUsage, UploadedRun

logger = logging.getLogger(__name__)


class LiveError(Exception):
    """Something the learner must be told in words (no key, daily cap reached, …)."""


def daily_cap() -> int:
    return settings.LIVE_DAILY_TOKEN_CAP


def tokens_today(owner, now: dt.datetime | None = None) -> int:
    """Tokens this owner (the account when signed in, else the browser session) spent today."""
    day = (now or timezone.now()).date()
    row = LiveUsage.objects.owned_by(owner).filter(day=day).first()
    return row.tokens if row else 0


def _record_usage(owner, tokens: int, calls: int) -> None:
    day = timezone.now().date()
    with transaction.atomic():
        row, _ = LiveUsage.objects.get_or_create(user=owner.user, owner_token=owner.token, day=day)
        LiveUsage.objects.filter(pk=row.pk).update(
            tokens=F("tokens") + max(0, tokens), calls=F("calls") + calls
        )


def _client():
    try:
        return runner.make_client()
    except runner.RunnerError as e:
        raise LiveError(str(e)) from None


def live_start(*, owner, scenario: str, prompt: str, options: dict) -> LiveRun:
    """A new run that has not called the API yet; RunnerError names a bad parameter."""
    run = runner.Run.new(
        None,
        handlers=demo.make_handlers(),
        **options,
        **demo.run_params(scenario, prompt=prompt),
    )
    meta = demo.get_scenario(scenario)
    return LiveRun.objects.create(
        user=owner.user,
        owner_token=owner.token,
        scenario=scenario,
        title=meta.title,
        state=run.to_state(),
    )


def load(live: LiveRun, *, client=None) -> runner.Run:
    return runner.Run.from_state(client, live.state, demo.make_handlers())


def _spent(run: runner.Run) -> int:
    usage = run.usage or {}
    return int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))


def live_prepare(*, owner, live: LiveRun) -> runner.Run:
    """The run, ready to call the API; LiveError if the owner's daily allowance is spent."""
    if tokens_today(owner) >= daily_cap():
        raise LiveError(
            f"You have used today's live-mode allowance of {daily_cap():,} tokens. It resets at "
            "midnight UTC; the recorded library is always open."
        )
    run = load(live, client=_client())
    run._spent_before = (_spent(run), len(run.turns))
    return run


def live_persist(*, owner, live: LiveRun, run: runner.Run, results) -> None:
    """Save the run's state, its last error and the tokens it spent (whatever happened)."""
    spent_before, turns_before = run._spent_before
    errors = [r.error for r in results if r.error is not None]
    for e in errors:
        logger.warning(
            "live run %s: API call failed at step %s: %s (HTTP %s): %s",
            live.pk,
            e.step,
            e.kind,
            e.status,
            e.message,
        )
    live.state = run.to_state()
    live.last_error = errors[-1].to_dict() if errors else None
    live.updated_at = timezone.now()
    live.save(update_fields=["state", "last_error", "updated_at"])
    _record_usage(owner, _spent(run) - spent_before, len(run.turns) - turns_before + len(errors))


def live_step(*, owner, live: LiveRun, to_end: bool = False, tool_results=None, on_text=None):
    """One API call (or run to the end); the state is saved whatever happened."""
    run = live_prepare(owner=owner, live=live)
    if to_end:
        results = run.run_to_end(on_text=on_text)
    else:
        results = [run.step(on_text=on_text, tool_results=tool_results)]
    live_persist(owner=owner, live=live, run=run, results=results)
    return results


def live_stop(*, live: LiveRun, reason: str) -> None:
    run = load(live)
    run.stop(reason)
    live.state = run.to_state()
    live.updated_at = timezone.now()
    live.save(update_fields=["state", "updated_at"])


def live_fork(*, owner, live: LiveRun, at_step: int, changes: dict) -> LiveRun:
    state = runner.fork(live.state, at_step, **changes)
    return LiveRun.objects.create(
        user=owner.user,
        owner_token=owner.token,
        scenario=live.scenario,
        title=f"{live.title} (fork at step {at_step})"[:200],
        state=state,
        forked_from=live,
    )


def live_save(*, owner, live: LiveRun) -> UploadedRun:
    """Put the run into the learner's own transcripts, so it replays in the stepper."""
    data = load(live).to_transcript()
    data["title"] = live.title
    return UploadedRun.objects.create(
        user=owner.user,
        owner_token=owner.token,
        title=live.title[:200],
        source="live",
        data=data,
        size=len(str(data)),
    )


def as_sandbox_run(live: LiveRun) -> Run | None:
    """The run so far, for the stepper (None before the first response)."""
    loaded = load(live)
    if not loaded.turns:
        return None
    data = loaded.to_transcript()
    run = build_run(f"live{live.pk}", parse_transcript(data, strict=False))
    run.live_pk = live.pk
    return run
