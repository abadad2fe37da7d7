"""Issue 15: notes a candidate reads to the end: key points, the exam's frame, check yourself,
generated diagrams, reading progress, search, the cheat sheet and the exam blueprint."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from quizzes import versioncache
from quizzes.models import Question
from studyapp.agentloop import catalogue
from studyapp.notes import checks, diagrams, loader, search
from studyapp.notes.loader import NoteError, library
from studyapp.notes.models import NoteRead
from tests.factories import load_real_bank, make_bank, make_question, note_text

NOTES = sorted(library().notes())


@pytest.fixture
def notes():
    return library().notes()


# --- defects ------------------------------------------------------------------------------------


def test_tool_choice_table_renders_code_instead_of_printing_backticks(notes):
    html = notes["tool-choice"].html
    table = html[html.index('aria-label="The tool_choice modes"') :]
    table = table[: table.index("</table>")]
    assert "`" not in table
    assert "this shape has only <code>type</code>" in table


def test_tool_choice_sources_line_shows_titles_not_urls(notes):
    html = notes["tool-choice"].html
    line = re.search(r'<p class="table-sources">(.*?)</p>', html, re.DOTALL)[1]
    texts = re.findall(r">([^<]+)</a>", line)
    assert len(texts) == len(catalogue.TOOL_CHOICE_SOURCES)
    assert not [t for t in texts if t.startswith("http")], texts
    assert "Define tools" in texts


def test_the_state_diagram_keeps_every_label_in_its_box_and_every_line_on_the_canvas():
    d = diagrams.state_machine()
    assert d.problems() == []
    # The longest value: its label sits inside its card, estimated at its own font size.
    (label,) = [lab for lab in d.labels if lab.text == "model_context_window_exceeded"]
    box = d.boxes[label.box]
    left, _, right, _ = label.extent()
    assert box.x < left and right < box.x + box.w
    # The dashed "call again" lines stay left of the canvas edge and clear of every card.
    loops = [pts for cls, _, pts in d.paths if cls == "d-loop"]
    assert len(loops) == sum(r.continues for r in catalogue.STOP_REASONS.values())
    cards = [b for b in d.boxes.values() if b.id.startswith("sr-")]
    for pts in loops:
        lane = pts[1][0]
        assert lane <= diagrams.WIDTH
        assert all(lane > b.x + b.w for b in cards)


def test_the_old_overflow_is_what_the_check_catches():
    d = diagrams.Diagram("t", "t", "t", [], "t")
    d.box("small", 10, 10, 150, 40)
    d.label("small", 20, 35, "model_context_window_exceeded", 14, diagrams.MONO)
    d.path("d-loop", (350, 30), (790, 30))
    assert len(d.problems()) == 2


# --- generated diagrams -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(diagrams.ALL))
def test_each_diagram_fits_and_has_a_text_alternative(name):
    d = diagrams.ALL[name]()
    assert d.problems() == []
    html = d.html()
    assert f'aria-labelledby="dg-{name}-title dg-{name}-desc"' in html
    assert "<title" in html and "<desc" in html and "The diagram in words" in html
    assert len(d.words) >= 3
    # Drawn near 1:1 on a phone: 360 units wide, and no label smaller than 11 units.
    assert f'viewBox="0 0 {diagrams.WIDTH} ' in html
    assert min(lab.size for lab in d.labels) >= 11


def test_each_diagram_appears_in_a_note(notes):
    html = "".join(n.html for n in notes.values())
    for name in diagrams.ALL:
        assert f'id="figure-{name}"' in html, name


def test_diagrams_follow_the_catalogue():
    machine = diagrams.state_machine()
    for value, info in catalogue.STOP_REASONS.items():
        assert f"sr-{value}" in machine.boxes
        assert any(info.next_action.label in w for w in machine.words)
    guards = diagrams.guards_in_loop().html()
    assert "turn cap" in guards and "wall clock" in guards and "repeated identical calls" in guards


# --- key points and the exam's frame ------------------------------------------------------------


@pytest.mark.parametrize("slug", NOTES)
def test_every_note_opens_with_key_points_and_an_exam_frame(client, db, slug, notes):
    note = notes[slug]
    assert 3 <= len(note.key_points) <= 6
    assert (
        note.exam["skills"] and note.exam["how"] and note.exam["traps"] and note.exam["scenarios"]
    )
    html = client.get(f"/notes/{slug}/").content.decode()
    assert html.index('id="key-points-heading"') < html.index('class="note-body')
    assert html.index('id="exam-frame-heading"') < html.index('class="note-body')
    assert "`" not in html[html.index('id="key-points-heading"') : html.index("</header>")]


def test_the_frame_names_trap_families_in_words(client, db):
    html = client.get("/notes/guards/").content.decode()
    assert "uses the iteration cap as the normal way out" in html
    # The guide's own words for task statement 1.1, quoted, then how this note serves them.
    assert "an arbitrary iteration cap as the primary stop, and assistant text as the" in html
    assert "A cap is a safety net" in html


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"key_points": "[one, two]"}, "key_points needs 3 to 6"),
        ({"key_points": "nonsense"}, "key_points must be a list"),
        ({"exam": "{skills: [loop], traps: [no-such-trap]}"}, "unknown family 'no-such-trap'"),
        ({"exam": "{skills: [loop], scenarios: [space]}"}, "unknown 'space'"),
        ({"exam": "{skills: [vibes]}"}, "exam.skills has unknown 'vibes'"),
        ({"exam": "{traps: []}"}, "exam needs skills"),
    ],
)
def test_a_bad_frame_names_the_file_and_the_problem(notes_dir, meta, message):
    (notes_dir / "01-bad.md").write_text(note_text(**meta))
    with pytest.raises(NoteError, match=message) as err:
        loader.NoteLibrary(notes_dir).notes()
    assert "01-bad.md" in str(err.value)


def test_blueprint_separates_the_guide_from_candidate_reports(client):
    html = client.get("/notes/exam-blueprint/").content.decode()
    guide = html[html.index('id="bp-guide"') : html.index('id="bp-reported"')]
    reported = html[html.index('id="bp-reported"') : html.index('id="bp-map"')]
    assert "27 %" in guide and "720" in guide and "4 of 6" in guide
    assert "an arbitrary iteration cap as the primary stop" in guide
    assert "60 items in 120 minutes" in reported
    assert '<time datetime="2026-12-01">' in html
    assert "anthropic.skilljar.com" in html


# --- check yourself -----------------------------------------------------------------------------


@pytest.fixture
def three(db):
    """Three questions on the stop-reasons note (factories point at stop-reasons#max-tokens)."""
    return [make_question(k, f"c-{k}") for k in ("single", "truefalse", "multiple")]


def _correct(q: Question) -> dict:
    keys = [o.key for o in q.options.all() if o.correct]
    return {"choices": keys} if q.kind == "multiple" else {"choice": keys[0]}


def _answer(q: Question, data: dict | None = None, **kwargs):
    """What the check-yourself form sends: a GET with ``answered=1`` and the choice."""
    client = kwargs.pop("client")
    url = f"/notes/stop-reasons/check/{q.slug}/"
    return client.get(url, {"answered": "1", **(_correct(q) if data is None else data)}, **kwargs)


def test_a_note_ends_with_three_questions_and_no_key_before_answering(client, three):
    html = client.get("/notes/stop-reasons/").content.decode()
    section = html[html.index('id="check-yourself"') : html.index('id="read-status"')]
    for q in three:
        assert f'id="check-{q.slug}"' in section
        assert q.stem_html in section
        # Answered by GET (nothing is recorded): no CSRF token, so the page can be shared.
        assert f'hx-get="/notes/stop-reasons/check/{q.slug}/"' in section
    assert 'method="post"' not in section and "csrfmiddlewaretoken" not in section
    assert "Right answer" not in section and "WHY-A-RIGHT" not in section
    assert "correct" not in section.lower().replace("check my answer", "")
    assert 'href="/practice/?subtopic=stop-reasons"' in section  # on to practice


def test_the_check_url_reveals_no_key_before_an_answer(client, three):
    for q in three:
        url = f"/notes/stop-reasons/check/{q.slug}/"
        for headers in ({}, {"HX-Request": "true"}):
            for params in ({}, {"answered": "1"}):  # a bare visit; the form sent empty
                html = client.get(url, params, headers=headers).content.decode()
                item = html[html.index(f'id="check-{q.slug}"') :]
                assert "WHY-" not in item and "Right answer" not in item, (q.kind, params)
                assert "Right." not in item and "Not quite." not in item
                assert 'class="verdict"' not in item and "disabled" not in item


def test_answering_inline_with_htmx_grades_on_the_server(client, three):
    q = three[0]
    r = _answer(q, client=client, headers={"HX-Request": "true"})
    assert r.status_code == 200
    html = r.content.decode()
    assert "<html" not in html and "Right." in html and "WHY-A-RIGHT" in html
    assert "HX-Request" in r["Vary"]  # the same URL gives the whole note without JavaScript
    wrong = next(o for o in q.options.all() if not o.correct)
    html = _answer(
        q, {"choice": wrong.key}, client=client, headers={"HX-Request": "true"}
    ).content.decode()
    assert "Not quite." in html and wrong.why_html in html


def test_answering_without_javascript_renders_the_whole_note(client, three):
    q = three[1]
    r = _answer(q, client=client)
    html = r.content.decode()
    assert r.status_code == 200 and "<html" in html and 'id="note-title"' in html
    start = html.index(f'id="check-{q.slug}"')
    item = html[start : html.index('id="read-status"')]
    assert "Right." in item and "WHY-TRUE" in item
    others = [c for c in three if c != q]
    assert all(f'hx-get="/notes/stop-reasons/check/{c.slug}/"' in html for c in others)
    # ... and the other two are still unanswered.
    assert html.count('class="verdict"') == 1


def test_an_answer_records_nothing_and_needs_no_cookie(client, three):
    from quizzes.models import Attempt, Response

    r = _answer(three[0], client=client)
    assert r.status_code == 200 and not r.cookies
    assert not Attempt.objects.exists() and not Response.objects.exists()
    # Not a reading page: never kept in the shared page cache.
    assert "X-Page-Cache" not in _answer(three[0], client=client).headers


def test_a_missing_or_foreign_answer_says_what_to_do(client, three):
    q = three[0]
    url = f"/notes/stop-reasons/check/{q.slug}/"
    htmx = {"HX-Request": "true"}
    r = _answer(q, {}, client=client, headers=htmx)
    assert r.status_code == 200 and "Choose one answer first." in r.content.decode()
    assert 'role="alert"' in r.content.decode() and "Right." not in r.content.decode()
    r = _answer(q, {"choice": "not-a-key"}, client=client, headers=htmx)
    assert r.status_code == 200 and "not one of this question" in r.content.decode()
    r = _answer(q, {}, client=client)  # without JavaScript: the whole note, the message at the item
    assert r.status_code == 200 and "Choose one answer first." in r.content.decode()
    assert client.get("/notes/stop-reasons/check/no-such-question/").status_code == 404
    assert client.get("/notes/no-such-note/check/c-single/").status_code == 404
    assert client.post(url, _correct(q)).status_code == 405  # grading is a GET now


@pytest.mark.parametrize("signed_in", [False, True])
def test_note_page_queries_do_not_grow_with_the_bank(
    client, db, django_assert_num_queries, django_user_model, signed_in
):
    if signed_in:
        client.force_login(django_user_model.objects.create_user("reader", password="pw-r-123"))
    make_bank(8)
    client.get("/notes/stop-reasons/")  # warm the note cache
    # Rendering: the check-yourself questions and their options (and, signed in, the session
    # and the user). The reading status is no longer part of the page: it is its own fragment
    # (notes:read, pinned below), so the page can be shared. The options are kept per question
    # version in the process (quizzes/versioncache.py): their query is pinned from a process
    # that keeps none, and is gone once it keeps them.
    expected = 4 if signed_in else 2
    # Each query string is a new entry in the shared page cache: anonymous pages render too.
    versioncache.clear()
    with django_assert_num_queries(expected):
        client.get("/notes/stop-reasons/?v=1")
    with django_assert_num_queries(expected - 1):
        client.get("/notes/stop-reasons/?v=1b")
    make_bank(40, prefix="more")
    versioncache.clear()
    with django_assert_num_queries(expected):
        html = client.get("/notes/stop-reasons/?v=2").content.decode()
    assert html.count('class="check-item"') == 3
    if not signed_in:  # the second anonymous reader is served the stored page
        with django_assert_num_queries(0):
            assert client.get("/notes/stop-reasons/?v=2").headers["X-Page-Cache"] == "hit"


@pytest.mark.django_db
def test_every_real_note_gets_three_questions_from_the_real_bank(notes):
    load_real_bank()
    for note in notes.values():
        picked = checks.questions_for(note)
        assert len(picked) == 3, note.slug
        assert all(q.kind in checks.INLINE_KINDS for q in picked)


# --- reading progress ---------------------------------------------------------------------------


HTMX = {"HX-Request": "true"}


def test_reading_progress_works_anonymously_and_moves_to_the_account(client, db, learner):
    assert f"<strong>0 of {len(NOTES)}</strong>" in client.get("/notes/reading/").text
    r = client.post("/notes/guards/read/", {"read": "1"})
    assert r.status_code == 302 and r["Location"] == "/notes/guards/read/"
    assert "Mark as not read" in client.get(r["Location"]).text  # the no-JS page says so
    # The index loads the visitor's marks: the count, and a badge swapped in by its note.
    marks = client.get("/notes/reading/", headers=HTMX).text
    assert f"<strong>1 of {len(NOTES)}</strong>" in marks and "<html" not in marks
    assert re.search(
        r'<span id="read-mark-guards" hx-swap-oob="true"> <span class="badge badge-continue">Read',
        marks,
    )
    assert "read-mark-errors" not in marks
    # Without JavaScript: the index itself, with the marks in place.
    index = client.get("/notes/reading/").text
    assert re.search(
        r'href="/notes/guards/">[^<]*</a><span id="read-mark-guards"> <span class="badge', index
    )
    # The note loads its reading block (and the badge by its date).
    block = client.get("/notes/guards/read/", headers=HTMX).text
    assert "Mark as not read" in block and 'id="note-read-badge" hx-swap-oob="true"> <span' in block
    client.post("/accounts/login/", {"username": "learner", "password": "pw-learner-123"})
    assert NoteRead.objects.filter(user=learner, note_slug="guards").count() == 1
    me = client.get("/me/").content.decode()
    assert '<span class="big-score" id="notes-read">1</span>' in me
    assert "in this account" in client.get("/notes/reading/", headers=HTMX).text
    r = client.post("/notes/guards/read/", {"read": "0"}, headers=HTMX)
    assert "Mark as read" in r.text and 'data-auto-read="off"' in r.text  # not again on scroll
    assert not NoteRead.objects.filter(user=learner).exists()


def test_the_shared_pages_carry_no_reading_status(client, db):
    client.post("/notes/guards/read/", {"read": "1"})  # this visitor now has a session
    index = client.get("/notes/").text
    note = client.get("/notes/guards/").text
    assert '<span id="read-mark-guards"></span>' in index and "badge-continue" not in index
    assert 'hx-get="/notes/reading/" hx-trigger="load"' in index
    assert 'href="/notes/reading/"' in index  # without JavaScript, a link to the marks
    assert 'hx-get="/notes/guards/read/" hx-trigger="load"' in note
    assert 'href="/notes/guards/read/">Mark this note as read</a>' in note
    assert "Mark as not read" not in note and "badge-continue" not in note
    assert "csrfmiddlewaretoken" not in index + note


def test_the_reading_fragments_are_private_and_set_no_cookie(client, db):
    for url in ("/notes/reading/", "/notes/guards/read/"):
        for headers in ({}, HTMX):
            r = client.get(url, headers=headers)
            assert r.status_code == 200, url
            assert "private" in r["Cache-Control"] and "no-store" in r["Cache-Control"], url
            assert "HX-Request" in r["Vary"] and "X-Page-Cache" not in r.headers, url
            if headers:  # htmx posts with the cookie's token: the fragment needs none
                assert not r.cookies and "csrfmiddlewaretoken" not in r.text, url
    # The no-JS page has the form, so it carries the token.
    assert "csrfmiddlewaretoken" in client.get("/notes/guards/read/").text


@pytest.mark.parametrize("signed_in", [False, True])
def test_reading_fragments_run_a_constant_number_of_queries(
    client, db, learner, django_assert_num_queries, signed_in
):
    if signed_in:
        client.force_login(learner)
    else:  # an anonymous reader who has read something: their session holds the owner token
        client.post("/notes/guards/read/", {"read": "1"})
    for slug in NOTES[:3]:
        client.post(f"/notes/{slug}/read/", {"read": "1"})
    # session (+ user when signed in), then the reads
    expected = 3 if signed_in else 2
    for url in ("/notes/reading/", "/notes/guards/read/"):
        with django_assert_num_queries(expected):
            client.get(url, headers=HTMX)
    for slug in NOTES[3:]:
        client.post(f"/notes/{slug}/read/", {"read": "1"})
    with django_assert_num_queries(expected):
        assert f"<strong>{len(NOTES)} of" in client.get("/notes/reading/", headers=HTMX).text


def test_a_new_visitor_costs_no_query_for_their_reading(client, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        client.get("/notes/reading/", headers=HTMX)
        client.get("/notes/guards/read/", headers=HTMX)


def test_marking_read_twice_keeps_one_row_and_bad_slugs_are_404(client, db):
    client.post("/notes/errors/read/", {"read": "1"})
    client.post("/notes/errors/read/", {"read": "1"})
    assert NoteRead.objects.filter(note_slug="errors").count() == 1
    assert client.post("/notes/no-such-note/read/").status_code == 404
    assert client.get("/notes/no-such-note/read/").status_code == 404
    assert client.delete("/notes/errors/read/").status_code == 405


def test_marking_read_needs_the_csrf_token(db):
    csrf_client = Client(enforce_csrf_checks=True)
    assert csrf_client.post("/notes/errors/read/", {"read": "1"}).status_code == 403
    assert not NoteRead.objects.exists()


def test_another_visitor_does_not_see_my_reading(client, db):
    client.post("/notes/errors/read/", {"read": "1"})
    other = Client()
    assert "<strong>0 of" in other.get("/notes/reading/", headers=HTMX).text
    assert "Mark as read" in other.get("/notes/errors/read/", headers=HTMX).text


# --- search -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_search_finds_pause_turn_in_notes_and_glossary_on_the_configured_database(
    client, search_index
):
    assert search.engine() == ("postgresql" if connection.vendor == "postgresql" else "sqlite")
    hits = search.search("pause_turn")
    kinds = {h.kind for h in hits}
    assert kinds == {"note", "term"}, kinds
    assert any(h.url == "/notes/server-tools/#pause-turn" for h in hits)
    assert any(h.kind == "term" and h.title == "pause_turn" for h in hits)
    # Matched words are highlighted (PostgreSQL marks "pause" and "turn" as two words).
    assert any(re.search(r"<mark>pause(_turn)?</mark>", h.snippet_html) for h in hits[:3])
    html = client.get("/notes/search/", {"q": "pause_turn"}).content.decode()
    assert 'href="/notes/server-tools/#pause-turn"' in html and "Glossary term" in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ['"', "*", "AND (", "pause_turn OR", "NEAR(", "ünïcode ✓", "a" * 500, "<script>"]
)
def test_search_never_fails_on_odd_input(client, query, search_index):
    r = client.get("/notes/search/", {"q": query})
    assert r.status_code == 200
    assert "<script>" not in r.content.decode().split("<main", 1)[1]


# Tags and text that strip_tags reads in odd ways: search._strip must give its text for each,
# on its own fast way or by handing the fragment to strip_tags.
ODD_HTML = [
    '<p class="a" id=b>x &amp; y &#39;&#x27;</p><br/><br />', "<p\n class='x'>t</p >",
    "<p>a > b</p>", "<p>a < b</p>", "a &amp b", "<i>&amp b</i>", "<i>&nosemi x</i>",
    "<i>&#12a;</i>",
    "<!-- c --><p>x</p>", "<![CDATA[x]]>", "<?pi x ?>", "<!DOCTYPE html><p>x</p>",
    '<a title="x>y">z</a>', '<a x=">" y="<b">t</a>', "<a x\"y>t</a>", "<p>unclosed", "<a", "</>",
    "< p>", "<x-y>t</x-y>", "<script>if (a<b) f();</script>", "<style>p{}</style>",
    "<title>plain</title>", "<title>a &amp; b</title>", "<title><b>x</b></title>",
    "<svg><title id=t>Fig</title><desc>d</desc></svg>", "<textarea><p>t</p></textarea>",
]  # fmt: skip


def test_a_note_fragment_is_stripped_as_strip_tags_strips_it(monkeypatch):
    from django.utils.html import strip_tags

    for fragment in ODD_HTML:
        assert search._strip(fragment) == strip_tags(fragment), fragment
    # The notes' HTML takes the fast way (their text is what strip_tags gives: compared for a
    # note with a diagram here; for every note in every language when _strip was written).
    guards = loader.notes_in("en")["guards"]
    fragments = [*guards.key_points, *search.SECTION_RE.split(guards.html)]
    assert "<title" in guards.html
    assert [search._strip(f) for f in fragments] == [strip_tags(f) for f in fragments]
    monkeypatch.setattr(search, "strip_tags", lambda fragment: pytest.fail(fragment[:200]))
    for note in loader.notes_in("en").values():
        for fragment in [*note.key_points, *search.SECTION_RE.split(note.html)]:
            search._strip(fragment)


@pytest.mark.django_db
def test_search_needs_every_word_and_rebuilds_when_content_changes(client, search_index):
    assert search.search("tool_result refusal nonexistentword") == []
    assert search.search("   ") == []
    assert search.rebuild() is False  # the search above built it; unchanged content: no work
    from studyapp.notes.models import SearchDoc

    SearchDoc.objects.filter(kind="signature").update(body="stale")
    assert search.rebuild() is True
    assert search.search("pause_turn")


@pytest.mark.django_db
def test_a_note_written_or_changed_after_a_search_is_found_by_the_next_one(notes_dir):
    (notes_dir / "01-sample.md").write_text(note_text(body="## Part one {#one}\n\nZebrafinch.\n"))
    assert [h.url for h in search.search("zebrafinch")] == ["/notes/sample/#one"]
    assert search.search("okapi") == []
    path = notes_dir / "01-sample.md"
    path.write_text(note_text(body="## Part one {#one}\n\nOkapi now.\n"))
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 5))  # a later modification
    assert [h.url for h in search.search("okapi")] == ["/notes/sample/#one"]
    assert search.search("zebrafinch") == []


# --- cheat sheet and gaps -----------------------------------------------------------------------


def test_cheat_sheet_is_generated_from_the_catalogue_and_printable(client):
    html = client.get("/notes/cheat-sheet/").content.decode()
    for value in catalogue.STOP_REASONS:
        assert f"<code>{value}</code>" in html
    for mode in catalogue.TOOL_CHOICE_MODES.values():
        assert mode.meaning in html
    css = Path("static/css/site.css").read_text()
    assert "@media print" in css and ".cheat-sheet h1" in css


GAPS = {
    "rules-in-code#tool-output-is-data": "prompt injection",
    "context#context-editing": "clear_tool_uses_20250919",
    "observability#hand-written-loop": "human-in-the-loop approval",
}


@pytest.mark.parametrize("ref", sorted(GAPS))
def test_each_gap_has_a_sourced_section_and_three_bank_questions(ref, notes):
    from quizzes import schema

    slug, anchor = ref.split("#")
    note = notes[slug]
    assert anchor in note.anchors
    section = note.html[note.html.index(f'id="{anchor}"') :]
    assert GAPS[ref].lower() in section.lower()
    urls = " ".join(s["url"] for s in note.sources)
    assert {
        "rules-in-code": "mitigate-jailbreaks",
        "context": "context-editing",
        "observability": "tool-runner",
    }[slug] in urls
    result = schema.parse_files([Path("content/questions/gaps.yaml")])
    assert not result.problems, result.problems
    mine = [q for q in result.questions if q["notes"] == ref]
    assert len(mine) >= 3, ref


@pytest.mark.parametrize(
    ("run", "note"),
    [("injected-order-note", "rules-in-code"), ("approval-declined", "observability")],
)
def test_gap_library_runs_replay_clean_and_are_linked_from_their_note(run, note, notes):
    from studyapp.sandbox.library import library as run_library

    found = run_library().runs()[run]
    assert found.findings == [], [f.rule for f in found.findings]
    assert found.stop_reasons[-1] == "end_turn"
    assert f'href="/sandbox/{run}/steps/' in notes[note].html
