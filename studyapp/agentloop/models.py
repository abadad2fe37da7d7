"""The model catalogue: what each Claude model served on 2026-12-01 accepts in a request.

Pure Python, no Django. The one place where "it depends on the model" is written down; the
contract checker, the live runner, ``manage.py recordloop``, the notes callouts, the question
feedback and the "What changed since the exam guide" page all read it.

Public API::

    MODELS                      # {family id: ModelRules}, newest first
    get_model(model_id)         # ModelRules for an id or a dated alias, or None when unknown
    check_request(model_id, request, *, api_version="2026-10-21") -> list[Violation]
    thinking_off(model_id)      # the request value that turns thinking off ({} = omit it), or None
    thinking_on(model_id)       # the request value that turns thinking on ({} = omit it), or None
    CHANGES                     # {change id: Change}: the exam's answer vs today's models
    live_models()               # the models a live run may pick (served, not retired), in order

Facts and labels come from ``../shared/facts-current.md`` (CONFIRMED, THIRD-PARTY, INFERRED).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Any

API_VERSION = "2026-10-21"  # what the installed SDK 2.14 sends (anthropic/_constants.py:7)
OLD_API_VERSION = "2023-06-01"
API_VERSIONS = (API_VERSION, OLD_API_VERSION)
CHECKED = dt.date(2026, 12, 1)

CONFIRMED, THIRD_PARTY, INFERRED = "CONFIRMED", "THIRD-PARTY", "INFERRED"

DOCS = "https://platform.claude.com/docs/en"
DOC_DEPRECATIONS = f"{DOCS}/about-claude/model-deprecations"
DOC_VERSIONING = f"{DOCS}/api/versioning"
DOC_THINK_TROUBLE = f"{DOCS}/build-with-claude/thinking-troubleshooting"
DOC_THINK_TOOLS = f"{DOCS}/build-with-claude/thinking-tool-workflows"
DOC_PRESERVED = f"{DOCS}/build-with-claude/preserved-thinking"
DOC_BOUND = f"{DOC_PRESERVED}/fix-bound-to-a-different-conversation"
DOC_PREFILL = f"{DOCS}/api/errors#prefill-not-supported"
DOC_RELEASE_FABLE_51 = f"{DOCS}/release-notes/overview?entry=2026-09-01-2df3f01ad7fac00e"
DOC_EXTENDED = f"{DOCS}/build-with-claude/extended-thinking"

# The API's own words, where a source records them (facts-current §2, §4).
TEXT_ENABLED = (
    '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
    '"output_config.effort" to control thinking behavior.'
)
TEXT_DISABLED = (
    '"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and '
    '"output_config.effort" to control thinking behavior.'
)
TEXT_PREFILL = (
    "This model does not support assistant message prefill. The conversation must end with a "
    "user message."
)
TEXT_SAMPLING_REMOVED = "{name}: Extra inputs are not permitted"
TEXT_SAMPLING_DEPRECATED = "`{name}` is deprecated for this model."
TEXT_SAMPLING_BOTH = (
    "temperature and top_p cannot both be specified for this model. Please use only one."
)
TEXT_BOUND = (
    "messages.{m}.content.{c}: Invalid `signature` in `thinking` block. The block is bound to a "
    "different conversation. Remove the block, or set "
    '`thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)
BINDING_BETA = "thinking-binding-controls-2026-08-01"

SAMPLING_PARAMS = ("temperature", "top_p", "top_k")
THINKING_MODES = ("enabled", "adaptive", "disabled", "between_tools")
STATUSES = ("active", "legacy", "deprecated", "retired")

# forced tool_choice ("any"/"tool"):
FORCED_OK = "ok"  # accepted (with adaptive thinking, thinking is skipped)
FORCED_NO = "rejected"  # 400 whatever the thinking setting
FORCED_NOT_WITH_MANUAL = "not_with_manual_thinking"  # 400 only with thinking type enabled
FORCED_UNKNOWN = "unknown"
# sampling parameters under 2023-06-01:
SAMPLING_ANY = "any"  # accepted
SAMPLING_ONE = "one"  # temperature or top_p, not both
SAMPLING_DEFAULT_ONLY = "default_only"  # non-default values are a 400
SAMPLING_NONE = "none"  # every value is a 400


@dataclass(frozen=True)
class ModelRules:
    """One model family: its status and what its requests may contain."""

    id: str
    name: str
    status: str  # active | legacy | deprecated | retired
    source: str
    label: str
    aliases: tuple[str, ...] = ()
    retires: dt.date | None = None  # deprecated: the announced retirement date
    retired: dt.date | None = None  # retired: the date requests started to fail
    replacement: str = ""
    forced_tool_choice: str = FORCED_OK
    thinking_modes: tuple[str, ...] = ()  # the `thinking.type` values the API accepts
    thinking_default: str = "off"  # what omitting `thinking` gives: "off" | "adaptive"
    disabled_max_effort: str = ""  # "high": disabled only at effort high or below
    prefill: bool = True  # may the request end on an assistant message?
    prefill_with_thinking: bool = False
    sampling_2023: str = SAMPLING_ANY
    thinking_bound: bool = False  # thinking blocks bound to model + prefix (preserved thinking)
    account_bound: bool = False  # ... and to the account that produced them
    display_default: str = "summarized"  # thinking.display when omitted; "" = not documented
    prior_thinking_kept: bool = False  # earlier turns' thinking stays in context
    thinking_unsure: tuple[str, ...] = ()  # modes whose acceptance sources disagree on
    labels: dict[str, str] = field(default_factory=dict)  # per-rule labels that differ
    checked: dt.date = CHECKED

    def label_for(self, rule: str) -> str:
        return self.labels.get(rule, self.label)

    def status_on(self, day: dt.date | None = None) -> str:
        """The status on ``day``: a deprecated model past its retirement date counts as retired.

        (The SDK says such a date means retirement is "overdue, not that it has occurred"; a
        study app must not send a request that may fail, so it treats it as retired.)"""
        day = day or dt.date.today()
        if self.status == "deprecated" and self.retires is not None and self.retires <= day:
            return "retired"
        return self.status

    def status_text(self, day: dt.date | None = None) -> str:
        status = self.status_on(day)
        if status == "retired":
            when = self.retired or self.retires
            return f"retired ({when:%Y-%m-%d})" if when else "retired"
        if status == "deprecated" and self.retires:
            return f"deprecated, retires {self.retires:%Y-%m-%d}"
        return status

    @property
    def forced_text(self) -> str:
        return {
            FORCED_OK: "accepted (with adaptive thinking, thinking is skipped)",
            FORCED_NO: "400 error",
            FORCED_NOT_WITH_MANUAL: "accepted, but not with manual thinking",
            FORCED_UNKNOWN: "not documented",
        }[self.forced_tool_choice]


def _m(**kw: Any) -> ModelRules:
    return ModelRules(**kw)


_GEN5_NEW = dict(  # Fable 5.1+/Mythos 5.1+ and Opus 5.5: always-on adaptive thinking, bound
    forced_tool_choice=FORCED_NO,
    thinking_modes=("adaptive",),
    thinking_default="adaptive",
    prefill=False,
    sampling_2023=SAMPLING_DEFAULT_ONLY,
    thinking_bound=True,
    display_default="omitted",
    prior_thinking_kept=True,
)
_GEN45 = dict(  # the 4.5 generation and earlier: manual (budget) thinking is the only mode
    forced_tool_choice=FORCED_NOT_WITH_MANUAL,
    thinking_modes=("enabled", "disabled"),
    prefill=True,
    sampling_2023=SAMPLING_ONE,
)

_ALL = [
    _m(
        id="claude-fable-5-2",
        name="Claude Fable 5.2",
        status="active",
        aliases=("claude-mythos-5-2",),
        source=f"{DOCS}/release-notes/overview",
        label=THIRD_PARTY,
        labels={"status": CONFIRMED},
        **_GEN5_NEW,
    ),
    _m(
        id="claude-opus-5-5",
        name="Claude Opus 5.5",
        status="active",
        source=f"{DOCS}/models/opus-5-5/whats-new-opus-5-5",
        label=CONFIRMED,
        labels={"prefill": INFERRED, "sampling": THIRD_PARTY},
        **_GEN5_NEW,
    ),
    _m(
        id="claude-sonnet-5-5",
        name="Claude Sonnet 5.5",
        status="active",
        source=f"{DOCS}/models/sonnet-5-5/migration-guide",
        label=CONFIRMED,
        labels={"display": THIRD_PARTY},
        forced_tool_choice=FORCED_NO,
        thinking_modes=("adaptive", "between_tools"),
        thinking_default="adaptive",
        prefill=False,
        sampling_2023=SAMPLING_NONE,
        thinking_bound=True,
        account_bound=True,
        display_default="omitted",
        prior_thinking_kept=True,
    ),
    _m(
        id="claude-haiku-5-5",
        name="Claude Haiku 5.5",
        status="active",
        source=f"{DOCS}/models/haiku-5-5/whats-new-haiku-5-5",
        label=CONFIRMED,
        labels={"forced-tool-choice": INFERRED, "thinking-disabled": THIRD_PARTY},
        forced_tool_choice=FORCED_OK,
        thinking_modes=("adaptive", "disabled"),
        thinking_default="adaptive",
        disabled_max_effort="high",
        prefill=False,
        sampling_2023=SAMPLING_DEFAULT_ONLY,
        thinking_bound=True,
        account_bound=True,
        display_default="omitted",
        prior_thinking_kept=True,
    ),
    _m(
        id="claude-fable-5-1",
        name="Claude Fable 5.1",
        status="active",
        aliases=("claude-mythos-5-1",),
        source=DOC_RELEASE_FABLE_51,
        label=CONFIRMED,
        labels={"prefill": INFERRED, "sampling": THIRD_PARTY, "status": THIRD_PARTY},
        **_GEN5_NEW,
    ),
    _m(
        id="claude-fable-5",
        name="Claude Fable 5",
        status="legacy",
        aliases=("claude-mythos-5",),
        source=f"{DOCS}/models/fable-5/overview",
        label=CONFIRMED,
        labels={"sampling": THIRD_PARTY, "prior-thinking-kept": INFERRED},
        forced_tool_choice=FORCED_UNKNOWN,
        thinking_modes=("adaptive",),
        thinking_default="adaptive",
        prefill=False,
        sampling_2023=SAMPLING_DEFAULT_ONLY,
        display_default="omitted",
        prior_thinking_kept=True,
    ),
    _m(
        id="claude-opus-5",
        name="Claude Opus 5",
        status="legacy",
        replacement="claude-opus-5-5",
        source=f"{DOCS}/models/opus-5/migration-guide",
        label=CONFIRMED,
        labels={"forced-tool-choice": INFERRED, "prefill": INFERRED, "sampling": THIRD_PARTY},
        forced_tool_choice=FORCED_OK,
        thinking_modes=("adaptive", "disabled"),
        thinking_default="adaptive",
        disabled_max_effort="high",
        prefill=False,
        sampling_2023=SAMPLING_DEFAULT_ONLY,
        display_default="omitted",
        prior_thinking_kept=True,
    ),
    _m(
        id="claude-sonnet-5",
        name="Claude Sonnet 5",
        status="legacy",
        replacement="claude-sonnet-5-5",
        source=f"{DOCS}/models/sonnet-5/overview",
        label=CONFIRMED,
        labels={
            "forced-tool-choice": THIRD_PARTY,
            "thinking-disabled": THIRD_PARTY,
            "prefill": INFERRED,
            "sampling": THIRD_PARTY,
        },
        forced_tool_choice=FORCED_OK,
        thinking_modes=("adaptive", "disabled"),
        thinking_default="adaptive",
        prefill=False,
        sampling_2023=SAMPLING_DEFAULT_ONLY,
        display_default="",
        prior_thinking_kept=True,
    ),
    _m(
        id="claude-opus-4-8",
        name="Claude Opus 4.8",
        status="legacy",
        aliases=("claude-opus-4-7",),
        source=DOC_THINK_TROUBLE,
        label=CONFIRMED,
        labels={
            "forced-tool-choice": INFERRED,
            "prefill": INFERRED,
            "sampling": THIRD_PARTY,
            "status": INFERRED,  # Opus 4.7's status page was not seen
        },
        forced_tool_choice=FORCED_OK,
        thinking_modes=("adaptive",),
        thinking_unsure=("disabled",),  # third parties disagree: a warning, never offered
        prefill=False,
        sampling_2023=SAMPLING_DEFAULT_ONLY,
        display_default="omitted",
        prior_thinking_kept=True,
    ),
    _m(
        id="claude-opus-4-6",
        name="Claude Opus 4.6",
        status="legacy",
        aliases=("claude-sonnet-4-6",),
        source=DOC_THINK_TROUBLE,
        label=CONFIRMED,
        labels={"sampling": THIRD_PARTY},
        forced_tool_choice=FORCED_NOT_WITH_MANUAL,
        thinking_modes=("adaptive", "enabled", "disabled"),
        prefill=False,
        sampling_2023=SAMPLING_ONE,
        prior_thinking_kept=True,
    ),
    _m(
        id="claude-haiku-4-5",
        name="Claude Haiku 4.5",
        status="legacy",
        aliases=("claude-haiku-4-5-20251001",),
        source=f"{DOCS}/models/haiku-4-5/migration-guide",
        label=CONFIRMED,
        **_GEN45,
    ),
    _m(
        id="claude-opus-4-5",
        name="Claude Opus 4.5",
        status="deprecated",
        aliases=("claude-opus-4-5-20251101",),
        retires=dt.date(2027, 1, 22),
        replacement="claude-opus-5-5",
        source=DOC_DEPRECATIONS,
        label=CONFIRMED,
        prior_thinking_kept=True,
        **_GEN45,
    ),
    _m(
        id="claude-sonnet-4-5",
        name="Claude Sonnet 4.5",
        status="deprecated",
        aliases=("claude-sonnet-4-5-20250929",),
        retires=dt.date(2026, 11, 30),
        replacement="claude-sonnet-5-5",
        source=f"{DOCS}/models/sonnet-4-5/overview",
        label=CONFIRMED,
        **_GEN45,
    ),
    _m(
        id="claude-mythos-preview",
        name="Claude Mythos Preview",
        status="deprecated",
        retires=dt.date(2026, 6, 30),
        source=DOC_THINK_TROUBLE,
        label=CONFIRMED,
        forced_tool_choice=FORCED_UNKNOWN,
        thinking_modes=("adaptive", "enabled"),
        prefill=False,
        display_default="omitted",
    ),
    _m(
        id="claude-opus-4-1",
        name="Claude Opus 4.1",
        status="retired",
        aliases=("claude-opus-4-1-20250805",),
        retired=dt.date(2026, 8, 5),
        replacement="claude-opus-5-5",
        source=DOC_DEPRECATIONS,
        label=CONFIRMED,
        **_GEN45,
    ),
    _m(
        id="claude-opus-4-0",
        name="Claude Opus 4",
        status="retired",
        aliases=("claude-opus-4-20250514",),
        retired=dt.date(2026, 6, 15),
        replacement="claude-opus-5-5",
        source=DOC_DEPRECATIONS,
        label=CONFIRMED,
        **_GEN45,
    ),
    _m(
        id="claude-sonnet-4-0",
        name="Claude Sonnet 4",
        status="retired",
        aliases=("claude-sonnet-4-20250514",),
        retired=dt.date(2026, 6, 15),
        replacement="claude-sonnet-5-5",
        source=DOC_DEPRECATIONS,
        label=CONFIRMED,
        **_GEN45,
    ),
]

MODELS: dict[str, ModelRules] = {m.id: m for m in _ALL}
_BY_ID: dict[str, ModelRules] = {}
for _rules in _ALL:
    for _name in (_rules.id, *_rules.aliases):
        # An alias that names a sibling (Mythos next to Fable) gets its own id and name.
        if _name == _rules.id:
            _BY_ID[_name] = _rules
        elif _name[-8:].isdigit():  # a dated snapshot of the family
            _BY_ID[_name] = replace(_rules, id=_name, aliases=())
        else:  # a sibling id (Mythos next to Fable, Sonnet 4.6 next to Opus 4.6)
            words = _name.removeprefix("claude-").split("-")
            title = f"Claude {words[0].title()} {'.'.join(words[1:])}"
            _BY_ID[_name] = replace(_rules, id=_name, name=title, aliases=())


def _dated(model_id: str) -> bool:
    return model_id[-8:].isdigit()


def get_model(model_id: Any) -> ModelRules | None:
    """The rules for a model id (family id, sibling or dated alias); None when unknown."""
    return _BY_ID.get(model_id) if isinstance(model_id, str) else None


def live_models(day: dt.date | None = None) -> list[ModelRules]:
    """The ids a live run may pick: every family not retired on ``day``, catalogue order."""
    return [m for m in _BY_ID.values() if not _dated(m.id) and m.status_on(day) != "retired"]


def thinking_off(model_id: str) -> dict[str, Any] | None:
    """How to ask ``model_id`` for no thinking: {} means omit `thinking`; None: impossible."""
    m = get_model(model_id)
    if m is None:
        return None
    if m.thinking_default == "off":
        return {}
    if "between_tools" in m.thinking_modes:
        return {"type": "between_tools"}
    if "disabled" in m.thinking_modes:
        return {"type": "disabled"}
    return None


def thinking_on(model_id: str, budget_tokens: int = 2048) -> dict[str, Any] | None:
    """How to ask ``model_id`` for thinking: {} means omit it (on by default); None: no way."""
    m = get_model(model_id)
    if m is None:
        return None
    if m.thinking_default == "adaptive":
        return {}
    if "adaptive" in m.thinking_modes:
        return {"type": "adaptive"}
    if "enabled" in m.thinking_modes:
        return {"type": "enabled", "budget_tokens": budget_tokens}
    return None


# --- check_request -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """One thing model M would not accept in request R (or could not be judged)."""

    model: str
    rule: str  # a CHANGES id, or "model-unknown" / "model-deprecated"
    severity: str  # "error": the API returns an error | "warning": sent, but read this
    path: str  # where in the request
    message: str  # plain words, naming the model and the rule
    fix: str = ""  # what to do instead
    api_error: str = ""  # the API's own text where a source records it
    source: str = ""
    label: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def _v(m: ModelRules | None, model_id: str, rule: str, path: str, message: str, **kw) -> Violation:
    source = kw.pop("source", m.source if m else "")
    label = kw.pop("label", m.label_for(rule) if m else "")
    severity = kw.pop("severity", "error")
    return Violation(model_id, rule, severity, path, message, source=source, label=label, **kw)


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
                f"Rules unknown for this model: {shown} is not in the model catalogue (checked "
                f"{CHECKED:%Y-%m-%d}), so forced tool_choice, thinking modes, prefill and "
                "sampling could not be checked for it.",
                severity="warning",
                fix="Pick a model from the catalogue, or check its documentation yourself.",
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
                f"{shown} is {m.status_text(day)}: requests to retired models fail, "
                "so nothing was sent."
                + (
                    " Its deprecation announced this retirement date, which has passed."
                    if m.status == "deprecated"
                    else ""
                ),
                fix=f"Use {m.replacement or 'a current model'} instead.",
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
                f"{shown} is deprecated and retires on {m.retires:%Y-%m-%d}; it still works.",
                severity="warning",
                fix=f"Move to {m.replacement or 'a current model'} before then.",
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
        why = "with thinking on" if m.prefill else "at all"
        out.append(
            _v(
                m,
                shown,
                "prefill",
                f"messages[{len(request['messages']) - 1}]",
                f"{shown} rejects assistant prefill {why}: the request ends on an assistant "
                "message.",
                fix="End on a user message; shape the output with structured outputs "
                "(output_config.format) or the prompt.",
                api_error=TEXT_PREFILL if not m.prefill else "",
                source=DOC_PREFILL,
            )
        )
    return out


def _check_sampling(out, m: ModelRules, shown: str, request: dict, api_version: str) -> None:
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
                    f"{p} is not a request parameter under API version {api_version}: every "
                    f"model, {shown} included, rejects temperature, top_p and top_k.",
                    fix="Remove it (tests that need repeatable runs should script the API, not "
                    "tune it).",
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
                    f"{shown} rejects {p}"
                    + (" at any value" if rule == SAMPLING_NONE else " at a non-default value")
                    + f", even under API version {api_version}.",
                    fix="Remove it.",
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
                f"{shown} accepts temperature or top_p, not both.",
                fix="Send only one of them.",
                api_error=TEXT_SAMPLING_BOTH,
            )
        )


def _check_thinking(out, m: ModelRules, shown: str, request: dict, kind: Any) -> None:
    if kind is None or kind not in THINKING_MODES:
        return  # absent, or a shape problem the contract checker reports
    if kind in m.thinking_unsure:
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled",
                "thinking.type",
                f'Sources disagree on whether {shown} accepts thinking {{"type": "{kind}"}}.',
                severity="warning",
                fix="Omit thinking instead (it is off by default on this model).",
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
                    f'{shown} accepts thinking {{"type": "disabled"}} only at effort '
                    f"{m.disabled_max_effort} or below, not at {_effort(request)}.",
                    fix="Lower output_config.effort, or leave thinking on.",
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
                f'{shown} rejects manual thinking ({{"type": "enabled", "budget_tokens": N}}).',
                fix='Use {"type": "adaptive"} (or omit thinking where it is on by default) and '
                "control depth with output_config.effort.",
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
                f'{shown} rejects thinking {{"type": "disabled"}}: thinking cannot be turned off '
                "that way on this model.",
                fix=(
                    f"Send thinking {off} instead."
                    if off
                    else "Thinking cannot be turned off on this model; lower output_config.effort."
                ),
                api_error=TEXT_DISABLED,
            )
        )
    else:
        why = {
            "between_tools": "only claude-sonnet-5-5 accepts between_tools",
            "adaptive": "its only thinking mode is manual thinking (budget_tokens)",
        }[kind]
        out.append(
            _v(
                m,
                shown,
                "thinking-disabled" if kind == "between_tools" else "manual-thinking",
                "thinking.type",
                f'{shown} rejects thinking {{"type": "{kind}"}}: {why}.',
                fix=f"Accepted here: {', '.join(m.thinking_modes) or 'no thinking setting'}.",
                source=DOC_THINK_TROUBLE,
            )
        )


def _check_forced(out, m: ModelRules, shown: str, request: dict, kind: Any) -> None:
    choice = request.get("tool_choice")
    forced = isinstance(choice, dict) and choice.get("type") in ("any", "tool")
    if not forced:
        return
    if m.forced_tool_choice == FORCED_NO:
        out.append(
            _v(
                m,
                shown,
                "forced-tool-choice",
                "tool_choice",
                f'{shown} rejects forced tool_choice ({{"type": "{choice["type"]}"}}) with a 400 '
                "error (the error text is not published).",
                fix="Use auto with strict tools (or structured outputs), or pick a model that "
                "accepts it, such as claude-haiku-5-5.",
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
                f"Whether {shown} accepts forced tool_choice is not documented.",
                severity="warning",
                fix="Prefer auto with strict tools.",
            )
        )
    # FORCED_NOT_WITH_MANUAL with thinking enabled: the contract checker's own 2025 rule
    # (tool-choice-forced-with-thinking) reports it for every model.


def __getattr__(name: str) -> Any:
    """CHANGES, Change and per_model live in .changes (which reads this module): re-exported."""
    if name in ("CHANGES", "Change", "per_model"):
        from . import changes

        return getattr(changes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
