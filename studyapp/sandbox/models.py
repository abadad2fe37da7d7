from django.conf import settings
from django.db import models
from django.utils import timezone

from quizzes.owners import OwnedQuerySet


class UploadedRun(models.Model):
    """A learner's own recorded loop: private to its owner (account or browser session)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    title = models.CharField(max_length=200)
    source = models.CharField(max_length=20)  # transcript | raw_log | message
    data = models.JSONField()  # the transcript, in loopcraft.transcript/1 form
    size = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    # Private by default. Publishing sets an unguessable token (a read-only link); revoking
    # clears it, and a new publish makes a new token, so an old link never comes back.
    share_token = models.CharField(max_length=64, blank=True, default="", db_index=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title


class LiveRun(models.Model):
    """A loop driven against the real API from the sandbox; its whole state is JSON."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    scenario = models.CharField(max_length=60)
    title = models.CharField(max_length=200)
    state = models.JSONField()  # runner.Run.to_state(): history, parameters, guards, usage
    last_error = models.JSONField(null=True, blank=True)  # the last failed call, if any
    forked_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title


class LiveUsage(models.Model):
    """Tokens and calls one owner spent on live runs in one UTC day (for the daily cap)."""

    owner_key = models.CharField(max_length=80)
    day = models.DateField()
    tokens = models.PositiveIntegerField(default=0)
    calls = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner_key", "day"], name="one_usage_row_per_day")
        ]

    def __str__(self) -> str:
        return f"{self.owner_key} {self.day}: {self.tokens}"


class PredictAnswer(models.Model):
    """One prediction in predict mode: what the learner chose at a step, graded on the server."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)
    run_key = models.CharField(max_length=100)  # library slug, or "u<pk>" for an upload
    step = models.PositiveIntegerField()  # 1-based, as the page shows it
    stop_reason = models.CharField(max_length=60, blank=True)
    chosen = models.CharField(max_length=40)
    right = models.CharField(max_length=40)
    correct = models.BooleanField()
    created_at = models.DateTimeField(default=timezone.now)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.run_key} step {self.step}: {self.chosen}"
