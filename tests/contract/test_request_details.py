"""Details of the request rules: positions, API error texts, odd input."""

import pytest
from anthropic.types import Message

from studyapp.agentloop import contract
from studyapp.agentloop.contract import check, failure_signal

from .builders import (
    LOOKUP,
    PARALLEL,
    THINKING,
    WEB_SEARCH,
    Q,
    assistant,
    response,
    result,
    rules,
    search_result,
    server_call,
    text,
    thought,
    tool_use,
    user,
)


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


def test_switching_thinking_on_in_the_middle_of_a_tool_loop_is_a_lint_not_an_error():
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
    # Current docs ("Graceful thinking degradation"): no 400, thinking silently disabled.
    assert [(f.rule, f.severity) for f in found] == [("thinking-toggled", "lint")]
    assert "switched on in the middle of a tool loop" in found[0].message
    assert "thinking will be silently disabled for that request" in found[0].message.lower()
    assert contract.check(messages, responses=[earlier]) == []


def test_text_before_results_quotes_the_recorded_2025_error_text():
    [f] = check([Q, PARALLEL, user([text("Here:"), result("toolu_1"), result("toolu_2")])])
    assert f.api_error == (
        "messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. "
        "Messages following `tool_use` blocks must begin with a matching number of "
        "`tool_result` blocks."
    )


def test_a_duplicate_result_is_marked_as_an_expected_400_without_an_api_text():
    found = check([Q, PARALLEL, user([result("toolu_1"), result("toolu_2"), result("toolu_2")])])
    [f] = [f for f in found if f.rule == "tool-result-duplicate"]
    assert "Expected 400" in f.message and f.api_error == ""
