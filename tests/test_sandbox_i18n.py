"""The sandbox library in the learner's language: titles, summaries and teaching notes.

Translations live in content/transcripts/<lang>/<slug>.yaml; the English JSON stays the loop.
"""

import json
from pathlib import Path

import pytest
import yaml
from django.core import checks
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from studyapp import pagecache
from studyapp.sandbox.library import library

#: the safe loader with libyaml's C parser, as the app reads these files
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

pytestmark = pytest.mark.django_db

CONTENT = Path(__file__).resolve().parents[1] / "content"
SLUG = "refund-25-days"


def _translation(lang: str, slug: str = SLUG) -> dict:
    path = CONTENT / "transcripts" / lang / f"{slug}.yaml"
    return yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)  # noqa: S506


def _english(slug: str = SLUG) -> dict:
    return json.loads((CONTENT / "transcripts" / f"{slug}.json").read_text(encoding="utf-8"))


def _get(client, lang: str, name: str, *args) -> str:
    # reverse() inside the override: /pl/... once the URLs carry a language prefix, /... before.
    # Until LocaleMiddleware sets request.LANGUAGE_CODE the page cache keys every unprefixed URL
    # as English, so each request here starts from an empty cache.
    for cache in caches.all():
        cache.clear()
    pagecache.reset_local()
    with translation.override(lang):
        response = client.get(reverse(name, args=args))
        assert response.status_code == 200
        return response.content.decode()


@pytest.fixture
def own_content(tmp_path, settings):
    """A content folder whose transcripts/<lang>/ files the test writes itself."""
    for entry in CONTENT.iterdir():
        if entry.name != "transcripts":
            (tmp_path / entry.name).symlink_to(entry)
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    for path in (CONTENT / "transcripts").glob("*.json"):
        (transcripts / path.name).symlink_to(path)
    (transcripts / "pl").mkdir()
    settings.CONTENT_DIR = tmp_path
    return transcripts


@pytest.mark.parametrize("lang", ["pl", "zh-hans", "zh-hant"])
def test_the_library_index_shows_translated_titles_and_summaries(client, lang):
    html = _get(client, lang, "sandbox:index")
    mine, english = _translation(lang), _english()
    assert escape(mine["title"]) in html and escape(mine["summary"]) in html
    assert escape(english["title"]) not in html
    with translation.override(lang):
        assert f'href="{reverse("sandbox:steps", args=[SLUG, 1])}"' in html


@pytest.mark.parametrize("lang", ["pl", "zh-hans"])
def test_a_step_page_shows_the_translated_title_summary_and_note(client, lang):
    mine, english = _translation(lang), _english()
    html = _get(client, lang, "sandbox:steps", SLUG, 3)
    assert escape(mine["title"]) in html and escape(mine["summary"]) in html
    assert escape(mine["notes"][2]) in html
    assert escape(english["turns"][2]["note"]) not in html
    # the loop itself is the English transcript's, untouched: same stop_reason, same tool names
    assert 'stop_reason: "tool_use"' in html and "process_refund" in html


def test_english_is_unchanged_without_a_language(client):
    english = _english()
    html = client.get(f"/sandbox/{SLUG}/steps/1/").content.decode()
    assert escape(english["title"]) in html and escape(english["turns"][0]["note"]) in html


def test_the_predict_page_shows_the_translated_note_and_grades_as_before(client):
    mine = _translation("pl")
    with translation.override("pl"):
        url = reverse("sandbox:predict", args=[SLUG, 1])
        page = client.get(url).content.decode()
        assert "<form" in page
        answered = client.post(url, {"action": "run_tools"}).content.decode()
    assert escape(mine["notes"][0]) in answered
    assert library().get(SLUG).transcript.turns[0].action == "run_tools"


def test_an_untranslated_field_falls_back_to_english(client, own_content):
    english = _english()
    (own_content / "pl" / f"{SLUG}.yaml").write_text(
        yaml.safe_dump(
            {
                "lang": "pl",
                "slug": SLUG,
                "title": "Zwrot w oknie (test)",
                "notes": [None, "Notatka po polsku (test).", None, None],
            },
            allow_unicode=True,
        ),
        encoding="utf-8",
    )
    assert library().translation_problems() == []
    step1 = _get(client, "pl", "sandbox:steps", SLUG, 1)
    assert "Zwrot w oknie (test)" in step1
    assert escape(english["summary"]) in step1  # no summary in the file: English
    assert escape(english["turns"][0]["note"]) in step1  # a null slot: English
    # English shown on a Polish page says so, for screen readers; translated text does not
    assert f'lang="en"><p>{escape(english["turns"][0]["note"])}' in step1
    assert f'<p class="lead" lang="en">{escape(english["summary"])}' in step1
    assert "<h1>Zwrot w oknie (test)</h1>" in step1
    step2 = _get(client, "pl", "sandbox:steps", SLUG, 2)
    assert "<p>Notatka po polsku (test)." in step2
    assert 'lang="en"><p>Notatka' not in step2
    assert "Notatka po polsku (test)." not in _get(client, "zh-hant", "sandbox:steps", SLUG, 2)


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        (f"{SLUG}.yaml", "lang: pl\nslug: [unclosed\n", "while parsing"),
        (f"{SLUG}.yaml", "lang: pl\nslug: refund-25-days\nnotes: [a, b]\n", "notes has 2 entries"),
        (f"{SLUG}.yaml", "lang: pl\nslug: refund-25-days\nstop_reason: x\n", "unknown key"),
        (f"{SLUG}.yaml", "lang: de\nslug: refund-25-days\n", "lang is 'de'"),
        ("no-such-run.yaml", "lang: pl\nslug: no-such-run\n", "no English transcript"),
    ],
)
def test_a_broken_translation_is_reported_by_the_check_and_ignored(
    client, own_content, name, text, reason
):
    (own_content / "pl" / name).write_text(text, encoding="utf-8")
    messages = [m for m in checks.run_checks(tags=["content"]) if m.id == "sandbox.W001"]
    assert len(messages) == 1, messages
    assert f"transcripts/pl/{name}:" in messages[0].msg and reason in messages[0].msg
    english = _english()
    html = _get(client, "pl", "sandbox:steps", SLUG, 1)  # still a page, in English
    assert escape(english["title"]) in html and escape(english["turns"][0]["note"]) in html
    assert escape(english["title"]) in _get(client, "pl", "sandbox:index")


def test_a_translation_of_the_title_alone_passes_the_check_and_shows(client, own_content):
    """No notes key: every turn's note stays English. The check (which reads the English runs'
    outlines) and the pages (which parse them) agree."""
    (own_content / "pl" / f"{SLUG}.yaml").write_text(
        "lang: pl\nslug: refund-25-days\ntitle: Tylko tytuł (test)\n", encoding="utf-8"
    )
    assert [m for m in checks.run_checks(tags=["content"]) if m.id == "sandbox.W001"] == []
    assert library().translation_problems() == []
    html = _get(client, "pl", "sandbox:steps", SLUG, 1)
    assert "Tylko tytuł (test)" in html and escape(_english()["turns"][0]["note"]) in html


def test_the_shipped_translations_pass_the_library_check():
    assert library().translation_problems() == []
    run = library().get(SLUG)
    assert set(run.translations) == {"pl", "zh-hans", "zh-hant"}


def test_a_step_page_costs_the_same_queries_in_every_language(client, django_assert_num_queries):
    with CaptureQueriesContext(connection) as english:
        _get(client, "en", "sandbox:steps", SLUG, 3)
    for lang in ("pl", "zh-hans", "zh-hant"):
        with django_assert_num_queries(len(english.captured_queries)):
            _get(client, lang, "sandbox:steps", SLUG, 3)
