"""The chosen model's own rules (models.check_request) as findings."""

import pytest

from studyapp.agentloop.contract import check, check_transcript

from .builders import (
    LOOKUP,
    THINKING,
    Q,
    response,
    result,
    text,
    tool_use,
    transcript,
    turn,
)


def _model_check(model, *, messages=None, **params):
    return check(
        messages or [Q],
        params={"model": model, **params},
        **{k: params[k] for k in ("tool_choice", "thinking", "tools") if k in params},
    )


@pytest.mark.parametrize(
    ("rule", "model", "params", "messages", "api_text", "accepted_on"),
    [
        (
            "model-forced-tool-choice",
            "claude-sonnet-5-5",
            {"tools": [LOOKUP], "tool_choice": {"type": "any"}},
            None,
            "",
            "claude-haiku-5-5",
        ),
        (
            "model-sampling",
            "claude-haiku-5-5",
            {"temperature": 0},
            None,
            "temperature: Extra inputs are not permitted",
            None,
        ),
        (
            "model-prefill",
            "claude-sonnet-4-6",
            {},
            [Q, {"role": "assistant", "content": "{"}],
            "This model does not support assistant message prefill. The conversation must end "
            "with a user message.",
            "claude-haiku-4-5",
        ),
        (
            "model-manual-thinking",
            "claude-opus-5-5",
            {"thinking": THINKING},
            None,
            '"thinking.type.enabled" is not supported for this model. Use '
            '"thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
            "claude-opus-4-6",
        ),
        (
            "model-thinking-disabled",
            "claude-opus-5-5",
            {"thinking": {"type": "disabled"}},
            None,
            '"thinking.type.disabled" is not supported for this model. Use '
            '"thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
            "claude-haiku-5-5",
        ),
        ("model-retirement", "claude-sonnet-4-5", {}, None, "", "claude-sonnet-5-5"),
    ],
)
def test_a_request_the_chosen_model_rejects_names_the_model_and_the_rule(
    rule, model, params, messages, api_text, accepted_on
):
    found = _model_check(model, messages=messages, **params)
    [f] = [f for f in found if f.rule == rule]
    assert f.is_error and model in f.message and f.api_error == api_text
    assert "Instead:" in f.message
    if accepted_on:
        assert not [f for f in _model_check(accepted_on, messages=messages, **params) if f.is_error]


def test_an_unknown_model_is_a_lint_that_says_its_rules_are_unknown():
    [f] = _model_check("claude-from-the-future", tool_choice={"type": "any"}, tools=[LOOKUP])
    assert f.rule == "model-unknown" and f.severity == "lint"
    assert "Rules unknown for this model" in f.message


def test_a_recorded_loop_is_judged_by_its_own_model():
    ask = turn(response(1, "tool_use", tool_use("toolu_1")), [result("toolu_1")])
    done = turn(response(2, "end_turn", text("Shipped.")))
    forced = {"tool_choice": {"type": "any"}}
    # Sonnet 4.5 (the library's model) accepted forced tool_choice, and its retirement date
    # having passed does not make the recording wrong.
    assert check_transcript(transcript(ask, done, **forced)) == []
    on_sonnet = check_transcript(transcript(ask, done, model="claude-sonnet-5-5", **forced))
    assert [(f.rule, f.step) for f in on_sonnet] == [("model-forced-tool-choice", 0)]
    assert check_transcript(transcript(ask, done, model="claude-haiku-5-5", **forced)) == []


def test_sampling_in_a_recorded_loop_is_judged_by_its_api_version():
    done = turn(response(1, "end_turn", text("Hi.")))
    assert check_transcript(transcript(done, temperature=0)) == []  # 2023-06-01, Sonnet 4.5
    found = check_transcript(transcript(done, temperature=0, api_version="2026-10-21"))
    assert [f.rule for f in found] == ["model-sampling"]
