"""The question bank (one row per question version), attempts and responses."""

from __future__ import annotations

import math
import secrets

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy, pgettext_lazy

from core import i18n
from core.owners import OwnedModel, OwnedQuerySet

from .schema import FAMILIES, KINDS, SUBTOPIC_LABELS, SUBTOPICS


def new_key() -> str:
    """An opaque option key: forms submit it, and it says nothing about the answer."""
    return secrets.token_hex(5)


class QuestionQuerySet(models.QuerySet):
    def current(self):
        return self.filter(is_current=True)

    def published(self):
        return self.current().filter(status=Question.Status.PUBLISHED)

    def subtopic_counts_query(self):
        """(subtopic, number of questions) rows."""
        return self.values_list("subtopic").annotate(n=models.Count("id")).order_by()


class Question(models.Model):
    """One version of a question; responses point at the exact version they answered."""

    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("question status", "Draft")
        PUBLISHED = "published", pgettext_lazy("question status", "Published")

    class Origin(models.TextChoices):
        FILE = "file", pgettext_lazy("question origin", "File")
        BROWSER = "browser", pgettext_lazy("question origin", "Browser")

    slug = models.SlugField(max_length=80)
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    kind = models.CharField(max_length=20, choices=[(k, k) for k in KINDS])
    subtopic = models.CharField(max_length=30, choices=[(s, SUBTOPIC_LABELS[s]) for s in SUBTOPICS])
    concept = models.SlugField(max_length=80)
    difficulty = models.PositiveSmallIntegerField(default=2)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PUBLISHED)
    stem = models.TextField()
    stem_html = models.TextField()
    explanation = models.TextField()
    explanation_html = models.TextField()
    sources = models.JSONField(default=list)
    notes_ref = models.CharField(max_length=120)
    #: One of the exam's six scenarios (quizzes.scenarios), "general", or blank (not tagged).
    scenario = models.CharField(max_length=40, blank=True, default="")
    #: Items testing the same fact share a cluster; one exam draws at most one of them.
    cluster = models.SlugField(max_length=60, blank=True, default="")
    #: Moodle's id of an imported question (XML <idnumber>): kept, exported, and an import
    #: with the same idnumber updates this question rather than making a new one.
    idnumber = models.CharField(max_length=100, blank=True, default="")
    data = models.JSONField(default=dict, blank=True)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.FILE)
    content_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["slug", "version"], name="question_slug_version"),
            models.UniqueConstraint(
                fields=["slug"], condition=Q(is_current=True), name="one_current_version"
            ),
        ]
        indexes = [models.Index(fields=["is_current", "status", "subtopic"])]

    def __str__(self) -> str:
        return f"{self.slug} v{self.version}"

    def grading_spec(self) -> dict:
        """What the pure grader needs; uses prefetched options when there are any."""
        return {
            "kind": self.kind,
            "options": [
                {
                    "key": o.key,
                    "correct": o.correct,
                    "position": o.position,
                    "match": o.match,
                    "family": o.family,
                }
                for o in self.options.all()
            ],
            "data": self.data,
        }

    @property
    def notes_url(self) -> str:
        """The note section that teaches it, in the page's language."""
        slug, _, anchor = self.notes_ref.partition("#")
        path = f"/notes/{slug}/#{anchor}" if anchor else f"/notes/{slug}/"
        return i18n.localise_path(path)


class QuestionTranslation(models.Model):
    """One question version's words in another language (quizzes.translations): never a key,
    so grading, statistics and FSRS cards stay the English question's."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="translations")
    lang = models.CharField(max_length=10)  # a Django code of settings.LANGUAGES, not "en"
    #: The translated fields as the file has them (stem, explanation, options: [{text, why}], …).
    fields = models.JSONField(default=dict)
    #: The same, rendered and sanitised (core.rendering), ready for the page.
    html = models.JSONField(default=dict)
    #: The hash of the English words it was translated from (translations.source_hash): when it
    #: differs from the English question's, the translation is stale.
    source_hash = models.CharField(max_length=64, blank=True)
    #: source_hash differs from its question version's words (a version never changes, so this
    #: is settled when the row is written: loaded, or carried over to a new English version).
    is_stale = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "lang"], name="one_translation_per_lang")
        ]

    def __str__(self) -> str:
        return f"{self.question_id} in {self.lang}"


class Option(models.Model):
    """A choice, an ordering item or a matching pair, with the why that teaches it."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="options")
    key = models.CharField(max_length=40, default=new_key)
    position = models.PositiveSmallIntegerField()
    text = models.TextField()
    text_html = models.TextField()
    correct = models.BooleanField(default=False)
    why = models.TextField()
    why_html = models.TextField()
    family = models.CharField(max_length=30, blank=True, choices=[(f, f) for f in FAMILIES])
    match = models.TextField(blank=True)  # matching: the right-hand text this left item pairs with

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["question", "key"], name="option_key_per_question")
        ]

    def __str__(self) -> str:
        return self.text[:60]


def closed_attempt_q(prefix: str = "", now=None) -> Q:
    """The one rule of exam integrity, as a filter on attempts (``prefix`` reaches them through a
    relation, e.g. ``"attempt__"``): practice answers count as soon as they are given (each gets
    its feedback at once), an exam's only once it is submitted or past its deadline. Nothing else
    (retakes, "missed last time", FSRS, statistics, the dashboard) may read an open exam."""
    now = now or timezone.now()
    return (
        Q(**{f"{prefix}mode": "practice"})
        | Q(**{f"{prefix}submitted_at__isnull": False})
        | Q(**{f"{prefix}deadline__lte": now})
    )


class AttemptQuerySet(OwnedQuerySet):
    def closed(self, now=None):
        """Attempts whose answers other features may read (see ``closed_attempt_q``)."""
        return self.filter(closed_attempt_q(now=now))


class Attempt(OwnedModel):
    class Mode(models.TextChoices):
        PRACTICE = "practice", gettext_lazy("Practice")
        EXAM = "exam", gettext_lazy("Exam")

    class Format(models.TextChoices):
        TOPIC = "topic", gettext_lazy("Topic mock")
        CCAF = "ccaf", gettext_lazy("CCA-F format")

    mode = models.CharField(max_length=10, choices=Mode.choices)
    #: For exams: a topic quiz drawn by subtopic weight, or the CCA-F scenario format.
    exam_format = models.CharField(max_length=10, choices=Format.choices, default=Format.TOPIC)
    seed = models.BigIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    question_count = models.PositiveSmallIntegerField()
    score = models.FloatField(null=True, blank=True)
    retake_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["user", "mode", "started_at"])]

    def __str__(self) -> str:
        return f"{self.mode} attempt {self.pk}"

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None

    def seconds_left(self, now=None) -> int | None:
        if self.deadline is None:
            return None
        now = now or timezone.now()
        # Rounded up, so a browser counting down never reloads before the server's deadline.
        return max(0, math.ceil((self.deadline - now).total_seconds()))

    def is_expired(self, now=None) -> bool:
        return self.deadline is not None and (now or timezone.now()) >= self.deadline

    def is_closed(self, now=None) -> bool:
        """May other features read this attempt's answers? (the rule of ``closed_attempt_q``)"""
        return self.mode == self.Mode.PRACTICE or self.is_submitted or self.is_expired(now)


class ResponseQuerySet(models.QuerySet):
    def released(self, now=None):
        """Answers other features may use: answered, in an attempt that is closed."""
        return self.filter(closed_attempt_q("attempt__", now), answered_at__isnull=False)


class Response(models.Model):
    """A learner's answer to one question (version) in one attempt: one row per pair."""

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="responses")
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="responses")
    position = models.PositiveSmallIntegerField()
    answer = models.JSONField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    is_correct = models.BooleanField(null=True)
    families = models.JSONField(default=list, blank=True)  # traps the chosen answer fell into
    flagged = models.BooleanField(default=False)
    answered_at = models.DateTimeField(null=True, blank=True)

    objects = ResponseQuerySet.as_manager()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["attempt", "question"], name="one_response"),
            models.UniqueConstraint(fields=["attempt", "position"], name="one_position"),
        ]

    def __str__(self) -> str:
        return f"{self.attempt_id}:{self.position}"

    @property
    def answered(self) -> bool:
        return self.answered_at is not None
