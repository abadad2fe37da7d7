"""What changed since the exam guide: the exam-era answer next to what today's models do.

``CHANGES`` is keyed by the agreed ids (sampling, forced-tool-choice, prefill, manual-thinking,
thinking-disabled, thinking-default, thinking-display, thinking-binding, thinking-toggle,
prior-thinking-kept, model-retirement). The per-model lines are generated from the model
catalogue (:mod:`.models`) each time they are asked for, so one entry there changes every page
that shows them: the notes callouts, question feedback, the sandbox decision panel and
``/notes/changes/``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import models as _models
from .i18n import gettext
from .i18n import gettext_noop as _  # makemessages extracts _(...)


def gettext_noop(s: str) -> str:
    """Marks a user-facing text for translation (makemessages extracts it); no Django here:
    pages translate it where they render it (``gettext(text)``)."""
    return s


if TYPE_CHECKING:
    from .models import ModelRules

CHECKED = dt.date(2026, 12, 1)
CHANGE_IDS = (
    "sampling",
    "forced-tool-choice",
    "prefill",
    "manual-thinking",
    "thinking-disabled",
    "thinking-default",
    "thinking-display",
    "thinking-binding",
    "thinking-toggle",
    "prior-thinking-kept",
    "model-retirement",
)


def _sampling(m: ModelRules) -> str:
    old = {
        _models.SAMPLING_ANY: gettext("accepted"),
        _models.SAMPLING_ONE: gettext("accepted, but not temperature and top_p together"),
        _models.SAMPLING_DEFAULT_ONLY: gettext("non-default values are a 400"),
        _models.SAMPLING_NONE: gettext("a 400 at any value"),
    }[m.sampling_2023]
    return gettext(
        "400 under API version 2026-10-21 (the SDK's); under a pinned 2023-06-01: %(old)s"
    ) % {"old": old}


def _prefill(m: ModelRules) -> str:
    return gettext("accepted, but not with thinking on") if m.prefill else gettext("400 error")


def _manual(m: ModelRules) -> str:
    if "enabled" not in m.thinking_modes:
        return gettext("400 error: use adaptive thinking and output_config.effort")
    if "adaptive" in m.thinking_modes:
        return gettext("deprecated, still accepted (adaptive is recommended)")
    return gettext("accepted: the only thinking mode")


def _disabled(m: ModelRules) -> str:
    off = _models.thinking_off(m.id)
    if off is None:
        return gettext("cannot be turned off (disabled is a 400)")
    if off == {}:
        return gettext("off by default: omit thinking")
    if off["type"] == "between_tools":
        return gettext('send {"type": "between_tools"} (disabled is a 400)')
    if m.disabled_max_effort:
        return gettext('send {"type": "disabled"} at effort %(effort)s or below') % {
            "effort": m.disabled_max_effort
        }
    return gettext('send {"type": "disabled"}')


def _default(m: ModelRules) -> str:
    if m.thinking_default == "adaptive":
        return gettext("on (adaptive) when omitted")
    return gettext("off when omitted")


def _display(m: ModelRules) -> str:
    if not m.display_default:
        return gettext("not documented")
    if m.display_default == "omitted":
        return gettext("omitted: thinking blocks come back with empty text")
    return gettext("summarized")


def _binding(m: ModelRules) -> str:
    if not m.thinking_bound:
        return gettext("not bound: the API does not check the history before a block")
    if m.account_bound:
        return gettext(
            "bound to the model and everything before the block, and to the account: "
            "an edit is a 400"
        )
    return gettext("bound to the model and everything before the block: an edit is a 400")


def _toggle(m: ModelRules) -> str:
    return gettext("no error: thinking is silently disabled for that request")


def _kept(m: ModelRules) -> str:
    if m.prior_thinking_kept:
        return gettext("kept in context (billed as input)")
    return gettext("stripped by the API")


def _status(m: ModelRules) -> str:
    return m.status_text()


@dataclass(frozen=True)
class Change:
    """One rule the exam teaches one way and today's models treat model by model."""

    id: str
    title: str
    exam: str  # the exam-era answer (what the questions are keyed to)
    today: str  # today's behaviour in one sentence
    source: str
    label: str
    per_model_text: Callable[[ModelRules], str]
    notes_anchor: str = ""  # note-slug#anchor that teaches the exam answer
    include_retired: bool = False  # list retired models too (the retirement row)
    checked: dt.date = CHECKED

    def rows(self, day: dt.date | None = None) -> list[dict[str, Any]]:
        """One row per model served on ``day``: {model, name, status, text, label, source}."""
        return [
            {
                "model": m.id,
                "name": m.name,
                "status": m.status_text(day),
                "text": self.per_model_text(m),
                "label": m.label_for(self.id),
                "source": m.source,
            }
            for m in (_models.all_models() if self.include_retired else _models.live_models(day))
        ]


def per_model(change_id: str, model_id: str) -> str:
    """Today's line for one model ("" when the change or the model is unknown)."""
    change = CHANGES.get(change_id)
    m = _models.get_model(model_id)
    return change.per_model_text(m) if change and m else ""


D = _models.DOCS
CHANGES: dict[str, Change] = {
    c.id: c
    for c in [
        Change(
            "sampling",
            _("Sampling parameters"),
            _("Set temperature (for example 0) to make loop tests repeatable."),
            _(
                "The SDK sends API version 2026-10-21, which removed temperature, top_p and top_k: "
                "sending any of them is a 400 on every model."
            ),
            _models.DOC_VERSIONING,
            _models.CONFIRMED,
            _sampling,
        ),
        Change(
            "forced-tool-choice",
            _("Forced tool_choice (any / tool)"),
            _(
                'tool_choice {"type": "any"} or {"type": "tool"} forces a tool call; only auto and '
                "none work with extended thinking."
            ),
            _(
                "Forced tool_choice is a 400 on Opus 5.5, Sonnet 5.5 and Fable/Mythos 5.1 and "
                "later; where it is accepted with adaptive thinking, thinking is skipped."
            ),
            _models.DOC_THINK_TOOLS,
            _models.CONFIRMED,
            lambda m: m.forced_text,
            "tool-choice#with-thinking",
        ),
        Change(
            "prefill",
            _("Assistant prefill"),
            _("End the request on a partial assistant message (such as {) to shape the output."),
            _(
                "Every 4.6 and later model rejects a request that ends on an assistant message; "
                "use structured outputs."
            ),
            _models.DOC_PREFILL,
            _models.CONFIRMED,
            _prefill,
        ),
        Change(
            "manual-thinking",
            _("Manual thinking (budget_tokens)"),
            _('Extended thinking is thinking {"type": "enabled", "budget_tokens": N}.'),
            _(
                "Manual thinking is deprecated on the 4.6 models and a 400 from Opus 4.7 on; use "
                'adaptive thinking ({"type": "adaptive"}) with output_config.effort.'
            ),
            _models.DOC_THINK_TROUBLE,
            _models.CONFIRMED,
            _manual,
            "thinking#budget",
        ),
        Change(
            "thinking-disabled",
            _("Turning thinking off"),
            _("Thinking is off unless you enable it; to turn it off, leave thinking out."),
            _(
                'thinking {"type": "disabled"} is a 400 on Opus 5.5, Sonnet 5.5 and Fable; Sonnet '
                '5.5 uses {"type": "between_tools"} instead.'
            ),
            f"{D}/models/sonnet-5-5/migration-guide",
            _models.CONFIRMED,
            _disabled,
        ),
        Change(
            "thinking-default",
            _("Thinking when the request says nothing"),
            _("No thinking unless the request asks for it."),
            _(
                "From Opus 5, Sonnet 5, Haiku 5.5 and Fable on, omitting thinking gives adaptive "
                "thinking."
            ),
            f"{D}/models/opus-5/migration-guide",
            _models.CONFIRMED,
            _default,
        ),
        Change(
            "thinking-display",
            _("Thinking text in the response"),
            _("Thinking blocks carry a summary of the reasoning; the final answer is the text."),
            _(
                'On newer models thinking.display defaults to "omitted": the block\'s text is '
                "empty but its signature is there, so pick blocks by type, not content[0]."
            ),
            f"{D}/build-with-claude/extended-thinking",
            _models.CONFIRMED,
            _display,
        ),
        Change(
            "thinking-binding",
            _("Thinking blocks bound to their conversation"),
            _(
                "Pass the latest turn's thinking blocks back unchanged; earlier ones may be "
                "dropped."
            ),
            # The beta's name is the catalogue's (models.BINDING_BETA), filled in where shown.
            _(
                "From Fable 5.1 on (and Opus 5.5, Sonnet 5.5, Haiku 5.5) a thinking block is "
                "bound to the model and to everything before it: changing system, tools or "
                "earlier messages is a 400 unless prefix_mismatch_behavior drop_block is set "
                "(beta %(beta)s)."
            ),
            _models.DOC_BOUND,
            _models.CONFIRMED,
            _binding,
            "thinking#preserve-blocks",
        ),
        Change(
            "thinking-toggle",
            _("Switching thinking on or off inside a tool loop"),
            _(
                "Toggling thinking in the middle of a tool loop is a 400 (the assistant message "
                "must start with a thinking block)."
            ),
            _(
                "Current docs (Graceful thinking degradation): no error; thinking is silently "
                "disabled for that request. Change the configuration only between turns."
            ),
            _models.DOC_EXTENDED,
            _models.CONFIRMED,
            _toggle,
            "thinking#toggling",
        ),
        Change(
            "prior-thinking-kept",
            _("Thinking from earlier turns"),
            _("The API strips thinking blocks of earlier turns from the context anyway."),
            _(
                "From Opus 4.5 on, earlier turns' thinking stays in context by default (billed as "
                "input); older models strip it."
            ),
            _models.DOC_EXTENDED,
            _models.CONFIRMED,
            _kept,
            "thinking#prior-turns",
        ),
        Change(
            "model-retirement",
            _("Model ids"),
            _("Examples use claude-sonnet-4-5, claude-opus-4-1 and their dated ids."),
            _(
                "Opus 4.1, Opus 4 and Sonnet 4 are retired; Sonnet 4.5's retirement date "
                "(2026-11-30) has passed; Opus 4.5 is deprecated (retires 2027-01-22)."
            ),
            _models.DOC_DEPRECATIONS,
            _models.CONFIRMED,
            _status,
            include_retired=True,
        ),
    ]
}
assert tuple(CHANGES) == CHANGE_IDS
