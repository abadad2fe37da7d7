"""Pure rules of the progress app: FSRS ratings, certainty-based marks, relative dates.

No Django here, so the rules have fast tests of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils.translation import gettext_lazy as _
from fsrs import Card, Rating, Scheduler, State

#: An answer given within this many seconds of the page showing the question counts as quick.
QUICK_SECONDS = 20
#: The learner's desired retention may be set within these bounds (FSRS's study-load dial).
RETENTION_MIN, RETENTION_MAX, RETENTION_DEFAULT = 0.80, 0.95, 0.90

CERTAINTY_LABELS = {1: _("Unsure"), 2: _("Mid"), 3: _("Quite sure")}
#: Certainty-based marking as in Moodle's CBM behaviours: mark if right, mark if wrong.
CBM_RIGHT = {1: 1, 2: 2, 3: 3}
CBM_WRONG = {1: 0, 2: -2, 3: -6}
#: The share right (in percent) at which each certainty level is the best choice.
CBM_WINDOWS = {1: (0, 67), 2: (67, 80), 3: (80, 100)}


def rating_for(*, correct: bool, certainty: int | None, seconds: float | None) -> Rating:
    """Wrong → Again; right but unsure → Hard; right, certain and quick → Easy; right → Good."""
    if not correct:
        return Rating.Again
    if certainty == 1:
        return Rating.Hard
    if certainty == 3 and seconds is not None and 0 <= seconds < QUICK_SECONDS:
        return Rating.Easy
    return Rating.Good


def cbm_mark(certainty: int, correct: bool) -> int:
    """Moodle's CBM mark for one answer: ×1/×2/×3 if right, 0/−2/−6 if wrong."""
    return CBM_RIGHT[certainty] if correct else CBM_WRONG[certainty]


def parse_certainty(value) -> int | None:
    """1, 2 or 3 from a form value; anything else means the learner did not say."""
    try:
        level = int(value)
    except (TypeError, ValueError):
        return None
    return level if level in CBM_RIGHT else None


@dataclass(frozen=True)
class CertaintyRow:
    level: int
    answers: int
    right: int

    @property
    def label(self) -> str:
        return CERTAINTY_LABELS[self.level]

    @property
    def percent(self) -> int | None:
        return round(100 * self.right / self.answers) if self.answers else None

    @property
    def marks(self) -> int:
        return (
            self.right * CBM_RIGHT[self.level] + (self.answers - self.right) * CBM_WRONG[self.level]
        )

    @property
    def window(self) -> tuple[int, int]:
        return CBM_WINDOWS[self.level]

    @property
    def verdict(self) -> str:
        """Whether this level was used where it pays, judged by the share right."""
        if not self.answers:
            return "not used yet"
        low, high = self.window
        if self.percent < low:
            return "over-confident: right less often than this level needs"
        if self.percent > high and self.level < 3:
            return "under-confident: you could choose a higher certainty"
        return "well calibrated"


@dataclass(frozen=True)
class CbmSummary:
    rows: list[CertaintyRow]

    @property
    def answers(self) -> int:
        return sum(r.answers for r in self.rows)

    @property
    def right(self) -> int:
        return sum(r.right for r in self.rows)

    @property
    def plain_percent(self) -> int | None:
        return round(100 * self.right / self.answers) if self.answers else None

    @property
    def marks(self) -> int:
        return sum(r.marks for r in self.rows)

    @property
    def average_mark(self) -> float | None:
        """Mean CBM mark per answer, from −6 (all wrong at certainty 3) to 3."""
        return round(self.marks / self.answers, 2) if self.answers else None


def cbm_summary(counts: dict[int, tuple[int, int]]) -> CbmSummary:
    """Rows for certainty 1..3 from {level: (answers, right)}."""
    return CbmSummary([CertaintyRow(lv, *counts.get(lv, (0, 0))) for lv in (1, 2, 3)])


def relative_day(when: datetime, now: datetime) -> str:
    """'today', 'tomorrow', 'in 3 days' or '2 days ago', counted in UTC calendar days."""
    days = (when.astimezone(UTC).date() - now.astimezone(UTC).date()).days
    if days == 0:
        return "today"
    if days == 1:
        return "tomorrow"
    if days == -1:
        return "yesterday"
    return f"in {days} days" if days > 0 else f"{-days} days ago"


# --- FSRS ----------------------------------------------------------------------------------


def scheduler(desired_retention: float = RETENTION_DEFAULT, *, fuzz: bool = True) -> Scheduler:
    """A scheduler with day-sized steps only.

    No minute-long learning steps: a concept met in a practice set is due again on a later day,
    not ten minutes later in the same session.
    """
    retention = min(max(desired_retention, RETENTION_MIN), RETENTION_MAX)
    return Scheduler(
        desired_retention=retention, learning_steps=(), relearning_steps=(), enable_fuzzing=fuzz
    )


def utc(value: datetime | None) -> datetime | None:
    return value.astimezone(UTC) if value is not None else None


@dataclass
class CardState:
    """The columns a stored card keeps; the same fields as fsrs.Card."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None


def to_fsrs(card: CardState) -> Card:
    return Card(
        card_id=0,  # an explicit id: the default sleeps a millisecond to make one up
        state=State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=utc(card.due),
        last_review=utc(card.last_review),
    )


def review(
    card: CardState, rating: Rating, now: datetime, *, retention: float, duration_ms=None, fuzz=True
) -> tuple[CardState, float]:
    """The card after a review at ``now``, and its retrievability just before it."""
    sched = scheduler(retention, fuzz=fuzz)
    before = to_fsrs(card)
    recall = sched.get_card_retrievability(before, utc(now)) if card.last_review else 0.0
    after, _log = sched.review_card(before, rating, utc(now), review_duration=duration_ms)
    return (
        CardState(
            state=int(after.state),
            step=after.step,
            stability=after.stability,
            difficulty=after.difficulty,
            due=after.due,
            last_review=after.last_review,
        ),
        recall,
    )


def retrievability(card: CardState, now: datetime) -> float:
    """How likely the learner still recalls the concept now (0 for a card never reviewed)."""
    if card.last_review is None:
        return 0.0
    return scheduler(fuzz=False).get_card_retrievability(to_fsrs(card), utc(now))


def new_card(now: datetime) -> CardState:
    return CardState(
        state=int(State.Learning),
        step=0,
        stability=None,
        difficulty=None,
        due=now,
        last_review=None,
    )
