"""Check yourself: three bank questions at the end of a note, graded on the server."""

from __future__ import annotations

import zlib

from django.db.models import Case, IntegerField, Q, Value, When

from core import i18n
from core.prepared import prepared
from quizzes import grading, presentation, translations, versioncache
from quizzes.models import Question

from .loader import Note

#: Kinds a learner can answer inline, under a note, without a page of its own.
INLINE_KINDS = ("single", "multiple", "truefalse", "next_action")
PER_NOTE = 3


def seed_for(note: Note) -> int:
    """The same option order for every reader of a note, so a no-JS reload shows the same."""
    return zlib.crc32(note.slug.encode())


def questions_for(note: Note) -> list[Question]:
    """Up to three published questions that test this note: 2 queries, whatever the bank size
    (1 once this process keeps their versions' options: quizzes/versioncache.py).

    A note may name its questions (front matter ``check_yourself``); otherwise the bank's
    questions whose notes reference points into this note come first, then the note's
    subtopics, easiest first, so the choice is stable between readers. The query depends on
    the note and the language alone: compiled to SQL once per process (core/prepared.py).
    """
    lang = i18n.current()
    named = tuple(note.check_yourself or ())
    key = ("note-checks", note.slug, named, tuple(note.subtopics), lang)
    found = prepared(key, lambda: _selection(note, named, lang)).all()
    if named:
        order = {slug: i for i, slug in enumerate(named)}
        found = sorted(found, key=lambda q: order[q.slug])[:PER_NOTE]
    return _localised(versioncache.with_options_all(found), lang)


def _selection(note: Note, named: tuple[str, ...], lang: str):
    qs = Question.objects.published().filter(kind__in=INLINE_KINDS)
    # Each question's translation for the page comes in the same query (a subquery).
    qs = translations.with_translation(qs, lang)
    if named:
        return qs.filter(slug__in=named)
    qs = qs.filter(Q(notes_ref__startswith=f"{note.slug}#") | Q(subtopic__in=note.subtopics))
    qs = qs.annotate(
        here=Case(
            When(notes_ref__startswith=f"{note.slug}#", then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
    )
    return qs.order_by("here", "difficulty", "slug")[:PER_NOTE]


def checkable(slug: str) -> Question | None:
    """The published question ``slug`` if it can be answered under a note, with its
    translation for the page and its options (one query; none for the options once this
    process keeps them); the lookup compiled to SQL once per language (core/prepared.py)."""
    lang = i18n.current()

    def build(slug):
        qs = Question.objects.published().filter(kind__in=INLINE_KINDS, slug=slug)
        return translations.with_translation(qs, lang)

    found = prepared(("note-check-question", lang), build, slug="\x00stand-in slug").first(
        slug=slug
    )
    return versioncache.with_options(found) if found is not None else None


def _localised(questions: list[Question], lang: str) -> list[Question]:
    """Each question in the page's language where a current translation exists."""
    return [
        translations.localise(
            q, getattr(q, "tr_html", None), getattr(q, "tr_stale", None), lang
        ).question
        for q in questions
    ]


def item(note: Note, question: Question, number: int, *, post=None) -> dict:
    """One check-yourself item: its inputs, and the feedback once an answer was posted."""
    ctx = {"question": question, "number": number, "error": "", "fb": None, "answer": None}
    if post is not None:
        spec = question.grading_spec()
        try:
            answer = grading.parse_answer(spec, post)
        except grading.AnswerError as e:
            ctx["error"] = str(e) or "Choose an answer first."
        else:
            graded = grading.grade(spec, answer)
            ctx["answer"] = answer
            ctx["fb"] = presentation.feedback(question, answer, graded.score)
    ctx["form_ctx"] = presentation.present(question, seed_for(note), ctx["answer"])
    return ctx
