"""Robustness: fuzzed uploads through the view never give a server error; a mock exam survives a
server restart; two concurrent submits of one answer record one response."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzes import services
from quizzes.models import Attempt, Response
from studyapp.sandbox.models import UploadedRun
from tests.factories import make_question

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "content" / "transcripts"
LIBRARY = [json.loads(p.read_text()) for p in sorted(TRANSCRIPTS.glob("*.json"))]

# --- fuzzed uploads --------------------------------------------------------------------------

WORDS = [
    "type", "role", "content", "text", "id", "name", "input", "stop_reason", "tool_use",
    "tool_result", "tool_use_id", "is_error", "messages", "turns", "response", "request",
    "format", "loopcraft.transcript/1", "message", "assistant", "user", "end_turn", "pause_turn",
    "max_tokens", "refusal", "thinking", "signature", "usage", "input_tokens", "tools",
    "tool_choice", "server_tool_use", "web_search_tool_result", "<script>alert(1)</script>",
]  # fmt: skip
scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
    | st.sampled_from(WORDS) | st.text(max_size=30)
)  # fmt: skip
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(WORDS) | st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


@st.composite
def mutated_transcripts(draw):
    """A real recorded loop with one part replaced by something else, or removed."""
    doc = json.loads(json.dumps(draw(st.sampled_from(LIBRARY))))
    paths = [p for p in _paths(doc) if p]
    path = draw(st.sampled_from(paths))
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    if draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(json_values)
    return json.dumps(doc)


def _dump(value) -> str:
    return json.dumps(value, allow_nan=True)


uploads = st.one_of(
    st.text(max_size=200),
    json_values.map(_dump),
    st.lists(json_values, max_size=4).map(lambda xs: "\n".join(_dump(x) for x in xs)),
    mutated_transcripts(),
    mutated_transcripts().map(lambda s: s[: len(s) // 2]),  # cut short
)


_CLIENTS: list[Client] = []


def _fuzz_client() -> Client:
    """One client for every example: each new Client loads the middleware (whitenoise scans
    the static files), which would cost more than the upload itself."""
    if not _CLIENTS:
        _CLIENTS.append(Client())
    return _CLIENTS[0]


@pytest.mark.template_context  # reads response.context
@pytest.mark.django_db
@settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    text=uploads,
    as_file=st.booleans(),
    title=st.text(max_size=250),
    raw=st.binary(max_size=64) | st.none(),
)
def test_no_upload_gives_a_server_error(text, as_file, title, raw):
    client = _fuzz_client()  # raises on a 500, so hypothesis shrinks to the input that caused it
    data = {"title": title, "text": "" if as_file else text}
    if as_file:
        body = raw if raw is not None else text.encode("utf-8", "surrogatepass")
        data["file"] = SimpleUploadedFile("run.json", body)
    response = client.post("/sandbox/upload/", data)
    assert response.status_code in (200, 302, 400), response.status_code
    if response.status_code == 302:  # accepted: every step of it must render too
        run = UploadedRun.objects.latest("pk")
        for n in {1, len(run.data.get("turns", [])) or 1}:
            page = client.get(f"/sandbox/uploads/{run.pk}/steps/{n}/")
            assert page.status_code == 200
    elif response.status_code == 400:
        assert "That can't be read:" in response.content.decode()  # names the problem
    else:  # the form itself complained (title too long, nothing given): it says so
        assert response.context["form"].errors
        assert 'role="alert"' in response.content.decode()  # the page shows them


# --- a mock exam survives a restart -----------------------------------------------------------


def _restart():
    """What a new server process has: no connections, no caches; only the database."""
    from django.core.cache import caches

    connections.close_all()
    for cache in caches.all():
        cache.clear()


@pytest.mark.template_context  # reads response.context
@pytest.mark.django_db(transaction=True)  # the "restart" closes the connection
@pytest.mark.parametrize("signed_in", [False, True])
def test_a_mock_exam_survives_a_server_restart_mid_attempt(learner, signed_in):
    for i in range(6):
        make_question("single", f"r-{i}")
    before = Client()
    if signed_in:
        before.force_login(learner)
    before.post("/exam/", {"count": 5})
    attempt = Attempt.objects.get()
    first = attempt.responses.get(position=1).question
    key = first.options.get(correct=True).key
    saved = before.post(f"/exam/{attempt.pk}/q/1/", {"choice": key}, headers={"HX-Request": "true"})
    assert "Saved at" in saved.content.decode()
    before.post(f"/exam/{attempt.pk}/q/2/flag/")
    deadline = attempt.deadline
    cookie = before.cookies["sessionid"].value

    _restart()
    after = Client()  # a new process: only the browser's cookie carries over
    after.cookies["sessionid"] = cookie
    page = after.get(f"/exam/{attempt.pk}/q/1/")
    assert page.status_code == 200
    html = page.content.decode()
    assert page.context["form_ctx"] and _checked(html) == [key]
    attempt.refresh_from_db()
    assert attempt.deadline == deadline and attempt.submitted_at is None
    assert 0 < page.context["seconds_left"] <= 600
    summary = after.get(f"/exam/{attempt.pk}/summary/").content.decode()
    assert "4 not answered, 1 flagged" in summary
    after.post(f"/exam/{attempt.pk}/submit/")
    attempt.refresh_from_db()
    assert attempt.score == 20.0  # the answer saved before the restart counted


def _checked(html: str) -> list[str]:
    from html.parser import HTMLParser

    found = []

    class Inputs(HTMLParser):
        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "input" and "checked" in a:
                found.append(a.get("value"))

    Inputs().feed(html)
    return found


# --- concurrent submits ----------------------------------------------------------------------


def _concurrently(n, request):
    """Run request(i) in n threads that start together; return what each returned."""
    results: list = [None] * n
    errors: list = []
    start = threading.Barrier(n)

    def run(i):
        try:
            start.wait()
            results[i] = request(i)
        except Exception as e:  # surfaced below with the thread's traceback
            errors.append(e)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    if errors:
        raise errors[0]
    return results


def races() -> dict:
    """Double submits in two threads: a practice answer, and an exam's final submit."""
    from django.contrib.auth import get_user_model

    learner = get_user_model().objects.create_user("racer")
    for i in range(6):
        make_question("single", f"c-{i}")
    owner = services.Owner(learner, "")
    practice = services.practice_start(owner=owner, subtopics=[], which="all", count=1)
    key = practice.responses.get().question.options.get(correct=True).key
    exam = services.exam_start(owner=owner, count=5)

    def client():
        c = Client()
        c.force_login(learner)
        return c

    # Both requests read "not answered yet" before either writes: the race a double click makes.
    both_graded = threading.Barrier(2, timeout=10)
    real_grade = services.grading.grade

    def grade_together(spec, answer):
        both_graded.wait()
        return real_grade(spec, answer)

    services.grading.grade = grade_together
    try:
        practice_status = _concurrently(
            2, lambda i: client().post(f"/practice/{practice.pk}/1/", {"choice": key}).status_code
        )
    finally:
        services.grading.grade = real_grade
    exam_status = _concurrently(
        2, lambda i: client().post(f"/exam/{exam.pk}/submit/").status_code
    )  # fmt: skip
    rows = list(Response.objects.filter(attempt=practice).values("answer", "answered_at"))
    exam.refresh_from_db()
    return {
        "practice_status": practice_status,
        "practice_rows": len(rows),
        "practice_answer": rows[0]["answer"],
        "practice_answered": rows[0]["answered_at"] is not None,
        "key": key,
        "exam_status": exam_status,
        "exam_submitted": exam.submitted_at is not None,
        "exam_score": exam.score,
    }


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_submits_record_one_response_and_close_the_exam_once():
    # The test database is a file on SQLite (tests/settings.py): the threads' connections lock
    # and wait for each other as production's do.
    seen = races()
    assert seen["practice_status"] == [200, 200]  # neither click got an error page
    assert seen["practice_rows"] == 1 and seen["practice_answered"]
    assert seen["practice_answer"] == {"choice": seen["key"]}
    assert seen["exam_status"] == [302, 302]
    assert seen["exam_submitted"] and seen["exam_score"] == 0.0


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/pl/notes/", "/exam/1/q/1/"])
def test_a_request_for_a_host_that_is_not_ours_is_a_400_not_a_500(path):
    """Django answers a Host outside ALLOWED_HOSTS with its 400 page; that page renders the site
    header, whose language alternates asked for the host again and raised inside the error page."""
    response = Client(HTTP_HOST="attacker.example", raise_request_exception=True).get(path)
    assert response.status_code == 400
    assert b"Loopcraft" in response.content and b'rel="alternate"' not in response.content
