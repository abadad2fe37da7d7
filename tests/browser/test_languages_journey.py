"""A learner switches zh-Hans -> pl -> en on a note, a practice question and a sandbox step,
staying in the same place, with 0 axe violations in every language.

Uses the repository's translations once content/notes/zh-hans and content/notes/pl exist; until
then the fixture translations of tests/fixtures/i18n (a note and two questions)."""

import re
import shutil
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.factories import load_real_bank, load_real_translations
from tests.i18n_content import FIXTURE, ROOT

pytestmark = pytest.mark.django_db(transaction=True)

REAL = ROOT / "content"
ORDER = [("zh-hans", "zh-Hans", "/zh-hans"), ("pl", "pl", "/pl"), ("en", "en", "")]


def _has_real_translations() -> bool:
    return all(any((REAL / "notes" / lang).glob("*.md")) for lang in ("zh-hans", "pl"))


@pytest.fixture
def content(tmp_path, settings):
    """The content the journey reads: (note slug, an anchor in it)."""
    if _has_real_translations():
        settings.CONTENT_DIR = REAL
        # What loadcontent writes (tests/test_factories.py compares the rows), the YAML, checks
        # and Markdown run once per session; the notes are read from their files as ever.
        load_real_bank()
        load_real_translations()
    else:  # the real notes and loops, with the fixture's note and its two questions only
        target = tmp_path / "content"
        shutil.copytree(REAL, target, ignore=shutil.ignore_patterns("questions"))
        shutil.copytree(FIXTURE / "questions", target / "questions")
        for lang in ("en", "zh-hans", "pl"):
            (target / "notes" / lang).mkdir(parents=True, exist_ok=True)
            shutil.copy(FIXTURE / "notes" / lang / "01-mini.md", target / "notes" / lang)
        settings.CONTENT_DIR = target
        call_command("loadcontent", stdout=StringIO(), stderr=StringIO())
    from studyapp.notes.loader import library, notes_in

    translated = set(notes_in("zh-hans")) & {s for s, n in notes_in("pl").items() if n.lang == "pl"}
    slug = next(
        s for s, n in notes_in("zh-hans").items() if n.lang == "zh-hans" and s in translated
    )
    return slug, library().notes()[slug].toc[0]["id"]  # its first section


def _switch(page, tag):
    page.locator(f'.language-switcher a[hreflang="{tag}"]').click()
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", tag)


# Switching languages keeps the place: on a note, a practice question and a sandbox step (three
# tests, so that pytest-xdist can run them side by side).


def test_switching_languages_keeps_the_section_of_a_note(
    page, live_server, content, assert_accessible
):
    slug, anchor = content
    base = live_server.url

    # A note, at a section: the #anchor survives each switch.
    page.goto(f"{base}/zh-hans/notes/{slug}/#{anchor}")
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    assert_accessible(page, "lang-note-zh-hans")
    for code, tag, prefix in ORDER[1:]:
        _switch(page, tag)
        expect(page).to_have_url(f"{base}{prefix}/notes/{slug}/#{anchor}")
        expect(page.locator(f"#{anchor}")).to_be_attached()
        assert_accessible(page, f"lang-note-{code}")


def test_switching_languages_keeps_the_attempt_and_position_of_a_practice_question(
    page, live_server, content, assert_accessible
):
    base = live_server.url

    # A practice question: the same attempt and position in each language.
    page.goto(f"{base}/practice/")
    page.locator("main form button[type=submit]").first.click()
    page.wait_for_url(re.compile(r".*/practice/\d+/1/$"))
    path = page.url.removeprefix(base)
    page.goto(f"{base}/zh-hans{path}")
    stems = {}
    assert_accessible(page, "lang-practice-zh-hans")
    stems["zh-hans"] = page.locator(".stem").inner_text()
    for code, tag, prefix in ORDER[1:]:
        _switch(page, tag)
        expect(page).to_have_url(f"{base}{prefix}{path}")
        stems[code] = page.locator(".stem").inner_text()
        assert_accessible(page, f"lang-practice-{code}")
    from quizzes.models import QuestionTranslation, Response

    pk = int(path.split("/")[2])
    question = Response.objects.get(attempt_id=pk, position=1).question_id
    current = set(
        QuestionTranslation.objects.filter(question_id=question, is_stale=False).values_list(
            "lang", flat=True
        )
    )
    assert _has_real_translations() or current == {"zh-hans", "pl"}
    for code in ("zh-hans", "pl"):
        if code in current:  # the fixture's questions always are; the real bank's should be
            assert stems[code] != stems["en"], code


def test_switching_languages_keeps_a_sandbox_step_htmx_moved_to(
    page, live_server, content, assert_accessible
):
    base = live_server.url

    # A sandbox step that htmx moved on: the switcher follows the address bar.
    page.goto(f"{base}/zh-hans/sandbox/refund-25-days/steps/2/")
    page.locator("#stepper").focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(f"{base}/zh-hans/sandbox/refund-25-days/steps/3/")
    assert_accessible(page, "lang-step-zh-hans")
    for code, tag, prefix in ORDER[1:]:
        _switch(page, tag)
        expect(page).to_have_url(f"{base}{prefix}/sandbox/refund-25-days/steps/3/")
        assert_accessible(page, f"lang-step-{code}")


def test_every_language_fits_a_phone(browser, live_server, content):
    slug, _ = content
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    for _code, _tag, prefix in ORDER:
        for path in (f"/notes/{slug}/", "/sandbox/refund-25-days/steps/2/", "/glossary/"):
            page.goto(f"{live_server.url}{prefix}{path}")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, (prefix, path, width)
    context.close()
