"""Fuzzed live entry points: whatever the API answers and whatever a learner posts as manual
tool results, a live run gets an error step or a message in words, never a crash or a 500."""

import json

import anthropic
import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from studyapp.agentloop import demo, runner, runner_checks

from .fakes import FakeAPI, reply, tool_use
from .fuzzing import fuzz
from .live_runs import FORM

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
BLOCK = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(["text", "tool_use", "thinking", "server_tool_use"]), JSON)},
    optional={
        "text": JSON,
        "id": st.one_of(st.just("toolu_1"), JSON),
        "name": st.one_of(st.sampled_from([t["name"] for t in demo.TOOLS]), JSON),
        "input": st.one_of(st.dictionaries(st.text(max_size=8), JSON, max_size=3), JSON),
        "thinking": JSON,
        "signature": JSON,
    },
)
STOP = st.one_of(
    st.sampled_from(
        ["end_turn", "tool_use", "max_tokens", "pause_turn", "refusal", "stop_sequence", "odd"]
    ),
    JSON,
)
MESSAGE = st.fixed_dictionaries(
    {"content": st.one_of(st.lists(st.one_of(BLOCK, JSON), max_size=4), JSON)},
    optional={
        "type": st.one_of(st.just("message"), JSON),
        "id": st.one_of(st.just("msg_1"), JSON),
        "role": st.one_of(st.just("assistant"), JSON),
        "stop_reason": STOP,
        "usage": st.one_of(
            st.fixed_dictionaries(
                {}, optional={"input_tokens": JSON, "output_tokens": st.integers(-5, 10**6)}
            ),
            JSON,
        ),
    },
)
BODY = st.one_of(
    MESSAGE.map(lambda m: json.dumps(m).encode()),
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
)


def _run(handler, **options):
    client = anthropic.Anthropic(
        api_key="sk-ant-api03-fuzz-key-0123456789",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    return runner.Run.new(
        client,
        model="claude-haiku-5-5",
        max_tokens=256,
        handlers=demo.make_handlers(),
        **options,
        **demo.run_params("refund-25-days"),
    )


def _still_sound(run):
    """The run after any answer: saved, reloaded and asked for its next request."""
    state = run.to_state()
    again = runner.Run.from_state(None, state, demo.make_handlers())
    assert again.status in ("ready", "awaiting_tool_results", "ended")
    if again.status != "ended":
        assert again.next_request()["messages"]
    if again.turns:
        assert again.to_transcript()["turns"]
    return again


@fuzz(200)
@given(BODY)
def test_fuzzed_api_answers_are_error_steps_or_sound_turns(body):
    def handler(request):
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    run = _run(handler)
    result = run.step()
    if result.kind == "error":
        assert result.error.message and "fuzz-key" not in result.error.message
        assert run.turns == []
    else:
        assert runner_checks.response_problem(run.turns[0]["response"]) is None
    _still_sound(run)


@fuzz(300)
@given(st.binary(max_size=300) | BODY)
def test_read_body_says_what_is_wrong_in_words(body):
    try:
        data = runner_checks.read_body(body)
    except runner_checks.ResponseError as e:
        assert str(e).startswith("The API's answer")
    else:
        assert runner_checks.response_problem(data) is None


EVENTS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
                "ping",
                "error",
            ]
        ),
        st.dictionaries(
            st.sampled_from(["message", "index", "content_block", "delta", "usage", "error"]),
            st.one_of(MESSAGE, BLOCK, JSON),
            max_size=3,
        ),
    ),
    max_size=8,
)


@fuzz(150)
@given(EVENTS)
def test_fuzzed_streams_are_error_steps_or_sound_turns(events):
    body = "".join(
        f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n" for kind, data in events
    ).encode()

    def handler(request):
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    run = _run(handler)
    result = run.step(on_text=lambda text: None)
    if result.kind == "error":
        assert result.error.message.strip()  # the real error, never an empty one
    _still_sound(run)


# --- the manual tool results a learner posts ----------------------------------------------------

RESULT_TEXT = st.one_of(
    st.text(max_size=300),
    JSON.map(json.dumps),
    st.integers(1, 2000).map(lambda n: "[" * n),
    st.just("x" * (runner.MAX_RESULT_CHARS + 1)),
)


@pytest.mark.django_db
@fuzz(60)
@given(
    content=RESULT_TEXT,
    flag=st.one_of(st.none(), st.sampled_from(["on", "off", "", "\x00"]), st.text(max_size=5)),
    extra=st.dictionaries(st.text(min_size=1, max_size=12), st.text(max_size=20), max_size=3),
    manual=st.sampled_from(["1", "0", "", "yes"]),
)
def test_fuzzed_manual_results_never_give_a_500(
    client, learner, monkeypatch, content, flag, extra, manual
):
    call = tool_use("lookup_order", {"order_id": "20931"})
    fake = FakeAPI([reply(call), reply(tool_use("lookup_order", {"order_id": "1"}))])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-server-fuzz")
    monkeypatch.setattr(runner, "make_client", lambda **kw: fake.client(**kw))
    client.force_login(learner)
    response = client.post("/sandbox/live/", {**FORM, "tool_mode": "manual"})
    assert response.status_code == 302
    url = response["Location"]
    client.post(f"{url}step/")
    data = {**extra, "manual": manual, f"result-{call['id']}": content}
    if flag is not None:
        data[f"error-{call['id']}"] = flag
    response = client.post(f"{url}step/", data, follow=True)
    assert response.status_code == 200
    landed = response.redirect_chain[-1][0] if response.redirect_chain else None
    for page in (url, f"{url}steps/1/", f"{url}job/"):
        if page != landed:  # the page the post landed on was just opened, with a 200
            assert client.get(page).status_code in (200, 302)
