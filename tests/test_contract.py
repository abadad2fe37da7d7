"""The contract checker: every rule with a failing and a passing history."""

import copy
import json

import pytest
from anthropic.types import Message
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from studyapp.agentloop import contract
from studyapp.agentloop.contract import RULES, Finding, check, check_transcript, failure_signal
from studyapp.agentloop.transcript import FORMAT, parse_raw_log, parse_transcript

# --- builders ---------------------------------------------------------------------------------

MODEL = "claude-sonnet-4-5"
LOOKUP = {
    "name": "lookup_order",
    "description": "Look up an order.",
    "input_schema": {"type": "object"},
}
REFUND = {
    "name": "process_refund",
    "description": "Refund an order.",
    "input_schema": {"type": "object"},
}
WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
THINKING = {"type": "enabled", "budget_tokens": 2048}
SIGNATURE = "EqQBCkYIBxgCKkBq3vYQ3xZ8mQ=="


def response(n, stop_reason, *blocks, **usage):
    return {
        "id": f"msg_{n:02d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(blocks),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 500, "output_tokens": 50, **usage},
    }


def text(value):
    return {"type": "text", "text": value}


def tool_use(tool_id, name="lookup_order"):
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {"order_id": "A1"}}


def server_call(tool_id="srvtoolu_1"):
    return {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": "q"}}


def search_result(tool_id="srvtoolu_1"):
    return {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": []}


def thought(words="I should look the order up.", signature=SIGNATURE):
    return {"type": "thinking", "thinking": words, "signature": signature}


def result(tool_id, content="Order A1: shipped on 3 May.", **extra):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def user(content):
    return {"role": "user", "content": content}


def assistant(content):
    return {"role": "assistant", "content": content}


Q = user("Where is order A1, and has it been paid?")


def rules(findings):
    return [f.rule for f in findings]


def transcript(*turns, **top):
    data = {
        "format": FORMAT,
        "slug": "case",
        "title": "A case",
        "model": MODEL,
        "max_tokens": 1024,
        "tools": [LOOKUP, REFUND],
        "tool_choice": {"type": "auto"},
        "messages": [Q],
        "turns": list(turns),
    }
    data.update(top)
    return parse_transcript(data, strict=True)


def turn(resp, results=(), **extra):
    return {"response": resp, "tool_results": list(results), **extra}


def parallel_run(**top):
    return transcript(
        turn(
            response(1, "tool_use", tool_use("toolu_1"), tool_use("toolu_2")),
            [result("toolu_1"), result("toolu_2", "Paid in full.")],
        ),
        turn(response(2, "end_turn", text("It shipped and is paid."))),
        **top,
    )


# --- one request: each rule with a failing and a passing history ------------------------------

PARALLEL = assistant([text("Checking both."), tool_use("toolu_1"), tool_use("toolu_2")])

CASES = [
    # (rule, failing kwargs, passing kwargs)
    (
        "message-shape",
        {"messages": [Q, {"role": "system", "content": "x"}]},
        {"messages": [Q]},
    ),
    (
        "tool-result-missing",
        {"messages": [Q, PARALLEL, user([result("toolu_1")])]},
        {"messages": [Q, PARALLEL, user([result("toolu_1"), result("toolu_2")])]},
    ),
    (
        "tool-result-orphan",
        {
            "messages": [
                Q,
                PARALLEL,
                user([result("toolu_1"), result("toolu_2"), result("toolu_9")]),
            ]
        },
        {"messages": [Q, PARALLEL, user([result("toolu_1"), result("toolu_2")])]},
    ),
    (
        "tool-result-duplicate",
        {
            "messages": [
                Q,
                PARALLEL,
                user([result("toolu_1"), result("toolu_2"), result("toolu_2")]),
            ]
        },
        {"messages": [Q, PARALLEL, user([result("toolu_1"), result("toolu_2")])]},
    ),
    (
        "tool-result-not-first",
        {
            "messages": [
                Q,
                PARALLEL,
                user([text("Here you go."), result("toolu_1"), result("toolu_2")]),
            ]
        },
        # Text AFTER all the results is accepted by the API.
        {"messages": [Q, PARALLEL, user([result("toolu_1"), result("toolu_2"), text("Thanks.")])]},
    ),
    (
        "tool-results-split",
        {"messages": [Q, PARALLEL, user([result("toolu_1")]), user([result("toolu_2")])]},
        {"messages": [Q, PARALLEL, user([result("toolu_1"), result("toolu_2")])]},
    ),
    (
        "server-tool-result-pending",
        {
            "messages": [
                Q,
                assistant([server_call(), tool_use("toolu_1")]),
                user([result("toolu_1"), text("Also check the weather.")]),
            ]
        },
        {
            "messages": [
                Q,
                assistant([server_call(), tool_use("toolu_1")]),
                user([result("toolu_1")]),
            ]
        },
    ),
    (
        "server-tool-not-provided",
        {"messages": [Q, assistant([text("Searching."), server_call()])], "tools": [LOOKUP]},
        {
            "messages": [Q, assistant([text("Searching."), server_call()])],
            "tools": [LOOKUP, WEB_SEARCH],
        },
    ),
    (
        "thinking-missing",
        {
            "messages": [Q, assistant([tool_use("toolu_1")]), user([result("toolu_1")])],
            "thinking": THINKING,
        },
        {
            "messages": [Q, assistant([thought(), tool_use("toolu_1")]), user([result("toolu_1")])],
            "thinking": THINKING,
        },
    ),
    (
        "thinking-modified",
        {
            "messages": [
                Q,
                assistant([thought("I should look it up (edited)."), tool_use("toolu_1")]),
                user([result("toolu_1")]),
            ],
            "thinking": THINKING,
            "responses": [response(1, "tool_use", thought(), tool_use("toolu_1"))],
        },
        {
            "messages": [Q, assistant([thought(), tool_use("toolu_1")]), user([result("toolu_1")])],
            "thinking": THINKING,
            "responses": [response(1, "tool_use", thought(), tool_use("toolu_1"))],
        },
    ),
    (
        "thinking-budget-invalid",
        {"messages": [Q], "thinking": {"type": "enabled", "budget_tokens": 500}},
        {"messages": [Q], "thinking": {"type": "enabled", "budget_tokens": 1024}},
    ),
    (
        "tool-choice-invalid",
        {
            "messages": [Q],
            "tools": [LOOKUP],
            "tool_choice": {"type": "none", "disable_parallel_tool_use": True},
        },
        {
            "messages": [Q],
            "tools": [LOOKUP],
            "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
        },
    ),
    (
        "tool-choice-forced-with-thinking",
        {"messages": [Q], "tools": [LOOKUP], "tool_choice": {"type": "any"}, "thinking": THINKING},
        {"messages": [Q], "tools": [LOOKUP], "tool_choice": {"type": "auto"}, "thinking": THINKING},
    ),
    (
        "disable-parallel-top-level",
        {
            "messages": [Q],
            "tool_choice": {"type": "auto"},
            "params": {"disable_parallel_tool_use": True},
        },
        {
            "messages": [Q],
            "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
            "params": {},
        },
    ),
    (
        "pause-turn-continue-message",
        {
            "messages": [Q, assistant([text("Let me search.")]), user("Continue.")],
            "responses": [response(1, "pause_turn", text("Let me search."))],
        },
        {
            "messages": [Q, assistant([text("Let me search.")])],
            "responses": [response(1, "pause_turn", text("Let me search."))],
        },
    ),
    (
        "pause-turn-not-resent",
        {
            "messages": [Q],
            "responses": [response(1, "pause_turn", text("Searching."), server_call())],
            "tools": [WEB_SEARCH],
        },
        {
            "messages": [Q, assistant([text("Searching."), server_call()])],
            "responses": [response(1, "pause_turn", text("Searching."), server_call())],
            "tools": [WEB_SEARCH],
        },
    ),
    (
        "truncated-tool-use-executed",
        {
            "messages": [
                Q,
                assistant([text("Filing."), tool_use("toolu_1")]),
                user([result("toolu_1")]),
            ],
            "responses": [response(1, "max_tokens", text("Filing."), tool_use("toolu_1"))],
        },
        {
            "messages": [
                Q,
                assistant([text("Filing."), tool_use("toolu_2")]),
                user([result("toolu_2")]),
            ],
            "responses": [
                response(1, "max_tokens", text("Filing."), tool_use("toolu_1")),
                response(2, "tool_use", text("Filing."), tool_use("toolu_2")),
            ],
        },
    ),
    (
        "tool-error-not-flagged",
        {"messages": [Q, assistant([tool_use("toolu_1")]), user([result("toolu_1", "")])]},
        {
            "messages": [
                Q,
                assistant([tool_use("toolu_1")]),
                user([result("toolu_1", "Order service timed out; try again.", is_error=True)]),
            ]
        },
    ),
]


@pytest.mark.parametrize(("rule", "failing", "passing"), CASES, ids=[c[0] for c in CASES])
def test_each_request_rule_fails_and_passes(rule, failing, passing):
    found = check(**failing)
    assert rule in rules(found), found
    for f in found:
        assert isinstance(f, Finding) and f.step is None
        assert f.severity in ("error", "lint") and f.message and f.path
        assert f.doc_url.startswith("https://")
    assert check(**passing) == []


def test_severity_follows_whether_the_api_would_reject():
    for rule, failing, _ in CASES:
        for f in check(**failing):
            if f.rule == rule and rule != "pause-turn-continue-message":
                assert f.severity == RULES[rule].severity


# --- details of the request rules ---------------------------------------------------------------


def test_missing_results_quote_the_api_error():
    [f] = check([Q, PARALLEL, user([result("toolu_1")])])
    assert f.rule == "tool-result-missing" and f.severity == "error"
    assert f.path == "messages[1].content[2]"
    assert f.api_error == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."
    )


def test_a_request_ending_on_an_unanswered_tool_use_is_flagged():
    [f] = check([Q, PARALLEL])
    assert f.rule == "tool-result-missing" and "toolu_1, toolu_2" in f.api_error


def test_results_separated_by_another_message_are_missing_and_orphaned():
    found = check(
        [
            Q,
            assistant([tool_use("toolu_1")]),
            user("Hello?"),
            assistant([text("Hi.")]),
            user([result("toolu_1")]),
        ]
    )
    assert rules(found) == ["tool-result-missing", "tool-result-orphan"]


def test_orphans_quote_the_api_error_with_the_block_position():
    found = check([user([result("toolu_01GHndag5wQmbzNihYmV2UBj")])])
    [f] = found
    assert f.path == "messages[0].content[0]"
    assert f.api_error == (
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
        "toolu_01GHndag5wQmbzNihYmV2UBj. Each `tool_result` block must have a corresponding "
        "`tool_use` block in the previous message."
    )


def test_text_before_results_points_at_the_text():
    found = check([Q, PARALLEL, user([result("toolu_1"), text("and"), result("toolu_2")])])
    [f] = found
    assert f.rule == "tool-result-not-first" and f.path == "messages[2].content[1]"


def test_split_results_point_at_the_second_message():
    found = check([Q, PARALLEL, user([result("toolu_1")]), user([result("toolu_2")])])
    [f] = found
    assert f.severity == "lint" and f.path == "messages[3].content[0]"
    assert "ONE user message" in f.message


def test_the_pending_server_tool_error_quotes_the_api():
    found = check(
        [
            Q,
            assistant([server_call("srvtoolu_7"), tool_use("toolu_1")]),
            user([result("toolu_1"), text("Hi")]),
        ]
    )
    [f] = found
    assert f.path == "messages[2].content[1]"
    assert f.api_error == (
        "`web_search` tool use with id `srvtoolu_7` was found without a corresponding "
        "`web_search_tool_result` block"
    )


def test_a_resolved_server_tool_call_needs_nothing():
    messages = [Q, assistant([server_call(), search_result(), text("Found it.")]), user("Thanks!")]
    assert check(messages, tools=[WEB_SEARCH]) == []


def test_missing_thinking_quotes_the_api_error():
    found = check(
        [Q, assistant([tool_use("toolu_1")]), user([result("toolu_1")])], thinking=THINKING
    )
    [f] = found
    assert f.path == "messages[1].content[0]"
    assert f.api_error.startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with a "
        "thinking block"
    )


def test_thinking_dropped_from_the_response_is_missing_even_without_the_parameter():
    found = check(
        [Q, assistant([tool_use("toolu_1")]), user([result("toolu_1")])],
        responses=[response(1, "tool_use", thought(), tool_use("toolu_1"))],
    )
    assert rules(found) == ["thinking-missing"]


def test_a_re_signed_thinking_block_is_modified():
    found = check(
        [
            Q,
            assistant([thought(signature="forged"), tool_use("toolu_1")]),
            user([result("toolu_1")]),
        ],
        thinking=THINKING,
        responses=[response(1, "tool_use", thought(), tool_use("toolu_1"))],
    )
    [f] = found
    assert f.rule == "thinking-modified" and f.path == "messages[1].content[0]"
    assert "cannot be modified" in f.api_error


def test_redacted_thinking_counts_as_thinking():
    redacted = {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"}
    messages = [Q, assistant([redacted, tool_use("toolu_1")]), user([result("toolu_1")])]
    assert check(messages, thinking=THINKING) == []
    changed = [
        Q,
        assistant([{**redacted, "data": "b3RoZXI="}, tool_use("toolu_1")]),
        user([result("toolu_1")]),
    ]
    found = check(
        changed,
        thinking=THINKING,
        responses=[response(1, "tool_use", redacted, tool_use("toolu_1"))],
    )
    assert rules(found) == ["thinking-modified"]


def test_thinking_of_a_finished_earlier_turn_may_be_omitted():
    messages = [
        Q,
        assistant([text("It shipped.")]),  # an earlier, finished turn without its thinking
        user("And the invoice?"),
        assistant([thought(), tool_use("toolu_5")]),
        user([result("toolu_5")]),
    ]
    assert check(messages, thinking=THINKING) == []


def test_adaptive_thinking_does_not_demand_a_thinking_block_or_forbid_forced_tools():
    messages = [Q, assistant([tool_use("toolu_1")]), user([result("toolu_1")])]
    assert check(messages, thinking={"type": "adaptive"}) == []
    assert (
        check([Q], tools=[LOOKUP], tool_choice={"type": "any"}, thinking={"type": "adaptive"}) == []
    )


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "auto"},
        {"type": "any", "disable_parallel_tool_use": True},
        {"type": "tool", "name": "lookup_order"},
        {"type": "none"},
    ],
)
def test_valid_tool_choices_pass(choice):
    assert check([Q], tools=[LOOKUP], tool_choice=choice) == []


@pytest.mark.parametrize(
    ("choice", "words"),
    [
        ("auto", "JSON object"),
        ({"type": "sometimes"}, "one of auto, any, tool, none"),
        ({"type": ["auto"]}, "one of auto, any, tool, none"),
        ({"type": "tool"}, "name"),
        ({"type": "tool", "name": "delete_everything"}, "not among the tools"),
        ({"type": "none", "disable_parallel_tool_use": True}, "none"),
        ({"type": "auto", "disable_parallel_tool_use": "yes"}, "true or false"),
    ],
)
def test_invalid_tool_choices_use_the_catalogue_wording(choice, words):
    [f] = check([Q], tools=[LOOKUP], tool_choice=choice)
    assert f.rule == "tool-choice-invalid" and f.severity == "error" and words in f.message
    assert f.path.startswith("tool_choice")


@pytest.mark.parametrize("kind", ["any", "tool"])
def test_forced_tool_choice_with_budget_thinking_is_an_error(kind):
    choice = {"type": kind, "name": "lookup_order"} if kind == "tool" else {"type": kind}
    [f] = check([Q], tools=[LOOKUP], tool_choice=choice, thinking=THINKING)
    assert f.rule == "tool-choice-forced-with-thinking" and "adaptive" in f.message
    assert check([Q], tools=[LOOKUP], tool_choice={"type": "none"}, thinking=THINKING) == []


def test_a_paused_turn_with_a_pending_server_call_makes_the_continue_message_an_error():
    paused = response(1, "pause_turn", text("Searching."), server_call("srvtoolu_3"))
    found = check(
        [Q, assistant(paused["content"]), user("Please continue.")],
        tools=[WEB_SEARCH],
        responses=[paused],
    )
    [f] = found
    assert f.rule == "pause-turn-continue-message" and f.severity == "error"
    assert f.path == "messages[2]" and "srvtoolu_3" in f.api_error
    assert 'no extra "continue" message' in f.message


def test_a_paused_turn_sent_back_changed_is_flagged():
    paused = response(1, "pause_turn", text("Searching."), server_call())
    changed = [text("Searching!"), server_call()]
    found = check([Q, assistant(changed)], tools=[WEB_SEARCH], responses=[paused])
    [f] = found
    assert f.rule == "pause-turn-not-resent" and f.path == "messages[1].content[0].text"


def test_responses_may_be_sdk_messages():
    message = Message.model_validate(response(1, "tool_use", thought(), tool_use("toolu_1")))
    found = check(
        [Q, assistant([tool_use("toolu_1")]), user([result("toolu_1")])], responses=[message]
    )
    assert rules(found) == ["thinking-missing"]


@pytest.mark.parametrize(
    ("content", "flagged"),
    [
        (None, True),
        ("", True),
        ("   ", True),
        ([], True),
        ("Error: Tool 'lookup' not found", True),
        ("Lookup failed: connection reset", True),
        ("Traceback (most recent call last): ...", True),
        ("Order A9 not found", True),
        ([text("TimeoutException while calling the API")], False),  # not a whole word
        ([text("Database error")], True),
        ('{"error": "order not found"}', True),
        ('{"status": "failed"}', True),
        ('{"ok": false}', True),
        ('{"error": null, "status": "shipped"}', False),
        ('{"errors": [], "order": "A1"}', False),
        ("Order A1: shipped on 3 May.", False),
        ("Refund of $40 processed.", False),
        (
            [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "x"},
                }
            ],
            False,
        ),
        ("[1, 2, 3]", False),
    ],
)
def test_the_failure_heuristic(content, flagged):
    assert (failure_signal(content) is not None) is flagged


def test_an_error_result_flagged_with_is_error_passes_even_if_it_says_error():
    messages = [
        Q,
        assistant([tool_use("toolu_1")]),
        user([result("toolu_1", "Error: timeout", is_error=True)]),
    ]
    assert check(messages) == []


@pytest.mark.parametrize(
    "messages",
    [
        None,
        "hello",
        3,
        {"role": "user"},
        [None],
        [{"role": "user", "content": 5}],
        [{"content": []}],
        [{"role": "user", "content": [1, {"no": "type"}]}],
    ],
)
def test_malformed_histories_are_findings_not_exceptions(messages):
    found = check(messages)
    assert found and all(f.rule == "message-shape" and f.severity == "error" for f in found)


def test_ids_that_are_not_strings_do_not_crash_the_checker():
    odd = {"type": "tool_result", "tool_use_id": ["toolu_1"], "content": "ok"}
    found = check(
        [Q, assistant([tool_use("toolu_1"), server_call()]), user([odd])],
        responses=[response(1, "max_tokens", {**tool_use("toolu_1"), "id": ["x"]})],
    )
    assert {"tool-result-missing", "tool-result-orphan"} <= set(rules(found))
    odd_result = {"type": "web_search_tool_result", "tool_use_id": {"a": 1}, "content": []}
    assert check([Q, assistant([server_call(), odd_result])]) == []


def test_absurdly_deep_histories_are_a_finding_not_a_recursion_error():
    deep = []
    for _ in range(5000):
        deep = [deep]
    [f] = check([Q, assistant([{"type": "text", "text": "x", "extra": deep}])])
    assert f.rule == "message-shape" and "nested" in f.message


def test_a_clean_tool_loop_has_no_findings():
    messages = [
        Q,
        assistant([text("Checking both."), tool_use("toolu_1"), tool_use("toolu_2")]),
        user([result("toolu_1"), result("toolu_2", "Paid in full.")]),
        assistant([text("It shipped and is paid. Anything else?")]),
        user("No, thanks."),
    ]
    assert check(messages, tools=[LOOKUP], tool_choice={"type": "auto"}) == []


# --- whole transcripts: run-level lints, each failing and passing ---------------------------------


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


def test_every_rule_is_exercised_by_a_test_in_this_file():
    from pathlib import Path

    source = Path(__file__).read_text(encoding="utf-8")
    for code, rule in RULES.items():
        assert f'"{code}"' in source, code
        assert rule.severity in ("error", "lint") and rule.doc_url.startswith("https://")


# --- the library --------------------------------------------------------------------------------


def _library():
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "content" / "transcripts"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.mark.parametrize("path", _library(), ids=lambda p: p.stem)
def test_library_transcripts_have_no_api_errors_unless_deliberately_broken(path):
    t = parse_transcript(json.loads(path.read_text(encoding="utf-8")), strict=True)
    found = check_transcript(t)
    if t.deliberately_broken:
        assert found, "a deliberately broken loop must be flagged"
    else:
        assert [f for f in found if f.is_error] == []


# --- property: the checker never raises -----------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.sampled_from(
        [
            "user",
            "assistant",
            "text",
            "tool_use",
            "tool_result",
            "thinking",
            "server_tool_use",
            "toolu_1",
            "pause_turn",
            "max_tokens",
            "enabled",
        ]
    ),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "role",
                    "content",
                    "type",
                    "id",
                    "tool_use_id",
                    "text",
                    "name",
                    "input",
                    "is_error",
                    "signature",
                    "thinking",
                    "stop_reason",
                    "budget_tokens",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values, json_values, json_values, json_values, st.lists(json_values, max_size=3))
def test_check_never_raises(messages, tools, tool_choice, thinking, responses):
    assert isinstance(check(messages, responses=tools), list)
    found = check(
        messages, tools=tools, tool_choice=tool_choice, thinking=thinking, responses=responses
    )
    assert all(f.rule in RULES for f in found)


STOPS_ALL = ["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence", None]
STOPS = ["end_turn", "tool_use", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence"]
IDS = ["toolu_1", "toolu_2", "toolu_3"]
blocks = st.one_of(
    st.builds(text, st.sampled_from(["Checking.", "Done.", ""])),
    st.builds(tool_use, st.sampled_from(IDS)),
    st.builds(thought, st.sampled_from(["a", "b"]), st.sampled_from([SIGNATURE, "other"])),
    st.builds(server_call, st.sampled_from(["srvtoolu_1", "srvtoolu_2"])),
    st.builds(search_result, st.sampled_from(["srvtoolu_1", "srvtoolu_2"])),
)
any_block = st.dictionaries(
    st.sampled_from(
        [
            "type",
            "id",
            "tool_use_id",
            "name",
            "input",
            "content",
            "is_error",
            "text",
            "thinking",
            "signature",
            "data",
        ]
    ),
    json_values,
    max_size=5,
).map(lambda d: {"type": "tool_result", **d} if "tool_use_id" in d else d)
message_like = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "user", "system"]),
        "content": st.one_of(
            st.text(max_size=5), st.lists(st.one_of(any_block, blocks), max_size=4)
        ),
    }
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(message_like, max_size=6),
    st.lists(
        st.builds(response, st.integers(0, 9), st.sampled_from(STOPS_ALL), blocks), max_size=3
    ),
    st.sampled_from(
        [None, THINKING, {"type": "adaptive"}, {"type": "enabled", "budget_tokens": []}]
    ),
)
def test_check_never_raises_on_message_like_histories(messages, responses, thinking):
    found = check(messages, thinking=thinking, responses=responses, tools=[LOOKUP, WEB_SEARCH])
    assert all(f.rule in RULES and f.path for f in found)


# --- property: random loops never crash the checker, and the incremental check equals a full one


results = st.lists(
    st.one_of(
        st.builds(
            result,
            st.sampled_from([*IDS, "toolu_9"]),
            st.sampled_from(["ok", "", "Error: boom", '{"status": "failed"}']),
            is_error=st.booleans(),
        ),
        st.builds(text, st.sampled_from(["note"])),
    ),
    max_size=3,
)


@st.composite
def loops(draw):
    turns = []
    for n in range(draw(st.integers(1, 6))):
        extra = {}
        if draw(st.integers(0, 3)) == 0:
            extra["request_overrides"] = {"max_tokens": draw(st.sampled_from([1024, 4096]))}
        resp = response(n, draw(st.sampled_from(STOPS)), *draw(st.lists(blocks, max_size=3)))
        turns.append(turn(resp, draw(results), **extra))
    top = {}
    if draw(st.booleans()):
        top["thinking"] = draw(st.sampled_from([THINKING, {"type": "adaptive"}]))
    if draw(st.booleans()):
        top["ended_by"] = draw(st.sampled_from(["turn_cap", "repeated_call", "app", "stop_reason"]))
    top["tool_choice"] = draw(
        st.sampled_from([{"type": "auto"}, {"type": "any"}, {"type": "none"}])
    )
    return turns, top


REQUEST_LEVEL = {r for r in RULES} - {
    "loop-ignores-stop-reason",
    "max-tokens-as-done",
    "refusal-retried-unchanged",
    "cap-only-stop",
    "turn-after-stop",
    "replay-mismatch",
    "unknown-stop-reason",
    "retry-without-more-tokens",
}


def _full_check(t):
    """check() on every request with every earlier response, first occurrence kept."""
    seen, out = set(), []
    for x in t.turns:
        params = t.params_for(x.index)
        for f in check(
            x.request_messages,
            tools=params.get("tools"),
            tool_choice=params.get("tool_choice"),
            thinking=params.get("thinking"),
            responses=[y.response for y in t.turns[: x.index]],
            params=params,
        ):
            if (f.rule, f.path, f.message) not in seen:
                seen.add((f.rule, f.path, f.message))
                out.append((f.rule, f.path, f.message, x.index))
    return out


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loops())
def test_check_transcript_on_random_loops_matches_a_full_check(loop):
    turns, top = loop
    # The API never returns the same tool_use id twice in one conversation.
    ids = [
        b["id"]
        for t in turns
        for b in t["response"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    assume(len(ids) == len(set(ids)))
    t = transcript(*turns, **top)
    found = check_transcript(t)
    assert all(f.rule in RULES and f.step is not None for f in found)
    incremental = [
        (f.rule, f.path, f.message, f.step)
        for f in found
        if f.rule in REQUEST_LEVEL and not (f.step == len(t.turns) - 1 and t.turns[-1].tool_results)
    ]
    expected = _full_check(t)
    assert sorted(incremental) == sorted(expected) or (
        t.turns[-1].tool_results
        and set(expected) <= {(f.rule, f.path, f.message, f.step) for f in found}
    )


def test_the_module_names_its_sources():
    assert contract.DOC_PARALLEL.startswith("https://platform.claude.com/")


def test_switching_thinking_on_in_the_middle_of_a_tool_loop_is_rejected():
    call = {"type": "tool_use", "id": "toolu_9", "name": "lookup_order", "input": {}}
    messages = [
        {"role": "user", "content": "Where is my order?"},
        {"role": "assistant", "content": [call]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "ok"}],
        },
    ]
    earlier = {"role": "assistant", "content": [call], "stop_reason": "tool_use"}
    thinking = {"type": "enabled", "budget_tokens": 2048}
    found = contract.check(messages, thinking=thinking, responses=[earlier])
    assert [f.rule for f in found] == ["thinking-missing"]
    assert "switched on in the middle of a tool loop" in found[0].message
    assert contract.check(messages, responses=[earlier]) == []
