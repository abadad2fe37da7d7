"""No English interface text on the Polish and Chinese pages (issue 16: "every interface string
marked").

Every page kind the URLconf has (the access matrix's rows), plus the pages that show generated
text (notes with diagrams and tables, a run the contract checker flags, live scenarios,
flashcards, error pages, form errors), is fetched under /pl/ and /zh-hans/. The words a reader
sees (text and labelling attributes; code, ``lang="en"`` quotes and a transcript's own words
left out) must hold no English sentence and none of the English labels the code generates.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from studyapp.sandbox.library import library
from tests import english_text
from tests.access import MATRIX, client_as
from tests.english_text import english_left, parsed_visible_text, visible_text

PREFIXES = ("/pl", "/zh-hans")


@pytest.fixture
def world(shared_world):
    return shared_world


def _pages(world) -> list[tuple[str, str]]:
    """(role, unprefixed URL) of every page a GET shows, as the first role that may see it."""
    pages = []
    for name, row in MATRIX.items():
        role = next((r for r in ("learner", "instructor") if row.get[r] == 200), None)
        if role and name not in ("healthz", "progress:anki_export"):
            pages.append((role, row.url(name, world)))
    runs = library().runs()
    flagged = next(  # a library run the contract checker flags at one of its steps
        (key, f.step) for key, run in sorted(runs.items()) for f in run.findings if f.step
    )
    pages += [
        ("learner", f"/sandbox/{flagged[0]}/steps/{flagged[1] + 1}/"),
        ("learner", f"/sandbox/{flagged[0]}/overview/"),
        ("learner", "/notes/stop-reasons/"),  # a diagram and tables
        ("learner", "/notes/guards/"),
        ("learner", "/notes/parallel/"),
        ("learner", "/notes/thinking/"),
        ("learner", "/notes/loop-basics/"),
        ("learner", "/review/cards/"),
        ("learner", "/sandbox/live/"),
        ("learner", "/no-such-page/"),  # the 404 page
        ("instructor", "/author/questions/new/?kind=next_action"),
    ]
    return pages


def _fetch(world, role: str, url: str) -> str:
    response = client_as(Client(), world, role).get(url)
    assert response.status_code in (200, 404), (url, response.status_code)
    return response.content.decode()


@pytest.mark.parametrize("prefix", PREFIXES)
def test_no_page_shows_english_interface_text(world, prefix):
    left, compared = {}, 0
    for role, url in _pages(world):
        html = _fetch(world, role, prefix + url)
        found = english_left(html)
        if found:
            left[prefix + url] = sorted(set(found))[:4]
        if url == "/notes/stop-reasons/":  # diagrams, tables, code: the fast reader's words
            assert visible_text(html) == parsed_visible_text(html)  # are html.parser's
            compared += 1
    assert not left, f"English left on {len(left)} pages: {left}"
    assert compared == 1


@pytest.mark.parametrize("prefix", PREFIXES)
def test_form_errors_speak_the_page_language(world, prefix):
    client = client_as(Client(), world, "learner")
    response = client.post(prefix + "/practice/", {"which": "nonsense", "count": "many"})
    assert response.status_code in (200, 400)
    assert not english_left(response.content.decode())
    signup = Client().post(prefix + "/accounts/signup/", {"username": "", "password1": "x"})
    assert not english_left(signup.content.decode())


def test_the_detector_finds_what_the_pages_would_show_in_english():
    """The check itself: an English finding, a diagram's words, a table label are caught; a
    Polish sentence with API names, code and an English quote marked as such is not."""
    assert english_left(
        "<p>messages[3] calls toolu_1, but the request ends there, with no user message.</p>"
    )
    assert english_left("<figure><summary>The diagram in words</summary></figure>")
    assert english_left('<div role="region" aria-label="Table 2"></div>')
    assert not english_left(
        "<p>Odeślij <code>tool_result</code> w tej samej wiadomości user, gdy stop_reason to "
        'tool_use.</p><q lang="en">Continue on tool_use, stop on end_turn, and append the '
        "results.</q><pre>if the response has tool_use blocks: run them</pre>"
    )


#: Markup of every kind the pages hold, each way html.parser reads it: a doctype, comments,
#: script and style holding tags, character references in text and attributes, upper-case
#: names, attributes bare, single-quoted, repeated or without a value, empty and void elements
#: (and a void end tag), and each way text is left out or read.
PAGE_MARKUP = """<!DOCTYPE html><!-- a comment <p>The end of the loop</p> --><HTML lang=pl>
<head><title>Pętla &amp; narzędzia</title><style>p > a { content: "<b>" }</style>
<script type="module">if (a < b && "</div>") { x = '<p>' }</script ></head><body>
<P CLASS='lead' Title="Krok&nbsp;3 &#8211; koniec" data-x=1 hidden>Zatrzymaj się&nbsp;&lt;tu&gt;
</P><img alt="Wykres" src=/a.png><br/></br><input type=submit value="Wyślij"/>
<input type="text" value="not read" placeholder='Szukaj…'><button type="button" value=B>x</button>
<div class="block-text">The model's own words, with the answer.</div><q lang="EN-gb">From
the docs, with the text.</q><span translate="no">API <i title="The name">name</i></span>
<pre><code>if the response has tool_use blocks: <b>run</b> them</code></pre>
<div aria-label="Tabela 2" aria-description="" class="prose result-text-not">&#x41;
 tekst <em>z</em>   odstępami </div><template><p>Hidden, with the rest.</p></template>
<svg viewBox="0 0 10 10"><text x="1">Etykieta</text><path d="M0 0"/></svg>&#32;
<a href="/pl/notes/?q=a&amp;b=c" title=Link>Notatki</a></body></HTML>   """

#: Markup the expression does not read, for html.parser: a stray "<", a CDATA section, a
#: processing instruction, an end tag with attributes, attributes run together, a script that
#: does not end, a bogus comment, a tag left open at the end.
ODD_MARKUP = [
    "<p>a < b, with the rest</p>",
    "<p><![CDATA[x]]>The end of the loop, with</p>",
    "<?xml version='1.0'?><p>Tekst</p>",
    "<p>Tekst</p class=x><p>Więcej</p>",
    '<p title="a"class="b">Tekst</p>',
    "<p>Tekst</p><script>if (a) { with the rest",
    "<!x><p>Tekst</p><! bogus>",
    '<p>Tekst</p><a href="x',
    "<div lang=en>With the end of</div><p title==b>Tekst</p>",
]


def test_the_fast_reader_reads_what_html_parser_reads(monkeypatch):
    """visible_text (one expression over the page) gives parsed_visible_text's words (html.parser
    reading the page) for every kind of markup, and reads the pages' own markup without falling
    back to html.parser (the sweep above compares the two on a rendered note as well)."""
    expected = parsed_visible_text(PAGE_MARKUP)
    assert "Krok\xa03 – koniec" in expected and "Zatrzymaj się <tu>" in expected
    assert "Wyślij" in expected and "A tekst" in expected and "not read" not in expected
    for odd in ODD_MARKUP:
        assert visible_text(odd) == parsed_visible_text(odd), odd
    monkeypatch.setattr(english_text, "parsed_visible_text", None)  # no fallback from here
    assert visible_text(PAGE_MARKUP) == expected
    assert visible_text(PAGE_MARKUP.replace("\n", "\r\n\t")) == parsed_visible_text(
        PAGE_MARKUP.replace("\n", "\r\n\t")
    )


@pytest.mark.django_db
def test_a_cached_finding_is_read_in_each_language(client):
    """Findings are computed once per run (the library caches them) and read per request."""
    runs = library().runs()
    key, step = next((k, f.step) for k, r in sorted(runs.items()) for f in r.findings if f.step)
    finding = next(f for f in runs[key].findings if f.step == step)
    url = f"/sandbox/{key}/steps/{step + 1}/"
    english = client.get(url).content.decode()
    polish = client.get("/pl" + url).content.decode()
    chinese = client.get("/zh-hans" + url).content.decode()
    from django.utils import translation
    from django.utils.html import escape

    with translation.override("en"):
        assert escape(finding.message) in english
    with translation.override("pl"):
        assert escape(finding.message) in polish and finding.message != finding.text % {
            k: str(v) for k, v in finding.params.items()
        }
    again = client.get(url).content.decode()
    with translation.override("en"):
        assert escape(finding.message) in again  # English again: the cache kept no language
    assert not english_left(polish) and not english_left(chinese)


@pytest.mark.django_db
@pytest.mark.parametrize("prefix", ["", "/pl", "/zh-hant"])
def test_the_instructor_subnav_marks_the_current_page_under_every_prefix(
    client, instructor, prefix
):
    client.force_login(instructor)
    for page, label_url in [
        ("/author/import/", "/author/import/"),
        ("/author/stats/", "/author/stats/"),
        ("/author/reports/", "/author/reports/"),
        ("/author/grading/", "/author/grading/"),
        ("/author/questions/new/", "/author/questions/new/"),
        ("/author/", "/author/"),
    ]:
        html = client.get(prefix + page).content.decode()
        nav = re.search(r'<nav aria-label="[^"]*" class="subnav">.*?</nav>', html, re.S)[0]
        current = re.findall(r'<a href="([^"]+)" aria-current="page"', nav)
        assert current == [prefix + label_url], (prefix, page, current)


@pytest.mark.django_db
def test_counts_are_grouped_the_way_each_language_writes_numbers(client):
    """Token counts (the context table) use the locale's thousands separator."""
    runs = library().runs()
    key = next(
        k
        for k, r in sorted(runs.items())
        if any(t.context_tokens >= 1000 for t in r.transcript.turns)
    )
    run = runs[key]
    big = next(t.context_tokens for t in run.transcript.turns if t.context_tokens >= 1000)
    url = f"/sandbox/{key}/steps/1/"
    english = client.get(url).content.decode()
    polish = client.get("/pl" + url).content.decode()
    assert f"<td>{big:,}</td>" in english
    assert f"<td>{big:,}</td>".replace(",", "\xa0") in polish


def test_model_rule_findings_follow_the_reader_language():
    """A per-model finding (models.check_request, through the checker) is worded when read."""
    from django.utils import translation

    from studyapp.agentloop import contract

    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}]
    found = contract.check(messages, model="claude-opus-5-5", params={"temperature": 0.5})
    assert found
    with translation.override("en"):
        english = [f.message for f in found]
    with translation.override("pl"):
        polish = [f.message for f in found]
    with translation.override("zh-hant"):
        chinese = [f.message for f in found]
    assert all(e != p for e, p in zip(english, polish, strict=True))
    for text in polish + chinese:
        assert not english_left(f"<p>{text}</p>"), text
    assert any("claude-opus-5-5" in t for t in polish)  # the model id stays as it is


@pytest.mark.parametrize("lang", ["pl", "zh-hans", "zh-hant"])
def test_translated_diagram_labels_still_fit_their_boxes(lang):
    from django.utils import translation

    from studyapp.notes import diagrams

    with translation.override(lang):
        built = {name: build() for name, build in diagrams.ALL.items()}
        words = diagrams.ALL["guards"]().html()
    assert [p for d in built.values() for p in d.problems()] == []
    assert not english_left(words)


def test_a_review_reason_compares_in_english_and_reads_in_polish():
    import pickle

    from django.utils import translation

    from quizzes import stats

    item = stats.ItemStats("x", 40, 95, 10, -10, 40)
    reason = stats.review_reason(item)
    assert reason == "negative discrimination (-10 %); facility above 90 % (95 %): too easy"
    again = pickle.loads(pickle.dumps(reason))  # noqa: S301 - our own object: the report is cached
    with translation.override("pl"):
        assert str(again) == (
            "ujemny wskaźnik dyskryminacji (-10 %); "
            "współczynnik łatwości powyżej 90 % (95 %): za łatwe"
        )


@pytest.mark.django_db
def test_an_untranslated_stem_is_marked_as_english(client, one_of_each):
    """A question with no translation keeps its English words, and says so to screen readers."""
    client.get("/")
    client.post("/practice/", {"which": "all", "count": 20})
    from quizzes.models import Attempt

    attempt = Attempt.objects.latest("pk")  # this visitor's, just started
    polish = client.get(f"/pl/practice/{attempt.pk}/1/").content.decode()
    english = client.get(f"/practice/{attempt.pk}/1/").content.decode()
    assert '<div class="stem prose" lang="en">' in polish
    assert '<div class="stem prose">' in english
