"""An Anki package (.apkg) of the catalogue flashcards and of the questions a learner missed.

Built with genanki; the ids below are fixed so re-importing updates the same deck and notes.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import genanki
from django.db.models import OuterRef, Subquery

from core.owners import Owner
from quizzes import kinds
from quizzes.models import Attempt, Question, Response

from . import flashcards

MODEL_ID = 1_734_000_014
DECK_ID = 1_734_000_114

MODEL = genanki.Model(
    MODEL_ID,
    "Loopcraft card",
    fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Source"}],
    templates=[
        {
            "name": "Card 1",
            "qfmt": "{{Front}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{Back}}<p><small>{{Source}}</small></p>',
        }
    ],
)


def _guid(kind: str, key: str) -> str:
    return hashlib.sha1(f"loopcraft:{kind}:{key}".encode(), usedforsecurity=False).hexdigest()[:20]


def missed_questions(owner: Owner) -> list[Question]:
    """Current questions whose latest answer by this learner was wrong (one query + options)."""
    if owner.user is None and not owner.token:
        return []
    latest = (
        Response.objects.filter(
            attempt__in=Attempt.objects.owned_by(owner),
            answered_at__isnull=False,
            question__slug=OuterRef("slug"),
        )
        .order_by("-answered_at")
        .values("is_correct")[:1]
    )
    return list(
        Question.objects.current()
        .annotate(last_correct=Subquery(latest))
        .filter(last_correct=False)
        .prefetch_related("options")
        .order_by("subtopic", "slug")
    )


def _question_back(q: Question) -> str:
    right = [o.text_html for o in q.options.all() if o.correct]
    answer = "<br>".join(right) if kinds.of(q.kind).CHOICES else ""
    head = f"<p><b>{answer}</b></p>" if answer else ""
    return head + q.explanation_html


def build_package(owner: Owner) -> tuple[bytes, int]:
    """The .apkg bytes and how many notes it holds."""
    deck = genanki.Deck(DECK_ID, "Loopcraft: the agentic loop (CCA-F 1.1)")
    for fc in flashcards.all_cards():
        deck.add_note(
            genanki.Note(
                model=MODEL,
                fields=[fc.front, fc.back, fc.source],
                guid=_guid("flashcard", fc.id),
                tags=["loopcraft", "flashcard", fc.family],
            )
        )
    for q in missed_questions(owner):
        deck.add_note(
            genanki.Note(
                model=MODEL,
                fields=[q.stem_html, _question_back(q), " ".join(q.sources)],
                guid=_guid("question", q.slug),
                tags=["loopcraft", "missed", q.subtopic],
            )
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "loopcraft.apkg"
        genanki.Package(deck).write_to_file(str(path))
        return path.read_bytes(), len(deck.notes)
