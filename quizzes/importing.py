"""Import and export the bank as YAML, GIFT or Moodle XML: preview first, then one transaction.

``import_preview`` reads a file and lists what would be created, updated or left unchanged, what
is skipped and why, and every error with its line or XML element; nothing is written.
``import_apply`` writes a clean preview in one transaction (like Moodle's default "stop on
error", a file with errors writes nothing). Our own GIFT and XML exports carry the bank's
metadata, so they come back exactly as they left; other GIFT and XML questions become drafts,
with the fields those formats lack filled from the form's defaults. A new question gets origin
"browser" (``manage.py loadcontent`` never retires or overwrites it); an update keeps the origin
of the question it updates.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Prefetch

from core import i18n

from . import bank, kinds, schema, translations
from .formats import (
    FORMATS,
    IMPORTABLE,
    Defaults,
    FormatError,
    Issue,
    aiken,
    describe,
    detect,
    gift,
    moodlexml,
    slugify,
    to_bank,
    yamlfmt,
)
from .models import Question
from .signals import announce_bank_changed

READERS = {"gift": gift.parse, "moodlexml": moodlexml.parse, "aiken": aiken.parse}
WRITERS = {"gift": gift.export, "moodlexml": moodlexml.export, "yaml": yamlfmt.export}
EXTENSIONS = {"gift": "gift.txt", "moodlexml": "xml", "yaml": "yaml"}
FORMAT_LABELS = {"yaml": "Loopcraft YAML", "gift": "GIFT", "moodlexml": "Moodle XML"}
IMPORT_LABELS = {**FORMAT_LABELS, "aiken": "Aiken"}
MAX_BYTES = schema.MAX_BYTES

logger = logging.getLogger(__name__)


@dataclass
class Row:
    """A question that the import would write."""

    where: str
    slug: str
    kind: str
    action: str  # create, update or unchanged
    status: str
    filled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    parsed: dict = field(default_factory=dict, repr=False)
    origin: str = "browser"  # kept from the question it updates; "browser" when new
    number: int = 0  # place in a GIFT / XML file (per-answer choices in the preview use it)
    source: object = field(default=None, repr=False)  # the MoodleQuestion read from the file


@dataclass
class Skip:
    where: str
    name: str
    reason: str


@dataclass
class Preview:
    format: str
    rows: list[Row] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    errors: list[Issue] = field(default_factory=list)
    #: The file's Moodle categories, in order, each with the subtopic it maps to (or "").
    categories: list[tuple[str, str]] = field(default_factory=list)

    @property
    def can_apply(self) -> bool:
        return not self.errors and any(r.action != "unchanged" for r in self.rows)

    def count(self, action: str) -> int:
        return sum(1 for r in self.rows if r.action == action)

    @property
    def count_create(self) -> int:
        return self.count("create")

    @property
    def count_update(self) -> int:
        return self.count("update")

    @property
    def count_unchanged(self) -> int:
        return self.count("unchanged")


def _validate(question: dict) -> tuple[dict | None, list[str]]:
    """Run our bank schema over one mapped question (the same checks as loadcontent)."""
    parsed, problems = schema.check_question(question)
    return (parsed if not problems else None), [p.message for p in problems]


def import_preview(text: str, fmt: str = "auto", defaults: Defaults | None = None) -> Preview:
    """What importing this text would do; reads the bank once and writes nothing.

    Which question a file's question is decides only the file's own id: its Loopcraft slug
    (YAML, or our metadata in GIFT and XML) or its Moodle idnumber. Without one, the question
    is new, under a slug no question has yet, so an import never overwrites a question it did
    not come from. An update keeps the question's origin (so ``loadcontent`` and the browser
    agree on who owns it) and never unpublishes it.
    """
    defaults = defaults or Defaults()
    if fmt == "auto":
        fmt = detect(text)
        what = describe(text) if fmt == "gift" else None
        if what:
            raise FormatError(
                f"This is not a question file we can read: it looks like {what}. {IMPORTABLE}"
            )
    if fmt not in FORMATS:
        raise FormatError(f"Unknown format {fmt!r}: choose one of {', '.join(FORMATS)}.")
    preview = Preview(format=fmt)
    if len(text.encode()) > MAX_BYTES:
        preview.errors.append(
            Issue("file", f"the file is larger than {MAX_BYTES // 1024 // 1024} MB, the size limit")
        )
        return preview
    current = {
        q.slug: q
        for q in Question.objects.current().only(
            "slug", "content_hash", "status", "origin", "idnumber", "version"
        )
    }
    by_idnumber = {q.idnumber: q.slug for q in current.values() if q.idnumber}
    taken = set(Question.objects.values_list("slug", flat=True).distinct())
    candidates: list[tuple[str, dict, list[str], list[str], object]] = []
    if fmt == "yaml":
        result = schema.parse_text(text, file="file")
        preview.errors += [Issue(f"line {p.line}", p.message, p.slug) for p in result.problems]
        candidates = [(f"line {q['line']}", q, [], [], None) for q in result.questions]
    else:
        parsed = READERS[fmt](text)
        preview.errors += parsed.errors
        for mq in parsed.questions:
            if mq.category and mq.category not in dict(preview.categories):
                preview.categories.append((mq.category, defaults.categories.get(mq.category, "")))
        used: set[str] = set(taken)  # every slug in use, so a new question never takes one
        next_n: dict[str, int] = {}
        for n, mq in enumerate(parsed.questions, 1):
            same_name = ""
            own = mq.meta.get("slug") or ""
            target = own if own in current else by_idnumber.get(mq.idnumber or "")
            if not target and mq.meta.get("idnumber"):
                target = by_idnumber.get(mq.meta["idnumber"])
            if target:
                slug = target
                used.add(slug)
            else:  # new: a slug that no question (current or old) has, nor another in the file
                base = (
                    own if own and schema.SLUG_RE.match(own) else slugify(mq.name, f"imported-{n}")
                )
                slug = _unique(base, used, next_n)
                if base in taken:
                    same_name = (
                        f"a question {base} exists; this file gives no id for this one, "
                        "so it is imported as a new question"
                    )
            mapped = to_bank(mq, defaults, slug, n)
            if mapped.skipped:
                preview.skipped.append(Skip(mq.where, mq.name, mapped.skipped))
                continue
            missing = _missing_defaults(mapped.question)
            if missing:
                preview.errors.append(Issue(mq.where, missing, mq.name))
                continue
            question, problems = _validate(mapped.question)
            if problems:
                preview.errors += [Issue(mq.where, p, mq.name) for p in problems]
                continue
            warnings = mapped.warnings + ([same_name] if same_name else [])
            candidates.append((mq.where, question, mapped.filled, warnings, (n, mq)))
    for where, question, filled, warnings, source in candidates:
        existing = current.get(question["slug"])
        if (
            existing is not None
            and existing.status == "published"
            and question["status"] != "published"
        ):
            question["status"] = "published"  # an import never unpublishes
            warnings = [
                *warnings,
                "stays published (the file says draft; unpublish it in the editor)",
            ]
        action = "create" if existing is None else "update"
        if existing is not None and existing.content_hash == bank.content_hash(question):
            action = "unchanged"
        row = Row(where, question["slug"], question["kind"], action, question["status"],
                  filled, warnings, question)  # fmt: skip
        row.origin = existing.origin if existing is not None else Question.Origin.BROWSER
        if source is not None:
            row.number, row.source = source
        preview.rows.append(row)
    return preview


def _unique(slug: str, used: set[str], next_n: dict[str, int]) -> str:
    """``slug``, or ``slug-2``, ``slug-3``...: the first free one. ``next_n`` remembers where
    each base slug's search stopped, so 10,000 questions of one name stay linear."""
    candidate, n = slug, next_n.get(slug, 2)
    if n > 2:
        candidate = slug[: 80 - len(f"-{n}")] + f"-{n}"
    while candidate in used:
        suffix = f"-{n}"
        candidate, n = slug[: 80 - len(suffix)] + suffix, n + 1
    used.add(candidate)
    next_n[slug] = n
    return candidate


def _missing_defaults(question: dict) -> str:
    missing = [
        label
        for key, label in (("subtopic", "subtopic"), ("notes", "notes link"), ("sources", "source"))
        if not question[key]
    ]
    if not missing:
        return ""
    return f"the file gives no {', '.join(missing)}: choose a default for it on the import form"


@transaction.atomic
def import_apply(preview: Preview) -> Preview:
    """Write every created or updated question of a clean preview, all or nothing."""
    if preview.errors:
        raise ValueError("Fix the errors in the file first: nothing was imported.")
    for row in preview.rows:
        if row.action != "unchanged":
            bank.save_question(row.parsed, origin=row.origin)
        if row.parsed.get("translations"):  # a YAML export's, checked by the schema
            question = Question.objects.current().prefetch_related("options").get(slug=row.slug)
            english = question_to_bank(question)
            for lang, entry in row.parsed["translations"].items():
                translations.upsert(question, lang, entry, english)
    # (a new version announces itself; a translation alone is news for the pages too)
    announce_bank_changed()
    logger.info(
        "imported questions: %d created, %d updated, %d unchanged, %d skipped",
        preview.count("create"),
        preview.count("update"),
        preview.count("unchanged"),
        len(preview.skipped),
    )
    return preview


# ---------------------------------------------------------------------------- export


def question_to_bank(q: Question, options: list | None = None) -> dict:
    """A Question row back in bank format (inverse of bank._build): its ``options`` in order
    when the caller has them (``exportable``'s lists, load_translations' rows), else its
    (prefetched) options."""
    out = {
        "slug": q.slug,
        "kind": q.kind,
        "subtopic": q.subtopic,
        "concept": q.concept,
        "difficulty": q.difficulty,
        "status": q.status,
        "notes": q.notes_ref,
        "sources": list(q.sources),
        "stem": q.stem,
        "explanation": q.explanation,
    }
    for tag in ("scenario", "cluster", "idnumber"):  # only when set: untagged exports stay as is
        if getattr(q, tag, ""):
            out[tag] = getattr(q, tag)
    if (q.data or {}).get("today"):
        out["today"] = q.data["today"]
    kinds.of(q.kind).to_yaml(q, out, list(q.options.all()) if options is None else options)
    return out


def export_questions(fmt: str, questions, lang: str = "") -> tuple[str, list[tuple[str, str]]]:
    """(file text, [(slug, why it was left out)]) for the given Question rows.

    YAML carries every translation under each question's ``translations:``; GIFT and XML hold
    one language, so ``lang`` (a translated language) writes that language's words where a
    translation exists (English otherwise): one file per language.
    """
    if fmt not in WRITERS:
        raise FormatError(f"Unknown format {fmt!r}: choose one of {', '.join(WRITERS)}.")
    if lang and lang not in i18n.other_languages():
        raise FormatError(
            f"Unknown language {lang!r}: choose one of {', '.join(i18n.other_languages())}."
        )
    out = []
    for q in questions:
        as_bank = question_to_bank(q, getattr(q, "export_options", None))
        kept = getattr(q, "export_translations", None)
        rows = {t.lang: t for t in (q.translations.all() if kept is None else kept)}
        if fmt == "yaml" and rows:
            as_bank["translations"] = {
                code: translations.as_entry(rows[code])
                for code in i18n.other_languages()
                if code in rows
            }
        elif lang and lang in rows:
            as_bank = translations.in_language(as_bank, rows[lang].fields)
        out.append(as_bank)
    text, skipped = WRITERS[fmt](out)
    if skipped and fmt == "gift":
        notes = "".join(f"// skipped {slug}: {reason}\n" for slug, reason in skipped)
        text = notes + "\n" + text
    elif skipped and fmt == "moodlexml":
        notes = "".join(f"  skipped {slug}: {reason}\n" for slug, reason in skipped)
        head, _, body = text.partition("\n")
        text = f"{head}\n<!--\n{notes}-->\n{body}"
    return text, skipped


def exportable():
    """Current questions in a stable order; three queries (questions, their options, their
    translations), each question's kept as plain lists (``export_options`` in their order,
    ``export_translations``) that export_questions reads: a related manager's queryset made for
    each of 229 questions twice, and copied again to be read, was a third of reading the bank."""
    return (
        Question.objects.current()
        .order_by("subtopic", "slug")
        .prefetch_related(
            Prefetch("options", to_attr="export_options"),
            Prefetch("translations", to_attr="export_translations"),
        )
    )
