"""Scale-out: sessions through the shared cache, and two app servers on one PostgreSQL and one
Redis that behave as one site (rate limits, sessions, exam deadline and autosave, content)."""

from __future__ import annotations

import http.cookiejar
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes import schema
from quizzes.models import Attempt

from .factories import make_question, note_text

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_cached_db_sessions_read_no_session_row(client, learner, settings):
    settings.SESSION_ENGINE = "studyapp.sessions.cached_db"
    client.force_login(learner)  # written to the database and the cache
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/practice/")
    assert response.status_code == 200 and "learner" in response.content.decode()
    assert not [q for q in queries.captured_queries if "django_session" in q["sql"]]


# --- two app servers ------------------------------------------------------------------------


def _shared_setup() -> str | None:
    """Why the two-process test cannot run here, or None when it can."""
    if connection.vendor != "postgresql":
        return "needs DATABASE_URL=postgres://… (CI's PostgreSQL + Redis run gives it)"
    if not settings.CACHE_URL:
        return "needs CACHE_URL=redis://… (CI's PostgreSQL + Redis run gives it)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One visitor: a cookie jar shared by both servers (cookies do not depend on the port)."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect
        )

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.name == name), "")

    def request(self, base: str, path: str, data: dict | None = None, htmx: bool = False):
        headers = {}
        body = None
        if data is not None:
            headers["X-CSRFToken"] = self.cookie("csrftoken")
            body = urllib.parse.urlencode(data, doseq=True).encode()
        if htmx:
            headers["HX-Request"] = "true"
        req = urllib.request.Request(base + path, data=body, headers=headers)  # noqa: S310
        try:
            with self.opener.open(req, timeout=20) as r:
                return r.status, r.read().decode(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), dict(e.headers)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@pytest.fixture
def two_servers(transactional_db, tmp_path):
    reason = _shared_setup()
    if reason:
        print(f"\ntwo-process test skipped: {reason}", file=sys.stderr)
        pytest.skip(reason)
    content = tmp_path / "content"
    shutil.copytree(Path(settings.CONTENT_DIR) / "transcripts", content / "transcripts")
    (content / "notes" / "en").mkdir(parents=True)
    (content / "questions").mkdir()
    db = connection.settings_dict
    user = urllib.parse.quote(db["USER"] or "")
    password = f":{urllib.parse.quote(db['PASSWORD'])}" if db["PASSWORD"] else ""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.two_process_settings",
        # the test database pytest-django created, so both servers see what this test writes
        "DATABASE_URL": f"postgres://{user}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CACHE_URL": settings.CACHE_URL,
        "CONTENT_DIR": str(content),
        "CONN_MAX_AGE": "0",
        "LOG_LEVEL": "WARNING",
    }
    servers, bases = [], []
    try:
        for _ in range(2):
            port = _free_port()
            servers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "gunicorn",
                        "studyapp.wsgi",
                        "--workers",
                        "1",
                        "--bind",
                        f"127.0.0.1:{port}",
                        "--log-level",
                        "warning",
                    ],
                    cwd=ROOT,
                    env=env,
                )  # fmt: skip
            )
            bases.append(f"http://127.0.0.1:{port}")
        for base in bases:
            for _ in range(150):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1)  # noqa: S310
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                raise RuntimeError(f"{base} did not start")
        yield bases, env, content
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=10)


def test_two_app_servers_on_one_postgresql_and_one_redis_behave_as_one_site(
    two_servers, django_user_model
):
    (a, b), env, content = two_servers
    django_user_model.objects.create_user("alice", password="pw-alice-123")
    for i, subtopic in enumerate(schema.SUBTOPICS * 3):  # every exam question a single choice
        make_question("single", f"s-{i}", subtopic)
    alice = Browser()
    assert alice.request(a, "/accounts/login/")[0] == 200  # the form sets the CSRF cookie

    # The log-in limit (4 per 300 s in these servers) is counted across both servers.
    for i in range(4):
        status, html, _ = alice.request(
            (a, b)[i % 2], "/accounts/login/", {"username": "alice", "password": "wrong"}
        )
        assert status == 200 and "correct username and password" in html, (i, status)
    status, html, _ = alice.request(b, "/accounts/login/", {"username": "alice", "password": "x"})
    assert status == 429 and "Too many log-in attempts" in html
    cache.clear()  # a new window: the counts are in the Redis this test shares with them

    # A session made on one server is valid on the other.
    status, _, headers = alice.request(
        a, "/accounts/login/", {"username": "alice", "password": "pw-alice-123"}
    )
    assert status == 302, "the right password after the limit window was cleared"
    status, html, _ = alice.request(b, "/exam/")
    assert status == 200 and "alice" in html

    # An exam started on one server: deadline and autosave agree on both.
    status, _, headers = alice.request(b, "/exam/", {"count": 5})
    assert status == 302
    attempt = Attempt.objects.get(user__username="alice", mode="exam")
    url = f"/exam/{attempt.pk}/q/1/"
    seconds = []
    for base in (a, b):
        status, html, _ = alice.request(base, url)
        assert status == 200
        seconds.append(int(re.search(r'data-seconds-left="(\d+)"', html)[1]))
    assert abs(seconds[0] - seconds[1]) <= 5 and seconds[0] <= attempt.question_count * 120
    response = attempt.responses.filter(question__kind="single").select_related("question")[0]
    option = response.question.options.order_by("position").first()
    url = f"/exam/{attempt.pk}/q/{response.position}/"
    status, html, _ = alice.request(a, url, {"choice": option.key}, htmx=True)
    assert status == 200 and "Saved at" in html
    status, html, _ = alice.request(b, url)
    assert re.search(rf'value="{re.escape(option.key)}"\s+checked', html), "saved on A, read on B"
    status, html, _ = alice.request(b, f"/exam/{attempt.pk}/q/{response.position}/flag/", {}, True)
    assert status == 200
    assert ", flagged" in alice.request(a, url)[1]

    # Logging out on one server ends the session on the other too (it lives in Redis + PG).
    assert alice.request(b, "/accounts/logout/", {})[0] == 302
    assert alice.request(a, url)[0] == 404  # the exam is private: no session, no exam

    # A content reload on one is seen by the other: cached pages are replaced on both.
    note = content / "notes" / "en" / "01-sample.md"
    note.write_text(note_text(body="## Part one {#one}\n\nThe first wording.\n"))
    visitor = Browser()
    for base in (a, b, a):
        assert "The first wording." in visitor.request(base, "/notes/sample/")[1]
    assert visitor.request(b, "/notes/sample/")[2].get("X-Page-Cache") == "hit"
    note.write_text(note_text(body="## Part one {#one}\n\nThe second wording.\n"))
    os.utime(note, (note.stat().st_atime, note.stat().st_mtime + 5))
    subprocess.run(
        [sys.executable, "manage.py", "loadcontent"], cwd=ROOT, env=env, check=True,
        capture_output=True,
    )  # fmt: skip
    # Each server re-reads the content version at most every PAGE_CACHE_VERSION_SECONDS (1 s).
    deadline = time.monotonic() + 5
    for base in (b, a):
        while "The second wording." not in visitor.request(base, "/notes/sample/")[1]:
            assert time.monotonic() < deadline, f"{base} still serves the old note"
            time.sleep(0.2)
