"""Live mode in the sandbox, against a scripted fake of the Messages API behind the real SDK."""

import json

import pytest

from studyapp.agentloop import runner
from studyapp.sandbox.models import LiveRun, LiveUsage, UploadedRun

from .conftest import API_KEY
from .fakes import RATE_LIMITED, reply, text, tool_use

pytestmark = pytest.mark.django_db

SECRET = API_KEY


FORM = {
    "scenario": "refund-25-days",
    "prompt": "",
    "model": "claude-sonnet-5-5",
    "tool_choice": "auto",
    "tool_name": "",
    "max_tokens": 1024,
    "budget_tokens": 2048,
    "tool_mode": "automatic",
    "max_turns": 6,
    "token_budget": 60000,
    "wall_clock_s": 120,
    "max_identical_calls": 2,
}


def create(client, **changes):
    response = client.post("/sandbox/live/", {**FORM, **changes})
    assert response.status_code == 302, response.content.decode()[-1500:]
    return LiveRun.objects.latest("pk")


def test_without_a_key_the_page_says_why_and_offers_the_library(client, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    html = client.get("/sandbox/live/").content.decode()
    assert "Live mode is off on this server" in html and "ANTHROPIC_API_KEY" in html
    assert 'href="/sandbox/"' in html
    client.post("/sandbox/live/", FORM)
    assert not LiveRun.objects.exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tool_choice": "any", "thinking": "on"}, "only tool_choice auto or none"),
        ({"tool_choice": "none", "disable_parallel": "on"}, "can&#x27;t go with tool_choice none"),
        ({"thinking": "on", "budget_tokens": 2048, "max_tokens": 1024}, "must be less than"),
        ({"tool_choice": "tool"}, "needs the name of the tool"),
        ({"max_turns": 999}, "max_turns must be between 1 and 40"),
    ],
)
def test_combinations_the_api_rejects_are_explained_before_sending(client, api, changes, message):
    response = client.post("/sandbox/live/", {**FORM, **changes})
    assert message in response.content.decode()
    assert not LiveRun.objects.exists() and api.requests == []


def test_a_run_is_created_without_calling_the_api(client, api):
    live = create(client)
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "Step: one API call" in html and api.requests == []
    assert SECRET not in html


def test_one_step_runs_the_tools_and_shows_the_step(client, api):
    live = create(client)
    api.script += [reply(text("Let me check."), tool_use("lookup_order", {"order_id": "20931"}))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    live.refresh_from_db()
    run = runner.Run.from_state(None, live.state, {})
    assert len(run.turns) == 1 and run.status == "ready"
    assert [m["role"] for m in run.next_request()["messages"]] == ["user", "assistant", "user"]
    assert run.next_request()["messages"][2]["content"][0]["type"] == "tool_result"
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "lookup_order" in html and "Run the tools, send every result in one message" in html
    assert LiveUsage.objects.get().tokens == 120


def test_run_to_the_end_stops_on_end_turn(client, api):
    live = create(client)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("All done."))]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "The run has ended" in html and len(api.requests) == 2


def test_manual_mode_sends_the_learners_result_with_is_error(client, api):
    live = create(client, tool_mode="manual")
    call = tool_use("lookup_order", {"order_id": "20931"})
    api.script += [reply(call), reply(text("Sorry, the order system is down."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "write the tool results" in html and f'name="result-{call["id"]}"' in html
    client.post(
        f"/sandbox/live/{live.pk}/step/",
        {
            "manual": "1",
            f"result-{call['id']}": "Order system timed out",
            f"error-{call['id']}": "on",
        },
    )
    sent = api.requests[1]["messages"][-1]["content"]
    assert sent == [
        {
            "type": "tool_result",
            "tool_use_id": call["id"],
            "content": "Order system timed out",
            "is_error": True,
        }
    ]


def test_an_api_error_is_shown_and_the_step_can_be_retried(client, api):
    live = create(client)
    api.script += [RATE_LIMITED, reply(text("Hello again."))]
    response = client.post(f"/sandbox/live/{live.pk}/step/", follow=True)
    html = response.content.decode()
    assert "The API call failed" in html and "Nothing was lost" in html
    live.refresh_from_db()
    assert runner.Run.from_state(None, live.state, {}).turns == []
    client.post(f"/sandbox/live/{live.pk}/step/")
    live.refresh_from_db()
    assert len(runner.Run.from_state(None, live.state, {}).turns) == 1 and live.last_error is None


def test_text_streams_as_server_sent_events(client, api):
    live = create(client)
    api.script += [reply(text("Streaming works."))]
    response = client.post(
        f"/sandbox/live/{live.pk}/step/", headers={"Accept": "text/event-stream"}
    )
    body = b"".join(response.streaming_content).decode()
    assert response["Content-Type"] == "text/event-stream"
    deltas = [line[6:] for line in body.splitlines() if line.startswith("data: ")][:-1]
    assert "event: text" in body and "".join(json.loads(d) for d in deltas) == "Streaming works."
    assert body.rstrip().endswith('{"error": ""}')
    live.refresh_from_db()
    assert len(runner.Run.from_state(None, live.state, {}).turns) == 1


def test_fork_keeps_the_first_steps_with_changed_parameters(client, api):
    live = create(client)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    response = client.post(f"/sandbox/live/{live.pk}/fork/", {"at_step": 1, "tool_choice": "none"})
    fork = LiveRun.objects.latest("pk")
    assert response["Location"] == f"/sandbox/live/{fork.pk}/" and fork.forked_from == live
    run = runner.Run.from_state(None, fork.state, {})
    assert len(run.turns) == 1 and run.next_request()["tool_choice"] == {"type": "none"}


def test_a_saved_run_replays_in_the_stepper(client, api):
    live = create(client)
    api.script += [reply(text("Hi."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    response = client.post(f"/sandbox/live/{live.pk}/save/")
    saved = UploadedRun.objects.get()
    assert response["Location"] == f"/sandbox/uploads/{saved.pk}/steps/1/"
    assert "Step 1 of 1" in client.get(response["Location"]).content.decode()


def test_the_daily_token_cap_stops_further_calls(client, api, settings):
    live = create(client)
    api.script += [reply(text("Hi."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    settings.LIVE_DAILY_TOKEN_CAP = 100
    html = client.post(f"/sandbox/live/{live.pk}/step/", follow=True).content.decode()
    assert "today&#x27;s live-mode allowance of 100 tokens" in html
    assert len(api.requests) == 1


def test_live_runs_are_private(client, api, learner, other_learner):
    client.force_login(learner)
    live = create(client)
    client.force_login(other_learner)
    assert client.get(f"/sandbox/live/{live.pk}/").status_code == 404
    assert client.post(f"/sandbox/live/{live.pk}/step/").status_code == 404


def test_the_live_page_runs_a_constant_number_of_queries(client, api, django_assert_num_queries):
    live = create(client)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    # session, the run, today's usage
    with django_assert_num_queries(3):
        client.get(f"/sandbox/live/{live.pk}/")


def test_every_request_of_a_live_run_passes_the_contract_checker(client, api):
    from studyapp.agentloop import contract

    live = create(client)
    api.script += [
        reply(
            tool_use("lookup_order", {"order_id": "20931"}),
            tool_use("lookup_order", {"order_id": "1"}),
        ),
        reply(text("Done.")),
    ]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    for body in api.requests:
        assert contract.check(body["messages"], tools=body.get("tools")) == []


def test_a_run_still_going_is_not_flagged_as_ended(client, api):
    live = create(client)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"}))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "The run ended after" not in html
    assert "<code>{&quot;type&quot;: &quot;auto&quot;}</code>" in html
