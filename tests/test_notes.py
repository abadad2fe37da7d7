"""Topic notes: loading, rendering once, the generated tables, links and slug validation."""

import os
import re

import pytest

from studyapp.agentloop import catalogue
from studyapp.notes import loader
from studyapp.notes.loader import NoteError, library

from .factories import note_text

REQUIRED_SLUGS = {
    "loop-basics", "stop-reasons", "tool-results", "server-tools", "tool-choice", "guards",
    "errors", "thinking", "context", "parallel", "observability", "rules-in-code", "traps",
}  # fmt: skip


@pytest.fixture
def notes():
    return library().notes()


def test_the_library_has_every_required_note(notes):
    assert set(notes) >= REQUIRED_SLUGS
    assert len(notes) >= 12


def test_every_note_has_sources_a_date_and_a_table_of_contents(notes):
    for note in notes.values():
        assert note.sources, note.slug
        assert all(s["url"].startswith("https://") for s in note.sources)
        assert note.last_verified.year >= 2026
        assert len(note.toc) >= 3, note.slug
        assert all(item["id"] in note.anchors for item in note.toc)


def test_the_stop_reason_table_is_generated_from_the_catalogue(notes):
    html = notes["stop-reasons"].html
    for value, info in catalogue.STOP_REASONS.items():
        assert f'id="sr-{value}"' in html
        assert info.next_action.label.replace("'", "&#x27;") in html
    assert 'class="diagram"' in html and "<desc" in html and "The diagram in words" in html


def test_the_tool_choice_table_is_generated_from_the_catalogue(notes):
    html = notes["tool-choice"].html
    for mode in catalogue.TOOL_CHOICE_MODES:
        assert f'id="tc-{mode}"' in html
    assert "at most one tool call" in html and "exactly one tool call" in html


def _change_ids() -> set[str]:
    """Anchors of the generated "What changed since the exam guide" page (one per change id)."""
    from studyapp.agentloop.models import CHANGES

    return set(CHANGES)


def test_links_between_notes_point_at_real_anchors(notes):
    broken = []
    for note in notes.values():
        for slug, anchor in re.findall(r'href="/notes/([a-z0-9-]+)/(?:#([^"]+))?"', note.html):
            if slug == "changes":  # generated from the model catalogue, not a note
                if anchor and anchor not in _change_ids():
                    broken.append(f"{note.slug} → {slug}#{anchor}")
                continue
            target = notes.get(slug)
            if target is None or (anchor and anchor not in target.anchors):
                broken.append(f"{note.slug} → {slug}#{anchor}")
    assert not broken


def test_glossary_links_point_at_real_anchors(notes):
    terms = loader.glossary()
    assert len(terms) >= 25
    for term in terms:
        m = re.fullmatch(r"/notes/([a-z0-9-]+)/#([a-z0-9-]+)", term.link)
        assert m, term.link
        assert m[2] in notes[m[1]].anchors, term.link


def test_section_9_claims_appear_only_as_things_to_avoid(notes):
    # The Agent SDK has no run()/process() entry points; a note may name them only to warn.
    for note in notes.values():
        for m in re.finditer(r"(?:\.run|process)\(\)", note.html):
            window = note.html[max(0, m.start() - 600) : m.end() + 600].lower()
            assert any(w in window for w in ("no ", "not", "never", "doesn", "wrong")), note.slug


def test_a_note_is_rendered_once_until_its_file_changes(notes_dir, monkeypatch):
    path = notes_dir / "01-sample.md"
    path.write_text(note_text())
    calls = []
    real = loader.parse_note
    monkeypatch.setattr(loader, "parse_note", lambda p: calls.append(p) or real(p))
    lib = loader.NoteLibrary(notes_dir)
    assert lib.get("sample").title == "A sample"
    lib.notes()
    assert len(calls) == 1
    path.write_text(note_text(title="Changed"))
    stat = path.stat()
    os.utime(path, (stat.st_atime, stat.st_mtime + 5))
    assert lib.get("sample").title == "Changed"
    assert len(calls) == 2


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"slug": "Bad Slug"}, "is not lowercase"),
        ({"sources": None}, "lacks sources"),
        ({"last_verified": "soon"}, "last_verified must be a date"),
        ({"title": "[unclosed"}, "not valid YAML"),
    ],
)
def test_a_broken_note_names_its_file_and_problem(notes_dir, meta, message):
    (notes_dir / "01-bad.md").write_text(note_text(**meta))
    with pytest.raises(NoteError, match=message) as err:
        loader.NoteLibrary(notes_dir).notes()
    assert "01-bad.md" in str(err.value)


def test_raw_html_in_a_note_is_escaped(notes_dir):
    (notes_dir / "01-x.md").write_text(note_text(body="## A {#a}\n\n<script>alert(1)</script>\n"))
    html = loader.NoteLibrary(notes_dir).get("sample").html
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("slug", ["../settings", "..", "Stop-Reasons", "a/b", "", "x" * 3 + "%00"])
def test_crafted_slugs_never_reach_the_file_system(slug, notes_dir, monkeypatch):
    lib = loader.NoteLibrary(notes_dir)
    monkeypatch.setattr(lib, "notes", lambda: pytest.fail("looked at the file system"))
    assert lib.get(slug) is None


# --- exam answer vs today's models (issue 11) ---------------------------------------------------


def test_a_today_marker_renders_a_callout_generated_from_the_catalogue():
    from core.rendering import render_markdown
    from studyapp.agentloop import models

    html = render_markdown("Intro\n\n[[today:forced-tool-choice]]\n", blocks=loader.BLOCKS).html
    change = models.CHANGES["forced-tool-choice"]
    assert 'class="today-callout"' in html and "On the exam:" in html
    assert "<code>claude-sonnet-5-5</code>" in html and change.source in html
    assert "[[today:" not in html


def test_an_unknown_today_marker_fails_the_notes_check(tmp_path):
    path = tmp_path / "sample.md"
    path.write_text(note_text(body="## Part {#p}\n\n[[today:no-such-change]]\n"), "utf-8")
    with pytest.raises(NoteError, match=r"unknown marker \[\[today:no-such-change\]\]"):
        loader.parse_note(path)


def test_the_changes_page_lists_every_change_with_its_source_and_date(client):
    from studyapp.agentloop import models

    html = client.get("/notes/changes/").content.decode()
    assert "What changed since the exam guide" in html
    for change in models.CHANGES.values():
        assert f'id="{change.id}"' in html and change.source in html
    assert html.count('datetime="2026-12-01"') >= len(models.CHANGES)
    assert 'href="/notes/changes/"' in client.get("/notes/").content.decode()
    assert 'href="/notes/changes/" aria-current="page"' in html  # the nav marks it


@pytest.mark.django_db
def test_the_changes_page_runs_a_constant_number_of_queries(client, django_assert_num_queries):
    client.get("/notes/changes/")
    with django_assert_num_queries(0):  # an anonymous reading page: no per-visitor state
        client.get("/notes/changes/")


def test_every_change_links_to_a_real_notes_section(notes):
    from studyapp.agentloop import models

    for change in models.CHANGES.values():
        if change.notes_anchor:
            slug, _, anchor = change.notes_anchor.partition("#")
            assert slug in notes and anchor in notes[slug].anchors, change.id


# --- the folder listed again only when it changed, or after a second ----------------------------

LONG_AGO = 1_000_000_000  # 2001: a folder time far older than any listing


@pytest.fixture
def clock(monkeypatch):
    from core import folders

    now = [100.0]
    monkeypatch.setattr(folders, "_monotonic", lambda: now[0])
    return now


@pytest.fixture
def listings(monkeypatch):
    """How many times a library listed its folder."""
    calls = []
    real = os.scandir
    monkeypatch.setattr(
        loader, "os", type("os", (), {"scandir": lambda d: calls.append(d) or real(d)})
    )
    return calls


def _old_library(notes_dir):
    """A library of one note whose folder's time is long ago (a checkout before the server
    started), that has read it once."""
    (notes_dir / "01-sample.md").write_text(note_text())
    os.utime(notes_dir, (LONG_AGO, LONG_AGO))
    lib = loader.NoteLibrary(notes_dir)
    assert lib.get("sample").title == "A sample"
    return lib


def test_an_unchanged_folder_is_not_listed_again_within_a_second(notes_dir, clock, listings):
    lib = _old_library(notes_dir)
    first = lib.notes()
    assert lib.notes() is first and len(listings) == 1  # the folder stat'ed, nothing listed
    clock[0] += 0.99
    assert lib.notes() is first and len(listings) == 1
    clock[0] += 0.01
    assert lib.notes() is first and len(listings) == 2  # a second later: listed again


@pytest.mark.parametrize(
    "change",
    [
        lambda d: (d / "02-other.md").write_text(note_text(slug="other", title="Other")),
        lambda d: (d / "01-sample.md").unlink(),
        lambda d: (d / "01-sample.md").rename(d / "03-sample.md"),
    ],
    ids=["added", "removed", "renamed"],
)
def test_a_note_added_removed_or_renamed_is_seen_at_once(notes_dir, clock, listings, change):
    lib = _old_library(notes_dir)
    change(notes_dir)
    assert sorted(lib.notes()) == sorted(loader.NoteLibrary(notes_dir).notes())  # same instant
    assert len(listings) == 2 + 1  # listed again, and the fresh library's own listing


def test_a_note_rewritten_in_place_is_seen_within_a_second(notes_dir, clock, listings):
    lib = _old_library(notes_dir)
    path = notes_dir / "01-sample.md"
    path.write_text(note_text(title="Changed"))  # in place: the folder's time is not touched
    os.utime(path, (LONG_AGO + 60, LONG_AGO + 60))
    assert lib.get("sample").title == "A sample"  # within the second: the listing trusted
    clock[0] += 1.0
    assert lib.get("sample").title == "Changed"


def test_a_folder_changed_just_now_is_listed_on_every_call(notes_dir, clock, listings):
    """A folder time as recent as the listing may not change with the next write (the file
    system's clock ticks coarsely): until it is older, every call lists the files."""
    path = notes_dir / "01-sample.md"
    path.write_text(note_text())
    lib = loader.NoteLibrary(notes_dir)
    assert lib.get("sample").title == "A sample"
    path.write_text(note_text(title="Changed"))  # the same instant, the folder as recent
    os.utime(path, (LONG_AGO, LONG_AGO))
    assert lib.get("sample").title == "Changed" and len(listings) == 2
    os.utime(notes_dir, (LONG_AGO, LONG_AGO))  # the folder ages
    lib.notes()
    lib.notes()
    assert len(listings) == 3  # listed once more, then trusted


def test_a_notes_folder_removed_is_an_empty_library_at_once(notes_dir, clock):
    import shutil

    lib = _old_library(notes_dir)
    shutil.rmtree(notes_dir)
    assert lib.notes() == {}
