"""The migrated SQLite template the suite starts from (tests/dbtemplate.py)."""

import sqlite3
from pathlib import Path

import pytest
from django.db import connection

from tests import dbtemplate


def _rows(path, sql):
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_the_template_holds_every_migration_and_table_of_the_test_database(db):
    if dbtemplate._test_db_path() is None:
        pytest.skip("not SQLite: the test database is migrated in every run")
    template = dbtemplate._template_path()
    assert template.exists()
    live = connection.settings_dict["NAME"]
    for sql in (
        "select name from sqlite_master where type='table' order by name",
        "select app, name from django_migrations order by app, name",
        "select name from auth_group order by name",  # the data migration's Instructors group
    ):
        assert _rows(template, sql) == _rows(live, sql)
    assert ("authoring", "0001_instructors_group") in _rows(
        template, "select app, name from django_migrations"
    )


def test_a_changed_migration_gives_another_template(monkeypatch):
    before = dbtemplate.fingerprint()
    assert dbtemplate.fingerprint() == before
    read = Path.read_bytes

    def edited(path):
        data = read(path)
        return data + b"\n# changed" if path.name == "0001_initial.py" else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    assert dbtemplate.fingerprint() != before
