"""Write paths of the progress app: rate an answer, start a review, set retention, claim."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, Max, Subquery
from django.utils.translation import gettext

from core.owners import Owner
from core.prepared import owner_stand_in, prepared_rows, prepared_update
from quizzes import services as quiz_services
from quizzes.models import Attempt, Question, Response

from . import flashcards, rules
from .models import ConceptCard, Confidence, ReviewLog, StudyPrefs

#: How many due concepts one review session serves at most.
REVIEW_BATCH = 10


class NothingDue(ValueError):
    """The learner asked for a review when no concept is due."""


def _fuzz() -> bool:
    # Tests turn fuzzing off so intervals are exact; production spreads reviews over days.
    return settings.PROGRESS_FSRS_FUZZ


def retention_for(owner: Owner) -> float:
    prefs = StudyPrefs.objects.owned_by(owner).only("desired_retention").first()
    return prefs.desired_retention if prefs else rules.RETENTION_DEFAULT


def retention_set(*, owner: Owner, retention: float) -> StudyPrefs:
    if not rules.RETENTION_MIN <= retention <= rules.RETENTION_MAX:
        raise ValueError(gettext("Desired retention must be between 80% and 95%."))
    prefs = StudyPrefs.objects.owned_by(owner).first() or StudyPrefs(
        user=owner.user, owner_token=owner.token
    )
    prefs.desired_retention = retention
    prefs.save()
    return prefs


def _owner_of(attempt: Attempt) -> Owner:
    return Owner(attempt.user, attempt.owner_token)


def answer_record(
    *, response: Response, certainty: int | None, seconds: float | None, now: datetime
) -> ReviewLog | None:
    """Rate an answered practice response and review its concept's card; once per response.

    Three queries (one more with a certainty): read, write the card, write the log; this runs
    inside the practice answer's request. There is no lock: the card is updated only if no
    other review changed it since it was read, and the log is unique per response, so a double
    submit or two racing tabs never count one answer twice.
    """
    if not response.answered or response.is_correct is None:
        return None
    if not response.attempt.is_closed(now):
        return None  # an open exam's answers reach FSRS only once it is closed
    owner = _owner_of(response.attempt)
    question = response.question
    card, retention, logged = _card_for(owner, question.concept, response)
    if logged:
        return None  # this answer already counted
    if card is None:
        card = ConceptCard(user=owner.user, owner_token=owner.token, concept=question.concept)
        card.apply(rules.new_card(now))
    rating = rules.rating_for(
        correct=bool(response.is_correct), certainty=certainty, seconds=seconds
    )
    duration = int(seconds * 1000) if seconds is not None and seconds >= 0 else None
    after, recall = rules.review(
        card.fsrs_state, rating, now, retention=retention, duration_ms=duration, fuzz=_fuzz()
    )
    lapsed = rating == rules.Rating.Again and card.state == ConceptCard.State.REVIEW
    seen = card.reviews
    card.apply(after)
    card.subtopic = question.subtopic
    card.reviews += 1
    card.lapses += int(lapsed)
    try:
        if certainty is not None:
            Confidence.objects.create(
                response=response, certainty=certainty, seconds=duration and duration // 1000
            )
        if card.pk is None:
            card.save()
        elif not _card_update().run(
            {f: getattr(card, f) for f in CARD_FIELDS}, pk=card.pk, seen=seen
        ):
            return None  # another review of this concept landed first; it counts instead
        return ReviewLog.objects.create(
            card=card,
            response=response,
            rating=int(rating),
            reviewed_at=now,
            duration_ms=duration,
            retrievability=recall,
            due_after=card.due,
        )
    except IntegrityError:
        return None  # a concurrent request rated this answer (or created the card) first


def _card_update():
    """The card's UPDATE, only if no other review changed it since it was read (its ``reviews``
    still what was read): ``ConceptCard.objects.filter(pk=, reviews=).update()``, its SQL
    compiled once per process (core/prepared.py)."""
    return prepared_update(
        ("progress-card-update",),
        lambda pk, seen: ConceptCard.objects.filter(pk=pk, reviews=seen),
        CARD_FIELDS,
        pk=1_999_999_001,
        seen=1_999_999_002,
    )


def _card_for(owner: Owner, concept: str, response: Response):
    """The learner's card for a concept (or None), their retention, and whether this answer
    was already logged: one query, whether or not the card and the settings exist yet. Its SQL
    (eleven subqueries) is compiled once per process and kind of owner (core/prepared.py)."""
    if owner.user is None and not owner.token:  # owns nothing: the subqueries are empty
        return _card_row_orm(owner, concept, response)
    signed_in = owner.user is not None
    n = len(CARD_FIELDS) + 1
    # Each value is in the SQL once per subquery: one stand-in per place.
    query = prepared_rows(
        ("progress-card-for", signed_in),
        lambda **v: _card_query(v, signed_in),
        pk=1_999_999_001,
        logged_pk=1_999_999_002,
        **_card_stand_ins(signed_in, n),
    )
    who = owner.user.pk if signed_in else owner.token
    values = {f"who{i}": who for i in range(n + 1)} | {f"concept{i}": concept for i in range(n)}
    rows = query.rows(pk=response.pk, logged_pk=response.pk, **values)
    if not rows:
        raise Response.DoesNotExist("Response matching query does not exist.")  # as .get()
    return _card_from(owner, concept, dict(zip(_CARD_COLUMNS, rows[0], strict=True)))


def _card_stand_ins(signed_in: bool, n: int) -> dict:
    who = {f"who{i}": owner_stand_in(signed_in, i) for i in range(n + 1)}
    return who | {f"concept{i}": f"\x00stand-in concept {i}" for i in range(n)}


def _owned(queryset, signed_in: bool, who):
    return (
        queryset.filter(user_id=who) if signed_in else queryset.filter(user=None, owner_token=who)
    )


def _card_query(v: dict, signed_in: bool):
    """The one query of :func:`_card_for`, as ``values_list`` in :data:`_CARD_COLUMNS` order."""
    prefs = _owned(StudyPrefs.objects, signed_in, v[f"who{len(CARD_FIELDS) + 1}"])
    columns = {
        "retention": Subquery(prefs.values("desired_retention")[:1]),
        "logged": Exists(ReviewLog.objects.filter(response_id=v["logged_pk"])),
    }
    for i, f in enumerate(("id", *CARD_FIELDS)):
        cards = _owned(ConceptCard.objects, signed_in, v[f"who{i}"]).filter(
            concept=v[f"concept{i}"]
        )
        columns[f"card_{f}"] = Subquery(cards.values(f)[:1])
    return Response.objects.filter(pk=v["pk"]).annotate(**columns).values_list(*columns)


def _card_row_orm(owner: Owner, concept: str, response: Response):
    cards = ConceptCard.objects.owned_by(owner).filter(concept=concept)
    row = (
        Response.objects.filter(pk=response.pk)
        .values(
            retention=Subquery(StudyPrefs.objects.owned_by(owner).values("desired_retention")[:1]),
            logged=Exists(ReviewLog.objects.filter(response=response)),
            **{f"card_{f}": Subquery(cards.values(f)[:1]) for f in ("id", *CARD_FIELDS)},
        )
        .get()
    )
    return _card_from(owner, concept, row)


def _card_from(owner: Owner, concept: str, row: dict):
    retention = row["retention"] or rules.RETENTION_DEFAULT
    if row["card_id"] is None:
        return None, retention, False
    card = ConceptCard(
        pk=row["card_id"],
        user=owner.user,
        owner_token=owner.token,
        concept=concept,
        **{f: row[f"card_{f}"] for f in CARD_FIELDS},
    )
    return card, retention, row["logged"]


CARD_FIELDS = (
    "state", "step", "stability", "difficulty", "due", "last_review", "subtopic", "reviews",
    "lapses",
)  # fmt: skip
_CARD_COLUMNS = ("retention", "logged", *(f"card_{f}" for f in ("id", *CARD_FIELDS)))


@dataclass
class QueueItem:
    card: ConceptCard
    recall: float  # retrievability now
    label: str = ""

    @property
    def recall_percent(self) -> int:
        return round(100 * self.recall)


def learner_cards(owner: Owner) -> list[ConceptCard]:
    """Every FSRS card of the learner, soonest due first (one query, bounded by the bank)."""
    if owner.user is None and not owner.token:
        return []
    return list(ConceptCard.objects.owned_by(owner).order_by("due", "concept"))


def review_queue(
    owner: Owner, now: datetime, cards: list[ConceptCard] | None = None
) -> tuple[list[QueueItem], list[ConceptCard]]:
    """Due concepts, the most forgotten first; and the concepts coming up, soonest first.

    One query (none when ``cards`` come from learner_cards); flashcards have their own queue.
    """
    cards = learner_cards(owner) if cards is None else cards
    cards = [c for c in cards if not flashcards.is_flashcard(c.concept)]
    due = [QueueItem(c, rules.retrievability(c.fsrs_state, now)) for c in cards if c.due <= now]
    due.sort(key=lambda item: (item.recall, item.card.due, item.card.concept))
    return due, [c for c in cards if c.due > now]


def _least_seen(owner: Owner, concepts: list[str]) -> dict[str, int]:
    """For each concept, the current published question this learner has answered least."""
    questions = list(
        Question.objects.published()
        .filter(concept__in=concepts)
        .values_list("id", "slug", "concept")
    )
    seen = {
        row["question__slug"]: (row["n"], row["last"])
        for row in Response.objects.released()
        .filter(
            attempt__in=Attempt.objects.owned_by(owner),
            question__slug__in=[slug for _, slug, _ in questions],
        )
        .values("question__slug")
        .annotate(n=Count("id"), last=Max("answered_at"))
        .order_by()
    }
    best: dict[str, tuple] = {}
    for qid, slug, concept in questions:
        n, last = seen.get(slug, (0, None))
        # fewest answers, then the one met longest ago (never met first), then by slug
        key = (n, last is not None, last, slug)
        if concept not in best or key < best[concept][0]:
            best[concept] = (key, qid)
    return {concept: qid for concept, (_, qid) in best.items()}


def review_start(*, owner: Owner, now: datetime, limit: int = REVIEW_BATCH) -> Attempt:
    """A practice attempt over the due concepts, most forgotten first, one question each."""
    due, _ = review_queue(owner, now)
    concepts = [item.card.concept for item in due]
    chosen = _least_seen(owner, concepts)
    ids = [chosen[c] for c in concepts if c in chosen][:limit]
    if not ids:
        raise NothingDue(
            gettext("Nothing is due for review right now. Come back when a concept is due.")
        )
    seed = random.SystemRandom().randrange(2**53)
    return quiz_services.attempt_start(
        owner=owner, mode=Attempt.Mode.PRACTICE, question_ids=ids, seed=seed
    )


def study_ahead_start(*, owner: Owner, now: datetime, limit: int = REVIEW_BATCH) -> Attempt:
    """When nothing is due: concepts never met first (one question each, across subtopics),
    then the concepts due soonest. Answers review their cards early, which FSRS allows."""
    _, upcoming = review_queue(owner, now)
    met = set(
        ConceptCard.objects.owned_by(owner).values_list("concept", flat=True)
        if owner.user is not None or owner.token
        else []
    )
    bank = list(
        Question.objects.published()
        .exclude(concept__in=met)
        .order_by("subtopic", "concept")
        .values_list("concept", "subtopic")
        .distinct()
    )
    by_subtopic: dict[str, list[str]] = {}
    placed: set[str] = set()  # a concept can span subtopics: offer it once
    for concept, subtopic in bank:
        if concept not in placed:
            placed.add(concept)
            by_subtopic.setdefault(subtopic, []).append(concept)
    fresh: list[str] = []
    while any(by_subtopic.values()) and len(fresh) < limit:  # round-robin over subtopics
        for concepts in by_subtopic.values():
            if concepts and len(fresh) < limit:
                fresh.append(concepts.pop(0))
    concepts = fresh + [c.concept for c in upcoming if c.concept not in placed]
    concepts = list(dict.fromkeys(concepts))[:limit]
    chosen = _least_seen(owner, concepts)
    ids = [chosen[c] for c in concepts if c in chosen][:limit]
    if not ids:
        raise NothingDue(
            gettext("There is nothing to study ahead: the bank has no published questions.")
        )
    seed = random.SystemRandom().randrange(2**53)
    return quiz_services.attempt_start(
        owner=owner, mode=Attempt.Mode.PRACTICE, question_ids=ids, seed=seed
    )


@dataclass
class FlashcardItem:
    card: flashcards.Flashcard
    stored: ConceptCard | None  # None: never reviewed (new, due now)

    @property
    def is_new(self) -> bool:
        return self.stored is None


def flashcard_queue(
    owner: Owner, now: datetime, cards: list[ConceptCard] | None = None
) -> tuple[list[FlashcardItem], int]:
    """Flashcards due now (new ones count as due), most overdue first; and how many are new.

    One query (none when ``cards`` come from learner_cards).
    """
    cards = learner_cards(owner) if cards is None else cards
    stored = {c.concept: c for c in cards if flashcards.is_flashcard(c.concept)}
    due = [
        FlashcardItem(fc, stored.get(fc.concept))
        for fc in flashcards.all_cards()
        if fc.concept not in stored or stored[fc.concept].due <= now
    ]
    # Reviews first (most overdue first), then new cards in catalogue order.
    due.sort(key=lambda item: (item.is_new, item.stored.due if item.stored else now))
    return due, sum(item.is_new for item in due)


class UnknownFlashcard(ValueError):
    pass


@transaction.atomic
def flashcard_rate(*, owner: Owner, card_id: str, rating: int, now: datetime) -> ReviewLog:
    """Review one flashcard with the learner's own rating (Again, Hard, Good, Easy)."""
    fc = flashcards.by_concept().get(flashcards.PREFIX + card_id)
    if fc is None:
        raise UnknownFlashcard(gettext("There is no flashcard %(card)r.") % {"card": card_id})
    if rating not in (1, 2, 3, 4):
        raise ValueError(gettext("Choose Again, Hard, Good or Easy."))
    card = (
        ConceptCard.objects.owned_by(owner).select_for_update().filter(concept=fc.concept).first()
    )
    if card is None:
        card = ConceptCard(user=owner.user, owner_token=owner.token, concept=fc.concept)
        card.apply(rules.new_card(now))
    lapsed = rating == 1 and card.state == ConceptCard.State.REVIEW
    after, recall = rules.review(
        card.fsrs_state, rules.Rating(rating), now, retention=retention_for(owner), fuzz=_fuzz()
    )
    card.apply(after)
    card.subtopic = fc.subtopic
    card.reviews += 1
    card.lapses += int(lapsed)
    card.save()
    return ReviewLog.objects.create(
        card=card, rating=rating, reviewed_at=now, retrievability=recall, due_after=card.due
    )


@transaction.atomic
def cards_claim(*, token: str, user) -> int:
    """Move a session's cards to an account; where both know a concept, the card reviewed
    last wins and keeps both review logs. Returns how many cards moved."""
    anon = list(ConceptCard.objects.anonymous(token))
    mine = {
        c.concept: c
        for c in ConceptCard.objects.filter(user=user, concept__in=[c.concept for c in anon])
    }
    moved = 0
    for card in anon:
        other = mine.get(card.concept)
        if other is not None:
            newer, older = sorted((card, other), key=lambda c: c.last_review or c.due, reverse=True)
            ReviewLog.objects.filter(card=older).update(card=newer)
            older.delete()
            if newer is other:
                continue
        card.user = user
        card.save(update_fields=["user"])
        moved += 1
    return moved
