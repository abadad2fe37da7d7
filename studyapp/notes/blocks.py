"""HTML blocks generated from the agentloop catalogues, for the [[...]] markers in notes."""

from __future__ import annotations

import json
from functools import partial

from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from core import i18n, today
from core.rendering import render_inline
from studyapp.agentloop import catalogue, models

from . import diagrams


def stop_reason_table() -> str:
    # A long value such as model_context_window_exceeded may break after its underscores.
    breaks = {v: mark_safe(escape(v).replace("_", "_<wbr>")) for v in catalogue.STOP_REASONS}
    return render_to_string(
        "notes/_stop_reason_table.html",
        {
            # the catalogue's words in the note's language (core.i18n), its values verbatim
            "reasons": i18n.stop_reasons().values(),
            "actions": i18n.next_actions(),
            "breaks": breaks,
        },
    )


def tool_choice_table() -> str:
    # The catalogue's texts may carry `code` in Markdown: render it rather than print backticks.
    modes = [
        {
            "mode": m,
            "json": json.dumps(m.example),
            "meaning": render_inline(gettext(m.meaning)),
            "disable_parallel_means": render_inline(gettext(m.disable_parallel_means)),
            "default_when": render_inline(gettext(m.default_when)),
            "with_extended_thinking": render_inline(gettext(m.with_extended_thinking)),
        }
        for m in i18n.tool_choice_modes().values()
    ]
    sources = [
        {"url": url, "title": SOURCE_TITLES.get(url, url)} for url in catalogue.TOOL_CHOICE_SOURCES
    ]
    return render_to_string("notes/_tool_choice_table.html", {"modes": modes, "sources": sources})


#: Page titles for the catalogue's source links, so a sources line never prints raw URLs.
SOURCE_TITLES = {
    catalogue.DOC_STOP: "Stop reasons and fallback",
    catalogue.DOC_HANDLE: "Handle tool calls",
    catalogue.DOC_DEFINE: "Define tools",
    catalogue.DOC_TOOL_2025: "How to implement tool use (2025)",
    catalogue.DOC_REFUSAL: "Handle streaming refusals",
    catalogue.DOC_THINK: "Extended thinking",
    catalogue.SDK_STOP_REASON: "anthropic-sdk-python: stop_reason.py",
    catalogue.SDK_TOOL_CHOICE: "anthropic-sdk-python: tool_choice_param.py",
}


def next_action_list() -> str:
    actions = [i18n.next_actions()[c] for c in catalogue.CANONICAL_ACTIONS]
    return render_to_string("notes/_next_actions.html", {"actions": actions})


def stop_reason_diagram() -> str:
    """The stop_reason state diagram (SVG with a text alternative), laid out in diagrams.py."""
    return diagrams.render("stop-reasons")


BLOCKS = {
    "catalogue:stop-reasons": stop_reason_table,
    "catalogue:tool-choice": tool_choice_table,
    "catalogue:next-actions": next_action_list,
    "diagram:stop-reasons": stop_reason_diagram,
    # [[today:<id>]]: the exam's answer and each current model, from models.CHANGES
    **{f"today:{cid}": partial(today.callout_html, cid) for cid in models.CHANGES},
}

# The other generated diagrams (studyapp/notes/diagrams.py), one marker each.
for _name in ("round-trips", "parallel-results", "thinking-carried", "guards"):
    BLOCKS[f"diagram:{_name}"] = lambda _name=_name: diagrams.render(_name)
