"""The words a reader sees on a page, without code, and the English left in them (issue 16)."""

from __future__ import annotations

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
