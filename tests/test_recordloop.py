"""manage.py recordloop, run against the fake Messages API."""

import json

import pytest
from django.core.management import CommandError, call_command

from studyapp.agentloop import contract, runner, transcript

from .fakes import RATE_LIMITED, FakeAPI, reply, text, tool_use

CUSTOMER = {"email": "marcus.bell@example.net", "billing_zip": "60614"}


@pytest.fixture
def fake_api(monkeypatch):
    """The rule-enforcing stand-in (tests/fakes.py) behind the real SDK."""
    api = FakeAPI([])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-real")
    monkeypatch.setattr(runner, "make_client", lambda **kwargs: api.client(**kwargs))
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
    assert fake_api.requests[0]["model"] == "claude-haiku-5-5"  # the default model
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
        "claude-opus-4-6",
        "--tool-choice",
        '{"type": "tool", "name": "get_customer"}',
        "--max-turns",
        "2",
    )
    data = json.loads(out.read_text())
    assert fake_api.requests[0]["model"] == "claude-opus-4-6"
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


# --- done when (issue 11): the chosen model's rules, before anything is sent --------------------

FOUR_STEPS = [
    lambda: reply(tool_use("get_customer", CUSTOMER)),
    lambda: reply(tool_use("lookup_order", {"order_id": "20577"})),
    lambda: reply(tool_use("process_refund", {"order_id": "20577", "amount": 124, "reason": "x"})),
    lambda: reply(text("That order is past our 30-day window, so I can't refund it.")),
]


@pytest.mark.parametrize("model", [None, "claude-sonnet-5-5", "claude-opus-4-6"])
def test_it_runs_to_end_turn_against_the_rule_enforcing_stand_in(fake_api, tmp_path, model):
    fake_api.script = [make() for make in FOUR_STEPS]
    out = record(tmp_path, "--scenario", "refund-45-days", *(["--model", model] if model else []))
    data = json.loads(out.read_text())
    assert data["turns"][-1]["response"]["stop_reason"] == "end_turn"
    assert fake_api.rejected == [] and len(fake_api.requests) == 4
    first = data["turns"][0]["response"]["content"][0]
    if model != "claude-opus-4-6":  # thinking on by default: bound blocks went back unchanged
        assert first["type"] == "thinking" and first["signature"].startswith("fakesig-")
        assert fake_api.requests[1]["messages"][1]["content"][0] == first
    parsed = transcript.parse_transcript(data, strict=True)
    assert contract.check_transcript(parsed) == []


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["--model", "claude-sonnet-5-5", "--tool-choice", '{"type": "any"}'],
            "claude-sonnet-5-5 rejects forced tool_choice",
        ),
        (["--model", "claude-sonnet-4-5"], "claude-sonnet-4-5 is retired"),
        (["--model", "claude-opus-4-1-20250805"], "claude-opus-4-1-20250805 is retired"),
    ],
)
def test_a_request_the_model_rejects_sends_nothing_and_exits_non_zero(
    fake_api, tmp_path, args, words
):
    with pytest.raises(CommandError, match=words):
        record(tmp_path, "--scenario", "refund-45-days", *args)
    assert fake_api.requests == [] and not (tmp_path / "run.json").exists()


def test_the_command_line_exits_non_zero_naming_the_model(fake_api, tmp_path, capsys):
    from django.core.management import execute_from_command_line

    out = tmp_path / "run.json"
    argv = ["manage.py", "recordloop", "--scenario", "refund-45-days", "--out", str(out)]
    with pytest.raises(SystemExit) as exit_info:
        execute_from_command_line(
            [*argv, "--model", "claude-sonnet-5-5", "--tool-choice", '{"type": "any"}']
        )
    assert exit_info.value.code != 0
    assert "claude-sonnet-5-5 rejects forced tool_choice" in capsys.readouterr().err
    assert fake_api.requests == []


def test_forced_tool_choice_runs_on_haiku_5_5(fake_api, tmp_path):
    fake_api.script = [reply(tool_use("get_customer", CUSTOMER)) for _ in range(2)]
    out = record(
        tmp_path,
        "--scenario",
        "refund-45-days",
        "--model",
        "claude-haiku-5-5",
        "--tool-choice",
        '{"type": "any"}',
        "--max-turns",
        "2",
    )
    data = json.loads(out.read_text())
    assert fake_api.rejected == [] and len(fake_api.requests) == 2
    assert fake_api.requests[0]["tool_choice"] == {"type": "any"}
    # Forced tool use was accepted: the stand-in skipped thinking, as the docs say.
    assert data["turns"][0]["response"]["content"][0]["type"] == "tool_use"


def test_an_unknown_model_is_sent_with_a_warning(fake_api, tmp_path, capsys):
    fake_api.enforce_rules = False
    fake_api.script = [reply(text("Hi."))]
    record(tmp_path, "--scenario", "refund-45-days", "--model", "claude-from-the-future")
    assert "Rules unknown for this model" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("model", "sent"),
    [
        ("claude-sonnet-5-5", {"type": "between_tools"}),
        ("claude-haiku-5-5", {"type": "disabled"}),
        ("claude-opus-4-6", None),
    ],
)
def test_thinking_off_sends_what_the_model_accepts(fake_api, tmp_path, model, sent):
    fake_api.script = [reply(text("Hi."))]
    record(tmp_path, "--scenario", "refund-45-days", "--model", model, "--thinking", "off")
    assert fake_api.requests[0].get("thinking") == sent and fake_api.rejected == []


def test_thinking_off_on_a_model_that_always_thinks_sends_nothing(fake_api, tmp_path):
    with pytest.raises(CommandError, match="claude-opus-5-5: it has no way to turn thinking off"):
        record(
            tmp_path,
            "--scenario",
            "refund-45-days",
            "--model",
            "claude-opus-5-5",
            "--thinking",
            "off",
        )
    assert fake_api.requests == []
