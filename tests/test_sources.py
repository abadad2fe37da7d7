"""tests/sources.py: the import scan that the code-reading tests use finds what the syntax tree
holds, however the import is spelt and whatever the strings and comments around it say."""

from __future__ import annotations

import ast

from tests import sources

TRICKY = '''"""A docstring naming imports:
import docstring_import
from docstring_from import x
"""
from __future__ import annotations

import a.b as ab, c  # import commented_out
from .rel import (  # a comment with a ( in it
    one,
    two,  # from inside import x
)
from .. import three
from d import e; import f
try: import g
except ImportError: from h import i
if True: \\
    import j
x = "import string_import"; y = f"{x!r} # import f_string_import"
z = r"\\\\"
import k  # the raw string above ends at its second quote
s = \'\'\'
import triple_single
\'\'\'


def inner():
    import l.m

    class C:
        from n import o

    raise ValueError("x") \\
        from None
    return [from_ for from_ in ()], import_module  # names, not keywords


import_module = None
'''


def _walked(source: str) -> list[str]:
    return sorted(
        ast.dump(n)
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Import | ast.ImportFrom)
    )


def test_the_scan_finds_every_import_the_syntax_tree_holds_and_nothing_else(tmp_path, monkeypatch):
    path = tmp_path / "tricky.py"
    path.write_text(TRICKY)
    monkeypatch.setattr(sources, "nodes", None)  # found by the scan alone, no whole-file parse
    found = sources.imports(path)
    assert sorted(ast.dump(n) for n in found) == _walked(TRICKY)
    assert [n.lineno for n in found] == sorted(n.lineno for n in found)  # source order
    names = {a.name for n in found for a in n.names} | {getattr(n, "module", None) for n in found}
    assert not {"docstring_import", "docstring_from", "string_import", "triple_single"} & names
    assert {"ab", "g", "i", "j", "k", "l.m", "o"} <= names | {
        a.asname for n in found for a in n.names
    }


def test_a_spelling_the_scan_does_not_know_falls_back_to_the_whole_tree(tmp_path, monkeypatch):
    """Should the scan ever miss a statement, the keyword count disagrees and the file is
    parsed whole: the answer stays the syntax tree's."""
    path = tmp_path / "odd.py"
    path.write_text("import a\nimport b\n")
    monkeypatch.setattr(sources, "_BEFORE", __import__("re").compile(r"(?!)"))
    assert sorted(ast.dump(n) for n in sources.imports(path)) == _walked("import a\nimport b\n")


def test_a_file_written_again_is_read_again(tmp_path):
    path = tmp_path / "again.py"
    path.write_text("import a\n")
    assert [n.names[0].name for n in sources.imports(path)] == ["a"]
    path.write_text("import b\n")
    assert [n.names[0].name for n in sources.imports(path)] == ["b"]
