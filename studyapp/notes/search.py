"""Full-text search over the notes and the glossary: one interface, two engines.

``search(query)`` returns :class:`Hit` objects, best first. On SQLite it uses the FTS5 table
that the notes migration creates; on PostgreSQL, ``to_tsvector``/``websearch_to_tsquery``
(English configuration) computed in the query. The index is a table of sections
(``SearchDoc``), rebuilt by :func:`rebuild` whenever the notes or the glossary change.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils.html import strip_tags

from .loader import glossary, library
from .models import SearchDoc

MAX_QUERY = 200
LIMIT = 20
# Markers that cannot occur in the text, swapped for <mark> after escaping.
OPEN, CLOSE = "\x02", "\x03"
SECTION_RE = re.compile(r'<h2 id="([^"]+)">(.*?)</h2>', re.DOTALL)
WORD_RE = re.compile(r"\w+", re.UNICODE)


@dataclass
class Hit:
    kind: str
    url: str
    title: str
    context: str
    snippet_html: str  # escaped text with <mark> around the matched words


def engine() -> str:
    return "postgresql" if connection.vendor == "postgresql" else "sqlite"


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(strip_tags(fragment))).strip()


def documents() -> list[dict]:
    """Every searchable unit: each note's opening and each of its ## sections, each term."""
    docs = []
    for note in library().notes().values():
        parts = SECTION_RE.split(note.html)
        intro = " ".join([note.summary, *map(_text, note.key_points), _text(parts[0])])
        docs.append(
            {"kind": "note", "url": f"/notes/{note.slug}/", "title": note.title,
             "context": note.title, "body": intro}
        )  # fmt: skip
        for i in range(1, len(parts), 3):
            anchor, heading, body = parts[i], _text(parts[i + 1]), _text(parts[i + 2])
            docs.append(
                {"kind": "note", "url": f"/notes/{note.slug}/#{anchor}", "title": heading,
                 "context": note.title, "body": body}
            )  # fmt: skip
    for term in glossary():
        docs.append(
            {"kind": "term", "url": term.link, "title": term.term, "context": "Glossary",
             "body": term.definition}
        )  # fmt: skip
    return docs


def _signature(docs: list[dict]) -> str:
    digest = hashlib.sha256()
    for d in docs:
        digest.update("\x1f".join(d.values()).encode())
    return digest.hexdigest()


def rebuild(force: bool = False) -> bool:
    """Bring the index in line with the content; returns True when it had to be rebuilt."""
    docs = documents()
    signature = _signature(docs)
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


def _sqlite(words: list[str], limit: int) -> list[Hit]:
    # Every word must appear (prefix match); quoting makes FTS5 syntax in the input inert.
    match = " ".join('"{}"*'.format(w.replace('"', "")) for w in words)
    sql = (
        "SELECT d.kind, d.url, d.title, d.context, "
        "snippet(notes_searchdoc_fts, 1, %s, %s, '…', 16) "
        "FROM notes_searchdoc_fts JOIN notes_searchdoc d ON d.id = notes_searchdoc_fts.rowid "
        "WHERE notes_searchdoc_fts MATCH %s AND d.kind != 'signature' "
        "ORDER BY bm25(notes_searchdoc_fts, 5.0, 1.0) LIMIT %s"
    )
    with connection.cursor() as cur:
        cur.execute(sql, [OPEN, CLOSE, match, limit])
        rows = cur.fetchall()
    return [Hit(k, u, t, c, _mark(s)) for k, u, t, c, s in rows]


def _postgresql(query: str, limit: int) -> list[Hit]:
    from django.contrib.postgres.search import (
        SearchHeadline,
        SearchQuery,
        SearchRank,
        SearchVector,
    )

    vector = SearchVector("title", weight="A", config="english") + SearchVector(
        "body", weight="B", config="english"
    )
    sq = SearchQuery(query, search_type="websearch", config="english")
    rows = (
        SearchDoc.objects.exclude(kind=SearchDoc.Kind.SIGNATURE)
        .annotate(document=vector, rank=SearchRank(vector, sq))
        .filter(document=sq)
        .annotate(
            snippet=SearchHeadline(
                "body", sq, config="english", start_sel=OPEN, stop_sel=CLOSE, max_words=30,
                min_words=12,
            )
        )
        .order_by("-rank", "id")[:limit]
    )  # fmt: skip
    return [Hit(r.kind, r.url, r.title, r.context, _mark(r.snippet)) for r in rows]


def search(query: str, limit: int = LIMIT) -> list[Hit]:
    """The best matches for a query typed by anyone: never raises on odd input."""
    query = (query or "")[:MAX_QUERY]
    words = WORD_RE.findall(query.lower())
    if not words:
        return []
    rebuild()
    if engine() == "postgresql":
        return _postgresql(" ".join(words), limit)
    return _sqlite(words, limit)
