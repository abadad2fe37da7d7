"""Exam answer vs today's models, presented: one helper for every page that shows a CHANGES entry.

The notes callout (``[[today:<id>]]``), the question feedback line (``today: <id>``), the sandbox
decision panel and ``/notes/changes/`` all call these, so they say the same thing, generated from
``studyapp.agentloop.models`` each time (no copy of a per-model fact lives in a template).
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext

from studyapp.agentloop import models

from .i18n import t

MAIN_MODELS = ("claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5")


class UnknownChange(ValueError):
    """A ``today`` id that is not a key of models.CHANGES."""


def known_ids() -> tuple[str, ...]:
    return tuple(models.CHANGES)


def check_id(change_id: Any) -> str:
    if change_id not in models.CHANGES:
        raise UnknownChange(
            f"unknown today id {change_id!r}; use one of {', '.join(models.CHANGES)}"
        )
    return change_id


def change_context(change_id: str) -> dict[str, Any]:
    """Everything a template needs about one change: exam, today, per-model rows, source."""
    change = models.CHANGES[check_id(change_id)]
    return {
        "id": change.id,
        "title": t(change.title),
        "exam": t(change.exam),
        "today": today_text(change),
        "rows": change.rows(),
        "groups": grouped(change.id),
        "source": change.source,
        "label": change.label,
        "checked": change.checked,
        "notes_url": _notes_url(change.notes_anchor),
    }


#: The names a CHANGES text may hold as %(name)s (API names: never translated).
TEXT_PARAMS = {"beta": models.BINDING_BETA}


def today_text(change: Any) -> str:
    """A change's "today" words in the active language, its API names filled in."""
    text = t(change.today)
    return text % TEXT_PARAMS if "%(" in change.today else text


def _notes_url(anchor: str) -> str:
    if not anchor:
        return ""
    slug, _, fragment = anchor.partition("#")
    return reverse("notes:detail", args=[slug]) + (f"#{fragment}" if fragment else "")


def grouped(change_id: str) -> list[dict[str, Any]]:
    """The per-model lines, models with the same line together, in catalogue order."""
    out: dict[str, list[str]] = {}
    for row in models.CHANGES[check_id(change_id)].rows():
        out.setdefault(row["text"], []).append(row["model"])
    return [{"text": text, "models": ids} for text, ids in out.items()]


def feedback_line(change_id: str) -> str:
    """One sentence for a question's feedback: "On today's models: …" (the three current
    models; the changes page has every model)."""
    out: dict[str, list[str]] = {}
    for m in MAIN_MODELS:
        out.setdefault(models.per_model(check_id(change_id), m), []).append(m)
    parts = [f"{', '.join(ids)}: {text}" for text, ids in out.items()]
    return gettext("On today's models: %(lines)s.") % {"lines": "; ".join(parts)}


def callout_html(change_id: str) -> str:
    return render_to_string("_today_callout.html", {"c": change_context(change_id)})


def decision_rows(params: dict[str, Any], response: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows for the sandbox decision panel where the loop's next request depends on the model.

    ``params``: the request parameters of this turn (its model, tool_choice, thinking);
    ``response``: the turn's response. Each row: the change, this run's model's line, and the
    main current models' lines.
    """
    model = params.get("model")
    choice = params.get("tool_choice") if isinstance(params.get("tool_choice"), dict) else {}
    thinking = params.get("thinking") if isinstance(params.get("thinking"), dict) else {}
    content = response.get("content") if isinstance(response.get("content"), list) else []
    thinks = any(isinstance(b, dict) and b.get("type") == "thinking" for b in content)
    ids = []
    if choice.get("type") in ("any", "tool"):
        ids.append("forced-tool-choice")
    if thinking.get("type") == "enabled":
        ids.append("manual-thinking")
    if thinks and response.get("stop_reason") in ("tool_use", "pause_turn"):
        ids.append("thinking-binding")
    if thinks and any(b.get("thinking") == "" for b in content if isinstance(b, dict)):
        ids.append("thinking-display")
    rows = []
    for change_id in ids:
        change = models.CHANGES[change_id]
        rows.append(
            {
                "id": change_id,
                "title": t(change.title),
                "exam": t(change.exam),
                "this_model": model,
                "this_text": models.per_model(change_id, model)
                or gettext("rules unknown for this model"),
                "current": [
                    {"model": m, "text": models.per_model(change_id, m)} for m in MAIN_MODELS
                ],
            }
        )
    return rows
