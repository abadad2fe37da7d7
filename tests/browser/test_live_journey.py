"""A learner drives a live loop in Chromium against the scripted fake of the Messages API."""

import pytest
from django.test import Client
from playwright.sync_api import expect

from studyapp.agentloop import runner
from tests.fakes import FakeAPI, reply, text, tool_use

pytestmark = pytest.mark.django_db(transaction=True)
JOB = 45_000  # ms to wait for a call run by a worker thread (polled every second) on a busy machine


@pytest.fixture
def api(monkeypatch, settings, page, live_server, learner):
    """The fake API, calls run by the worker threads as in production, and a signed-in learner
    (the server's key is for accounts only)."""
    fake = FakeAPI([])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setattr(runner, "make_client", lambda **kw: fake.client())
    settings.LIVE_JOBS = "thread"
    session = Client()
    session.force_login(learner)
    page.context.add_cookies(
        [{"name": "sessionid", "value": session.cookies["sessionid"].value, "url": live_server.url}]
    )
    return fake


def test_learner_steps_forks_and_saves_a_live_run(page, live_server, api, assert_accessible):
    call = tool_use("lookup_order", {"order_id": "20931"})
    api.script += [
        reply(text("Let me look that order up."), call),
        reply(text("Your order arrived 25 days ago, so it is still refundable.")),
        reply(text("Forked answer without tools.")),
    ]
    page.goto(live_server.url + "/sandbox/live/")
    assert_accessible(page, "live-start")
    page.get_by_label("Manual: I write each tool result").check()
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("button", name="Step: one API call")).to_be_visible()
    assert_accessible(page, "live-run")

    page.get_by_role("button", name="Step: one API call").click()  # queued; the page follows it
    expect(page.get_by_role("heading", name="Your turn: write the tool results")).to_be_visible(
        timeout=JOB
    )
    box = page.get_by_label("Result content", exact=False)
    box.fill("Order 20931 delivered 25 days ago.")
    page.get_by_role("button", name="Send the results in one message and call again").click()
    expect(page.locator(".live-controls")).to_contain_text("The run has ended", timeout=JOB)
    assert (
        api.requests[1]["messages"][-1]["content"][0]["content"]
        == "Order 20931 delivered 25 days ago."
    )
    assert_accessible(page, "live-ended")

    page.get_by_label("Keep the first N steps").fill("0")
    page.get_by_label("New tool_choice").select_option("none")
    page.get_by_role("button", name="Fork from this step").click()
    expect(page.locator(".messages")).to_contain_text("Forked at step 0")
    page.get_by_role("button", name="Step: one API call").click()
    expect(page.locator(".live-controls")).to_contain_text("The run has ended", timeout=JOB)
    assert api.requests[2]["tool_choice"] == {"type": "none"}

    page.get_by_role("button", name="Save to my runs").click()
    expect(page.locator(".step-count")).to_have_text("Step 1 of 1")


def test_the_start_and_fork_forms_refuse_what_the_model_rejects(
    page, live_server, api, assert_accessible
):
    page.goto(live_server.url + "/sandbox/live/")
    # The start form greys out what the chosen model rejects, and says why (site.js) ...
    page.get_by_label("Model", exact=True).select_option("claude-sonnet-5-5")
    assert page.locator('select[name="tool_choice"] option[value="any"]').is_disabled()
    expect(page.locator("#model-limits")).to_contain_text(
        "claude-sonnet-5-5 rejects forced tool_choice"
    )
    # ... and the server refuses it anyway when it is sent (no script, or a crafted post).
    page.evaluate(
        """() => {
            const o = document.querySelector('select[name="tool_choice"] option[value="any"]');
            o.disabled = false;
            o.selected = true;
        }"""
    )
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "claude-sonnet-5-5 rejects forced tool_choice"
    )
    assert api.requests == []

    page.get_by_label("Model", exact=True).select_option("claude-haiku-5-5")
    page.get_by_label("tool_choice", exact=True).select_option("any")
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("button", name="Step: one API call")).to_be_visible()
    api.script += [reply(call := tool_use("lookup_order", {"order_id": "20931"}))]
    page.get_by_role("button", name="Run to the end").click()
    for _ in range(JOB // 100):  # the worker thread makes the call after the page is back
        if api.requests:
            break
        page.wait_for_timeout(100)
    assert api.requests[0]["tool_choice"] == {"type": "any"} and api.rejected == []
    assert call["id"]

    # A run on Sonnet 5.5: the fork form greys out forced tool_choice and says why.
    page.goto(live_server.url + "/sandbox/live/")
    page.get_by_label("Model", exact=True).select_option("claude-sonnet-5-5")
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("button", name="Step: one API call")).to_be_visible()
    assert page.locator('select[name="tool_choice"] option[value="any"]').is_disabled()
    expect(page.locator(".greyed")).to_contain_text("claude-sonnet-5-5 rejects forced tool_choice")
    assert_accessible(page, "live-fork-greyed")


def test_a_visitor_with_their_own_key_watches_a_slow_call_finish(
    browser, live_server, monkeypatch, settings, assert_accessible
):
    """Anonymous, with a key of their own: the step returns at once, the page says a call is in
    progress (accessible), and reloads by itself with the step when the slow call ends."""
    import threading

    import anthropic
    import httpx2

    fake = FakeAPI([reply(text("Here is the answer, at last."))])
    release = threading.Event()
    keys_sent = []

    def slow(request):
        keys_sent.append(request.headers.get("x-api-key") or request.headers.get("authorization"))
        release.wait(30)
        return fake.handler(request)

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr(
        runner,
        "make_client",
        lambda **kw: anthropic.Anthropic(
            api_key=kw["api_key"],
            max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(slow)),
        ),
    )
    settings.LIVE_JOBS = "thread"
    page = browser.new_page()
    try:
        page.goto(live_server.url + "/sandbox/live/")
        expect(page.locator(".message").first).to_contain_text("Live mode is off on this server")
        page.get_by_label("Your own API key (optional)").fill("sk-ant-api03-my-own-browser-key")
        page.get_by_role("button", name="Create the run").click()
        page.get_by_role("button", name="Step: one API call").click()
        expect(page.get_by_role("heading", name="A call is in progress")).to_be_visible()
        assert_accessible(page, "live-in-progress")
        release.set()
        expect(page.locator(".live-controls")).to_contain_text("The run has ended", timeout=JOB)
        expect(page.locator("main")).to_contain_text("Here is the answer, at last.")
        assert "sk-ant-api03-my-own-browser-key" not in page.content()
        assert any("sk-ant-api03-my-own-browser-key" in (k or "") for k in keys_sent)
    finally:
        release.set()
        page.close()
