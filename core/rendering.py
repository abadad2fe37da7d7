"""Markdown to safe HTML: the one renderer for notes, questions and anything an author typed."""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

import markdown
import nh3
from markdown.preprocessors import Preprocessor
from pygments.token import STANDARD_TYPES

ALLOWED_TAGS = {
    "a", "abbr", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em",
    "h2", "h3", "h4", "h5", "h6", "hr", "kbd", "li", "ol", "p", "pre", "span", "strong",
    "sub", "summary", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "code": {"class"},
    "div": {"class"},
    "pre": {"class"},
    "span": {"class"},
    "p": {"class"},
    "td": {"align"},
    "th": {"align"},
    "h2": {"id"},
    "h3": {"id"},
    "h4": {"id"},
}
MARKER_RE = re.compile(r"^\[\[([a-z]+):([a-z0-9-]+)\]\]\s*$")
PLACEHOLDER = "LOOPCRAFTBLOCK{}END"


@dataclass
class Rendered:
    html: str
    toc: list[dict] = field(default_factory=list)  # [{"id", "name", "level"}] for h2 and h3


class _MarkerPreprocessor(Preprocessor):
    """Swap whole-line [[kind:name]] markers for placeholders filled after sanitising."""

    def __init__(self, md, blocks: Collection[str], found: list[str]):
        super().__init__(md)
        self.blocks, self.found = blocks, found

    def run(self, lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            m = MARKER_RE.match(line)
            if m and f"{m[1]}:{m[2]}" in self.blocks:
                self.found.append(f"{m[1]}:{m[2]}")
                out.extend(["", PLACEHOLDER.format(len(self.found) - 1), ""])
            else:
                out.append(line)
        return out


#: Classes the Markdown extensions themselves write (code highlighting, admonitions): the only
#: ones an author's text may produce, so it can never take over the page's own hooks.
GENERATED_CLASSES = frozenset(
    {"highlight", "admonition", "admonition-title", "trap", "note", "tip", "hint", "important",
     "warning", "caution", "attention", "danger", "error", "footnote", "footnote-ref",
     "footnote-backref"}
    | {c for c in STANDARD_TYPES.values() if c}
)  # fmt: skip


def _authored_attribute(tag: str, attribute: str, value: str) -> str | None:
    """For untrusted text: no id at all, and only the classes the extensions generate."""
    if attribute == "id":
        return None
    if attribute == "class":
        kept = [c for c in value.split() if c in GENERATED_CLASSES]
        return " ".join(kept) or None
    return value


def sanitize(html: str, *, trusted: bool = False) -> str:
    """Keep only the allowlisted tags and attributes; links get safe schemes only.

    ``trusted`` (the notes in content/, which link to their own heading ids) keeps ids and any
    class; anything an author typed loses ids and keeps only the generated classes.
    """
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=None if trusted else _authored_attribute,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


_EXTENSIONS = [
    "markdown.extensions.extra",
    "markdown.extensions.admonition",
    "markdown.extensions.sane_lists",
    "markdown.extensions.codehilite",
]
_local = threading.local()


def _markdown(toc: bool) -> tuple[markdown.Markdown, _MarkerPreprocessor]:
    """This thread's parser for the configuration, reset: building one costs more than a
    conversion, and a question has a dozen small texts."""
    cached = getattr(_local, "toc" if toc else "plain", None)
    if cached is None:
        extensions = list(_EXTENSIONS)
        configs = {
            "markdown.extensions.codehilite": {"css_class": "highlight", "guess_lang": False}
        }
        if toc:
            extensions.append("markdown.extensions.toc")
            configs["markdown.extensions.toc"] = {"toc_depth": "2-3"}
        md = markdown.Markdown(extensions=extensions, extension_configs=configs)
        markers = _MarkerPreprocessor(md, {}, [])
        md.preprocessors.register(markers, "loopcraft_blocks", 25)
        # Raw HTML in the source is escaped: authors write Markdown, not markup.
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.inlinePatterns.deregister("entity")
        cached = (md, markers)
        setattr(_local, "toc" if toc else "plain", cached)
    cached[0].reset()
    return cached


def render_markdown(
    text: str,
    *,
    blocks: dict[str, Callable[[], str]] | None = None,
    toc: bool = False,
    trusted: bool = False,
) -> Rendered:
    """Render untrusted Markdown to sanitised HTML; trusted generated blocks go in afterwards.

    ``trusted`` is for the notes shipped in content/ only: they may set heading ids with
    attr_list (``## Signatures {#signatures}``); in authored text (questions, whys) the
    sanitiser drops every id and every class the extensions did not generate.
    """
    if not blocks:
        html, toc_items = _render_plain(text, toc, trusted)
        return Rendered(html=html, toc=[dict(t) for t in toc_items])
    return _render(text, blocks, toc, trusted)


@functools.lru_cache(maxsize=16384)
def _render_plain(text: str, toc: bool, trusted: bool) -> tuple[str, tuple[dict, ...]]:
    """Texts without generated blocks render the same every time: the bank repeats many.
    The bank with its three translations holds about 8,700 distinct texts (December 2026): a
    cache smaller than that never hits when loadcontent renders them all again in the same
    order (each text is evicted just before it comes back)."""
    rendered = _render(text, {}, toc, trusted)
    return rendered.html, tuple(rendered.toc)


def _render(
    text: str, blocks: dict[str, Callable[[], str]], toc: bool, trusted: bool = False
) -> Rendered:
    html, toc_items, found = _convert(text, frozenset(blocks), toc, trusted)
    # The blocks run once the parser is done with the text: a block may render Markdown itself.
    for i, key in enumerate(found):
        generated = blocks[key]()
        token = PLACEHOLDER.format(i)
        html = html.replace(f"<p>{token}</p>", generated).replace(token, generated)
    return Rendered(html=html, toc=[dict(t) for t in toc_items])


def _convert(
    text: str, block_names: frozenset[str], toc: bool, trusted: bool
) -> tuple[str, tuple[dict, ...], tuple[str, ...]]:
    """``text`` converted and sanitised, each whole-line marker of a named block left as a
    placeholder: (HTML, table of contents, the markers found in order). It depends on the text,
    the flags and the block names alone, never on what the blocks write."""
    md, markers = _markdown(toc)
    found: list[str] = []
    markers.blocks, markers.found = block_names, found
    html = _join_cjk_lines(sanitize(md.convert(text), trusted=trusted))
    # Code blocks scroll sideways on small screens; a keyboard user must be able to reach them.
    html = html.replace("<pre>", '<pre tabindex="0">')
    toc_items: list[dict] = []
    if toc:

        def walk(tokens):
            for t in tokens:
                toc_items.append({"id": t["id"], "name": t["name"], "level": t["level"]})
                walk(t["children"])

        walk(md.toc_tokens)
    return html, tuple(toc_items), tuple(found)


#: Han characters and CJK / full-width punctuation. A source line break between two of them is
#: not a word space in Chinese, but browsers render it as one ("同一个 响应"), so it goes.
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_BREAK = re.compile(f"(?<=[{_CJK}])[ \t]*\n[ \t]*(?=[{_CJK}])")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


def _join_cjk_lines(html: str) -> str:
    """Drop line breaks between two CJK characters, except in code blocks (they are verbatim)."""
    if "\n" not in html or not re.search(f"[{_CJK}]", html):
        return html
    parts = _PRE.split(html)
    return "".join(p if i % 2 else _CJK_BREAK.sub("", p) for i, p in enumerate(parts))


def render_inline(text: str) -> str:
    """Render a short Markdown text (an option, a why) without a wrapping paragraph."""
    html = render_markdown(text).html.strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return html
