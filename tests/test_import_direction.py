"""Imports go one way (README, "What is where"): a test per rule, read from the source with ast.

studyapp (settings, urls, project views, loadcontent)   may import every package below
authoring                                                quizzes, sandbox, notes, core, agentloop
progress                                                 quizzes, core, agentloop
studyapp.notes                                           quizzes, core, agentloop
quizzes · studyapp.sandbox                               core, agentloop
core                                                     agentloop (and Django, libraries)
studyapp.agentloop                                       (no Django, none of ours)
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sources import imports as import_statements

ROOT = Path(__file__).resolve().parents[1]

#: Each unit of the code and the units it may import (besides itself).
ALLOWED = {
    "studyapp": {
        "authoring",
        "progress",
        "quizzes",
        "studyapp.notes",
        "studyapp.sandbox",
        "core",
        "studyapp.agentloop",
    },
    "authoring": {"quizzes", "studyapp.sandbox", "studyapp.notes", "core", "studyapp.agentloop"},
    "progress": {"quizzes", "core", "studyapp.agentloop"},
    "quizzes": {"core", "studyapp.agentloop"},
    # A note closes with check-yourself questions from the bank; quizzes never reads the notes.
    "studyapp.notes": {"quizzes", "core", "studyapp.agentloop"},
    "studyapp.sandbox": {"core", "studyapp.agentloop"},
    "core": {"studyapp.agentloop"},
    "studyapp.agentloop": set(),
}
# The most specific unit first: studyapp.agentloop before studyapp.
UNITS = sorted(ALLOWED, key=len, reverse=True)


def unit_of(module: str) -> str | None:
    return next((u for u in UNITS if module == u or module.startswith(u + ".")), None)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in the file, relative ones resolved."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in import_statements(path):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def sources():
    for unit in ALLOWED:
        for path in sorted((ROOT / unit.replace(".", "/")).rglob("*.py")):
            if unit_of(module_name(path)) == unit:
                yield unit, path


def violations() -> list[str]:
    bad = []
    for unit, path in sources():
        for line, name in imports(path):
            target = unit_of(name)
            if target not in (None, unit) and target not in ALLOWED[unit]:
                bad.append(f"{path.relative_to(ROOT)}:{line} ({unit}) imports {name}")
            if unit == "studyapp.agentloop" and name.split(".")[0] == "django":
                bad.append(f"{path.relative_to(ROOT)}:{line} imports Django")
    return bad


def test_every_app_imports_only_in_the_allowed_direction():
    assert violations() == []


def test_the_check_sees_a_forbidden_import(tmp_path, monkeypatch):
    """The rule bites: quizzes importing progress, or agentloop importing Django, is reported."""
    fake = tmp_path / "quizzes"
    (fake / "kinds").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "kinds" / "x.py").write_text("from progress import hooks\nfrom ..models import Q\n")
    loop = tmp_path / "studyapp" / "agentloop"
    loop.mkdir(parents=True)
    (loop / "y.py").write_text("import django.conf\nfrom quizzes import grading\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert sorted(violations()) == [
        "quizzes/kinds/x.py:1 (quizzes) imports progress",
        "studyapp/agentloop/y.py:1 imports Django",
        "studyapp/agentloop/y.py:2 (studyapp.agentloop) imports quizzes",
    ]


@pytest.mark.parametrize("unit", ["studyapp.agentloop"])
def test_the_rules_package_runs_without_django(unit):
    """Importing every module of agentloop loads no Django at all, not even indirectly; nor the
    anthropic SDK (about 1.4 s of CPU), which agentloop/sdk.py imports on first use."""
    modules = [module_name(p) for u, p in sources() if u == unit]
    code = (
        f"import sys\nfor m in {modules!r}: __import__(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'django')\n"
        "assert not bad, bad\n"
        "assert 'anthropic' not in sys.modules, 'an agentloop module imports the SDK at the top'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
