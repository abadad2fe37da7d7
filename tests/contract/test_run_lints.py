"""Whole transcripts: run-level lints, each failing and passing; the rule registry."""

import copy
import json

from studyapp.agentloop import contract
from studyapp.agentloop.contract import RULES, check_transcript
from studyapp.agentloop.transcript import FORMAT, parse_raw_log, parse_transcript

from .builders import (
    THINKING,
    WEB_SEARCH,
    Q,
    assistant,
    parallel_run,
    response,
    result,
    rules,
    search_result,
    server_call,
    text,
    thought,
    tool_use,
    transcript,
    turn,
    user,
)


def test_a_clean_parallel_run_has_no_findings():
    assert check_transcript(parallel_run()) == []


def test_the_loop_ended_after_a_tool_use_response():
    t = transcript(turn(response(1, "tool_use", text("Let me check."), tool_use("toolu_1"))))
    [f] = check_transcript(t)
    assert f.rule == "loop-ignores-stop-reason" and f.step == 0
    assert f.path == "turns[0].response.stop_reason"
    assert "run the tools" in f.message


def test_a_guard_that_stops_a_runaway_loop_is_not_blamed():
    t = transcript(
        turn(response(1, "tool_use", tool_use("toolu_1")), [result("toolu_1")]),
        turn(response(2, "tool_use", tool_use("toolu_2")), [result("toolu_2")]),
        turn(response(3, "tool_use", tool_use("toolu_3"))),
        ended_by="repeated_call",
    )
    assert check_transcript(t) == []


def test_the_loop_went_on_after_end_turn():
    t = transcript(
        turn(response(1, "end_turn", text("All done."))),
        turn(response(2, "end_turn", text("Still done."))),
    )
    [f] = check_transcript(t)
    assert f.rule == "loop-ignores-stop-reason" and f.step == 1 and f.path == "turns[1]"


def test_a_new_user_message_after_end_turn_is_a_new_conversation_turn():
    first = response(1, "end_turn", text("It shipped."))
    t = transcript(
        turn(first),
        turn(
            response(2, "end_turn", text("Yes, it is paid.")),
            messages_sent=[Q, assistant(first["content"]), user("Is it paid?")],
        ),
    )
    assert check_transcript(t) == []


def test_max_tokens_treated_as_done():
    t = transcript(turn(response(1, "max_tokens", text("The order shipped on"))))
    [f] = check_transcript(t)
    assert f.rule == "max-tokens-as-done" and f.step == 0


def test_a_cut_off_tool_use_retried_with_more_tokens_is_clean():
    t = transcript(
        turn(response(1, "max_tokens", text("Filing."), tool_use("toolu_1", "process_refund"))),
        turn(
            response(2, "tool_use", text("Filing."), tool_use("toolu_2", "process_refund")),
            [result("toolu_2", "Refund of $40 processed.")],
            request_overrides={"max_tokens": 4096},
        ),
        turn(response(3, "end_turn", text("Refunded."))),
    )
    assert check_transcript(t) == []


def test_a_cut_off_tool_use_that_was_executed_is_flagged_at_the_next_request():
    t = transcript(
        turn(
            response(1, "max_tokens", text("Filing."), tool_use("toolu_1", "process_refund")),
            [result("toolu_1", "Refund of $40 processed.")],
        ),
        turn(response(2, "end_turn", text("Refunded."))),
    )
    found = check_transcript(t)
    assert rules(found) == ["truncated-tool-use-executed"]
    assert found[0].step == 1 and found[0].path == "messages[2].content[0]"


def test_a_cut_off_tool_use_retried_with_the_same_budget():
    t = transcript(
        turn(response(1, "max_tokens", tool_use("toolu_1"))),
        turn(response(2, "max_tokens", tool_use("toolu_2"))),
        turn(response(3, "end_turn", text("ok")), request_overrides={"max_tokens": 8192}),
    )
    assert rules(check_transcript(t)) == ["retry-without-more-tokens"]


def test_a_refusal_retried_unchanged():
    t = transcript(
        turn(response(1, "refusal", text("I can't help with that."))),
        turn(response(2, "refusal", text("I can't help with that."))),
    )
    [f] = check_transcript(t)
    assert f.rule == "refusal-retried-unchanged" and f.step == 1
    assert "HTTP 200" in f.message


def test_a_refusal_followed_by_a_reset_context_or_a_fallback_model_is_fine():
    reset = transcript(
        turn(response(1, "refusal", text("I can't help with that."))),
        turn(response(2, "end_turn", text("Sure.")), messages_sent=[user("Where is order A1?")]),
    )
    assert check_transcript(reset) == []
    fallback = transcript(
        turn(response(1, "refusal", text("I can't help with that."))),
        turn(
            response(2, "end_turn", text("Sure.")), request_overrides={"model": "claude-haiku-4-5"}
        ),
    )
    assert check_transcript(fallback) == []


def test_a_refusal_that_ends_the_run_is_fine():
    assert check_transcript(transcript(turn(response(1, "refusal", text("I can't."))))) == []


def test_the_iteration_cap_as_the_only_stop():
    turns = [
        turn(
            response(i, "tool_use", tool_use(f"toolu_{i}")), [result(f"toolu_{i}")] if i < 3 else []
        )
        for i in range(1, 4)
    ]
    t = transcript(*turns, guards={"max_turns": 3}, ended_by="turn_cap")
    [f] = check_transcript(t)
    assert f.rule == "cap-only-stop" and f.step == 2 and "safety net" in f.message
    # Without ended_by the cap is inferred from guards.max_turns.
    t = transcript(*copy.deepcopy(turns), guards={"max_turns": 3})
    assert rules(check_transcript(t)) == ["cap-only-stop"]


def test_a_cap_stop_that_the_application_reported_is_fine():
    turns = [
        turn(
            response(i, "tool_use", tool_use(f"toolu_{i}")), [result(f"toolu_{i}")] if i < 3 else []
        )
        for i in range(1, 4)
    ]
    t = transcript(
        *turns,
        guards={"max_turns": 3},
        ended_by="turn_cap",
        ended_reason="Turn cap of 3 reached; the task was marked unfinished and escalated.",
    )
    assert check_transcript(t) == []


def test_a_run_under_a_cap_that_ends_on_end_turn_is_fine():
    t = parallel_run(guards={"max_turns": 2}, ended_by="stop_reason")
    assert check_transcript(t) == []


def test_stop_sequence_then_the_same_request_again():
    t = transcript(
        turn(response(1, "stop_sequence", text("Answer: 42"))),
        turn(response(2, "end_turn", text("."))),
        stop_sequences=["###"],
    )
    assert rules(check_transcript(t)) == ["turn-after-stop"]
    ok = transcript(
        turn(response(1, "stop_sequence", text("Step 1 done"))),
        turn(
            response(2, "end_turn", text("Step 2 done")),
            messages_sent=[Q, assistant([text("Step 1 done")]), user("Go on with step 2.")],
        ),
        stop_sequences=["###"],
    )
    assert check_transcript(ok) == []


def test_a_truncated_text_answer_continued_with_more_tokens_is_fine():
    t = transcript(
        turn(response(1, "max_tokens", text("The order shipped on"))),
        turn(
            response(2, "end_turn", text("The order shipped on 3 May.")),
            request_overrides={"max_tokens": 4096},
        ),
    )
    assert check_transcript(t) == []
    same = transcript(
        turn(response(1, "max_tokens", text("The order shipped on"))),
        turn(response(2, "end_turn", text("The order shipped on 3 May."))),
    )
    assert rules(check_transcript(same)) == ["turn-after-stop"]


def test_a_full_context_window_then_the_same_messages():
    t = transcript(
        turn(response(1, "model_context_window_exceeded", text("Summary so far"))),
        turn(response(2, "end_turn", text("ok")), request_overrides={"max_tokens": 8192}),
    )
    [f] = check_transcript(t)
    assert f.rule == "turn-after-stop" and "shrink the history" in f.message


def test_the_replay_mismatch_is_reported_once_where_it_happens():
    data_turns = [
        turn(
            response(1, "tool_use", tool_use("toolu_1"), tool_use("toolu_2")),
            [result("toolu_1"), result("toolu_2")],
        ),
        turn(
            response(2, "end_turn", text("ok")),
            messages_sent=[
                Q,
                assistant([tool_use("toolu_1"), tool_use("toolu_2")]),
                user([result("toolu_1")]),
                user([result("toolu_2")]),
            ],
        ),
    ]
    t = transcript(*data_turns, deliberately_broken=True)
    found = check_transcript(t)
    assert sorted(rules(found)) == ["replay-mismatch", "tool-results-split"]
    assert {f.step for f in found} == {1}
    assert t.deliberately_broken


def test_a_pause_turn_run_resent_as_is_is_clean_and_a_continue_message_is_not():
    paused = response(1, "pause_turn", text("Searching."), server_call())
    done = response(2, "end_turn", search_result(), text("Found it."))
    clean = transcript(turn(paused), turn(done), tools=[WEB_SEARCH])
    assert check_transcript(clean) == []
    sent = [Q, assistant(paused["content"]), user("Continue.")]
    broken = transcript(turn(paused), turn(done, messages_sent=sent), tools=[WEB_SEARCH])
    found = check_transcript(broken)
    assert "pause-turn-continue-message" in rules(found)
    [f] = [f for f in found if f.rule == "pause-turn-continue-message"]
    assert f.severity == "error" and f.step == 1


def test_a_thinking_tool_loop_passes_and_an_edited_one_fails():
    first = response(1, "tool_use", thought(), tool_use("toolu_1"))
    done = response(2, "end_turn", text("It shipped."))
    clean = transcript(
        turn(first, [result("toolu_1")]), turn(done), thinking=THINKING, max_tokens=4096
    )
    assert check_transcript(clean) == []
    edited = [Q, assistant([thought("tidied up"), tool_use("toolu_1")]), user([result("toolu_1")])]
    broken = transcript(
        turn(first, [result("toolu_1")]),
        turn(done, messages_sent=edited),
        thinking=THINKING,
        max_tokens=4096,
    )
    assert set(rules(check_transcript(broken))) == {"thinking-modified", "replay-mismatch"}


def test_tool_failures_in_the_last_turn_are_checked_too():
    t = transcript(
        turn(response(1, "tool_use", tool_use("toolu_1")), [result("toolu_1", "Error: timeout")]),
        ended_by="turn_cap",
    )
    assert set(rules(check_transcript(t))) == {"tool-error-not-flagged", "cap-only-stop"}


def test_request_level_findings_are_reported_once_at_step_zero():
    t = parallel_run(tool_choice={"type": "none", "disable_parallel_tool_use": True})
    found = check_transcript(t)
    assert [(f.rule, f.step, f.path) for f in found] == [("tool-choice-invalid", 0, "tool_choice")]


def test_a_top_level_disable_parallel_field_in_a_transcript_or_log_is_flagged():
    t = parallel_run(disable_parallel_tool_use=True)
    assert rules(check_transcript(t)) == ["disable-parallel-top-level"]
    pairs = [{"request": x.request, "response": x.response} for x in parallel_run().turns]
    for p in pairs:
        p["request"]["disable_parallel_tool_use"] = True
    assert rules(check_transcript(parse_raw_log(json.dumps(pairs)))) == [
        "disable-parallel-top-level"
    ]


def test_an_unknown_stop_reason_in_an_upload_is_a_lint_and_known_ones_are_not():
    data = {
        "format": FORMAT,
        "messages": [Q],
        "turns": [turn(response(1, "compaction", text("Summary of the story so far.")))],
    }
    found = check_transcript(parse_transcript(data, strict=False))
    assert [(f.rule, f.severity, f.step) for f in found] == [("unknown-stop-reason", "lint", 0)]
    data["turns"][0]["response"]["stop_reason"] = "end_turn"
    assert check_transcript(parse_transcript(data, strict=False)) == []


def test_findings_serialise():
    t = transcript(turn(response(1, "tool_use", tool_use("toolu_1"))))
    [f] = check_transcript(t)
    assert set(f.to_dict()) == {
        "rule",
        "severity",
        "step",
        "path",
        "message",
        "api_error",
        "doc_url",
    }
    assert f.title == RULES[f.rule].title and not f.is_error


def test_every_rule_is_exercised_by_a_test_in_this_package():
    from pathlib import Path

    source = "".join(
        path.read_text(encoding="utf-8") for path in Path(__file__).parent.glob("test_*.py")
    )
    for code, rule in RULES.items():
        assert f'"{code}"' in source, code
        assert rule.severity in ("error", "lint") and rule.doc_url.startswith("https://")


def test_the_module_names_its_sources():
    assert contract.DOC_PARALLEL.startswith("https://platform.claude.com/")
