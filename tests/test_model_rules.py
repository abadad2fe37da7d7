"""The model catalogue (agentloop/models.py, changes.py), and the runner refusing what a model
rejects before any HTTP call, against the rule-enforcing stand-in of tests/fakes.py."""

import datetime as dt

import pytest

from studyapp.agentloop import changes, models, runner

from .fakes import FakeAPI, reply, text
from .runs import ECHO_TOOLS, new_run

REJECTED = [
    ("claude-sonnet-5-5", {"tool_choice": {"type": "any"}}, "rejects forced tool_choice"),
    (
        "claude-opus-5-5",
        {"tool_choice": {"type": "tool", "name": "lookup"}},
        "rejects forced tool_choice",
    ),
    (
        "claude-opus-5-5",
        {"thinking": {"type": "disabled"}},
        'rejects thinking {"type": "disabled"}',
    ),
    ("claude-sonnet-5-5", {"thinking": {"type": "disabled"}}, "between_tools"),
    (
        "claude-haiku-5-5",
        {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4096},
        "rejects manual thinking",
    ),
    ("claude-haiku-5-5", {"thinking": {"type": "between_tools"}}, "only claude-sonnet-5-5"),
    ("claude-haiku-4-5", {"thinking": {"type": "adaptive"}}, "only thinking mode is manual"),
    ("claude-sonnet-4-5", {}, "claude-sonnet-4-5 is retired"),
    ("claude-sonnet-4-5-20250929", {}, "is retired"),
    ("claude-sonnet-4-20250514", {}, "is retired"),
    ("claude-opus-4-20250514", {}, "is retired"),
    ("claude-opus-4-1-20250805", {}, "is retired"),
]


@pytest.mark.parametrize(("model_id", "changes", "words"), REJECTED)
def test_a_combination_the_model_rejects_is_refused_before_any_http_call(model_id, changes, words):
    api = FakeAPI([reply(text("never sent"))])
    with pytest.raises(runner.RunnerError, match=words) as caught:
        new_run(api, model=model_id, **changes)
    assert model_id in str(caught.value) and "Instead:" in str(caught.value)
    assert api.requests == []
    # The rule-enforcing stand-in agrees: the same request sent anyway is an error.
    request = {
        "model": model_id,
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "x"}],
    }
    request.update(changes)
    with pytest.raises(Exception) as sent:  # noqa: PT011 - 400 or 404, by the stand-in's rules
        api.client().messages.create(tools=ECHO_TOOLS, **{k: v for k, v in request.items()})
    assert getattr(sent.value, "status_code", None) in (400, 404)


ACCEPTED = [
    ("claude-haiku-5-5", {"tool_choice": {"type": "any"}}),
    ("claude-opus-4-6", {"tool_choice": {"type": "tool", "name": "lookup"}}),
    ("claude-sonnet-5-5", {"thinking": {"type": "between_tools"}}),
    ("claude-haiku-5-5", {"thinking": {"type": "disabled"}}),
    (
        "claude-opus-4-6",
        {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4096},
    ),
    (
        "claude-haiku-4-5",
        {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4096},
    ),
    ("claude-opus-5-5", {"thinking": {"type": "adaptive"}}),
]


@pytest.mark.parametrize(("model_id", "changes"), ACCEPTED)
def test_a_combination_the_model_accepts_is_sent_and_the_stand_in_accepts_it(model_id, changes):
    api = FakeAPI([reply(text("Sent."))])
    run = new_run(api, model=model_id, **changes)
    run.step()
    assert len(api.requests) == 1 and api.rejected == [] and run.ended_by == "stop_reason"


def test_a_model_that_always_thinks_cannot_fork_with_thinking_off():
    api = FakeAPI([reply(text("Hi."))])
    run = new_run(api, model="claude-opus-5-5")
    run.step()
    with pytest.raises(runner.RunnerError, match="claude-opus-5-5 cannot turn thinking off"):
        runner.fork(run.to_state(), 0, thinking=None)


# --- the catalogue itself ----------------------------------------------------------------------


def test_every_model_id_the_installed_sdk_knows_has_rules():
    import typing

    from anthropic.types import Model

    known = [m for m in typing.get_args(typing.get_args(Model)[0])]
    assert len(known) >= 20
    assert [m for m in known if models.get_model(m) is None] == []


def test_every_entry_has_a_status_a_source_a_label_and_a_checked_date():
    for m in models.MODELS.values():
        assert m.status in models.STATUSES, m.id
        assert m.source.startswith("https://"), m.id
        assert m.label in (models.CONFIRMED, models.THIRD_PARTY, models.INFERRED), m.id
        assert all(
            v in (models.CONFIRMED, models.THIRD_PARTY, models.INFERRED) for v in m.labels.values()
        )
        assert m.checked == dt.date(2026, 12, 1)
        assert set(m.thinking_modes) <= set(models.THINKING_MODES)
        assert m.status != "deprecated" or m.retires is not None


@pytest.mark.parametrize("bad", [None, 5, {"id": "x"}, "", "claude-sonnet-9-9"])
def test_an_unknown_model_is_a_finding_never_a_crash(bad):
    [v] = models.check_request(bad, {"tool_choice": {"type": "any"}})
    assert v.rule == "model-unknown" and not v.is_error
    assert "Rules unknown for this model" in v.message


def test_bad_request_bodies_never_crash():
    for body in (None, [], {"messages": "x"}, {"thinking": "on", "tool_choice": 3}):
        assert isinstance(models.check_request("claude-sonnet-5-5", body), list)


def test_sonnet_4_5_is_refused_once_its_retirement_date_has_passed():
    sonnet45 = models.get_model("claude-sonnet-4-5")
    assert sonnet45.status_on(dt.date(2026, 11, 29)) == "deprecated"
    assert sonnet45.status_on(dt.date(2026, 12, 1)) == "retired"
    [v] = models.check_request("claude-sonnet-4-5", {}, day=dt.date(2026, 12, 1))
    assert v.is_error and "retirement date, which has passed" in v.message
    assert "claude-sonnet-5-5" in v.fix
    assert (
        models.check_request("claude-sonnet-4-5", {}, day=dt.date(2026, 11, 1))[0].is_error is False
    )


def test_opus_4_5_is_deprecated_with_a_warning_but_still_sent():
    [v] = models.check_request("claude-opus-4-5-20251101", {}, day=dt.date(2026, 12, 1))
    assert not v.is_error and "2027-01-22" in v.message


def test_recorded_loops_skip_retirement():
    assert models.check_request("claude-opus-4-1-20250805", {}, check_status=False) == []


def test_sampling_depends_on_the_api_version_and_the_model():
    body = {"temperature": 0.2}
    assert [v.api_error for v in models.check_request("claude-haiku-4-5", body)] == [
        "temperature: Extra inputs are not permitted"
    ]
    old = models.OLD_API_VERSION
    assert models.check_request("claude-haiku-4-5", body, api_version=old) == []
    both = models.check_request(
        "claude-haiku-4-5", {"temperature": 1, "top_p": 0.9}, api_version=old
    )
    assert [v.rule for v in both] == ["sampling"] and "not both" in both[0].message
    assert models.check_request("claude-haiku-5-5", {"temperature": 1}, api_version=old) == []
    assert models.check_request("claude-haiku-5-5", body, api_version=old)[0].is_error
    assert models.check_request("claude-sonnet-5-5", {"temperature": 1}, api_version=old)[
        0
    ].is_error


def test_a_paused_turn_sent_back_is_not_a_prefill():
    paused = {
        "role": "assistant",
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        ],
    }
    q = {"role": "user", "content": "q"}
    assert models.check_request("claude-sonnet-5-5", {"messages": [q, paused]}) == []
    prefill = {"role": "assistant", "content": "{"}
    [v] = models.check_request("claude-sonnet-5-5", {"messages": [q, prefill]})
    assert v.rule == "prefill" and v.api_error == models.TEXT_PREFILL


@pytest.mark.parametrize(
    ("model_id", "off", "on"),
    [
        ("claude-sonnet-5-5", {"type": "between_tools"}, {}),
        ("claude-haiku-5-5", {"type": "disabled"}, {}),
        ("claude-opus-5-5", None, {}),
        ("claude-fable-5-2", None, {}),
        ("claude-opus-4-6", {}, {"type": "adaptive"}),
        ("claude-haiku-4-5", {}, {"type": "enabled", "budget_tokens": 2048}),
    ],
)
def test_thinking_on_and_off_per_model(model_id, off, on):
    assert models.thinking_off(model_id) == off
    assert models.thinking_on(model_id) == on
    for value in (off, on):
        if value:
            assert [
                v for v in models.check_request(model_id, {"thinking": value}) if v.is_error
            ] == []


def test_the_live_models_are_current_and_never_retired():
    ids = [m.id for m in models.live_models()]
    assert {"claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-5-5"} <= set(ids)
    assert "claude-sonnet-4-5" not in ids and "claude-opus-4-1" not in ids
    assert not any(i[-8:].isdigit() for i in ids)


# --- CHANGES -----------------------------------------------------------------------------------


def test_changes_are_keyed_by_exactly_the_agreed_ids():
    assert list(models.CHANGES) == [
        "sampling",
        "forced-tool-choice",
        "prefill",
        "manual-thinking",
        "thinking-disabled",
        "thinking-default",
        "thinking-display",
        "thinking-binding",
        "thinking-toggle",
        "prior-thinking-kept",
        "model-retirement",
    ]
    for c in models.CHANGES.values():
        assert c.exam and c.today and c.source.startswith("https://") and c.checked
        rows = c.rows()
        assert len(rows) >= len(models.live_models()) and all(r["text"] for r in rows)
    retired = [r["model"] for r in models.CHANGES["model-retirement"].rows()]
    assert "claude-sonnet-4-5" in retired and "claude-opus-4-1" in retired


def test_todays_lines_are_generated_from_the_model_entries(monkeypatch):
    line = changes.per_model("forced-tool-choice", "claude-sonnet-5-5")
    assert line == "400 error"
    edited = models.replace(
        models.get_model("claude-sonnet-5-5"), forced_tool_choice=models.FORCED_OK
    )
    monkeypatch.setitem(models._BY_ID, "claude-sonnet-5-5", edited)
    assert changes.per_model("forced-tool-choice", "claude-sonnet-5-5").startswith("accepted")
    [row] = [
        r for r in models.CHANGES["forced-tool-choice"].rows() if r["model"] == "claude-sonnet-5-5"
    ]
    assert row["text"].startswith("accepted")


def test_a_saved_run_on_a_model_that_has_since_retired_reads_but_never_sends():
    api = FakeAPI([reply(text("never sent"))], enforce_rules=False)
    run = new_run(api, model="claude-haiku-5-5")
    state = run.to_state()
    state["params"]["model"] = "claude-sonnet-4-5"  # saved before its retirement date
    again = runner.Run.from_state(api.client(), state, {})  # still opens, to be read or forked
    step = again.step()
    assert step.kind == "error" and "claude-sonnet-4-5 is retired" in step.error.message
    assert api.requests == []


def test_a_fork_to_another_model_keeps_the_history_and_the_stand_in_accepts_it():
    from .fakes import tool_use

    api = FakeAPI([reply(tool_use("lookup", {"q": "a"})), reply(text("Done on Haiku."))])
    run = new_run(api, model="claude-sonnet-5-5")
    run.step()
    assert run.turns[0]["response"]["content"][0]["type"] == "thinking"  # bound to Sonnet 5.5
    state = runner.fork(run.to_state(), 1, model="claude-haiku-5-5")
    again = runner.Run.from_state(
        api.client(), state, {"lookup": lambda i, c: runner.ToolOutput("x")}
    )
    again.run_to_end()
    # Another model's block is dropped by the API without an error (preserved-thinking docs).
    assert api.rejected == [] and api.requests[-1]["model"] == "claude-haiku-5-5"


def test_forced_choice_with_manual_thinking_is_refused_on_the_models_that_accept_both_alone():
    body = {"tool_choice": {"type": "any"}, "thinking": {"type": "enabled", "budget_tokens": 2048}}
    for model_id in ("claude-opus-4-6", "claude-haiku-4-5"):
        [v] = models.check_request(model_id, body)
        assert v.rule == "forced-tool-choice" and "manual thinking" in v.message
        assert models.check_request(model_id, {"tool_choice": {"type": "any"}}) == []


def test_thinking_off_on_a_run_that_had_thinking_leaves_it_out_from_the_fork_on():
    from studyapp.agentloop import contract, transcript

    api = FakeAPI([reply(text("Thought about it.")), reply(text("Without thinking."))])
    run = new_run(api, model="claude-opus-4-6", thinking={"type": "adaptive"})
    run.step()
    again = runner.Run.from_state(api.client(), runner.fork(run.to_state(), 1, thinking=None), {})
    assert "thinking" not in again.next_request()
    again.stop("checked")
    saved = transcript.parse_transcript(again.to_transcript(), strict=True)
    assert saved.params["thinking"] == {"type": "adaptive"}  # what the kept turn was sent
    assert contract.check_transcript(saved) == []
