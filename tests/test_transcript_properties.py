"""Property tests: whatever comes in, parsing raises only TranscriptError."""

import copy
import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studyapp.agentloop import contract
from studyapp.agentloop.transcript import (
    FORMAT,
    TranscriptError,
    parse_raw_log,
    parse_transcript,
)

from .transcripts import (
    raw_pairs,
    response,
    turn,
    two_step,
)

# --- property tests: only TranscriptError, whatever comes in -------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(
        [
            "text",
            "tool_use",
            "tool_result",
            "thinking",
            "message",
            "assistant",
            "user",
            "toolu_1",
            "end_turn",
            "tool_use",
            "pause_turn",
            "max_tokens",
            "refusal",
            FORMAT,
            "type",
            "id",
        ]
    )
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "id",
                    "content",
                    "role",
                    "text",
                    "input",
                    "name",
                    "tool_use_id",
                    "usage",
                    "stop_reason",
                    "messages",
                    "turns",
                    "response",
                    "request",
                    "format",
                    "is_error",
                ]
            )
            | st.text(max_size=6),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*prefix, i))


def _set(value, path, new):
    if not path:
        return new
    target = value
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return value


@st.composite
def mutated(draw, base):
    """A valid document with a few random places replaced, deleted or duplicated."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if action == "replace" or not path:
            data = _set(data, path, draw(json_values))
            continue
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(parent[path[-1]]))
    return data


def _base_transcript():
    data = two_step()
    data["turns"].insert(
        1,
        turn(
            response(
                9,
                "pause_turn",
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "x"},
                },
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            )
        ),
    )
    return data


PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _only_transcript_errors(fn, *args, **kwargs):
    try:
        result = fn(*args, **kwargs)
    except TranscriptError as exc:
        assert str(exc) and isinstance(exc.path, str)
        return None
    contract.check_transcript(result)  # whatever parsed can be checked without a crash
    return result


@PROPERTY
@given(json_values)
def test_parse_transcript_lenient_raises_only_transcript_error_on_any_json(data):
    _only_transcript_errors(parse_transcript, data, strict=False)


@PROPERTY
@given(mutated(_base_transcript()))
def test_parse_transcript_raises_only_transcript_error_on_mutated_transcripts(data):
    _only_transcript_errors(parse_transcript, data, strict=False)
    _only_transcript_errors(parse_transcript, data, strict=True)


@PROPERTY
@given(st.text(max_size=300))
def test_parse_raw_log_raises_only_transcript_error_on_any_text(data):
    _only_transcript_errors(parse_raw_log, data)


@PROPERTY
@given(st.text(alphabet=string.printable + '{}[]":,', max_size=300))
def test_parse_raw_log_raises_only_transcript_error_on_json_like_text(data):
    _only_transcript_errors(parse_raw_log, data)


@PROPERTY
@given(mutated(raw_pairs(_base_transcript())), st.booleans())
def test_parse_raw_log_raises_only_transcript_error_on_mutated_logs(pairs, as_jsonl):
    if as_jsonl and isinstance(pairs, list):
        body = "\n".join(json.dumps(p) for p in pairs)
    else:
        body = json.dumps(pairs)
    _only_transcript_errors(parse_raw_log, body)


@PROPERTY
@given(json_values)
def test_parse_raw_log_raises_only_transcript_error_on_any_json_document(data):
    _only_transcript_errors(parse_raw_log, json.dumps(data))
