"""/notes/changes/'s sections are kept per language, URLconf, day and catalogue (notes/views.py
``_changes_body``): what is kept must be what a fresh rendering writes, and must not outlive
the day, a catalogue entry or a setting it was made with."""

from __future__ import annotations

import datetime
import types

from django.template.loader import render_to_string
from django.utils import translation

from core import today
from studyapp.agentloop import models
from studyapp.notes import views


def _fresh() -> str:
    rows = [today.change_context(cid) for cid in today.known_ids()]
    return render_to_string("notes/_changes_body.html", {"changes": rows})


def test_the_kept_sections_are_the_fresh_ones_per_language():
    views._changes.clear()
    kept = {}
    for lang in ("en", "zh-hans"):
        with translation.override(lang):
            first = views._changes_body()
            assert views._changes_body() is first and first == _fresh()
            kept[lang] = first
    assert kept["en"] != kept["zh-hans"] and 'href="/zh-hans/notes/"' in kept["zh-hans"]
    assert len(views._changes) == 2


def test_another_day_a_catalogue_entry_or_a_setting_renders_them_again(monkeypatch, settings):
    views._changes.clear()
    before = views._changes_body()
    # another day: a model past its retirement date leaves the tables
    retiring = next(m for m in models.all_models() if m.status == "deprecated" and m.retires)
    assert retiring.retires > datetime.date.today()
    later = retiring.retires + datetime.timedelta(days=1)

    class Later(datetime.date):
        @classmethod
        def today(cls):
            return later

    moved = types.SimpleNamespace(**{**vars(datetime), "date": Later})
    with monkeypatch.context() as m:
        m.setattr(models, "dt", moved)
        m.setattr(views, "dt", moved)
        assert views._changes_body() != before
    assert views._changes_body() is before  # today again
    # a catalogue entry replaced
    sonnet = models.get_model("claude-sonnet-5-5")
    edited = models.replace(sonnet, forced_tool_choice=models.FORCED_OK)
    with monkeypatch.context() as m:
        m.setitem(models._BY_ID, "claude-sonnet-5-5", edited)
        assert views._changes_body() != before
    # a setting changed: nothing kept
    settings.SHORT_DATE_FORMAT = "Y"
    assert not views._changes
