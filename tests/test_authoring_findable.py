"""Issue 13: the instructor tools can be found, and the preview shows what a right answer earns."""

import os
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse

from quizzes import kinds
from quizzes.schema import KINDS

from .factories import make_question

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent


SUBNAV = ["Questions", "New", "Import", "Export", "Statistics", "Reports", "Grading"]


@pytest.mark.parametrize(
    "name", ["author:index", "author:question_new", "author:import", "author:export",
             "author:stats", "author:reports", "author:grading"],
)  # fmt: skip
def test_every_author_page_has_the_instructor_sub_navigation(client, author, name):
    html = client.get(reverse(name)).content.decode()
    nav = re.search(r'<nav aria-label="Instructor tools".*?</nav>', html, re.S)
    assert nav, name
    labels = re.findall(r"<a [^>]*>([^<]+)</a>", nav[0])
    assert labels == SUBNAV
    assert nav[0].count('aria-current="page"') == 1


def test_learners_do_not_see_the_instructor_tools(client, learner):
    client.force_login(learner)
    q = make_question("single", slug="rep")
    html = client.get(reverse("author:report_problem", args=[q.slug])).content.decode()
    assert "Instructor tools" not in html


@pytest.mark.parametrize("kind", KINDS)
def test_the_preview_of_a_right_answer_says_right_and_shows_the_explanation_once(
    client, author, kind
):
    q = make_question(kind, slug=f"p-{kind.replace('_', '-')}")
    html = client.get(reverse("author:question_edit", args=[q.slug])).content.decode()
    preview = html[html.index('id="preview"') :]
    assert "Not answered." not in preview
    auto = kinds.get(kind) is None or kinds.get(kind).AUTO_GRADED
    assert ("<strong>Right.</strong>" if auto else "no automatic grade") in preview
    assert preview.count(f"General explanation of {q.slug}") == 1


def _migrated_database(path: Path, env: dict) -> None:
    """A migrated SQLite database at ``path``: a copy of this run's test database when that is
    SQLite (another connection sees only what is committed: the schema and the rows the
    migrations write), else ``manage.py migrate`` in a process of its own."""
    if connection.vendor == "sqlite":
        source = sqlite3.connect(connection.settings_dict["NAME"])
        target = sqlite3.connect(path)
        with source, target:
            source.backup(target)
        source.close()
        target.close()
        return
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=ROOT,
        env={**env, "DEBUG": env.get("DEBUG", "true")},
        check=True,
    )


def test_the_readme_createinstructor_command_works_as_written(tmp_path):
    readme = (ROOT / "README.md").read_text()
    line = re.search(r"`([^`]*manage\.py createinstructor[^`]*)`", readme)[1]
    command = line.replace("NAME", "alice").replace("…", "pw-alice-12345")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    }
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    parts = shlex.split(command)
    assignments = [p for p in parts if re.match(r"^[A-Z_]+=", p)]
    for a in assignments:
        key, _, value = a.partition("=")
        env[key] = value
    argv = [p for p in parts if p not in assignments]
    argv[0] = sys.executable if argv[0].endswith("python") else argv[0]
    _migrated_database(tmp_path / "db.sqlite3", env)
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "now an instructor" in done.stdout


def test_manage_py_without_debug_or_a_secret_key_says_what_is_missing_without_a_traceback():
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "createinstructor", "bob"], cwd=ROOT, env=env,
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode != 0
    assert "SECRET_KEY" in done.stderr and "DEBUG=true" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_editor_picks_notes_sections_and_offers_the_banks_concepts(client, author):
    make_question("single", slug="known-concept")
    html = client.get(reverse("author:question_new") + "?kind=single").content.decode()
    notes = re.search(r'<select name="notes".*?</select>', html, re.S)[0]
    assert 'value="stop-reasons#max-tokens"' in notes and "<optgroup" in notes
    assert 'list="concept-options"' in html
    assert '<datalist id="concept-options"><option value="known-concept">' in html
