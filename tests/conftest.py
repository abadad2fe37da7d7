"""Fixtures shared by the whole suite."""

from pathlib import Path

import pytest
from django.conf import settings


@pytest.fixture
def content_dir() -> Path:
    return Path(settings.CONTENT_DIR)


@pytest.fixture
def notes_dir(tmp_path, settings):
    """An empty notes folder for tests that write their own notes."""
    (tmp_path / "notes" / "en").mkdir(parents=True)
    settings.CONTENT_DIR = tmp_path
    return tmp_path / "notes" / "en"
