"""The recorded-loop library notices a changed file: it lists its directory with os.scandir (the
same files in the same order as the glob it replaced) when a folder's time changed, or a second
after the last listing, and otherwise trusts the listing it has."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core import folders as folders_module
from core.folders import RESCAN_AFTER_S
from studyapp.sandbox import library as library_module
from studyapp.sandbox.library import Library


def _globbed(directory):
    files = sorted(directory.glob("*.json"))
    return files + sorted(p for p in directory.glob("*/*.yaml") if p.is_file())


def test_the_library_lists_the_files_glob_would_in_globs_order(tmp_path):
    for name in ("b.json", "a.json", ".hidden.json", "notes.txt", "c.json.bak"):
        (tmp_path / name).write_text("{}")
    for folder in ("pl", "pl-x", "zh-hans", ".git"):
        (tmp_path / folder).mkdir()
        for name in ("run.yaml", "a.yaml", ".swap.yaml", "readme.md"):
            (tmp_path / folder / name).write_text("x: 1")
    (tmp_path / "pl" / "dir.yaml").mkdir()  # a folder with the right ending is not a file
    (tmp_path / "odd.json").mkdir()  # but glob lists a folder named *.json, and its yaml
    (tmp_path / "odd.json" / "run.yaml").write_text("x: 1")
    listed = [path for path, _ in Library(tmp_path)._current()]
    assert listed == _globbed(tmp_path)
    assert [p.name for p in listed[:4]] == [".hidden.json", "a.json", "b.json", "odd.json"]
    folders = [p.parent.name for p in listed[4:]]
    assert folders == [".git"] * 3 + ["odd.json"] + ["pl"] * 3 + ["pl-x"] * 3 + ["zh-hans"] * 3


def test_a_changed_file_changes_the_listing(tmp_path):
    (tmp_path / "a.json").write_text("{}")
    library = Library(tmp_path)
    before = library._current()
    (tmp_path / "b.json").write_text("{}")
    assert library._current() != before and len(library._current()) == 2
    assert Library(tmp_path / "missing")._current() == ()


# --- the listing read again only when a folder changed, or after a second ------------------------

LONG_AGO = 1_000_000_000  # 2001: a folder time far older than any listing


@pytest.fixture
def old_folders(tmp_path):
    """A library folder with a run and a language folder, their times set long ago (as a checkout
    a while before the server started leaves them), and a count of the listings read."""
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "pl").mkdir()
    (tmp_path / "pl" / "a.yaml").write_text("x: 1")
    _age(tmp_path)
    return tmp_path


def _age(tmp_path):
    for folder in (tmp_path / "pl", tmp_path):
        os.utime(folder, (LONG_AGO, LONG_AGO))


@pytest.fixture
def scans(monkeypatch):
    calls = []
    real = library_module._scan
    monkeypatch.setattr(library_module, "_scan", lambda d: calls.append(d) or real(d))
    return calls


@pytest.fixture
def clock(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(folders_module, "_monotonic", lambda: now[0])
    return now


def _listed(directory):
    """A library of ``directory`` that has listed it: once to find its folders, once trusted."""
    library = Library(directory)
    library._current()
    library._current()
    return library


def _names(library):
    return [f"{p.parent.name}/{p.name}" for p, _ in library._current()]


def test_an_unchanged_library_is_not_listed_again_within_a_second(old_folders, scans, clock):
    library = Library(old_folders)
    first = library._current()
    assert library._current() == first and len(scans) == 2  # the folders it found: read again
    assert library._current() == first and len(scans) == 2  # folders stat'ed, nothing listed
    clock[0] += RESCAN_AFTER_S - 0.01
    assert library._current() == first and len(scans) == 2
    clock[0] += 0.01
    assert library._current() == first and len(scans) == 3  # a second later: listed again


@pytest.mark.parametrize(
    "change",
    [
        lambda d: (d / "b.json").write_text("{}"),  # added
        lambda d: (d / "pl" / "b.yaml").write_text("x: 1"),  # added to a language folder
        lambda d: (d / "pl" / "a.yaml").unlink(),  # removed
        lambda d: (d / "a.json").rename(d / "c.json"),  # renamed
        lambda d: (d / "zh-hans").mkdir() or (d / "zh-hans" / "a.yaml").write_text("x: 1"),
    ],
    ids=["added", "added-in-pl", "removed", "renamed", "new-language"],
)
def test_a_file_added_removed_or_renamed_is_seen_at_once(old_folders, scans, clock, change):
    library = _listed(old_folders)
    before = _names(library)
    change(old_folders)
    after = _names(library)  # the same instant: the folder's time changed
    assert after != before and after == [f"{p.parent.name}/{p.name}" for p in _globbed(old_folders)]


def test_a_file_rewritten_in_place_is_seen_within_a_second(old_folders, scans, clock):
    library = _listed(old_folders)
    before = library._current()
    path = old_folders / "pl" / "a.yaml"
    path.write_text("x: 2")  # in place: the folder's time is not touched
    os.utime(path, (LONG_AGO + 60, LONG_AGO + 60))
    assert library._current() is before  # within the second: the listing trusted
    clock[0] += RESCAN_AFTER_S
    assert dict(library._current())[path] == LONG_AGO + 60


def test_a_folder_changed_just_now_is_listed_on_every_call(tmp_path, scans, clock):
    """A folder time as recent as the listing may not change with the next write (the file
    system's clock ticks coarsely): until it is older, every call lists the files."""
    (tmp_path / "a.json").write_text("{}")
    library = Library(tmp_path)
    library._current()
    library._current()
    path = tmp_path / "a.json"
    path.write_text('{"x": 1}')  # in place, the folder's time as recent as the listings
    os.utime(path, (LONG_AGO, LONG_AGO))
    assert dict(library._current())[path] == LONG_AGO and len(scans) == 3
    os.utime(tmp_path, (LONG_AGO, LONG_AGO))  # the folder ages
    library._current()
    library._current()
    assert len(scans) == 4  # listed once more, then trusted


def test_a_library_folder_removed_is_an_empty_library_at_once(old_folders, scans, clock):
    import shutil

    library = _listed(old_folders)
    assert library._current()
    shutil.rmtree(old_folders)
    assert library._current() == ()


# --- a transcript read before is not parsed and checked again -------------------------------------

CONTENT = Path(__file__).resolve().parent.parent / "content" / "transcripts"


def test_a_file_read_before_is_not_parsed_or_checked_again(tmp_path, monkeypatch):
    """A library read again after one file changed, or a second folder holding the same files,
    parses and checks only the text it has not read before; its runs are the same runs."""
    names = sorted(p.name for p in CONTENT.glob("*.json"))[:3]
    for name in names:
        (tmp_path / name).write_text((CONTENT / name).read_text())
    parsed = []
    real = library_module.parse_transcript
    monkeypatch.setattr(library_module, "_CHECKED", {})
    monkeypatch.setattr(
        library_module, "parse_transcript", lambda *a, **k: parsed.append(1) or real(*a, **k)
    )
    first = Library(tmp_path).runs()
    assert len(parsed) == 3
    other = tmp_path / "other"
    other.mkdir()
    for name in names:
        (other / name).write_text((CONTENT / name).read_text())
    again = Library(other).runs()
    assert len(parsed) == 3 and again == first  # Run compares transcript and findings
    assert all(again[s] is not first[s] for s in first)  # each library its own runs
    changed = (tmp_path / names[0]).read_text().replace('"title": "', '"title": "Changed: ', 1)
    (tmp_path / names[0]).write_text(changed)
    library = Library(tmp_path)
    assert len(parsed) == 3 and len(library.runs()) == 3 and len(parsed) == 4
    assert [r.title.startswith("Changed: ") for r in library.runs().values()].count(True) == 1
