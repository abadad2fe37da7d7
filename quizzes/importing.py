"""Import and export the bank as YAML, GIFT or Moodle XML: preview first, then one transaction.

``import_preview`` reads a file and lists what would be created, updated or left unchanged, what
is skipped and why, and every error with its line or XML element; nothing is written.
``import_apply`` writes a clean preview in one transaction (like Moodle's default "stop on
error", a file with errors writes nothing). Questions imported from GIFT or XML become drafts,
with the fields those formats lack filled from the form's defaults, so an instructor completes
them before publishing. Imported questions are stored with origin "browser", so
``manage.py loadcontent`` never retires or overwrites them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction

from . import bank, schema
from .formats import (
    FORMATS,
    IMPORTABLE,
    Defaults,
    FormatError,
    Issue,
    describe,
    detect,
    gift,
    moodlexml,
    slugify,
    to_bank,
    yamlfmt,
)
from .models import Question

READERS = {"gift": gift.parse, "moodlexml": moodlexml.parse}
WRITERS = {"gift": gift.export, "moodlexml": moodlexml.export, "yaml": yamlfmt.export}
EXTENSIONS = {"gift": "gift.txt", "moodlexml": "xml", "yaml": "yaml"}
FORMAT_LABELS = {"yaml": "Loopcraft YAML", "gift": "GIFT", "moodlexml": "Moodle XML"}
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
    """What importing this text would do; reads the bank once and writes nothing."""
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
    candidates: list[tuple[str, dict, list[str], list[str]]] = []
    if fmt == "yaml":
        result = schema.parse_text(text, file="file")
        preview.errors += [Issue(f"line {p.line}", p.message, p.slug) for p in result.problems]
        candidates = [(f"line {q['line']}", q, [], []) for q in result.questions]
    else:
        parsed = READERS[fmt](text)
        preview.errors += parsed.errors
        used: set[str] = set()
        next_n: dict[str, int] = {}
        for n, mq in enumerate(parsed.questions, 1):
            slug = _unique(mq.meta.get("slug") or slugify(mq.name, f"imported-{n}"), used, next_n)
            mapped = to_bank(mq, defaults, slug)
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
            candidates.append((mq.where, question, mapped.filled, mapped.warnings))
    current = dict(Question.objects.current().values_list("slug", "content_hash"))
    for where, question, filled, warnings in candidates:
        digest = current.get(question["slug"])
        action = "create" if digest is None else "update"
        if digest == bank.content_hash(question):
            action = "unchanged"
        preview.rows.append(
            Row(where, question["slug"], question["kind"], action, question["status"],
                filled, warnings, question)
        )  # fmt: skip
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
            bank.save_question(row.parsed, origin=Question.Origin.BROWSER)
    logger.info(
        "imported questions: %d created, %d updated, %d unchanged, %d skipped",
        preview.count("create"),
        preview.count("update"),
        preview.count("unchanged"),
        len(preview.skipped),
    )
    return preview


# ---------------------------------------------------------------------------- export


def question_to_bank(q: Question) -> dict:
    """A Question row back in bank format (inverse of bank._build); uses prefetched options."""
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
    for tag in ("scenario", "cluster"):  # only when set, so untagged exports stay as they were
        if getattr(q, tag, ""):
            out[tag] = getattr(q, tag)
    options = list(q.options.all())
    data = q.data or {}
    if q.kind in ("single", "multiple", "truefalse"):
        out["options"] = [_choice(o, {"text": o.text}) for o in options]
    elif q.kind == "next_action":
        out["response"] = data.get("response")
        out["choices"] = [_choice(o, {"action": o.key}) for o in options]
    elif q.kind == "ordering":
        out["items"] = [{"text": o.text, "why": o.why} for o in options]
    elif q.kind == "matching":
        rights = {r["key"]: r["text"] for r in data.get("rights", [])}
        out["pairs"] = [
            {"left": o.text, "right": rights.get(o.match, ""), "why": o.why} for o in options
        ]
        if data.get("extra_rights"):
            out["extra_rights"] = list(data["extra_rights"])
    elif q.kind == "json":
        out["accept"] = data.get("accept", [])
        if data.get("normalize"):
            out["normalize"] = data["normalize"]
        out["why"] = data.get("why", "")
        if data.get("placeholder"):
            out["placeholder"] = data["placeholder"]
        if data.get("wrong_answers"):
            out["wrong_answers"] = [
                {"answer": w["answer"], "why": w["why"], "family": w["family"]}
                for w in data["wrong_answers"]
            ]
    elif q.kind == "fix":
        out["why"] = data.get("why", "")
        out.update(data.get("context", {}))
        out["messages"] = data.get("messages", [])
        out["sample_fix"] = data.get("sample_fix", [])
    return out


def _choice(o, head: dict) -> dict:
    head["why"] = o.why
    if o.correct:
        head["correct"] = True
    else:
        head["family"] = o.family
    return head


def export_questions(fmt: str, questions) -> tuple[str, list[tuple[str, str]]]:
    """(file text, [(slug, why it was left out)]) for the given Question rows."""
    if fmt not in WRITERS:
        raise FormatError(f"Unknown format {fmt!r}: choose one of {', '.join(FORMATS)}.")
    text, skipped = WRITERS[fmt]([question_to_bank(q) for q in questions])
    if skipped and fmt == "gift":
        notes = "".join(f"// skipped {slug}: {reason}\n" for slug, reason in skipped)
        text = notes + "\n" + text
    elif skipped and fmt == "moodlexml":
        notes = "".join(f"  skipped {slug}: {reason}\n" for slug, reason in skipped)
        head, _, body = text.partition("\n")
        text = f"{head}\n<!--\n{notes}-->\n{body}"
    return text, skipped


def exportable():
    """Current questions in a stable order; two queries (questions, then their options)."""
    return Question.objects.current().order_by("subtopic", "slug").prefetch_related("options")
