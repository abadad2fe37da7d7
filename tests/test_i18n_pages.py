"""Four languages in the URL: <html lang>, hreflang alternates, the switcher and the page cache."""

from __future__ import annotations

import re

import pytest

from studyapp.notes.loader import library

LANGS = {"en": "", "zh-hans": "/zh-hans", "zh-hant": "/zh-hant", "pl": "/pl"}
TAGS = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant", "pl": "pl"}


def note_slug() -> str:
    return next(iter(library().notes()))


def pages() -> list[str]:
    return ["/", "/notes/", f"/notes/{note_slug()}/", "/glossary/", "/practice/"]


def switcher(html: str) -> dict[str, str]:
    nav = re.search(r'<nav class="language-switcher".*?</nav>', html, re.S)
    assert nav, "no language switcher"
    return dict(
        (lang, href.replace("&amp;", "&"))
        for href, lang in re.findall(r'<a href="([^"]*)" lang="([^"]+)"', nav[0])
    )


@pytest.mark.django_db
@pytest.mark.parametrize("code", LANGS)
def test_every_page_names_its_language_in_bcp_47(client, code):
    for page in pages():
        response = client.get(LANGS[code] + page)
        assert response.status_code == 200, (code, page)
        html = response.content.decode()
        assert re.search(rf'<html lang="{TAGS[code]}"', html), (code, page)
        assert response.headers["Content-Language"] == code


@pytest.mark.django_db
def test_each_page_lists_itself_in_every_language_with_an_english_x_default(client):
    page = f"/notes/{note_slug()}/"
    html = client.get("/pl" + page).content.decode()
    alternates = dict(re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)"', html))
    assert alternates == {
        "en": f"http://testserver{page}",
        "x-default": f"http://testserver{page}",
        "zh-Hans": f"http://testserver/zh-hans{page}",
        "zh-Hant": f"http://testserver/zh-hant{page}",
        "pl": f"http://testserver/pl{page}",
    }


@pytest.mark.django_db
@pytest.mark.parametrize("code", LANGS)
def test_the_switcher_links_to_the_same_page_and_query_in_each_language(client, code, search_index):
    page = "/notes/search/?q=tool_use&x=1"
    html = client.get(LANGS[code] + page).content.decode()
    links = switcher(html)
    assert links == {TAGS[c]: f"{prefix}{page}" for c, prefix in LANGS.items()}
    assert re.search(rf'lang="{TAGS[code]}"[^>]*aria-current="true"', html)
    # and each link opens the page in that language: the link to a language is the URL that
    # language's case fetched, and this page is in this case's language
    assert f'<html lang="{TAGS[code]}"' in html


@pytest.mark.django_db
def test_machine_endpoints_have_no_language_prefix(client):
    assert client.get("/healthz").status_code == 200
    assert client.get("/pl/healthz").status_code == 404
    assert client.get("/csrf/").status_code == 204


@pytest.mark.django_db
def test_an_unprefixed_url_is_english_whatever_the_browser_asks_for(client):
    response = client.get("/notes/", headers={"Accept-Language": "pl,zh;q=0.8"})
    assert '<html lang="en"' in response.content.decode()


@pytest.mark.django_db
def test_the_page_cache_keeps_one_copy_per_language_without_cookies(client):
    url = f"/notes/{note_slug()}/"
    seen = {}
    for code, prefix in LANGS.items():
        first = client.get(prefix + url)
        assert first.headers["X-Page-Cache"] == "miss", code  # not the other language's copy
        assert not first.cookies, code
        assert f'<html lang="{TAGS[code]}"' in first.content.decode()
        second = client.get(prefix + url)
        assert second.headers["X-Page-Cache"] == "hit" and second.content == first.content
        seen[code] = first.headers["ETag"]
        again = client.get(prefix + url, headers={"If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304, code
    assert len(set(seen.values())) == 4  # one ETag per language
    # An English ETag does not validate the Polish page.
    other = client.get("/pl" + url, headers={"If-None-Match": seen["en"]})
    assert other.status_code == 200


@pytest.mark.django_db
def test_dates_are_written_the_way_each_language_writes_them(client):
    slug = note_slug()
    verified = library().notes()[slug].last_verified
    html = {c: client.get(f"{p}/notes/{slug}/").content.decode() for c, p in LANGS.items()}
    assert f">{verified.day} {verified:%B} {verified.year}</time>" in html["en"]
    assert f">{verified.year}年{verified.month}月{verified.day}日</time>" in html["zh-hans"]
    polish_months = ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca",
                     "sierpnia", "września", "października", "listopada", "grudnia"]  # fmt: skip
    assert (
        f">{verified.day} {polish_months[verified.month - 1]} {verified.year}</time>" in html["pl"]
    )


@pytest.mark.django_db
@pytest.mark.parametrize("code", LANGS)
def test_the_switcher_keeps_a_practice_question_and_a_sandbox_step(client, one_of_each, code):
    client.get("/")
    client.post("/practice/", {"which": "all", "count": 20})
    from quizzes.models import Attempt

    attempt = Attempt.objects.get()
    for page in (f"/practice/{attempt.pk}/2/", "/sandbox/parallel-lookups/steps/2/"):
        response = client.get(LANGS[code] + page)
        assert response.status_code == 200, page
        html = response.content.decode()
        links = switcher(html)
        assert links == {TAGS[c]: prefix + page for c, prefix in LANGS.items()}, page
        # Each link opens the same question / step in its language: the link to a language is
        # the URL that language's case fetched, and this page is in this case's language.
        assert f'<html lang="{TAGS[code]}"' in html, page


@pytest.mark.django_db
def test_the_header_marks_the_current_section_in_every_language(client, instructor):
    for prefix in LANGS.values():
        html = client.get(f"{prefix}/notes/").content.decode()
        assert re.search(rf'<a href="{prefix}/notes/" aria-current="page">', html), prefix
    client.force_login(instructor)
    polish = client.get("/pl/author/").content.decode()
    assert 'href="/pl/author/import/"' in polish  # the instructors' sub-navigation is there


@pytest.mark.django_db
def test_every_note_and_the_glossary_render_in_every_language(client):
    for prefix in LANGS.values():
        for slug in library().notes():
            response = client.get(f"{prefix}/notes/{slug}/")
            assert response.status_code == 200, (prefix, slug)
        assert client.get(f"{prefix}/glossary/").status_code == 200
        assert client.get(f"{prefix}/notes/cheat-sheet/").status_code == 200
        assert client.get(f"{prefix}/notes/search/?q=tool_use").status_code == 200


def test_the_path_language_is_the_one_django_finds():
    """core.i18n.language_from_path skips Django's lookup for a first segment that cannot be a
    language: for every path, it answers what translation.get_language_from_path answers."""
    from django.conf.locale import LANG_INFO
    from django.utils.translation import get_language_from_path

    from core.i18n import language_from_path

    segments = [*LANG_INFO, "", "notes", "PL", "Zh-Hans", "ZH-TW", "En"]
    segments += [
        "zh",
        "zh-TW",
        "zh-hant-tw",
        "zh-hans-cn-x",
        "pl-pl",
        "en-us",
        "en@x-y",
        "sr@latin",
    ]
    segments += ["zh_hans", "plx", "p", "enn", "ü", "pl-" * 20 + "x", "zh-" + "x" * 30, "é-pl"]
    paths = [f"/{s}{end}" for s in segments for end in ("", "/", "/notes/x/")]
    paths += ["", "x", "//pl/", "/?pl", "/pl?x"]
    found = [(path, get_language_from_path(path)) for path in paths]
    assert [(path, language_from_path(path)) for path in paths] == found
    assert {code and code.lower() for _, code in found} == {None, "en", "pl", "zh-hans", "zh-hant"}
