"""The live runner against the real SDK and a scripted fake of the Messages API."""

import json

import pytest

from studyapp.agentloop import contract, demo, models, runner, transcript

from .fakes import (
    CONNECTION_ERROR,
    OVERLOADED,
    RATE_LIMITED,
    TIMEOUT,
    UNAUTHORIZED,
    ApiError,
    FakeAPI,
    FakeClock,
    reply,
    server_tool_use,
    text,
    thinking,
    tool_use,
)
from .runs import CURRENT, ECHO_TOOLS, HANDLERS, RUNNER_MODELS, new_run


@pytest.fixture(autouse=True, params=RUNNER_MODELS)
def model(request):
    CURRENT["model"] = request.param
    yield request.param
    CURRENT["model"] = RUNNER_MODELS[0]


def assert_contract_clean(api, run):
    """Every request sent passes contract.check, and the transcript checks clean."""
    responses = [t["response"] for t in run.turns]
    for i, body in enumerate(api.requests):
        findings = contract.check(
            body["messages"],
            tools=body.get("tools"),
            tool_choice=body.get("tool_choice"),
            thinking=body.get("thinking"),
            responses=responses[:i],
            params=body,
        )
        assert findings == [], (i, findings)
    parsed = transcript.parse_transcript(run.to_transcript(), strict=True)
    assert contract.check_transcript(parsed) == []
    return parsed


# --- tool_use ----------------------------------------------------------------------------------


def test_parallel_tool_use_sends_every_result_in_one_user_message_in_order():
    first = reply(
        text("Checking both."),
        tool_use("lookup", {"q": "a"}, id="toolu_A"),
        tool_use("weather", {"q": "b"}, id="toolu_B"),
    )
    api = FakeAPI([first, reply(text("Both done."))])
    run = new_run(api)

    step = run.step()
    assert step.kind == "response" and step.action == "run_tools"
    assert [r["tool_use_id"] for r in step.tool_results] == ["toolu_A", "toolu_B"]
    final = run.step()

    assert final.action == "finish" and run.status == "ended"
    assert run.ended_by == "stop_reason"
    sent = api.requests[1]["messages"]
    assert len(sent) == 3  # user, assistant (as received), ONE user message with both results
    assert sent[1] == {"role": "assistant", "content": first["content"]}
    results = sent[2]
    assert results["role"] == "user"
    assert [b["type"] for b in results["content"]] == ["tool_result", "tool_result"]
    assert [b["tool_use_id"] for b in results["content"]] == ["toolu_A", "toolu_B"]
    assert json.loads(results["content"][1]["content"]) == {"echo": {"q": "b"}}
    assert api.requests[1]["tools"] == api.requests[0]["tools"]
    assert_contract_clean(api, run)


def test_pause_turn_resends_the_content_as_is_with_no_continue_message():
    paused = reply(
        text("Searching."),
        server_tool_use("web_search", {"query": "refund policy"}),
        stop_reason="pause_turn",
    )
    api = FakeAPI([paused, reply(text("Found it."))])
    run = new_run(api, tools=[*ECHO_TOOLS, {"type": "web_search_20250305", "name": "web_search"}])

    assert run.step().action == "resend_paused"
    assert run.status == "ready"
    run.step()

    first, second = api.requests
    assert second["messages"] == [
        *first["messages"],
        {"role": "assistant", "content": paused["content"]},
    ]
    assert second["messages"][-1]["role"] == "assistant"  # no "continue" user message
    assert second["tools"] == first["tools"]
    assert second["tool_choice"] == first["tool_choice"]
    assert_contract_clean(api, run)


def test_cut_off_tool_use_is_not_run_and_retried_once_with_more_tokens():
    ran = []

    def write_file(tool_input, context):
        ran.append(tool_input)
        return runner.ToolOutput("written")

    cut = reply(
        text("Writing."),
        tool_use("write_file", {"q": "half a fi"}),
        stop_reason="max_tokens",
    )
    api = FakeAPI([cut, reply(tool_use("write_file", {"q": "whole"})), reply(text("Saved."))])
    run = new_run(api, max_tokens=512, handlers={**HANDLERS, "write_file": write_file})

    step = run.step()
    assert step.action == "retry_with_more_tokens" and not step.tool_results
    assert ran == []
    run.step()
    run.step()

    assert ran == [{"q": "whole"}]
    assert [r["max_tokens"] for r in api.requests] == [512, 1024, 1024]
    assert api.requests[1]["messages"] == api.requests[0]["messages"]  # the same request
    assert run.turns[0]["tool_results"] == []
    assert run.turns[1]["request_overrides"] == {"max_tokens": 1024}
    assert_contract_clean(api, run)


def test_a_second_cut_off_in_a_row_ends_the_run_without_running_it():
    cut = [reply(tool_use("write_file", {"q": "x"}), stop_reason="max_tokens") for _ in range(2)]
    api = FakeAPI(cut)
    run = new_run(api, max_tokens=512)
    run.run_to_end()

    assert len(api.requests) == 2
    assert run.ended_by == "stop_reason"
    assert "again after a retry" in run.ended_reason
    assert all(t["tool_results"] == [] for t in run.turns)


def test_refusal_stops_without_a_retry():
    api = FakeAPI([reply(text("I can't help with that."), stop_reason="refusal")])
    run = new_run(api)
    results = run.run_to_end()

    assert [r.action for r in results] == ["handle_refusal"]
    assert len(api.requests) == 1
    assert run.ended_by == "stop_reason" and "refusal" in run.ended_reason
    assert run.step().kind == "ended"  # stepping an ended run sends nothing
    assert len(api.requests) == 1


# --- API errors ----------------------------------------------------------------------------------


def test_a_429_is_recorded_leaves_the_run_unchanged_and_the_retry_works():
    limited = ApiError(**{**RATE_LIMITED.__dict__, "headers": {"retry-after": "7"}})
    api = FakeAPI([limited, reply(text("Hello."))])
    run = new_run(api)
    before = run.to_state()

    failed = run.step()

    assert failed.kind == "error" and failed.error.kind == "rate_limit"
    assert failed.error.status == 429 and failed.error.retry_after == 7
    assert "Rate limited" in failed.error.message and "429" in failed.error.message
    after = run.to_state()
    assert after["turns"] == before["turns"] == []
    assert after["errors"][0]["kind"] == "rate_limit"
    assert run.status == "ready"

    resumed = runner.Run.from_state(api.client(), after, HANDLERS)
    assert resumed.step().action == "finish"
    assert api.requests[0] == api.requests[1]  # the same request, sent again


@pytest.mark.parametrize(
    ("script", "kind", "words"),
    [
        (UNAUTHORIZED, "authentication", "ANTHROPIC_API_KEY"),
        (OVERLOADED, "overloaded", "overloaded"),
        (ApiError(500, "api_error", "Internal server error"), "api_error", "internal error"),
        (TIMEOUT, "timeout", "did not answer in time"),
        (CONNECTION_ERROR, "connection", "ANTHROPIC_BASE_URL"),
    ],
)
def test_api_errors_become_plain_messages_and_never_show_the_key(script, kind, words, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-the-servers-key")  # the run uses the server's
    api = FakeAPI([script])
    run = new_run(api)
    result = run.step()

    assert result.kind == "error" and result.error.kind == kind
    assert words in result.error.message
    assert "test-key" not in json.dumps(run.to_state())
    assert run.turns == [] and run.status == "ready"


def test_a_request_the_contract_rejects_is_not_sent():
    api = FakeAPI([])
    run = new_run(api)
    run.overrides["tool_choice"] = {"type": "none", "disable_parallel_tool_use": True}
    result = run.step()

    assert result.kind == "error" and result.error.kind == "invalid_request"
    assert result.error.message.startswith("Not sent:")
    assert api.requests == []


# --- guards ------------------------------------------------------------------------------------


def test_the_repeated_call_guard_stops_an_identical_call_before_it_runs():
    calls = []

    def lookup(tool_input, context):
        calls.append(tool_input)
        return runner.ToolOutput("still in transit; check again")

    api = FakeAPI([reply(tool_use("lookup", {"q": "1Z99"})) for _ in range(3)])
    run = new_run(
        api,
        guards={"max_identical_calls": 2},
        handlers={**HANDLERS, "lookup": lookup},
    )
    run.run_to_end()

    assert len(api.requests) == 3
    assert len(calls) == 2  # the third identical call was not run
    assert run.ended_by == "repeated_call"
    assert "lookup was requested with identical input in 3 responses" in run.ended_reason
    parsed = transcript.parse_transcript(run.to_transcript(), strict=True)
    assert parsed.ended_by == "repeated_call"
    assert contract.check_transcript(parsed) == []


def test_identical_calls_inside_one_parallel_response_count_once():
    same = [tool_use("lookup", {"q": "1Z99"}) for _ in range(3)]
    api = FakeAPI([reply(*same), reply(text("All three say: in transit."))])
    run = new_run(api, guards={"max_identical_calls": 2})
    run.run_to_end()

    assert run.ended_by == "stop_reason" and len(api.requests) == 2
    assert len(run.turns[0]["tool_results"]) == 3  # all three were run and answered


def test_the_turn_cap_ends_the_run_at_the_cap_without_running_the_last_tools():
    api = FakeAPI([reply(tool_use("lookup", {"q": str(i)})) for i in range(3)])
    run = new_run(api, guards={"max_turns": 3})
    results = run.run_to_end()

    assert len(api.requests) == 3
    assert run.ended_by == "turn_cap" and "3 API calls" in run.ended_reason
    assert results[-1].status == "ended" and results[-1].tool_results == []
    assert run.turns[-1]["tool_results"] == []
    parsed = transcript.parse_transcript(run.to_transcript(), strict=True)
    assert contract.check_transcript(parsed) == []  # stopped by a guard and reported


def test_the_token_budget_stops_before_a_call_that_could_exceed_it():
    # Each call: 1,000 input + 100 output tokens; max_tokens 1,024; budget 5,000.
    script = [reply(tool_use("lookup", {"q": str(i)}), usage=(1000, 100)) for i in range(5)]
    api = FakeAPI(script)
    run = new_run(api, guards={"token_budget": 5000})
    run.run_to_end()

    # after 3 calls 3,300 tokens are used; the 4th could add ~1,100 + 1,024 more
    assert len(api.requests) == 3
    assert run.ended_by == "token_budget"
    assert run.usage["total"] == 3300 <= 5000
    assert "3,300 of 5,000" in run.ended_reason


def test_the_wall_clock_stops_the_run_and_bounds_each_call():
    clock = FakeClock()
    api = FakeAPI(
        [reply(tool_use("lookup", {"q": str(i)})) for i in range(5)],
        on_request=clock.tick_on_request(40),
    )
    run = new_run(api, guards={"wall_clock_s": 100}, clock=clock)
    run.run_to_end()

    assert len(api.requests) == 3  # 40 s + 40 s + 40 s: past 100 s after the third
    assert run.ended_by == "wall_clock"
    assert run.active_ms == 120_000
    # each call may only take the time left: 100 s, then 60 s, then 20 s
    assert [h["x-stainless-timeout"] for h in api.headers] == ["100.0", "60.0", "20.0"]


def test_guard_limits_above_the_caps_are_refused():
    with pytest.raises(runner.RunnerError, match="max_turns must be between 1 and"):
        runner.Guards(max_turns=runner.TURN_CAP + 1)
    with pytest.raises(runner.RunnerError, match="Unknown guard 'max_cost'"):
        runner.Guards.from_dict({"max_cost": 3})
    assert runner.Guards.from_dict({"max_turns": 10_000}, clamp=True).max_turns == runner.TURN_CAP


# --- parameters --------------------------------------------------------------------------------


def test_forced_tool_choice_with_budget_thinking_is_refused_before_any_call():
    api = FakeAPI([])
    with pytest.raises(runner.RunnerError) as info:
        new_run(
            api,
            max_tokens=4096,
            tool_choice={"type": "any"},
            thinking={"type": "enabled", "budget_tokens": 2048},
        )
    assert str(info.value) == (
        "With extended thinking (budget_tokens), only tool_choice auto or none is supported."
    )
    assert api.requests == []


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"tool_choice": {"type": "tool"}}, 'needs the tool\'s "name"'),
        ({"tool_choice": {"type": "tool", "name": "nope"}}, "not among the tools"),
        ({"thinking": {"type": "enabled", "budget_tokens": 500}}, "at least 1,024"),
        ({"thinking": {"type": "enabled", "budget_tokens": 2048}}, "below max_tokens"),
        ({"max_tokens": runner.MAX_TOKENS_CAP + 1}, "max_tokens must be between"),
        ({"tool_mode": "sometimes"}, "tool_mode"),
    ],
)
def test_bad_parameters_are_explained(changes, words):
    with pytest.raises(runner.RunnerError, match=words.replace("(", r"\(")):
        new_run(None, **changes)


# --- thinking ----------------------------------------------------------------------------------


def test_thinking_blocks_go_back_byte_identical_when_streaming():
    signature = "EqQBCkYIBxgCKkDx9+/=sig/with\\odd\u00e9chars=="
    first = reply(
        thinking("Two lookups, then answer.\n  Keep whitespace.  ", signature),
        text("Let me check."),
        tool_use("lookup", {"q": "a", "nested": {"none": None}}),
    )
    api = FakeAPI([first, reply(text("Here you go."))])
    run = new_run(api, max_tokens=4096, thinking=models.thinking_on(CURRENT["model"]) or None)
    streamed = []
    run.step(on_text=streamed.append)
    run.step(on_text=streamed.append)

    assert api.requests[0]["stream"] is True
    assert "".join(streamed) == "Let me check.Here you go."
    assert len(streamed) >= 4  # it arrived in pieces
    sent = api.requests[1]["messages"][1]["content"]
    assert sent == first["content"]  # thinking, text, tool_use exactly as the API returned them
    assert json.dumps(sent[0], sort_keys=True) == json.dumps(first["content"][0], sort_keys=True)
    assert_contract_clean(api, run)


def test_response_blocks_are_sent_back_without_null_fields():
    first = reply(text("Checking."), tool_use("lookup", {"q": "a"}))
    first["content"][0]["citations"] = None
    api = FakeAPI([first, reply(text("Done."))])
    run = new_run(api)
    run.run_to_end()

    sent = api.requests[1]["messages"][1]["content"]
    [text_block] = [b for b in sent if b["type"] == "text"]
    assert text_block == {"type": "text", "text": "Checking."}


# --- manual mode -------------------------------------------------------------------------------


def test_manual_mode_waits_for_results_and_sends_an_is_error_result():
    api = FakeAPI(
        [
            reply(tool_use("lookup", {"q": "a"}, id="toolu_M1"), tool_use("weather", {"q": "b"})),
            reply(text("Sorry, that failed.")),
        ]
    )
    run = new_run(api, tool_mode="manual")
    step = run.step()

    assert step.tool_results == [] and run.status == "awaiting_tool_results"
    pending = run.pending_tool_uses
    assert [b["name"] for b in pending] == ["lookup", "weather"]
    assert json.loads(run.suggested_results()["toolu_M1"]["content"]) == {"echo": {"q": "a"}}
    with pytest.raises(runner.RunnerError, match="Waiting for the results"):
        run.step()
    with pytest.raises(runner.RunnerError, match="is missing"):
        run.step(tool_results={"toolu_M1": {"content": "x"}})
    with pytest.raises(runner.RunnerError, match="not one of the calls"):
        run.step(tool_results={"toolu_nope": {"content": "x"}})
    assert len(api.requests) == 1

    state = run.to_state()
    resumed = runner.Run.from_state(api.client(), state, HANDLERS)
    resumed.step(
        tool_results={
            pending[1]["id"]: {"content": "Sunny", "is_error": False},
            "toolu_M1": {"content": '{"category": "timeout", "retryable": true}', "is_error": True},
        }
    )

    results = api.requests[1]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in results] == ["toolu_M1", pending[1]["id"]]  # tool order
    assert results[0]["is_error"] is True and results[1]["is_error"] is False
    assert resumed.status == "ended"
    assert_contract_clean(api, resumed)


# --- state and forks ---------------------------------------------------------------------------


def test_to_state_and_from_state_round_trip_through_json():
    api = FakeAPI([reply(tool_use("lookup", {"q": "a"})), reply(text("Done."))])
    run = new_run(api, guards={"max_turns": 5})
    run.step()
    state = json.loads(json.dumps(run.to_state()))

    resumed = runner.Run.from_state(api.client(), state, HANDLERS)
    assert resumed.to_state() == state
    assert resumed.next_request() == run.next_request()
    resumed.step()
    assert resumed.ended_by == "stop_reason" and len(resumed.turns) == 2


def test_from_state_refuses_a_damaged_state():
    with pytest.raises(runner.RunnerError, match="Not a saved run"):
        runner.Run.from_state(None, {"turns": []})
    with pytest.raises(runner.RunnerError, match="damaged"):
        params = {"model": "claude-test", "max_tokens": 10}
        runner.Run.from_state(None, {"format": runner.STATE_FORMAT, "params": params})


def test_a_fork_keeps_the_first_turns_and_changes_the_parameters_from_there():
    api = FakeAPI(
        [
            reply(tool_use("lookup", {"q": "a"})),
            reply(tool_use("weather", {"q": "b"})),
            reply(text("Done.")),
        ]
    )
    run = new_run(api)
    run.run_to_end()
    assert run.ended_by == "stop_reason"

    forced = models.get_model(CURRENT["model"]).forced_tool_choice != models.FORCED_NO
    choice = {"type": "tool", "name": "weather"} if forced else {"type": "none"}
    forked = runner.fork(
        run.to_state(), 1, tool_choice=choice, max_tokens=2048, guards={"max_turns": 4}
    )
    fork_api = FakeAPI([reply(tool_use("weather", {"q": "c"})), reply(text("Forked."))])
    if not forced:
        fork_api.script[0] = reply(text("No tools this time."))
    again = runner.Run.from_state(fork_api.client(), forked, HANDLERS)

    assert len(again.turns) == 1 and again.status == "ready" and not again.ended_by
    assert again.guards.max_turns == 4
    again.run_to_end()
    first = fork_api.requests[0]
    assert first["messages"] == api.requests[1]["messages"]  # the same history up to the fork
    assert first["tool_choice"] == choice
    assert first["max_tokens"] == 2048
    saved = again.to_transcript()
    assert saved["tool_choice"] == {"type": "auto"}  # the kept turn still shows what it was sent
    assert saved["turns"][1]["request_overrides"]["tool_choice"] == choice
    parsed = transcript.parse_transcript(saved, strict=True)
    assert contract.check_transcript(parsed) == []


def test_a_fork_that_the_api_would_reject_is_refused():
    api = FakeAPI([reply(tool_use("lookup", {"q": "a"})), reply(text("Done."))])
    run = new_run(api)
    run.run_to_end()
    state = run.to_state()

    with pytest.raises(runner.RunnerError, match="at_step must be between 0 and 2"):
        runner.fork(state, 3)
    for part in ("system", "tools", "messages"):
        with pytest.raises(runner.RunnerError, match=f"can't change {part}: thinking blocks"):
            runner.fork(state, 1, **{part: "new"})
    with pytest.raises(runner.RunnerError, match="only tool_choice auto or none"):
        runner.fork(
            state,
            0,
            max_tokens=4096,
            thinking={"type": "enabled", "budget_tokens": 2048},
            tool_choice={"type": "any"},
        )


def test_a_fork_from_step_zero_starts_over_with_new_parameters():
    api = FakeAPI([reply(text("Hi."))])
    run = new_run(api)
    run.step()
    forked = runner.fork(run.to_state(), 0, model="claude-haiku-4-5", tool_mode="manual")
    again = runner.Run.from_state(None, forked)
    assert again.turns == [] and again.status == "ready" and again.tool_mode == "manual"
    assert again.next_request()["model"] == "claude-haiku-4-5"
    with pytest.raises(runner.RunnerError, match="claude-opus-4-1 is retired"):
        runner.fork(run.to_state(), 0, model="claude-opus-4-1")


# --- the demo scenario end to end -------------------------------------------------------------


def test_a_refund_scenario_runs_end_to_end_and_checks_clean():
    api = FakeAPI(
        [
            reply(
                text("Let me verify you."),
                tool_use(
                    "get_customer", {"email": "priya.shah@example.com", "billing_zip": "94110"}
                ),
            ),
            reply(tool_use("lookup_order", {"order_id": "20931"})),
            reply(tool_use("process_refund", {"order_id": "20931", "amount": 58.0, "reason": "x"})),
            reply(text("Your refund of $58.00 is on its way.")),
        ]
    )
    run = runner.Run.new(
        api.client(),
        model=CURRENT["model"],
        max_tokens=1024,
        handlers=demo.make_handlers(),
        **demo.run_params("refund-25-days"),
    )
    run.run_to_end()

    assert run.ended_by == "stop_reason" and len(run.turns) == 4
    refund = json.loads(run.turns[2]["tool_results"][0]["content"])
    assert refund["status"] == "refunded" and refund["amount"] == 58.0
    assert api.requests[0]["system"] == demo.SYSTEM
    assert [t["name"] for t in api.requests[0]["tools"]] == list(demo.TOOL_NAMES)
    parsed = assert_contract_clean(api, run)
    assert parsed.slug == "refund-25-days"


def test_a_fork_that_switches_thinking_on_mid_loop_is_sent_with_a_lint_or_refused(model):
    api = FakeAPI([reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Done."))])
    run = runner.Run.new(
        api.client(),
        model=model,
        max_tokens=4096,
        handlers=demo.make_handlers(),
        **demo.run_params("refund-25-days"),
    )
    run.step()
    budget = {"type": "enabled", "budget_tokens": 2048}
    if "enabled" not in models.get_model(model).thinking_modes:
        with pytest.raises(runner.RunnerError, match=f"{model} rejects manual thinking"):
            runner.fork(run.to_state(), 1, thinking=budget)
        assert len(api.requests) == 1  # nothing was sent for the fork
        return
    # Current docs: no 400; thinking is silently disabled for that request. Sent, and linted.
    state = runner.fork(run.to_state(), 1, thinking=budget)
    again = runner.Run.from_state(api.client(), state, demo.make_handlers())
    again.step()
    assert len(api.requests) == 2 and api.requests[1]["thinking"] == budget
    found = contract.check_transcript(
        transcript.parse_transcript(again.to_transcript(), strict=True)
    )
    assert [(f.rule, f.severity) for f in found] == [("thinking-toggled", "lint")]


# --- per-model rules: refused before any HTTP call ---------------------------------------------


def test_thinking_blocks_with_omitted_text_go_back_unchanged_and_stay_bound(model):
    api = FakeAPI([reply(tool_use("lookup", {"q": "a"})), reply(text("Done."))])
    run = new_run(api)
    run.run_to_end()
    assert run.ended_by == "stop_reason" and api.rejected == []
    first = run.turns[0]["response"]["content"]
    if models.get_model(model).thinking_default == "adaptive":
        assert first[0]["type"] == "thinking" and first[0]["thinking"] == ""
        assert first[0]["signature"].startswith("fakesig-")
    assert api.requests[1]["messages"][1]["content"] == first  # echoed exactly as received
    assert_contract_clean(api, run)


def test_the_stand_in_rejects_an_edited_prefix_behind_a_bound_thinking_block(model):
    api = FakeAPI([reply(tool_use("lookup", {"q": "a"})), reply(text("unused"))])
    run = new_run(api)
    run.step()
    request = run.next_request()
    request["system"] = "A different system prompt."
    if not models.get_model(model).thinking_bound:
        return  # Opus 4.6: blocks are not bound (and this one has none)
    with pytest.raises(Exception) as caught:  # noqa: PT011
        api.client().messages.create(**request)
    assert "The block is bound to a different conversation" in str(caught.value)


def test_turning_thinking_off_sends_what_each_model_accepts(model):
    api = FakeAPI([reply(text("Hi."))])
    run = new_run(api)
    run.step()
    state = run.to_state()
    expected = {
        "claude-sonnet-5-5": {"type": "between_tools"},
        "claude-haiku-5-5": {"type": "disabled"},
        "claude-opus-4-6": None,  # off by default: leave thinking out
    }[model]
    again = runner.Run.from_state(api.client(), runner.fork(state, 0, thinking=None), HANDLERS)
    assert again.next_request().get("thinking") == expected
    api.script.append(reply(text("Again.")))
    again.step()
    assert api.rejected == [] and api.requests[-1].get("thinking") == expected
