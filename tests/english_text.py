"""The words a reader sees on a page, without code, and the English left in them (issue 16)."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

#: Elements whose text is code or data shown as it is (API names, JSON, transcripts' own words).
VERBATIM = {"script", "style", "code", "pre", "kbd", "samp", "textarea", "template", "var"}
VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
}  # fmt: skip
#: Classes of elements that show a transcript's own words (messages, tool output): data.
DATA_CLASSES = {"block-text", "result-text"}
#: Attributes a reader meets as words (tooltips, screen-reader labels, placeholders).
READ_ATTRS = ("title", "aria-label", "placeholder", "alt", "aria-description")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden: list[bool] = []  # one per open element: is its text left out?
        self.words: list[str] = []

    def _inside_hidden(self) -> bool:
        return bool(self.hidden) and self.hidden[-1]

    def _read_attrs(self, attrs: dict) -> None:
        _read_attrs(attrs, self.words)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        hidden = self._inside_hidden() or tag in VERBATIM
        # Text marked as English on purpose (a fallback note, a cited title, a quoted API error).
        hidden = hidden or (attrs.get("lang") or "").lower().startswith("en")
        hidden = hidden or attrs.get("translate") == "no"
        hidden = hidden or bool(DATA_CLASSES & set((attrs.get("class") or "").split()))
        if not hidden:
            self._read_attrs(attrs)
        if tag not in VOID:
            self.hidden.append(hidden)

    def handle_startendtag(self, tag, attrs):
        if not self._inside_hidden():
            self._read_attrs(dict(attrs))

    def handle_endtag(self, tag):
        if tag not in VOID and self.hidden:
            self.hidden.pop()

    def handle_data(self, data):
        if not self._inside_hidden() and data.strip():
            self.words.append(" ".join(data.split()))


def _read_attrs(attrs: dict, words: list[str]) -> None:
    for name in READ_ATTRS:
        if attrs.get(name):
            words.append(attrs[name])
    if attrs.get("type") in ("submit", "button") and attrs.get("value"):
        words.append(attrs["value"])


def parsed_visible_text(html: str) -> list[str]:
    """The words a reader sees on ``html``, as html.parser reads it (what visible_text gives)."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.words


#: The markup the pages are made of, one token a match after any white space (text that is only
#: white space shows nothing): text, a comment, a doctype, an end tag, a start tag whose
#: attributes are spaced and quoted or bare. Anything else (a stray "<", an end tag with
#: attributes, ``<![CDATA[``, ``<?``) matches none: the page is then read by html.parser.
_ATTR = r"""[^\s/>"'=][^\s/=>]*(?:\s*=\s*(?:"[^"]*"|'[^']*'|(?!['"=])[^>\s]*))?"""
_TOKEN = re.compile(
    r"\s*(?:(?P<text>[^<]+)|(?P<comment><!--.*?--\s*>)|(?P<decl><!(?i:doctype)[^>]*>)"
    r"|</\s*(?P<end>[a-zA-Z][-.a-zA-Z0-9:_]*)\s*>"
    rf"|<(?P<tag>[a-zA-Z][^\t\n\r\f />\x00]*)(?P<attrs>(?:\s+{_ATTR})*)\s*(?P<empty>/?)>)",
    re.S,
)
_ATTRS = re.compile(r"""([^\s/>"'=][^\s/=>]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^>\s]*)))?""")
#: What a start tag's attributes must hold to hide or show words (a reference may spell any).
_MAY_MATTER = re.compile(
    "|".join(("lang", "translate", "&", "value", *DATA_CLASSES, *READ_ATTRS)), re.I
)
_CDATA_END = {tag: re.compile(rf"</\s*{tag}\s*>", re.I) for tag in ("script", "style")}


def _attrs(text: str) -> dict:
    """A start tag's attributes as html.parser gives them: names lowercased, values unquoted and
    unescaped, None for a name without a value, the last of a repeated name kept."""
    out = {}
    for m in _ATTRS.finditer(text):
        value = None
        if m.end(1) < m.end():
            value = m[2] if m[2] is not None else m[3] if m[3] is not None else m[4]
            value = unescape(value) if "&" in value else value
        out[m[1].lower()] = value
    return out


def visible_text(html: str) -> list[str]:
    """:func:`parsed_visible_text` of ``html``, about five times faster: one regular expression
    over the page, a start tag's attributes read only where they could hide or show words.
    html.parser reads a page holding markup the expression does not know; a test in
    tests/test_i18n_no_english.py holds the two to the same words."""
    words: list[str] = []
    hidden: list[bool] = []  # one per open element: is its text left out?
    inside = False  # hidden[-1], False outside every element
    pos, n = 0, len(html)
    token = _TOKEN.match
    while pos < n:
        m = token(html, pos)
        if m is None:
            if html[pos:].isspace():
                break
            return parsed_visible_text(html)
        pos = m.end()
        kind = m.lastgroup
        if kind == "text":
            if not inside:
                data = m["text"]
                if "&" in data:
                    data = unescape(data)
                if data.strip():
                    words.append(" ".join(data.split()))
        elif kind == "end":
            if hidden and m["end"].lower() not in VOID:
                hidden.pop()
                inside = bool(hidden) and hidden[-1]
        elif kind == "empty":  # a start tag
            tag, text = m["tag"].lower(), m["attrs"]
            attrs = _attrs(text) if not inside and text and _MAY_MATTER.search(text) else {}
            if m["empty"]:  # <tag ... />: html.parser's handle_startendtag
                _read_attrs(attrs, words)
                continue
            hide = inside or tag in VERBATIM
            hide = hide or (attrs.get("lang") or "").lower().startswith("en")
            hide = hide or attrs.get("translate") == "no"
            hide = hide or bool(DATA_CLASSES & set((attrs.get("class") or "").split()))
            if not hide:
                _read_attrs(attrs, words)
            if tag in _CDATA_END:  # script, style: their text unparsed up to their end tag
                close = _CDATA_END[tag].search(html, pos)
                if close is None:
                    return parsed_visible_text(html)
                pos = close.end()
            elif tag not in VOID:
                hidden.append(hide)
                inside = hide
    return words


#: Words that make a sentence English: none of them is a Polish word (so not "to", "a", "i",
#: "on", "no", "do", "nie") and none is an API name.
ENGLISH = frozenset(
    """the and with your you this that are has have not from which when what will was were
    been must should would could into than then there their they it's don't can't isn't
    because before after every each""".split()  # noqa: SIM905 - a word list reads better as text
)
#: Short labels the code builds in English; a sentence test cannot see them.
LABELS = [r"Table \d+"] + [re.escape(label) for label in (
    "The diagram in words", "Your application", "(empty)", "(none)",
    "in progress", "Needs review", "Disc. efficiency", "not answered", "Incorrect",
    "Unanswered", "tool (a named tool)", "Uploaded response", "Untitled run",
    "Refund inside the window", "Outside the window", "rules unknown for this model",
    "Read stop_reason", "Call the Messages API", "Topic mock", "True", "False",
)]  # fmt: skip
#: Text that stays English on purpose: the factory bank's own question texts (test data, not
#: interface) and product names.
DATA = re.compile(
    r"^(Stem of|General explanation of|Step (one|two|three|four)\b|Stop and use the answer$)"
)
#: Quoted examples (a tool's output, an error text) stay verbatim inside translated prose.
QUOTED = re.compile(r"„[^”]*”|“[^”]*”|「[^」]*」|\"[^\"]*\"")


#: Each label as it is looked for, and all of them at once: a text none of them matches (nearly
#: every text) is searched once instead of once per label.
_LABEL_RES = [(label, re.compile(rf"(?<!\w){label}")) for label in LABELS]
_ANY_LABEL = re.compile(r"(?<!\w)(?:" + "|".join(LABELS) + ")")
_WORD = re.compile(r"[A-Za-z']+")


def english_left(html: str) -> list[str]:
    """The English sentences and labels left in the words a reader sees on ``html``."""
    found = []
    for words in visible_text(html):
        if DATA.match(words):
            continue
        tokens = {w.lower() for w in _WORD.findall(QUOTED.sub("", words))}
        if len(tokens & ENGLISH) >= 2:
            found.append(words[:120])
        if _ANY_LABEL.search(words):
            found.extend(label for label, pattern in _LABEL_RES if pattern.search(words))
    return found
