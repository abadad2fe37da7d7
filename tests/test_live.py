"""Live mode in the sandbox, against a scripted fake of the Messages API behind the real SDK."""

import re

import pytest

from studyapp.agentloop import runner
from studyapp.sandbox.models import LiveRun, LiveUsage, UploadedRun

from .conftest import API_KEY
from .fakes import RATE_LIMITED, reply, text, tool_use
from .live_runs import FORM, create

pytestmark = pytest.mark.django_db

SECRET = API_KEY


@pytest.fixture
def client(client, learner):
    """Live mode on the server's key is for signed-in accounts: these tests sign one in."""
    client.force_login(learner)
    return client


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
        (
            {"tool_choice": "any", "thinking": "enabled", "model": "claude-opus-4-6"},
            "only tool_choice auto or none",
        ),
        ({"tool_choice": "none", "disable_parallel": "on"}, "can&#x27;t go with tool_choice none"),
        ({"thinking": "enabled", "budget_tokens": 2048, "max_tokens": 1024}, "must be less than"),
        ({"model": "claude-sonnet-5-5", "tool_choice": "any"}, "claude-sonnet-5-5 rejects forced"),
        (
            {"model": "claude-opus-5-5", "tool_choice": "tool", "tool_name": "lookup_order"},
            "claude-opus-5-5 rejects forced",
        ),
        ({"model": "claude-sonnet-4-5"}, "claude-sonnet-4-5 is retired"),
        ({"model": "claude-opus-4-1-20250805"}, "claude-opus-4-1-20250805 is retired"),
        (
            {"model": "claude-opus-5-5", "thinking": "off"},
            "claude-opus-5-5 cannot turn thinking off",
        ),
        (
            {"model": "claude-haiku-5-5", "thinking": "enabled", "max_tokens": 4096},
            "claude-haiku-5-5 rejects manual thinking",
        ),
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


def test_a_manual_result_with_a_nul_character_is_refused_in_words(client, api):
    """PostgreSQL can store no NUL in a text or jsonb column: the result is refused before
    anything is queued (it was a 500 there, found by test_live_fuzz)."""
    live = create(client, tool_mode="manual")
    call = tool_use("lookup_order", {"order_id": "20931"})
    api.script += [reply(call), reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    data = {"manual": "1", f"result-{call['id']}": "before\x00after"}
    response = client.post(f"/sandbox/live/{live.pk}/step/", data, follow=True)
    assert response.status_code == 200 and len(api.requests) == 1  # nothing sent or queued
    assert f"The result for {call['id']} contains a NUL character" in response.content.decode()
    assert f'name="result-{call["id"]}"' in response.content.decode()  # still to write


def test_an_api_error_is_shown_and_the_step_can_be_retried(client, api):
    live = create(client)
    api.script += [RATE_LIMITED, reply(text("Hello again."))]
    response = client.post(f"/sandbox/live/{live.pk}/step/", follow=True)
    html = response.content.decode()
    assert "The last call failed" in html and "Nothing was lost" in html
    live.refresh_from_db()
    assert runner.Run.from_state(None, live.state, {}).turns == []
    client.post(f"/sandbox/live/{live.pk}/step/")
    live.refresh_from_db()
    assert len(runner.Run.from_state(None, live.state, {}).turns) == 1 and live.last_error is None


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
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"}))]
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
    # session, the signed-in user, the run, its last job, today's usage
    with django_assert_num_queries(5):
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


# --- per-model rules on the live page (issue 11) -----------------------------------------------


def test_the_model_picker_lists_current_models_with_their_status(client, api):
    html = client.get("/sandbox/live/").content.decode()
    assert re.search(
        r'<option value="claude-haiku-5-5" selected[^>]*>claude-haiku-5-5 \(active\)</option>', html
    )
    assert "claude-opus-4-5 (deprecated, retires 2027-01-22)" in html
    assert '<option value="claude-sonnet-4-5"' not in html  # retired: not offered
    assert "What each model accepts today" in html


def test_the_stepper_of_a_live_run_follows_its_saved_state(client, api):
    """A live run's stepper Run is parsed and checked once per saved state: a new step, a title
    changed behind the app's back and a state rewritten in the database are all read anew."""
    live = create(client)
    assert client.get(f"/sandbox/live/{live.pk}/steps/1/").status_code == 302  # no turn yet
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    assert "Step 1 of 1" in client.get(f"/sandbox/live/{live.pk}/steps/1/").content.decode()
    first = LiveRun.objects.get(pk=live.pk).state
    client.post(f"/sandbox/live/{live.pk}/step/")
    page = client.get(f"/sandbox/live/{live.pk}/steps/2/").content.decode()
    assert "Step 2 of 2" in page and "Done." in page
    LiveRun.objects.filter(pk=live.pk).update(title="Renamed behind its back", state=first)
    page = client.get(f"/sandbox/live/{live.pk}/steps/1/").content.decode()
    assert "Step 1 of 1" in page and "Renamed behind its back" in page
    assert client.get(f"/sandbox/live/{live.pk}/steps/2/").status_code == 404


def test_a_kept_stepper_run_is_used_only_with_the_catalogue_it_was_checked_against(
    client, api, monkeypatch
):
    """The kept Run's key names the catalogue's entries by id, and an id can be reused once its
    object is gone: a key that matches with other objects in the catalogue builds the Run anew."""
    import copy

    from studyapp.agentloop import models
    from studyapp.sandbox import live as live_module

    live = create(client)
    api.script += [reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    live.refresh_from_db()
    monkeypatch.setattr(live_module, "_state_key", lambda run: ("the same key",))
    first = live_module.as_sandbox_run(live)
    assert first is not None and live_module.as_sandbox_run(live) is first
    catalogue = models.live_models
    monkeypatch.setattr(models, "live_models", lambda: [copy.copy(m) for m in catalogue()])
    assert live_module.as_sandbox_run(live) is not first


def test_the_kept_start_form_follows_the_language_and_the_default_model(client, api, settings):
    """The start form's fields are rendered once per language and default model and kept: a
    Polish visit after an English one reads Polish, a changed default model is the one
    selected, and a refused form still shows what was typed (never the kept fields)."""

    def page(url):  # (the form's CSRF token is new on every request)
        html = client.get(url).content.decode()
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)

    english, polish = page("/sandbox/live/"), page("/pl/sandbox/live/")
    assert ">Thinking</label>" in english and ">Thinking</label>" not in polish
    assert page("/sandbox/live/") == english and page("/pl/sandbox/live/") == polish
    settings.ANTHROPIC_MODEL = "claude-sonnet-5-5"
    html = client.get("/sandbox/live/").content.decode()
    assert re.search(r'<option value="claude-sonnet-5-5" selected', html)
    assert not re.search(r'<option value="claude-haiku-5-5" selected', html)
    refused = client.post("/sandbox/live/", {**FORM, "max_tokens": "12345678"})
    assert 'value="12345678"' in refused.content.decode()


@pytest.mark.parametrize(
    ("model", "changes", "sent"),
    [
        ("claude-haiku-5-5", {"tool_choice": "any"}, {"tool_choice": {"type": "any"}}),
        ("claude-sonnet-5-5", {"thinking": "off"}, {"thinking": {"type": "between_tools"}}),
        ("claude-haiku-5-5", {"thinking": "off"}, {"thinking": {"type": "disabled"}}),
        ("claude-opus-4-6", {"thinking": "off"}, {"thinking": None}),
        ("claude-opus-4-6", {"tool_choice": "tool", "tool_name": "lookup_order"}, {}),
    ],
)
def test_what_the_model_accepts_is_sent_and_the_stand_in_accepts_it(
    client, api, model, changes, sent
):
    live = create(client, model=model, **changes)
    api.script += [reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    assert len(api.requests) == 1 and api.rejected == []
    for key, value in sent.items():
        assert api.requests[0].get(key) == value


def test_thinking_with_omitted_text_is_shown_as_such_and_echoed_unchanged(client, api):
    live = create(client, model="claude-sonnet-5-5")
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/")
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "thinking (text omitted by the API)" in html
    client.post(f"/sandbox/live/{live.pk}/step/")
    assert api.rejected == []  # the bound, empty block went back unchanged
    first = api.requests[1]["messages"][1]["content"][0]
    assert first["type"] == "thinking" and first["thinking"] == ""


def _run_on(client, api, model):
    live = create(client, model=model)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done."))]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    return live


def test_the_fork_form_greys_out_what_the_model_rejects_and_says_why(client, api):
    live = _run_on(client, api, "claude-sonnet-5-5")
    html = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert '<option value="any" disabled>any</option>' in html
    assert "Greyed out for <code>claude-sonnet-5-5</code>" in html
    assert "claude-sonnet-5-5 rejects forced tool_choice" in html
    assert "thinking-binding-controls-2026-08-01" in html  # why history edits are refused
    other = _run_on(client, api, "claude-haiku-5-5")
    html = client.get(f"/sandbox/live/{other.pk}/").content.decode()
    assert '<option value="any">any</option>' in html and "Greyed out for" not in html
    opus = create(client, model="claude-opus-5-5")
    html = client.get(f"/sandbox/live/{opus.pk}/").content.decode()
    assert '<option value="off" disabled>off</option>' in html


def test_a_fork_the_model_rejects_is_refused_before_sending(client, api):
    live = _run_on(client, api, "claude-sonnet-5-5")
    sent = len(api.requests)
    response = client.post(
        f"/sandbox/live/{live.pk}/fork/", {"at_step": 1, "tool_choice": "any"}, follow=True
    )
    html = response.content.decode()
    assert "Can&#x27;t fork there: claude-sonnet-5-5 rejects forced tool_choice" in html
    assert LiveRun.objects.count() == 1 and len(api.requests) == sent
    response = client.post(
        f"/sandbox/live/{live.pk}/fork/",
        {"at_step": 0, "model": "claude-sonnet-4-5"},
        follow=True,
    )
    assert "claude-sonnet-4-5 is retired" in response.content.decode()
    assert LiveRun.objects.count() == 1 and len(api.requests) == sent


def test_a_fork_with_thinking_off_sends_what_the_model_accepts(client, api):
    live = _run_on(client, api, "claude-sonnet-5-5")
    client.post(f"/sandbox/live/{live.pk}/fork/", {"at_step": 0, "thinking": "off"})
    fork = LiveRun.objects.latest("pk")
    api.script += [reply(text("No up-front thinking."))]
    client.post(f"/sandbox/live/{fork.pk}/step/")
    assert api.requests[-1]["thinking"] == {"type": "between_tools"} and api.rejected == []


def test_a_fork_to_a_model_that_accepts_forced_choice_runs(client, api):
    live = _run_on(client, api, "claude-sonnet-5-5")
    client.post(
        f"/sandbox/live/{live.pk}/fork/",
        {"at_step": 0, "model": "claude-haiku-5-5", "tool_choice": "any"},
    )
    fork = LiveRun.objects.latest("pk")
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"}))]
    client.post(f"/sandbox/live/{fork.pk}/step/")
    assert api.requests[-1]["model"] == "claude-haiku-5-5"
    assert api.requests[-1]["tool_choice"] == {"type": "any"} and api.rejected == []


def test_each_model_option_says_what_that_model_rejects(client, api):
    html = client.get("/sandbox/live/").content.decode()
    assert re.search(
        r'<option value="claude-sonnet-5-5" data-rejects="any tool enabled" '
        r'data-why="claude-sonnet-5-5 rejects forced tool_choice',
        html,
    )
    assert re.search(r'<option value="claude-opus-5-5" data-rejects="any tool off enabled"', html)
    assert re.search(r'<option value="claude-haiku-5-5" selected data-rejects="enabled"', html)


def test_the_model_table_and_pickers_follow_an_edited_catalogue_and_the_pages_language(
    client, api, monkeypatch
):
    """What the live pages show of the catalogue is built once per language and catalogue
    (forms.per_catalogue): an entry edited after a page was shown shows on the next one, and
    each language gets its own words."""
    from studyapp.agentloop import models

    live = create(client)
    row = re.compile(r"<code>claude-sonnet-5-5</code>.*?</tr>", re.S)
    before = client.get("/sandbox/live/").content.decode()
    assert "<td>400 error</td>" in row.search(before).group()
    assert 'value="claude-sonnet-5-5" data-rejects="any tool enabled"' in before
    polish = client.get("/pl/sandbox/live/").content.decode()
    assert "(active)" not in polish and "(active)" in before
    original = models.get_model("claude-sonnet-5-5")
    edited = models.replace(
        original,
        forced_tool_choice=models.FORCED_OK,
        status="deprecated",
        retires=models.get_model("claude-opus-4-5").retires,
    )
    monkeypatch.setitem(models._BY_ID, "claude-sonnet-5-5", edited)
    after = client.get("/sandbox/live/").content.decode()
    assert "<td>accepted (with adaptive thinking" in row.search(after).group()
    assert 'value="claude-sonnet-5-5" data-rejects="enabled"' in after
    assert "claude-sonnet-5-5 (deprecated, retires 2027-01-22)" in after
    fork = client.get(f"/sandbox/live/{live.pk}/").content.decode()
    assert "claude-sonnet-5-5 (deprecated, retires 2027-01-22)" in fork
    monkeypatch.setitem(models._BY_ID, "claude-sonnet-5-5", original)
    again = client.get("/sandbox/live/").content.decode()
    assert again == before.replace(*_csrf(before, again))


def _csrf(one: str, two: str) -> tuple[str, str]:
    """The CSRF token of each page (the one part of the page that differs per request)."""
    tokens = [
        re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', h).group(1) for h in (one, two)
    ]
    return tokens[0], tokens[1]


def test_a_guards_reason_reads_in_the_pages_language(client, api):
    """The runner keeps a guard's reason as a message id with its values: the run's page words it
    in Polish or Chinese (numbers grouped per locale), English stays exactly as the runner wrote."""
    live = create(client, max_turns=2)
    call = tool_use("lookup_order", {"order_id": "20931"})
    api.script += [reply(call), reply(tool_use("lookup_order", {"order_id": "20932"}))]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    english = "Turn cap: 2 API calls made, the limit is 2; the last response (stop_reason tool_use)"
    assert english in client.get(f"/sandbox/live/{live.pk}/").content.decode()
    polish = client.get(f"/pl/sandbox/live/{live.pk}/").content.decode()
    assert "Limit tur: wykonano 2 wywołań API przy limicie 2" in polish and english not in polish
    chinese = client.get(f"/zh-hans/sandbox/live/{live.pk}/").content.decode()
    assert "轮次上限：已调用 API 2 次，上限为 2" in chinese


def test_a_run_number_beyond_the_column_or_someone_elses_is_a_404(client, api, other_learner):
    """The run's lookup is compiled once per process (core/owners.owned_object): an id no
    column can hold, or another account's run, is a 404 on every live page, never a 500."""
    from django.test import Client

    create(client)
    live = LiveRun.objects.get()
    other = Client()
    other.force_login(other_learner)
    for path in ("/sandbox/live/{}/", "/sandbox/live/{}/steps/1/"):
        assert client.get(path.format(2**40)).status_code == 404
        assert client.get(path.format(2**70)).status_code == 404
        assert other.get(path.format(live.pk)).status_code == 404
    assert client.get(f"/sandbox/live/{live.pk}/").status_code == 200


def test_the_allowance_updates_compiled_once_change_what_the_orms_would(learner):
    """reserve and settle run their UPDATEs compiled once (core.prepared.PreparedWrite): on a row
    of one day the same changes, with the same row counts, as the ORM's UPDATE on another's."""
    import datetime as dt

    from django.db import connection

    from core import prepared
    from studyapp.sandbox import live as services

    days = dt.date(2030, 1, 2), dt.date(2030, 1, 3)
    for day in days:
        LiveUsage.objects.create(user=learner, owner_token="", day=day, tokens=100)
    steps = [(services._reserving, {"n": 700, "room": 50}), (services._reserving, {"n": 300})]
    steps += [(services._settling, {"n": -1000}), (services._settling, {"n": 55})]
    for build, values in steps:
        values = {"user": learner.pk, "room": 700, **values}
        values = {k: v for k, v in values.items() if k in build.__code__.co_varnames}
        name = build.__name__
        orm = build(**values, day=days[0])
        changed = (
            orm[0].update(**orm[1]),
            services._usage_update(name, build, **values, day=days[1]),
        )
        rows = LiveUsage.objects.filter(day__in=days).order_by("day").values_list("tokens", "calls")
        assert changed[0] == changed[1] and rows[0] == rows[1], (name, values, changed, rows)
    assert list(rows) == [(55, 1)] * 2
    # Compiled on SQLite; on PostgreSQL the F() sums' parameters are psycopg's Int4 wrappers,
    # not the stand-ins, so the ORM builds the UPDATE (the same rows: checked above).
    kept = prepared._prepared[(("live-usage", "_settling"), connection.vendor)]
    assert isinstance(kept, prepared.PreparedWrite) is (connection.vendor == "sqlite")
