"""The SQLite test database, migrated once per set of migrations and copied afterwards.

Migrating a fresh test database costs about a second of CPU in every pytest process (24
migrations and their post_migrate signals), more than the rest of a one-test run's set-up. The
first run that migrates saves a copy of the just-migrated file next to it
(``.test-db.sqlite3.template-<fingerprint>``, ignored by git); a later run whose migrations,
Django version and installed apps give the same fingerprint copies it and tells pytest-django to
keep that database (``migrate`` then finds nothing to apply). Any change to a migration makes a
new fingerprint, so a branch with other migrations never reuses a template of this one.
``--create-db`` migrates afresh (and saves a new template); ``--reuse-db`` keeps its usual
meaning; PostgreSQL (CI's other set-up) is migrated as before.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import django
import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


def _test_db_path() -> Path | None:
    """This process's test database file (pytest-xdist workers have a suffix), or None."""
    db = settings.DATABASES["default"]
    name = (db.get("TEST") or {}).get("NAME")
    if db["ENGINE"] != "django.db.backends.sqlite3" or not name or "memory" in str(name):
        return None
    return Path(name)


def fingerprint() -> str:
    """What the migrated schema and rows depend on: the project's migration files (and
    quizzes/models.py, which one of them imports), Django's version and the installed apps."""
    from django.apps import apps

    digest = hashlib.sha256(django.get_version().encode())
    digest.update("\n".join(settings.INSTALLED_APPS).encode())
    files = [ROOT / "quizzes" / "models.py"]
    for app in apps.get_app_configs():
        path = Path(app.path)
        if path.is_relative_to(ROOT) and ".venv" not in path.parts:
            files += sorted((path / "migrations").glob("*.py"))
    for file in files:
        digest.update(str(file.relative_to(ROOT)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


def _template_path() -> Path:
    base = Path(settings.DATABASES["default"]["TEST"]["NAME"]).name.split("_gw")[0]
    return ROOT / f"{base}.template-{fingerprint()}"


def _copy(source: Path, target: Path) -> None:
    """A consistent copy through SQLite's backup API, written aside and moved into place."""
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    src, dst = sqlite3.connect(source), sqlite3.connect(partial)
    try:
        with dst:
            src.backup(dst)
    finally:
        src.close()
        dst.close()
    os.replace(partial, target)


@pytest.fixture(scope="session")
def django_db_keepdb(request, django_db_modify_db_settings) -> bool:
    """pytest-django's flag, also true when this run starts from a saved migrated template."""
    config = request.config
    if config.getvalue("reuse_db") and not config.getvalue("create_db"):
        return True
    target = _test_db_path()
    if target is None or config.getvalue("create_db"):
        return False
    template = _template_path()
    if not template.exists():
        return False
    for stale in (target, *target.parent.glob(f"{target.name}-*")):  # -wal, -shm, -journal
        stale.unlink(missing_ok=True)
    _copy(template, target)
    config.stash[_FROM_TEMPLATE] = True
    return True


_FROM_TEMPLATE = pytest.StashKey[bool]()


@pytest.fixture(scope="session")
def django_db_setup(request, django_db_setup, django_db_keepdb):
    """pytest-django's set-up; after a real migration, the migrated file is saved as the
    template (older templates removed)."""
    target = _test_db_path()
    migrated_here = not django_db_keepdb and not request.config.stash.get(_FROM_TEMPLATE, False)
    if target is not None and migrated_here and target.exists():
        template = _template_path()
        _copy(target, template)
        for old in ROOT.glob(template.name.split(".template-")[0] + ".template-*"):
            if old != template and not old.name.endswith(".partial"):
                old.unlink(missing_ok=True)
    yield
