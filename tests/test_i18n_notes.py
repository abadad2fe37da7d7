"""Notes in four languages, and the translation team's structure check."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from studyapp import i18n_check
from studyapp.notes import structure
from studyapp.notes.loader import notes_in

from .i18n_content import FIXTURE, ROOT, copy_fixture

#: The notice's own marker: its words are translated like every interface string.
FALLBACK = 'class="fallback-notice"'
FALLBACK_TEXT = (
    "This note has not been translated into your language yet, so it is shown in English."
)


@pytest.fixture
def content(tmp_path, settings):
    settings.CONTENT_DIR = copy_fixture(tmp_path)
    return settings.CONTENT_DIR


@pytest.mark.django_db
def test_a_translated_note_is_served_in_its_language_with_the_same_anchors(client, content):
    pages = {
        p: client.get(f"{p}/notes/mini-loop/").content.decode() for p in ("", "/pl", "/zh-hans")
    }
    assert '<h1 id="note-title">When the loop stops</h1>' in pages[""]
    assert "Kiedy pętla się kończy" in pages["/pl"] and "循环何时结束" in pages["/zh-hans"]
    for html in pages.values():
        assert 'id="when-it-stops"' in html and 'id="safety-net"' in html
        assert FALLBACK not in html
        assert "run_tools" in html and "max_tokens" in html  # the code block


@pytest.mark.django_db
def test_an_untranslated_note_falls_back_to_english_with_a_notice(client, content):
    html = client.get("/zh-hant/notes/mini-loop/").content.decode()
    assert '<html lang="zh-Hant"' in html
    assert "When the loop stops" in html and FALLBACK in html
    with translation.override("zh-hant"):
        assert translation.gettext(FALLBACK_TEXT) != FALLBACK_TEXT  # the notice speaks Chinese
        assert translation.gettext(FALLBACK_TEXT) in html
    assert '<div lang="en">' in html  # the body is marked as English for screen readers


@pytest.mark.django_db
def test_the_note_index_search_and_glossary_speak_the_page_language(client, content):
    assert "Kiedy pętla się kończy" in client.get("/pl/notes/").content.decode()
    hits = client.get("/pl/notes/search/?q=zabezpieczenie").content.decode()
    assert 'href="/pl/notes/mini-loop/#safety-net"' in hits
    han = client.get("/zh-hans/notes/search/?q=安全网").content.decode()
    assert 'href="/zh-hans/notes/mini-loop/#safety-net"' in han
    english_only = client.get("/notes/search/?q=zabezpieczenie").content.decode()
    assert "mini-loop" not in english_only
    glossary = client.get("/pl/glossary/").content.decode()
    assert "pętla agenta" in glossary and "Kod aplikacji" in glossary
    assert 'href="/pl/notes/mini-loop/#when-it-stops"' in glossary
    # zh-hans has no glossary file: the English definitions, marked as English.
    assert '<dd lang="en">Application code' in client.get("/zh-hans/glossary/").content.decode()


@pytest.mark.django_db
def test_generated_blocks_are_rendered_in_the_note_language(client, content, monkeypatch):
    from django.utils import translation

    from studyapp.notes import blocks

    # Whatever a [[...]] block says goes through gettext in the language of the note it is in.
    monkeypatch.setitem(
        blocks.BLOCKS,
        "catalogue:next-actions",
        lambda: f"<p>block-{translation.get_language()}</p>",
    )
    assert "<p>block-pl</p>" in client.get("/pl/notes/mini-loop/").content.decode()
    assert "<p>block-zh-hans</p>" in client.get("/zh-hans/notes/mini-loop/").content.decode()
    assert "<p>block-en</p>" in client.get("/notes/mini-loop/").content.decode()


def test_the_fixture_translations_pass_the_structure_check():
    report = i18n_check.check(FIXTURE)
    assert report.problems == [] and report.stale == []
    assert report.checked == {"glossaries": 1, "notes": 2, "questions": 4}


def test_the_repository_translations_pass_the_structure_check():
    """Runs over content/ as it is: the translators' files, once they are merged."""
    report = i18n_check.check(ROOT / "content")
    assert report.problems == []


def english_note() -> str:
    return (FIXTURE / "notes" / "en" / "01-mini.md").read_text()


def polish_note() -> str:
    return (FIXTURE / "notes" / "pl" / "01-mini.md").read_text()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda t: t.replace("{#safety-net}", "{#zabezpieczenie}"), "heading anchors differ"),
        (lambda t: t.replace("max_tokens=1024", "max_tokens=2048"), "code block 1"),
        (lambda t: t.replace("| `end_turn` | kończy pracę i używa odpowiedzi |\n", ""), "table 1"),
        (lambda t: t.replace("| `tool_use` |", "| tool_use |", 1), "code cell"),
        (lambda t: t.replace("[[catalogue:next-actions]]", ""), "markers differ"),
        (lambda t: t.replace('title: "Handle tool calls"', 'title: "Obsługa"'), "sources"),
        (lambda t: t.replace("order: 1", "order: 2"), "order"),
        (lambda t: t + "\nZobacz [dokumentację](https://example.com/).\n", "links or images"),
    ],
)
def test_the_structure_check_names_what_a_translation_broke(change, problem):
    broken = change(polish_note())
    assert broken != polish_note()
    problems = structure.compare_notes(english_note(), broken)
    assert any(problem in p for p in problems), problems


def test_a_heading_inside_a_code_block_is_not_an_anchor():
    body = "## Real {#real}\n\n```md\n## Not a heading {#fake}\n```\n"
    assert structure.skeleton(body).anchors == ["real"]


def test_stamps_mark_translations_fresh_and_an_english_change_stale(content):
    call_command("translations", "--stamp", stdout=StringIO())
    assert i18n_check.check(content).stale == []
    english = content / "notes" / "en" / "01-mini.md"
    english.write_text(english.read_text().replace("only as a safety net", "only as a net"))
    stale = i18n_check.check(content).stale
    assert stale == [
        "notes/zh-hans/01-mini.md: English changed",
        "notes/pl/01-mini.md: English changed",
    ] or sorted(stale) == sorted(
        ["notes/zh-hans/01-mini.md: English changed", "notes/pl/01-mini.md: English changed"]
    )


@pytest.mark.django_db
def test_a_stale_note_translation_says_so_and_links_the_english(client, content):
    english = content / "notes" / "en" / "01-mini.md"
    english.write_text(english.read_text().replace("only as a safety net", "only as a net"))
    html = client.get("/pl/notes/mini-loop/").content.decode()
    assert "The English note has changed" in html or "zmienił" in html
    assert re.search(r'<a href="/notes/mini-loop/" lang="en"', html)
    assert not notes_in("en")["mini-loop"].stale


def test_translations_check_exits_non_zero_on_a_problem(content):
    path = content / "notes" / "pl" / "01-mini.md"
    path.write_text(path.read_text().replace("{#safety-net}", "{#inne}"))
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("translations", "--check", stdout=StringIO(), stderr=err)
    assert (
        "notes/pl/01-mini.md: heading anchors differ from English: missing #safety-net"
        in err.getvalue()
    )


def test_the_catalogue_speaks_the_page_language_through_gettext(monkeypatch):
    from django.utils import translation

    from core import i18n
    from studyapp.notes import blocks

    monkeypatch.setattr(i18n, "gettext", lambda s: f"«{s}»")
    monkeypatch.setattr(i18n, "_catalogues", {})
    with translation.override("pl"):
        html = blocks.next_action_list() + blocks.stop_reason_table()
        reason = i18n.stop_reasons()["tool_use"]
    assert "«Run the tools, send every result in one message»" in html
    assert reason.value == "tool_use" and reason.next_action.code == "run_tools"  # codes stay
    assert reason.meaning.startswith("«")
    assert "«tool_use»" not in html  # values are never translated


def test_diagram_labels_wrap_chinese_between_characters():
    from studyapp.notes import diagrams

    text = "运行工具，并把所有结果放在同一条用户消息中发回。" * 2
    lines = diagrams.wrap(text, 120, 12)
    assert len(lines) > 1 and "".join(lines) == text
    assert all(diagrams.text_width(line, 12) <= 120 for line in lines)
    assert not any(line.startswith(("，", "。")) for line in lines)  # no line opens on a comma
    assert diagrams.wrap("stop_reason is tool_use", 400, 12) == ["stop_reason is tool_use"]


@pytest.mark.django_db
def test_check_yourself_questions_speak_the_note_language(client, content):
    call_command("loadcontent", stdout=StringIO(), stderr=StringIO())
    polish = client.get("/pl/notes/mini-loop/").content.decode()
    assert "Co pętla robi dalej?" in polish
    english = client.get("/notes/mini-loop/").content.decode()
    assert "What does the loop do next?" in english and "Co pętla" not in english


@pytest.mark.django_db
def test_the_index_marks_an_english_stand_in_as_english(client, content):
    assert '<li lang="en">' in client.get("/zh-hant/notes/").content.decode()
    assert '<li lang="en">' not in client.get("/pl/notes/").content.decode()


@pytest.mark.django_db
def test_a_broken_translated_note_falls_back_to_english_instead_of_an_error(client, content):
    (content / "notes" / "pl" / "01-mini.md").write_text("no front matter\n")
    response = client.get("/pl/notes/mini-loop/")
    assert response.status_code == 200 and FALLBACK in response.content.decode()
    with pytest.raises(CommandError):
        call_command("loadcontent", stdout=StringIO(), stderr=StringIO())


@pytest.mark.django_db
def test_a_broken_glossary_translation_shows_the_english_one(client, content):
    (content / "glossary.pl.yaml").write_text("terms: [\n")
    response = client.get("/pl/glossary/")
    assert response.status_code == 200 and "Application code" in response.content.decode()
    assert any("not valid YAML" in p for p in i18n_check.check(content).problems)
