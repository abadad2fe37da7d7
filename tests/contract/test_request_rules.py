"""One request: each rule with a failing and a passing history."""

import pytest

from studyapp.agentloop.contract import RULES, Finding, check

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
    server_call,
    text,
    thought,
    tool_use,
    user,
)

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
