"""The suite's own layout: a test module never imports another test module.

What two test modules share lives in tests/conftest.py (fixtures) or in a helper module of
tests/ whose name does not start with ``test_`` (factories, answers, editor, imports, live_runs,
runs, access, transcripts, fakes, fuzzing). Importing a test module runs its module-level set-up
a second time under another name, ties one file's tests to another's private helpers, and makes
``pytest tests/test_x.py`` collect and build what only ``tests/test_y.py`` needs.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.sources import imports

TESTS = Path(__file__).resolve().parent

#: Imports kept for now, in files this change may not edit (the lead's and another session's
#: work in progress on 2026-12-01). Each should import the helper module instead:
#: tests/test_security_xss.py -> ``from tests.access import MATRIX, PRESENT``; the XSS payloads
#: and hostile_transcript belong in a helper module both XSS files import.
ALLOWED = {
    ("test_security_xss.py", "tests.test_access_matrix"),
    ("browser/test_xss.py", "tests.test_security_xss"),
}


def imported_test_modules(path: Path) -> list[str]:
    """The test modules (``test_*``) that the file at ``path`` imports, as dotted names."""
    package = ".".join(("tests", *path.relative_to(TESTS).parent.parts))
    found = []
    for node in imports(path):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            # ``from . import test_x`` names the module among the imported names.
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [n for n in names if n.split(".")[-1].startswith("test_")]
    return found


def test_no_test_module_imports_another_test_module():
    found = [
        f"{path.relative_to(TESTS)} imports {name}"
        for path in sorted(TESTS.rglob("*.py"))
        for name in imported_test_modules(path)
        if (str(path.relative_to(TESTS)), name) not in ALLOWED
    ]
    assert not found, (
        "A test module imports another test module: "
        + "; ".join(found)
        + ". Move what they share into tests/conftest.py (a fixture) or a helper module of "
        "tests/ (factories.py, answers.py, editor.py, ...), and import that."
    )


def test_the_check_finds_each_way_of_importing_a_test_module(tmp_path, monkeypatch):
    """The check above would not pass vacuously: every spelling of such an import is found."""
    monkeypatch.setattr(f"{__name__}.TESTS", tmp_path)
    (tmp_path / "browser").mkdir()
    cases = {
        "from tests.test_live import FORM": "tests.test_live",
        "from .test_live import FORM": "tests.test_live",
        "from . import test_live": "tests.test_live",
        "import tests.test_live": "tests.test_live",
        "from ..test_live import FORM": "tests.test_live",
        "def f():\n    from tests.test_live import FORM": "tests.test_live",
    }
    for source, module in cases.items():
        where = tmp_path / ("browser" if source.startswith("from ..") else "") / "test_a.py"
        where.write_text(source + "\n")
        assert module in imported_test_modules(where), source
    (tmp_path / "test_b.py").write_text("from .live_runs import FORM\nfrom tests import fakes\n")
    assert imported_test_modules(tmp_path / "test_b.py") == []
