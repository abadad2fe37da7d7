from django.conf import settings
from django.db import models
from django.utils import timezone


class UploadedRunQuerySet(models.QuerySet):
    def owned_by(self, owner):
        if owner.user is not None:
            return self.filter(user=owner.user)
        return self.filter(user=None, owner_token=owner.token) if owner.token else self.none()


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

    objects = UploadedRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title
