"""Writes of the authoring side: saving versions, publishing, problem reports, drafts from steps."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Count, prefetch_related_objects
from django.utils import timezone, translation
from django.utils.translation import gettext

from core import i18n
from core.prepared import prepared, prepared_rows
from quizzes import bank, importing, kinds, translations
from quizzes.models import Question
from quizzes.signals import announce_bank_changed
from studyapp.agentloop import catalogue

from . import forms
from .models import ProblemReport


class AuthoringError(ValueError):
    """A write that cannot be done, with the reason in words."""


def question_as_bank_dict(question: Question) -> dict[str, Any]:
    """The question version as a bank file holds it (docs/QUESTION_FORMAT.md): the export's own
    mapping, so the editor, the files and the exports never disagree."""
    return importing.question_to_bank(question)


def question_editable(question: Question) -> dict[str, Any]:
    """The version in the schema's parsed shape, without checking it: a question that no longer
    passes the checks must still open in the editor, to be fixed there."""
    data = question.data or {}
    rights = {r["key"]: r["text"] for r in data.get("rights", [])}
    return {
        "slug": question.slug,
        "kind": question.kind,
        "subtopic": question.subtopic,
        "concept": question.concept,
        "difficulty": question.difficulty,
        "notes": question.notes_ref,
        "sources": list(question.sources),
        "stem": question.stem,
        "explanation": question.explanation,
        "data": data,
        "options": [
            {
                "key": o.key,
                "text": o.text,
                "match": rights.get(o.match, ""),
                "correct": o.correct,
                "why": o.why,
                "family": o.family,
            }
            for o in question.options.all()
        ],
    }


def question_parsed(question: Question) -> dict[str, Any]:
    """The stored version read back through the bank's schema, as the editor starts from it."""
    parsed, problems = check_data(question_as_bank_dict(question), require_families=False)
    if parsed is None:
        raise AuthoringError(
            gettext("%(question)s no longer passes the bank's checks: %(problem)s")
            % {"question": question, "problem": problems[0]}
        )
    return parsed


@transaction.atomic
def question_save(*, parsed: dict[str, Any], publish: bool) -> tuple[Question, bool]:
    """Save a new version (first, or next) from the editor; nothing when nothing changed.

    Earlier versions stay in the table, so every response keeps the version it answered.
    """
    parsed = {**parsed, "status": "published" if publish else "draft"}
    current = bank.current_version(parsed["slug"])
    if current is not None and current.content_hash == bank.content_hash(parsed):
        return current, False
    return bank.save_question(parsed, origin=Question.Origin.BROWSER), True


@transaction.atomic
def question_publish(*, question: Question) -> Question:
    """Publish the current version in place: its content (and so its answers) do not change."""
    if not question.is_current:
        raise AuthoringError(gettext("Only the current version of a question can be published."))
    parsed = {**question_parsed(question), "status": Question.Status.PUBLISHED}
    question.status = Question.Status.PUBLISHED
    question.content_hash = bank.content_hash(parsed)
    question.save(update_fields=["status", "content_hash"])
    announce_bank_changed()
    return question


def preview(parsed: dict[str, Any], render, *, stored: Question | None = None):
    """Call render(question) on the question saved as it would be, then undo the save.

    The preview then runs the very code candidates meet (Markdown, option keys, shuffling),
    and nothing of it stays in the database. ``stored``: the version the editor opened, its
    options prefetched; when ``parsed`` is that version's content unchanged (the same content
    hash, as question_save compares), saving it would write the same question again, so the
    stored version itself is shown: what candidates meet, without a write and a rollback.
    """
    if stored is not None and stored.content_hash == bank.content_hash(parsed):
        return render(stored)
    with transaction.atomic():
        question = bank.save_question(parsed, origin=Question.Origin.BROWSER)
        # Its options read once: the inputs, the right answer, its grading and the feedback
        # each read them (four queries of the same rows otherwise).
        prefetch_related_objects([question], "options")
        try:
            return render(question)
        finally:
            transaction.set_rollback(True)


def report_create(*, question: Question, owner, text: str) -> ProblemReport:
    return ProblemReport.objects.create(
        question=question, user=owner.user, owner_token=owner.token, text=text
    )


def current_version(slug: str) -> Question | None:
    """The slug's current version (at most one: the one_current_version constraint), or None;
    ``Question.objects.current().filter(slug=slug)`` compiled once per process."""
    query = prepared(
        ("author-current-version",),
        lambda slug: Question.objects.current().filter(slug=slug),
        slug="\x00stand-in slug",
    )
    return query.first(slug=slug)


def translation_states(question: Question) -> dict[str, str]:
    """Per translated language: "ok", "stale" (English changed since) or "missing", as
    ``quizzes.translations.status_by_question([question])[question.pk]`` says; its query
    compiled once per process (the editor asks on every page and post)."""
    from quizzes.models import QuestionTranslation

    langs = i18n.other_languages()
    query = prepared_rows(
        ("author-translation-states", langs),
        lambda question_id: QuestionTranslation.objects.filter(
            question_id=question_id, lang__in=langs
        ).values_list("lang", "is_stale"),
        question_id=1_999_999_201,
    )
    found = dict(query.rows(question_id=question.pk))
    return {
        lang: "missing" if lang not in found else ("stale" if found[lang] else "ok")
        for lang in langs
    }


VERSION_COLUMNS = ("version", "status", "origin", "created_at", "n_responses")


def versions(slug: str) -> list[dict[str, Any]]:
    """Every version of the slug, newest first, with its number of responses (the editor's
    table); ``Question.objects.filter(slug=slug).annotate(...).values(...)`` compiled once."""
    query = prepared_rows(
        ("author-versions",),
        lambda slug: (
            Question.objects.filter(slug=slug)
            .annotate(n_responses=Count("responses"))
            .order_by("-version")
            .values_list(*VERSION_COLUMNS)
        ),
        slug="\x00stand-in slug",
    )
    return [dict(zip(VERSION_COLUMNS, row, strict=True)) for row in query.rows(slug=slug)]


def report_close(*, report: ProblemReport, outcome: str, by, note: str = "") -> ProblemReport:
    """Resolve or dismiss; a resolved report names the version that carries the fix."""
    if outcome not in (ProblemReport.Status.RESOLVED, ProblemReport.Status.DISMISSED):
        raise AuthoringError(gettext("Choose resolve or dismiss."))
    note = (note or "").strip()
    if len(note) > ProblemReport.MAX_TEXT:
        raise AuthoringError(
            gettext("The note is longer than %(max)s characters.") % {"max": ProblemReport.MAX_TEXT}
        )
    report.status = outcome
    report.resolved_at = timezone.now()
    report.resolved_by = by
    report.resolution_note = note
    report.fixed_in_version = None
    if outcome == ProblemReport.Status.RESOLVED:
        current = current_version(report.question.slug)
        if current is not None and current.version > report.question.version:
            report.fixed_in_version = current.version
    report.save(
        update_fields=[
            "status", "resolved_at", "resolved_by", "resolution_note", "fixed_in_version"
        ]
    )  # fmt: skip
    return report


def _free_slug(base: str) -> str:
    taken = set(
        Question.objects.filter(slug__startswith=base).values_list("slug", flat=True).distinct()
    )
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def check_data(question: dict, *, require_families: bool = True) -> tuple[dict | None, list[str]]:
    """``forms.check`` of a question this application wrote itself (a stored version read back,
    a draft made from a step): the bank's checks run on the data, as the editor runs them on its
    form's question (forms._schema). ``require_families``: the editor's rule that each trap is
    named."""
    return forms.check(question, require_families=require_families)


def draft_from_step(*, run_key: str, title: str, step: int, response: dict) -> Question:
    """A draft next-action question holding the step's response, for the author to finish.

    The key, the right choice's why and the sources come from the stop_reason catalogue; the
    other choices are the catalogue's commonest wrong moves, each to be reviewed before publishing.
    """
    try:
        right = catalogue.next_action(response)
    except ValueError as e:
        raise AuthoringError(
            gettext("This step cannot become a question: %(error)s") % {"error": e}
        ) from None
    info = catalogue.STOP_REASONS[response.get("stop_reason")]
    wrong = [
        code
        for code in (
            "run_tools",
            "resend_paused",
            "finish",
            "send_continue_message",
            "retry_unchanged",
            "run_tools_separately",
        )  # fmt: skip
        if code != right
    ][:3]
    slug = _free_slug(f"step-{run_key}-{step}"[:70].strip("-"))
    with translation.override("en"):  # the bank's own language; the page's is added below
        words = _draft_words(info, right, wrong, step, title)
    choices = [{"action": right, "correct": True, "why": words["whys"][0]}]
    choices += [
        {"action": code, "why": why, "family": "misread-contract"}
        for code, why in zip(wrong, words["whys"][1:], strict=True)
    ]
    question = {
        "slug": slug,
        "kind": kinds.Kind.NEXT_ACTION.value,
        "subtopic": "stop-reasons",
        "concept": f"next-action-{info.value.replace('_', '-')}",
        "difficulty": 2,
        "status": "draft",
        "notes": f"stop-reasons#{info.anchor}",
        "sources": [info.doc_url],
        "stem": words["stem"],
        "explanation": words["explanation"],
        "response": response,
        "choices": choices,
    }
    parsed, problems = check_data(question)
    if parsed is None:
        raise AuthoringError(
            gettext("This step cannot become a question: %(error)s") % {"error": problems[0]}
        )
    saved = bank.save_question(parsed, origin=Question.Origin.BROWSER)
    lang = translation.get_language() or "en"
    if lang in i18n.other_languages():  # the author reads the site in another language
        local = _draft_words(info, right, wrong, step, title)
        entry = {
            "stem": local["stem"],
            "explanation": local["explanation"],
            "choices": [{"why": why} for why in local["whys"]],
        }
        question = Question.objects.prefetch_related("options").get(pk=saved.pk)
        translations.upsert(question, lang, entry, importing.question_to_bank(question))
    return saved


def _draft_words(info, right: str, wrong: list[str], step: int, title: str) -> dict[str, Any]:
    """A drafted question's words in the active language, from the catalogue's texts."""
    actions = i18n.next_actions()
    return {
        "stem": gettext(
            "Step %(step)s of the recorded loop “%(title)s” returned this response. What must "
            "the loop do next?"
        )
        % {"step": step, "title": title},
        "explanation": i18n.stop_reasons()[info.value].why,
        "whys": [actions[code].detail for code in [right, *wrong]],
    }
