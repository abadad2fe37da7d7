"""The recorded-loop library notices a changed file by listing its directory on every request:
with os.scandir, the same files in the same order as the glob it replaced."""

from __future__ import annotations

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
