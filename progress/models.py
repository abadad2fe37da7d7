"""One FSRS card per learner and concept, its review log, stated certainty, and study settings."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from core.owners import OwnedModel

from . import rules


class ConceptCard(OwnedModel):
    """The memory of one concept (all questions sharing a bank ``concept``) for one learner."""

    class State(models.IntegerChoices):  # the values of fsrs.State
        LEARNING = 1
        REVIEW = 2
        RELEARNING = 3

    concept = models.SlugField(max_length=80)
    subtopic = models.CharField(max_length=30)  # of the question last answered for it
    state = models.PositiveSmallIntegerField(choices=State.choices, default=State.LEARNING)
    step = models.PositiveSmallIntegerField(null=True, blank=True)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due = models.DateTimeField()
    last_review = models.DateTimeField(null=True, blank=True)
    reviews = models.PositiveIntegerField(default=0)
    lapses = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "concept"], condition=Q(user__isnull=False), name="card_per_user"
            ),
            models.UniqueConstraint(
                fields=["owner_token", "concept"],
                condition=Q(user__isnull=True),
                name="card_per_session",
            ),
        ]
        indexes = [
            models.Index(fields=["user", "due"]),
            models.Index(fields=["owner_token", "due"]),
        ]

    def __str__(self) -> str:
        return f"{self.concept} due {self.due:%Y-%m-%d}"

    @classmethod
    def claim(cls, token: str, user) -> int:
        """One card per concept and owner: where both know a concept, they are merged."""
        from .services import cards_claim

        return cards_claim(token=token, user=user)

    @property
    def fsrs_state(self) -> rules.CardState:
        return rules.CardState(
            self.state, self.step, self.stability, self.difficulty, self.due, self.last_review
        )

    def apply(self, state: rules.CardState) -> None:
        self.state, self.step = state.state, state.step
        self.stability, self.difficulty = state.stability, state.difficulty
        self.due, self.last_review = state.due, state.last_review


class ReviewLog(models.Model):
    """One FSRS review of a card: the rating the answer earned and when."""

    class Rating(models.IntegerChoices):  # the values of fsrs.Rating
        AGAIN = 1
        HARD = 2
        GOOD = 3
        EASY = 4

    card = models.ForeignKey(ConceptCard, on_delete=models.CASCADE, related_name="logs")
    # One review per answer: a double submit or a race cannot rate the same answer twice.
    response = models.OneToOneField(
        "quizzes.Response", null=True, blank=True, on_delete=models.SET_NULL
    )
    rating = models.PositiveSmallIntegerField(choices=Rating.choices)
    reviewed_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    retrievability = models.FloatField()  # just before the review; 0 for a first review
    due_after = models.DateTimeField()

    class Meta:
        ordering = ["reviewed_at"]

    def __str__(self) -> str:
        return f"{self.card_id} {self.get_rating_display()} at {self.reviewed_at:%Y-%m-%d %H:%M}"


class Confidence(models.Model):
    """The certainty (1–3) a learner stated with a practice answer."""

    response = models.OneToOneField(
        "quizzes.Response", primary_key=True, on_delete=models.CASCADE, related_name="confidence"
    )
    certainty = models.PositiveSmallIntegerField(
        choices=[(k, v) for k, v in rules.CERTAINTY_LABELS.items()],
        validators=[MinValueValidator(1), MaxValueValidator(3)],
    )
    seconds = models.PositiveIntegerField(null=True, blank=True)  # from page shown to answer

    def __str__(self) -> str:
        return f"{self.response_id}: C{self.certainty}"


class StudyPrefs(OwnedModel):
    """A learner's desired retention (FSRS), signed in or not."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    desired_retention = models.FloatField(
        default=rules.RETENTION_DEFAULT,
        validators=[
            MinValueValidator(rules.RETENTION_MIN),
            MaxValueValidator(rules.RETENTION_MAX),
        ],
    )

    def __str__(self) -> str:
        return f"retention {self.desired_retention:.2f}"

    @classmethod
    def claim(cls, token: str, user) -> int:
        """One row per account: the account's own settings win over the session's."""
        anon = cls.objects.anonymous(token)
        if cls.objects.filter(user=user).exists():
            anon.delete()
            return 0
        return anon.update(user=user)
