"""manage.py recordloop, run against the fake Messages API."""

import json

import pytest
from django.core.management import CommandError, call_command

from studyapp.agentloop import contract, runner, transcript

from .fakes import RATE_LIMITED, FakeAPI, reply, text, tool_use

CUSTOMER = {"email": "marcus.bell@example.net", "billing_zip": "60614"}


@pytest.fixture
def fake_api(monkeypatch, settings):
    settings.ANTHROPIC_MODEL = "claude-from-settings"
    api = FakeAPI([])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    monkeypatch.setattr(runner, "make_client", lambda **kwargs: api.client())
    return api


def record(tmp_path, *args):
    out = tmp_path / "run.json"
    call_command("recordloop", *args, "--out", str(out))
    return out


def test_it_records_a_scenario_into_a_transcript_the_checker_accepts(fake_api, tmp_path):
    fake_api.script = [
        reply(tool_use("get_customer", CUSTOMER)),
        reply(tool_use("lookup_order", {"order_id": "20577"})),
        reply(tool_use("process_refund", {"order_id": "20577", "amount": 124, "reason": "fit"})),
        reply(text("That order is past our 30-day window, so I can't refund it.")),
    ]
    out = record(tmp_path, "--scenario", "refund-45-days")

    data = json.loads(out.read_text())
    parsed = transcript.parse_transcript(data, strict=True)
    assert parsed.slug == "refund-45-days" and len(parsed.turns) == 4
    assert fake_api.requests[0]["model"] == "claude-from-settings"
    refused = parsed.turns[2].tool_results[0]
    assert refused["is_error"] is True
    assert json.loads(refused["content"])["category"] == "business_rule"
    assert data["ended_by"] == "stop_reason"
    assert contract.check_transcript(parsed) == []


def test_it_passes_model_tool_choice_and_max_turns(fake_api, tmp_path):
    fake_api.script = [reply(tool_use("get_customer", CUSTOMER)) for _ in range(2)]
    out = record(
        tmp_path,
        "--scenario",
        "refund-45-days",
        "--model",
        "claude-other",
        "--tool-choice",
        '{"type": "tool", "name": "get_customer"}',
        "--max-turns",
        "2",
    )
    data = json.loads(out.read_text())
    assert fake_api.requests[0]["model"] == "claude-other"
    assert fake_api.requests[0]["tool_choice"] == {"type": "tool", "name": "get_customer"}
    assert data["ended_by"] == "turn_cap" and len(data["turns"]) == 2


def test_without_a_key_it_exits_with_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(CommandError, match="ANTHROPIC_API_KEY is not set"):
        record(tmp_path, "--scenario", "refund-25-days")
    assert not (tmp_path / "run.json").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--scenario", "nope"], "Unknown scenario 'nope'; choose one of refund-25-days"),
        (["--scenario", "refund-25-days", "--tool-choice", "{bad"], "not valid JSON"),
        (["--scenario", "refund-25-days", "--tool-choice", '{"type": "all"}'], "one of auto"),
        (["--scenario", "refund-25-days", "--max-turns", "999"], "max_turns must be between"),
    ],
)
def test_bad_options_are_named(fake_api, tmp_path, args, words):
    with pytest.raises(CommandError, match=words):
        record(tmp_path, *args)
    assert fake_api.requests == []


def test_an_api_error_is_reported_and_the_turns_so_far_are_kept(fake_api, tmp_path):
    fake_api.script = [reply(tool_use("get_customer", CUSTOMER)), RATE_LIMITED]
    with pytest.raises(CommandError, match="Step 1 failed: Rate limited"):
        record(tmp_path, "--scenario", "refund-45-days")
    data = json.loads((tmp_path / "run.json").read_text())
    assert len(data["turns"]) == 1 and "ended_by" not in data
