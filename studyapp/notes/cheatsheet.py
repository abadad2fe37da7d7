"""The printable one-page cheat sheet: its tables come from the agentloop catalogues."""

from __future__ import annotations

import json

from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from core import i18n
from core.rendering import render_inline
from studyapp.agentloop import runner

from .diagrams import GUARD_WORDS

#: Rules of the message shapes (facts.md §3), each pointing at the note that teaches it.
SHAPE_RULES = [
    (gettext_noop("Append the assistant `content` unchanged, then one user message with "
                  "every `tool_result` (one per `tool_use`, matched by `tool_use_id`)."),
     "tool-results#message-shapes"),
    (gettext_noop("`tool_result` blocks come first in that user message; text before them is "
                  "a 400."),
     "tool-results#ordering-rules"),
    (gettext_noop("Parallel calls: all results in ONE user message; split messages teach Claude "
                  "to stop calling in parallel."),
     "parallel#one-message"),
    (gettext_noop("A failed or skipped call still gets a `tool_result`, with `is_error: true`."),
     "errors#is-error"),
    (gettext_noop("`pause_turn`: send the paused content back as is, same tools, no “Continue” "
                  "message."),
     "server-tools#pause-turn"),
    (gettext_noop("Thinking blocks of the turn in progress go back complete and unmodified."),
     "thinking#preserve-blocks"),
]  # fmt: skip


def context() -> dict:
    reasons = [
        {
            "value": r.value,
            "continues": r.continues,
            "action": gettext(r.next_action.label),
            "alternate": (
                gettext("if %(when)s: %(action)s")
                % {
                    "when": gettext(r.alternate_when),
                    "action": gettext(i18n.next_actions()[r.alternate_action].label),
                }
                if r.alternate_action
                else ""
            ),
        }
        for r in i18n.stop_reasons().values()
    ]
    modes = [
        {
            "json": json.dumps(m.example),
            "meaning": render_inline(gettext(m.meaning)),
            "parallel": render_inline(gettext(m.disable_parallel_means)),
            "default": render_inline(gettext(m.default_when)),
        }
        for m in i18n.tool_choice_modes().values()
    ]
    defaults = runner.Guards()
    guards = [
        {"name": gettext(GUARD_WORDS[f]), "field": f, "default": getattr(defaults, f)}
        for f in runner.Guards.__dataclass_fields__
    ]
    rules = []
    for text, ref in SHAPE_RULES:
        slug, _, anchor = ref.partition("#")
        url = reverse("notes:detail", args=[slug])  # in the page's language
        rules.append({"html": render_inline(gettext(text)), "url": f"{url}#{anchor}"})
    return {"reasons": reasons, "modes": modes, "guards": guards, "rules": rules}
