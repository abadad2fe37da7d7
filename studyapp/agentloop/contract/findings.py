"""The rule registry and the finding a rule produces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import catalogue, i18n
from .. import models as model_catalogue
from ..i18n import Phrase, render
from ..i18n import gettext_noop as _  # makemessages extracts _(...) (see i18n.py)

DOC_PARALLEL = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use"
DOC_WEBSEARCH = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool"
DOC_AGENT_LOOP = "https://code.claude.com/docs/en/agent-sdk/agent-loop"
DOC_ERRORS = "https://platform.claude.com/docs/en/api/errors"

ERROR = "error"
LINT = "lint"


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str  # the usual severity; a finding may differ (see pause-turn-continue-message)
    title: str
    doc_url: str


RULES: dict[str, Rule] = {
    r.code: r
    for r in [
        # --- the API rejects these ----------------------------------------------------------
        Rule("message-shape", ERROR, _("Message history is not well formed"), DOC_ERRORS),
        Rule(
            "tool-result-missing",
            ERROR,
            _("A tool_use has no tool_result in the very next user message"),
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "tool-result-orphan",
            ERROR,
            _("A tool_result answers no tool_use of the previous assistant message"),
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "tool-result-duplicate",
            ERROR,
            _("Two tool_result blocks answer the same tool_use"),
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "tool-result-not-first",
            ERROR,
            _("Text comes before the tool_result blocks"),
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "server-tool-result-pending",
            ERROR,
            _("A server tool call is still pending, but the user message adds other content"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "server-tool-not-provided",
            ERROR,
            _("Resuming a server tool call without that server tool in tools"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "thinking-missing",
            ERROR,
            _("Thinking is missing from the assistant message of the tool loop"),
            catalogue.DOC_THINK,
        ),
        Rule(
            "thinking-modified",
            ERROR,
            _("Thinking blocks were not passed back unchanged"),
            catalogue.DOC_THINK,
        ),
        Rule(
            "thinking-budget-invalid",
            ERROR,
            _("budget_tokens must be a whole number of at least 1,024"),
            catalogue.DOC_THINK,
        ),
        Rule(
            "tool-choice-invalid",
            ERROR,
            _("tool_choice has an invalid shape"),
            catalogue.DOC_DEFINE,
        ),
        Rule(
            "tool-choice-forced-with-thinking",
            ERROR,
            _("Forced tool_choice (any/tool) with budget-style extended thinking"),
            catalogue.DOC_DEFINE,
        ),
        # per model (models.check_request): the message names the model and the rule
        Rule(
            "model-retirement",
            ERROR,
            _("The model is retired (or past its retirement date)"),
            model_catalogue.DOC_DEPRECATIONS,
        ),
        Rule(
            "model-sampling",
            ERROR,
            _("The model rejects temperature / top_p / top_k under this API version"),
            model_catalogue.DOC_VERSIONING,
        ),
        Rule(
            "model-forced-tool-choice",
            ERROR,
            _("The model rejects forced tool_choice (any / tool)"),
            model_catalogue.DOC_THINK_TOOLS,
        ),
        Rule(
            "model-prefill",
            ERROR,
            _("The model rejects assistant prefill"),
            model_catalogue.DOC_PREFILL,
        ),
        Rule(
            "model-manual-thinking",
            ERROR,
            _("The model rejects this thinking mode (budget_tokens / adaptive)"),
            model_catalogue.DOC_THINK_TROUBLE,
        ),
        Rule(
            "model-thinking-disabled",
            ERROR,
            _("The model does not turn thinking off this way"),
            model_catalogue.DOC_THINK_TROUBLE,
        ),
        Rule(
            "model-unknown",
            LINT,
            _("Rules unknown for this model"),
            model_catalogue.DOC_DEPRECATIONS,
        ),
        Rule(
            "disable-parallel-top-level",
            ERROR,
            _("disable_parallel_tool_use belongs inside tool_choice"),
            catalogue.DOC_DEFINE,
        ),
        # --- the API accepts these, the documentation calls them wrong -------------------------
        Rule(
            "thinking-toggled",
            LINT,
            _("Thinking switched on in the middle of a tool loop"),
            model_catalogue.DOC_EXTENDED,
        ),
        Rule(
            "tool-results-split",
            LINT,
            _("Results of one parallel batch are split across user messages"),
            DOC_PARALLEL,
        ),
        Rule(
            "pause-turn-continue-message",
            LINT,
            _("A paused turn was followed by an added user message"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "pause-turn-not-resent",
            LINT,
            _("A paused turn was not sent back as it came"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "truncated-tool-use-executed",
            LINT,
            _("A tool_use cut off by max_tokens was executed"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "retry-without-more-tokens",
            LINT,
            _("A cut-off tool_use was retried without a larger max_tokens"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "tool-error-not-flagged",
            LINT,
            _("A tool failure is returned as a success (no is_error)"),
            catalogue.DOC_HANDLE,
        ),
        Rule(
            "loop-ignores-stop-reason",
            LINT,
            _("The loop ended (or went on) against stop_reason"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "max-tokens-as-done",
            LINT,
            _("The run ended on a max_tokens response as if it were complete"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "refusal-retried-unchanged",
            LINT,
            _("A refused request was sent again unchanged"),
            catalogue.DOC_REFUSAL,
        ),
        Rule(
            "cap-only-stop",
            LINT,
            _("The iteration cap ended a run that stop_reason had not ended"),
            DOC_AGENT_LOOP,
        ),
        Rule(
            "turn-after-stop",
            LINT,
            _("The run called the API again after a stop_reason that ends the loop"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "replay-mismatch",
            LINT,
            _("What the turn logged as sent differs from the replay of the loop"),
            catalogue.DOC_STOP,
        ),
        Rule(
            "unknown-stop-reason",
            LINT,
            _("A stop_reason the catalogue does not know"),
            catalogue.SDK_STOP_REASON,
        ),
    ]
}


@dataclass(frozen=True)
class Finding:
    """One problem, where it is and what the API (or the docs) say about it.

    The words are kept as a message id and its parameters, not as a finished sentence: a
    finding is computed once (and cached with the run) but read in the reader's language, so
    ``message`` translates ``text`` when it is read (through ``i18n.gettext``, which the Django
    side points at its own) and fills in ``params`` (paths, ids, names: never translated).
    """

    rule: str  # a code of RULES
    severity: str  # "error" | "lint"
    step: int | None  # the turn whose request (or response) it is in; None for check()
    path: str  # JSON path, relative to that request: messages[4].content[0], tool_choice...
    text: str  # plain words in English, a %-format template marked with gettext_noop
    api_error: str = ""  # the API's own error text, where the fact sheet records it (verbatim)
    doc_url: str = ""
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)

    @property
    def message(self) -> str:
        """The plain words in the active language (English where no translator is set)."""
        return render(self.text, self.params)

    def phrase(self) -> Phrase:
        """The plain words as a Phrase, to be worded later in the reader's language."""
        return Phrase(self.text, self.params)

    @property
    def title(self) -> str:
        return i18n.gettext(RULES[self.rule].title)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "step": self.step,
            "path": self.path,
            "message": self.message,
            "api_error": self.api_error,
            "doc_url": self.doc_url,
        }


def _finding(
    rule: str,
    path: str,
    text: str,
    params: Mapping[str, Any] | None = None,
    *,
    api_error: str = "",
    severity: str | None = None,
) -> Finding:
    info = RULES[rule]
    return Finding(
        rule=rule,
        severity=severity or info.severity,
        step=None,
        path=path,
        text=text,
        api_error=api_error,
        doc_url=info.doc_url,
        params=dict(params or {}),
    )


def _str(value: Any) -> str | None:
    """Ids come from untrusted JSON: anything but a string counts as no id."""
    return value if isinstance(value, str) else None


def _api_path(path: str) -> str:
    """messages[4].content[1] -> messages.4.content.1 (how the API names places)."""
    return path.replace("[", ".").replace("]", "")
