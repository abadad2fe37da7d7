"""The public pages: status, what a visitor sees, and how many queries each runs."""

import re

import pytest

from quizzes.schema import SUBTOPICS
from studyapp.agentloop import catalogue
from studyapp.notes.loader import library
from tests.factories import new_questions

pytestmark = pytest.mark.django_db


def test_healthz_is_plain_ok(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")


def test_home_says_where_each_kind_of_user_starts(client):
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    for who in ("Candidates", "Learners", "Instructors"):
        assert who in html
    for value in catalogue.STOP_REASONS:
        assert f"<code>{value}</code>" in html


def test_the_shell_has_navigation_skip_link_htmx_and_where_to_get_a_csrf_token(client):
    html = client.get("/").content.decode()
    assert 'href="#main"' in html and 'id="main"' in html
    assert '<nav aria-label="Main">' in html
    htmx = re.search(r'<script src="(/static/django_htmx/htmx[^"]*\.js)"', html)
    assert htmx and client.get(htmx[1]).status_code == 200
    # No per-visitor token in the page: htmx reads it from the cookie (static/js/site.js).
    assert "csrftoken" not in html and 'data-csrf-url="/csrf/"' in html
    assert "https://cdn" not in html and "unpkg" not in html


def test_notes_index_lists_every_note_with_summary_and_date(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/notes/")
    html = response.content.decode()
    notes = library().notes().values()
    for note in notes:
        assert f'href="/notes/{note.slug}/"' in html
    assert html.count("last verified") == len(notes)


@pytest.mark.parametrize("slug", sorted(library().notes()))
def test_every_note_page_renders_with_toc_sources_and_pager(
    client, db, slug, django_assert_num_queries
):
    # Notes come from rendered files; the database gives only the check-yourself questions
    # and their options (tests/test_notes_study.py pins the signed-in count too).
    new_questions([("single", f"q-{topic}", topic) for topic in SUBTOPICS])  # one per subtopic
    with django_assert_num_queries(2):
        response = client.get(f"/notes/{slug}/")
    assert response.status_code == 200
    html = response.content.decode()
    note = library().get(slug)
    assert f'<h1 id="note-title">{note.title}' in html.replace("&#x27;", "'")
    assert "On this page" in html and "Sources" in html
    for item in note.toc:
        assert f'href="#{item["id"]}"' in html
    if note.next:
        assert f'rel="next" href="/notes/{note.next.slug}/"' in html
    if note.previous:
        assert f'rel="prev" href="/notes/{note.previous.slug}/"' in html


@pytest.mark.parametrize(
    "path", ["/notes/no-such-note/", "/notes/..%2f..%2fsettings/", "/notes/UP/"]
)
def test_unknown_or_crafted_note_slugs_are_404(client, path):
    assert client.get(path).status_code == 404


def test_glossary_links_every_term_to_its_note(client):
    html = client.get("/glossary/").content.decode()
    assert 'href="/notes/server-tools/#pause-turn"' in html
    assert "<code>pause_turn</code>" in html
