"""The model catalogue: what each Claude model served on 2026-12-01 accepts in a request.

Pure Python, no Django. The one place where "it depends on the model" is written down; the
contract checker, the live runner, ``manage.py recordloop``, the notes callouts, the question
feedback and the "What changed since the exam guide" page all read it.

Public API::

    MODELS                      # {family id: ModelRules}, newest first
    get_model(model_id)         # ModelRules for an id or a dated alias, or None when unknown
    check_request(model_id, request, *, api_version="2026-10-21") -> list[Violation]
                                # (in .model_check, re-exported here; Violation.sentence is the
                                # message plus what to do instead)
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

from .i18n import gettext, gettext_noop

#: A model's status in words (models.py keeps the codes; the pages show these).
STATUS_WORDS = {
    "active": gettext_noop("active"),
    "legacy": gettext_noop("legacy"),
    "deprecated": gettext_noop("deprecated"),
}

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

    def status_text(self, day: dt.date | None = None, *, translated: bool = True) -> str:
        """The status in words, in the reader's language unless ``translated`` is False (the
        checker's English sentences embed it)."""
        tr = gettext if translated else gettext_noop
        status = self.status_on(day)
        if status == "retired":
            when = self.retired or self.retires
            if when:
                return tr(gettext_noop("retired (%(date)s)")) % {"date": f"{when:%Y-%m-%d}"}
            return tr(gettext_noop("retired"))
        if status == "deprecated" and self.retires:
            text = tr(gettext_noop("deprecated, retires %(date)s"))
            return text % {"date": f"{self.retires:%Y-%m-%d}"}
        return tr(STATUS_WORDS.get(status, status))

    @property
    def forced_text(self) -> str:
        return {
            FORCED_OK: gettext("accepted (with adaptive thinking, thinking is skipped)"),
            FORCED_NO: gettext("400 error"),
            FORCED_NOT_WITH_MANUAL: gettext("accepted, but not with manual thinking"),
            FORCED_UNKNOWN: gettext("not documented"),
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


def all_models() -> list[ModelRules]:
    """Every family and sibling id in the catalogue, retired ones included (no dated ids)."""
    return [m for m in _BY_ID.values() if not _dated(m.id)]


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


def __getattr__(name: str) -> Any:
    """Re-exported from the modules that read this one: CHANGES, Change and per_model from
    .changes; check_request and Violation from .model_check."""
    if name in ("CHANGES", "Change", "per_model"):
        from . import changes

        return getattr(changes, name)
    if name in ("check_request", "Violation"):
        from . import model_check

        return getattr(model_check, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
