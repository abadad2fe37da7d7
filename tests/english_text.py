"""The words a reader sees on a page, without code, and the English left in them (issue 16)."""

from __future__ import annotations

import re
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
        for name in READ_ATTRS:
            if attrs.get(name):
                self.words.append(attrs[name])
        if attrs.get("type") in ("submit", "button") and attrs.get("value"):
            self.words.append(attrs["value"])

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


def visible_text(html: str) -> list[str]:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.words


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
