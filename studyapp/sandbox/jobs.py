"""Live API calls off the request thread: a small job table, claimed with a conditional UPDATE.

A POST to step a live run only writes a :class:`LiveJob` row and returns; the call itself runs in
a worker, which saves the run after every step, so the page (polling) follows it and "Run to the
end" goes on server-side. Where the worker runs is ``settings.LIVE_JOBS``:

- ``"thread"`` (the default; ``make run`` and gunicorn alike): a thread pool of
  ``LIVE_THREADS`` threads inside the web process that took the request;
- ``"external"``: the web processes only queue; ``manage.py liveworker`` (one or more, anywhere
  that reaches the database) claims and runs the jobs. A job on a visitor's own key still runs
  in the web process that has the key in memory: the key is never written where another process
  could read it.
- ``"inline"``: runs the job before the request returns (only for the test suite).

Timeouts agree: the SDK's per-call timeout is at most ``runner.CALL_TIMEOUT_S`` (and no more than
the run's wall-clock guard has left), and a worker holds a job on a lease of ``LEASE_S``, longer
than one call, renewed before each call. A job whose lease ran out (its process died) or that no
worker claimed within ``LIVE_QUEUE_STALE_S`` is failed with a message, so a new step can start.

Spending: with the server's key, every call first reserves its worst case (input so far +
max_tokens) against the account's daily allowance in one conditional UPDATE, so no call can go
over the cap, even several at once; after the call the reservation is settled to what the API
reported. A call that fails or times out without a usage report keeps the worst case counted; a
request the API refused (4xx) or that was never sent is refunded.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import IntegrityError, close_old_connections, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from core.prepared import prepared, prepared_rows, prepared_update, prepared_write
from studyapp.agentloop import demo, i18n, runner, runner_checks
from studyapp.agentloop.redact import redact

from . import live as services
from .models import LiveJob, LiveRun

log = logging.getLogger(__name__)

LEASE_S = runner.CALL_TIMEOUT_S + 30  # one call's SDK timeout, plus the time to save it
TEXT_FLUSH_S = 0.5  # how often the streamed text is written for the page to follow

# A job's error is stored in English (``error``) and as a message id (``error_msg``), so that the
# page words it in its own language: the worker runs with no language active.
WORKER_DIED = gettext_noop(
    "The worker running this call stopped before it finished. The tokens it could have used "
    "were counted; nothing else was lost: step again."
)
NOT_PICKED_UP = gettext_noop(
    "No worker picked this call up in time (the server is busy). Step again."
)
SERVER_ERROR = gettext_noop(
    "The call could not be completed because of an error on this server. Step again."
)
STOPPED_BY_LEARNER = runner.STOPPED_BY_LEARNER  # the runner's own wording, one message id

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def mode() -> str:
    return settings.LIVE_JOBS


def queue_stale_s() -> int:
    return settings.LIVE_QUEUE_STALE_S


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"[:100]


def executor() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=settings.LIVE_THREADS, thread_name_prefix="live"
            )
        return _executor


# --- the table ---------------------------------------------------------------------------------

#: Stand-ins for the values a job's statements compare with (core/prepared.py): each of the
#: UPDATEs a step makes is compiled to SQL once per process, not on every call.
_PK = 1_999_999_001
_NOW = dt.datetime(2199, 1, 2, 3, 4, 5, 678_901, tzinfo=dt.UTC)


def _update(name: str, build: Callable[..., QuerySet], values: dict, **where) -> int:
    """``build(**where).update(**values)``, its SQL compiled once per ``name`` and fields."""
    stand_ins = {
        k: _NOW.replace(microsecond=i) if isinstance(v, dt.datetime) else _PK + i
        for i, (k, v) in enumerate(where.items())
    }
    update = prepared_update(("sandbox-job", name, *values), build, tuple(values), **stand_ins)
    return update.run(values, **where)


def _by_pk(pk: int) -> QuerySet:
    return LiveJob.objects.filter(pk=pk)


def expire_stale(live: LiveRun | None = None) -> int:
    """Fail jobs whose worker died (lease over) or that nobody claimed in time."""
    now = timezone.now()
    scope = {} if live is None else {"live": live.pk}
    stale = now - dt.timedelta(seconds=queue_stale_s())

    def jobs(**live):
        return LiveJob.objects.filter(**{"live_id": live["live"]} if live else {})

    def failed(why: str) -> dict:
        return {
            "status": LiveJob.FAILED,
            "finished_at": now,
            "error": why,
            "error_msg": i18n.dump(why),
        }

    n = _update(
        f"died{len(scope)}",
        lambda at, **live: jobs(**live).filter(status=LiveJob.RUNNING, lease_until__lt=at),
        failed(WORKER_DIED),
        at=now,
        **scope,
    )
    n += _update(
        f"unclaimed{len(scope)}",
        lambda at, **live: jobs(**live).filter(status=LiveJob.QUEUED, created_at__lt=at),
        failed(NOT_PICKED_UP),
        at=stale,
        **scope,
    )
    return n


def active_job(live: LiveRun) -> LiveJob | None:
    expire_stale(live)
    return prepared(
        ("sandbox-active-job",),
        lambda live: LiveJob.objects.filter(live_id=live, status__in=LiveJob.ACTIVE),
        live=_PK,
    ).first(live=live.pk)


def last_job(live: LiveRun) -> LiveJob | None:
    return LiveJob.objects.filter(live=live).order_by("-pk").first()


def enqueue(
    *,
    live: LiveRun,
    to_end: bool,
    tool_results: dict | None,
    key_source: str,
    payer: str = "",
    api_key: str | None = None,
) -> LiveJob:
    """Queue a call for ``live`` and hand it to a worker; LiveError when one is already active."""
    expire_stale(live)
    # finished jobs are only kept until the next one: the table holds a row or two per run
    _delete_finished(live.pk)
    try:
        with transaction.atomic():
            job = LiveJob.objects.create(
                live=live,
                to_end=to_end,
                tool_results=tool_results,
                key_source=key_source,
                payer=payer,
            )
    except IntegrityError:
        raise services.LiveError(
            "A call for this run is already in progress: wait for it, or stop the run."
        ) from None
    dispatch(job.pk, api_key=api_key)
    return job


def _delete_finished(live_pk: int) -> None:
    """``LiveJob.objects.filter(live=...).exclude(status__in=ACTIVE).delete()``, its DELETE
    compiled once per database (core.prepared.PreparedWrite: no row refers to a job and no
    signal listens, so the ORM's fast delete is this one statement)."""
    prepared_write(
        ("sandbox-finished-jobs",),
        lambda live: (
            LiveJob.objects.filter(live_id=live).exclude(status__in=LiveJob.ACTIVE),
            None,
        ),
        live=_PK,
    ).run(live=live_pk)


def dispatch(job_pk: int, *, api_key: str | None = None) -> None:
    if mode() == "inline":
        run_job(job_pk, api_key=api_key)
    elif api_key or mode() == "thread":
        executor().submit(_in_thread, job_pk, api_key)
    # "external": manage.py liveworker claims it from the table


def request_stop(live: LiveRun) -> bool:
    """Ask the active job to stop after its current call; False when none is active."""
    return bool(LiveJob.objects.filter(live=live, status__in=LiveJob.ACTIVE).update(cancel=True))


def claim(job_pk: int, worker: str) -> bool:
    lease = timezone.now() + dt.timedelta(seconds=LEASE_S)
    return bool(
        _update(
            "claim",
            lambda pk: _by_pk(pk).filter(status=LiveJob.QUEUED),
            {"status": LiveJob.RUNNING, "worker": worker, "lease_until": lease},
            pk=job_pk,
        )
    )


def next_queued() -> int | None:
    """The oldest queued job a separate worker may run (jobs on the server's key only)."""
    return (
        LiveJob.objects.filter(status=LiveJob.QUEUED, key_source="server")
        .order_by("created_at")
        .values_list("pk", flat=True)
        .first()
    )


# --- running a job -----------------------------------------------------------------------------


def _in_thread(job_pk: int, api_key: str | None) -> None:
    close_old_connections()
    try:
        run_job(job_pk, api_key=api_key)
    finally:
        connection.close()


def run_claimed_in_thread(job_pk: int) -> None:
    """For ``manage.py liveworker``'s pool: a job it has claimed, on the server's key."""
    close_old_connections()
    try:
        run_claimed(job_pk)
    finally:
        connection.close()


def run_job(job_pk: int, *, api_key: str | None = None) -> None:
    """Claim the job and make its calls; every failure ends it with a message, never a crash."""
    if claim(job_pk, worker_name()):
        run_claimed(job_pk, api_key=api_key)
    # else: another worker has it, or it was failed as stale


def run_claimed(job_pk: int, *, api_key: str | None = None) -> None:
    job = prepared(
        ("sandbox-job-with-run",), lambda pk: _by_pk(pk).select_related("live"), pk=_PK
    ).first(pk=job_pk)
    if job is None:
        raise LiveJob.DoesNotExist(f"No job {job_pk}.")
    try:
        error, error_msg = _run(job, api_key)
    except Exception as exc:  # a bug must not leave the job running until its lease ends
        log.error("live job %s failed: %s", job_pk, redact(f"{type(exc).__name__}: {exc}", api_key))
        error, error_msg = SERVER_ERROR, i18n.dump(SERVER_ERROR)
    ended = {
        "status": LiveJob.FAILED if error else LiveJob.DONE,
        "error": redact(error, api_key),
        # a reason without a message id reads as it is stored (English)
        "error_msg": _redacted(error_msg, api_key) if error else None,
        "text": "",
        "finished_at": timezone.now(),
    }
    _update("ended", _by_pk, ended, pk=job_pk)


def _redacted(msg: dict | None, api_key: str | None) -> dict | None:
    """The message's values with the key taken out, as the English text is."""
    if msg is None:
        return None
    params = {k: redact(v, api_key) if isinstance(v, str) else v for k, v in msg["params"].items()}
    return {**msg, "params": params}


def _cancelled(job: LiveJob) -> bool:
    query = prepared_rows(
        ("sandbox-job-cancelled",),
        lambda pk: _by_pk(pk).filter(cancel=True).values_list("pk")[:1],
        pk=_PK,
    )
    return bool(query.rows(pk=job.pk))


class _Text:
    """Streamed text, written to the job row at most every TEXT_FLUSH_S."""

    def __init__(self, job: LiveJob) -> None:
        self.job, self.parts, self.last = job, [], 0.0

    def __call__(self, delta: str) -> None:
        self.parts.append(delta)
        if time.monotonic() - self.last >= TEXT_FLUSH_S:
            self.flush()

    def flush(self) -> None:
        self.last = time.monotonic()
        _update("text", _by_pk, {"text": "".join(self.parts)[-20_000:]}, pk=self.job.pk)

    def reset(self) -> None:
        self.parts = []


def _spent_by(result: runner.StepResult, run: runner.Run, reserved: int) -> int:
    """What one step cost: the API's usage report, else the worst case if a call went out."""
    if result.kind == "response" and result.turn is not None:
        used_in, used_out = runner._tokens(run.turns[result.turn]["response"].get("usage"))
        return used_in + used_out
    error = result.error
    if error is None:
        return 0  # a guard ended the run before calling
    if error.status is None and error.kind == "invalid_request":
        return 0  # refused before sending
    if error.status is not None and 400 <= error.status < 500:
        return 0  # the API refused the request: nothing was generated
    return reserved  # timeout, connection lost, 5xx, an unreadable answer: assume the worst


def _run(job: LiveJob, api_key: str | None) -> tuple[str, dict | None]:
    """Make the job's calls; what stopped it early, in English and as a message id."""
    live = job.live
    try:
        client = runner.make_client(api_key=api_key)
        run = runner.Run.from_state(client, live.state, demo.make_handlers())
    except runner.RunnerError as e:
        return str(e), e.msg
    text = _Text(job)
    tool_results = job.tool_results
    message, message_msg = "", None
    while True:
        if run.status == "ended" or (run.status != "ready" and tool_results is None):
            break
        # the lease renewed for the call, in the statement that asks whether it was cancelled
        lease = {"lease_until": timezone.now() + dt.timedelta(seconds=LEASE_S)}
        if not _update("lease", lambda pk: _by_pk(pk).filter(cancel=False), lease, pk=job.pk):
            break  # stopped below
        reserved, day = 0, timezone.now().date()
        if job.key_source == "server":
            reserved = runner_checks.worst_case_tokens(run)
            refusal = services.reserve(job.payer, reserved, day)
            if refusal:
                message, message_msg = services.allowance_words(
                    services.tokens_today(job.payer), reserved
                )
                break
        text.reset()
        try:
            result = run.step(on_text=text, tool_results=tool_results)
        except runner.RunnerError as e:
            if reserved:
                services.settle(job.payer, day, reserved, 0)
            message, message_msg = str(e), e.msg
            break
        tool_results = None
        spent = _spent_by(result, run, reserved)
        if job.key_source == "server":
            services.settle(job.payer, day, reserved, spent)
        _update("calls", _by_pk, {"calls": job.calls + 1}, pk=job.pk)
        job.calls += 1
        services.save_state(live, run, [result])
        if result.error is not None:
            break  # the run's last_error says what happened (the page shows it)
        if not job.to_end or result.kind != "response":
            break
    if not run.ended_by and _cancelled(job):  # "Stop the run" pressed during the last call
        run.stop(STOPPED_BY_LEARNER)
        services.save_state(live, run, None)
    return message, message_msg
