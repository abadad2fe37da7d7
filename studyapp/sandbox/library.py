"""The recorded loops in content/transcripts, parsed strictly and checked once per file change."""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import yaml
from django.conf import settings
from django.utils.translation import get_language, gettext

from core.folders import FolderWatch
from core.i18n import generated
from studyapp.agentloop import contract
from studyapp.agentloop.transcript import Transcript, TranscriptError, parse_transcript

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LANG_RE = re.compile(r"^[a-z]{2,3}(?:-[a-z0-9]+)*$")
#: the keys a translation file (content/transcripts/<lang>/<slug>.yaml) may have
TRANSLATION_KEYS = frozenset({"lang", "slug", "title", "summary", "notes"})


@dataclass(frozen=True)
class Prose:
    """The learner-facing prose of one run in one language; None where it is not translated."""

    title: str | None = None
    summary: str | None = None
    notes: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class Outline:
    """What a translation is checked against: the English run's slug and each turn's note.

    Read from a parsed transcript (:meth:`of`) or straight from the JSON file (:meth:`read`): the
    check ``manage.py check`` runs needs no strict parse, so no SDK (about 1.4 s of imports)."""

    slug: str
    notes: tuple[str, ...]

    @classmethod
    def of(cls, transcript: Transcript) -> Outline:
        return cls(transcript.slug, tuple(turn.note or "" for turn in transcript.turns))

    @classmethod
    def read(cls, path: Path) -> Outline:
        """ValueError when the file has no slug and list of turns to check a translation against."""
        data = json.loads(path.read_text(encoding="utf-8"))
        turns = data.get("turns") if isinstance(data, dict) else None
        if not isinstance(turns, list) or not isinstance(data.get("slug"), str):
            raise ValueError("not a transcript with a slug and a list of turns")
        notes = [turn.get("note") if isinstance(turn, dict) else None for turn in turns]
        return cls(data["slug"], tuple(n if isinstance(n, str) else "" for n in notes))


def parse_translation(data: object, lang: str, transcript: Outline) -> Prose:
    """Check one translation file against its English run; ValueError names the problem."""
    if not isinstance(data, dict):
        raise ValueError("not a mapping of keys to values")
    unknown = sorted(set(data) - TRANSLATION_KEYS)
    if unknown:
        raise ValueError(f"unknown key(s): {', '.join(map(str, unknown))}")
    if data.get("lang") != lang:
        raise ValueError(f"lang is {data.get('lang')!r}, but the file is in the {lang!r} folder")
    if data.get("slug") != transcript.slug:
        raise ValueError(f"slug is {data.get('slug')!r}, expected {transcript.slug!r}")
    for key in ("title", "summary"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise ValueError(f"{key} is not text")
    notes = data.get("notes")
    if notes is None:
        notes = [None] * len(transcript.notes)
    if not isinstance(notes, list):
        raise ValueError("notes is not a list")
    if len(notes) != len(transcript.notes):
        raise ValueError(
            f"notes has {len(notes)} entries, but the run has {len(transcript.notes)} turns"
        )
    for i, (note, english) in enumerate(zip(notes, transcript.notes, strict=True), start=1):
        if note is not None and not isinstance(note, str):
            raise ValueError(f"note {i} is not text")
        if note and not english:
            raise ValueError(f"note {i} is translated, but the English turn has no note")
    return Prose(
        title=(data.get("title") or "").strip() or None,
        summary=(data.get("summary") or "").strip() or None,
        notes=tuple((n or "").strip() or None for n in notes),
    )


def current_language() -> str:
    return (get_language() or settings.LANGUAGE_CODE).lower()


@dataclass
class Run:
    """A transcript ready for the stepper, with the checker's findings."""

    key: str  # the library slug, or "u<pk>" for an upload
    transcript: Transcript
    findings: list
    uploaded_pk: int | None = None
    live_pk: int | None = None
    shared: str = ""  # the share token when the run is read through a published link
    #: HTML fragments that depend only on the run, rendered once (see views._usage_html)
    rendered: dict = field(default_factory=dict, repr=False, compare=False)
    #: translated prose by language code (library runs only); English comes from the transcript
    translations: dict[str, Prose] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def usage_series(self) -> list[dict]:
        return self.transcript.usage_series()

    def _prose(self) -> Prose | None:
        return self.translations.get(current_language()) if self.translations else None

    @property
    def title(self) -> str:
        """The title in the active language, falling back to the English one."""
        prose = self._prose()
        return (
            (prose and prose.title) or generated(self.transcript.title) or gettext("Untitled run")
        )

    @property
    def summary(self) -> str:
        prose = self._prose()
        return (prose and prose.summary) or generated(self.transcript.summary) or ""

    def _fallback(self, translated: str | None, english: str | None) -> str:
        """ "en" when a non-English page shows this field in English (for a lang attribute)."""
        lang = current_language()
        if not english or translated or lang == "en" or lang.startswith("en-"):
            return ""
        return "en"

    @property
    def title_lang(self) -> str:
        prose = self._prose()
        return self._fallback(prose and prose.title, self.transcript.title)

    @property
    def summary_lang(self) -> str:
        prose = self._prose()
        return self._fallback(prose and prose.summary, self.transcript.summary)

    def note_lang(self, index: int) -> str:
        prose = self._prose()
        mine = prose.notes[index] if prose and index < len(prose.notes) else None
        turns = self.transcript.turns
        return self._fallback(mine, turns[index].note if 0 <= index < len(turns) else None)

    def note(self, index: int) -> str:
        """The teaching note of turn ``index`` (0-based) in the active language, else English."""
        prose = self._prose()
        if prose and index < len(prose.notes) and prose.notes[index]:
            return prose.notes[index] or ""
        turns = self.transcript.turns
        return (turns[index].note or "") if 0 <= index < len(turns) else ""

    @property
    def stop_reasons(self) -> list[str]:
        seen: list[str] = []
        for reason in self.transcript.stop_reasons:
            if reason and reason not in seen:
                seen.append(reason)
        return seen


def _scan(directory: Path) -> tuple[list[tuple[tuple[str, ...], str, float]], list[str]]:
    """(sort key, path, modification time) of the library's files, as ``_current`` lists them
    (pathlib's glob rules: a name starting with a dot is matched like any other), and the
    folders listed to find them (the directory and each folder in it)."""
    top, nested, folders = [], [], [str(directory)]
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return [], folders
    for entry in entries:
        if entry.name.endswith(".json"):
            top.append(((entry.name,), entry.path, entry.stat().st_mtime))
        if entry.is_dir():  # (a folder named x.json is listed, as glob lists it, and read)
            folders.append(entry.path)
            with os.scandir(entry.path) as inner:
                for f in inner:
                    if f.name.endswith(".yaml") and f.is_file():
                        nested.append(((entry.name, f.name), f.path, f.stat().st_mtime))
    return sorted(top) + sorted(nested), folders


def build_run(key: str, transcript: Transcript, uploaded_pk: int | None = None) -> Run:
    return Run(key, transcript, contract.check_transcript(transcript), uploaded_pk)


#: a transcript file's text -> (its transcript, the checker's findings), for this process:
#: a library read again after one of its files changed (or another content folder holding
#: the same files) parses and checks only what it has not read before. Neither is changed
#: once made: each Run holds its own translations and rendered parts.
_CHECKED: dict[str, tuple[Transcript, list]] = {}
_CHECKED_KEPT = 256


def _checked(text: str) -> tuple[Transcript, list]:
    kept = _CHECKED.get(text)
    if kept is None:
        transcript = parse_transcript(json.loads(text), strict=True)
        if len(_CHECKED) >= _CHECKED_KEPT:
            _CHECKED.clear()
        kept = _CHECKED[text] = (transcript, contract.check_transcript(transcript))
    return kept


class Library:
    def __init__(self, directory: Path):
        self.directory = directory
        self._signature: tuple = ()
        self._listing: tuple[list, tuple[tuple[Path, float], ...]] | None = None
        self._watch = FolderWatch([str(directory)])  # the folders the last listing read
        self._runs: dict[str, Run] = {}
        self._problems: list[str] = []
        self._lock = threading.Lock()

    def _current(self) -> tuple[tuple[Path, float], ...]:
        """(path, modification time) of ``*.json`` and then ``*/*.yaml`` (files only), each
        sorted as ``sorted(directory.glob(...))`` sorts them; read with os.scandir.

        Every request of the sandbox asks, so the files are listed and their times read (about
        a hundred stat calls, 0.5 ms) only when core.folders.FolderWatch says the last listing
        may not be trusted: otherwise a stat of each folder (the directory and its language
        folders) says nothing was added, removed or renamed."""
        if self._listing is not None and self._watch.current():
            return self._listing[1]
        before = self._watch.begin()
        listing, found = _scan(self.directory)
        self._watch.listed(before, found)
        if self._listing is None or self._listing[0] != listing:
            self._listing = (listing, tuple((Path(p), m) for _, p, m in listing))
        return self._listing[1]

    def runs(self) -> dict[str, Run]:
        signature = self._current()
        if signature != self._signature:
            with self._lock:
                runs = {}
                for path, _ in signature:
                    if path.suffix != ".json":
                        continue
                    try:
                        transcript, findings = _checked(path.read_text(encoding="utf-8"))
                    except (TranscriptError, ValueError) as e:
                        raise TranscriptError(f"{path.name}: {e}", "") from e
                    runs[transcript.slug] = Run(transcript.slug, transcript, findings)
                outlines = {slug: Outline.of(run.transcript) for slug, run in runs.items()}
                proses, self._problems = load_translations(outlines, [p for p, _ in signature])
                for (slug, lang), prose in proses.items():
                    runs[slug].translations[lang] = prose
                self._runs, self._signature = runs, signature
        return self._runs

    def translation_problems(self) -> list[str]:
        """Why each ignored translation file was ignored, one "file: reason" line each.

        When the library is not loaded (``manage.py check``) the English transcripts are read
        only for their slugs and notes: the same check as :meth:`runs`, without the SDK."""
        signature = self._current()
        if signature == self._signature:
            return list(self._problems)
        outlines, problems = {}, []
        for path, _ in signature:
            if path.suffix == ".json":
                try:
                    outline = Outline.read(path)
                except (ValueError, UnicodeDecodeError) as e:
                    problems.append(f"transcripts/{path.name}: {' '.join(str(e).split())}")
                    continue
                outlines[outline.slug] = outline
        return problems + load_translations(outlines, [p for p, _ in signature])[1]

    def get(self, slug: str) -> Run | None:
        if not SLUG_RE.match(slug):
            return None
        return self.runs().get(slug)


#: yaml.safe_load's loader with libyaml's C parser (PyYAML's wheels ship it): the same safe
#: constructors, several times faster on the transcripts' translations.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_translations(
    outlines: dict[str, Outline], paths: list[Path]
) -> tuple[dict[tuple[str, str], Prose], list[str]]:
    """{(slug, lang): prose} for every valid translation file among ``paths``, and "file:
    reason" for the others."""
    proses, problems = {}, []
    for path in paths:
        if path.suffix != ".yaml":
            continue
        lang, name = path.parent.name, f"{path.parent.name}/{path.name}"
        try:
            if not LANG_RE.match(lang):
                raise ValueError("the folder is not a language code")
            outline = outlines.get(path.stem)
            if outline is None:
                raise ValueError(f"no English transcript has the slug {path.stem!r}")
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)  # noqa: S506
            proses[outline.slug, lang] = parse_translation(data, lang, outline)
        except (yaml.YAMLError, UnicodeDecodeError, ValueError) as e:
            reason = " ".join(str(e).split())
            problems.append(f"transcripts/{name}: {reason} (ignored: English is shown)")
    return proses, problems


_libraries: dict[str, Library] = {}


def library() -> Library:
    directory = Path(settings.CONTENT_DIR) / "transcripts"
    lib = _libraries.get(str(directory))
    if lib is None:
        lib = _libraries[str(directory)] = Library(directory)
    return lib
