"""Dependencies: every library our code imports is declared, and the lock file satisfies
pyproject.toml (make installs from requirements.lock alone)."""

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.sources import nodes

ROOT = Path(__file__).resolve().parents[1]
OURS = {"core", "quizzes", "progress", "authoring", "studyapp", "tests", "bench", "manage"}
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
DECLARED = [
    Requirement(r) for r in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["dev"]
]


def imported_top_levels() -> dict[str, str]:
    """{top-level module: first file importing it} over our code and tests."""
    found: dict[str, str] = {}
    # (each top-level folder but .venv searched: globbing from the root walked its 22,000 files)
    folders = [d for d in ROOT.iterdir() if d.is_dir() and d.name != ".venv"]
    for path in sorted(p for d in folders for p in d.rglob("*.py")):
        if ".venv" in path.parts:
            continue
        for node in nodes(path):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def test_every_imported_library_is_declared():
    declared = {canonicalize_name(r.name) for r in DECLARED}
    dists = packages_distributions()
    missing = []
    for module, where in imported_top_levels().items():
        if module in OURS or module in sys.stdlib_module_names or module == "__future__":
            continue
        names = {canonicalize_name(d) for d in dists.get(module, [module])}
        if not names & declared:
            missing.append(f"{module} ({where})")
    assert missing == []


def test_the_lock_pins_every_declared_dependency_within_its_range():
    pins = dict(
        re.findall(
            r"^([A-Za-z0-9_.-]+)==([^\s\\]+)", (ROOT / "requirements.lock").read_text(), re.M
        )
    )
    pins = {canonicalize_name(k): v for k, v in pins.items()}
    wrong = [
        str(r)
        for r in DECLARED
        if canonicalize_name(r.name) not in pins
        or not r.specifier.contains(pins[canonicalize_name(r.name)], prereleases=True)
    ]
    assert wrong == []
