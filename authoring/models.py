"""Problem reports: a learner's words about one question version, triaged by instructors."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from core.owners import OwnedModel, OwnedQuerySet
from quizzes.models import Question


class ProblemReportQuerySet(OwnedQuerySet):
    def open(self):
        return self.filter(status=ProblemReport.Status.OPEN)

    def reported_by(self, owner):
        """The reports a learner (or an anonymous browser) sent, newest first."""
        return self.reported_by_these(lambda rows: rows.owned_by(owner))

    def reported_by_these(self, owned):
        """``reported_by`` with ``owned(queryset)`` choosing the owner's rows."""
        return owned(self).select_related("question").order_by("-created_at", "-pk")

    def for_triage(self):
        """Newest first, with the question, the reporter and who resolved it loaded in the
        same query."""
        return self.select_related("question", "user", "resolved_by").order_by("-created_at", "-pk")


class ProblemReport(OwnedModel):
    class Status(models.TextChoices):
        OPEN = "open", gettext_lazy("Open")
        RESOLVED = "resolved", gettext_lazy("Resolved")
        DISMISSED = "dismissed", gettext_lazy("Dismissed")

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
    #: What the instructor did about it, shown to the learner who reported it.
    resolution_note = models.TextField(blank=True, max_length=MAX_TEXT)
    #: The version that carries the fix (the current one when the report was resolved).
    fixed_in_version = models.PositiveIntegerField(null=True, blank=True)

    objects = ProblemReportQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"report {self.pk} on {self.question}"


class CategorySubtopic(models.Model):
    """The subtopic an instructor chose for a Moodle category on the import form, remembered."""

    category = models.CharField(max_length=255, unique=True)
    subtopic = models.CharField(max_length=30)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.category} → {self.subtopic}"
