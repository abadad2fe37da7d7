"""Anonymous reading pages are shared: no per-visitor state, public cache headers, 304 on
revalidation, served from Django's cache and invalidated by loadcontent; signed-in pages never."""

from __future__ import annotations

import contextlib
import os

import pytest
from django.core.management import call_command
from django.urls import NoReverseMatch, reverse

from studyapp.notes.loader import library

from .factories import note_text


def reading_pages() -> list[str]:
    pages = [
        "/",
        "/notes/",
        f"/notes/{next(iter(library().notes()))}/",
        "/glossary/",
        "/sandbox/parallel-lookups/steps/2/",
    ]
    with contextlib.suppress(NoReverseMatch):  # "What changed" (issue 11), where it exists
        pages.append(reverse("notes:changes"))
    return pages


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_an_anonymous_reading_page_carries_no_visitor_state_and_lets_a_cdn_cache_it(client, htmx):
    headers = {"HX-Request": "true"} if htmx else {}
    for url in reading_pages():
        response = client.get(url, headers=headers)
        assert response.status_code == 200, url
        assert not response.cookies, f"{url} set {list(response.cookies)}"
        html = response.content.decode()
        assert "csrfmiddlewaretoken" not in html and "csrftoken" not in html, url
        control = response.headers["Cache-Control"]
        assert "public" in control and "max-age=300" in control, (url, control)
        assert "private" not in control and "no-cache" not in control, (url, control)
        assert response.headers["ETag"] and response.headers["Last-Modified"], url
        assert {"Cookie", "HX-Request"} <= {v.strip() for v in response.headers["Vary"].split(",")}


@pytest.mark.django_db
def test_the_second_visitor_gets_the_cached_page_and_a_revalidation_gets_304(client):
    for url in reading_pages():
        first = client.get(url)
        second = client.get(url)
        assert first.headers["X-Page-Cache"] == "miss", url
        assert second.headers["X-Page-Cache"] == "hit", url
        assert second.content == first.content, url
        assert second.headers["ETag"] == first.headers["ETag"], url
        revalidated = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
        assert revalidated.status_code == 304, url
        assert revalidated.content == b"" and not revalidated.cookies, url
        assert "public" in revalidated.headers["Cache-Control"], url


@pytest.mark.django_db
def test_a_fragment_and_the_whole_page_are_cached_apart(client):
    url = "/sandbox/parallel-lookups/steps/2/"
    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    page = client.get(url).content.decode()
    assert "<html" in page and "<html" not in fragment
    again = client.get(url, headers={"HX-Request": "true"})
    assert again.headers["X-Page-Cache"] == "hit" and "<html" not in again.content.decode()
    restore = {"HX-Request": "true", "HX-History-Restore-Request": "true"}
    assert "<html" in client.get(url, headers=restore).content.decode()


@pytest.mark.django_db
def test_a_signed_in_page_is_never_served_from_the_shared_cache(client, learner):
    for url in reading_pages():
        client.get(url)  # an anonymous visitor fills the cache
        assert client.get(url).headers["X-Page-Cache"] == "hit"
    client.force_login(learner)
    for url in reading_pages():
        response = client.get(url)
        assert response.status_code == 200
        assert "X-Page-Cache" not in response.headers, url
        assert "private" in response.headers["Cache-Control"], url
        assert "public" not in response.headers["Cache-Control"], url
        if "HX-Request" not in url and "/steps/" not in url:
            assert "learner" in response.content.decode(), url  # the header names them
    # ... and what they were shown never reaches the next anonymous visitor.
    client.logout()
    for url in reading_pages():
        assert "learner" not in client.get(url).content.decode().split("<main")[0]


@pytest.mark.django_db
def test_a_visitor_with_a_session_is_not_served_the_shared_page(client):
    url = "/sandbox/parallel-lookups/steps/2/"
    client.get(url)
    client.post("/sandbox/raw-json/", {"next": url})  # an anonymous preference, in a session
    response = client.get(url)
    assert "X-Page-Cache" not in response.headers and 'class="raw-json"' in response.text
    assert "private" in response.headers["Cache-Control"]


@pytest.mark.django_db
def test_the_raw_json_view_is_its_own_cacheable_url(client):
    url = "/sandbox/parallel-lookups/steps/2/"
    assert 'class="raw-json"' not in client.get(url).text
    raw = client.get(url + "?raw=1")
    assert 'class="raw-json"' in raw.text and "?raw=1" in raw.text  # step links keep the choice
    assert not raw.cookies and "public" in raw.headers["Cache-Control"]
    assert client.get(url + "?raw=1").headers["X-Page-Cache"] == "hit"


@pytest.mark.django_db
def test_a_page_that_uses_the_csrf_token_is_not_stored(client, settings):
    # Were a form added to a reading page, the page would stop being shared, not leak a token.
    settings.PAGE_CACHE_VIEWS = [*settings.PAGE_CACHE_VIEWS, "quizzes:practice"]
    url = reverse("quizzes:practice")
    response = client.get(url)
    assert "csrfmiddlewaretoken" in response.text and "csrftoken" in response.cookies
    assert "private" in response.headers["Cache-Control"]
    assert "X-Page-Cache" not in client.get(url).headers


@pytest.mark.django_db
def test_loadcontent_replaces_every_cached_page(client, notes_dir):
    path = notes_dir / "01-sample.md"
    path.write_text(note_text(body="## Part one {#one}\n\nThe first wording.\n"))
    assert "The first wording." in client.get("/notes/sample/").text
    path.write_text(note_text(body="## Part one {#one}\n\nThe second wording.\n"))
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 5))
    stale = client.get("/notes/sample/")
    assert stale.headers["X-Page-Cache"] == "hit" and "The first wording." in stale.text
    (notes_dir.parent.parent / "questions").mkdir()
    call_command("loadcontent", stdout=open(os.devnull, "w"))  # noqa: SIM115
    fresh = client.get("/notes/sample/")
    assert "The second wording." in fresh.text and fresh.headers["X-Page-Cache"] == "miss"
    assert fresh.headers["ETag"] != stale.headers["ETag"]
    # A browser revalidating with the old ETag gets the new page, not 304.
    assert client.get("/notes/sample/", headers={"If-None-Match": stale["ETag"]}).status_code == 200


@pytest.mark.django_db
def test_the_csrf_endpoint_sets_the_cookie_and_is_never_cached(client):
    response = client.get("/csrf/")
    assert response.status_code == 204 and "csrftoken" in response.cookies
    assert "no-cache" in response.headers["Cache-Control"]


def _headers(response) -> list[tuple[str, str]]:
    """Every header in the order sent, less the one that says which path answered."""
    return [(k, v) for k, v in response.headers.items() if k != "X-Page-Cache"]


def _variants() -> list[str]:
    note = next(iter(library().notes()))
    pages = ["/", f"/notes/{note}/", "/glossary/", "/sandbox/parallel-lookups/steps/2/"]
    return [f"{prefix}{url}" for prefix in ("", "/pl", "/zh-hans") for url in pages]


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_a_cache_hit_is_byte_for_byte_the_page_the_whole_stack_gives(client, htmx):
    # The hit is answered before the middleware stack runs: everything the stack adds (security
    # headers, CSP, Content-Language, Vary, Content-Length, X-Frame-Options) came with the page.
    headers = {"HX-Request": "true"} if htmx else {}
    for url in _variants():
        rendered = client.get(url, headers=headers)
        hit = client.get(url, headers=headers)
        assert rendered.status_code == hit.status_code == 200, url
        assert rendered.headers["X-Page-Cache"] == "miss" and hit.headers["X-Page-Cache"] == "hit"
        assert hit.content == rendered.content, url
        assert _headers(hit) == _headers(rendered), url
        assert not hit.cookies and not rendered.cookies, url
        names = {k.lower() for k, _ in _headers(hit)}
        assert {"content-security-policy", "x-frame-options", "x-content-type-options",
                "referrer-policy", "content-language", "content-length"} <= names, url  # fmt: skip
        language = url.split("/")[1] if url.startswith(("/pl/", "/zh-hans/")) else "en"
        assert hit.headers["Content-Language"] == language, url
        # A revalidation: 304, no body, the page's headers but the ones that describe a body.
        revalidated = client.get(url, headers={**headers, "If-None-Match": hit.headers["ETag"]})
        assert revalidated.status_code == 304 and revalidated.content == b"", url
        expected = [(k, v) for k, v in _headers(hit) if k not in ("Content-Type", "Content-Length")]
        assert _headers(revalidated) == expected, url
        stale = client.get(url, headers={**headers, "If-None-Match": '"other"'})
        assert stale.status_code == 200 and stale.content == hit.content, url


@pytest.mark.django_db
def test_the_cached_language_is_the_one_the_slow_path_picks(client):
    # Unprefixed URLs are English whatever the language cookie or Accept-Language say (the URL
    # alone decides); the first visitor, who asked for Polish, fills the cache with English.
    asks_polish = {"Accept-Language": "pl", "Cookie": "django_language=pl"}
    for url in ("/", "/glossary/"):
        first = client.get(url, headers=asks_polish)
        assert first.headers["X-Page-Cache"] == "miss"
        assert first.headers["Content-Language"] == "en" and '<html lang="en"' in first.text
        plain = client.get(url)
        assert plain.headers["X-Page-Cache"] == "hit" and plain.content == first.content
        polish = client.get(f"/pl{url}")
        assert polish.headers["X-Page-Cache"] == "miss" and polish.content != first.content
        assert polish.headers["Content-Language"] == "pl"


@pytest.mark.django_db
def test_htmx_fragment_history_restore_and_page_are_three_entries(client):
    url = "/sandbox/parallel-lookups/steps/2/"
    restore = {"HX-Request": "true", "HX-History-Restore-Request": "true"}
    page, fragment, whole = (
        client.get(url), client.get(url, headers={"HX-Request": "true"}),
        client.get(url, headers=restore),
    )  # fmt: skip
    assert [r.headers["X-Page-Cache"] for r in (page, fragment, whole)] == ["miss"] * 3
    assert client.get(url, headers=restore).content == whole.content


@pytest.mark.django_db
def test_what_the_cache_never_answers(client):
    url = f"/notes/{next(iter(library().notes()))}/"
    client.get(url)
    assert client.get(url).headers["X-Page-Cache"] == "hit"
    # a POST, a pending message, a session: rendered for that visitor, never the shared page
    assert "X-Page-Cache" not in client.post(url).headers
    for cookie in ("messages=abc", "sessionid=nosuchsession"):
        response = client.get(url, headers={"Cookie": cookie})
        assert "X-Page-Cache" not in response.headers, cookie
        assert "private" in response.headers["Cache-Control"], cookie
    # A CSRF cookie the CSRF middleware would replace: the page it renders sets a new one.
    response = client.get(url, headers={"Cookie": "csrftoken=short"})
    assert "X-Page-Cache" not in response.headers and "csrftoken" in response.cookies
    # A well-formed one changes nothing the stack sends: the shared page.
    token = "a" * 32
    assert (
        client.get(url, headers={"Cookie": f"csrftoken={token}"}).headers["X-Page-Cache"] == "hit"
    )


@pytest.mark.django_db
def test_a_page_stored_over_https_is_not_the_answer_over_http(client, settings):
    url = "/glossary/"
    secure = client.get(url, headers={"X-Forwarded-Proto": "https"})
    assert secure.headers["X-Page-Cache"] == "miss" and "Strict-Transport-Security" in secure
    plain = client.get(url)
    assert plain.headers["X-Page-Cache"] == "miss" and "Strict-Transport-Security" not in plain
    assert client.get(url, headers={"X-Forwarded-Proto": "https"}).headers["X-Page-Cache"] == "hit"


@pytest.mark.django_db
def test_a_content_reload_in_another_process_reaches_this_one(client, settings):
    # Another server's loadcontent writes a new version to the shared cache; this process reads
    # it once its own copy of the version is PAGE_CACHE_VERSION_SECONDS old (0 here: at once).
    from django.core.cache import caches

    from studyapp import pagecache

    settings.PAGE_CACHE_VERSION_SECONDS = 0
    url = "/glossary/"
    client.get(url)
    old = client.get(url)
    assert old.headers["X-Page-Cache"] == "hit"
    caches[settings.PAGE_CACHE_ALIAS].set(pagecache.VERSION_KEY, "1999999999.feedbeef", None)
    fresh = client.get(url)
    assert fresh.headers["X-Page-Cache"] == "miss" and fresh.headers["ETag"] != old.headers["ETag"]
    assert fresh.headers["ETag"].startswith('"1999999999.feedbeef-')


@pytest.mark.django_db
def test_only_shared_pages_look_in_the_cache(client, monkeypatch):
    # /healthz, a 404 and the other pages never read the content version (nor Redis): each
    # path is resolved once per process, as the stack resolves it, and remembered.
    from studyapp import pagecache

    reads = []
    real = pagecache.content_version
    monkeypatch.setattr(pagecache, "content_version", lambda: reads.append(1) or real())
    for url in ("/healthz", "/healthz", "/practice/", "/pl/practice/", "/no/such/page/"):
        client.get(url)
    assert reads == []
    for url in ("/glossary/", "/pl/glossary/", "/glossary/"):
        client.get(url)
    assert len(reads) == 3
    assert client.get("/pl/glossary/").headers["X-Page-Cache"] == "hit"


@pytest.mark.django_db
def test_a_post_or_a_signed_in_page_is_not_resolved_by_the_page_cache(client, learner, monkeypatch):
    # Such a request is never answered from the cache: its path (an attempt's, a run's id) is
    # resolved once, by the handler, not first by the page cache too.
    from studyapp import pagecache

    resolved = []
    real = pagecache.resolve
    monkeypatch.setattr(pagecache, "resolve", lambda path: resolved.append(path) or real(path))
    # Paths no other test opens: what the page cache resolved is remembered for the process.
    client.post("/notes/posted-by-test-pagecache/")
    client.force_login(learner)
    client.get("/notes/signed-in-test-pagecache/")
    assert resolved == []
    client.logout()
    client.get("/notes/anonymous-test-pagecache/")
    assert resolved == ["/notes/anonymous-test-pagecache/"]


@pytest.mark.django_db
def test_a_question_published_in_the_browser_reaches_the_cached_note_pages(
    client, notes_dir, django_capture_on_commit_callbacks
):
    """A note page ends with check-yourself questions from the bank: an anonymous reader must
    not be served the cached page without the question an author just published (or with the
    version an author just replaced) for PAGE_CACHE_SECONDS. A preview writes nothing."""
    from authoring import services
    from quizzes import bank
    from quizzes.models import Question

    from .factories import parse_question

    (notes_dir / "01-sample.md").write_text(note_text(subtopics="[guards]"))
    draft = bank.save_question(
        {**parse_question("single", "cached-q", "guards"), "status": "draft"}
    )
    before = client.get("/notes/sample/")
    assert before.headers["X-Page-Cache"] == "miss" and draft.stem_html not in before.text
    assert client.get("/notes/sample/").headers["X-Page-Cache"] == "hit"

    with django_capture_on_commit_callbacks(execute=True):
        services.preview({**services.question_parsed(draft), "stem": "Changed."}, str)
    assert client.get("/notes/sample/").headers["X-Page-Cache"] == "hit"  # nothing was written

    with django_capture_on_commit_callbacks(execute=True):
        services.question_publish(question=draft)
    after = client.get("/notes/sample/")
    assert after.headers["X-Page-Cache"] == "miss" and draft.stem_html in after.text
    assert after.headers["ETag"] != before.headers["ETag"]

    with django_capture_on_commit_callbacks(execute=True):
        published = Question.objects.get(pk=draft.pk)
        parsed = {**services.question_parsed(published), "stem": "A new wording of the stem."}
        services.question_save(parsed=parsed, publish=True)
    again = client.get("/notes/sample/")
    assert "A new wording of the stem." in again.text and draft.stem_html not in again.text
    assert Question.objects.current().get(slug="cached-q").version == 2
