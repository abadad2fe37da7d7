"""Live mode under attack (issue 19): calls off the request thread, who may spend the server's
key, a visitor's own key never kept, malformed API answers as error steps."""

import base64
import io
import json
import logging
import threading
import time

import anthropic
import httpx2
import pytest
from django.core.management import call_command

from studyapp.agentloop import runner
from studyapp.sandbox import jobs
from studyapp.sandbox.models import LiveJob, LiveRun, LiveUsage

from .fakes import TIMEOUT, FakeAPI, reply, text, tool_use
from .live_runs import FORM, STREAM_START, sse

SERVER_KEY = "sk-ant-api03-server-key-0123456789abcdefghijklmnopqrstuvwxyz"
OWN_KEY = "sk-ant-api03-VISITORsOwnKey-9f8e7d6c5b4a39281706abcdefXYZ"


def _client_for(handler):
    def make(**kw):
        return anthropic.Anthropic(
            api_key=kw.get("api_key") or "server-side",
            max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        )

    return make


@pytest.fixture
def api(monkeypatch):
    fake = FakeAPI([])
    monkeypatch.setenv("ANTHROPIC_API_KEY", SERVER_KEY)
    monkeypatch.setattr(runner, "make_client", _client_for(fake.handler))
    return fake


def create(client, **changes):
    response = client.post("/sandbox/live/", {**FORM, **changes})
    assert response.status_code == 302, response.content.decode()[-1500:]
    return LiveRun.objects.latest("pk")


def turns(live):
    live.refresh_from_db()
    return runner.Run.from_state(None, live.state, {}).turns


def wait_for_job(live, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job = LiveJob.objects.filter(live=live).order_by("-pk").first()
        if job is not None and job.status not in LiveJob.ACTIVE:
            return job
        time.sleep(0.05)
    raise AssertionError("the job did not finish")


# --- 1. no API call inside a request ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_slow_api_call_holds_no_request(client, learner, monkeypatch, settings):
    """A call that would take 60 s (the fake blocks until released) runs in a worker: the step
    POST returns at once, /healthz and the run's page answer meanwhile, and when the call ends
    its step and its tokens are saved."""
    settings.LIVE_JOBS = "thread"
    fake = FakeAPI([reply(text("Finally."), usage=(300, 40))])
    entered, release = threading.Event(), threading.Event()
    timeouts = []

    def slow(request):
        timeouts.append(request.extensions.get("timeout", {}).get("read"))
        entered.set()
        assert release.wait(30), "the test never released the call"
        return fake.handler(request)

    monkeypatch.setenv("ANTHROPIC_API_KEY", SERVER_KEY)
    monkeypatch.setattr(runner, "make_client", _client_for(slow))
    client.force_login(learner)
    live = create(client)
    try:
        response = client.post(f"/sandbox/live/{live.pk}/step/")
        assert response.status_code == 302
        assert entered.wait(10), "the worker never called the API"
        # the call is in progress, and nothing waits on it
        assert client.get("/healthz").status_code == 200
        page = client.get(f"/sandbox/live/{live.pk}/").content.decode()
        assert "A call is in progress" in page and 'hx-trigger="every 1s"' in page
        poll = client.get(f"/sandbox/live/{live.pk}/job/", headers={"HX-Request": "true"})
        assert poll.status_code == 200 and "Calling the API" in poll.content.decode()
        assert client.get("/notes/").status_code == 200
        again = client.post(f"/sandbox/live/{live.pk}/step/", follow=True).content.decode()
        assert "already in progress" in again  # one call at a time per run
    finally:
        release.set()
    job = wait_for_job(live)
    assert job.status == "done" and len(turns(live)) == 1
    assert LiveUsage.objects.get().tokens == 340  # the reservation settled to the real usage
    # the SDK's per-call timeout is below the worker's lease
    assert timeouts and timeouts[0] <= runner.CALL_TIMEOUT_S < jobs.LEASE_S
    poll = client.get(f"/sandbox/live/{live.pk}/job/", headers={"HX-Request": "true"})
    assert poll.status_code == 204 and poll["HX-Refresh"] == "true"


@pytest.mark.django_db(transaction=True)
def test_run_to_the_end_goes_on_server_side(client, learner, api, settings):
    settings.LIVE_JOBS = "thread"
    client.force_login(learner)
    live = create(client)
    api.script += [
        reply(tool_use("lookup_order", {"order_id": "20931"})),
        reply(tool_use("lookup_customer", {"email": "a@example.com"})),
        reply(text("Refund approved.")),
    ]
    assert client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"}).status_code == 302
    job = wait_for_job(live)
    assert job.status == "done" and job.calls == 3 and len(turns(live)) == 3
    assert "The run has ended" in client.get(f"/sandbox/live/{live.pk}/").content.decode()


@pytest.mark.django_db
def test_a_call_that_times_out_is_counted_at_its_worst_case(client, learner, api):
    client.force_login(learner)
    live = create(client)
    api.script += [TIMEOUT]
    client.post(f"/sandbox/live/{live.pk}/step/")
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "The API did not answer in time" in html
    run = runner.Run.from_state(None, live.state, {})
    spent = LiveUsage.objects.get().tokens
    assert spent >= run.effective_params["max_tokens"] and turns(live) == []


@pytest.mark.django_db
def test_a_worker_that_died_frees_the_run_and_keeps_the_count(client, learner, api):
    from django.utils import timezone

    client.force_login(learner)
    live = create(client)
    LiveJob.objects.create(
        live=live,
        key_source="server",
        payer=f"u{learner.pk}",
        status="running",
        lease_until=timezone.now() - timezone.timedelta(seconds=1),
    )
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "stopped before it finished" in html and "Step: one API call" in html
    api.script += [reply(text("Hi."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    assert len(turns(live)) == 1


@pytest.mark.django_db
def test_stale_jobs_are_failed_with_their_reasons_and_deleted_at_the_next_step(learner, settings):
    from django.utils import timezone as tz

    dump = jobs.i18n.dump  # each reason as a message id with its values
    ago = tz.now() - tz.timedelta(seconds=settings.LIVE_QUEUE_STALE_S + 5)
    soon = tz.now() + tz.timedelta(seconds=60)
    for status, at in [("running", ago), ("queued", ago), ("running", soon), ("queued", soon)]:
        live = LiveRun.objects.create(user=learner, state={})
        LiveJob.objects.create(
            live=live, key_source="", status=status, lease_until=at, created_at=at
        )
    assert jobs.expire_stale() == 2 and jobs.expire_stale() == 0
    assert list(LiveJob.objects.order_by("pk").values_list("status", "error", "error_msg")) == [
        ("failed", jobs.WORKER_DIED, dump(jobs.WORKER_DIED)),
        ("failed", jobs.NOT_PICKED_UP, dump(jobs.NOT_PICKED_UP)),
        ("running", "", None),
        ("queued", "", None),
    ]
    for live in LiveRun.objects.all():  # the next step deletes a run's finished jobs (only)
        jobs._delete_finished(live.pk)
    assert list(LiveJob.objects.order_by("pk").values_list("status")) == [("running",), ("queued",)]


@pytest.mark.django_db(transaction=True)
def test_liveworker_runs_queued_calls_when_the_web_only_queues(client, learner, api, settings):
    settings.LIVE_JOBS = "external"
    client.force_login(learner)
    live = create(client)
    api.script += [reply(text("From the worker."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    assert LiveJob.objects.get().status == "queued" and api.requests == []
    call_command("liveworker", "--once", "--poll", "0.05", stdout=io.StringIO())
    assert LiveJob.objects.get().status == "done" and len(turns(live)) == 1


@pytest.mark.django_db
def test_a_call_that_ends_while_the_page_renders_never_strands_the_page(
    client, learner, api, settings
):
    """The worker may end a call at any moment while the run's page is being built. Whatever the
    moment (here: after each of the page's SQL queries in turn), the page must follow the call or
    show its result, never "Ready for the next call" without polling: that left learners on a
    stale page after pressing Step (the page read the run before the call and the job after it)."""
    from django.db import connection

    settings.LIVE_JOBS = "external"  # the job waits in the table until this test runs it
    client.force_login(learner)
    stranded = []
    for moment in range(30):
        live = create(client)
        api.script += [reply(text(f"Answer {moment}."))]
        client.post(f"/sandbox/live/{live.pk}/step/")
        job = LiveJob.objects.get(live=live)
        seen = {"queries": 0, "done": False}

        def worker_ends_the_call(
            execute, sql, params, many, context, job=job, seen=seen, moment=moment
        ):
            result = execute(sql, params, many, context)
            seen["queries"] += 1
            if seen["queries"] > moment and not seen["done"]:
                seen["done"] = True
                jobs.run_job(job.pk)
            return result

        with connection.execute_wrapper(worker_ends_the_call):
            page = client.get(f"/sandbox/live/{live.pk}/").content.decode()
        if not seen["done"]:  # the page made fewer queries than that: every moment was tried
            break
        assert LiveJob.objects.get(pk=job.pk).status == "done"
        if 'hx-trigger="every 1s"' not in page and f"Answer {moment}." not in page:
            stranded.append(moment)
    assert moment >= 4, "the page is built in at least four queries"
    assert stranded == [], f"stale page without polling when the call ended after query {stranded}"


# --- 2. who may spend what ----------------------------------------------------------------------


@pytest.mark.django_db
def test_anonymous_visitors_cannot_spend_the_servers_key(client, api):
    response = client.post("/sandbox/live/", FORM)
    assert "Only signed-in accounts may use this server" in response.content.decode()
    assert not LiveRun.objects.exists()
    live = create(client, api_key=OWN_KEY)  # with a key of their own they may
    client.post(f"/sandbox/live/{live.pk}/key/", {"forget": "1"})
    html = client.post(f"/sandbox/live/{live.pk}/step/", follow=True).content.decode()
    assert "Only signed-in accounts may use this server" in html
    assert api.requests == [] and not LiveUsage.objects.exists()


@pytest.mark.django_db
def test_fresh_sessions_share_one_accounts_allowance(api, learner, settings, django_user_model):
    """The allowance is per account: three sessions of one account spend one cap."""
    from django.test import Client

    settings.LIVE_DAILY_TOKEN_CAP = 6_000
    sent = 0
    for _ in range(3):
        c = Client()
        c.force_login(learner)
        live = create(c)
        api.script += [reply(tool_use("lookup_order", {"order_id": "1"}), usage=(2500, 500))]
        c.post(f"/sandbox/live/{live.pk}/step/")
        sent = len(api.requests)
    assert sent < 3
    assert LiveUsage.objects.get().tokens <= 6_000
    assert list(LiveUsage.objects.values_list("user_id", flat=True)) == [learner.pk]


@pytest.mark.django_db
def test_a_call_whose_worst_case_would_pass_the_cap_is_not_sent(client, learner, api, settings):
    client.force_login(learner)
    live = create(client, max_tokens=1024)
    settings.LIVE_DAILY_TOKEN_CAP = 300  # 420 of 300 was seen: no call may start over the cap
    html = client.post(f"/sandbox/live/{live.pk}/step/", follow=True).content.decode()
    assert "Not sent: the next call could use up to" in html and "allowance of 300" in html
    assert api.requests == []
    # the worker checks again in one conditional UPDATE (e.g. another tab spent it meanwhile)
    settings.LIVE_DAILY_TOKEN_CAP = 200_000
    LiveUsage.objects.create(user=learner, day=_today(), tokens=199_500)
    html = client.post(f"/sandbox/live/{live.pk}/step/", follow=True).content.decode()
    assert "Not sent" in html and api.requests == []
    assert LiveUsage.objects.get().tokens == 199_500


def _today():
    from django.utils import timezone

    return timezone.now().date()


@pytest.mark.django_db
def test_the_reservation_holds_when_the_usage_row_is_raced(learner, settings):
    from studyapp.sandbox import live as services

    settings.LIVE_DAILY_TOKEN_CAP = 1_000
    payer, day = f"u{learner.pk}", _today()
    assert services.reserve(payer, 600, day) == ""
    assert services.reserve(payer, 600, day).startswith("Not sent")  # would make 1,200
    services.settle(payer, day, 600, 120)
    assert services.tokens_today(payer) == 120
    assert services.reserve(payer, 600, day) == ""


@pytest.mark.django_db
def test_an_own_key_is_used_and_never_stored_logged_or_shown(client, api, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    live = create(client, api_key=OWN_KEY)  # anonymous, with a key of their own
    api.script += [
        reply(text("Let me check."), tool_use("lookup_order", {"order_id": "20931"})),
        reply(text("Done.")),
    ]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    assert len(api.requests) == 2
    sent = [h.get("x-api-key", "") + h.get("authorization", "") for h in api.headers]
    assert all(OWN_KEY in h for h in sent)  # their key, not the server's
    assert not LiveUsage.objects.exists()  # not charged to anyone's allowance here
    pages = "".join(
        client.get(url).content.decode()
        for url in ("/sandbox/live/", f"/sandbox/live/{live.pk}/", f"/sandbox/live/{live.pk}/")
    )
    out = io.StringIO()
    call_command("dumpdata", stdout=out)
    logs = caplog.text + "".join(capsys.readouterr())
    encoded = base64.b64encode(OWN_KEY.encode()).decode()
    for where, haystack in (("pages", pages), ("database", out.getvalue()), ("logs", logs)):
        assert OWN_KEY not in haystack, where
        assert OWN_KEY[14:34] not in haystack, where  # no partial copy either
        assert encoded[:24] not in haystack, where
    assert "Your own API key is kept for this run" in pages


@pytest.mark.django_db
def test_an_own_key_in_an_upstream_error_is_redacted_even_partly(client, api):
    from .fakes import ApiError

    live = create(client, api_key=OWN_KEY)
    api.script += [
        ApiError(401, "authentication_error", f"invalid x-api-key ...{OWN_KEY[20:40]}... sent")
    ]
    client.post(f"/sandbox/live/{live.pk}/step/")
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "The last call failed" in html and "[key]" in html
    assert OWN_KEY[20:40] not in html
    # the learner's own key was refused: the message points at it, not at the server's set-up
    assert "Your API key was not accepted; check the key you entered for this run" in html
    assert "ANTHROPIC_API_KEY on the server" not in html
    live.refresh_from_db()
    assert OWN_KEY[20:40] not in json.dumps(live.last_error)


@pytest.mark.django_db
def test_a_bad_own_key_is_refused_without_echoing_it(client, api):
    response = client.post("/sandbox/live/", {**FORM, "api_key": "has spaces sk-ant-xyz123"})
    html = response.content.decode()
    assert "does not look like an API key" in html and "sk-ant-xyz123" not in html


# --- 3. malformed answers -----------------------------------------------------------------------


MALFORMED = {
    "invalid JSON": ("event: message_start\ndata: {not json\n\n", "text/event-stream"),
    "content not a list": (
        sse(
            ("message_start", {"message": {**STREAM_START, "content": "oops"}}),
            ("message_stop", {}),
        ),
        "text/event-stream",
    ),
    "tool_use input a string": (
        sse(
            ("message_start", {"message": STREAM_START}),
            (
                "content_block_start",
                {
                    "index": 0,
                    "content_block": {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "lookup_order",
                        "input": "20931",
                    },
                },
            ),
            ("content_block_stop", {"index": 0}),
            ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {}}),
            ("message_stop", {}),
        ),
        "text/event-stream",
    ),
    "a JSON body cut off": ('{"id": "msg_x", "content": [', "application/json"),
    "nothing at all": ("", "text/event-stream"),
    "nested 5,000 deep": ("[" * 5000 + "]" * 5000, "application/json"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_answer_is_an_error_step_and_the_run_stays_readable(
    client, learner, monkeypatch, case
):
    body, content_type = MALFORMED[case]
    good = FakeAPI([reply(text("Recovered."))])
    served = []

    def handler(request):
        if not served:
            served.append(1)
            return httpx2.Response(
                200, content=body.encode(), headers={"content-type": content_type}
            )
        return good.handler(request)

    monkeypatch.setenv("ANTHROPIC_API_KEY", SERVER_KEY)
    monkeypatch.setattr(runner, "make_client", _client_for(handler))
    client.force_login(learner)
    live = create(client)
    response = client.post(f"/sandbox/live/{live.pk}/step/", follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "The last call failed" in html and "The API&#x27;s answer" in html
    assert "Nothing was lost" in html
    assert turns(live) == []
    for url in (
        f"/sandbox/live/{live.pk}/",
        f"/sandbox/live/{live.pk}/steps/1/",
        f"/sandbox/live/{live.pk}/job/",
        "/sandbox/live/",
    ):
        assert client.get(url).status_code in (200, 302), url
    assert LiveUsage.objects.get().tokens >= 1024  # an unreadable answer: the worst case counted
    client.post(f"/sandbox/live/{live.pk}/step/")  # the next step works
    assert len(turns(live)) == 1
    assert client.get(f"/sandbox/live/{live.pk}/steps/1/").status_code == 200
    assert client.post(f"/sandbox/live/{live.pk}/save/").status_code == 302


@pytest.mark.django_db
def test_a_damaged_saved_run_is_a_page_with_a_message_not_a_500(client, learner):
    client.force_login(learner)
    live = LiveRun.objects.create(
        user=learner,
        scenario="refund-25-days",
        title="Damaged",
        state={"format": "loopcraft.runstate/1", "params": {"model": 5}},
    )
    for url in (f"/sandbox/live/{live.pk}/", f"/sandbox/live/{live.pk}/steps/1/"):
        response = client.get(url)
        assert (
            response.status_code == 200 and "This run can't be shown" in response.content.decode()
        )
    for action in ("step", "fork", "save", "stop"):
        assert client.post(f"/sandbox/live/{live.pk}/{action}/").status_code == 302


def test_a_sealed_key_opens_only_in_its_own_session_and_run(settings):
    from studyapp.sandbox import keys

    token = keys.seal(OWN_KEY, "session-a:1")
    assert OWN_KEY not in token and keys.unseal(token, "session-a:1") == OWN_KEY
    assert keys.unseal(token, "session-b:1") is None  # another session
    assert keys.unseal(token, "session-a:2") is None  # another run
    tampered = token[:30] + ("A" if token[30] != "A" else "B") + token[31:]
    assert keys.unseal(tampered, "session-a:1") is None
    assert keys.unseal("not base64 at all!", "session-a:1") is None


@pytest.mark.django_db(transaction=True)
def test_stop_during_a_call_ends_the_run_after_it(client, learner, monkeypatch, settings):
    settings.LIVE_JOBS = "thread"
    fake = FakeAPI(
        [reply(tool_use("lookup_order", {"order_id": "1"})), reply(text("never asked for"))]
    )
    entered, release = threading.Event(), threading.Event()

    def slow(request):
        entered.set()
        release.wait(30)
        return fake.handler(request)

    monkeypatch.setenv("ANTHROPIC_API_KEY", SERVER_KEY)
    monkeypatch.setattr(runner, "make_client", _client_for(slow))
    client.force_login(learner)
    live = create(client)
    try:
        client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
        assert entered.wait(10)
        html = client.post(f"/sandbox/live/{live.pk}/stop/", follow=True).content.decode()
        assert "The run stops after the call in progress" in html
    finally:
        release.set()
    wait_for_job(live)
    live.refresh_from_db()
    run = runner.Run.from_state(None, live.state, {})
    assert len(run.turns) == 1 and run.ended_by == "user" and len(fake.requests) == 1
