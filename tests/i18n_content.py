"""The language tests' content: the repository's own translations once they exist, else the
small fixture set in tests/fixtures/i18n/content (one note, two questions, a glossary)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "i18n" / "content"


def copy_fixture(tmp: Path) -> Path:
    """A writable copy of the fixture content (for tests that stamp or edit files)."""
    target = tmp / "content"
    shutil.copytree(FIXTURE, target)
    return target
