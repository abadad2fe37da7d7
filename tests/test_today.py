"""Exam answer vs today's models: every surface is generated from the one model catalogue."""

import re
import textwrap

import pytest
from django.core.cache import cache

from core import today
from quizzes import bank, schema
from studyapp.agentloop import models

from .factories import question_yaml

pytestmark = pytest.mark.django_db


def surfaces(client, question):
    cache.clear()
    page = client.get("/notes/changes/").content.decode()
    section = page[page.index('id="forced-tool-choice"') : page.index('id="prefill"')]
    [page_row] = re.findall(
        r"<code>claude-sonnet-5-5</code></th><td>[^<]*</td><td>([^<]*)<span", section
    )
    callout = today.callout_html("forced-tool-choice")
    panel = client.get("/sandbox/tool-choice-any/steps/1/").content.decode()
    [panel_row] = re.findall(r"<code>claude-sonnet-5-5</code>: ([^;.<]*)", panel)
    client.post("/practice/", {"which": "all", "count": 5})
    from quizzes.models import Attempt

    attempt = Attempt.objects.latest("pk")
    right = next(o.key for o in question.options.all() if o.correct)
    feedback = client.post(f"/practice/{attempt.pk}/1/", {"choice": right}).content.decode()
    [feedback_row] = re.findall(r"claude-sonnet-5-5[^:]*: ([^;.<]*)", feedback)
    return {
        "page": page_row.strip(),
        "callout": "accepted" in callout.split("claude-sonnet-5-5")[1].split("</li>")[0],
        "panel": panel_row.strip(),
        "feedback": feedback_row.strip(),
    }


def test_changing_one_catalogue_entry_changes_every_surface(client, monkeypatch):
    text = "questions:\n" + question_yaml("single").replace(
        "    stem:", "    today: forced-tool-choice\n    stem:", 1
    )
    question = bank.save_question(schema.parse_text(textwrap.dedent(text)).questions[0])

    before = surfaces(client, question)
    assert before == {
        "page": "400 error",
        "callout": False,
        "panel": "400 error",
        "feedback": "400 error",
    }

    edited = models.replace(
        models.get_model("claude-sonnet-5-5"), forced_tool_choice=models.FORCED_OK
    )
    monkeypatch.setitem(models._BY_ID, "claude-sonnet-5-5", edited)
    after = surfaces(client, question)
    accepted = "accepted (with adaptive thinking, thinking is skipped)"
    assert after == {"page": accepted, "callout": True, "panel": accepted, "feedback": accepted}


def test_the_decision_panel_shows_the_runs_own_model_next_to_todays(client):
    html = client.get("/sandbox/tool-choice-any/steps/1/").content.decode()
    assert "Depends on the model: Forced tool_choice" in html
    assert "(<code>claude-sonnet-4-5</code>): accepted, but not with manual thinking" in html
    plain = client.get("/sandbox/refund-25-days/steps/1/").content.decode()
    assert "Depends on the model" not in plain  # auto tool_choice, no thinking: nothing to say


def test_thinking_in_a_tool_loop_shows_the_binding_row(client):
    html = client.get("/sandbox/thinking-tool-loop/steps/1/").content.decode()
    assert "Depends on the model: Thinking blocks bound to their conversation" in html
    assert "Depends on the model: Manual thinking (budget_tokens)" in html


def test_an_unknown_id_is_refused_by_the_helpers():
    with pytest.raises(today.UnknownChange, match="unknown today id 'nope'"):
        today.feedback_line("nope")
