"""Full-text search over the notes and the glossary: one interface, two engines.

``search(query)`` returns :class:`Hit` objects, best first. On SQLite it uses the FTS5 table
that the notes migration creates; on PostgreSQL, ``to_tsvector``/``websearch_to_tsquery``
(English configuration) computed in the query. The index is a table of sections
(``SearchDoc``), rebuilt by :func:`rebuild` whenever the notes or the glossary change.
"""

from __future__ import annotations

import functools
import hashlib
import html
import re
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import translation
from django.utils.html import strip_tags

from core import i18n

from .loader import glossary, notes_in
from .models import SearchDoc

MAX_QUERY = 200
LIMIT = 20
# Markers that cannot occur in the text, swapped for <mark> after escaping.
OPEN, CLOSE = "\x02", "\x03"
SECTION_RE = re.compile(r'<h2 id="([^"]+)">(.*?)</h2>', re.DOTALL)
WORD_RE = re.compile(r"\w+", re.UNICODE)
# Chinese is written without spaces, so FTS5's unicode61 words are whole phrases: a query with
# Han characters is matched as a substring instead (a few hundred rows per language).
HAN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass
class Hit:
    kind: str
    url: str
    title: str
    context: str
    snippet_html: str  # escaped text with <mark> around the matched words


def engine() -> str:
    return "postgresql" if connection.vendor == "postgresql" else "sqlite"


# A tag as the Markdown renderer writes them: a name, then attributes with a quoted value
# holding no < or >, a bare value or none. Python's HTMLParser (which strip_tags runs) reads each
# such tag whole, from its < to its >, and drops it.
_TAG_RE = re.compile(
    r"</[a-zA-Z][a-zA-Z0-9]*\s*>"
    r"|<[a-zA-Z][a-zA-Z0-9]*"
    r"""(?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'=<>`]+))?)*"""
    r"\s*/?>"
)
# An & that does not start a whole reference (&amp; &#39; &#x27;): HTMLParser would rewrite it.
_LOOSE_AMP_RE = re.compile(r"&(?![a-zA-Z][a-zA-Z0-9]*;|#[0-9]+;|#[xX][0-9a-fA-F]+;)")
# An element whose content an HTMLParser may read as raw text, tags and references and all
# (script and style; title and textarea too in newer Pythons), unless it holds only plain text
# (an SVG diagram's <title>).
_RAW_TEXT_RE = re.compile(
    r"<(script|style|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)\b"
    r"(?![^<>]*>[^<&]*</\1>)",
    re.I,
)


def _strip(fragment: str) -> str:
    """``strip_tags(fragment)``: the same text, without running the HTML parser over a fragment
    that is only such tags and text (the notes' HTML: 1.2 MB in all languages, about 0.15 s of
    parsing). Text left with a < or a >, a loose &, or raw text that is not plain goes to
    strip_tags."""
    if not _RAW_TEXT_RE.search(fragment):
        text = _TAG_RE.sub("", fragment)
        if "<" not in text and ">" not in text and not _LOOSE_AMP_RE.search(text):
            return text
    return strip_tags(fragment)


@functools.lru_cache(maxsize=4096)
def _text(fragment: str) -> str:
    """A fragment of a note's HTML as plain text. Every search checks the index against the
    content (``rebuild``), which needs every section's text in every language (about 950
    fragments): stripping tags with Django's HTML parser cost 0.2 s a search before this cache."""
    return re.sub(r"\s+", " ", html.unescape(_strip(fragment))).strip()


def documents() -> list[dict]:
    """Every searchable unit, per language: each note's opening and each of its ## sections,
    each glossary term (in the language's own words where translated)."""
    docs = []
    for lang in i18n.CODES:
        with translation.override(lang):
            docs.extend(_documents(lang))
    return docs


def _documents(lang: str) -> list[dict]:
    docs = []
    glossary_title = translation.gettext("Glossary")
    for note in notes_in(lang).values():
        url = reverse("notes:detail", args=[note.slug])
        parts = SECTION_RE.split(note.html)
        intro = " ".join([note.summary, *map(_text, note.key_points), _text(parts[0])])
        docs.append(
            {"kind": "note", "url": url, "title": note.title, "context": note.title,
             "body": intro, "lang": lang}
        )  # fmt: skip
        for i in range(1, len(parts), 3):
            anchor, heading, body = parts[i], _text(parts[i + 1]), _text(parts[i + 2])
            docs.append(
                {"kind": "note", "url": f"{url}#{anchor}", "title": heading,
                 "context": note.title, "body": body, "lang": lang}
            )  # fmt: skip
    for term in glossary(lang):
        title = f"{term.term} ({term.local})" if term.local else term.term
        docs.append(
            {"kind": "term", "url": term.link, "title": title, "context": glossary_title,
             "body": term.definition, "lang": lang}
        )  # fmt: skip
    return docs


def _signature(docs: list[dict]) -> str:
    digest = hashlib.sha256()
    for d in docs:
        digest.update("\x1f".join(d.values()).encode())
    return digest.hexdigest()


#: (what the documents were made of, the documents, their signature), for _indexed()
_made: list[tuple[tuple, list[dict], str]] = []


def _indexed() -> tuple[list[dict], str]:
    """documents() and their signature, made again only when what they are made of changed:
    every search checks the index, and making the documents (about a thousand sections of
    text in every language) cost more than the search. The notes are compared by identity (the
    libraries hand out the same dicts until a file changes), the rest by value."""
    notes, rest = [], []
    for lang in i18n.CODES:
        with translation.override(lang):
            notes.append(notes_in(lang))
            rest.append((translation.gettext("Glossary"), tuple(glossary(lang))))
    key = (str(settings.CONTENT_DIR), tuple(rest))
    for made_of, docs, signature in _made:
        if made_of[1] == key and all(a is b for a, b in zip(made_of[0], notes, strict=True)):
            return docs, signature
    docs = documents()
    signature = _signature(docs)
    _made[:] = [((tuple(notes), key), docs, signature)]
    return docs, signature


def rebuild(force: bool = False) -> bool:
    """Bring the index in line with the content; returns True when it had to be rebuilt."""
    docs, signature = _indexed()
    stored = SearchDoc.objects.filter(kind=SearchDoc.Kind.SIGNATURE).values_list("body", flat=True)
    if not force and list(stored) == [signature]:
        return False
    with transaction.atomic():
        SearchDoc.objects.all().delete()
        SearchDoc.objects.bulk_create([SearchDoc(**d) for d in docs])
        SearchDoc.objects.create(kind=SearchDoc.Kind.SIGNATURE, url="", title="", body=signature)
        if engine() == "sqlite":
            with connection.cursor() as cur:
                cur.execute(
                    "INSERT INTO notes_searchdoc_fts(notes_searchdoc_fts) VALUES('rebuild')"
                )
    return True


def _mark(text: str) -> str:
    return html.escape(text).replace(OPEN, "<mark>").replace(CLOSE, "</mark>")


def _sqlite(words: list[str], limit: int, lang: str) -> list[Hit]:
    # Every word must appear (prefix match); quoting makes FTS5 syntax in the input inert.
    match = " ".join('"{}"*'.format(w.replace('"', "")) for w in words)
    sql = (
        "SELECT d.kind, d.url, d.title, d.context, "
        "snippet(notes_searchdoc_fts, 1, %s, %s, '…', 16) "
        "FROM notes_searchdoc_fts JOIN notes_searchdoc d ON d.id = notes_searchdoc_fts.rowid "
        "WHERE notes_searchdoc_fts MATCH %s AND d.kind != 'signature' AND d.lang = %s "
        "ORDER BY bm25(notes_searchdoc_fts, 5.0, 1.0) LIMIT %s"
    )
    with connection.cursor() as cur:
        cur.execute(sql, [OPEN, CLOSE, match, lang, limit])
        rows = cur.fetchall()
    return [Hit(k, u, t, c, _mark(s)) for k, u, t, c, s in rows]


def _substring(words: list[str], limit: int, lang: str) -> list[Hit]:
    """Han text: every word a substring of the title or body; titles first."""
    rows = SearchDoc.objects.filter(lang=lang).exclude(kind=SearchDoc.Kind.SIGNATURE)
    for w in words:
        rows = rows.filter(Q(title__icontains=w) | Q(body__icontains=w))
    hits = []
    for r in sorted(rows[: limit * 3], key=lambda r: (words[0] not in r.title, r.id))[:limit]:
        at = r.body.find(words[0])
        start = max(0, at - 40) if at >= 0 else 0
        text = r.body[start : start + 120]
        for w in words:
            text = text.replace(w, f"{OPEN}{w}{CLOSE}")
        hits.append(Hit(r.kind, r.url, r.title, r.context, _mark(("…" if start else "") + text)))
    return hits


def _postgresql(query: str, limit: int, lang: str) -> list[Hit]:
    from django.contrib.postgres.search import (
        SearchHeadline,
        SearchQuery,
        SearchRank,
        SearchVector,
    )

    config = "english" if lang == "en" else "simple"  # no Polish or Chinese stemmer built in
    vector = SearchVector("title", weight="A", config=config) + SearchVector(
        "body", weight="B", config=config
    )
    sq = SearchQuery(query, search_type="websearch", config=config)
    rows = (
        SearchDoc.objects.filter(lang=lang).exclude(kind=SearchDoc.Kind.SIGNATURE)
        .annotate(document=vector, rank=SearchRank(vector, sq))
        .filter(document=sq)
        .annotate(
            snippet=SearchHeadline(
                "body", sq, config=config, start_sel=OPEN, stop_sel=CLOSE, max_words=30,
                min_words=12,
            )
        )
        .order_by("-rank", "id")[:limit]
    )  # fmt: skip
    return [Hit(r.kind, r.url, r.title, r.context, _mark(r.snippet)) for r in rows]


def search(query: str, limit: int = LIMIT, lang: str | None = None) -> list[Hit]:
    """The best matches for a query typed by anyone, among the pages of ``lang`` (the active
    language): never raises on odd input."""
    lang = lang or i18n.current()
    query = (query or "")[:MAX_QUERY]
    words = WORD_RE.findall(query.lower())
    if not words:
        return []
    rebuild()
    if HAN_RE.search(query):
        return _substring(words, limit, lang)
    if engine() == "postgresql":
        return _postgresql(" ".join(words), limit, lang)
    return _sqlite(words, limit, lang)
