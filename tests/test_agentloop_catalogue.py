"""The stop_reason and tool_choice catalogues: the single source of the loop's rules."""

import pytest

from studyapp.agentloop import catalogue


def test_catalogue_covers_exactly_the_sdks_stop_reasons():
    # If the installed SDK gains or loses a value, this fails until the catalogue says what the
    # loop must do with it.
    assert set(catalogue.sdk_stop_reasons()) == set(catalogue.STOP_REASONS)


def test_there_are_seven_stop_reasons_today():
    assert len(catalogue.STOP_REASONS) == 7


@pytest.mark.parametrize(
    ("stop_reason", "continues"),
    [
        ("end_turn", False),
        ("tool_use", True),
        ("max_tokens", False),
        ("stop_sequence", False),
        ("pause_turn", True),
        ("refusal", False),
        ("model_context_window_exceeded", False),
    ],
)
def test_only_tool_use_and_pause_turn_call_again(stop_reason, continues):
    assert catalogue.STOP_REASONS[stop_reason].continues is continues


def test_every_entry_is_complete():
    for info in catalogue.STOP_REASONS.values():
        assert info.action in catalogue.CANONICAL_ACTIONS
        assert info.why and info.meaning and info.mistakes
        assert info.doc_url.startswith("https://")


def test_every_canonical_action_is_the_answer_somewhere():
    used = {i.action for i in catalogue.STOP_REASONS.values()}
    used |= {i.alternate_action for i in catalogue.STOP_REASONS.values() if i.alternate_action}
    assert used == set(catalogue.CANONICAL_ACTIONS)


def _response(stop_reason, *blocks):
    return {"stop_reason": stop_reason, "content": list(blocks)}


TEXT = {"type": "text", "text": "Hello"}
TOOL = {"type": "tool_use", "id": "toolu_01", "name": "lookup_order", "input": {}}


@pytest.mark.parametrize(
    ("response", "action"),
    [
        (_response("end_turn", TEXT), "finish"),
        (_response("tool_use", TEXT, TOOL), "run_tools"),
        (_response("pause_turn", TEXT), "resend_paused"),
        (_response("max_tokens", TEXT), "handle_truncation"),
        (_response("max_tokens", TEXT, TOOL), "retry_with_more_tokens"),
        (_response("max_tokens"), "handle_truncation"),
        (_response("stop_sequence", TEXT), "handle_stop_sequence"),
        (_response("refusal", TEXT), "handle_refusal"),
        (_response("model_context_window_exceeded", TEXT), "handle_context_full"),
    ],
)
def test_next_action_branches_on_stop_reason_and_a_cut_off_tool_use(response, action):
    assert catalogue.next_action(response) == action


def test_next_action_reads_sdk_message_objects():
    from anthropic.types import Message

    message = Message.model_validate(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [TOOL],
            "stop_reason": "max_tokens",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    )
    assert catalogue.next_action(message) == "retry_with_more_tokens"


def test_next_action_rejects_an_unknown_stop_reason():
    with pytest.raises(ValueError, match="unknown stop_reason"):
        catalogue.next_action({"stop_reason": "done", "content": []})


def test_tool_choice_catalogue_has_the_four_sdk_modes():
    import typing

    from anthropic.types import ToolChoiceParam

    def literal_values(tp):
        args = typing.get_args(tp)
        return (
            set(args)
            if typing.get_origin(tp) is typing.Literal
            else set().union(*(literal_values(a) for a in args))
        )

    sdk_types = set()
    for cls in typing.get_args(ToolChoiceParam):
        sdk_types |= literal_values(typing.get_type_hints(cls, include_extras=True)["type"])
    assert sdk_types == set(catalogue.TOOL_CHOICE_MODES) == {"auto", "any", "tool", "none"}


def test_only_none_refuses_disable_parallel_tool_use():
    accepts = {m.type: m.accepts_disable_parallel for m in catalogue.TOOL_CHOICE_MODES.values()}
    assert accepts == {"auto": True, "any": True, "tool": True, "none": False}
    assert catalogue.TOOL_CHOICE_MODES["auto"].disable_parallel_means == "at most one tool call"
    assert catalogue.TOOL_CHOICE_MODES["any"].disable_parallel_means == "exactly one tool call"


@pytest.mark.parametrize(
    "value",
    [
        {"type": "auto"},
        {"type": "any", "disable_parallel_tool_use": True},
        {"type": "tool", "name": "lookup_order", "disable_parallel_tool_use": True},
        {"type": "none"},
    ],
)
def test_valid_tool_choices_pass(value):
    assert catalogue.validate_tool_choice(value, tool_names={"lookup_order"}) == value


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("auto", "JSON object"),
        ({"type": "required"}, "one of auto, any, tool, none"),
        ({"type": "tool"}, "needs the tool's"),
        ({"type": "tool", "name": "refund"}, "not among the tools"),
        ({"type": "none", "disable_parallel_tool_use": True}, "has no disable_parallel_tool_use"),
        ({"type": "auto", "disable_parallel_tool_use": "yes"}, "true or false"),
        ({"type": "any", "name": "lookup_order"}, "has no field 'name'"),
    ],
)
def test_invalid_tool_choices_name_the_problem(value, message):
    with pytest.raises(catalogue.ToolChoiceError, match=message):
        catalogue.validate_tool_choice(value, tool_names={"lookup_order"})


@pytest.mark.parametrize("kind", ["any", "tool"])
def test_forced_tool_choice_is_rejected_with_extended_thinking(kind):
    value = {"type": kind, "name": "lookup_order"} if kind == "tool" else {"type": kind}
    with pytest.raises(catalogue.ToolChoiceError, match="only tool_choice auto or none"):
        catalogue.validate_tool_choice(value, extended_thinking=True)


def test_normalize_drops_the_default_flag_only():
    assert catalogue.normalize_tool_choice(
        {"type": "auto", "disable_parallel_tool_use": False}
    ) == {"type": "auto"}
    assert catalogue.normalize_tool_choice({"type": "any", "disable_parallel_tool_use": True}) == {
        "type": "any",
        "disable_parallel_tool_use": True,
    }


def test_agentloop_has_no_django_imports():
    from pathlib import Path

    package = Path(catalogue.__file__).parent
    for path in package.glob("*.py"):
        assert "django" not in path.read_text(), f"{path.name} imports Django"


def test_refusal_names_the_classifiers_and_the_sdks_categories():
    import typing

    from anthropic.types import RefusalStopDetails

    info = catalogue.STOP_REASONS["refusal"]
    assert "safety or usage-policy classifiers" in info.meaning
    assert "safety reasons" not in info.meaning
    literal = typing.get_args(RefusalStopDetails.model_fields["category"].annotation)[0]
    for category in typing.get_args(literal):  # cyber, bio, frontier_llm, reasoning_extraction…
        assert category in catalogue.note_text(info.notes[0])


def test_forced_choice_with_thinking_does_not_promise_adaptive_support_everywhere():
    for kind in ("any", "tool"):
        text = catalogue.TOOL_CHOICE_MODES[kind].with_extended_thinking
        assert "adaptive thinking supports it" not in text
        assert "Opus 5.5, Sonnet 5.5" in text and "400" in text
