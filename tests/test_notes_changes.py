"""/notes/changes/'s sections are kept per language, URLconf, day and catalogue (notes/views.py
``_changes_body``): what is kept must be what a fresh rendering writes, and must not outlive
the day, a catalogue entry or a setting it was made with."""

from __future__ import annotations

import datetime
import re
import types

import pytest

from studyapp.agentloop import models
from studyapp.notes import views

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client, learner):
    """Signed in: the view renders every request (the anonymous page cache serves no one with a
    session)."""
    client.force_login(learner)
    return client


def _page(client, path: str = "/notes/changes/") -> str:
    html = client.get(path).content.decode()
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)  # new every request


def _fresh(client, path: str = "/notes/changes/") -> str:
    views._changes.clear()
    return _page(client, path)


@pytest.mark.parametrize("prefix", ["", "/pl", "/zh-hans", "/zh-hant"])
def test_the_kept_sections_are_the_fresh_ones_in_every_language(client, prefix):
    fresh = _fresh(client, prefix + "/notes/changes/")
    assert views._changes  # kept
    assert _page(client, prefix + "/notes/changes/") == fresh
    assert f'<a href="{prefix}/notes/">' in fresh
    english = _page(client)
    assert (english == fresh) == (prefix == ""), "a language's sections are its own"


def test_another_day_renders_the_sections_again(client, monkeypatch):
    today = _fresh(client)
    retiring = next(m for m in models.all_models() if m.status == "deprecated" and m.retires)
    assert retiring.retires > datetime.date.today()
    later = retiring.retires + datetime.timedelta(days=1)

    class Later(datetime.date):
        @classmethod
        def today(cls):
            return later

    moved = types.SimpleNamespace(**{**vars(datetime), "date": Later})
    monkeypatch.setattr(models, "dt", moved)
    monkeypatch.setattr(views, "dt", moved)
    after = _page(client)
    assert after != today and after == _fresh(client)


def test_a_catalogue_entry_replaced_renders_the_sections_again(client, monkeypatch):
    before = _fresh(client)
    sonnet = models.get_model("claude-sonnet-5-5")
    edited = models.replace(sonnet, forced_tool_choice=models.FORCED_OK)
    monkeypatch.setitem(models._BY_ID, "claude-sonnet-5-5", edited)
    after = _page(client)
    assert after != before and after == _fresh(client)


def test_a_setting_changed_forgets_the_kept_sections(client, settings):
    _fresh(client)
    assert views._changes
    settings.SHORT_DATE_FORMAT = "Y"
    assert not views._changes
