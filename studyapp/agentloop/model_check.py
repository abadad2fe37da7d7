"""models.check_request: would model M accept request R, and if not, why (the API's words).

Re-exported as ``models.check_request`` and ``models.Violation``; the rules themselves are the
entries of :mod:`.models`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .i18n import Phrase, gettext_noop, render
from .models import (
    API_VERSION,
    CHECKED,
    CONFIRMED,
    DOC_DEPRECATIONS,
    DOC_PREFILL,
    DOC_THINK_TOOLS,
    DOC_THINK_TROUBLE,
    DOC_VERSIONING,
    FORCED_NO,
    FORCED_NOT_WITH_MANUAL,
    FORCED_UNKNOWN,
    OLD_API_VERSION,
    SAMPLING_DEFAULT_ONLY,
    SAMPLING_NONE,
    SAMPLING_ONE,
    SAMPLING_PARAMS,
    TEXT_DISABLED,
    TEXT_ENABLED,
    TEXT_PREFILL,
    TEXT_SAMPLING_BOTH,
    TEXT_SAMPLING_DEPRECATED,
    TEXT_SAMPLING_REMOVED,
    THINKING_MODES,
    THIRD_PARTY,
    ModelRules,
    get_model,
    thinking_off,
)

# --- check_request -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """One thing model M would not accept in request R (or could not be judged)."""

    model: str
    rule: str  # a CHANGES id, or "model-unknown" / "model-deprecated"
    severity: str  # "error": the API returns an error | "warning": sent, but read this
    path: str  # where in the request
    text: str  # plain words naming the model and the rule: a %-template marked for translation
    fix_text: str = ""  # what to do instead (a template too)
    api_error: str = ""  # the API's own text where a source records it (verbatim)
    source: str = ""
    label: str = ""
    #: The names the texts hold (model ids, parameter names, values): never translated.
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def message(self) -> str:
        """The plain words in the active language (English where no translator is set)."""
        return render(self.text, self.params)

    @property
    def fix(self) -> str:
        return render(self.fix_text, self.params)

    @property
    def sentence(self) -> str:
        """The message and what to do instead, as one text (for refusals and findings)."""
        return str(self.phrase())

    def phrase(self) -> Phrase:
        """The sentence as a Phrase: worded when read, in the reader's language."""
        if not self.fix_text:
            return Phrase(self.text, self.params)
        fix = Phrase(self.fix_text, self.params, lower=True)
        message = Phrase(self.text, self.params)
        return Phrase(
            gettext_noop("%(message)s Instead: %(fix)s"), {"message": message, "fix": fix}
        )

    def __str__(self) -> str:
        return self.sentence


def _v(
    m: ModelRules | None,
    model_id: str,
    rule: str,
    path: str,
    text: str,
    params: Mapping[str, Any] | None = None,
    **kw: Any,
) -> Violation:
    source = kw.pop("source", m.source if m else "")
    label = kw.pop("label", m.label_for(rule) if m else "")
    severity = kw.pop("severity", "error")
    fix = kw.pop("fix", "")
    return Violation(
        model_id,
        rule,
        severity,
        path,
        text,
        fix,
        source=source,
        label=label,
        params={"model": model_id, **(params or {})},
        **kw,
    )


NO_THINKING_SETTING = gettext_noop("no thinking setting")
A_CURRENT_MODEL = gettext_noop("a current model")


def _replacement(m: ModelRules) -> Any:
    return m.replacement or Phrase(A_CURRENT_MODEL)


@dataclass(frozen=True)
class _Status:
    """A model's status words on a day, read in the active language."""

    model: ModelRules
    day: dt.date | None

    def __str__(self) -> str:
        return self.model.status_text(self.day, translated=True)


def _is_prefill(messages: Any) -> bool:
    """The request ends on assistant text: a prefill. (A paused turn, with server tool blocks,
    sent back so the server resumes it, is not one: INFERRED from the pause_turn docs.)"""
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return False
    last = messages[-1]
    content = last.get("content")
    text_only = isinstance(content, str) or (
        isinstance(content, list)
        and all(isinstance(b, dict) and b.get("type") == "text" for b in content)
    )
    return last.get("role") == "assistant" and text_only


def _effort(request: dict[str, Any]) -> str:
    config = request.get("output_config")
    effort = config.get("effort") if isinstance(config, dict) else None
    return effort if isinstance(effort, str) else ""


def check_request(
    model_id: Any,
    request: Any,
    *,
    api_version: str = API_VERSION,
    check_status: bool = True,
    day: dt.date | None = None,
) -> list[Violation]:
    """Would ``model_id`` accept ``request`` (a Messages API body), and if not, why?

    ``check_status=False`` skips retirement (a recorded transcript is judged by the rules of the
    model it was sent to, which was served then). Never raises on bad input.
    """
    shown = model_id if isinstance(model_id, str) else repr(model_id)
    request = request if isinstance(request, dict) else {}
    m = get_model(model_id)
    out: list[Violation] = []
    if m is None:
        return [
            _v(
                None,
                shown,
                "model-unknown",
                "model",
                gettext_noop(
                    "Rules unknown for this model: %(model)s is not in the model catalogue "
                    "(checked %(checked)s), so forced tool_choice, thinking modes, prefill and "
                    "sampling could not be checked for it."
                ),
                {"checked": f"{CHECKED:%Y-%m-%d}"},
                severity="warning",
                fix=gettext_noop(
                    "Pick a model from the catalogue, or check its documentation yourself."
                ),
            )
        ]
    status = m.status_on(day)
    if check_status and status == "retired":
        out.append(
            _v(
                m,
                shown,
                "model-retirement",
                "model",
                gettext_noop(
                    "%(model)s is %(status)s: requests to retired models fail, so nothing was "
                    "sent. Its deprecation announced this retirement date, which has passed."
                )
                if m.status == "deprecated"
                else gettext_noop(
                    "%(model)s is %(status)s: requests to retired models fail, so nothing was sent."
                ),
                {"status": _Status(m, day), "replacement": _replacement(m)},
                fix=gettext_noop("use %(replacement)s."),
                source=DOC_DEPRECATIONS,
                label=CONFIRMED,
            )
        )
        return out
    if check_status and status == "deprecated":
        out.append(
            _v(
                m,
                shown,
                "model-retirement",
                "model",
                gettext_noop("%(model)s is deprecated and retires on %(date)s; it still works."),
                {"date": f"{m.retires:%Y-%m-%d}", "replacement": _replacement(m)},
                severity="warning",
                fix=gettext_noop("Move to %(replacement)s before then."),
                source=DOC_DEPRECATIONS,
                label=CONFIRMED,
            )
        )
    _check_sampling(out, m, shown, request, api_version)
    thinking = request.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    _check_thinking(out, m, shown, request, kind)
    _check_forced(out, m, shown, request, kind)
    if _is_prefill(request.get("messages")) and (
        not m.prefill or (kind == "enabled" and not m.prefill_with_thinking)
    ):
        out.append(
            _v(
                m,
                shown,
                "prefill",
                f"messages[{len(request['messages']) - 1}]",
                gettext_noop(
                    "%(model)s rejects assistant prefill with thinking on: the request ends on "
                    "an assistant message."
                )
                if m.prefill
                else gettext_noop(
                    "%(model)s rejects assistant prefill at all: the request ends on an "
                    "assistant message."
                ),
                fix=gettext_noop(
                    "End on a user message; shape the output with structured outputs "
                    "(output_config.format) or the prompt."
                ),
                api_error=TEXT_PREFILL if not m.prefill else "",
                source=DOC_PREFILL,
            )
        )
    return out


def _check_sampling(
    out: list[Violation], m: ModelRules, shown: str, request: dict[str, Any], api_version: str
) -> None:
    sent = [p for p in SAMPLING_PARAMS if p in request]
    if not sent:
        return
    if api_version != OLD_API_VERSION:
        for p in sent:
            out.append(
                _v(
                    m,
                    shown,
                    "sampling",
                    p,
                    gettext_noop(
                        "%(param)s is not a request parameter under API version %(version)s: "
                        "every model, %(model)s included, rejects temperature, top_p and top_k."
                    ),
                    {"param": p, "version": api_version},
                    fix=gettext_noop(
                        "Remove it (tests that need repeatable runs should script the API, not "
                        "tune it)."
                    ),
                    api_error=TEXT_SAMPLING_REMOVED.format(name=p),
                    source=DOC_VERSIONING,
                    label=CONFIRMED,
                )
            )
        return
    rule = m.sampling_2023
    defaults = {"temperature": 1, "top_p": 1}
    bad: list[str] = []
    if rule == SAMPLING_NONE:
        bad = sent
    elif rule == SAMPLING_DEFAULT_ONLY:
        bad = [p for p in sent if p not in defaults or request[p] != defaults[p]]
    if bad:
        for p in bad:
            out.append(
                _v(
                    m,
                    shown,
                    "sampling",
                    p,
                    gettext_noop(
                        "%(model)s rejects %(param)s at any value, even under API version "
                        "%(version)s."
                    )
                    if rule == SAMPLING_NONE
                    else gettext_noop(
                        "%(model)s rejects %(param)s at a non-default value, even under API "
                        "version %(version)s."
                    ),
                    {"param": p, "version": api_version},
                    fix=gettext_noop("Remove it."),
                    api_error=TEXT_SAMPLING_DEPRECATED.format(name=p),
                )
            )
    elif rule == SAMPLING_ONE and "temperature" in sent and "top_p" in sent:
        out.append(
            _v(
                m,
                shown,
                "sampling",
                "top_p",
                gettext_noop("%(model)s accepts temperature or top_p, not both."),
                fix=gettext_noop("Send only one of them."),
                api_error=TEXT_SAMPLING_BOTH,
            )
        )


def _check_thinking(
    out: list[Violation], m: ModelRules, shown: str, request: dict[str, Any], kind: Any
) -> None:
    if kind is None or kind not in THINKING_MODES:
        return  # absent, or a shape problem the contract checker reports
    if kind in m.thinking_unsure:
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled",
                "thinking.type",
                gettext_noop(
                    'Sources disagree on whether %(model)s accepts thinking {"type": "%(kind)s"}.'
                ),
                {"kind": kind},
                severity="warning",
                fix=gettext_noop("Omit thinking instead (it is off by default on this model)."),
                label=THIRD_PARTY,
            )
        )
        return
    if kind in m.thinking_modes:
        if kind == "disabled" and m.disabled_max_effort and _effort(request) in ("xhigh", "max"):
            out.append(
                _v(
                    m,
                    shown,
                    "thinking-disabled",
                    "thinking.type",
                    gettext_noop(
                        '%(model)s accepts thinking {"type": "disabled"} only at effort '
                        "%(effort)s or below, not at %(asked)s."
                    ),
                    {"effort": m.disabled_max_effort, "asked": _effort(request)},
                    fix=gettext_noop("Lower output_config.effort, or leave thinking on."),
                )
            )
        return
    if kind == "enabled":
        out.append(
            _v(
                m,
                shown,
                "manual-thinking",
                "thinking.type",
                gettext_noop(
                    '%(model)s rejects manual thinking ({"type": "enabled", "budget_tokens": N}).'
                ),
                fix=gettext_noop(
                    'Use {"type": "adaptive"} (or omit thinking where it is on by default) and '
                    "control depth with output_config.effort."
                ),
                api_error=TEXT_ENABLED,
            )
        )
    elif kind == "disabled":
        off = thinking_off(m.id)
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled",
                "thinking.type",
                gettext_noop(
                    '%(model)s rejects thinking {"type": "disabled"}: thinking cannot be turned '
                    "off that way on this model."
                ),
                {"off": off or ""},
                fix=(
                    gettext_noop("Send thinking %(off)s instead.")
                    if off
                    else gettext_noop(
                        "Thinking cannot be turned off on this model; lower output_config.effort."
                    )
                ),
                api_error=TEXT_DISABLED,
            )
        )
    else:
        why = {
            "between_tools": gettext_noop("only claude-sonnet-5-5 accepts between_tools"),
            "adaptive": gettext_noop("its only thinking mode is manual thinking (budget_tokens)"),
        }[kind]
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled" if kind == "between_tools" else "manual-thinking",
                "thinking.type",
                gettext_noop('%(model)s rejects thinking {"type": "%(kind)s"}: %(why)s.'),
                {
                    "kind": kind,
                    "why": Phrase(why),
                    "accepted": ", ".join(m.thinking_modes) or Phrase(NO_THINKING_SETTING),
                },
                fix=gettext_noop("Accepted here: %(accepted)s."),
                source=DOC_THINK_TROUBLE,
            )
        )


def _check_forced(
    out: list[Violation], m: ModelRules, shown: str, request: dict[str, Any], kind: Any
) -> None:
    choice = request.get("tool_choice")
    if not isinstance(choice, dict) or choice.get("type") not in ("any", "tool"):
        return  # not forced
    if m.forced_tool_choice == FORCED_NO:
        out.append(
            _v(
                m,
                shown,
                "forced-tool-choice",
                "tool_choice",
                gettext_noop(
                    '%(model)s rejects forced tool_choice ({"type": "%(type)s"}) with a 400 '
                    "error (the error text is not published)."
                ),
                {"type": choice["type"]},
                fix=gettext_noop(
                    "Use auto with strict tools (or structured outputs), or pick a model that "
                    "accepts it, such as claude-haiku-5-5."
                ),
                source=DOC_THINK_TOOLS,
            )
        )
    elif m.forced_tool_choice == FORCED_UNKNOWN:
        out.append(
            _v(
                m,
                shown,
                "forced-tool-choice",
                "tool_choice",
                gettext_noop("Whether %(model)s accepts forced tool_choice is not documented."),
                severity="warning",
                fix=gettext_noop("Prefer auto with strict tools."),
            )
        )
    elif m.forced_tool_choice == FORCED_NOT_WITH_MANUAL and kind == "enabled":
        out.append(
            _v(
                m,
                shown,
                "forced-tool-choice",
                "tool_choice",
                gettext_noop(
                    '%(model)s rejects forced tool_choice ({"type": "%(type)s"}) together with '
                    "manual thinking (budget_tokens): only auto and none work with it."
                ),
                {"type": choice["type"]},
                fix=gettext_noop(
                    "Use auto and ask for the tool in the prompt, or leave thinking off."
                ),
                source=DOC_THINK_TOOLS,
            )
        )
