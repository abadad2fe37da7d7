"""The stop_reason, next-action and tool_choice catalogues: where these facts are written."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import sdk
from .i18n import gettext_noop as _  # makemessages extracts _(...)

DOC_STOP = "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons"
DOC_HANDLE = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls"
DOC_DEFINE = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools"
DOC_TOOL_2025 = "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
DOC_REFUSAL = (
    "https://platform.claude.com/docs/en/test-and-evaluate/strengthen-guardrails/"
    "handle-streaming-refusals"
)
DOC_THINK = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
SDK_STOP_REASON = "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/types/stop_reason.py"
SDK_TOOL_CHOICE = (
    "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/types/"
    "tool_choice_param.py"
)


@dataclass(frozen=True)
class NextAction:
    """A named thing the loop can do after a response; learners meet these names everywhere."""

    code: str
    label: str
    detail: str
    continues: bool  # does the loop call the API again after doing this?


NEXT_ACTIONS: dict[str, NextAction] = {
    a.code: a
    for a in [
        NextAction(
            "run_tools",
            _("Run the tools, send every result in one message"),
            _(
                "Append the assistant content unchanged, run every tool_use block, then send ONE "
                "user message holding one tool_result per tool_use (matched by tool_use_id, "
                "results first) and call again."
            ),
            True,
        ),
        NextAction(
            "resend_paused",
            _("Send the paused turn back as is"),
            _(
                "Append the assistant content unchanged and call again with the same tools. No "
                "extra user message: the server picks up where it paused."
            ),
            True,
        ),
        NextAction(
            "finish",
            _("Stop and use the answer"),
            _("The turn is complete: leave the loop and use the response."),
            False,
        ),
        NextAction(
            "retry_with_more_tokens",
            _("Don't run the cut-off call; retry with a larger max_tokens"),
            _(
                "The last tool_use block was cut off, so its input is incomplete. Do not execute "
                "it: send the request again with a higher max_tokens."
            ),
            True,
        ),
        NextAction(
            "handle_truncation",
            _("Handle a truncated answer"),
            _(
                "The text was cut off at max_tokens. Raise max_tokens, or continue: resend with "
                "the partial assistant text and ask for the rest. Never present it as complete."
            ),
            False,
        ),
        NextAction(
            "handle_stop_sequence",
            _("Stop: the application reads stop_sequence"),
            _(
                "One of your stop_sequences fired; response.stop_sequence names which. The "
                "application decides what that marker means."
            ),
            False,
        ),
        NextAction(
            "handle_refusal",
            _("Stop: handle the refusal"),
            _(
                "Claude declined (HTTP 200, not an exception). Don't resend the same request: "
                "reset or change the context first, or tell the user."
            ),
            False,
        ),
        NextAction(
            "handle_context_full",
            _("Handle a full context window"),
            _(
                "Generation stopped because the context window filled: treat the answer as valid "
                "but truncated, and shrink the history before going on."
            ),
            False,
        ),
        # Wrong everywhere: offered as distractors so that learners meet the tempting moves by name.
        NextAction(
            "send_continue_message",
            _('Add a "Continue" user message and call again'),
            _(
                "Adds a new user turn. Wrong for pause_turn, where the paused turn is sent back as "
                "is."
            ),
            True,
        ),
        NextAction(
            "retry_unchanged",
            _("Resend the same request unchanged"),
            _("Sends exactly what produced this response; the same situation comes back."),
            True,
        ),
        NextAction(
            "run_tools_separately",
            _("Run each tool, send each result in its own message"),
            _(
                "Splits one batch of results over several user messages, which the docs call wrong "
                "and which teaches Claude to stop making parallel calls."
            ),
            True,
        ),
    ]
}

#: Actions that are the canonical answer in at least one situation.
CANONICAL_ACTIONS = (
    "run_tools",
    "resend_paused",
    "finish",
    "retry_with_more_tokens",
    "handle_truncation",
    "handle_stop_sequence",
    "handle_refusal",
    "handle_context_full",
)


#: ``stop_details.category`` of a refusal, as the installed SDK types it
#: (``anthropic.types.RefusalStopDetails``; tests/test_agentloop_sdk.py compares the two). Written
#: here so that importing the catalogue does not import the SDK.
REFUSAL_CATEGORIES = ("cyber", "bio", "frontier_llm", "reasoning_extraction", "general_harms")


@dataclass(frozen=True)
class StopReasonInfo:
    """What one stop_reason means and what the loop must do next."""

    value: str
    meaning: str
    continues: bool
    action: str
    why: str
    mistakes: tuple[str, ...]
    doc_url: str
    anchor: str  # the section of the stop-reasons note that teaches it
    alternate_action: str | None = None  # a second situation under the same value
    alternate_when: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def next_action(self) -> NextAction:
        return NEXT_ACTIONS[self.action]


STOP_REASONS: dict[str, StopReasonInfo] = {
    s.value: s
    for s in [
        StopReasonInfo(
            value="end_turn",
            meaning=_("Claude finished its response naturally. The most common value."),
            continues=False,
            action="finish",
            why=_(
                "The model says the turn is over; only stop_reason tells you that, not the text."
            ),
            mistakes=(
                _("Deciding the loop is over from words like “Done” instead of stop_reason."),
                _(
                    "Resending an empty end_turn unchanged (fix the message shape, or add a new "
                    "user message as a last resort)."
                ),
            ),
            doc_url=DOC_STOP,
            anchor="end-turn",
        ),
        StopReasonInfo(
            value="tool_use",
            meaning=_("Claude is calling one or more client tools and expects their results."),
            continues=True,
            action="run_tools",
            why=_("The answer depends on results only your application can produce."),
            mistakes=(
                _("Sending each result in its own user message."),
                _("Putting text before the tool_result blocks (a 400)."),
                _("Leaving one tool_use without a tool_result."),
            ),
            doc_url=DOC_HANDLE,
            anchor="tool-use",
        ),
        StopReasonInfo(
            value="max_tokens",
            meaning=_("Output reached the request's max_tokens (or the model's maximum)."),
            continues=False,
            action="handle_truncation",
            why=_("The response is cut off; it is not a finished answer."),
            mistakes=(
                _("Treating the truncated text as the final answer."),
                _("Running a tool_use block that was cut off mid-input."),
            ),
            doc_url=DOC_STOP,
            anchor="max-tokens",
            alternate_action="retry_with_more_tokens",
            alternate_when=_("the last content block is a tool_use"),
        ),
        StopReasonInfo(
            value="stop_sequence",
            meaning=_("Claude produced one of the request's stop_sequences."),
            continues=False,
            action="handle_stop_sequence",
            why=_("You asked to stop there; response.stop_sequence says which marker fired."),
            mistakes=(_("Ignoring response.stop_sequence when several sequences are set."),),
            doc_url=DOC_STOP,
            anchor="stop-sequence",
        ),
        StopReasonInfo(
            value="pause_turn",
            meaning=_(
                "The server-side loop for server tools (web search, web fetch, code execution) "
                "reached its iteration limit; the turn is paused, not finished."
            ),
            continues=True,
            action="resend_paused",
            why=_("The server pauses its own tool loop; sending the turn back lets it resume."),
            mistakes=(
                _("Adding a “please continue” user message."),
                _("Looking for a client tool to run: there is none."),
                _("Treating the paused turn as the final answer."),
            ),
            doc_url=DOC_STOP,
            anchor="pause-turn",
        ),
        StopReasonInfo(
            value="refusal",
            meaning=_(
                "Claude declined: the model's safety or usage-policy classifiers stopped the "
                "response. An HTTP 200, not an error; on current models stop_details.category "
                "names the policy area."
            ),
            continues=False,
            action="handle_refusal",
            why=_("Resending the same context gets the same refusal."),
            mistakes=(
                _("Catching it as an exception: the SDK raises none."),
                _("Retrying the identical request in a loop."),
            ),
            doc_url=DOC_REFUSAL,
            anchor="refusal",
            notes=(
                # %(refusal_categories)s: NOTE_PARAMS (REFUSAL_CATEGORIES, the SDK's own type).
                _(
                    "stop_details.category (anthropic.types.RefusalStopDetails) is one of "
                    "%(refusal_categories)s, or null when the refusal maps to no named category."
                ),
            ),
        ),
        StopReasonInfo(
            value="model_context_window_exceeded",
            meaning=_(
                "Generation stopped because the model's context window filled, not because of your "
                "max_tokens."
            ),
            continues=False,
            action="handle_context_full",
            why=_("The response is valid but truncated, and the next call has even less room."),
            mistakes=(
                _("Treating the answer as complete."),
                _("Confusing it with max_tokens: raising max_tokens does not make room."),
            ),
            doc_url=DOC_STOP,
            anchor="context-window-exceeded",
            notes=(
                _(
                    "Returned by default on Sonnet 4.5 and newer models; some SDK versions typed "
                    "it only in the beta namespace."
                ),
            ),
        ),
    ]
}

#: The names a STOP_REASONS note holds as %(name)s (API values, never translated).
NOTE_PARAMS = {"refusal_categories": ", ".join(REFUSAL_CATEGORIES)}


def note_text(note: str) -> str:
    """A STOP_REASONS note (already translated) with its API names filled in."""
    return note % NOTE_PARAMS if "%(" in note else note


def sdk_stop_reasons() -> tuple[str, ...]:
    """The stop_reason values the installed anthropic SDK declares (imports the SDK)."""
    return sdk.stop_reasons()


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def next_action(response: Any) -> str:
    """The canonical next-action code for a response (an SDK Message or its dict form)."""
    stop_reason = _get(response, "stop_reason")
    try:
        info = STOP_REASONS[stop_reason]
    except KeyError:
        raise ValueError(f"unknown stop_reason: {stop_reason!r}") from None
    if stop_reason == "max_tokens":
        content = _get(response, "content") or []
        if content and _get(content[-1], "type") == "tool_use":
            return "retry_with_more_tokens"
    return info.action


# --- tool_choice -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolChoiceMode:
    type: str
    example: dict[str, Any]
    meaning: str
    accepts_disable_parallel: bool
    disable_parallel_means: str
    default_when: str
    with_extended_thinking: str


# The exam's answer, then what today's models do (models.CHANGES["forced-tool-choice"]).
FORCED_WITH_THINKING = _(
    "not supported with manual extended thinking (an error). Today it depends on the model: "
    "with adaptive thinking some models accept it and skip thinking, while Opus 5.5, Sonnet 5.5 "
    "and Fable/Mythos 5.1 and later reject forced tool_choice with a 400 whatever the thinking "
    "setting"
)

TOOL_CHOICE_MODES: dict[str, ToolChoiceMode] = {
    m.type: m
    for m in [
        ToolChoiceMode(
            "auto",
            {"type": "auto"},
            _("Claude decides whether to call tools, and which."),
            True,
            _("at most one tool call"),
            _("the default when tools are provided"),
            _("supported"),
        ),
        ToolChoiceMode(
            "any",
            {"type": "any"},
            _("Claude must call one of the provided tools, but not a particular one."),
            True,
            _("exactly one tool call"),
            _("never the default"),
            FORCED_WITH_THINKING,
        ),
        ToolChoiceMode(
            "tool",
            {"type": "tool", "name": "lookup_order"},
            _("Claude must call the named tool."),
            True,
            _("exactly one tool call"),
            _("never the default"),
            FORCED_WITH_THINKING,
        ),
        ToolChoiceMode(
            "none",
            {"type": "none"},
            _("Claude cannot call tools."),
            False,
            _("not allowed: this shape has only `type`"),
            _("the default when no tools are provided"),
            _("supported"),
        ),
    ]
}

TOOL_CHOICE_SOURCES = (DOC_DEFINE, DOC_TOOL_2025, SDK_TOOL_CHOICE)


class ToolChoiceError(ValueError):
    """A tool_choice value the API would reject, with the reason in words."""


def validate_tool_choice(
    value: Any, *, tool_names: set[str] | None = None, extended_thinking: bool = False
) -> dict[str, Any]:
    """Check a tool_choice against the API's shapes; return it or raise ToolChoiceError."""
    if not isinstance(value, dict):
        raise ToolChoiceError('tool_choice must be a JSON object such as {"type": "auto"}.')
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in TOOL_CHOICE_MODES:
        raise ToolChoiceError(
            f"tool_choice.type must be one of auto, any, tool, none (got {kind!r})."
        )
    allowed = {"type"}
    if kind == "tool":
        allowed.add("name")
        name = value.get("name")
        if not isinstance(name, str) or not name:
            raise ToolChoiceError('tool_choice {"type": "tool"} needs the tool\'s "name".')
        if tool_names is not None and name not in tool_names:
            raise ToolChoiceError(f"tool_choice names {name!r}, which is not among the tools.")
    if TOOL_CHOICE_MODES[kind].accepts_disable_parallel:
        allowed.add("disable_parallel_tool_use")
        flag = value.get("disable_parallel_tool_use", False)
        if not isinstance(flag, bool):
            raise ToolChoiceError("disable_parallel_tool_use must be true or false.")
    extra = sorted(set(value) - allowed)
    if extra:
        if "disable_parallel_tool_use" in extra:
            raise ToolChoiceError(
                'tool_choice {"type": "none"} has no disable_parallel_tool_use field.'
            )
        raise ToolChoiceError(f"tool_choice of type {kind!r} has no field {extra[0]!r}.")
    if extended_thinking and kind in ("any", "tool"):
        raise ToolChoiceError(
            "With extended thinking (budget_tokens), only tool_choice auto or none is supported."
        )
    return value


def normalize_tool_choice(value: Any) -> Any:
    """Drop fields that only restate the default, so equal choices compare equal."""
    if isinstance(value, dict) and value.get("disable_parallel_tool_use") is False:
        value = {k: v for k, v in value.items() if k != "disable_parallel_tool_use"}
    return value


# Content blocks (who produces or runs each one) live in their own module; named here too.
from .content_blocks import BLOCKS, BlockInfo  # noqa: E402, F401
