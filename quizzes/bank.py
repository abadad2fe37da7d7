"""Load the question bank from YAML files into versioned Question rows."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from core.prepared import prepared
from core.rendering import render_inline, render_markdown

from . import kinds, schema, translations
from .models import Option, Question, new_key
from .signals import announce_bank_changed


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    problems: list[schema.Problem] = field(default_factory=list)


def content_hash(parsed: dict[str, Any]) -> str:
    # Translations are not the question's words: changing one never makes a new version.
    clean = {k: v for k, v in parsed.items() if k not in ("line", "file", "translations")}
    return hashlib.sha256(json.dumps(clean, sort_keys=True).encode()).hexdigest()


def _build(parsed: dict[str, Any], version: int, origin: str) -> Question:
    digest = content_hash(parsed)
    data = copy.deepcopy(parsed["data"])
    # Each kind adds its rendered HTML; matching returns the key of each right-hand text.
    rights_by_text = kinds.of(parsed["kind"]).build(data, parsed["options"])
    question = Question(
        slug=parsed["slug"],
        version=version,
        is_current=True,
        kind=parsed["kind"],
        subtopic=parsed["subtopic"],
        concept=parsed["concept"],
        difficulty=parsed["difficulty"],
        status=parsed["status"],
        stem=parsed["stem"],
        stem_html=render_markdown(parsed["stem"]).html,
        explanation=parsed["explanation"],
        explanation_html=render_markdown(parsed["explanation"]).html,
        sources=parsed["sources"],
        notes_ref=parsed["notes"],
        scenario=parsed.get("scenario", ""),
        cluster=parsed.get("cluster", ""),
        idnumber=parsed.get("idnumber", ""),
        data=data,
        origin=origin,
        content_hash=digest,
    )
    question._pending_options = [
        Option(
            key=o.get("key") or new_key(),
            position=i,
            text=o["text"],
            text_html=render_inline(o["text"]),
            correct=o["correct"],
            why=o["why"],
            why_html=render_inline(o["why"]),
            family=o.get("family", ""),
            match=rights_by_text.get(o.get("match", ""), ""),
        )
        for i, o in enumerate(parsed["options"])
    ]
    return question


def current_version(slug: str) -> Question | None:
    """The slug's current version (at most one: the one_current_version constraint), or None;
    ``Question.objects.current().filter(slug=slug)`` compiled once per process (its ORM build
    was a third of the time of saving a small question)."""
    query = prepared(
        ("bank-current-version",),
        lambda slug: Question.objects.current().filter(slug=slug),
        slug="\x00stand-in slug",
    )
    return query.first(slug=slug)


def save_question(parsed: dict[str, Any], *, origin: str = Question.Origin.FILE) -> Question:
    """Create the first or the next version of a question from its parsed form."""
    current = current_version(parsed["slug"])
    version = 1
    if current is not None:
        version = current.version + 1
        current.is_current = False
        current.save(update_fields=["is_current"])
    question = _build(parsed, version, origin)
    question.save()
    options = question._pending_options
    for o in options:
        o.question = question
    Option.objects.bulk_create(options)
    if current is not None:  # its translations follow, stale until brought up to date
        translations.carry_over(current, question)
    announce_bank_changed()
    return question


def create_questions(parsed: list[dict[str, Any]], *, origin: str = Question.Origin.FILE) -> list:
    """The first versions of new slugs, written in two bulk inserts (the rows save_question
    writes for a slug without a current version, in the same order)."""
    built = [_build(p, 1, origin) for p in parsed]
    questions = Question.objects.bulk_create(built)
    options = []
    for question in questions:
        for o in question._pending_options:
            o.question = question
            options.append(o)
    Option.objects.bulk_create(options)
    if questions:
        announce_bank_changed()
    return questions


@transaction.atomic
def load_bank(paths: list[Path], *, retire_missing: bool = True) -> LoadReport:
    """Upsert every valid question of the files by slug; browser-authored ones are left alone."""
    result = schema.parse_files(paths)
    report = LoadReport(problems=result.problems)
    current = {q.slug: q for q in Question.objects.current()}
    # New slugs are written together, before the next update (the pks keep the files' order).
    new: list[dict[str, Any]] = []
    pending: set[str] = set()
    for parsed in result.questions:
        existing = current.get(parsed["slug"])
        if existing is not None and existing.origin == Question.Origin.BROWSER:
            report.skipped.append(parsed["slug"])
            continue
        if existing is not None and existing.content_hash == content_hash(parsed):
            report.unchanged.append(parsed["slug"])
            continue
        if existing is None and parsed["slug"] not in pending:
            new.append(parsed)
            pending.add(parsed["slug"])
            report.created.append(parsed["slug"])
            continue
        create_questions(new)
        new, pending = [], set()
        save_question(parsed)
        (report.updated if existing else report.created).append(parsed["slug"])
    create_questions(new)
    if retire_missing and not result.problems:
        seen = {q["slug"] for q in result.questions}
        for slug, q in current.items():
            if (
                slug not in seen
                and q.origin == Question.Origin.FILE
                and q.status == Question.Status.PUBLISHED
            ):
                q.status = Question.Status.DRAFT
                q.save(update_fields=["status"])
                report.retired.append(slug)
    return report
