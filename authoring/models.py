"""Problem reports: a learner's words about one question version, triaged by instructors."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.owners import OwnedModel, OwnedQuerySet
from quizzes.models import Question


class ProblemReportQuerySet(OwnedQuerySet):
    def open(self):
        return self.filter(status=ProblemReport.Status.OPEN)

    def for_triage(self):
        """Newest first, with the question and the reporter loaded in the same query."""
        return self.select_related("question", "user").order_by("-created_at", "-pk")


class ProblemReport(OwnedModel):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RESOLVED = "resolved", "Resolved"
        DISMISSED = "dismissed", "Dismissed"

    MAX_TEXT = 1000

    # The exact version the learner saw: a later edit must not change what was reported.
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="reports")
    # A report outlives its reporter's account.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    text = models.TextField(max_length=MAX_TEXT)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="resolved_reports",
    )

    objects = ProblemReportQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"report {self.pk} on {self.question}"
