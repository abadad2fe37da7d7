"""Dependencies: every library our code imports is declared, and the lock file satisfies
pyproject.toml (make installs from requirements.lock alone)."""

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.sources import imports

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
        for node in imports(path):
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


def test_make_bootstraps_uv_from_its_own_locked_lines():
    """make installs uv with pip from the lock's uv lines alone (by hash, no dependencies), then
    the whole lock with uv: the Makefile's awk must cut exactly that requirement."""
    makefile = (ROOT / "Makefile").read_text()
    script = re.search(r"awk '([^']+)' requirements\.lock", makefile)
    assert script, "the Makefile no longer cuts uv's lines out of requirements.lock"
    cut = subprocess.run(
        [shutil.which("awk") or "awk", script.group(1), str(ROOT / "requirements.lock")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = [line.strip().rstrip("\\").strip() for line in cut.splitlines()]
    locked = re.search(r"^uv==(\S+)", (ROOT / "requirements.lock").read_text(), re.M)
    assert locked and lines[0] == f"uv=={locked.group(1)}"
    hashes = lines[1:]
    assert len(hashes) >= 2 and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h) for h in hashes)
    assert not cut.rstrip().endswith("\\")  # the requirement ends: pip reads no dangling line
