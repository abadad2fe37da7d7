"""The start tags of an HTML page, for the checks that a page carries nothing that could run
(tests/test_security_xss.py, tests/test_authoring_hostile.py).

A tag and its attributes are read with html.parser's own patterns (the same names, values and
unescaping as ``HTMLParser.handle_starttag`` gets), but the text between tags is never walked
character by character: the sweeps check thousands of pages and html.parser spent about 4 ms on
the question editor's 29 KB, this about 2 ms. It reads more than html.parser where the two
differ, never less: a tag html.parser would stop at (an unfinished ``<a /b`` makes it wait for
more input and read nothing after it) or hide (``<![CDATA[<script>…]]>``, which a browser's
HTML parser does not treat as CDATA) is still read. tests/test_security_xss.py checks that on
every payload and every page of its sweep the two find the same.

The pages of a sweep repeat most of their tags (the header, the form controls), so a tag's
reading is kept by its text (``read_tags``): the same text, the same reading, without reading
its attributes again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from html.parser import attrfind_tolerant, locatestarttagend_tolerant, tagfind_tolerant

#: a start tag (group 1: its first letter) or a comment
_MARK = re.compile(r"<(?:([a-zA-Z])|!--)")
#: elements whose text is raw up to their end tag (html.parser's CDATA_CONTENT_ELEMENTS)
_RAW = {tag: re.compile(rf"</\s*{tag}\s*>", re.I) for tag in ("script", "style")}

Attrs = list[tuple[str, str | None]]
Reading = tuple[str, tuple[tuple[str, str | None], ...]]

#: a start tag's text (from its "<" to the character after its attributes) -> its reading
_READ: dict[str, Reading] = {}
_KEPT = 50_000  # tags kept before the memo starts again (a sweep's pages share a few thousand)


def start_tags(html: str) -> Iterator[tuple[str, Attrs, str]]:
    """(tag, attributes, raw text) of every start tag in ``html``, in order; the raw text is the
    content of a <script> or <style> up to its end tag, "" for every other element."""
    for _text, tag, attrs, raw in read_tags(html):
        yield tag, list(attrs), raw


def read_tags(html: str) -> Iterator[tuple[str, str, tuple[tuple[str, str | None], ...], str]]:
    """(text, tag, attributes, raw text) of every start tag, as ``start_tags`` reads them; the
    text is the tag's own, from its "<" to the character after its attributes (its ">" when it
    has one): a tag of the same text is read the same, wherever it stands."""
    i, find, search, read = 0, html.find, _MARK.search, _READ.get
    while (mark := search(html, i)) is not None:
        start = mark.start()
        if mark.group(1) is None:  # a comment: nothing in it is a tag
            end = find("-->", start + 4)
            i = len(html) if end < 0 else end + 3
            continue
        endpos = locatestarttagend_tolerant.match(html, start).end()
        text = html[start : endpos + 1]
        reading = read(text)
        if reading is None:
            reading = _read(html, start, endpos)
            if len(_READ) >= _KEPT:
                _READ.clear()
            _READ[text] = reading
        tag, attrs = reading
        i = endpos + 1 if html.startswith(">", endpos) else max(endpos, start + 1)
        raw = ""
        if tag in _RAW:
            close = _RAW[tag].search(html, i)
            end = len(html) if close is None else close.start()
            raw, i = html[i:end], end
        yield text, tag, attrs, raw


def _read(html: str, start: int, endpos: int) -> Reading:
    """The name and attributes of the start tag at ``start`` whose attributes end at ``endpos``,
    as ``HTMLParser.parse_starttag`` reads them. Every pattern it matches lies inside
    ``html[start:endpos + 1]`` (asserted), so the reading is that text's alone."""
    name = tagfind_tolerant.match(html, start + 1)
    tag, k = name.group(1).lower(), name.end()
    attrs: Attrs = []
    while k < endpos and (found := attrfind_tolerant.match(html, k)) is not None:
        attr, rest, value = found.group(1, 2, 3)
        if not rest:
            value = None
        elif value[:1] == "'" == value[-1:] or value[:1] == '"' == value[-1:]:
            value = value[1:-1]
        if value:
            value = unescape(value)
        attrs.append((attr.lower(), value))
        k = found.end()
    assert k <= endpos, html[start : k + 1]  # locatestarttagend matched these attributes too
    return tag, tuple(attrs)
