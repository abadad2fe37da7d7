from django.db import models, transaction
from django.db.models import F, Q
from django.utils import timezone

from core.owners import OwnedModel


class UploadedRun(OwnedModel):
    """A learner's own recorded loop: private to its owner (account or browser session)."""

    title = models.CharField(max_length=200)
    source = models.CharField(max_length=20)  # transcript | raw_log | message
    data = models.JSONField()  # the transcript, in loopcraft.transcript/1 form
    size = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    # Private by default. Publishing sets an unguessable token (a read-only link); revoking
    # clears it, and a new publish makes a new token, so an old link never comes back.
    share_token = models.CharField(max_length=64, blank=True, default="", db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title


class LiveRun(OwnedModel):
    """A loop driven against the real API from the sandbox; its whole state is JSON."""

    scenario = models.CharField(max_length=60)
    title = models.CharField(max_length=200)
    state = models.JSONField()  # runner.Run.to_state(): history, parameters, guards, usage
    last_error = models.JSONField(null=True, blank=True)  # the last failed call, if any
    forked_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title


class LiveUsage(OwnedModel):
    """Tokens and calls one owner spent on live runs in one UTC day (for the daily cap)."""

    day = models.DateField()
    tokens = models.PositiveIntegerField(default=0)
    calls = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "day"], condition=Q(user__isnull=False), name="usage_per_user_day"
            ),
            models.UniqueConstraint(
                fields=["owner_token", "day"],
                condition=Q(user__isnull=True),
                name="usage_per_session_day",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id or self.owner_token} {self.day}: {self.tokens}"

    @classmethod
    @transaction.atomic
    def claim(cls, token: str, user) -> int:
        """What a session spent counts against the account, added to what it spent that day."""
        rows = list(cls.objects.anonymous(token))
        for row in rows:
            mine = cls.objects.filter(user=user, day=row.day)
            if mine.update(tokens=F("tokens") + row.tokens, calls=F("calls") + row.calls):
                row.delete()
            else:
                cls.objects.filter(pk=row.pk).update(user=user)
        return len(rows)


class LiveJob(models.Model):
    """One request to call the API for a live run (a step, or "run to the end"), done off the
    request thread by studyapp.sandbox.jobs. At most one is active per run. It holds no API key:
    a visitor's own key stays in their session and in the memory of the process running the job.
    """

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    ACTIVE = (QUEUED, RUNNING)

    live = models.ForeignKey(LiveRun, on_delete=models.CASCADE, related_name="jobs")
    to_end = models.BooleanField(default=False)
    tool_results = models.JSONField(null=True, blank=True)  # manual mode: the learner's results
    key_source = models.CharField(max_length=10)  # "server" (charged to payer) | "own"
    payer = models.CharField(max_length=80, blank=True)  # LiveUsage.owner_key for the server key
    status = models.CharField(max_length=10, default=QUEUED)
    worker = models.CharField(max_length=100, blank=True)  # host:pid:thread that claimed it
    lease_until = models.DateTimeField(null=True, blank=True)
    cancel = models.BooleanField(default=False)  # "Stop the run" pressed while it runs
    text = models.TextField(blank=True)  # the streamed text of the call in progress
    calls = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)  # why it failed, in words (English)
    # the same as a message id and its values (agentloop.i18n.dump): worded in the page's language
    error_msg = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["live"],
                condition=models.Q(status__in=["queued", "running"]),
                name="one_active_job_per_run",
            )
        ]

    def __str__(self) -> str:
        return f"job {self.pk} of run {self.live_id}: {self.status}"


class PredictAnswer(OwnedModel):
    """One prediction in predict mode: what the learner chose at a step, graded on the server."""

    run_key = models.CharField(max_length=100)  # library slug, or "u<pk>" for an upload
    step = models.PositiveIntegerField()  # 1-based, as the page shows it
    stop_reason = models.CharField(max_length=60, blank=True)
    chosen = models.CharField(max_length=40)
    right = models.CharField(max_length=40)
    correct = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.run_key} step {self.step}: {self.chosen}"
