"""A live run's own texts in the reader's language (issue 16): how the run ended (a stop_reason),
"Not sent: ..." before a refused call, an API error's framing, the job worker's errors and the
context chart. The runner and the worker store them in English with a message id; the page at
/pl/ and /zh-hans/ words them in its language, and English stays exactly as it was."""

import anthropic
import httpx2
import pytest
from django.utils import timezone, translation
from django.utils.formats import number_format

from studyapp.agentloop import catalogue, runner
from studyapp.sandbox import jobs
from studyapp.sandbox.models import LiveJob, LiveRun

from .english_text import english_left
from .fakes import RATE_LIMITED, ApiError, reply, text, tool_use
from .live_runs import STREAM_START, create, sse

pytestmark = pytest.mark.django_db

PREFIXES = ("/pl", "/zh-hans", "/zh-hant")


@pytest.fixture
def client(client, learner):
    client.force_login(learner)
    return client


def page(client, live, prefix=""):
    return client.get(f"{prefix}/sandbox/live/{live.pk}/").content.decode()


def fragment(client, live, prefix="", n=1):
    """The stepper as htmx swaps it in (the last step's decision, with a guard's reason)."""
    response = client.get(f"{prefix}/sandbox/live/{live.pk}/steps/{n}/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    return response.content.decode()


def words(code, text):
    with translation.override(code):
        return translation.gettext(text)


def number(code, n):
    with translation.override(code):
        return number_format(n, force_grouping=True)


def assert_translated(client, live, english, local, n=None):
    """``english`` on the English page; each other page shows its ``local`` words instead, and
    neither it nor the stepper fragment at step ``n`` (a run with turns) has English interface
    text left."""
    assert english in page(client, live)
    for prefix in PREFIXES:
        html = page(client, live, prefix)
        assert english not in html, prefix
        for part in local(prefix.strip("/")):
            assert part in html, (prefix, part)
        assert not english_left(html), (prefix, english_left(html))
        if n:
            assert not english_left(fragment(client, live, prefix, n)), prefix


# --- 1. how the run ended: the stop_reason ---------------------------------------------------


def test_a_stop_reason_that_ends_the_loop_reads_in_the_pages_language(client, api):
    live = create(client)
    api.script += [reply(text("I won't do that."), stop_reason="refusal")]
    client.post(f"/sandbox/live/{live.pk}/step/")
    label = catalogue.NEXT_ACTIONS["handle_refusal"].label
    assert_translated(
        client,
        live,
        f"stop_reason refusal: {label}.",
        lambda code: ["refusal", words(code, label)],
        n=1,
    )
    assert words("pl", label) != label


def test_an_unknown_stop_reason_reads_in_the_pages_language(client, api):
    live = create(client)
    api.script += [reply(text("Hm."), stop_reason="brand_new_reason")]
    client.post(f"/sandbox/live/{live.pk}/step/")
    assert_translated(
        client,
        live,
        "stop_reason &#x27;brand_new_reason&#x27; is not one the loop knows.",
        lambda code: ["&#x27;brand_new_reason&#x27;"],
        n=1,
    )


def test_a_second_cut_off_tool_call_reads_in_the_pages_language(client, api):
    live = create(client)
    cut = tool_use("lookup_order", {"order_id": "209"})
    api.script += [reply(cut, stop_reason="max_tokens"), reply(cut, stop_reason="max_tokens")]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    english = (
        "max_tokens cut a tool_use off again after a retry with max_tokens 2,048; the cut-off "
        "call was not run."
    )
    assert_translated(
        client,
        live,
        english,
        lambda code: ["max_tokens", "tool_use", number(code, 2048)],
        n=2,
    )


def test_a_fork_words_its_recomputed_end_and_drops_a_guards_reason(client, api):
    """A fork recomputes how its kept turns end: a refusal's reason is worded per language; a
    guard's reason (and its message id) from the forked run does not carry over."""
    live = create(client, max_turns=2)
    call = tool_use("lookup_order", {"order_id": "20931"})
    api.script += [reply(call), reply(tool_use("lookup_order", {"order_id": "20932"}))]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    live.refresh_from_db()
    assert live.state["ended_by"] == "turn_cap" and live.state["ended_reason_msg"]
    state = runner.fork(live.state, 2)
    assert state["ended_by"] == "" and state["ended_reason"] == ""
    assert state["ended_reason_msg"] is None

    refused = create(client)
    api.script += [reply(text("No."), stop_reason="refusal")]
    client.post(f"/sandbox/live/{refused.pk}/step/")
    client.post(f"/sandbox/live/{refused.pk}/fork/", {"at_step": 1, "max_tokens": 2048})
    fork = LiveRun.objects.latest("pk")
    assert fork.forked_from == refused
    label = catalogue.NEXT_ACTIONS["handle_refusal"].label
    assert fork.state["ended_reason"] == f"stop_reason refusal: {label}."
    assert fork.state["ended_reason_msg"]["text"] == "stop_reason %(stop_reason)s: %(label)s."
    assert_translated(
        client, fork, f"stop_reason refusal: {label}.", lambda code: [words(code, label)], n=1
    )


# --- 2. a failed or refused call ---------------------------------------------------------------


def test_a_refused_call_says_not_sent_in_the_pages_language(client, api):
    """The contract checker's per-model rule (sampling on Haiku 5.5) is reused as it is worded
    per language; "Not sent:" around it is translated too; nothing reaches the API."""
    live = create(client)
    live.state = {**live.state, "overrides": {"temperature": 0.5, "top_p": 0.5}}
    live.save()
    client.post(f"/sandbox/live/{live.pk}/step/")
    live.refresh_from_db()
    assert api.requests == [] and live.last_error["message"].startswith("Not sent: ")
    english = live.last_error["message"]
    assert_translated(
        client,
        live,
        english.replace("'", "&#x27;").replace('"', "&quot;"),
        lambda code: ["temperature", "top_p", "claude-haiku-5-5"],
    )
    assert live.last_error["msg"]["text"] == "Not sent: %(problem)s"


@pytest.mark.parametrize(
    ("error", "english"),
    [
        (
            RATE_LIMITED,
            "Rate limited: too many requests or tokens for now. Wait a moment, then step again "
            "(HTTP 429 rate_limit_error): Number of requests has exceeded your rate limit.",
        ),
        (
            ApiError(529, "overloaded_error", ""),
            "The API is overloaded right now. Step again in a little while (HTTP 529 "
            "overloaded_error).",
        ),
    ],
)
def test_an_api_error_is_framed_in_the_pages_language_and_quoted_verbatim(
    client, api, error, english
):
    live = create(client)
    api.script += [error]
    client.post(f"/sandbox/live/{live.pk}/step/")
    live.refresh_from_db()
    assert live.last_error["message"] == english
    quoted = ["HTTP 429 rate_limit_error"] if error.message else ["HTTP 529 overloaded_error"]
    if error.message:
        quoted.append(f'<span lang="en">{error.message}</span>')
    assert_translated(client, live, english, lambda code: quoted)


def test_an_error_stored_before_message_ids_still_shows_in_english(client, api):
    live = create(client)
    live.last_error = {"kind": "timeout", "message": "Old words.", "status": None, "step": 0}
    live.save()
    assert "Old words." in page(client, live, "/pl")
    error = runner.StepError(**live.last_error)
    assert error.msg is None and runner.StepError(**error.to_dict()) == error


# --- 3. the job worker's errors ------------------------------------------------------------------


def _failed_job(live, **fields):
    return LiveJob.objects.create(live=live, key_source="server", status="running", **fields)


def test_a_worker_that_died_is_reported_in_the_pages_language(client, api):
    live = create(client)
    _failed_job(live, lease_until=timezone.now() - timezone.timedelta(seconds=1))
    english = "The worker running this call stopped before it finished."
    assert english in page(client, live)
    for prefix in PREFIXES:
        html = page(client, live, prefix)
        assert english not in html and words(prefix.strip("/"), jobs.WORKER_DIED) in html
        assert not english_left(html)


def test_a_job_nobody_claimed_is_reported_in_the_pages_language(client, api, settings):
    live = create(client)
    job = _failed_job(live)
    LiveJob.objects.filter(pk=job.pk).update(
        status="queued", created_at=timezone.now() - timezone.timedelta(hours=1)
    )
    assert jobs.expire_stale(live) == 1
    assert jobs.NOT_PICKED_UP in page(client, live)
    for prefix in PREFIXES:
        html = page(client, live, prefix)
        assert words(prefix.strip("/"), jobs.NOT_PICKED_UP) in html and not english_left(html)


def test_a_bug_in_the_worker_is_reported_in_the_pages_language(client, api, monkeypatch):
    live = create(client)

    def broken(job, api_key):
        raise RuntimeError("boom")

    monkeypatch.setattr(jobs, "_run", broken)
    client.post(f"/sandbox/live/{live.pk}/step/")
    job = LiveJob.objects.get(live=live)
    assert job.status == "failed" and job.error == jobs.SERVER_ERROR
    assert jobs.SERVER_ERROR in page(client, live)
    for prefix in PREFIXES:
        html = page(client, live, prefix)
        assert words(prefix.strip("/"), jobs.SERVER_ERROR) in html and not english_left(html)


def test_the_allowance_refusal_in_the_worker_reads_in_the_pages_language(
    client, api, settings, learner
):
    from studyapp.sandbox.models import LiveUsage

    live = create(client, max_tokens=1024)
    settings.LIVE_DAILY_TOKEN_CAP = 200_000
    LiveUsage.objects.create(user=learner, day=timezone.now().date(), tokens=199_500)
    job = LiveJob.objects.create(live=live, key_source="server", payer=f"u{learner.pk}")
    jobs.run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and "allowance of 200,000 tokens" in job.error
    assert "allowance of 200,000 tokens" in page(client, live)
    polish = page(client, live, "/pl")
    assert "200\xa0000" in polish and not english_left(polish)
    assert not english_left(page(client, live, "/zh-hans"))


def test_stopping_a_run_reads_in_the_pages_language(client, api):
    live = create(client)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"}))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    client.post(f"/sandbox/live/{live.pk}/stop/")
    assert_translated(
        client,
        live,
        "Stopped by the learner.",
        lambda code: [words(code, jobs.STOPPED_BY_LEARNER)],
        n=1,
    )


# --- 4. the context chart ------------------------------------------------------------------------


def test_the_context_chart_writes_numbers_and_words_per_language(client, api):
    """The stepper's chart (its page and its htmx fragment): the axis's short number, the
    counts in its description and bar labels, and its words, per language."""
    live = create(client)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"}), usage=(12_345, 20))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    url = f"/sandbox/live/{live.pk}/steps/1/"
    english = client.get(url).content.decode()
    assert ">12.4k</text>" in english and "the largest is 12365 tokens" in english
    assert "Step 1: 12345 input tokens" in english
    for prefix, short in (("/pl", ">12,4 tys.</text>"), ("/zh-hans", ">1.2万</text>")):
        code = prefix.strip("/")
        for html in (client.get(prefix + url).content.decode(), fragment(client, live, prefix)):
            assert short in html and number(code, 12365) in html, prefix
            assert words(code, "Context size per step") in html
            assert ">12.4k<" not in html and not english_left(html), prefix
    assert "12\xa0365" in client.get("/pl" + url).content.decode()


def test_the_charts_markers_are_worded_per_language():
    from studyapp.sandbox.charts import COMPACTED, context_chart

    series = [
        {"step": 0, "context_tokens": 900, "output_tokens": 10, "context_after": 910},
        {"step": 1, "context_tokens": 400, "output_tokens": 10, "context_after": 410},
    ]
    english = context_chart(series, 0, str, {1: COMPACTED})
    assert ">compacted</text>" in english
    with translation.override("pl"):
        polish = context_chart(series, 0, str, {1: COMPACTED})
    assert f">{words('pl', COMPACTED)}</text>" in polish and "compacted" not in polish


def test_a_refused_fork_says_why_in_the_pages_language(client, api):
    """The runner's reason for refusing a fork (an always-thinking model can't turn thinking
    off) reaches the page as a message id: worded per language, English as before."""
    live = create(client, model="claude-opus-5-5")
    api.script += [reply(text("Hi."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    fork = {"at_step": 1, "thinking": "off"}
    english = client.post(f"/sandbox/live/{live.pk}/fork/", fork, follow=True).content.decode()
    assert "claude-opus-5-5 cannot turn thinking off" in english
    for prefix in PREFIXES:
        response = client.post(f"{prefix}/sandbox/live/{live.pk}/fork/", fork, follow=True)
        html = response.content.decode()
        assert "cannot turn thinking off" not in html and "claude-opus-5-5" in html, prefix
        assert not english_left(html), (prefix, english_left(html))
    assert LiveRun.objects.count() == 1


def _client(handler):
    return anthropic.Anthropic(
        api_key="server-side",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )


_CALL = {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": "20931"}
#: Streamed answers the SDK reads but the loop can't use (as test_live_jobs's MALFORMED).
WRONG_SHAPE = {
    "content not a list": sse(
        ("message_start", {"message": {**STREAM_START, "content": "oops"}}), ("message_stop", {})
    ),
    "tool_use input a string": sse(
        ("message_start", {"message": STREAM_START}),
        ("content_block_start", {"index": 0, "content_block": _CALL}),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {}}),
        ("message_stop", {}),
    ),
}


@pytest.mark.parametrize("case", list(WRONG_SHAPE))
def test_an_answer_of_the_wrong_shape_is_reported_in_the_pages_language(
    client, api, monkeypatch, case
):
    """The shape check's own words (which block, which field) are ours: worded per language,
    with the paths and types as they are; English as before."""
    body = WRONG_SHAPE[case]

    def handler(request):
        return httpx2.Response(
            200, content=body.encode(), headers={"content-type": "text/event-stream"}
        )

    live = create(client)
    monkeypatch.setattr(runner, "make_client", lambda **kw: _client(handler))
    client.post(f"/sandbox/live/{live.pk}/step/")
    live.refresh_from_db()
    english = live.last_error["message"]
    assert english.startswith("The API&#x27;s answer has".replace("&#x27;", "'"))
    assert english.endswith("Nothing was added to the run; step again.")
    assert_translated(
        client,
        live,
        "Nothing was added to the run; step again.",
        lambda code: ["content" if case == "content not a list" else "content[0]"],
    )


def test_a_refusal_in_a_flash_message_is_escaped_once(client, api):
    live = create(client, model="claude-opus-5-5")
    api.script += [reply(text("Hi."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    response = client.post(
        f"/pl/sandbox/live/{live.pk}/fork/", {"at_step": 1, "thinking": "off"}, follow=True
    )
    html = response.content.decode()
    assert "{&quot;type&quot;: &quot;disabled&quot;}" in html and "&amp;quot;" not in html


def test_a_guard_outside_its_range_is_refused_in_the_pages_language(client, api):
    from .live_runs import FORM

    english = client.post("/sandbox/live/", {**FORM, "max_turns": 999}).content.decode()
    assert "max_turns must be between 1 and 40 API calls (got 999)." in english
    for prefix in PREFIXES:
        html = client.post(f"{prefix}/sandbox/live/", {**FORM, "max_turns": 999}).content.decode()
        assert "max_turns" in html and "999" in html and not english_left(html), prefix
        assert "must be between" not in html
    assert not LiveRun.objects.exists()


def test_a_damaged_run_says_so_in_the_pages_language(client, api):
    live = create(client)
    LiveRun.objects.filter(pk=live.pk).update(state={"format": "something/else"})
    english = page(client, live)
    assert "Not a saved run (expected format &#x27;loopcraft.runstate/1&#x27;)." in english
    for prefix in PREFIXES:
        html = page(client, live, prefix)
        assert "loopcraft.runstate/1" in html and "Not a saved run" not in html, prefix
        assert not english_left(html), (prefix, english_left(html))


def test_a_model_without_rules_is_labelled_in_the_pages_language(client, api):
    live = create(client)
    state = {**live.state, "params": {**live.state["params"], "model": "claude-future-9"}}
    LiveRun.objects.filter(pk=live.pk).update(state=state)
    assert "(rules unknown for this model)" in page(client, live)
    for prefix in PREFIXES:
        html = page(client, live, prefix)
        assert f"({words(prefix.strip('/'), 'rules unknown for this model')})" in html, prefix
        assert "rules unknown for this model" not in html
