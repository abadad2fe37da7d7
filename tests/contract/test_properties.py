"""Properties: the checker never raises; the incremental check equals a full one."""

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from studyapp.agentloop import contract
from studyapp.agentloop.contract import RULES, check, check_transcript

from .builders import (
    LOOKUP,
    SIGNATURE,
    THINKING,
    WEB_SEARCH,
    response,
    result,
    search_result,
    server_call,
    text,
    thought,
    tool_use,
    transcript,
    turn,
)

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
            api_version=contract.transcript_api_version(t),
            check_status=False,
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
