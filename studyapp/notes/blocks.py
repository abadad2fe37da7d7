"""HTML blocks generated from the agentloop catalogues, for the [[...]] markers in notes."""

from __future__ import annotations

import json
from functools import partial

from django.template.loader import render_to_string
from django.utils.html import escape

from studyapp import today
from studyapp.agentloop import catalogue, models


def stop_reason_table() -> str:
    return render_to_string(
        "notes/_stop_reason_table.html",
        {"reasons": catalogue.STOP_REASONS.values(), "actions": catalogue.NEXT_ACTIONS},
    )


def tool_choice_table() -> str:
    modes = [
        {"mode": m, "json": json.dumps(m.example)} for m in catalogue.TOOL_CHOICE_MODES.values()
    ]
    return render_to_string(
        "notes/_tool_choice_table.html",
        {"modes": modes, "sources": catalogue.TOOL_CHOICE_SOURCES},
    )


def next_action_list() -> str:
    actions = [catalogue.NEXT_ACTIONS[c] for c in catalogue.CANONICAL_ACTIONS]
    return render_to_string("notes/_next_actions.html", {"actions": actions})


def stop_reason_diagram() -> str:
    """An SVG state diagram of one loop step, with the same facts as a text list beside it."""
    reasons = list(catalogue.STOP_REASONS.values())
    row_h, top, width = 54, 70, 760
    height = top + row_h * len(reasons) + 20
    parts = [
        f'<svg class="diagram" viewBox="0 0 {width} {height}" role="img" '
        'aria-labelledby="sr-diagram-title sr-diagram-desc" xmlns="http://www.w3.org/2000/svg">',
        '<title id="sr-diagram-title">What the loop does after each stop_reason</title>',
        '<desc id="sr-diagram-desc">The application calls the Messages API, reads stop_reason, '
        "and either calls again (tool_use, pause_turn) or leaves the loop (the other five). "
        "The list below the diagram says the same in words.</desc>",
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'class="d-arrowhead"/></marker></defs>',
        f'<rect class="d-box d-start" x="10" y="{top + 2 * row_h}" width="170" height="70" '
        'rx="8"/>',
        f'<text class="d-label" x="95" y="{top + 2 * row_h + 30}" text-anchor="middle">'
        "Call the</text>",
        f'<text class="d-label" x="95" y="{top + 2 * row_h + 50}" text-anchor="middle">'
        "Messages API</text>",
        '<text class="d-head" x="300" y="40" text-anchor="middle">stop_reason</text>',
        '<text class="d-head" x="560" y="40" text-anchor="middle">next action</text>',
    ]
    for i, r in enumerate(reasons):
        y = top + i * row_h
        cls = "d-continue" if r.continues else "d-exit"
        parts += [
            f'<path class="d-edge" d="M180,{top + 2 * row_h + 35} C220,{top + 2 * row_h + 35} '
            f'190,{y + 20} 225,{y + 20}" marker-end="url(#arrow)"/>',
            f'<rect class="d-box {cls}" x="228" y="{y}" width="150" height="40" rx="6"/>',
            f'<text class="d-code" x="303" y="{y + 25}" text-anchor="middle">'
            f"{escape(r.value)}</text>",
            f'<path class="d-edge" d="M378,{y + 20} L418,{y + 20}" marker-end="url(#arrow)"/>',
            f'<rect class="d-box {cls}" x="420" y="{y}" width="330" height="40" rx="6"/>',
            f'<text class="d-small" x="585" y="{y + 25}" text-anchor="middle">'
            f"{escape(r.next_action.label[:52])}</text>",
        ]
        if r.continues:
            parts.append(
                f'<path class="d-edge d-loop" d="M750,{y + 20} C790,{y + 20} 790,{height - 8} '
                f'95,{height - 8} L95,{top + 2 * row_h + 72}" marker-end="url(#arrow)"/>'
            )
    parts.append("</svg>")
    items = "".join(
        f"<li><code>{escape(r.value)}</code>: "
        f"{'call again' if r.continues else 'leave the loop'}: {escape(r.next_action.label)}</li>"
        for r in reasons
    )
    return (
        '<figure class="diagram-figure">'
        + "".join(parts)
        + "<figcaption>One step of the loop. Teal boxes call the API again; grey boxes leave "
        "the loop.<details><summary>The diagram in words</summary><ul>"
        + items
        + "</ul></details></figcaption></figure>"
    )


BLOCKS = {
    "catalogue:stop-reasons": stop_reason_table,
    "catalogue:tool-choice": tool_choice_table,
    "catalogue:next-actions": next_action_list,
    "diagram:stop-reasons": stop_reason_diagram,
    # [[today:<id>]]: the exam's answer and each current model, from models.CHANGES
    **{f"today:{cid}": partial(today.callout_html, cid) for cid in models.CHANGES},
}
