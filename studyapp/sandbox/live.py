"""Live runs: start, step, fork and save loops driven against the real Messages API."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from collections import OrderedDict
from contextlib import suppress

from django.conf import settings
from django.contrib.humanize.templatetags.humanize import intcomma
from django.db import DatabaseError
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from core.prepared import prepared_rows, prepared_update, prepared_write
from studyapp.agentloop import demo, models, runner
from studyapp.agentloop import i18n as agent_i18n
from studyapp.agentloop.transcript import parse_transcript

from .library import Run, build_run
from .models import LiveRun, LiveUsage, UploadedRun

logger = logging.getLogger(__name__)


class LiveError(Exception):
    """Something the learner must be told in words (no key, daily cap reached, …)."""


def payer_key(user) -> str:
    """Whose allowance the server's key is charged to: an account, never a browser session."""
    return f"u{user.pk}"


def daily_cap() -> int:
    return settings.LIVE_DAILY_TOKEN_CAP


def _account(payer: str) -> dict:
    """The LiveUsage fields of a payer ("u<pk>"): the server's key is charged to accounts only."""
    return {"user_id": int(payer[1:]), "owner_token": ""}


def tokens_today(payer: str, now: dt.datetime | None = None) -> int:
    if not payer:
        return 0
    day = (now or timezone.now()).date()
    # .first()'s query, compiled once per process (core/prepared.py): every live page asks.
    query = prepared_rows(
        ("live-tokens-today",),
        lambda user, day: (
            LiveUsage.objects.filter(user_id=user, owner_token="", day=day)
            .order_by("pk")[:1]
            .values_list("tokens")
        ),
        user=1_999_999_001,
        day=dt.date(2199, 1, 2),
    )
    rows = query.rows(user=_account(payer)["user_id"], day=day)
    return rows[0][0] if rows else 0


ALLOWANCE_REFUSAL = gettext_noop(
    "Not sent: the next call could use up to %(worst)s tokens (its input so far plus "
    "max_tokens), and %(used)s of today's live-mode allowance of %(cap)s tokens are used. "
    "It resets at midnight UTC; bring your own API key to go on now, or read the recorded "
    "library."
)


def allowance_refusal(used: int, worst_case: int) -> str:
    """Why a call is not sent on the server's key, in the page's language, numbers grouped."""
    return gettext(ALLOWANCE_REFUSAL) % {
        "worst": intcomma(worst_case),
        "used": intcomma(used),
        "cap": intcomma(daily_cap()),
    }


def allowance_words(used: int, worst_case: int) -> tuple[str, dict]:
    """The same refusal in English (numbers grouped) and as a message id with its values, for
    the job worker, which runs in no language: the page words it in its own."""
    values = {"worst": worst_case, "used": used, "cap": daily_cap()}
    return agent_i18n.english(ALLOWANCE_REFUSAL, runner.grouped(values)), agent_i18n.dump(
        ALLOWANCE_REFUSAL, values
    )


_STAND_INS = {"user": 1_999_999_001, "day": dt.date(2199, 1, 2), "n": 1_999_999_002}
_STAND_INS["room"] = 1_999_999_003


def _usage_update(name: str, build, **values) -> int:
    """``build(**values)``'s UPDATE (an F() sum: core.prepared.PreparedWrite), compiled once per
    process and database; the ORM's where a stand-in is not one plain parameter."""
    stand_ins = {k: _STAND_INS[k] for k in values}
    return prepared_write(("live-usage", name), build, **stand_ins).run(**values)


def _reserving(user, day, n, room):
    """The day's row counts ``n`` more tokens (and a call) if it has ``room`` for them."""
    usage = LiveUsage.objects.filter(user_id=user, owner_token="", day=day, tokens__lte=room)
    return usage, {"tokens": F("tokens") + n, "calls": F("calls") + 1}


def _settling(user, day, n):
    """The day's row: ``n`` tokens more (or fewer: never below 0)."""
    usage = LiveUsage.objects.filter(user_id=user, owner_token="", day=day)
    return usage, {"tokens": Greatest(F("tokens") + n, 0)}


def reserve(payer: str, tokens: int, day: dt.date) -> str:
    """Count ``tokens`` (a call's worst case) against ``payer``'s allowance before the call.

    One conditional UPDATE, so calls at the same moment can't go over the cap together.
    Returns '' when reserved, else the refusal in words. The day's row is made (get_or_create)
    only when the UPDATE found none to count against: a run's later calls cost one query."""
    cap = daily_cap()
    account = _account(payer)
    count = {"user": account["user_id"], "day": day, "n": tokens, "room": cap - tokens}
    if _usage_update("reserve", _reserving, **count):
        return ""
    LiveUsage.objects.get_or_create(**account, day=day)  # the day's first call: no row yet
    if _usage_update("reserve", _reserving, **count):
        return ""
    return allowance_refusal(tokens_today(payer), tokens)


def settle(payer: str, day: dt.date, reserved: int, spent: int) -> None:
    """Replace a reservation by what the call really used, as the API reported it."""
    delta = max(spent, 0) - reserved
    if delta:
        user = _account(payer)["user_id"]
        _usage_update("settle", _settling, user=user, day=day, n=delta)


def save_state(live: LiveRun, run: runner.Run, results) -> None:
    """Save the run's state and its last error after a step (the page follows these);
    ``results`` None keeps the last error as it is."""
    live.state = run.to_state()
    live.updated_at = timezone.now()
    fields = ["state", "updated_at"]
    if results is not None:
        errors = [r.error for r in results if r.error is not None]
        for e in errors:  # what an operator reads (the message is redacted by the log filter)
            logger.warning(
                "live run %s: API call failed at step %s: %s (HTTP %s): %s",
                live.pk,
                e.step,
                e.kind,
                e.status,
                e.message,
            )
        live.last_error = errors[-1].to_dict() if errors else None
        fields.append("last_error")
    # live.save(update_fields=fields), its UPDATE compiled once per set of fields (a worker saves
    # after every call); no row changed is the DatabaseError save() raises.
    update = prepared_update(
        ("live-save-state", *fields),
        lambda pk: LiveRun.objects.filter(pk=pk),
        tuple(fields),
        pk=1_999_999_001,
    )
    if not update.run({f: getattr(live, f) for f in fields}, pk=live.pk):
        raise DatabaseError("Save with update_fields did not affect any rows.")


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


#: Live runs as the stepper reads them, by run, title and saved state: parsed and checked once
#: per state (a worker's step saves a new state), not on every page and poll of the run.
#: The value holds the catalogue it was checked against: the key has only the entries' ids,
#: and an id can be reused once its object is gone.
_STEPPER_RUNS: OrderedDict[tuple, tuple[tuple, Run | None]] = OrderedDict()
_STEPPER_RUNS_MAX = 64
_MISSING = object()


def _state_key(live: LiveRun) -> tuple:
    """What a live run's stepper Run is made of: the run, its title and state, and what its
    findings are checked against (the model catalogue, as forms.per_catalogue keys it)."""
    state = json.dumps(live.state, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.blake2b(state.encode(), digest_size=16).digest()
    catalogue = tuple(map(id, models.live_models()))
    return (live.pk, live.title, digest, dt.date.today(), catalogue)


def _same_catalogue(kept: tuple) -> bool:
    current = tuple(models.live_models())
    return len(kept) == len(current) and all(a is b for a, b in zip(kept, current, strict=True))


def as_sandbox_run(live: LiveRun, loaded: runner.Run | None = None) -> Run | None:
    """The run so far, for the stepper (None before the first response); kept per state.

    ``loaded``: the caller's ``load(live)`` of this same state, read (not changed) here."""
    key = _state_key(live)
    kept = _STEPPER_RUNS.get(key, _MISSING)
    if kept is not _MISSING and _same_catalogue(kept[0]):
        with suppress(KeyError):  # (another thread may have dropped it meanwhile)
            _STEPPER_RUNS.move_to_end(key)
        return kept[1]
    if loaded is None:
        loaded = load(live)
    run = None
    if loaded.turns:
        data = loaded.to_transcript()
        data["title"] = live.title  # a fork's title says where it was forked
        run = build_run(f"live{live.pk}", parse_transcript(data, strict=False))
        run.live_pk = live.pk
    _STEPPER_RUNS[key] = (tuple(models.live_models()), run)
    while len(_STEPPER_RUNS) > _STEPPER_RUNS_MAX:
        with suppress(KeyError):
            _STEPPER_RUNS.popitem(last=False)
    return run
