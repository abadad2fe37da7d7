"""Load topic notes from content/notes/<lang>/*.md, rendering each file once per modification."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from django.conf import settings
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext, gettext_noop

from core import i18n
from core.folders import FolderWatch
from core.rendering import render_inline, render_markdown

from .blocks import BLOCKS
from .structure import note_hash, safe_load

log = logging.getLogger(__name__)

TODAY_MARKER_RE = re.compile(r"^\[\[today:([^\]]*)\]\]\s*$", re.MULTILINE)

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FRONT_MATTER_RE = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
REQUIRED = ("title", "slug", "order", "summary", "subtopics", "sources", "last_verified")


class NoteError(ValueError):
    """A note file that cannot be loaded, with the file and the reason."""


@dataclass
class Note:
    slug: str
    title: str
    order: int
    summary: str
    subtopics: list[str]
    sources: list[dict]
    last_verified: dt.date
    html: str
    toc: list[dict]
    path: Path
    anchors: set[str] = field(default_factory=set)
    key_points: list[str] = field(default_factory=list)  # rendered inline Markdown
    exam: dict = field(default_factory=dict)  # skill, scenarios, traps: the exam's frame
    check_yourself: list[str] = field(default_factory=list)  # question slugs, optional
    previous: Note | None = None
    next: Note | None = None
    #: The language the note is written in (a Django code); it differs from the page's when a
    #: translation is missing and the English note stands in (``note_in``).
    lang: str = "en"
    body: str = ""  # the Markdown, for the structure check (studyapp/notes/structure.py)
    meta: dict = field(default_factory=dict, repr=False)
    #: structure.note_hash of this file: what a translation of it records as translated_from.
    source_hash: str = ""
    #: A translation whose English note changed since it was stamped (``notes_in`` sets it).
    stale: bool = False


def parse_note(path: Path) -> Note:
    """One note file, its generated blocks ([[...]] markers) in the active language."""
    text = path.read_text(encoding="utf-8")
    m = FRONT_MATTER_RE.match(text)
    if not m:
        raise NoteError(f"{path}: no front matter between --- lines")
    try:
        meta = safe_load(m[1]) or {}
    except yaml.YAMLError as e:
        raise NoteError(f"{path}: front matter is not valid YAML: {e}") from e
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise NoteError(f"{path}: front matter lacks {', '.join(missing)}")
    slug = str(meta["slug"])
    if not SLUG_RE.match(slug):
        raise NoteError(f"{path}: slug {slug!r} is not lowercase letters, digits and hyphens")
    sources = meta["sources"]
    if not isinstance(sources, list) or not sources:
        raise NoteError(f"{path}: sources must list at least one page")
    for s in sources:
        if not isinstance(s, dict) or not str(s.get("url", "")).startswith("https://"):
            raise NoteError(f"{path}: each source needs a title and an https:// url")
    verified = meta["last_verified"]
    if not isinstance(verified, dt.date):
        raise NoteError(f"{path}: last_verified must be a date like 2026-11-29")
    body = text[m.end() :]
    unknown = [x for x in TODAY_MARKER_RE.findall(body) if f"today:{x}" not in BLOCKS]
    if unknown:
        raise NoteError(
            f"{path}: unknown marker [[today:{unknown[0]}]]; the known ids are "
            f"{', '.join(k[6:] for k in BLOCKS if k.startswith('today:'))}"
        )
    key_points = _key_points(path, meta.get("key_points"))
    exam = _exam_frame(path, meta.get("exam"))
    check = meta.get("check_yourself") or []
    if not isinstance(check, list) or not all(isinstance(c, str) for c in check):
        raise NoteError(f"{path}: check_yourself must list question slugs")
    rendered = render_markdown(body, blocks=BLOCKS, toc=True, trusted=True)
    html = _wrap_tables(rendered.html)
    anchors = set(re.findall(r'\sid="([^"]+)"', html))
    return Note(
        slug=slug,
        title=str(meta["title"]),
        order=int(meta["order"]),
        summary=str(meta["summary"]),
        subtopics=list(meta["subtopics"]),
        sources=sources,
        last_verified=verified,
        html=html,
        toc=[t for t in rendered.toc if t["level"] == 2],
        path=path,
        anchors=anchors,
        key_points=key_points,
        exam=exam,
        check_yourself=list(check),
        body=body,
        meta=meta,
        source_hash=note_hash(text),
    )


def _wrap_tables(html: str) -> str:
    """Authored tables scroll inside a focusable region, so a phone page never scrolls sideways."""
    count = 0

    def wrap(m):
        nonlocal count
        count += 1
        return (
            '<div class="table-wrap" role="region" tabindex="0" aria-label="'
            + escape(gettext("Table %(number)s") % {"number": count})
            + f'">{m[0]}</div>'
        )

    return re.sub(r"<table>.*?</table>", wrap, html, flags=re.DOTALL)


#: The six scenarios of the exam guide, plus "general" for a point that serves all of them.
SCENARIOS = {
    "customer-support": gettext_noop("Customer support resolution agent"),
    "code-generation": gettext_noop("Code generation with Claude Code"),
    "multi-agent-research": gettext_noop("Multi-agent research system"),
    "developer-productivity": gettext_noop("Developer productivity with Claude"),
    "ci-cd": gettext_noop("Claude Code for continuous integration"),
    "structured-extraction": gettext_noop("Structured data extraction"),
}


def _key_points(path: Path, value) -> list[str]:
    """3 to 6 short Markdown points, what to remember for the exam; optional per note."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise NoteError(f"{path}: key_points must be a list of short texts")
    if not 3 <= len(value) <= 6:
        raise NoteError(f"{path}: key_points needs 3 to 6 points (has {len(value)})")
    return [render_inline(v) for v in value]


#: Task statement 1.1's knowledge and skills, in the exam guide's words (issue 14 quotes them).
GUIDE_SKILLS = {
    "loop": "Continue on `tool_use`, stop on `end_turn`, append tool results between iterations.",
    "model-driven": "Model-driven decisions versus pre-configured decision trees.",
    "anti-patterns": "Avoid parsing natural language to decide termination, an arbitrary "
    "iteration cap as the primary stop, and assistant text as the completion signal.",
}


def _exam_frame(path: Path, value) -> dict:
    """The "on the exam" box: the guide's skills it serves, how, its scenarios and traps."""
    from quizzes.schema import FAMILIES  # a plain module: no Django models

    if value is None:
        return {}
    skills = value.get("skills") if isinstance(value, dict) else None
    if not isinstance(skills, list) or not skills:
        raise NoteError(f"{path}: exam needs skills: one or more of {', '.join(GUIDE_SKILLS)}")
    unknown = [k for k in skills if k not in GUIDE_SKILLS]
    if unknown:
        raise NoteError(f"{path}: exam.skills has unknown {unknown[0]!r}")
    scenarios = value.get("scenarios") or []
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        raise NoteError(f"{path}: exam.scenarios has unknown {unknown[0]!r}")
    traps = value.get("traps") or []
    unknown = [t for t in traps if t not in FAMILIES]
    if unknown:
        raise NoteError(f"{path}: exam.traps has unknown family {unknown[0]!r}")
    return {
        "skills": [render_inline(GUIDE_SKILLS[k]) for k in skills],
        "how": render_inline(str(value.get("how", ""))) if value.get("how") else "",
        "scenarios": [{"slug": s, "label": gettext(SCENARIOS[s])} for s in scenarios],
        "traps": [{"family": t, "description": FAMILIES[t]} for t in traps],
    }


class NoteLibrary:
    """All notes of one language, re-rendered only when a file's modification time changes."""

    def __init__(self, directory: Path, lang: str = "en"):
        self.directory = directory
        self.lang = lang
        self._cache: dict[Path, tuple[float, Note]] = {}
        self._signature: tuple = ()
        self._listing: tuple[list, tuple] = ([], ())
        self._watch = FolderWatch([str(directory)])
        self._notes: dict[str, Note] = {}
        self._lock = threading.Lock()

    def _scan(self) -> tuple:
        """(path, modification time) of each ``*.md`` here, as ``sorted(directory.glob("*.md"))``
        lists them; read with os.scandir, the Paths made only when the listing changes (a
        glob and a Path.stat per file cost twice as much, on every request that reads a note).
        Listed again only when core.folders.FolderWatch says the last listing may not be
        trusted; otherwise a stat of the folder says nothing was added, removed or renamed."""
        if self._watch.current():
            return self._listing[1]
        before = self._watch.begin()
        try:
            with os.scandir(self.directory) as found:
                entries = list(found)
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            entries = []  # (glob finds nothing in a folder it cannot list)
        # glob's "*" skips hidden names (an editor's lock file ".#01-x.md" is a dangling link);
        # a file that can't be read is an error of this request, not an empty library
        listing = sorted(
            (e.name, e.stat().st_mtime)
            for e in entries
            if e.name.endswith(".md") and not e.name.startswith(".")
        )
        if listing != self._listing[0]:
            self._listing = (listing, tuple((self.directory / n, m) for n, m in listing))
        self._watch.listed(before, [str(self.directory)])
        return self._listing[1]

    def notes(self) -> dict[str, Note]:
        signature = self._scan()
        if signature == self._signature:
            return self._notes
        with self._lock:
            notes: dict[str, Note] = {}
            cache = {}
            for path, mtime in signature:
                cached = self._cache.get(path)
                if cached and cached[0] == mtime:
                    note = cached[1]
                else:  # the generated blocks speak the note's language
                    with translation.override(self.lang):
                        note = parse_note(path)
                    note.lang = self.lang
                cache[path] = (mtime, note)
                if note.slug in notes:
                    raise NoteError(f"{path}: slug {note.slug!r} is used twice")
                notes[note.slug] = note
            ordered = sorted(notes.values(), key=lambda n: (n.order, n.slug))
            for i, note in enumerate(ordered):
                note.previous = ordered[i - 1] if i else None
                note.next = ordered[i + 1] if i + 1 < len(ordered) else None
            self._cache, self._notes = cache, {n.slug: n for n in ordered}
            self._signature = signature
        return self._notes

    def get(self, slug: str) -> Note | None:
        if not SLUG_RE.match(slug):  # never let a crafted slug near the file system
            return None
        return self.notes().get(slug)


_libraries: dict[str, NoteLibrary] = {}


def library(lang: str = "en") -> NoteLibrary:
    if lang not in i18n.CODES:  # a code from settings.LANGUAGES only: it names a folder
        raise ValueError(f"unknown language {lang!r}")
    directory = Path(settings.CONTENT_DIR) / "notes" / lang
    lib = _libraries.get(str(directory))
    if lib is None:
        lib = _libraries[str(directory)] = NoteLibrary(directory, lang)
    return lib


# The notes as a reader of one language sees them: the translation where there is one, else the
# English note (marked by its ``lang``), in the English order, with previous/next among them.
_merged: dict[str, tuple[tuple[dict, dict], dict[str, Note]]] = {}
_merged_lock = threading.Lock()
_NONE: dict[str, Note] = {}  # no translations (one object, so the cache recognises it)


def notes_in(lang: str | None = None) -> dict[str, Note]:
    """Every note (slug -> Note) in ``lang`` (the active language by default), English standing
    in for a missing translation; rebuilt only when either library changed."""
    lang = lang or i18n.current()
    english = library().notes()
    if lang == i18n.DEFAULT:
        return english
    translated: dict[str, Note] = _NONE
    if library(lang).directory.is_dir():
        try:
            translated = library(lang).notes()
        except NoteError as e:  # loadcontent names it; readers get English meanwhile, not a 500
            log.error("translated notes (%s) not loaded: %s", lang, e)
    # The libraries hand out the same dict until a file changes; the cache holds the dicts
    # themselves (compared by identity), so a freed one's id can never be mistaken for them.
    key = (english, translated)
    cached = _merged.get(lang)
    if cached and cached[0][0] is english and cached[0][1] is translated:
        return cached[1]
    with _merged_lock:
        ordered = [
            translated[slug] if slug in translated else _stand_in(note)
            for slug, note in english.items()
        ]
        for i, note in enumerate(ordered):
            note.previous = ordered[i - 1] if i else None
            note.next = ordered[i + 1] if i + 1 < len(ordered) else None
            stamp = note.meta.get("translated_from") if note.lang == lang else None
            note.stale = bool(stamp) and stamp != english[note.slug].source_hash
        notes = {n.slug: n for n in ordered}
        _merged[lang] = (key, notes)
    return notes


def _stand_in(note: Note) -> Note:
    """The English note shown on another language's page: its body marked as English."""
    return dataclasses.replace(note, html=f'<div lang="en">{note.html}</div>')


def note_in(slug: str, lang: str | None = None) -> Note | None:
    """One note in ``lang`` (the active language), or its English original when untranslated:
    ``note.lang`` says which (the page shows a notice when it is not the page's language)."""
    if not SLUG_RE.match(slug):
        return None
    return notes_in(lang).get(slug)


@dataclass
class GlossaryTerm:
    term: str  # the English term, verbatim (often an API name)
    definition: str
    link: str
    local: str = ""  # the term in the page's language, when it is not kept in English
    lang: str = "en"  # the language of ``definition``

    @property
    def tag(self) -> str:
        return i18n.tag(self.lang)


_glossary_cache: dict[str, tuple[float, list[GlossaryTerm]]] = {}


def _read_glossary(path: Path) -> list[dict]:
    mtime = path.stat().st_mtime
    cached = _glossary_cache.get(str(path))
    if cached and cached[0] == mtime:
        return cached[1]  # type: ignore[return-value]
    data = safe_load(path.read_text(encoding="utf-8")) or {}
    terms = [t for t in data.get("terms", []) if isinstance(t, dict) and t.get("term")]
    _glossary_cache[str(path)] = (mtime, terms)  # type: ignore[assignment]
    return terms


def glossary(lang: str | None = None) -> list[GlossaryTerm]:
    """The site glossary, sorted by English term; in ``lang`` (the active language) from
    content/glossary.<lang>.yaml where it has the term, else the English definition."""
    lang = lang or i18n.current()
    path = Path(settings.CONTENT_DIR) / "glossary.yaml"
    if not path.exists():
        return []
    local: dict[str, dict] = {}
    if lang != i18n.DEFAULT and lang in i18n.CODES:
        translated = Path(settings.CONTENT_DIR) / f"glossary.{lang}.yaml"
        if translated.exists():
            try:
                local = {str(t["term"]): t for t in _read_glossary(translated)}
            except yaml.YAMLError as e:  # translations --check names it; English meanwhile
                log.error("%s not loaded: %s", translated, e)
    terms = []
    for t in _read_glossary(path):
        mine = local.get(str(t["term"]))
        link = i18n.localise_path(str(t["link"]), lang)
        if mine and mine.get("definition"):
            terms.append(
                GlossaryTerm(
                    str(t["term"]), str(mine["definition"]), link,
                    local=str(mine.get("local") or ""), lang=lang,
                )
            )  # fmt: skip
        else:
            terms.append(GlossaryTerm(str(t["term"]), str(t["definition"]), link))
    terms.sort(key=lambda t: t.term.lower().lstrip("_"))
    return terms
