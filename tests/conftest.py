"""Fixtures shared by the whole suite."""

from pathlib import Path

import pytest
from django.conf import settings


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Every test starts with an empty cache: cached pages, sessions and counts of one test
    never answer another's requests."""
    from django.core.cache import caches

    from studyapp import pagecache

    for cache in caches.all():
        cache.clear()
    pagecache.reset_local()
    yield


@pytest.fixture
def content_dir() -> Path:
    return Path(settings.CONTENT_DIR)


@pytest.fixture
def notes_dir(tmp_path, settings):
    """An empty notes folder for tests that write their own notes."""
    (tmp_path / "notes" / "en").mkdir(parents=True)
    settings.CONTENT_DIR = tmp_path
    return tmp_path / "notes" / "en"


@pytest.fixture
def one_of_each(db):
    from .factories import KIND_BODIES, make_question

    return {kind: make_question(kind) for kind in KIND_BODIES}


@pytest.fixture
def learner(db, django_user_model):
    return django_user_model.objects.create_user("learner", password="pw-learner-123")


@pytest.fixture
def other_learner(db, django_user_model):
    return django_user_model.objects.create_user("other", password="pw-other-123")
